// The one place where grpc::Status becomes absl::Status on the client side.
#ifndef SATOR_CLIENT_SRC_STATUS_CONVERSION_H_
#define SATOR_CLIENT_SRC_STATUS_CONVERSION_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace sator::client_internal {

// Same code (the canonical codes are shared), same message. A code outside
// the canonical range becomes UNKNOWN, keeping the message.
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_STATUS_CONVERSION_H_
