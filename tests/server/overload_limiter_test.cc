// The admission limits of OverloadLimiter: queue wait, admitted bytes and
// in-flight slots, each refusal counted and worded with its flag.
#include "server/overload/overload_limiter.h"

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sator::server {
namespace {

using ::testing::HasSubstr;

AdmissionLimits Limits() {
  return {.max_inflight_requests = 2,
          .max_queue_wait = absl::Milliseconds(20),
          .max_admitted_bytes = 100,
          .retry_after = absl::Milliseconds(50)};
}

TEST(OverloadLimiter, RefusesACallThatWaitedLongerThanTheQueueLimit) {
  OverloadLimiter limiter(Limits());
  // Alone, a call that waited is served: nothing queued it.
  EXPECT_EQ(limiter.TryEnter(absl::Milliseconds(21), 5), std::nullopt);
  EXPECT_EQ(limiter.in_flight(), 1);
  // Behind an admitted call, it is refused.
  EXPECT_EQ(limiter.TryEnter(absl::Milliseconds(21), 10),
            ShedReason::kQueueWait);
  EXPECT_EQ(limiter.in_flight(), 1);
  EXPECT_EQ(limiter.admitted_bytes(), 5);
  EXPECT_EQ(limiter.shed(ShedReason::kQueueWait), 1u);
  limiter.Leave();
  limiter.ReleaseBytes(5);
  EXPECT_EQ(limiter.TryEnter(absl::Milliseconds(20), 10), std::nullopt);
  EXPECT_EQ(limiter.in_flight(), 1);
  EXPECT_EQ(limiter.admitted_bytes(), 10);
}

TEST(OverloadLimiter, RefusesBytesBeyondTheBudgetButAdmitsALoneCall) {
  OverloadLimiter limiter(Limits());
  // Alone, a call larger than the budget is admitted.
  ASSERT_EQ(limiter.TryEnter(absl::ZeroDuration(), 500), std::nullopt);
  EXPECT_EQ(limiter.TryEnter(absl::ZeroDuration(), 1),
            ShedReason::kAdmittedBytes);
  EXPECT_EQ(limiter.in_flight(), 1);
  EXPECT_EQ(limiter.admitted_bytes(), 500);
  limiter.Leave();
  limiter.ReleaseBytes(500);
  ASSERT_EQ(limiter.TryEnter(absl::ZeroDuration(), 60), std::nullopt);
  EXPECT_EQ(limiter.TryEnter(absl::ZeroDuration(), 60),
            ShedReason::kAdmittedBytes);
  EXPECT_EQ(limiter.TryEnter(absl::ZeroDuration(), 40), std::nullopt);
  EXPECT_EQ(limiter.admitted_bytes(), 100);
  EXPECT_EQ(limiter.shed(ShedReason::kAdmittedBytes), 2u);
}

TEST(OverloadLimiter, RefusesBeyondTheInflightSlotsAndGivesNoBytes) {
  OverloadLimiter limiter(Limits());
  ASSERT_EQ(limiter.TryEnter(absl::ZeroDuration(), 1), std::nullopt);
  ASSERT_EQ(limiter.TryEnter(absl::ZeroDuration(), 1), std::nullopt);
  EXPECT_EQ(limiter.TryEnter(absl::ZeroDuration(), 1),
            ShedReason::kInflightRequests);
  EXPECT_EQ(limiter.admitted_bytes(), 2);
  EXPECT_EQ(limiter.shed(ShedReason::kInflightRequests), 1u);
}

TEST(OverloadLimiter, ZeroTurnsTheQueueAndByteLimitsOff) {
  AdmissionLimits limits = Limits();
  limits.max_queue_wait = absl::ZeroDuration();
  limits.max_admitted_bytes = 0;
  OverloadLimiter limiter(limits);
  EXPECT_EQ(limiter.TryEnter(absl::Seconds(5), 1000), std::nullopt);
  EXPECT_EQ(limiter.TryEnter(absl::Seconds(5), 1000), std::nullopt);
  EXPECT_EQ(limiter.admitted_bytes(), 2000);
}

TEST(OverloadLimiter, RefusalsNameTheirFlagAndTheHintStartsAtRetryAfter) {
  OverloadLimiter limiter(Limits());
  EXPECT_EQ(limiter.Pushback(), absl::Milliseconds(50));
  const absl::Status queue =
      limiter.RefusalStatus(ShedReason::kQueueWait, limiter.Pushback());
  EXPECT_EQ(queue.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(queue.message(), HasSubstr("--max_queue_wait"));
  EXPECT_THAT(queue.message(), HasSubstr("20ms"));
  EXPECT_THAT(queue.message(), HasSubstr("retry after 50 ms"));
  const absl::Status bytes =
      limiter.RefusalStatus(ShedReason::kAdmittedBytes, absl::Milliseconds(75));
  EXPECT_EQ(bytes.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(bytes.message(), HasSubstr("--max_admitted_bytes"));
  EXPECT_THAT(bytes.message(), HasSubstr("limit of 100 bytes"));
  // The message names the hint it is given (the one the trailers carry).
  EXPECT_THAT(bytes.message(), HasSubstr("retry after 75 ms"));
  EXPECT_THAT(
      limiter.RefusalStatus(ShedReason::kInflightRequests, limiter.Pushback())
          .message(),
      HasSubstr("limit of 2 requests in flight (--max_inflight_requests)"));
}

}  // namespace
}  // namespace sator::server
