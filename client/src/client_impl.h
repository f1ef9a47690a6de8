// The state behind sator::Client: the channel's stubs and the options.
#ifndef SATOR_CLIENT_SRC_CLIENT_IMPL_H_
#define SATOR_CLIENT_SRC_CLIENT_IMPL_H_

#include <memory>
#include <utility>

#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "sator/client/client.h"
#include "sator/v1/query_service.grpc.pb.h"

namespace sator::client_internal {

class ClientState {
 public:
  ClientState(ClientOptions options, std::shared_ptr<grpc::Channel> channel)
      : options_(std::move(options)),
        channel_(std::move(channel)),
        query_stub_(sator::v1::QueryService::NewStub(channel_)),
        health_stub_(grpc::health::v1::Health::NewStub(channel_)) {}

  void PrepareContext(grpc::ClientContext& context,
                      const CallOptions& call_options) const {
    const absl::Duration timeout =
        call_options.deadline.value_or(options_.default_deadline);
    context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  }

  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  sator::v1::QueryService::Stub& query_stub() { return *query_stub_; }
  grpc::health::v1::Health::Stub& health_stub() { return *health_stub_; }

 private:
  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<sator::v1::QueryService::Stub> query_stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_stub_;
};

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_CLIENT_IMPL_H_
