// A subscriber's place in a scene's ProximityRing, shared by the two ways
// to follow a scene's evaluations (a WatchProximity stream, a Session's
// watch_proximity): each call gives the next evaluation's events, or a
// resync with every current set where the subscriber lags more than the
// watch buffer behind or asked for evaluations no longer kept.
#ifndef SATOR_SERVER_PROXIMITY_PROXIMITY_CURSOR_H_
#define SATOR_SERVER_PROXIMITY_PROXIMITY_CURSOR_H_

#include <cstdint>
#include <memory>
#include <utility>

#include "sator/v1/proximity.pb.h"
#include "server/proximity/proximity_hosts.h"

namespace sator::server {

class ProximityCursor {
 public:
  // Follows `host` from sequence `from`, beginning with a resync when
  // `resync_first`. `counters` must outlive the cursor.
  ProximityCursor(std::shared_ptr<ProximityHost> host, std::uint64_t from,
                  bool resync_first, ProximityCounters& counters)
      : host_(std::move(host)),
        counters_(&counters),
        cursor_(from),
        resync_(resync_first) {}

  // Fills `message` (empty) with what comes next and returns true, or
  // returns false when there is nothing yet. One caller at a time.
  bool Next(sator::v1::WatchProximityResponse* message);

  // The sequence Next gives next (or the resync before it).
  std::uint64_t position() const { return cursor_; }
  // The scene was deleted: once Next gives false, nothing more comes.
  bool ended() const { return host_->closed(); }
  ProximityRing& ring() { return host_->ring(); }

 private:
  std::shared_ptr<ProximityHost> host_;
  ProximityCounters* counters_;
  std::uint64_t cursor_;
  bool resync_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_PROXIMITY_PROXIMITY_CURSOR_H_
