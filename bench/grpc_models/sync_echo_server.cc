// The synchronous model: gRPC's own thread pool runs blocking handlers.
#include <memory>
#include <string>

#include "bench/grpc_models/echo_server_models.h"
#include "sator/v1/query_service.grpc.pb.h"

namespace sator::bench::internal {
namespace {

class SyncEchoService final : public sator::v1::QueryService::Service {
 public:
  grpc::Status Ping(grpc::ServerContext* /*context*/,
                    const sator::v1::PingRequest* request,
                    sator::v1::PingResponse* response) override {
    AnswerPing(*request, response);
    return grpc::Status::OK;
  }

  // The handler's thread is blocked in Read for the life of the stream.
  grpc::Status Session(
      grpc::ServerContext* /*context*/,
      grpc::ServerReaderWriter<sator::v1::SessionResponse,
                               sator::v1::SessionRequest>* stream) override {
    sator::v1::SessionRequest request;
    sator::v1::SessionResponse response;
    while (stream->Read(&request)) {
      AnswerSession(request, &response);
      if (!stream->Write(response)) break;
    }
    return grpc::Status::OK;
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<EchoServer>> StartSyncEchoServer(
    const std::string& address) {
  return StartServiceEchoServer(std::make_unique<SyncEchoService>(), address);
}

}  // namespace sator::bench::internal
