// The state behind sator::Client: the connection, the options, the retry
// environment and the pool for the async calls.
#ifndef SATOR_CLIENT_SRC_CLIENT_IMPL_H_
#define SATOR_CLIENT_SRC_CLIENT_IMPL_H_

#include <functional>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "executor.h"
#include "retry_loop.h"
#include "sator/client/client.h"
#include "sator/client/connection.h"

namespace sator::client_internal {

class ClientState {
 public:
  ClientState(ClientOptions options,
              std::shared_ptr<client::Connection> connection,
              RetryEnvironment environment)
      : options_(std::move(options)),
        connection_(std::move(connection)),
        environment_(std::move(environment)),
        executor_(options_.async_threads) {}

  // One call: the deadline of `call_options` (or the default) over all
  // attempts, retried by the policy when `idempotent`.
  template <typename Result>
  Result Call(
      bool idempotent, const CallOptions& call_options,
      const std::function<Result(const client::CallContext&)>& attempt) {
    const client::RetryPolicy& policy =
        call_options.retry.has_value() ? *call_options.retry : options_.retry;
    if (call_options.retry.has_value()) {
      if (absl::Status valid =
              client::ValidateRetryPolicy(policy, "CallOptions.retry");
          !valid.ok()) {
        return Result(valid);
      }
    }
    if (call_options.deadline.has_value() &&
        *call_options.deadline <= absl::ZeroDuration()) {
      return Result(
          absl::InvalidArgumentError("CallOptions.deadline: must be positive"));
    }
    const absl::Time deadline =
        environment_.now() +
        call_options.deadline.value_or(options_.default_deadline);
    return RunWithRetries<Result>(policy, idempotent, deadline, environment_,
                                  attempt);
  }

  template <typename F>
  auto Async(F task) {
    return executor_.Submit(std::move(task));
  }

  client::Connection& connection() { return *connection_; }
  const std::shared_ptr<client::Connection>& shared_connection() const {
    return connection_;
  }

 private:
  ClientOptions options_;
  std::shared_ptr<client::Connection> connection_;
  RetryEnvironment environment_;
  // Last: destroyed first, so running tasks still see everything above.
  Executor executor_;
};

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_CLIENT_IMPL_H_
