// The Prometheus registry and its /metrics endpoint (prometheus-cpp).
#ifndef SATOR_SERVER_METRICS_REGISTRY_H_
#define SATOR_SERVER_METRICS_REGISTRY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "prometheus/exposer.h"
#include "prometheus/registry.h"

namespace sator::server {

class Metrics {
 public:
  // Creates the registry with the process-wide series (build info, process
  // metrics) and, if
  // `address` is not empty, serves it on http://address/metrics. Fails with
  // UNAVAILABLE if the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<Metrics>> Start(
      const std::string& address);

  prometheus::Registry& registry() { return *registry_; }
  // Everything served on /metrics, in exposition text (for tests and tools).
  std::string Serialize() const;
  // The bound port, or 0 when not serving.
  int port() const { return port_; }

 private:
  Metrics() = default;

  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<prometheus::Collectable> process_metrics_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_METRICS_REGISTRY_H_
