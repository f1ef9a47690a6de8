// Process metrics in the standard Prometheus names, read from /proc at scrape
// time (prometheus-cpp 1.0 has no process collector):
//   process_cpu_seconds_total, process_resident_memory_bytes,
//   process_virtual_memory_bytes, process_open_fds, process_max_fds,
//   process_start_time_seconds.
#ifndef SATOR_SERVER_METRICS_PROCESS_METRICS_H_
#define SATOR_SERVER_METRICS_PROCESS_METRICS_H_

#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace sator::server {

class ProcessMetrics final : public prometheus::Collectable {
 public:
  ProcessMetrics();
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  double start_time_seconds_ = 0.0;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_METRICS_PROCESS_METRICS_H_
