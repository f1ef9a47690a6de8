// WatchShotVerdicts: one server-streaming reactor per subscriber, following
// a scene's ShotAuditRing from a cursor. The ring wakes it when a verdict is
// recorded; it writes one event at a time (a record, or a gap when it lags
// more than the watch buffer behind), so a slow client costs the server one
// cursor, never a queue. The drain ends every watch with OK.
#ifndef SATOR_SERVER_AUDIT_SHOT_VERDICT_WATCH_H_
#define SATOR_SERVER_AUDIT_SHOT_VERDICT_WATCH_H_

#include <cstdint>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/support/server_callback.h"
#include "sator/v1/shot_audit.pb.h"
#include "server/audit/shot_audit_ring.h"
#include "server/drain_gate.h"
#include "server/overload/overload_limiter.h"

namespace sator::server {

class ShotVerdictWatch;

// The open watches, at most `max_watches` at once, ended all at once by the
// drain.
class ShotVerdictWatches {
 public:
  explicit ShotVerdictWatches(int max_watches = 256)
      : max_watches_(max_watches) {}

  // Counts refusals at the limit in `limiter`'s sator_requests_shed_total
  // and gives them its Pushback() hint, as every other refusal. Set before
  // serving starts.
  void set_overload_limiter(OverloadLimiter* limiter) { limiter_ = limiter; }

  enum class Admission { kAdded, kClosed, kFull };
  // kClosed once closed (the watch then finishes at once with OK); kFull at
  // the limit (the watch finishes with Refusal()).
  Admission Add(ShotVerdictWatch* watch);
  // RESOURCE_EXHAUSTED naming the limit and its flag, with the pushback
  // trailers added to `context`; counted as shed.
  absl::Status Refusal(grpc::ServerContextBase& context);
  void Remove(ShotVerdictWatch* watch);
  // Ends every open watch (with OK, after the event being written); later
  // Adds are refused.
  void CloseAll();

 private:
  const int max_watches_;
  OverloadLimiter* limiter_ = nullptr;
  absl::Mutex mu_;
  absl::flat_hash_set<ShotVerdictWatch*> watches_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

class ShotVerdictWatch final
    : public grpc::ServerWriteReactor<sator::v1::WatchShotVerdictsResponse> {
 public:
  // Starts following `ring` from `cursor` (a sequence number), lagging at
  // most `max_lag` records, or finishes at once when `watches` is closed or
  // full. `watches` must outlive the watch.
  ShotVerdictWatch(std::shared_ptr<ShotAuditRing> ring, std::uint64_t cursor,
                   std::uint64_t max_lag, ShotVerdictWatches& watches,
                   DrainGate::Pass pass, grpc::CallbackServerContext& context);

  // For ShotVerdictWatches::CloseAll: true when the caller must call
  // FinishClosed (the watch was idle); else it finishes after its write.
  bool Close();
  void FinishClosed();

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // Wakes the watch from the ring; outlives it while the ring holds it.
  class Waker final : public ShotAuditSubscriber {
   public:
    explicit Waker(ShotVerdictWatch* watch) : watch_(watch) {}
    void OnRecorded() override;
    void Detach();

   private:
    absl::Mutex mu_;
    ShotVerdictWatch* watch_ ABSL_GUARDED_BY(mu_);
  };

  // Writes the next event if none is being written.
  void Pump();
  void PumpLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::shared_ptr<ShotAuditRing> ring_;
  const std::uint64_t max_lag_;
  ShotVerdictWatches& watches_;
  const DrainGate::Pass pass_;
  std::shared_ptr<Waker> waker_;
  bool tracked_ = false;

  absl::Mutex mu_;
  std::uint64_t cursor_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  // The event being written (alive until OnWriteDone).
  sator::v1::WatchShotVerdictsResponse event_ ABSL_GUARDED_BY(mu_);
};

}  // namespace sator::server

#endif  // SATOR_SERVER_AUDIT_SHOT_VERDICT_WATCH_H_
