#include "status_conversion.h"

#include <string>
#include <utility>

#include "absl/strings/cord.h"
#include "google/protobuf/any.pb.h"
#include "google/rpc/status.pb.h"
#include "grpcpp/support/error_details.h"

namespace sator::client_internal {
namespace {

absl::StatusCode CodeOf(int code) {
  return code >= 1 && code <= 16 ? static_cast<absl::StatusCode>(code)
                                 : absl::StatusCode::kUnknown;
}

absl::Status WithDetails(
    absl::Status status,
    const google::protobuf::RepeatedPtrField<google::protobuf::Any>& details) {
  for (const google::protobuf::Any& detail : details) {
    status.SetPayload(detail.type_url(), absl::Cord(detail.value()));
  }
  return status;
}

}  // namespace

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  absl::Status out(CodeOf(static_cast<int>(status.error_code())),
                   status.error_message());
  if (status.error_details().empty()) return out;
  google::rpc::Status details;
  if (!grpc::ExtractErrorDetails(status, &details).ok()) return out;
  return WithDetails(std::move(out), details.details());
}

absl::Status FromWireStatus(const sator::v1::Status& status) {
  if (status.code() == 0) return absl::OkStatus();
  return WithDetails(absl::Status(CodeOf(status.code()), status.message()),
                     status.details());
}

}  // namespace sator::client_internal
