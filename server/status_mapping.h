// The one place where absl::Status becomes a status on the wire: a
// grpc::Status ending a call, or a sator.v1.Status in a batch entry or a
// Session reply. The canonical codes are the same in both (absl's
// kInvalidArgument is gRPC's INVALID_ARGUMENT, and so on), so the code maps
// one to one. An INVALID_ARGUMENT or OUT_OF_RANGE that names a field
// (FieldViolationOf) also carries a google.rpc.BadRequest naming it:
// in the call's `grpc-status-details-bin` trailer (a google.rpc.Status, set
// through gRPC's SetErrorDetails) or in the sator.v1.Status's `details`.
#ifndef SATOR_SERVER_STATUS_MAPPING_H_
#define SATOR_SERVER_STATUS_MAPPING_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"
#include "sator/v1/query_service.pb.h"

namespace sator::server {

grpc::Status ToGrpcStatus(const absl::Status& status);

void ToWireStatus(const absl::Status& status, sator::v1::Status* out);

}  // namespace sator::server

#endif  // SATOR_SERVER_STATUS_MAPPING_H_
