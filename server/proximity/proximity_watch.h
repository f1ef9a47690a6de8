// WatchProximity: a RingWatch following a scene's ProximityRing with a
// ProximityCursor (each evaluation's events, or a resync). The scene's
// deletion ends it with OK.
#ifndef SATOR_SERVER_PROXIMITY_PROXIMITY_WATCH_H_
#define SATOR_SERVER_PROXIMITY_PROXIMITY_WATCH_H_

#include <cstdint>
#include <memory>

#include "grpcpp/support/server_callback.h"
#include "sator/v1/proximity.pb.h"
#include "server/drain_gate.h"
#include "server/proximity/proximity_cursor.h"
#include "server/proximity/proximity_hosts.h"
#include "server/streams/ring_watch.h"

namespace sator::server {

using ProximityWatches = RingWatches<sator::v1::WatchProximityResponse>;

// The limit of --max_proximity_watches open streams.
RingWatchLimit ProximityWatchLimit(int max_watches);

class ProximityWatch final
    : public RingWatch<sator::v1::WatchProximityResponse> {
 public:
  // Starts following `cursor`, or finishes at once when `watches` is closed
  // or full. `watches` must outlive the watch.
  ProximityWatch(ProximityCursor cursor, ProximityWatches& watches,
                 DrainGate::Pass pass, grpc::CallbackServerContext& context);

 private:
  bool Next(sator::v1::WatchProximityResponse* message) override {
    return cursor_.Next(message);
  }
  bool Ended() const override { return cursor_.ended(); }

  // Under the watch's lock.
  ProximityCursor cursor_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_PROXIMITY_PROXIMITY_WATCH_H_
