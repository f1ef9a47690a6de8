// The retry rules of retry.h that the client's own loop applies: which
// statuses are retried and how long to back off.
#include "sator/client/retry.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "retry_loop.h"

namespace sator {

std::optional<absl::Duration> RetryAfter(const absl::Status& status) {
  const auto payload = status.GetPayload(kRetryAfterPayloadUrl);
  if (!payload.has_value()) return std::nullopt;
  std::int64_t millis = 0;
  if (!absl::SimpleAtoi(std::string(*payload), &millis) || millis < 0) {
    return std::nullopt;
  }
  return absl::Milliseconds(millis);
}

void SetRetryAfter(absl::Status& status, absl::Duration delay) {
  status.SetPayload(kRetryAfterPayloadUrl,
                    absl::Cord(absl::StrCat(absl::ToInt64Milliseconds(delay))));
}

bool IsRetryable(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
      return true;
    case absl::StatusCode::kResourceExhausted:
      return RetryAfter(status).has_value();
    default:
      return false;
  }
}

absl::Duration BackoffCeiling(const RetryPolicy& policy, int attempt) {
  // Grow in floating point, capped before it can overflow a Duration.
  const double initial = absl::ToDoubleSeconds(policy.initial_backoff);
  const double cap = absl::ToDoubleSeconds(policy.max_backoff);
  const double grown =
      initial * std::pow(policy.backoff_multiplier,
                         static_cast<double>(attempt > 1 ? attempt - 1 : 0));
  return absl::Seconds(std::isfinite(grown) && grown < cap ? grown : cap);
}

absl::Status ValidateRetryPolicy(const RetryPolicy& policy,
                                 absl::string_view field) {
  if (policy.max_attempts < 1 || policy.max_attempts > kMaxRetryAttempts) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".max_attempts: must be 1 to ", kMaxRetryAttempts,
                     " (gRPC allows no more)"));
  }
  if (policy.initial_backoff <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".initial_backoff: must be positive"));
  }
  if (policy.max_backoff <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".max_backoff: must be positive"));
  }
  if (!(policy.backoff_multiplier >= 1.0) ||
      !std::isfinite(policy.backoff_multiplier)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".backoff_multiplier: must be finite and >= 1"));
  }
  if (policy.throttle_max_tokens < 0 || policy.throttle_max_tokens > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".throttle_max_tokens: must be 0 (off) to 1000"));
  }
  if (policy.throttle_max_tokens > 0 &&
      !(policy.throttle_token_ratio >= 0.001 &&
        policy.throttle_token_ratio <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".throttle_token_ratio: must be in [0.001, 1]"));
  }
  return absl::OkStatus();
}

}  // namespace sator

namespace sator::client_internal {

RetryEnvironment DefaultRetryEnvironment() {
  return {.now = [] { return absl::Now(); },
          .sleep = [](absl::Duration delay) { absl::SleepFor(delay); },
          .uniform01 =
              [] {
                thread_local std::mt19937_64 generator{std::random_device{}()};
                return std::uniform_real_distribution<double>(0.0,
                                                              1.0)(generator);
              }};
}

}  // namespace sator::client_internal
