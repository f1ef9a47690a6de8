// The state behind sator::Client: the connection, the options, the retry
// environment and the pool for the async calls.
#ifndef SATOR_CLIENT_SRC_CLIENT_IMPL_H_
#define SATOR_CLIENT_SRC_CLIENT_IMPL_H_

#include <algorithm>
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
  ClientState(ClientOptions options, std::shared_ptr<Connection> connection,
              RetryEnvironment environment, absl::Status status)
      : options_(std::move(options)),
        connection_(std::move(connection)),
        environment_(std::move(environment)),
        status_(std::move(status)),
        executor_(std::max(options_.async_threads, 1)) {}

  // OK, or why every call fails.
  const absl::Status& status() const { return status_; }

  // One call: the deadline of `call_options` (or the default) over all
  // attempts. A connection that retries by itself (a gRPC channel) gets the
  // call once; over any other, the idempotent calls are retried here by
  // ClientOptions::retry.
  template <typename Result>
  Result Call(bool idempotent, const CallOptions& call_options,
              const std::function<Result(const CallContext&)>& attempt) {
    if (!status_.ok()) return Result(status_);
    if (call_options.deadline.has_value() &&
        *call_options.deadline <= absl::ZeroDuration()) {
      return Result(
          absl::InvalidArgumentError("CallOptions.deadline: must be positive"));
    }
    const absl::Time deadline =
        environment_.now() +
        call_options.deadline.value_or(options_.default_deadline);
    return RunWithRetries<Result>(
        options_.retry, idempotent && !connection_->RetriesIdempotentCalls(),
        deadline, environment_, attempt);
  }

  template <typename F>
  auto Async(F task) {
    return executor_.Submit(std::move(task));
  }

  Connection& connection() { return *connection_; }
  const std::shared_ptr<Connection>& shared_connection() const {
    return connection_;
  }

 private:
  ClientOptions options_;
  std::shared_ptr<Connection> connection_;
  RetryEnvironment environment_;
  absl::Status status_;
  // Last: destroyed first, so running tasks still see everything above.
  Executor executor_;
};

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_CLIENT_IMPL_H_
