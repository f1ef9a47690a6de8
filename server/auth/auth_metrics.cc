// sator_auth_denied_total (see auth_metrics.h).
#include "server/auth/auth_metrics.h"

#include <string>
#include <utility>

#include "prometheus/client_metric.h"
#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"

namespace sator::server::auth {

void AuthDenials::Count(absl::StatusCode code) {
  if (code == absl::StatusCode::kUnauthenticated) {
    unauthenticated_.fetch_add(1, std::memory_order_relaxed);
  } else if (code == absl::StatusCode::kPermissionDenied) {
    permission_denied_.fetch_add(1, std::memory_order_relaxed);
  }
}

std::vector<prometheus::MetricFamily> AuthDenials::Collect() const {
  prometheus::MetricFamily family;
  family.name = "sator_auth_denied_total";
  family.help =
      "sator.v1 calls refused by the bearer-token check, by gRPC status "
      "code.";
  family.type = prometheus::MetricType::Counter;
  for (const auto& [code, count] :
       {std::pair<std::string, const std::atomic<std::uint64_t>*>{
            "UNAUTHENTICATED", &unauthenticated_},
        {"PERMISSION_DENIED", &permission_denied_}}) {
    prometheus::ClientMetric metric;
    metric.label.push_back({"code", code});
    metric.counter.value =
        static_cast<double>(count->load(std::memory_order_relaxed));
    family.metric.push_back(metric);
  }
  return {family};
}

}  // namespace sator::server::auth
