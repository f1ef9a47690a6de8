#include "server/status_mapping.h"

#include "gtest/gtest.h"

namespace sator::server {
namespace {

TEST(ToGrpcStatus, OkIsOk) { EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok()); }

TEST(ToGrpcStatus, EachCodeMapsToItsTwinWithTheMessage) {
  for (int code = 1; code <= 16; ++code) {
    const absl::Status status(static_cast<absl::StatusCode>(code), "why");
    const grpc::Status mapped = ToGrpcStatus(status);
    EXPECT_EQ(static_cast<int>(mapped.error_code()), code);
    EXPECT_EQ(mapped.error_message(), "why");
  }
  EXPECT_EQ(ToGrpcStatus(absl::InvalidArgumentError("x")).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ToGrpcStatus(absl::ResourceExhaustedError("x")).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
}

}  // namespace
}  // namespace sator::server
