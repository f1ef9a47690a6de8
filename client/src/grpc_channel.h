// The gRPC channel under MakeConnection (grpc_connection.cc), apart so that
// tests can look at what the channel was given (its service config).
#ifndef SATOR_CLIENT_SRC_GRPC_CHANNEL_H_
#define SATOR_CLIENT_SRC_GRPC_CHANNEL_H_

#include <memory>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "sator/client/connection.h"

namespace sator::client_internal {

// A channel to options.target with the options' keepalive, message size,
// reconnect backoff, TLS, bearer token and the retry service config
// (retry_service_config.h). INVALID_ARGUMENT names a bad option.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeGrpcChannel(
    const ConnectionOptions& options);

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_GRPC_CHANNEL_H_
