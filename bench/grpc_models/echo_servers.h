// The same trivial service written with each of gRPC C++'s three server
// APIs, to choose satord's threading model by measurement (DESIGN.md):
//
//   kSync      grpc::Service: gRPC's thread pool calls a blocking handler;
//              an open stream holds a thread blocked in Read.
//   kCallback  grpc::CallbackService: reactors run on gRPC's own executor
//              (what satord uses).
//   kAsync     grpc::AsyncService with completion queues: one queue per core,
//              each drained by one thread of ours running a state machine
//              per call.
//
// The service is sator.v1.QueryService with only two methods answered: Ping
// (unary; the payload echoed) and Session (bidirectional; each request
// answered with its sequence number). Nothing else is done per call, so the
// numbers are the cost of the model itself.
#ifndef SATOR_BENCH_GRPC_MODELS_ECHO_SERVERS_H_
#define SATOR_BENCH_GRPC_MODELS_ECHO_SERVERS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sator::bench {

enum class ServerModel { kSync, kCallback, kAsync };

// "sync", "callback" or "async".
absl::StatusOr<ServerModel> ParseServerModel(absl::string_view name);
const char* ServerModelName(ServerModel model);

class EchoServer {
 public:
  virtual ~EchoServer() = default;
  // Stops accepting, cancels what is open and joins every thread.
  virtual void Shutdown() = 0;
  virtual int port() const = 0;
};

// Starts a server of `model` on `address` (e.g. "127.0.0.1:0").
// `completion_queues` is used by kAsync only (one polling thread each).
absl::StatusOr<std::unique_ptr<EchoServer>> StartEchoServer(
    ServerModel model, const std::string& address, int completion_queues = 2);

}  // namespace sator::bench

#endif  // SATOR_BENCH_GRPC_MODELS_ECHO_SERVERS_H_
