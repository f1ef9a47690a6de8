// See shot_verdict_watch.h.
#include "server/audit/shot_verdict_watch.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/status_mapping.h"

namespace sator::server {

ShotVerdictWatches::Admission ShotVerdictWatches::Add(ShotVerdictWatch* watch) {
  absl::MutexLock lock(&mu_);
  if (closed_) return Admission::kClosed;
  if (watches_.size() >= static_cast<std::size_t>(max_watches_)) {
    return Admission::kFull;
  }
  watches_.insert(watch);
  return Admission::kAdded;
}

absl::Status ShotVerdictWatches::Refusal(grpc::ServerContextBase& context) {
  const std::string limit = absl::StrCat(
      "this server already has its limit of ", max_watches_,
      " open WatchShotVerdicts streams (--max_shot_verdict_watches)");
  if (limiter_ == nullptr) return absl::ResourceExhaustedError(limit);
  // The hint of every other refusal, taken once for the message and the
  // trailers.
  const absl::Duration pushback = limiter_->Pushback();
  limiter_->CountShed(ShedReason::kShotVerdictWatches);
  AddRetryAfter(context, pushback);
  return absl::ResourceExhaustedError(absl::StrCat(
      limit, "; retry after ", PushbackMilliseconds(pushback), " ms"));
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
                                   DrainGate::Pass pass,
                                   grpc::CallbackServerContext& context)
    : ring_(std::move(ring)),
      max_lag_(max_lag),
      watches_(watches),
      pass_(std::move(pass)),
      cursor_(cursor) {
  switch (watches_.Add(this)) {
    case ShotVerdictWatches::Admission::kAdded:
      break;
    case ShotVerdictWatches::Admission::kClosed: {
      absl::MutexLock lock(&mu_);
      finished_ = true;
      Finish(grpc::Status::OK);
      return;
    }
    case ShotVerdictWatches::Admission::kFull: {
      const grpc::Status refusal = ToGrpcStatus(watches_.Refusal(context));
      absl::MutexLock lock(&mu_);
      finished_ = true;
      Finish(refusal);
      return;
    }
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
