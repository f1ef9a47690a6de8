#include "status_conversion.h"

namespace sator::client_internal {

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  const int code = static_cast<int>(status.error_code());
  const absl::StatusCode absl_code = code >= 1 && code <= 16
                                         ? static_cast<absl::StatusCode>(code)
                                         : absl::StatusCode::kUnknown;
  return absl::Status(absl_code, status.error_message());
}

}  // namespace sator::client_internal
