// sator_wal_*, sator_snapshot_* and sator_recovery_* series: what satord's
// data directory (--data_dir) has done, read from the durability layer's own
// counters at scrape time (server/durability/durability_stats.h), so the
// write path pays nothing for them beyond the counters it keeps anyway.
// Registered only when satord runs with --data_dir (docs/METRICS.md).
#ifndef SATOR_SERVER_METRICS_DURABILITY_METRICS_H_
#define SATOR_SERVER_METRICS_DURABILITY_METRICS_H_

#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "server/durability/durable_store.h"

namespace sator::server {

class DurabilityMetrics final : public prometheus::Collectable {
 public:
  // `store` must outlive every Collect call; `recovery` is what the start
  // found and did.
  DurabilityMetrics(const durability::DurableStore* store,
                    const durability::RecoveryReport& recovery);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const durability::DurableStore* store_;
  const durability::RecoveryReport recovery_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_METRICS_DURABILITY_METRICS_H_
