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

OverloadLimiter::OverloadLimiter(const AdmissionLimits& limits)
    : limits_([&] {
        AdmissionLimits clamped = limits;
        clamped.max_inflight_requests =
            std::max(1, clamped.max_inflight_requests);
        return clamped;
      }()),
      window_start_(absl::Now()) {}

OverloadLimiter::OverloadLimiter(int max_inflight_requests,
                                 absl::Duration retry_after)
    : OverloadLimiter(
          AdmissionLimits{.max_inflight_requests = max_inflight_requests,
                          .retry_after = retry_after}) {}

std::optional<ShedReason> OverloadLimiter::TryEnter(absl::Duration waited,
                                                    std::int64_t bytes) {
  std::optional<ShedReason> refused;
  // A call that waited while no other call was admitted was slowed by its
  // own size or by the machine, not by a queue: serving it delays nobody.
  if (limits_.max_queue_wait > absl::ZeroDuration() &&
      waited > limits_.max_queue_wait &&
      in_flight_.load(std::memory_order_acquire) > 0) {
    refused = ShedReason::kQueueWait;
    shed_queue_wait_.fetch_add(1, std::memory_order_relaxed);
  } else if (!TryEnter()) {
    refused = ShedReason::kInflightRequests;
  } else if (limits_.max_admitted_bytes > 0) {
    // Optimistic, as for the slot: a call that would pass the budget backs
    // out. A call alone may pass it (a request within --max_message_bytes
    // is always served when nothing else is admitted).
    const std::int64_t before =
        admitted_bytes_.fetch_add(bytes, std::memory_order_acq_rel);
    if (before > 0 && before + bytes > limits_.max_admitted_bytes) {
      admitted_bytes_.fetch_sub(bytes, std::memory_order_acq_rel);
      Leave();
      refused = ShedReason::kAdmittedBytes;
      shed_admitted_bytes_.fetch_add(1, std::memory_order_relaxed);
    }
  } else {
    admitted_bytes_.fetch_add(bytes, std::memory_order_acq_rel);
  }
  CountDecision(!refused.has_value());
  return refused;
}

