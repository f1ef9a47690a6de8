#include "server/status_mapping.h"

#include <string>

namespace sator::server {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const int code = static_cast<int>(status.code());
  // Codes 1..16 are shared; anything else (none exists today) is UNKNOWN.
  const grpc::StatusCode grpc_code = code >= 1 && code <= 16
                                         ? static_cast<grpc::StatusCode>(code)
                                         : grpc::StatusCode::UNKNOWN;
  return grpc::Status(grpc_code, std::string(status.message()));
}

}  // namespace sator::server
