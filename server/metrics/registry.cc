#include "server/metrics/registry.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "prometheus/gauge.h"
#include "prometheus/text_serializer.h"
#include "server/metrics/process_metrics.h"
#include "server/version.h"

namespace sator::server {

absl::StatusOr<std::unique_ptr<Metrics>> Metrics::Start(
    const std::string& address) {
  std::unique_ptr<Metrics> metrics(new Metrics());
  metrics->registry_ = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge()
      .Name("sator_build_info")
      .Help("Always 1; the labels say which build of satord this is.")
      .Register(*metrics->registry_)
      .Add({{"version", kVersion}, {"revision", kRevision}})
      .Set(1);
  metrics->process_metrics_ = std::make_shared<ProcessMetrics>();
  if (address.empty()) return metrics;
  try {
    // One civetweb worker thread is plenty for a scrape every few seconds.
    metrics->exposer_ =
        std::make_unique<prometheus::Exposer>(address, /*num_threads=*/1);
  } catch (const std::exception& error) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", address, ": ", error.what()));
  }
  metrics->exposer_->RegisterCollectable(metrics->registry_);
  metrics->exposer_->RegisterCollectable(metrics->process_metrics_);
  const std::vector<int> ports = metrics->exposer_->GetListeningPorts();
  metrics->port_ = ports.empty() ? 0 : ports.front();
  return metrics;
}

std::string Metrics::Serialize() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  for (prometheus::MetricFamily& family : process_metrics_->Collect()) {
    families.push_back(std::move(family));
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace sator::server
