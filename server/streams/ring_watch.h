// A server stream that follows a SequencedRing from a cursor
// (WatchShotVerdicts, WatchProximity): the ring wakes it when a record is
// added; it writes one message at a time, which the RPC's own watch builds
// (Next), so a slow client costs the server one cursor, never a queue. The
// drain ends every watch of an RPC at once (RingWatches::CloseAll), with OK
// after the message being written.
#ifndef SATOR_SERVER_STREAMS_RING_WATCH_H_
#define SATOR_SERVER_STREAMS_RING_WATCH_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/support/server_callback.h"
#include "server/drain_gate.h"
#include "server/overload/overload_limiter.h"
#include "server/status_mapping.h"
#include "server/streams/sequenced_ring.h"

namespace sator::server {

template <typename Response>
class RingWatch;

// How many watches of one RPC may be open at once, and how a refusal at
// that limit is named and counted.
struct RingWatchLimit {
  int max_watches = 256;
  // "WatchShotVerdicts", "--max_shot_verdict_watches".
  std::string rpc;
  std::string flag;
  ShedReason shed_reason = ShedReason::kShotVerdictWatches;
};

// The open watches of one RPC, at most `limit.max_watches` at once, ended
// all at once by the drain.
template <typename Response>
class RingWatches {
 public:
  // `open` (may be null) follows how many are open, for a gauge.
  explicit RingWatches(RingWatchLimit limit,
                       std::atomic<std::int64_t>* open = nullptr)
      : limit_(std::move(limit)), open_(open) {}

  // Counts refusals at the limit in `limiter`'s sator_requests_shed_total
  // and gives them its Pushback() hint, as every other refusal. Set before
  // serving starts.
  void set_overload_limiter(OverloadLimiter* limiter) { limiter_ = limiter; }

  enum class Admission { kAdded, kClosed, kFull };
  // kClosed once closed (the watch then finishes at once with OK); kFull at
  // the limit (the watch finishes with Refusal()).
  Admission Add(RingWatch<Response>* watch) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return Admission::kClosed;
    if (watches_.size() >= static_cast<std::size_t>(limit_.max_watches)) {
      return Admission::kFull;
    }
    watches_.insert(watch);
    if (open_ != nullptr) open_->fetch_add(1, std::memory_order_relaxed);
    return Admission::kAdded;
  }

  // RESOURCE_EXHAUSTED naming the limit and its flag, with the pushback
  // trailers added to `context`; counted as shed.
  absl::Status Refusal(grpc::ServerContextBase& context) {
    const std::string limit = absl::StrCat(
        "this server already has its limit of ", limit_.max_watches, " open ",
        limit_.rpc, " streams (", limit_.flag, ")");
    if (limiter_ == nullptr) return absl::ResourceExhaustedError(limit);
    // The hint of every other refusal, taken once for the message and the
    // trailers.
    const absl::Duration pushback = limiter_->Pushback();
    limiter_->CountShed(limit_.shed_reason);
    AddRetryAfter(context, pushback);
    return absl::ResourceExhaustedError(absl::StrCat(
        limit, "; retry after ", PushbackMilliseconds(pushback), " ms"));
  }

  void Remove(RingWatch<Response>* watch) {
    std::lock_guard<std::mutex> lock(mu_);
    if (watches_.erase(watch) > 0 && open_ != nullptr) {
      open_->fetch_sub(1, std::memory_order_relaxed);
    }
  }

  // Ends every open watch (with OK, after the message being written); later
  // Adds are refused.
  void CloseAll() {
    std::vector<RingWatch<Response>*> idle;
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
      // A watch cannot reach OnDone (and Remove) before Finish, so the idle
      // ones stay alive until FinishClosed below.
      for (RingWatch<Response>* watch : watches_) {
        if (watch->Close()) idle.push_back(watch);
      }
    }
    for (RingWatch<Response>* watch : idle) watch->FinishClosed();
  }

 private:
  const RingWatchLimit limit_;
  std::atomic<std::int64_t>* const open_;
  OverloadLimiter* limiter_ = nullptr;
  std::mutex mu_;
  // Guarded by mu_.
  std::set<RingWatch<Response>*> watches_;
  bool closed_ = false;
};

