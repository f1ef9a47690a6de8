#include "server/status_mapping.h"

#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace sator::server {
namespace {

TEST(ToGrpcStatus, OkIsOk) { EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok()); }

TEST(ToGrpcStatus, EachCodeMapsToItsTwinWithTheMessage) {
  const std::vector<std::pair<absl::StatusCode, grpc::StatusCode>> pairs = {
      {absl::StatusCode::kCancelled, grpc::StatusCode::CANCELLED},
      {absl::StatusCode::kUnknown, grpc::StatusCode::UNKNOWN},
      {absl::StatusCode::kInvalidArgument, grpc::StatusCode::INVALID_ARGUMENT},
      {absl::StatusCode::kDeadlineExceeded,
       grpc::StatusCode::DEADLINE_EXCEEDED},
      {absl::StatusCode::kNotFound, grpc::StatusCode::NOT_FOUND},
      {absl::StatusCode::kAlreadyExists, grpc::StatusCode::ALREADY_EXISTS},
      {absl::StatusCode::kPermissionDenied,
       grpc::StatusCode::PERMISSION_DENIED},
      {absl::StatusCode::kResourceExhausted,
       grpc::StatusCode::RESOURCE_EXHAUSTED},
      {absl::StatusCode::kFailedPrecondition,
       grpc::StatusCode::FAILED_PRECONDITION},
      {absl::StatusCode::kAborted, grpc::StatusCode::ABORTED},
      {absl::StatusCode::kOutOfRange, grpc::StatusCode::OUT_OF_RANGE},
      {absl::StatusCode::kUnimplemented, grpc::StatusCode::UNIMPLEMENTED},
      {absl::StatusCode::kInternal, grpc::StatusCode::INTERNAL},
      {absl::StatusCode::kUnavailable, grpc::StatusCode::UNAVAILABLE},
      {absl::StatusCode::kDataLoss, grpc::StatusCode::DATA_LOSS},
      {absl::StatusCode::kUnauthenticated, grpc::StatusCode::UNAUTHENTICATED},
  };
  for (const auto& [absl_code, grpc_code] : pairs) {
    const grpc::Status mapped = ToGrpcStatus(absl::Status(absl_code, "why"));
    EXPECT_EQ(mapped.error_code(), grpc_code) << static_cast<int>(absl_code);
    EXPECT_EQ(mapped.error_message(), "why");
  }
}

TEST(ToGrpcStatus, ACodeOutsideTheCanonicalRangeBecomesUnknown) {
  const grpc::Status mapped =
      ToGrpcStatus(absl::Status(static_cast<absl::StatusCode>(17), "odd"));
  EXPECT_EQ(mapped.error_code(), grpc::StatusCode::UNKNOWN);
  EXPECT_EQ(mapped.error_message(), "odd");
}

}  // namespace
}  // namespace sator::server
