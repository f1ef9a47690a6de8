// When and how sator::Client retries a failed call.
//
// Only idempotent calls are retried: the scene queries (Overlap, Contacts,
// Sweep, Raycast, PointQuery), QueryBatch, RaycastBatch, PairQuery,
// ValidateShots, ListShotVerdicts, Ping, CheckHealth, GetScene, ListScenes
// and ExportScene. Mutations (CreateScene, DeleteScene, ImportScene,
// UpsertBodies, RemoveBodies, UpdatePoses) never are: a lost reply does not
// say whether the server applied them; nor are streams (Session,
// WatchShotVerdicts), which resume by their own means.
//
// Over a gRPC connection (MakeConnection) the retries are gRPC's own: the
// channel gets a service config (gRFC A6) whose retryPolicy names exactly
// the idempotent methods, with the RetryPolicy below as maxAttempts,
// initialBackoff, maxBackoff and backoffMultiplier, and UNAVAILABLE and
// RESOURCE_EXHAUSTED as retryableStatusCodes. gRPC then
// - retries UNAVAILABLE (no connection, a server draining or restarting);
// - retries RESOURCE_EXHAUSTED after exactly the server's pushback when the
//   server sends `grpc-retry-pushback-ms` with a delay (satord does when it
//   sheds load), and not at all when the pushback is negative (satord sends
//   -1 with every hard limit, such as a batch over --max_batch_queries, that
//   the same call can never pass);
// - backs off exponentially with jitter between attempts otherwise;
// - keeps every attempt within the call's one deadline (a retry that the
//   deadline cuts short ends the call with DEADLINE_EXCEEDED);
// - makes a call that has received a response (headers or a message)
//   final, and retries no request larger than ConnectionOptions::
//   max_message_bytes (its retry buffer);
// - throttles retries (the service config's retryThrottling): gRPC keeps a
//   token count per server, which every failed attempt lowers by 1 and every
//   success raises by throttle_token_ratio, up to throttle_max_tokens, and
//   retries nothing while it is at or below half of throttle_max_tokens. A
//   server that fails most calls (down, or shedding everything) so gets
//   about one attempt per call instead of max_attempts.
// The pushback of the last attempt comes back as a payload of the status
// (RetryAfter() reads it).
//
// Over a connection without a gRPC channel (a MockConnection, a
// ShardedConnection over a connection_factory, your own Connection), where
// Connection::RetriesIdempotentCalls() is false, sator::Client retries with
// the same rules in a loop of its own: UNAVAILABLE, and RESOURCE_EXHAUSTED
// that carries a retry-after payload (SetRetryAfter: the mock's way of
// saying "shed"), after the retry-after or else a sleep uniform in [0,
// min(max_backoff, initial_backoff * multiplier^(n - 1))] before attempt
// n + 1 ("full jitter"); no retry whose sleep would end past the call's
// deadline (the last error is returned unchanged). It sleeps on, and reads
// deadlines from, ClientOptions::clock (clock.h: a FakeClock in tests).
#ifndef SATOR_CLIENT_RETRY_H_
#define SATOR_CLIENT_RETRY_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sator {

// gRPC clamps a retry policy's maxAttempts to 5, so a larger value would
// not mean what it says; ValidateRetryPolicy refuses it.
inline constexpr int kMaxRetryAttempts = 5;

struct RetryPolicy {
  // Attempts in all, the first included: 1 (no retries) to
  // kMaxRetryAttempts.
  int max_attempts = 4;
  // Both positive (gRPC's service config requires it).
  absl::Duration initial_backoff = absl::Milliseconds(50);
  absl::Duration max_backoff = absl::Seconds(2);
  double backoff_multiplier = 2.0;
  // Retry throttling (gRFC A6): 0 turns it off; else 1 to 1000 tokens, and
  // a ratio in (0, 1] (gRPC keeps 3 decimals).
  int throttle_max_tokens = 10;
  double throttle_token_ratio = 0.1;
};

// The absl::Status payload (type URL) that carries the server's pushback
// (`grpc-retry-pushback-ms`, when zero or more) inside the client.
inline constexpr absl::string_view kRetryAfterPayloadUrl =
    "type.sator.dev/sator.client.RetryAfter";

// The retry-after a status carries, if any.
std::optional<absl::Duration> RetryAfter(const absl::Status& status);
// Attaches a retry-after (for connections and for tests with a mock).
void SetRetryAfter(absl::Status& status, absl::Duration delay);

// Whether the client's own loop retries `status` for an idempotent call:
// UNAVAILABLE, or RESOURCE_EXHAUSTED with a retry-after.
bool IsRetryable(const absl::Status& status);

// The upper bound of the jittered sleep before attempt `attempt` + 1, for
// `attempt` >= 1: min(max_backoff, initial_backoff * multiplier^(attempt-1)).
absl::Duration BackoffCeiling(const RetryPolicy& policy, int attempt);

// Checks a policy: 1 to kMaxRetryAttempts attempts, positive durations, a
// finite multiplier >= 1. INVALID_ARGUMENT names the field under `field`.
absl::Status ValidateRetryPolicy(const RetryPolicy& policy,
                                 absl::string_view field);

}  // namespace sator

#endif  // SATOR_CLIENT_RETRY_H_
