// The registry and the metrics port's HTTP server (see registry.h).
#include "server/metrics/registry.h"

#include <exception>
#include <utility>

#include "CivetServer.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "civetweb.h"
#include "prometheus/gauge.h"
#include "prometheus/text_serializer.h"
#include "server/metrics/process_metrics.h"
#include "server/version.h"

namespace sator::server {
namespace {

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    default:
      return "Error";
  }
}

void Send(mg_connection* connection, const HttpResponse& response) {
  mg_printf(connection,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
            response.status, ReasonPhrase(response.status),
            response.content_type.c_str(), response.body.size());
  mg_write(connection, response.body.data(), response.body.size());
}

HttpRequest ParseRequest(mg_connection* connection) {
  const mg_request_info* info = mg_get_request_info(connection);
  HttpRequest request;
  if (info->local_uri != nullptr) request.path = info->local_uri;
  if (info->query_string != nullptr) {
    const std::string query = info->query_string;
    for (absl::string_view pair : absl::StrSplit(query, '&')) {
      const std::string name(pair.substr(0, pair.find('=')));
      std::string value;
      if (!name.empty() && request.params.count(name) == 0 &&
          CivetServer::getParam(query, name.c_str(), value)) {
        request.params[name] = value;
      }
    }
  }
  return request;
}

}  // namespace

// One civetweb handler: /metrics, or a page.
class Metrics::Handler final : public CivetHandler {
 public:
  explicit Handler(PageHandler page) : page_(std::move(page)) {}
  bool handleGet(CivetServer* /*server*/, mg_connection* connection) override {
    Send(connection, page_(ParseRequest(connection)));
    return true;
  }

 private:
  PageHandler page_;
};

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
  metrics->collectables_.push_back(metrics->registry_);
  metrics->collectables_.push_back(std::make_shared<ProcessMetrics>());
  if (address.empty()) return metrics;
  try {
    // Two worker threads: a scrape is never queued behind a viewer page.
    metrics->http_server_ =
        std::make_unique<CivetServer>(std::vector<std::string>{
            "listening_ports", address, "num_threads", "2"});
  } catch (const std::exception& error) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", address, ": ", error.what()));
  }
  if (metrics->http_server_->getContext() == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", address));
  }
  Metrics* self = metrics.get();
  metrics->AddPage("/metrics", [self](const HttpRequest&) {
    return HttpResponse{.status = 200,
                        .content_type =
                            "text/plain; version=0.0.4; "
                            "charset=utf-8",
                        .body = self->Serialize()};
  });
  const std::vector<int> ports = metrics->http_server_->getListeningPorts();
  metrics->port_ = ports.empty() ? 0 : ports.front();
  return metrics;
}

Metrics::~Metrics() {
  // Stop serving (and wait for requests in progress) before the handlers go.
  http_server_.reset();
}

void Metrics::AddCollectable(
    std::shared_ptr<prometheus::Collectable> collectable) {
  const std::lock_guard<std::mutex> lock(collectables_mutex_);
  collectables_.push_back(std::move(collectable));
}

void Metrics::AddPage(const std::string& uri, PageHandler handler) {
  if (http_server_ == nullptr) return;
  handlers_.push_back(std::make_unique<Handler>(std::move(handler)));
  http_server_->addHandler(uri, handlers_.back().get());
}

std::string Metrics::Serialize() const {
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables;
  {
    const std::lock_guard<std::mutex> lock(collectables_mutex_);
    collectables = collectables_;
  }
  std::vector<prometheus::MetricFamily> families;
  for (const std::shared_ptr<prometheus::Collectable>& collectable :
       collectables) {
    for (prometheus::MetricFamily& family : collectable->Collect()) {
      families.push_back(std::move(family));
    }
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace sator::server
