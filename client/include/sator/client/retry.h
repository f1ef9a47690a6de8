// When and how sator::Client retries a failed call.
//
// Only idempotent calls are retried: the queries (Overlap, Contacts, Sweep,
// Raycast, PointQuery, QueryBatch, PairQuery), Ping, CheckHealth, GetScene,
// ListScenes and ExportScene. Mutations (CreateScene, DeleteScene,
// ImportScene, UpsertBodies, RemoveBodies, UpdatePoses) and session messages
// never are: a lost reply does not say whether the server applied them.
//
// A failure is retried only when it is
// - UNAVAILABLE (no connection, or a server draining or restarting), or
// - RESOURCE_EXHAUSTED carrying retry information: the server adds the
//   trailing metadata key `retry-after-ms` (kRetryAfterMetadataKey) with a
//   decimal number of milliseconds when waiting and trying again can succeed
//   (a rate or concurrency limit), and leaves it out when it cannot (a batch
//   or message over a hard limit). The connection turns that key into a
//   payload of the absl::Status (RetryAfter() reads it back).
//
// Backoff is exponential with "full jitter" (Brooker, "Exponential Backoff And
// Jitter", AWS Architecture Blog, 2015): before attempt n + 1 the client
// sleeps a uniform random time in [0, min(max_backoff, initial_backoff *
// multiplier^(n - 1))], or the server's retry-after if that is longer.
// Attempts are bounded by max_attempts and all of them together by the
// call's deadline: a retry whose sleep would end past the deadline is not
// made, and the last error is returned with the server's message unchanged.
#ifndef SATOR_CLIENT_RETRY_H_
#define SATOR_CLIENT_RETRY_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sator {

struct RetryPolicy {
  // Attempts in all, the first included; 1 disables retries.
  int max_attempts = 4;
  absl::Duration initial_backoff = absl::Milliseconds(50);
  absl::Duration max_backoff = absl::Seconds(2);
  double backoff_multiplier = 2.0;
};

// The trailing metadata key by which a server asks for a retry after a
// RESOURCE_EXHAUSTED, in decimal milliseconds.
inline constexpr absl::string_view kRetryAfterMetadataKey = "retry-after-ms";
// The absl::Status payload (type URL) that carries it inside the client.
inline constexpr absl::string_view kRetryAfterPayloadUrl =
    "type.sator.dev/sator.client.RetryAfter";

// The retry-after a status carries, if any.
std::optional<absl::Duration> RetryAfter(const absl::Status& status);
// Attaches a retry-after (for connections and for tests with a mock).
void SetRetryAfter(absl::Status& status, absl::Duration delay);

// Whether `status` is worth retrying for an idempotent call (see above).
bool IsRetryable(const absl::Status& status);

// The upper bound of the jittered sleep before attempt `attempt` + 1, for
// `attempt` >= 1: min(max_backoff, initial_backoff * multiplier^(attempt-1)).
absl::Duration BackoffCeiling(const RetryPolicy& policy, int attempt);

// Checks a policy: at least one attempt, non-negative durations, multiplier
// >= 1. INVALID_ARGUMENT names the field under `field`.
absl::Status ValidateRetryPolicy(const RetryPolicy& policy,
                                 absl::string_view field);

}  // namespace sator

#endif  // SATOR_CLIENT_RETRY_H_
