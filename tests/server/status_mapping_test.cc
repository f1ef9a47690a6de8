#include "server/status_mapping.h"

#include <string>
#include <utility>
#include <vector>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "grpcpp/support/error_details.h"
#include "gtest/gtest.h"
#include "sator/core/field_status.h"

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

// The field violations of a google.rpc.Status's one BadRequest detail.
std::vector<std::pair<std::string, std::string>> ViolationsOf(
    const google::rpc::Status& status) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const google::protobuf::Any& detail : status.details()) {
    google::rpc::BadRequest bad_request;
    EXPECT_TRUE(detail.UnpackTo(&bad_request)) << detail.type_url();
    for (const auto& violation : bad_request.field_violations()) {
      out.emplace_back(violation.field(), violation.description());
    }
  }
  return out;
}

TEST(ToGrpcStatus, AnInvalidFieldComesAsABadRequestInTheStatusDetails) {
  const grpc::Status mapped = ToGrpcStatus(
      FieldError("bodies[3].shape.box3d", "half extent y is 1e-07"));
  EXPECT_EQ(mapped.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(mapped.error_message(),
            "bodies[3].shape.box3d: half extent y is 1e-07");
  google::rpc::Status details;
  ASSERT_TRUE(grpc::ExtractErrorDetails(mapped, &details).ok());
  EXPECT_EQ(details.code(), 3);
  EXPECT_EQ(details.message(), mapped.error_message());
  EXPECT_EQ(ViolationsOf(details),
            (std::vector<std::pair<std::string, std::string>>{
                {"bodies[3].shape.box3d", "half extent y is 1e-07"}}));
}

TEST(ToGrpcStatus, OtherErrorsCarryNoDetails) {
  EXPECT_TRUE(ToGrpcStatus(FieldError(absl::StatusCode::kNotFound, "scene_id",
                                      "no scene 'x'"))
                  .error_details()
                  .empty());
  EXPECT_TRUE(ToGrpcStatus(absl::InvalidArgumentError("no field named here"))
                  .error_details()
                  .empty());
  // The field comes from the status, not from reading its message.
  EXPECT_TRUE(ToGrpcStatus(absl::InvalidArgumentError("scene_id: too long"))
                  .error_details()
                  .empty());
}

TEST(ToWireStatus, KeepsTheCodeTheMessageAndTheFieldsBadRequest) {
  sator::v1::Status wire;
  ToWireStatus(FieldError(absl::StatusCode::kOutOfRange, "options.rewind.tick",
                          "9 is past it"),
               &wire);
  EXPECT_EQ(wire.code(), 11);
  EXPECT_EQ(wire.message(), "options.rewind.tick: 9 is past it");
  // The same bytes read as a google.rpc.Status.
  google::rpc::Status as_rpc;
  ASSERT_TRUE(as_rpc.ParseFromString(wire.SerializeAsString()));
  EXPECT_EQ(as_rpc.code(), 11);
  EXPECT_EQ(ViolationsOf(as_rpc),
            (std::vector<std::pair<std::string, std::string>>{
                {"options.rewind.tick", "9 is past it"}}));
  ToWireStatus(absl::Status(static_cast<absl::StatusCode>(17), "odd"), &wire);
  EXPECT_EQ(wire.code(), 2) << "UNKNOWN, as on a call";
  // Reused for an OK status: no details left over.
  ToWireStatus(absl::OkStatus(), &wire);
  EXPECT_EQ(wire.code(), 0);
  EXPECT_TRUE(wire.message().empty());
  EXPECT_EQ(wire.details_size(), 0);
}

}  // namespace
}  // namespace sator::server
