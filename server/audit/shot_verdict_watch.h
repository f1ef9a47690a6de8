// WatchShotVerdicts: a RingWatch following a scene's ShotAuditRing from a
// cursor, sending each record, or a gap when it lags more than the watch
// buffer behind or asked for records already overwritten.
#ifndef SATOR_SERVER_AUDIT_SHOT_VERDICT_WATCH_H_
#define SATOR_SERVER_AUDIT_SHOT_VERDICT_WATCH_H_

#include <cstdint>
#include <memory>

#include "grpcpp/support/server_callback.h"
#include "sator/v1/shot_audit.pb.h"
#include "server/audit/shot_audit_ring.h"
#include "server/drain_gate.h"
#include "server/streams/ring_watch.h"

namespace sator::server {

using ShotVerdictWatches = RingWatches<sator::v1::WatchShotVerdictsResponse>;

// The limit of --max_shot_verdict_watches open streams.
RingWatchLimit ShotVerdictWatchLimit(int max_watches);

class ShotVerdictWatch final
    : public RingWatch<sator::v1::WatchShotVerdictsResponse> {
 public:
  // Starts following `ring` from `cursor` (a sequence number), lagging at
  // most `max_lag` records, or finishes at once when `watches` is closed or
  // full. `watches` must outlive the watch.
  ShotVerdictWatch(std::shared_ptr<ShotAuditRing> ring, std::uint64_t cursor,
                   std::uint64_t max_lag, ShotVerdictWatches& watches,
                   DrainGate::Pass pass, grpc::CallbackServerContext& context);

 private:
  bool Next(sator::v1::WatchShotVerdictsResponse* message) override;

  const std::shared_ptr<ShotAuditRing> ring_;
  const std::uint64_t max_lag_;
  // Under the watch's lock.
  std::uint64_t cursor_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_AUDIT_SHOT_VERDICT_WATCH_H_
