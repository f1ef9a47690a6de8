// Load shedding: when more arrives than satord can serve in time, it refuses
// at once with RESOURCE_EXHAUSTED instead of letting memory or latency grow.
//
// The limits, all flags of satord (docs/OPERATIONS.md, "Overload"):
// - --max_queue_wait: how long a unary call may wait between gRPC handing it
//   to satord (its request fully received; QueuedCallAllocator stamps it)
//   and its handler starting. gRPC's callback API runs handlers on a few
//   threads of its own, so under a flood calls pile up there, each holding
//   its request; a call that waited longer is refused before any work.
// - --max_admitted_bytes: the memory of the parsed requests of the unary
//   calls admitted and not yet done, each measured on its arena as it is
//   admitted (responses are not counted); a call that would pass it is
//   refused.
// - --max_inflight_requests: unary calls admitted whose handler has not
//   finished (the slot is given back when the response is handed to gRPC).
//   The default scales with the machine (DefaultMaxInflightRequests).
// - --max_shot_verdict_watches (ShotVerdictWatches): open WatchShotVerdicts
//   streams, each a cursor into a scene's audit ring.
// - --max_sessions (SessionTracker): open Session streams. Sessions are not
//   counted as in-flight requests: each has its own bounded reply queue
//   (SessionReactor::kMaxQueuedReplies), beyond which it stops reading.
// Ping and the health service are counted against none of them.
// Every refusal names the limit and its flag and carries two trailers: gRPC's
// own pushback, `grpc-retry-pushback-ms` (gRFC A6, which gRPC's client retry
// policy and so sator::client honour, client/include/sator/client/retry.h),
// and `retry-after-ms` (the same number, for clients without a retry
// policy), both the same number of milliseconds. The hint grows with the
// share of calls refused lately (Pushback), so that clients that honour it
// bring the load down to what satord serves. A hard limit that waiting
// cannot cure (a batch or shape too big) carries no retry-after-ms and
// `grpc-retry-pushback-ms: -1`, "do not retry" (FinishGated,
// server/drain_gate.h). Every refusal is counted in
// sator_requests_shed_total{reason}.
//
// gRPC itself bounds the rest: --max_message_bytes each message,
// --grpc_memory_quota_bytes the memory of its transport (a ResourceQuota,
// see docs/DESIGN.md for what it covers in gRPC 1.51), and
// --max_concurrent_streams the streams of one connection (HTTP/2
// SETTINGS_MAX_CONCURRENT_STREAMS: a client queues beyond it on its side).
#ifndef SATOR_SERVER_OVERLOAD_OVERLOAD_LIMITER_H_
#define SATOR_SERVER_OVERLOAD_OVERLOAD_LIMITER_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/server_context.h"
#include "prometheus/collectable.h"

namespace sator::server {

// The trailing metadata key of the retry hint (as client/retry.h reads it).
inline constexpr char kRetryAfterMetadataKey[] = "retry-after-ms";
// gRPC's own pushback trailer (gRFC A6).
inline constexpr char kGrpcPushbackMetadataKey[] = "grpc-retry-pushback-ms";

// 32 requests in flight per hardware thread, at least 64 and at most 4096.
// A request holds at most two messages of --max_message_bytes while in
// flight, so the limit also bounds that memory.
int DefaultMaxInflightRequests();

// 64 MiB: about 20 parsed requests of 1 MiB (a parsed request takes two to
// three times its wire size), far more than the handler threads can work on
// at once.
inline constexpr std::int64_t kDefaultMaxAdmittedBytes = std::int64_t{64} << 20;
inline constexpr absl::Duration kDefaultMaxQueueWait = absl::Milliseconds(20);
// 256 MiB for gRPC's transport buffers (the ResourceQuota of the server).
inline constexpr std::int64_t kDefaultGrpcMemoryQuotaBytes = std::int64_t{256}
                                                             << 20;

enum class ShedReason {
  kInflightRequests,
  kSessions,
  kShotVerdictWatches,
  kProximityWatches,
  kQueueWait,
  kAdmittedBytes,
};

struct AdmissionLimits {
  int max_inflight_requests = 64;  // >= 1.
  // 0 (or less) turns the limit off.
  absl::Duration max_queue_wait = kDefaultMaxQueueWait;
  std::int64_t max_admitted_bytes = kDefaultMaxAdmittedBytes;
  // The smallest hint sent with a refusal (--overload_retry_after).
  absl::Duration retry_after = absl::Milliseconds(50);
};

class OverloadLimiter final : public prometheus::Collectable {
 public:
  explicit OverloadLimiter(const AdmissionLimits& limits);
  // `max_inflight_requests` >= 1; `retry_after` is the smallest hint sent
  // with a refusal; the other limits at their defaults.
  OverloadLimiter(int max_inflight_requests, absl::Duration retry_after);

