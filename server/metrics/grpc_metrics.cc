#include "server/metrics/grpc_metrics.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace sator::server {
namespace {

using grpc::experimental::InterceptionHookPoints;
using grpc::experimental::ServerRpcInfo;

constexpr std::array<const char*, 17> kCodeNames = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};

const char* TypeName(ServerRpcInfo::Type type) {
  switch (type) {
    case ServerRpcInfo::Type::UNARY:
      return "unary";
    case ServerRpcInfo::Type::CLIENT_STREAMING:
      return "client_stream";
    case ServerRpcInfo::Type::SERVER_STREAMING:
      return "server_stream";
    case ServerRpcInfo::Type::BIDI_STREAMING:
      return "bidi_stream";
  }
  return "unary";
}

ServerRpcInfo::Type TypeOf(const google::protobuf::MethodDescriptor& method) {
  if (method.client_streaming() && method.server_streaming()) {
    return ServerRpcInfo::Type::BIDI_STREAMING;
  }
  if (method.client_streaming()) return ServerRpcInfo::Type::CLIENT_STREAMING;
  if (method.server_streaming()) return ServerRpcInfo::Type::SERVER_STREAMING;
  return ServerRpcInfo::Type::UNARY;
}

// One per call: counts the call when it starts and when its status is sent.
class MetricsInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit MetricsInterceptor(GrpcServerMetrics::MethodSeries& series)
      : series_(series), start_(std::chrono::steady_clock::now()) {
    series_.Started();
  }

  ~MetricsInterceptor() override {
    // A call that ends without the server sending a status was cancelled by
    // the client (or its deadline passed).
    if (!handled_) Record(grpc::StatusCode::CANCELLED);
  }

  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::POST_RECV_MESSAGE)) {
      series_.MessageReceived();
    }
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      series_.MessageSent();
    }
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_STATUS)) {
      Record(methods->GetSendStatus().error_code());
    }
    methods->Proceed();
  }

 private:
  void Record(grpc::StatusCode code) {
    handled_ = true;
    const std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start_;
    series_.Handled(code, elapsed.count());
  }

  GrpcServerMetrics::MethodSeries& series_;
  const std::chrono::steady_clock::time_point start_;
  bool handled_ = false;
};

class MetricsInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit MetricsInterceptorFactory(GrpcServerMetrics& metrics)
      : metrics_(metrics) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      ServerRpcInfo* info) override {
    return new MetricsInterceptor(
        metrics_.ForMethod(info->method(), info->type()));
  }

 private:
  GrpcServerMetrics& metrics_;
};

}  // namespace

std::vector<double> LatencyBucketsSeconds() {
  return {1e-5,   2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2,
          2.5e-2, 5e-2,   0.1,  0.25, 0.5,    1.0,  2.5,  5.0,    10.0};
}

GrpcServerMetrics::MethodSeries::MethodSeries(GrpcServerMetrics& owner,
                                              std::string service,
                                              std::string method,
                                              std::string type)
    : owner_(owner),
      service_(std::move(service)),
      method_(std::move(method)),
      type_(std::move(type)) {
  const prometheus::Labels labels = {{"grpc_service", service_},
                                     {"grpc_method", method_},
                                     {"grpc_type", type_}};
  started_ = &owner_.started_family_.Add(labels);
  handling_ = &owner_.handling_family_.Add(labels, LatencyBucketsSeconds());
  received_ = &owner_.received_family_.Add(labels);
  sent_ = &owner_.sent_family_.Add(labels);
}

prometheus::Counter& GrpcServerMetrics::MethodSeries::HandledCounter(
    grpc::StatusCode code) {
  const int index = static_cast<int>(code);
  const size_t slot =
      index >= 0 && index < 17 ? static_cast<size_t>(index) : size_t{2};
  prometheus::Counter* counter = handled_[slot].load(std::memory_order_acquire);
  if (counter != nullptr) return *counter;
  const std::lock_guard<std::mutex> lock(owner_.handled_mutex_);
  counter = handled_[slot].load(std::memory_order_relaxed);
  if (counter == nullptr) {
    counter = &owner_.handled_family_.Add({{"grpc_service", service_},
                                           {"grpc_method", method_},
                                           {"grpc_type", type_},
                                           {"grpc_code", kCodeNames[slot]}});
    handled_[slot].store(counter, std::memory_order_release);
  }
  return *counter;
}

void GrpcServerMetrics::MethodSeries::Handled(grpc::StatusCode code,
                                              double seconds) {
  HandledCounter(code).Increment();
  handling_->Observe(seconds);
}

GrpcServerMetrics::GrpcServerMetrics(
    prometheus::Registry& registry,
    const std::vector<const google::protobuf::ServiceDescriptor*>& services)
    : started_family_(prometheus::BuildCounter()
                          .Name("grpc_server_started_total")
                          .Help("RPCs started on the server.")
                          .Register(registry)),
      handled_family_(prometheus::BuildCounter()
                          .Name("grpc_server_handled_total")
                          .Help("RPCs completed on the server, by status code.")
                          .Register(registry)),
      handling_family_(prometheus::BuildHistogram()
                           .Name("grpc_server_handling_seconds")
                           .Help("Time from the start of an RPC to its status "
                                 "being sent, in seconds.")
                           .Register(registry)),
      received_family_(prometheus::BuildCounter()
                           .Name("grpc_server_msg_received_total")
                           .Help("Messages received from clients.")
                           .Register(registry)),
      sent_family_(prometheus::BuildCounter()
                       .Name("grpc_server_msg_sent_total")
                       .Help("Messages sent to clients.")
                       .Register(registry)) {
  for (const google::protobuf::ServiceDescriptor* service : services) {
    if (service == nullptr) continue;
    for (int i = 0; i < service->method_count(); ++i) {
      const google::protobuf::MethodDescriptor& method = *service->method(i);
      methods_.emplace(
          absl::StrCat("/", service->full_name(), "/", method.name()),
          std::make_unique<MethodSeries>(*this, service->full_name(),
                                         method.name(),
                                         TypeName(TypeOf(method))));
    }
  }
  for (size_t t = 0; t < unknown_.size(); ++t) {
    unknown_[t] = std::make_unique<MethodSeries>(
        *this, "unknown", "unknown",
        TypeName(static_cast<ServerRpcInfo::Type>(t)));
  }
}

GrpcServerMetrics::MethodSeries& GrpcServerMetrics::ForMethod(
    const char* full_method, ServerRpcInfo::Type type) {
  const auto found = methods_.find(absl::string_view(full_method));
  if (found != methods_.end()) return *found->second;
  return *unknown_[static_cast<size_t>(type)];
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
GrpcServerMetrics::MakeInterceptorFactory() {
  return std::make_unique<MetricsInterceptorFactory>(*this);
}

}  // namespace sator::server
