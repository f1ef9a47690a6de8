#include "status_conversion.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/any.pb.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "grpcpp/support/error_details.h"
#include "proto/convert/field_path.h"
#include "sator/client/field_violations.h"

namespace sator {
namespace client_internal {
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

}  // namespace client_internal

std::vector<FieldViolation> FieldViolations(const absl::Status& status) {
  std::vector<FieldViolation> violations;
  const std::string type_url =
      absl::StrCat("type.googleapis.com/",
                   google::rpc::BadRequest::descriptor()->full_name());
  const auto payload = status.GetPayload(type_url);  // an absl::optional
  if (!payload.has_value()) {
    // The client's own refusals, made before sending, name the field the
    // same way satord's messages do.
    if (std::optional<convert::FieldViolation> own =
            convert::FieldViolationOf(status)) {
      violations.push_back(
          {std::move(own->field), std::move(own->description)});
    }
    return violations;
  }
  google::rpc::BadRequest bad_request;
  if (!bad_request.ParseFromString(std::string(*payload))) return violations;
  for (const google::rpc::BadRequest::FieldViolation& violation :
       bad_request.field_violations()) {
    violations.push_back({violation.field(), violation.description()});
  }
  return violations;
}

}  // namespace sator