template <typename Response>
class RingWatch : public grpc::ServerWriteReactor<Response> {
 public:
  // For RingWatches::CloseAll: true when the caller must call FinishClosed
  // (the watch was idle); else it finishes after its write.
  bool Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    if (finished_ || writing_) return false;
    finished_ = true;
    return true;
  }
  void FinishClosed() { this->Finish(grpc::Status::OK); }

  void OnWriteDone(bool ok) override {
    std::lock_guard<std::mutex> lock(mu_);
    writing_ = false;
    if (!ok) {
      // The client is gone.
      FinishOnce(grpc::Status(grpc::StatusCode::CANCELLED, "the client left"));
      return;
    }
    PumpLocked();
  }
  void OnCancel() override {
    std::lock_guard<std::mutex> lock(mu_);
    FinishOnce(
        grpc::Status(grpc::StatusCode::CANCELLED, "the watch was cancelled"));
  }
  void OnDone() override {
    if (waker_ != nullptr) {
      waker_->Detach();
      unsubscribe_(waker_.get());
    }
    if (tracked_) watches_.Remove(this);
    delete this;
  }

 protected:
  RingWatch(RingWatches<Response>& watches, DrainGate::Pass pass)
      : watches_(watches), pass_(std::move(pass)) {}

  // The last step of the RPC's watch's constructor: admits the watch and
  // follows `ring` (which must outlive it), sending at once what Next
  // already has, or finishes it when the watches are closed or full.
  template <typename Message>
  void Start(SequencedRing<Message>& ring,
             grpc::CallbackServerContext& context) {
    switch (watches_.Add(this)) {
      case RingWatches<Response>::Admission::kAdded:
        break;
      case RingWatches<Response>::Admission::kClosed: {
        std::lock_guard<std::mutex> lock(mu_);
        FinishOnce(grpc::Status::OK);
        return;
      }
      case RingWatches<Response>::Admission::kFull: {
        const grpc::Status refusal = ToGrpcStatus(watches_.Refusal(context));
        std::lock_guard<std::mutex> lock(mu_);
        FinishOnce(refusal);
        return;
      }
    }
    tracked_ = true;
    waker_ = std::make_shared<Waker>(this);
    unsubscribe_ = [&ring](const RingSubscriber* waker) {
      ring.Unsubscribe(waker);
    };
    ring.Subscribe(waker_);
    Pump();
  }

  // With the watch's lock held: fills `message` (empty) with what to send
  // next and returns true, or returns false when there is nothing yet.
  virtual bool Next(Response* message) = 0;
  // With the watch's lock held: true when the watch must end with OK once
  // Next has nothing more (its subject is gone).
  virtual bool Ended() const { return false; }

 private:
  // Wakes the watch from the ring; outlives it while the ring holds it.
  class Waker final : public RingSubscriber {
   public:
    explicit Waker(RingWatch* watch) : watch_(watch) {}
    void OnRecorded() override {
      std::lock_guard<std::mutex> lock(mu_);
      if (watch_ != nullptr) watch_->Pump();
    }
    void Detach() {
      std::lock_guard<std::mutex> lock(mu_);
      watch_ = nullptr;
    }

   private:
    std::mutex mu_;
    // Guarded by mu_.
    RingWatch* watch_;
  };

  void Pump() {
    std::lock_guard<std::mutex> lock(mu_);
    PumpLocked();
  }
  // With mu_ held.
  void PumpLocked() {
    if (finished_ || writing_) return;
    if (closing_) {
      FinishOnce(grpc::Status::OK);
      return;
    }
    message_.Clear();
    if (!Next(&message_)) {
      // What was there before the end is sent first.
      if (Ended()) FinishOnce(grpc::Status::OK);
      return;
    }
    writing_ = true;
    this->StartWrite(&message_);
  }
  // With mu_ held.
  void FinishOnce(const grpc::Status& status) {
    if (finished_) return;
    finished_ = true;
    this->Finish(status);
  }

  RingWatches<Response>& watches_;
  const DrainGate::Pass pass_;
  std::shared_ptr<Waker> waker_;
  std::function<void(const RingSubscriber*)> unsubscribe_;
  bool tracked_ = false;

  std::mutex mu_;
  // Guarded by mu_.
  bool writing_ = false;
  bool closing_ = false;
  bool finished_ = false;
  // The message being written (alive until OnWriteDone).
  Response message_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_STREAMS_RING_WATCH_H_
