// The in-flight request limit and its metrics; see overload_limiter.h.
#include "server/overload/overload_limiter.h"

#include <algorithm>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "prometheus/client_metric.h"
#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"

namespace sator::server {

int DefaultMaxInflightRequests() {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp(32u * threads, 64u, 4096u));
}

OverloadLimiter::OverloadLimiter(int max_inflight_requests,
                                 absl::Duration retry_after)
    : max_inflight_(std::max(1, max_inflight_requests)),
      retry_after_(retry_after) {}

bool OverloadLimiter::TryEnter() {
  // Optimistic increment: a caller that overshoots backs out, so the count
  // never stays above the limit and no lock is taken.
  if (in_flight_.fetch_add(1, std::memory_order_acq_rel) >= max_inflight_) {
    in_flight_.fetch_sub(1, std::memory_order_acq_rel);
    shed_inflight_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

void OverloadLimiter::Leave() {
  in_flight_.fetch_sub(1, std::memory_order_acq_rel);
}

absl::Status OverloadLimiter::InflightStatus() const {
  return absl::ResourceExhaustedError(absl::StrCat(
      "satord is at its limit of ", max_inflight_,
      " requests in flight (--max_inflight_requests); retry after ",
      absl::ToInt64Milliseconds(retry_after_), " ms"));
}

void OverloadLimiter::CountShed(ShedReason reason) {
  (reason == ShedReason::kSessions ? shed_sessions_ : shed_inflight_)
      .fetch_add(1, std::memory_order_relaxed);
}

std::int64_t OverloadLimiter::in_flight() const {
  return in_flight_.load(std::memory_order_relaxed);
}

std::uint64_t OverloadLimiter::shed(ShedReason reason) const {
  return (reason == ShedReason::kSessions ? shed_sessions_ : shed_inflight_)
      .load(std::memory_order_relaxed);
}

std::vector<prometheus::MetricFamily> OverloadLimiter::Collect() const {
  prometheus::MetricFamily shed_family;
  shed_family.name = "sator_requests_shed_total";
  shed_family.help =
      "Calls refused with RESOURCE_EXHAUSTED and a retry-after-ms hint "
      "because satord was at a load limit (--max_inflight_requests, "
      "--max_sessions), by limit.";
  shed_family.type = prometheus::MetricType::Counter;
  for (const auto& [reason, count] :
       {std::pair<std::string, std::uint64_t>{
            "inflight_requests", shed(ShedReason::kInflightRequests)},
        {"sessions", shed(ShedReason::kSessions)}}) {
    prometheus::ClientMetric metric;
    metric.label.push_back({"reason", reason});
    metric.counter.value = static_cast<double>(count);
    shed_family.metric.push_back(metric);
  }

  prometheus::MetricFamily in_flight_family;
  in_flight_family.name = "sator_inflight_requests";
  in_flight_family.help =
      "Unary calls admitted and not yet done (sessions not included).";
  in_flight_family.type = prometheus::MetricType::Gauge;
  prometheus::ClientMetric in_flight_metric;
  in_flight_metric.gauge.value = static_cast<double>(in_flight());
  in_flight_family.metric.push_back(in_flight_metric);

  prometheus::MetricFamily limit_family;
  limit_family.name = "sator_max_inflight_requests";
  limit_family.help = "The --max_inflight_requests limit.";
  limit_family.type = prometheus::MetricType::Gauge;
  prometheus::ClientMetric limit_metric;
  limit_metric.gauge.value = static_cast<double>(max_inflight_);
  limit_family.metric.push_back(limit_metric);
  return {shed_family, in_flight_family, limit_family};
}

void AddRetryAfter(grpc::ServerContextBase& context, absl::Duration delay) {
  const std::int64_t milliseconds =
      std::max<std::int64_t>(1, absl::ToInt64Milliseconds(delay));
  context.AddTrailingMetadata(kRetryAfterMetadataKey,
                              absl::StrCat(milliseconds));
}

}  // namespace sator::server
