// See proximity_cursor.h.
#include "server/proximity/proximity_cursor.h"

namespace sator::server {

bool ProximityCursor::Next(sator::v1::WatchProximityResponse* message) {
  const ProximityRing::Next next =
      resync_ ? ProximityRing::Next{}
              : host_->ring().NextFor(cursor_, host_->limits().watch_buffer);
  if (resync_ || next.gap_dropped > 0) {
    sator::v1::ProximityResync* resync = message->mutable_resync();
    host_->Resync(resync);
    const std::uint64_t dropped = resync->next_sequence() > cursor_
                                      ? resync->next_sequence() - cursor_
                                      : 0;
    resync->set_dropped(dropped);
    cursor_ = resync->next_sequence();
    resync_ = false;
    host_->ring().AddSubscriberDropped(dropped);
    counters_->resyncs.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  if (next.record == nullptr) return false;
  *message->mutable_events() = *next.record;
  cursor_ = next.record->sequence() + 1;
  return true;
}

}  // namespace sator::server
