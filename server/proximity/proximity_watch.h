// WatchProximity: a RingWatch following a scene's ProximityRing from a
// cursor, sending each evaluation's events, or a resync with every current
// set where it lags more than the watch buffer behind or asked for
// evaluations no longer kept. The scene's deletion ends it with OK.
#ifndef SATOR_SERVER_PROXIMITY_PROXIMITY_WATCH_H_
#define SATOR_SERVER_PROXIMITY_PROXIMITY_WATCH_H_

#include <cstdint>
#include <memory>

#include "grpcpp/support/server_callback.h"
#include "sator/v1/proximity.pb.h"
#include "server/drain_gate.h"
#include "server/proximity/proximity_hosts.h"
#include "server/streams/ring_watch.h"

namespace sator::server {

using ProximityWatches = RingWatches<sator::v1::WatchProximityResponse>;

// The limit of --max_proximity_watches open streams.
RingWatchLimit ProximityWatchLimit(int max_watches);

class ProximityWatch final
    : public RingWatch<sator::v1::WatchProximityResponse> {
 public:
  // Starts following `host` from `cursor` (a sequence number), beginning
  // with a resync when `resync_first`, or finishes at once when `watches` is
  // closed or full. `watches` and `counters` must outlive the watch.
  ProximityWatch(std::shared_ptr<ProximityHost> host, std::uint64_t cursor,
                 bool resync_first, ProximityWatches& watches,
                 ProximityCounters& counters, DrainGate::Pass pass,
                 grpc::CallbackServerContext& context);

 private:
  bool Next(sator::v1::WatchProximityResponse* message) override;
  bool Ended() const override { return host_->closed(); }

  const std::shared_ptr<ProximityHost> host_;
  ProximityCounters& counters_;
  // Under the watch's lock.
  std::uint64_t cursor_;
  bool resync_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_PROXIMITY_PROXIMITY_WATCH_H_
