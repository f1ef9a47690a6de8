// The retry service config; see retry_service_config.h.
#include "retry_service_config.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"

namespace sator::client_internal {
namespace {

// A protobuf JSON Duration: whole seconds and nanoseconds, "1.500000000s".
std::string JsonDuration(absl::Duration duration) {
  const std::int64_t nanos = absl::ToInt64Nanoseconds(duration);
  return absl::StrFormat("\"%d.%09ds\"", nanos / 1000000000,
                         nanos % 1000000000);
}

}  // namespace

const std::vector<MethodName>& IdempotentMethods() {
  static const std::vector<MethodName>* const methods =
      new std::vector<MethodName>{
          {"sator.v1.QueryService", "Ping"},
          {"sator.v1.QueryService", "Overlap"},
          {"sator.v1.QueryService", "Contacts"},
          {"sator.v1.QueryService", "Sweep"},
          {"sator.v1.QueryService", "Raycast"},
          {"sator.v1.QueryService", "PointQuery"},
          {"sator.v1.QueryService", "QueryBatch"},
          {"sator.v1.QueryService", "RaycastBatch"},
          {"sator.v1.QueryService", "PairQuery"},
          {"sator.v1.QueryService", "ValidateShots"},
          {"sator.v1.QueryService", "ListShotVerdicts"},
          {"sator.v1.SceneService", "ListScenes"},
          {"sator.v1.SceneService", "GetScene"},
          {"sator.v1.SceneService", "ExportScene"},
          {"sator.v1.ProximityService", "GetProximity"},
          {"grpc.health.v1.Health", "Check"},
      };
  return *methods;
}

std::string RetryServiceConfigJson(const RetryPolicy& policy) {
  if (policy.max_attempts <= 1) return "{}";
  const std::string names = absl::StrJoin(
      IdempotentMethods(), ",", [](std::string* out, const MethodName& name) {
        absl::StrAppend(out, "{\"service\":\"", name.service,
                        "\",\"method\":\"", name.method, "\"}");
      });
  const std::string throttling =
      policy.throttle_max_tokens > 0
          ? absl::StrFormat(
                ",\"retryThrottling\":{\"maxTokens\":%d,\"tokenRatio\":%.3f}",
                policy.throttle_max_tokens, policy.throttle_token_ratio)
          : "";
  return absl::StrCat(
      "{\"methodConfig\":[{\"name\":[", names,
      "],\"retryPolicy\":{\"maxAttempts\":", policy.max_attempts,
      ",\"initialBackoff\":", JsonDuration(policy.initial_backoff),
      ",\"maxBackoff\":", JsonDuration(policy.max_backoff),
      ",\"backoffMultiplier\":",
      absl::StrFormat("%.17g", policy.backoff_multiplier),
      ",\"retryableStatusCodes\":[\"UNAVAILABLE\",\"RESOURCE_EXHAUSTED\"]}}]",
      throttling, "}");
}

}  // namespace sator::client_internal
