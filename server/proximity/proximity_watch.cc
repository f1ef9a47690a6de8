// See proximity_watch.h.
#include "server/proximity/proximity_watch.h"

#include <utility>

namespace sator::server {

RingWatchLimit ProximityWatchLimit(int max_watches) {
  return {.max_watches = max_watches,
          .rpc = "WatchProximity",
          .flag = "--max_proximity_watches",
          .shed_reason = ShedReason::kProximityWatches};
}

ProximityWatch::ProximityWatch(ProximityCursor cursor,
                               ProximityWatches& watches, DrainGate::Pass pass,
                               grpc::CallbackServerContext& context)
    : RingWatch(watches, std::move(pass)), cursor_(std::move(cursor)) {
  // Evaluations already kept (from_tick), or the first resync, go at once.
  Start(cursor_.ring(), context);
}

}  // namespace sator::server
