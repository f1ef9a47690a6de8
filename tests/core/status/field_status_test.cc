// Field paths read back from error messages (proto/convert/field_path.h).
#include "proto/convert/field_path.h"

#include <optional>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sator::convert {
namespace {

using ::testing::AllOf;
using ::testing::Eq;
using ::testing::Field;
using ::testing::Optional;

auto Names(const char* field, const char* description) {
  return Optional(AllOf(Field(&FieldViolation::field, Eq(field)),
                        Field(&FieldViolation::description, Eq(description))));
}

TEST(FieldViolationOf, ReadsThePathThePrefixesBuilt) {
  const absl::Status status = PrefixIndex(
      "bodies", 3,
      PrefixField("shape",
                  PrefixIndex("vertices", 2, FieldError("x", "not finite"))));
  EXPECT_EQ(status.message(), "bodies[3].shape.vertices[2].x: not finite");
  EXPECT_THAT(FieldViolationOf(status),
              Names("bodies[3].shape.vertices[2].x", "not finite"));
}

TEST(FieldViolationOf, KeepsTheWholeProblemAfterTheFirstSeparator) {
  EXPECT_THAT(FieldViolationOf(absl::InvalidArgumentError(
                  "scene_id: must be 1 to 128 characters: got 0")),
              Names("scene_id", "must be 1 to 128 characters: got 0"));
  EXPECT_THAT(FieldViolationOf(absl::OutOfRangeError(
                  "options.rewind.tick: 9 is past the history")),
              Names("options.rewind.tick", "9 is past the history"));
  EXPECT_THAT(FieldViolationOf(absl::InvalidArgumentError(
                  "queries[10][2].box3d: half extent y is 1e-07")),
              Names("queries[10][2].box3d", "half extent y is 1e-07"));
  // A range names the packed elements of one ray.
  EXPECT_THAT(FieldViolationOf(
                  absl::InvalidArgumentError("directions[2..3]: zero length")),
              Names("directions[2..3]", "zero length"));
}

TEST(FieldViolationOf, NamesNoFieldForOtherCodes) {
  EXPECT_EQ(FieldViolationOf(absl::NotFoundError("scene_id: no scene 'a'")),
            std::nullopt);
  EXPECT_EQ(FieldViolationOf(absl::ResourceExhaustedError(
                "shots: at most 5 shots per call")),
            std::nullopt);
  EXPECT_EQ(FieldViolationOf(absl::OkStatus()), std::nullopt);
}

TEST(FieldViolationOf, NamesNoFieldForAMessageThatIsNotAPath) {
  for (const char* message :
       {"the mesh pointer is null", "satord is overloaded: retry", ": no path",
        "Box3D: capital letters", "2d: starts with a digit", "a..b: empty name",
        "a.: trailing dot", "a[: open index", "a[]: empty index",
        "a[x]: letter index", "a[1]b: name after index", "a[1..]: open range",
        "a[1.2]: one dot", "a b: space", "no separator at all",
        "a:no space after the colon"}) {
    EXPECT_EQ(FieldViolationOf(absl::InvalidArgumentError(message)),
              std::nullopt)
        << message;
  }
}

}  // namespace
}  // namespace sator::convert