  // Admits a unary call that waited `waited` in gRPC's queue and holds
  // `bytes`: takes an in-flight slot and adds `bytes` to the admitted bytes,
  // or returns the limit that refuses it (and counts a shed request).
  std::optional<ShedReason> TryEnter(absl::Duration waited, std::int64_t bytes);
  // The in-flight slot only (no queue wait, no bytes).
  bool TryEnter();
  // Gives back a slot taken by TryEnter.
  void Leave();
  // Gives back the bytes a TryEnter took.
  void ReleaseBytes(std::int64_t bytes);

  // RESOURCE_EXHAUSTED naming the limit and the flag, and saying to retry
  // after `pushback` (the hint the refusal's trailers carry: take it from
  // Pushback() once per refusal, so that message and trailers agree).
  absl::Status RefusalStatus(ShedReason reason, absl::Duration pushback) const;
  // Counts a refusal made elsewhere (the session limit) as TryEnter counts
  // its own: in sator_requests_shed_total and in the refusals Pushback
  // grows with.
  void CountShed(ShedReason reason);

  // The hint to send with a refusal now, by whichever limit (unary calls and
  // sessions alike): --overload_retry_after, times one plus the number of
  // calls refused per call admitted over the last quarter second, at most
  // 100 times --overload_retry_after (5 s at the default). Clients that wait
  // this long before calling again offer about as many calls as are
  // admitted.
  absl::Duration Pushback() const;

  int max_inflight_requests() const { return limits_.max_inflight_requests; }
  const AdmissionLimits& limits() const { return limits_; }
  absl::Duration retry_after() const { return limits_.retry_after; }
  std::int64_t in_flight() const;
  std::int64_t admitted_bytes() const;
  std::uint64_t shed(ShedReason reason) const;

  // sator_requests_shed_total{reason}, sator_inflight_requests,
  // sator_max_inflight_requests, sator_admitted_request_bytes,
  // sator_max_admitted_request_bytes.
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  // Counts one decision in the current quarter-second window.
  void CountDecision(bool admitted);

  const AdmissionLimits limits_;
  std::atomic<std::int64_t> in_flight_{0};
  std::atomic<std::int64_t> admitted_bytes_{0};
  std::atomic<std::uint64_t> shed_inflight_{0};
  std::atomic<std::uint64_t> shed_sessions_{0};
  std::atomic<std::uint64_t> shed_watches_{0};
  std::atomic<std::uint64_t> shed_proximity_watches_{0};
  std::atomic<std::uint64_t> shed_queue_wait_{0};
  std::atomic<std::uint64_t> shed_admitted_bytes_{0};
  // The refusal ratio behind Pushback.
  mutable std::mutex window_mutex_;
  absl::Time window_start_;           // Guarded by window_mutex_.
  std::int64_t window_admitted_ = 0;  // Guarded by window_mutex_.
  std::int64_t window_refused_ = 0;   // Guarded by window_mutex_.
  double refused_per_admitted_ = 0;   // Guarded by window_mutex_.
};

// `pushback` in whole milliseconds, at least 1: the number a refusal's
// message and trailers give.
std::int64_t PushbackMilliseconds(absl::Duration pushback);

// Adds both pushback trailers, `grpc-retry-pushback-ms` and `retry-after-ms`,
// with `delay` in whole ms (at least 1), to the call's trailing metadata
// (before the call is finished).
void AddRetryAfter(grpc::ServerContextBase& context, absl::Duration delay);

// Adds `grpc-retry-pushback-ms: -1`, gRFC A6's "do not retry", for a
// RESOURCE_EXHAUSTED that waiting cannot cure (a hard limit).
void AddNoRetryPushback(grpc::ServerContextBase& context);

}  // namespace sator::server

#endif  // SATOR_SERVER_OVERLOAD_OVERLOAD_LIMITER_H_
