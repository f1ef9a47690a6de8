// The completion-queue model: one ServerCompletionQueue per core, each
// drained by one thread of ours; every call is a small state machine whose
// address is the tag of its pending operation (gRPC's async API,
// grpc/examples/cpp/helloworld/greeter_async_server.cc shows the pattern).
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/grpc_models/echo_server_models.h"
#include "sator/v1/query_service.grpc.pb.h"

namespace sator::bench::internal {
namespace {

using AsyncService = sator::v1::QueryService::AsyncService;

// Calls requested ahead per method and queue, so a burst of new calls does
// not wait for a handler to post the next request.
constexpr int kRequestsAheadPerQueue = 8;

class AsyncCall {
 public:
  virtual ~AsyncCall() = default;
  // The pending operation completed (`ok`: it succeeded).
  virtual void Proceed(bool ok) = 0;
};

class AsyncPingCall final : public AsyncCall {
 public:
  AsyncPingCall(AsyncService* service, grpc::ServerCompletionQueue* queue)
      : service_(service), queue_(queue), responder_(&context_) {
    service_->RequestPing(&context_, &request_, &responder_, queue_, queue_,
                          this);
  }

  void Proceed(bool ok) override {
    if (finishing_ || !ok) {
      delete this;
      return;
    }
    new AsyncPingCall(service_, queue_);  // Wait for the next call.
    AnswerPing(request_, &response_);
    finishing_ = true;
    responder_.Finish(response_, grpc::Status::OK, this);
  }

 private:
  AsyncService* service_;
  grpc::ServerCompletionQueue* queue_;
  grpc::ServerContext context_;
  sator::v1::PingRequest request_;
  sator::v1::PingResponse response_;
  grpc::ServerAsyncResponseWriter<sator::v1::PingResponse> responder_;
  bool finishing_ = false;
};

class AsyncSessionCall final : public AsyncCall {
 public:
  AsyncSessionCall(AsyncService* service, grpc::ServerCompletionQueue* queue)
      : service_(service), queue_(queue), stream_(&context_) {
    service_->RequestSession(&context_, &stream_, queue_, queue_, this);
  }

  void Proceed(bool ok) override {
    switch (state_) {
      case State::kWaiting:
        if (!ok) break;  // Shutting down: never started.
        new AsyncSessionCall(service_, queue_);
        state_ = State::kReading;
        stream_.Read(&request_, this);
        return;
      case State::kReading:
        if (!ok) {  // The client is done writing.
          state_ = State::kFinishing;
          stream_.Finish(grpc::Status::OK, this);
          return;
        }
        AnswerSession(request_, &response_);
        state_ = State::kWriting;
        stream_.Write(response_, this);
        return;
      case State::kWriting:
        if (!ok) {
          state_ = State::kFinishing;
          stream_.Finish(grpc::Status::CANCELLED, this);
          return;
        }
        state_ = State::kReading;
        stream_.Read(&request_, this);
        return;
      case State::kFinishing:
        break;
    }
    delete this;
  }

 private:
  enum class State { kWaiting, kReading, kWriting, kFinishing };
  AsyncService* service_;
  grpc::ServerCompletionQueue* queue_;
  grpc::ServerContext context_;
  sator::v1::SessionRequest request_;
  sator::v1::SessionResponse response_;
  grpc::ServerAsyncReaderWriter<sator::v1::SessionResponse,
                                sator::v1::SessionRequest>
      stream_;
  State state_ = State::kWaiting;
};

class AsyncEchoServer final : public EchoServer {
 public:
  AsyncEchoServer(
      std::unique_ptr<AsyncService> service,
      std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues,
      std::unique_ptr<grpc::Server> server, int port)
      : service_(std::move(service)),
        queues_(std::move(queues)),
        server_(std::move(server)),
        port_(port) {
    for (const auto& queue : queues_) {
      for (int i = 0; i < kRequestsAheadPerQueue; ++i) {
        new AsyncPingCall(service_.get(), queue.get());
        new AsyncSessionCall(service_.get(), queue.get());
      }
      pollers_.emplace_back([queue = queue.get()] {
        void* tag = nullptr;
        bool ok = false;
        while (queue->Next(&tag, &ok))
          static_cast<AsyncCall*>(tag)->Proceed(ok);
      });
    }
  }
  ~AsyncEchoServer() override { Shutdown(); }

  void Shutdown() override {
    if (server_ == nullptr) return;
    // Calls still open after a second are cancelled; their tags come back
    // with ok == false and the pollers delete them.
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(1));
    for (const auto& queue : queues_) queue->Shutdown();
    for (std::thread& poller : pollers_) poller.join();
    server_.reset();
  }
  int port() const override { return port_; }

 private:
  std::unique_ptr<AsyncService> service_;
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues_;
  std::unique_ptr<grpc::Server> server_;
  int port_;
  std::vector<std::thread> pollers_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<EchoServer>> StartAsyncEchoServer(
    const std::string& address, int completion_queues) {
  auto service = std::make_unique<AsyncService>();
  grpc::ServerBuilder builder;
  builder.RegisterService(service.get());
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues;
  for (int i = 0; i < completion_queues; ++i) {
    queues.push_back(builder.AddCompletionQueue());
  }
  int port = 0;
  absl::StatusOr<std::unique_ptr<grpc::Server>> server =
      BuildAndStart(builder, address, &port);
  if (!server.ok()) return server.status();
  return std::make_unique<AsyncEchoServer>(
      std::move(service), std::move(queues), *std::move(server), port);
}

}  // namespace sator::bench::internal
