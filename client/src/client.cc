#include "sator/client/client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "client_impl.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "status_conversion.h"

namespace sator {

using client_internal::FromGrpcStatus;

Client::Client(std::unique_ptr<client_internal::ClientState> impl)
    : impl_(std::move(impl)) {}
Client::~Client() = default;

absl::StatusOr<std::unique_ptr<Client>> Client::Create(
    const ClientOptions& options) {
  if (options.target.empty()) {
    return absl::InvalidArgumentError("ClientOptions.target: empty");
  }
  if (options.default_deadline <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "ClientOptions.default_deadline: must be positive");
  }
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(options.target, grpc::InsecureChannelCredentials());
  return std::unique_ptr<Client>(
      new Client(std::make_unique<client_internal::ClientState>(
          options, std::move(channel))));
}

absl::StatusOr<PingResult> Client::Ping(absl::string_view payload,
                                        const CallOptions& call_options) {
  grpc::ClientContext context;
  impl_->PrepareContext(context, call_options);
  sator::v1::PingRequest request;
  request.set_payload(std::string(payload));
  sator::v1::PingResponse response;
  const grpc::Status status =
      impl_->query_stub().Ping(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return PingResult{.payload = std::move(*response.mutable_payload()),
                    .server_version = response.server_version()};
}

absl::StatusOr<HealthStatus> Client::CheckHealth(
    absl::string_view service, const CallOptions& call_options) {
  grpc::ClientContext context;
  impl_->PrepareContext(context, call_options);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(std::string(service));
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status =
      impl_->health_stub().Check(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  switch (response.status()) {
    case grpc::health::v1::HealthCheckResponse::SERVING:
      return HealthStatus::kServing;
    case grpc::health::v1::HealthCheckResponse::NOT_SERVING:
      return HealthStatus::kNotServing;
    default:
      return HealthStatus::kUnknown;
  }
}

}  // namespace sator
