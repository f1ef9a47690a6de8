// The retry loop sator::Client runs over a connection that does not retry
// by itself (Connection::RetriesIdempotentCalls() false: a mock, a sharded
// connection over a connection_factory), with the rules of retry.h. Its
// clock, sleep and random source are injectable so that tests run it
// deterministically and without sleeping.
#ifndef SATOR_CLIENT_SRC_RETRY_LOOP_H_
#define SATOR_CLIENT_SRC_RETRY_LOOP_H_

#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sator/client/connection.h"
#include "sator/client/retry.h"

namespace sator::client_internal {

struct RetryEnvironment {
  std::function<absl::Time()> now;
  std::function<void(absl::Duration)> sleep;
  // Uniform in [0, 1).
  std::function<double()> uniform01;
};

// The real clock, absl::SleepFor and a thread-safe random source.
RetryEnvironment DefaultRetryEnvironment();

inline const absl::Status& StatusOf(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& result) {
  return result.status();
}

// Runs `attempt` until it succeeds, fails in a way not to retry (retry.h),
// the attempts run out, or the next sleep would end past `deadline`; then
// returns its last result unchanged. Non-idempotent calls get one attempt.
// The sleep is the status's retry-after when it carries one (as gRPC waits
// exactly the server's pushback), else the jittered backoff.
template <typename Result>
Result RunWithRetries(
    const RetryPolicy& policy, bool idempotent, absl::Time deadline,
    const RetryEnvironment& environment,
    const std::function<Result(const CallContext&)>& attempt) {
  const CallContext context{.deadline = deadline};
  for (int attempts = 1;; ++attempts) {
    Result result = attempt(context);
    const absl::Status& status = StatusOf(result);
    if (status.ok() || !idempotent || attempts >= policy.max_attempts ||
        !IsRetryable(status)) {
      return result;
    }
    const std::optional<absl::Duration> after = RetryAfter(status);
    const absl::Duration delay =
        after.has_value()
            ? *after
            : BackoffCeiling(policy, attempts) * environment.uniform01();
    if (environment.now() + delay >= deadline) return result;
    environment.sleep(delay);
  }
}

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_RETRY_LOOP_H_
