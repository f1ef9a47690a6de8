#include "sator/client/field_violations.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/rpc/error_details.pb.h"
#include "sator/core/field_status.h"

namespace sator {

std::vector<FieldViolation> FieldViolations(const absl::Status& status) {
  std::vector<FieldViolation> violations;
  const std::string type_url =
      absl::StrCat("type.googleapis.com/",
                   google::rpc::BadRequest::descriptor()->full_name());
  const auto payload = status.GetPayload(type_url);  // an absl::optional
  if (!payload.has_value()) {
    // The client's own refusals, made before sending, name the field the
    // same way satord's messages do.
    if (std::optional<FieldViolation> own = FieldViolationOf(status)) {
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
