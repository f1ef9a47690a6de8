// Load shedding: when more arrives than satord can serve, it refuses at once
// with RESOURCE_EXHAUSTED instead of letting memory or latency grow.
//
// Two limits, both flags of satord:
// - --max_inflight_requests: unary calls admitted whose handler has not
//   finished (the slot is given back when the response is handed to gRPC;
//   responses still being sent are bounded by --max_concurrent_streams).
//   Beyond it a call is refused before any work: "satord is at its limit of N
//   requests in flight (--max_inflight_requests); retry after M ms". The
//   default scales with the machine (DefaultMaxInflightRequests).
// - --max_sessions (SessionTracker): open Session streams. Sessions are not
//   counted as in-flight requests: each has its own bounded reply queue
//   (SessionReactor::kMaxQueuedReplies), beyond which it stops reading.
// Both refusals carry the trailing metadata `retry-after-ms` (a decimal
// number of milliseconds), on which sator::client retries idempotent calls
// (client/include/sator/client/retry.h); a hard limit that waiting cannot
// cure (a batch or message too big) carries none. Every refusal is counted
// in sator_requests_shed_total{reason}.
//
// gRPC itself bounds the rest: --max_message_bytes each message, and
// --max_concurrent_streams the streams of one connection (HTTP/2
// SETTINGS_MAX_CONCURRENT_STREAMS: a client queues beyond it on its side).
#ifndef SATOR_SERVER_OVERLOAD_OVERLOAD_LIMITER_H_
#define SATOR_SERVER_OVERLOAD_OVERLOAD_LIMITER_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/server_context.h"
#include "prometheus/collectable.h"

namespace sator::server {

// The trailing metadata key of the retry hint (as client/retry.h reads it).
inline constexpr char kRetryAfterMetadataKey[] = "retry-after-ms";

// 32 requests in flight per hardware thread, at least 64 and at most 4096.
// A request holds at most two messages of --max_message_bytes while in
// flight, so the limit also bounds that memory.
int DefaultMaxInflightRequests();

enum class ShedReason { kInflightRequests, kSessions };

class OverloadLimiter final : public prometheus::Collectable {
 public:
  // `max_inflight_requests` >= 1; `retry_after` is the hint sent with each
  // refusal.
  OverloadLimiter(int max_inflight_requests, absl::Duration retry_after);

  // Takes an in-flight slot, or returns false (and counts a shed request)
  // when all are taken. Lock-free.
  bool TryEnter();
  // Gives back a slot taken by TryEnter.
  void Leave();

  // RESOURCE_EXHAUSTED naming the limit and the flag.
  absl::Status InflightStatus() const;
  // Counts a refusal made elsewhere (the session limit).
  void CountShed(ShedReason reason);

  int max_inflight_requests() const { return max_inflight_; }
  absl::Duration retry_after() const { return retry_after_; }
  std::int64_t in_flight() const;
  std::uint64_t shed(ShedReason reason) const;

  // sator_requests_shed_total{reason="inflight_requests"|"sessions"},
  // sator_inflight_requests and sator_max_inflight_requests.
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const int max_inflight_;
  const absl::Duration retry_after_;
  std::atomic<std::int64_t> in_flight_{0};
  std::atomic<std::uint64_t> shed_inflight_{0};
  std::atomic<std::uint64_t> shed_sessions_{0};
};

// Adds `retry-after-ms: <delay in whole ms, at least 1>` to the call's
// trailing metadata (before the call is finished).
void AddRetryAfter(grpc::ServerContextBase& context, absl::Duration delay);

}  // namespace sator::server

#endif  // SATOR_SERVER_OVERLOAD_OVERLOAD_LIMITER_H_
