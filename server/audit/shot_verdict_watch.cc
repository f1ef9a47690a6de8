// See shot_verdict_watch.h.
#include "server/audit/shot_verdict_watch.h"

#include <utility>

namespace sator::server {

RingWatchLimit ShotVerdictWatchLimit(int max_watches) {
  return {.max_watches = max_watches,
          .rpc = "WatchShotVerdicts",
          .flag = "--max_shot_verdict_watches",
          .shed_reason = ShedReason::kShotVerdictWatches};
}

ShotVerdictWatch::ShotVerdictWatch(std::shared_ptr<ShotAuditRing> ring,
                                   std::uint64_t cursor, std::uint64_t max_lag,
                                   ShotVerdictWatches& watches,
                                   DrainGate::Pass pass,
                                   grpc::CallbackServerContext& context)
    : RingWatch(watches, std::move(pass)),
      ring_(std::move(ring)),
      max_lag_(max_lag),
      cursor_(cursor) {
  // Records already there (from_sequence) are sent at once.
  Start(*ring_, context);
}

bool ShotVerdictWatch::Next(sator::v1::WatchShotVerdictsResponse* message) {
  const ShotAuditRing::Next next = ring_->NextFor(cursor_, max_lag_);
  if (next.gap_dropped > 0) {
    sator::v1::ShotVerdictGap* gap = message->mutable_gap();
    gap->set_first_sequence(next.gap_first);
    gap->set_dropped(next.gap_dropped);
    cursor_ += next.gap_dropped;
    ring_->AddSubscriberDropped(next.gap_dropped);
    return true;
  }
  if (next.record == nullptr) return false;
  *message->mutable_record() = *next.record;
  cursor_ = next.record->sequence() + 1;
  return true;
}

}  // namespace sator::server
