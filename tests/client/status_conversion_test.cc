#include "status_conversion.h"

#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace sator::client_internal {
namespace {

TEST(FromGrpcStatus, OkIsOk) {
  EXPECT_TRUE(FromGrpcStatus(grpc::Status::OK).ok());
}

TEST(FromGrpcStatus, EveryCanonicalCodeMapsToItsTwinAndKeepsTheMessage) {
  const std::vector<std::pair<grpc::StatusCode, absl::StatusCode>> pairs = {
      {grpc::StatusCode::CANCELLED, absl::StatusCode::kCancelled},
      {grpc::StatusCode::UNKNOWN, absl::StatusCode::kUnknown},
      {grpc::StatusCode::INVALID_ARGUMENT, absl::StatusCode::kInvalidArgument},
      {grpc::StatusCode::DEADLINE_EXCEEDED,
       absl::StatusCode::kDeadlineExceeded},
      {grpc::StatusCode::NOT_FOUND, absl::StatusCode::kNotFound},
      {grpc::StatusCode::ALREADY_EXISTS, absl::StatusCode::kAlreadyExists},
      {grpc::StatusCode::PERMISSION_DENIED,
       absl::StatusCode::kPermissionDenied},
      {grpc::StatusCode::RESOURCE_EXHAUSTED,
       absl::StatusCode::kResourceExhausted},
      {grpc::StatusCode::FAILED_PRECONDITION,
       absl::StatusCode::kFailedPrecondition},
      {grpc::StatusCode::ABORTED, absl::StatusCode::kAborted},
      {grpc::StatusCode::OUT_OF_RANGE, absl::StatusCode::kOutOfRange},
      {grpc::StatusCode::UNIMPLEMENTED, absl::StatusCode::kUnimplemented},
      {grpc::StatusCode::INTERNAL, absl::StatusCode::kInternal},
      {grpc::StatusCode::UNAVAILABLE, absl::StatusCode::kUnavailable},
      {grpc::StatusCode::DATA_LOSS, absl::StatusCode::kDataLoss},
      {grpc::StatusCode::UNAUTHENTICATED, absl::StatusCode::kUnauthenticated},
  };
  ASSERT_EQ(pairs.size(), 16u);
  for (const auto& [grpc_code, absl_code] : pairs) {
    const absl::Status status =
        FromGrpcStatus(grpc::Status(grpc_code, "field x: not finite"));
    EXPECT_EQ(status.code(), absl_code) << static_cast<int>(grpc_code);
    EXPECT_EQ(status.message(), "field x: not finite");
  }
}

TEST(FromGrpcStatus, CodeOutsideTheCanonicalRangeBecomesUnknown) {
  // 20 is within grpc::StatusCode's value range (its enumerators span -1..16,
  // so any value in -32..31 is valid) but is no canonical code.
  const absl::Status status =
      FromGrpcStatus(grpc::Status(static_cast<grpc::StatusCode>(20), "odd"));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(status.message(), "odd");
}

}  // namespace
}  // namespace sator::client_internal