bool OverloadLimiter::TryEnter() {
  // Optimistic increment: a caller that overshoots backs out, so the count
  // never stays above the limit and no lock is taken.
  if (in_flight_.fetch_add(1, std::memory_order_acq_rel) >=
      limits_.max_inflight_requests) {
    in_flight_.fetch_sub(1, std::memory_order_acq_rel);
    shed_inflight_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

void OverloadLimiter::Leave() {
  in_flight_.fetch_sub(1, std::memory_order_acq_rel);
}

void OverloadLimiter::ReleaseBytes(std::int64_t bytes) {
  admitted_bytes_.fetch_sub(bytes, std::memory_order_acq_rel);
}

void OverloadLimiter::CountDecision(bool admitted) {
  constexpr absl::Duration kWindow = absl::Milliseconds(250);
  const absl::Time now = absl::Now();
  const std::lock_guard<std::mutex> lock(window_mutex_);
  if (now - window_start_ >= kWindow) {
    // A window with nothing refused resets the ratio; an older one counts
    // for nothing.
    refused_per_admitted_ =
        now - window_start_ >= 2 * kWindow
            ? 0.0
            : static_cast<double>(window_refused_) /
                  static_cast<double>(
                      std::max<std::int64_t>(1, window_admitted_));
    window_start_ = now;
    window_admitted_ = 0;
    window_refused_ = 0;
  }
  ++(admitted ? window_admitted_ : window_refused_);
}

absl::Duration OverloadLimiter::Pushback() const {
  double ratio = 0;
  {
    const std::lock_guard<std::mutex> lock(window_mutex_);
    ratio = refused_per_admitted_;
  }
  return limits_.retry_after * std::min(100.0, 1.0 + ratio);
}

absl::Status OverloadLimiter::RefusalStatus(ShedReason reason,
                                            absl::Duration pushback) const {
  const std::int64_t retry_ms = PushbackMilliseconds(pushback);
  switch (reason) {
    case ShedReason::kQueueWait:
      return absl::ResourceExhaustedError(absl::StrCat(
          "satord is overloaded: the call waited longer than its limit of ",
          absl::FormatDuration(limits_.max_queue_wait),
          " for a handler (--max_queue_wait); retry after ", retry_ms, " ms"));
    case ShedReason::kAdmittedBytes:
      return absl::ResourceExhaustedError(absl::StrCat(
          "satord is at its limit of ", limits_.max_admitted_bytes,
          " bytes of requests in flight (--max_admitted_bytes); retry after ",
          retry_ms, " ms"));
    case ShedReason::kSessions:
    case ShedReason::kShotVerdictWatches:
    case ShedReason::kProximityWatches:
    case ShedReason::kInflightRequests:
      break;
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "satord is at its limit of ", limits_.max_inflight_requests,
      " requests in flight (--max_inflight_requests); retry after ", retry_ms,
      " ms"));
}

void OverloadLimiter::CountShed(ShedReason reason) {
  switch (reason) {
    case ShedReason::kSessions:
      shed_sessions_.fetch_add(1, std::memory_order_relaxed);
      break;
    case ShedReason::kShotVerdictWatches:
      shed_watches_.fetch_add(1, std::memory_order_relaxed);
      break;
    case ShedReason::kProximityWatches:
      shed_proximity_watches_.fetch_add(1, std::memory_order_relaxed);
      break;
    case ShedReason::kQueueWait:
      shed_queue_wait_.fetch_add(1, std::memory_order_relaxed);
      break;
    case ShedReason::kAdmittedBytes:
      shed_admitted_bytes_.fetch_add(1, std::memory_order_relaxed);
      break;
    case ShedReason::kInflightRequests:
      shed_inflight_.fetch_add(1, std::memory_order_relaxed);
      break;
  }
  CountDecision(/*admitted=*/false);
}

std::int64_t OverloadLimiter::in_flight() const {
  return in_flight_.load(std::memory_order_relaxed);
}

std::int64_t OverloadLimiter::admitted_bytes() const {
  return admitted_bytes_.load(std::memory_order_relaxed);
}

std::uint64_t OverloadLimiter::shed(ShedReason reason) const {
  switch (reason) {
    case ShedReason::kSessions:
      return shed_sessions_.load(std::memory_order_relaxed);
    case ShedReason::kShotVerdictWatches:
      return shed_watches_.load(std::memory_order_relaxed);
    case ShedReason::kProximityWatches:
      return shed_proximity_watches_.load(std::memory_order_relaxed);
    case ShedReason::kQueueWait:
      return shed_queue_wait_.load(std::memory_order_relaxed);
    case ShedReason::kAdmittedBytes:
      return shed_admitted_bytes_.load(std::memory_order_relaxed);
    case ShedReason::kInflightRequests:
      break;
  }
  return shed_inflight_.load(std::memory_order_relaxed);
}

std::vector<prometheus::MetricFamily> OverloadLimiter::Collect() const {
  prometheus::MetricFamily shed_family;
  shed_family.name = "sator_requests_shed_total";
  shed_family.help =
      "Calls refused with RESOURCE_EXHAUSTED and a pushback hint "
      "(grpc-retry-pushback-ms, retry-after-ms) because satord was at a load "
      "limit (--max_queue_wait, --max_admitted_bytes, "
      "--max_inflight_requests, --max_sessions, --max_shot_verdict_watches, "
      "--max_proximity_watches), "
      "by limit.";
  shed_family.type = prometheus::MetricType::Counter;
  for (const auto& [reason, count] :
       {std::pair<std::string, std::uint64_t>{
            "inflight_requests", shed(ShedReason::kInflightRequests)},
        {"sessions", shed(ShedReason::kSessions)},
        {"shot_verdict_watches", shed(ShedReason::kShotVerdictWatches)},
        {"proximity_watches", shed(ShedReason::kProximityWatches)},
        {"queue_wait", shed(ShedReason::kQueueWait)},
        {"admitted_bytes", shed(ShedReason::kAdmittedBytes)}}) {
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
  limit_metric.gauge.value = static_cast<double>(limits_.max_inflight_requests);
  limit_family.metric.push_back(limit_metric);

  prometheus::MetricFamily bytes_family;
  bytes_family.name = "sator_admitted_request_bytes";
  bytes_family.help =
      "Memory of the parsed requests of the unary calls admitted and not yet "
      "done (their arenas, measured at admission; responses not counted), in "
      "bytes.";
  bytes_family.type = prometheus::MetricType::Gauge;
  prometheus::ClientMetric bytes_metric;
  bytes_metric.gauge.value = static_cast<double>(admitted_bytes());
  bytes_family.metric.push_back(bytes_metric);

  prometheus::MetricFamily bytes_limit_family;
  bytes_limit_family.name = "sator_max_admitted_request_bytes";
  bytes_limit_family.help = "The --max_admitted_bytes limit (0: none).";
  bytes_limit_family.type = prometheus::MetricType::Gauge;
  prometheus::ClientMetric bytes_limit_metric;
  bytes_limit_metric.gauge.value = static_cast<double>(
      std::max<std::int64_t>(0, limits_.max_admitted_bytes));
  bytes_limit_family.metric.push_back(bytes_limit_metric);
  return {shed_family, in_flight_family, limit_family, bytes_family,
          bytes_limit_family};
}

std::int64_t PushbackMilliseconds(absl::Duration pushback) {
  return std::max<std::int64_t>(1, absl::ToInt64Milliseconds(pushback));
}

void AddRetryAfter(grpc::ServerContextBase& context, absl::Duration delay) {
  const std::int64_t milliseconds = PushbackMilliseconds(delay);
  context.AddTrailingMetadata(kGrpcPushbackMetadataKey,
                              absl::StrCat(milliseconds));
  context.AddTrailingMetadata(kRetryAfterMetadataKey,
                              absl::StrCat(milliseconds));
}

void AddNoRetryPushback(grpc::ServerContextBase& context) {
  context.AddTrailingMetadata(kGrpcPushbackMetadataKey, "-1");
}

}  // namespace sator::server
