// The one place where absl::Status becomes grpc::Status. The canonical codes
// are the same in both (absl::StatusCode::kInvalidArgument is
// grpc::StatusCode::INVALID_ARGUMENT, and so on), so the mapping is one to one.
#ifndef SATOR_SERVER_STATUS_MAPPING_H_
#define SATOR_SERVER_STATUS_MAPPING_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace sator::server {

grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace sator::server

#endif  // SATOR_SERVER_STATUS_MAPPING_H_
