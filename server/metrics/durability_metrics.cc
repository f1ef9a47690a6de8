#include "server/metrics/durability_metrics.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace sator::server {
namespace {

using durability::DurationHistogram;

prometheus::MetricFamily Family(std::string name, std::string help,
                                prometheus::MetricType type) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

prometheus::ClientMetric CounterMetric(
    double value, std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  metric.counter.value = value;
  return metric;
}

prometheus::ClientMetric GaugeMetric(
    double value, std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  metric.gauge.value = value;
  return metric;
}

prometheus::MetricFamily Counter(std::string name, std::string help,
                                 std::uint64_t value) {
  prometheus::MetricFamily family =
      Family(std::move(name), std::move(help), prometheus::MetricType::Counter);
  family.metric.push_back(CounterMetric(static_cast<double>(value)));
  return family;
}

prometheus::MetricFamily Gauge(std::string name, std::string help,
                               double value) {
  prometheus::MetricFamily family =
      Family(std::move(name), std::move(help), prometheus::MetricType::Gauge);
  family.metric.push_back(GaugeMetric(value));
  return family;
}

// The exposition's histogram is cumulative and ends in +Inf; the durability
// layer keeps a count per bucket.
prometheus::MetricFamily Histogram(std::string name, std::string help,
                                   const DurationHistogram& histogram) {
  prometheus::MetricFamily family = Family(std::move(name), std::move(help),
                                           prometheus::MetricType::Histogram);
  prometheus::ClientMetric metric;
  const auto& bounds = DurationHistogram::kBoundsSeconds;
  std::uint64_t cumulative = 0;
  for (std::size_t b = 0; b <= bounds.size(); ++b) {
    cumulative += histogram.counts()[b];
    metric.histogram.bucket.push_back(
        {cumulative, b < bounds.size()
                         ? bounds[b]
                         : std::numeric_limits<double>::infinity()});
  }
  metric.histogram.sample_count = cumulative;
  metric.histogram.sample_sum = histogram.sum_seconds();
  family.metric.push_back(std::move(metric));
  return family;
}

}  // namespace

DurabilityMetrics::DurabilityMetrics(const durability::DurableStore* store,
                                     const durability::RecoveryReport& recovery)
    : store_(store), recovery_(recovery) {}

std::vector<prometheus::MetricFamily> DurabilityMetrics::Collect() const {
  const durability::WalStats wal = store_->wal().stats();
  const durability::SnapshotStats snapshots = store_->snapshot_stats();
  std::vector<prometheus::MetricFamily> families;

  families.push_back(
      Counter("sator_wal_records_total",
              "Records appended to the write-ahead log (one per acknowledged "
              "mutation, plus refusal records).",
              wal.records));
  families.push_back(Counter("sator_wal_bytes_total",
                             "Bytes written to write-ahead log segments.",
                             wal.bytes));
  families.push_back(Counter(
      "sator_wal_syncs_total",
      "Group-commit flushes of the write-ahead log (one write and one "
      "fdatasync each; records per sync = records_total / syncs_total).",
      wal.syncs));
  families.push_back(Histogram(
      "sator_wal_sync_seconds",
      "Time of one group-commit flush (write and fdatasync), in seconds; "
      "every acknowledged write waits for one.",
      wal.sync_seconds));
  families.push_back(Gauge(
      "sator_wal_failed",
      "1 once a write or fdatasync of the log failed: every later mutation "
      "is refused until satord restarts.",
      wal.failed ? 1.0 : 0.0));

  prometheus::MetricFamily snapshot_count =
      Family("sator_snapshots_total", "Snapshots attempted, by result.",
             prometheus::MetricType::Counter);
  snapshot_count.metric.push_back(CounterMetric(
      static_cast<double>(snapshots.written), {{"result", "written"}}));
  snapshot_count.metric.push_back(CounterMetric(
      static_cast<double>(snapshots.failed), {{"result", "failed"}}));
  families.push_back(std::move(snapshot_count));
  families.push_back(Histogram(
      "sator_snapshot_seconds",
      "Time to write one snapshot (capture, serialize, write, fsync), in "
      "seconds; successful snapshots only.",
      snapshots.seconds));
  families.push_back(
      Gauge("sator_snapshot_last_bytes",
            "Serialized scene bytes in the newest snapshot this process wrote.",
            static_cast<double>(snapshots.last_bytes)));
  families.push_back(Gauge(
      "sator_snapshot_last_success_timestamp_seconds",
      "Unix time of the newest snapshot this process wrote (0: none yet).",
      snapshots.last_written_unix_seconds));

  prometheus::MetricFamily recovered =
      Family("sator_recovery_records",
             "Log records found at start, by what recovery did with them "
             "(lost: named by a file but found nowhere).",
             prometheus::MetricType::Gauge);
  const std::pair<const char*, std::uint64_t> outcomes[] = {
      {"replayed", recovery_.records_replayed},
      {"failed", recovery_.records_failed},
      {"refused", recovery_.records_refused},
      {"skipped", recovery_.records_skipped},
      {"lost", recovery_.records_lost}};
  for (const auto& [outcome, count] : outcomes) {
    recovered.metric.push_back(
        GaugeMetric(static_cast<double>(count), {{"outcome", outcome}}));
  }
  families.push_back(std::move(recovered));
  families.push_back(Gauge(
      "sator_recovery_damaged_bytes",
      "Bytes of torn or corrupt log skipped at start (0 after a clean stop).",
      static_cast<double>(recovery_.damaged_bytes)));
  return families;
}

}  // namespace sator::server
