// The standard gRPC server metrics, with the names and labels that existing
// gRPC dashboards expect (go-grpc-prometheus):
//
//   grpc_server_started_total{grpc_service,grpc_method,grpc_type}
//   grpc_server_handled_total{grpc_service,grpc_method,grpc_type,grpc_code}
//   grpc_server_handling_seconds{grpc_service,grpc_method,grpc_type}
//   (histogram) grpc_server_msg_received_total / grpc_server_msg_sent_total
//   (streams)
//
// recorded by a server interceptor. Cardinality is bounded: the series of
// every method of the registered services are made once at startup, and a
// call to any other method name (which a client can invent) counts under
// grpc_method="unknown". The hot path looks nothing up by label: it finds the
// method's series in an immutable map and increments them.
#ifndef SATOR_SERVER_METRICS_GRPC_METRICS_H_
#define SATOR_SERVER_METRICS_GRPC_METRICS_H_

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/support/server_interceptor.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace sator::server {

// Latency buckets in seconds: 10 microseconds to 10 seconds in a 1-2.5-5
// series. A loopback Ping takes some tens of microseconds, so nothing an RPC
// does lands below the first bucket.
std::vector<double> LatencyBucketsSeconds();

class GrpcServerMetrics {
 public:
  // Makes the series of every method of `services`.
  GrpcServerMetrics(
      prometheus::Registry& registry,
      const std::vector<const google::protobuf::ServiceDescriptor*>& services);

  // For ServerBuilder::experimental().SetInterceptorCreators.
  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
  MakeInterceptorFactory();

  // The series of one method.
  class MethodSeries {
   public:
    MethodSeries(GrpcServerMetrics& owner, std::string service,
                 std::string method, std::string type);
    void Started() { started_->Increment(); }
    void Handled(grpc::StatusCode code, double seconds);
    void MessageReceived() { received_->Increment(); }
    void MessageSent() { sent_->Increment(); }

   private:
    prometheus::Counter& HandledCounter(grpc::StatusCode code);

    GrpcServerMetrics& owner_;
    std::string service_;
    std::string method_;
    std::string type_;
    prometheus::Counter* started_;
    prometheus::Histogram* handling_;
    prometheus::Counter* received_;
    prometheus::Counter* sent_;
    // One counter per status code, made on first use.
    std::array<std::atomic<prometheus::Counter*>, 17> handled_{};
  };

  // The series for "/package.Service/Method" of `type`; the "unknown" series
  // for a method no registered service has.
  MethodSeries& ForMethod(const char* full_method,
                          grpc::experimental::ServerRpcInfo::Type type);

 private:
  prometheus::Family<prometheus::Counter>& started_family_;
  prometheus::Family<prometheus::Counter>& handled_family_;
  prometheus::Family<prometheus::Histogram>& handling_family_;
  prometheus::Family<prometheus::Counter>& received_family_;
  prometheus::Family<prometheus::Counter>& sent_family_;
  std::mutex handled_mutex_;  // Guards making handled counters.
  // Immutable after construction: read without a lock.
  absl::flat_hash_map<std::string, std::unique_ptr<MethodSeries>> methods_;
  std::array<std::unique_ptr<MethodSeries>, 4> unknown_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_METRICS_GRPC_METRICS_H_
