// The callback model (satord's): reactors on gRPC's executor, no thread of
// ours.
#include <memory>
#include <string>

#include "bench/grpc_models/echo_server_models.h"
#include "sator/v1/query_service.grpc.pb.h"

namespace sator::bench::internal {
namespace {

// Reads, answers, writes, reads again: one message in flight, as a Sator
// session answers in order.
class EchoSessionReactor final
    : public grpc::ServerBidiReactor<sator::v1::SessionRequest,
                                     sator::v1::SessionResponse> {
 public:
  EchoSessionReactor() { StartRead(&request_); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    AnswerSession(request_, &response_);
    StartWrite(&response_);
  }
  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::CANCELLED);
      return;
    }
    StartRead(&request_);
  }
  void OnDone() override { delete this; }

 private:
  sator::v1::SessionRequest request_;
  sator::v1::SessionResponse response_;
};

class CallbackEchoService final
    : public sator::v1::QueryService::CallbackService {
 public:
  grpc::ServerUnaryReactor* Ping(grpc::CallbackServerContext* context,
                                 const sator::v1::PingRequest* request,
                                 sator::v1::PingResponse* response) override {
    AnswerPing(*request, response);
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerBidiReactor<sator::v1::SessionRequest,
                          sator::v1::SessionResponse>*
  Session(grpc::CallbackServerContext* /*context*/) override {
    return new EchoSessionReactor();
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<EchoServer>> StartCallbackEchoServer(
    const std::string& address) {
  return StartServiceEchoServer(std::make_unique<CallbackEchoService>(),
                                address);
}

}  // namespace sator::bench::internal
