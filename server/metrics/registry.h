// The Prometheus registry and the metrics port: one small civetweb HTTP
// server that serves /metrics and, when satord runs with --debug_pages, the
// scene viewer's pages (server/debug/). prometheus-cpp's Exposer owns its
// civetweb server privately and offers no way to add a handler, so satord
// runs civetweb itself (docs/DESIGN.md, "Metrics port").
#ifndef SATOR_SERVER_METRICS_REGISTRY_H_
#define SATOR_SERVER_METRICS_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/collectable.h"
#include "prometheus/registry.h"

class CivetServer;

namespace sator::server {

// A GET request to a page: the path (URL-decoded, without the query) and
// the query parameters (decoded; the first of each name).
struct HttpRequest {
  std::string path;
  std::map<std::string, std::string> params;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
};

using PageHandler = std::function<HttpResponse(const HttpRequest&)>;

class Metrics {
 public:
  // Creates the registry with the process-wide series (build info, process
  // metrics) and, if `address` is not empty, serves it on
  // http://address/metrics. Fails with UNAVAILABLE if the address cannot be
  // bound.
  static absl::StatusOr<std::unique_ptr<Metrics>> Start(
      const std::string& address);
  ~Metrics();

  prometheus::Registry& registry() { return *registry_; }

  // Adds series collected on every scrape (and by Serialize).
  void AddCollectable(std::shared_ptr<prometheus::Collectable> collectable);

  // Serves GET `uri` and every path below it ("uri/...") with `handler`.
  // Does nothing when not serving.
  void AddPage(const std::string& uri, PageHandler handler);

  // Everything served on /metrics, in exposition text (for tests and tools).
  std::string Serialize() const;
  // The bound port, or 0 when not serving.
  int port() const { return port_; }

 private:
  class Handler;
  Metrics() = default;

  std::shared_ptr<prometheus::Registry> registry_;
  mutable std::mutex collectables_mutex_;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  // Destroyed before the handlers it calls (declared after them).
  std::vector<std::unique_ptr<Handler>> handlers_;
  std::unique_ptr<CivetServer> http_server_;
  int port_ = 0;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_METRICS_REGISTRY_H_
