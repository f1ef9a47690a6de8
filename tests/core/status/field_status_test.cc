// Statuses that carry the path of their field (sator/core/field_status.h).
#include "sator/core/field_status.h"

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sator {
namespace {

using ::testing::AllOf;
using ::testing::Eq;
using ::testing::Field;
using ::testing::Optional;

auto Names(const char* field, const char* description) {
  return Optional(AllOf(Field(&FieldViolation::field, Eq(field)),
                        Field(&FieldViolation::description, Eq(description))));
}

TEST(FieldStatus, PrefixesBuildThePathAndTheMessage) {
  const absl::Status status = PrefixIndex(
      "bodies", 3,
      PrefixField("shape",
                  PrefixIndex("vertices", 2, FieldError("x", "not finite"))));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "bodies[3].shape.vertices[2].x: not finite");
  EXPECT_THAT(FieldViolationOf(status),
              Names("bodies[3].shape.vertices[2].x", "not finite"));
}

TEST(FieldStatus, AnIndexJoinsWithoutADot) {
  const absl::Status status =
      PrefixField("queries", FieldError("[4].raycast", "zero direction"));
  EXPECT_EQ(status.message(), "queries[4].raycast: zero direction");
  EXPECT_THAT(FieldViolationOf(status),
              Names("queries[4].raycast", "zero direction"));
}

TEST(FieldStatus, KeepsTheCodeAndTheWholeProblem) {
  const absl::Status status = PrefixField(
      "options", FieldError(absl::StatusCode::kOutOfRange, "rewind.tick",
                            "9: is past the history"));
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(FieldViolationOf(status),
              Names("options.rewind.tick", "9: is past the history"));
  // A range names the packed elements of one ray.
  EXPECT_THAT(FieldViolationOf(FieldError("directions[2..3]", "zero length")),
              Names("directions[2..3]", "zero length"));
}

TEST(FieldStatus, AStatusNamingNoFieldComesToNameItsPrefix) {
  const absl::Status status = PrefixIndex(
      "bodies", 1,
      PrefixField("shape", absl::InvalidArgumentError("the mesh is null")));
  EXPECT_EQ(status.message(), "bodies[1].shape: the mesh is null");
  EXPECT_THAT(FieldViolationOf(status),
              Names("bodies[1].shape", "the mesh is null"));
}

TEST(FieldStatus, AnEmptyPathNamesThePrefix) {
  const absl::Status status = PrefixField("a", FieldError("", "bad"));
  EXPECT_EQ(FieldPathOf(status), "a");
}

TEST(FieldStatus, PrefixingKeepsTheOtherPayloads) {
  absl::Status status = FieldError("x", "not finite");
  status.SetPayload("type.example/other", absl::Cord("kept"));
  const absl::Status prefixed = PrefixField("point", status);
  EXPECT_EQ(FieldPathOf(prefixed), "point.x");
  ASSERT_TRUE(prefixed.GetPayload("type.example/other").has_value());
  EXPECT_EQ(std::string(*prefixed.GetPayload("type.example/other")), "kept");
}

TEST(FieldStatus, RenameReplacesThePathInThePayloadAndTheMessage) {
  const absl::Status status = RenameField(
      FieldError(absl::StatusCode::kNotFound, "updates[4].id", "no body 9"),
      "poses.body_ids[4]");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "poses.body_ids[4]: no body 9");
  EXPECT_EQ(FieldPathOf(status), "poses.body_ids[4]");
  // A status naming no field is left as it is.
  const absl::Status plain = absl::InvalidArgumentError("plain");
  EXPECT_EQ(RenameField(plain, "a"), plain);
}

TEST(FieldStatus, TheMessageAloneNamesNoField) {
  // Only the payload names a field: a message that reads like a path does
  // not.
  EXPECT_EQ(FieldViolationOf(absl::InvalidArgumentError("scene_id: too long")),
            std::nullopt);
  EXPECT_EQ(FieldViolationOf(absl::InvalidArgumentError("no field at all")),
            std::nullopt);
}

TEST(FieldStatus, NamesNoFieldForOtherCodes) {
  EXPECT_EQ(FieldViolationOf(FieldError(absl::StatusCode::kNotFound, "scene_id",
                                        "no scene 'a'")),
            std::nullopt);
  EXPECT_EQ(FieldViolationOf(PrefixField(
                "shots", absl::ResourceExhaustedError("at most 5 a call"))),
            std::nullopt);
  EXPECT_EQ(FieldViolationOf(absl::OkStatus()), std::nullopt);
  EXPECT_TRUE(PrefixField("a", absl::OkStatus()).ok());
}

}  // namespace
}  // namespace sator
