#include "server/status_mapping.h"

#include <optional>
#include <string>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "grpcpp/support/error_details.h"
#include "sator/core/field_status.h"

namespace sator::server {
namespace {

// The BadRequest naming the field `status` names, if it names one.
std::optional<google::rpc::BadRequest> BadRequestOf(
    const absl::Status& status) {
  std::optional<FieldViolation> violation = FieldViolationOf(status);
  if (!violation.has_value()) return std::nullopt;
  google::rpc::BadRequest bad_request;
  google::rpc::BadRequest::FieldViolation* field =
      bad_request.add_field_violations();
  field->set_field(std::move(violation->field));
  field->set_description(std::move(violation->description));
  return bad_request;
}

// Codes 0..16 are shared; anything else is UNKNOWN.
grpc::StatusCode CodeOf(const absl::Status& status) {
  const int code = static_cast<int>(status.code());
  return code >= 0 && code <= 16 ? static_cast<grpc::StatusCode>(code)
                                 : grpc::StatusCode::UNKNOWN;
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const grpc::StatusCode grpc_code = CodeOf(status);
  std::optional<google::rpc::BadRequest> bad_request = BadRequestOf(status);
  if (!bad_request.has_value()) {
    return grpc::Status(grpc_code, std::string(status.message()));
  }
  google::rpc::Status details;
  details.set_code(static_cast<int>(grpc_code));
  details.set_message(std::string(status.message()));
  details.add_details()->PackFrom(*bad_request);
  grpc::Status out;
  // SetErrorDetails fails only for a null output.
  (void)grpc::SetErrorDetails(details, &out);
  return out;
}

void ToWireStatus(const absl::Status& status, sator::v1::Status* out) {
  out->set_code(static_cast<int>(CodeOf(status)));
  out->set_message(std::string(status.message()));
  out->clear_details();
  if (std::optional<google::rpc::BadRequest> bad_request =
          BadRequestOf(status)) {
    out->add_details()->PackFrom(*bad_request);
  }
}

}  // namespace sator::server
