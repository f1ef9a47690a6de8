// Model names and the dispatch to each model's start function.
#include "bench/grpc_models/echo_servers.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bench/grpc_models/echo_server_models.h"
#include "grpcpp/security/server_credentials.h"

namespace sator::bench {

absl::StatusOr<ServerModel> ParseServerModel(absl::string_view name) {
  if (name == "sync") return ServerModel::kSync;
  if (name == "callback") return ServerModel::kCallback;
  if (name == "async") return ServerModel::kAsync;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown server model '", name, "' (sync, callback or async)"));
}

const char* ServerModelName(ServerModel model) {
  switch (model) {
    case ServerModel::kSync:
      return "sync";
    case ServerModel::kCallback:
      return "callback";
    case ServerModel::kAsync:
      return "async";
  }
  return "?";
}

absl::StatusOr<std::unique_ptr<EchoServer>> StartEchoServer(
    ServerModel model, const std::string& address, int completion_queues) {
  switch (model) {
    case ServerModel::kSync:
      return internal::StartSyncEchoServer(address);
    case ServerModel::kCallback:
      return internal::StartCallbackEchoServer(address);
    case ServerModel::kAsync:
      if (completion_queues < 1) {
        return absl::InvalidArgumentError("completion_queues must be >= 1");
      }
      return internal::StartAsyncEchoServer(address, completion_queues);
  }
  return absl::InvalidArgumentError("unknown server model");
}

namespace internal {

void AnswerPing(const sator::v1::PingRequest& request,
                sator::v1::PingResponse* response) {
  response->set_payload(request.payload());
}

void AnswerSession(const sator::v1::SessionRequest& request,
                   sator::v1::SessionResponse* response) {
  response->Clear();
  response->set_sequence(request.sequence());
}

absl::StatusOr<std::unique_ptr<grpc::Server>> BuildAndStart(
    grpc::ServerBuilder& builder, const std::string& address, int* port) {
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), port);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || *port == 0) {
    return absl::InternalError(absl::StrCat("cannot listen on ", address));
  }
  return server;
}

namespace {

class ServiceEchoServer final : public EchoServer {
 public:
  ServiceEchoServer(std::unique_ptr<grpc::Service> service,
                    std::unique_ptr<grpc::Server> server, int port)
      : service_(std::move(service)), server_(std::move(server)), port_(port) {}
  ~ServiceEchoServer() override { Shutdown(); }

  void Shutdown() override {
    if (server_ == nullptr) return;
    // Calls still open after a second are cancelled.
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(1));
    server_->Wait();
    server_.reset();
  }
  int port() const override { return port_; }

 private:
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<EchoServer>> StartServiceEchoServer(
    std::unique_ptr<grpc::Service> service, const std::string& address) {
  grpc::ServerBuilder builder;
  builder.RegisterService(service.get());
  int port = 0;
  absl::StatusOr<std::unique_ptr<grpc::Server>> server =
      BuildAndStart(builder, address, &port);
  if (!server.ok()) return server.status();
  return std::make_unique<ServiceEchoServer>(std::move(service),
                                             *std::move(server), port);
}

}  // namespace internal
}  // namespace sator::bench
