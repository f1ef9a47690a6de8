// The state behind sator::Client: the connection, the options, the retry
// environment and the pool for the async calls.
#ifndef SATOR_CLIENT_SRC_CLIENT_IMPL_H_
#define SATOR_CLIENT_SRC_CLIENT_IMPL_H_

#include <algorithm>
#include <functional>
#include <memory>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "calls_in_flight.h"
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

  // Waits for the async calls in flight on the connection; the executor
  // (destroyed first) then runs what was posted to it.
  ~ClientState() { in_flight_.WaitUntilNone(); }
  ClientState(const ClientState&) = delete;
  ClientState& operator=(const ClientState&) = delete;

  // One call: the deadline of `call_options` (or the default) over all
  // attempts. A connection that retries by itself (a gRPC channel) gets the
  // call once; over any other, the idempotent calls are retried here by
  // ClientOptions::retry.
  template <typename Result>
  Result Call(bool idempotent, const CallOptions& call_options,
              const std::function<Result(const CallContext&)>& attempt) {
    if (absl::Status refused = Refusal(call_options); !refused.ok()) {
      return Result(std::move(refused));
    }
    return CallUntil<Result>(idempotent, Deadline(call_options), attempt);
  }

  // One async call of the Connection methods `sync` and `async` with
  // `args`, reporting to `done`. On a connection with async calls
  // (HasAsyncCalls) that retries by itself wherever a retry is due, the
  // call is started there and no client thread waits for it; otherwise a
  // client thread makes it as Call does, retries included.
  template <typename Result, typename Sync, typename Async, typename... Args>
  void CallAsync(bool idempotent, const CallOptions& call_options, Sync sync,
                 Async async, Completion<Result> done, Args... args) {
    if (absl::Status refused = Refusal(call_options); !refused.ok()) {
      std::move(done)(Result(std::move(refused)));
      return;
    }
    if (connection_->HasAsyncCalls() &&
        (!idempotent || connection_->RetriesIdempotentCalls())) {
      const CallContext context{.deadline = Deadline(call_options)};
      in_flight_.Enter();
      (connection_.get()->*async)(
          args..., context,
          Completion<Result>(
              [this, done = std::move(done)](Result result) mutable {
                {
                  // What the caller's completion owns is freed before the
                  // destructor may go on.
                  Completion<Result> caller = std::move(done);
                  std::move(caller)(std::move(result));
                }
                in_flight_.Leave();
              }));
      return;
    }
    // The deadline runs from now, time queued for a thread included.
    executor_.Post([this, idempotent, deadline = Deadline(call_options), sync,
                    done = std::move(done),
                    arguments = std::make_tuple(std::move(args)...)]() mutable {
      std::move(done)(CallUntil<Result>(
          idempotent, deadline, [&](const CallContext& context) {
            return std::apply(
                [&](const auto&... unpacked) {
                  return (connection_.get()->*sync)(unpacked..., context);
                },
                arguments);
          }));
    });
  }

  Connection& connection() { return *connection_; }
  const std::shared_ptr<Connection>& shared_connection() const {
    return connection_;
  }

 private:
  template <typename Result>
  Result CallUntil(bool idempotent, absl::Time deadline,
                   const std::function<Result(const CallContext&)>& attempt) {
    return RunWithRetries<Result>(
        options_.retry, idempotent && !connection_->RetriesIdempotentCalls(),
        deadline, environment_, attempt);
  }

  // Why a call must not start (a bad option or call option), or OK.
  absl::Status Refusal(const CallOptions& call_options) const {
    if (!status_.ok()) return status_;
    if (call_options.deadline.has_value() &&
        *call_options.deadline <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          "CallOptions.deadline: must be positive");
    }
    return absl::OkStatus();
  }
  absl::Time Deadline(const CallOptions& call_options) const {
    return environment_.now() +
           call_options.deadline.value_or(options_.default_deadline);
  }

  ClientOptions options_;
  std::shared_ptr<Connection> connection_;
  RetryEnvironment environment_;
  absl::Status status_;
  // Async calls started on the connection and not yet completed.
  CallsInFlight in_flight_;
  // Last: destroyed first, so running tasks still see everything above.
  Executor executor_;
};

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_CLIENT_IMPL_H_
