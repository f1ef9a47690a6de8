// Statuses that carry the path of their field (sator/core/field_status.h).
#include "sator/core/field_status.h"

#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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

TEST(FieldStatus, TheFieldTravelsThroughStatusOr) {
  const absl::StatusOr<int> value = PrefixField("a", FieldError("b", "bad"));
  EXPECT_THAT(FieldViolationOf(value.status()), Names("a.b", "bad"));
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
