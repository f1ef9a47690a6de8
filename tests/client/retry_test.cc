// The retry rules (retry.h) and the client's own retry loop (for connections
// that do not retry by themselves), run deterministically with a fake clock,
// a recorded sleep and a fixed random draw: which statuses are retried, how
// long the backoff is, and what bounds the attempts.
#include "sator/client/retry.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "retry_loop.h"

namespace sator::client_internal {
namespace {

using client::CallContext;
using client::RetryPolicy;
using ::testing::ElementsAre;

// A clock that only moves when the loop sleeps.
struct FakeEnvironment {
  absl::Time now = absl::FromUnixSeconds(1000);
  std::vector<absl::Duration> sleeps{};
  double draw = 0.5;

  RetryEnvironment Get() {
    return {.now = [this] { return now; },
            .sleep =
                [this](absl::Duration delay) {
                  sleeps.push_back(delay);
                  now += delay;
                },
            .uniform01 = [this] { return draw; }};
  }
};

// An attempt function that fails with `failures` in order, then succeeds.
struct ScriptedAttempts {
  std::vector<absl::Status> failures{};
  int calls = 0;
  std::vector<absl::Time> deadlines{};

  absl::StatusOr<int> operator()(const CallContext& context) {
    deadlines.push_back(context.deadline);
    const int index = calls++;
    if (index < static_cast<int>(failures.size())) return failures[index];
    return 42;
  }
};

absl::Status WithRetryAfter(absl::Status status, absl::Duration delay) {
  client::SetRetryAfter(status, delay);
  return status;
}

absl::StatusOr<int> RunScripted(const RetryPolicy& policy, bool idempotent,
                                absl::Duration budget,
                                FakeEnvironment& environment,
                                ScriptedAttempts& attempts) {
  return RunWithRetries<absl::StatusOr<int>>(
      policy, idempotent, environment.now + budget, environment.Get(),
      [&](const CallContext& context) { return attempts(context); });
}

TEST(IsRetryable, OnlyUnavailableAndResourceExhaustedWithRetryAfter) {
  EXPECT_TRUE(client::IsRetryable(absl::UnavailableError("down")));
  EXPECT_FALSE(client::IsRetryable(absl::ResourceExhaustedError("too big")));
  EXPECT_TRUE(client::IsRetryable(WithRetryAfter(
      absl::ResourceExhaustedError("busy"), absl::Milliseconds(20))));
  for (const absl::Status& status :
       {absl::InvalidArgumentError("x"), absl::NotFoundError("x"),
        absl::DeadlineExceededError("x"), absl::InternalError("x"),
        absl::FailedPreconditionError("x"), absl::AbortedError("x"),
        absl::CancelledError("x"), absl::UnknownError("x")}) {
    EXPECT_FALSE(client::IsRetryable(status)) << status;
  }
}

TEST(RetryAfter, RoundTripsThroughTheStatusPayload) {
  absl::Status status = absl::ResourceExhaustedError("busy");
  EXPECT_EQ(client::RetryAfter(status), std::nullopt);
  client::SetRetryAfter(status, absl::Milliseconds(250));
  EXPECT_EQ(client::RetryAfter(status), absl::Milliseconds(250));
  EXPECT_EQ(status.message(), "busy");
}

TEST(BackoffCeiling, GrowsGeometricallyUpToTheCap) {
  const RetryPolicy policy{.max_attempts = 10,
                           .initial_backoff = absl::Milliseconds(10),
                           .max_backoff = absl::Milliseconds(70),
                           .backoff_multiplier = 2.0};
  EXPECT_EQ(client::BackoffCeiling(policy, 1), absl::Milliseconds(10));
  EXPECT_EQ(client::BackoffCeiling(policy, 2), absl::Milliseconds(20));
  EXPECT_EQ(client::BackoffCeiling(policy, 3), absl::Milliseconds(40));
  EXPECT_EQ(client::BackoffCeiling(policy, 4), absl::Milliseconds(70));
  EXPECT_EQ(client::BackoffCeiling(policy, 1000), absl::Milliseconds(70));
}

TEST(ValidateRetryPolicy, NamesTheBadField) {
  EXPECT_TRUE(client::ValidateRetryPolicy({}, "retry").ok());
  EXPECT_TRUE(client::ValidateRetryPolicy({.max_attempts = 1}, "retry").ok());
  EXPECT_TRUE(client::ValidateRetryPolicy(
                  {.max_attempts = client::kMaxRetryAttempts}, "retry")
                  .ok());
  for (const int attempts : {0, client::kMaxRetryAttempts + 1}) {
    absl::Status status =
        client::ValidateRetryPolicy({.max_attempts = attempts}, "retry");
    EXPECT_EQ(status,
              absl::InvalidArgumentError("retry.max_attempts: must be 1 to 5 "
                                         "(gRPC allows no more)"))
        << attempts;
  }
  EXPECT_EQ(
      client::ValidateRetryPolicy({.initial_backoff = absl::ZeroDuration()},
                                  "retry"),
      absl::InvalidArgumentError("retry.initial_backoff: must be positive"));
  EXPECT_EQ(client::ValidateRetryPolicy({.max_backoff = absl::Milliseconds(-1)},
                                        "retry"),
            absl::InvalidArgumentError("retry.max_backoff: must be positive"));
  absl::Status shrink =
      client::ValidateRetryPolicy({.backoff_multiplier = 0.5}, "retry");
  EXPECT_EQ(shrink.message(),
            "retry.backoff_multiplier: must be finite and >= 1");
}

TEST(RunWithRetries, RetriesUnavailableWithJitteredExponentialBackoff) {
  FakeEnvironment environment;
  environment.draw = 0.5;
  ScriptedAttempts attempts{.failures = {absl::UnavailableError("a"),
                                         absl::UnavailableError("b"),
                                         absl::UnavailableError("c")}};
  const RetryPolicy policy{.max_attempts = 4,
                           .initial_backoff = absl::Milliseconds(100),
                           .max_backoff = absl::Seconds(1),
                           .backoff_multiplier = 3.0};
  absl::StatusOr<int> result = RunScripted(
      policy, /*idempotent=*/true, absl::Seconds(10), environment, attempts);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, 42);
  EXPECT_EQ(attempts.calls, 4);
  // Half of 100 ms, 300 ms, 900 ms (the draw is 0.5).
  EXPECT_THAT(environment.sleeps,
              ElementsAre(absl::Milliseconds(50), absl::Milliseconds(150),
                          absl::Milliseconds(450)));
  // Every attempt shares the call's one deadline.
  for (absl::Time deadline : attempts.deadlines) {
    EXPECT_EQ(deadline, absl::FromUnixSeconds(1010));
  }
}

TEST(RunWithRetries, GivesUpAfterMaxAttemptsKeepingTheLastError) {
  FakeEnvironment environment;
  ScriptedAttempts attempts{.failures = {absl::UnavailableError("first"),
                                         absl::UnavailableError("second"),
                                         absl::UnavailableError("third")}};
  absl::StatusOr<int> result = RunScripted(
      {.max_attempts = 2}, true, absl::Seconds(10), environment, attempts);
  // Attempts, not sleeps, ran out.
  EXPECT_EQ(attempts.calls, 2);
  EXPECT_EQ(result.status(), absl::UnavailableError("second"));
  EXPECT_EQ(environment.sleeps.size(), 1u);
}

TEST(RunWithRetries, NeverRetriesAMutation) {
  FakeEnvironment environment;
  ScriptedAttempts attempts{.failures = {absl::UnavailableError("down")}};
  absl::StatusOr<int> result = RunScripted(
      {}, /*idempotent=*/false, absl::Seconds(10), environment, attempts);
  EXPECT_EQ(attempts.calls, 1);
  EXPECT_EQ(result.status(), absl::UnavailableError("down"));
  EXPECT_TRUE(environment.sleeps.empty());
}

TEST(RunWithRetries, DoesNotRetryOtherErrors) {
  FakeEnvironment environment;
  ScriptedAttempts attempts{
      .failures = {absl::InvalidArgumentError("bodies[3].shape: bad")}};
  absl::StatusOr<int> result =
      RunScripted({}, true, absl::Seconds(10), environment, attempts);
  EXPECT_EQ(attempts.calls, 1);
  EXPECT_EQ(result.status(),
            absl::InvalidArgumentError("bodies[3].shape: bad"));
}

TEST(RunWithRetries, ResourceExhaustedIsRetriedOnlyWithRetryAfter) {
  FakeEnvironment plain_environment;
  ScriptedAttempts plain{.failures = {absl::ResourceExhaustedError("limit")}};
  EXPECT_EQ(RunScripted({}, true, absl::Seconds(10), plain_environment, plain)
                .status(),
            absl::ResourceExhaustedError("limit"));
  EXPECT_EQ(plain.calls, 1);

  FakeEnvironment environment;
  environment.draw = 0.0;  // The backoff alone would not wait at all.
  ScriptedAttempts attempts{
      .failures = {WithRetryAfter(absl::ResourceExhaustedError("busy"),
                                  absl::Milliseconds(300))}};
  absl::StatusOr<int> result =
      RunScripted({}, true, absl::Seconds(10), environment, attempts);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(attempts.calls, 2);
  EXPECT_THAT(environment.sleeps, ElementsAre(absl::Milliseconds(300)));
}

TEST(RunWithRetries, WaitsExactlyTheRetryAfterWhateverTheBackoff) {
  FakeEnvironment environment;
  environment.draw = 0.99;  // The backoff alone would wait about 990 ms.
  ScriptedAttempts attempts{
      .failures = {WithRetryAfter(absl::ResourceExhaustedError("busy"),
                                  absl::Milliseconds(10)),
                   absl::UnavailableError("down")}};
  absl::StatusOr<int> result =
      RunScripted({.initial_backoff = absl::Seconds(1)}, true,
                  absl::Seconds(10), environment, attempts);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(attempts.calls, 3);
  // The server's 10 ms, then the jittered backoff of the second retry.
  EXPECT_THAT(environment.sleeps,
              ElementsAre(absl::Milliseconds(10), absl::Milliseconds(1980)));
}

TEST(RunWithRetries, DoesNotRetryPastTheDeadlineForARetryAfter) {
  FakeEnvironment environment;
  ScriptedAttempts attempts{
      .failures = {WithRetryAfter(absl::ResourceExhaustedError("busy"),
                                  absl::Seconds(3))}};
  absl::StatusOr<int> result =
      RunScripted({}, true, absl::Seconds(2), environment, attempts);
  EXPECT_EQ(attempts.calls, 1);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(environment.sleeps.empty());
}

TEST(RunWithRetries, StopsWhenTheNextBackoffWouldPassTheDeadline) {
  FakeEnvironment environment;
  environment.draw = 0.99;
  ScriptedAttempts attempts{.failures = {absl::UnavailableError("a"),
                                         absl::UnavailableError("b"),
                                         absl::UnavailableError("c")}};
  // Sleeps of ~99 ms then ~198 ms: the second would end past 250 ms.
  absl::StatusOr<int> result =
      RunScripted({.max_attempts = 10,
                   .initial_backoff = absl::Milliseconds(100),
                   .max_backoff = absl::Seconds(5)},
                  true, absl::Milliseconds(250), environment, attempts);
  EXPECT_EQ(attempts.calls, 2);
  EXPECT_EQ(result.status(), absl::UnavailableError("b"));
  EXPECT_EQ(environment.sleeps.size(), 1u);
}

TEST(RunWithRetries, WorksForPlainStatusResults) {
  FakeEnvironment environment;
  int calls = 0;
  absl::Status result = RunWithRetries<absl::Status>(
      {}, true, environment.now + absl::Seconds(10), environment.Get(),
      [&](const CallContext&) {
        return ++calls < 3 ? absl::UnavailableError("x") : absl::OkStatus();
      });
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace sator::client_internal
