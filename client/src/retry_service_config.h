// The gRPC service config (gRFC A6) that makes a channel retry the
// idempotent methods of the sator.v1 API by a RetryPolicy (retry.h).
#ifndef SATOR_CLIENT_SRC_RETRY_SERVICE_CONFIG_H_
#define SATOR_CLIENT_SRC_RETRY_SERVICE_CONFIG_H_

#include <string>
#include <vector>

#include "sator/client/retry.h"

namespace sator::client_internal {

struct MethodName {
  const char* service;
  const char* method;
};

// The methods that may be retried: every unary RPC that changes nothing.
const std::vector<MethodName>& IdempotentMethods();

// The service config JSON: one methodConfig naming IdempotentMethods() with
// a retryPolicy from `policy` (retryableStatusCodes UNAVAILABLE and
// RESOURCE_EXHAUSTED), or no methodConfig at all when policy.max_attempts
// is 1. `policy` must be valid (ValidateRetryPolicy).
std::string RetryServiceConfigJson(const RetryPolicy& policy);

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_RETRY_SERVICE_CONFIG_H_
