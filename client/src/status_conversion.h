// The one place where a status from the wire becomes absl::Status on the
// client side: a call's grpc::Status, or a sator.v1.Status in a batch entry
// or a Session reply. Same code (the canonical codes are shared; one outside
// them becomes UNKNOWN), same message, and every error detail (the
// google.rpc.Status details of `grpc-status-details-bin`, or the
// sator.v1.Status's `details`) as a payload keyed by its type URL.
#ifndef SATOR_CLIENT_SRC_STATUS_CONVERSION_H_
#define SATOR_CLIENT_SRC_STATUS_CONVERSION_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"
#include "sator/v1/query_service.pb.h"

namespace sator::client_internal {

absl::Status FromGrpcStatus(const grpc::Status& status);

absl::Status FromWireStatus(const sator::v1::Status& status);

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_STATUS_CONVERSION_H_
