// Counts of calls refused by token checks, served on /metrics as
//
//   sator_auth_denied_total{code="UNAUTHENTICATED"}    no or unknown token
//   sator_auth_denied_total{code="PERMISSION_DENIED"}  role too low
//
// Refused calls never reach a handler or the grpc_server_* interceptor, so
// this is where a brute-force attempt or a misconfigured client shows up.
#ifndef SATOR_SERVER_AUTH_AUTH_METRICS_H_
#define SATOR_SERVER_AUTH_AUTH_METRICS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "prometheus/collectable.h"

namespace sator::server::auth {

class AuthDenials final : public prometheus::Collectable {
 public:
  // Counts a refusal with `code` (UNAUTHENTICATED or PERMISSION_DENIED;
  // other codes are not counted).
  void Count(absl::StatusCode code);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::atomic<std::uint64_t> unauthenticated_{0};
  std::atomic<std::uint64_t> permission_denied_{0};
};

}  // namespace sator::server::auth

#endif  // SATOR_SERVER_AUTH_AUTH_METRICS_H_
