// See shot_verdict_watch.h.
#include "server/audit/shot_verdict_watch.h"

#include <utility>
#include <vector>

namespace sator::server {

bool ShotVerdictWatches::Add(ShotVerdictWatch* watch) {
  absl::MutexLock lock(&mu_);
  if (closed_) return false;
  watches_.insert(watch);
  return true;
}

void ShotVerdictWatches::Remove(ShotVerdictWatch* watch) {
  absl::MutexLock lock(&mu_);
  watches_.erase(watch);
}

void ShotVerdictWatches::CloseAll() {
  std::vector<ShotVerdictWatch*> idle;
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    // A watch cannot reach OnDone (and Remove) before Finish, so the idle
    // ones stay alive until FinishClosed below.
    for (ShotVerdictWatch* watch : watches_) {
      if (watch->Close()) idle.push_back(watch);
    }
  }
  for (ShotVerdictWatch* watch : idle) watch->FinishClosed();
}

void ShotVerdictWatch::Waker::OnRecorded() {
  absl::MutexLock lock(&mu_);
  if (watch_ != nullptr) watch_->Pump();
}

void ShotVerdictWatch::Waker::Detach() {
  absl::MutexLock lock(&mu_);
  watch_ = nullptr;
}

ShotVerdictWatch::ShotVerdictWatch(std::shared_ptr<ShotAuditRing> ring,
                                   std::uint64_t cursor, std::uint64_t max_lag,
                                   ShotVerdictWatches& watches,
                                   DrainGate::Pass pass)
    : ring_(std::move(ring)),
      max_lag_(max_lag),
      watches_(watches),
      pass_(std::move(pass)),
      cursor_(cursor) {
  if (!watches_.Add(this)) {
    absl::MutexLock lock(&mu_);
    finished_ = true;
    Finish(grpc::Status::OK);
    return;
  }
  tracked_ = true;
  waker_ = std::make_shared<Waker>(this);
  ring_->Subscribe(waker_);
  // Records already there (from_sequence) are sent at once.
  Pump();
}

void ShotVerdictWatch::Pump() {
  absl::MutexLock lock(&mu_);
  PumpLocked();
}

void ShotVerdictWatch::PumpLocked() {
  if (finished_ || writing_) return;
  if (closing_) {
    finished_ = true;
    Finish(grpc::Status::OK);
    return;
  }
  const ShotAuditRing::Next next = ring_->NextFor(cursor_, max_lag_);
  if (next.gap_dropped > 0) {
    sator::v1::ShotVerdictGap* gap = event_.mutable_gap();
    gap->set_first_sequence(next.gap_first);
    gap->set_dropped(next.gap_dropped);
    cursor_ += next.gap_dropped;
    ring_->AddSubscriberDropped(next.gap_dropped);
  } else if (next.record != nullptr) {
    *event_.mutable_record() = *next.record;
    cursor_ = next.record->sequence() + 1;
  } else {
    return;
  }
  writing_ = true;
  StartWrite(&event_);
}

void ShotVerdictWatch::OnWriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  writing_ = false;
  if (!ok) {
    // The client is gone.
    if (!finished_) {
      finished_ = true;
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client left"));
    }
    return;
  }
  PumpLocked();
}

void ShotVerdictWatch::OnCancel() {
  absl::MutexLock lock(&mu_);
  if (finished_) return;
  finished_ = true;
  Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the watch was cancelled"));
}

bool ShotVerdictWatch::Close() {
  absl::MutexLock lock(&mu_);
  closing_ = true;
  if (finished_ || writing_) return false;
  finished_ = true;
  return true;
}

void ShotVerdictWatch::FinishClosed() { Finish(grpc::Status::OK); }

void ShotVerdictWatch::OnDone() {
  if (waker_ != nullptr) {
    waker_->Detach();
    ring_->Unsubscribe(waker_.get());
  }
  if (tracked_) watches_.Remove(this);
  delete this;
}

}  // namespace sator::server
