#include "status_conversion.h"

#include <utility>
#include <vector>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "gtest/gtest.h"
#include "sator/client/field_violations.h"

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

google::rpc::BadRequest NamingField(const std::string& field,
                                    const std::string& description) {
  google::rpc::BadRequest bad_request;
  google::rpc::BadRequest::FieldViolation* violation =
      bad_request.add_field_violations();
  violation->set_field(field);
  violation->set_description(description);
  return bad_request;
}

TEST(FromGrpcStatus, KeepsTheErrorDetailsAsPayloadsByTypeUrl) {
  google::rpc::Status details;
  details.set_code(3);
  details.set_message("a.b[2]: bad");
  details.add_details()->PackFrom(NamingField("a.b[2]", "bad"));
  const absl::Status status =
      FromGrpcStatus(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                  "a.b[2]: bad", details.SerializeAsString()));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "a.b[2]: bad");
  EXPECT_TRUE(status.GetPayload("type.googleapis.com/google.rpc.BadRequest")
                  .has_value());
  const std::vector<FieldViolation> violations = FieldViolations(status);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].field, "a.b[2]");
  EXPECT_EQ(violations[0].description, "bad");
}

TEST(FromGrpcStatus, DetailsThatDoNotParseAreDropped) {
  const absl::Status status = FromGrpcStatus(
      grpc::Status(grpc::StatusCode::NOT_FOUND, "gone", "\xff\xff\xff"));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "gone");
  EXPECT_TRUE(FieldViolations(status).empty());
}

TEST(FromWireStatus, KeepsCodeMessageAndDetails) {
  sator::v1::Status wire;
  EXPECT_TRUE(FromWireStatus(wire).ok());
  wire.set_code(11);
  wire.set_message("options.rewind.tick: 9 is past the history");
  wire.add_details()->PackFrom(
      NamingField("options.rewind.tick", "9 is past the history"));
  const absl::Status status = FromWireStatus(wire);
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(status.message(), wire.message());
  const std::vector<FieldViolation> violations = FieldViolations(status);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].field, "options.rewind.tick");
  wire.set_code(99);
  EXPECT_EQ(FromWireStatus(wire).code(), absl::StatusCode::kUnknown);
}

TEST(FieldViolations, ReadsTheFieldOfTheClientsOwnRefusals) {
  const std::vector<FieldViolation> violations = FieldViolations(
      FieldError("rays[1].origin", "a 3D vector among 2D rays"));
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].field, "rays[1].origin");
  EXPECT_EQ(violations[0].description, "a 3D vector among 2D rays");
  EXPECT_TRUE(FieldViolations(absl::UnavailableError("x: down")).empty());
  EXPECT_TRUE(
      FieldViolations(absl::InvalidArgumentError("x: not a field")).empty());
}

}  // namespace
}  // namespace sator::client_internal
