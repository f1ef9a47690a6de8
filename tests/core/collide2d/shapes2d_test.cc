// Validation of the 2D shapes: the polygon factory and ValidateShape.
#include "sator/core/collide2d/shapes2d.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sator {
namespace {

using ::testing::HasSubstr;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

void ExpectInvalid(const absl::Status& status, const char* needle) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr(needle));
}

TEST(MakeConvexPolygon, AcceptsCounterClockwiseSquare) {
  const std::vector<Vec2> pts = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  absl::StatusOr<ConvexPolygon> poly = MakeConvexPolygon(pts);
  ASSERT_TRUE(poly.ok()) << poly.status();
  ASSERT_EQ(poly->count(), 4);
  EXPECT_EQ(poly->vertex(0), (Vec2{-1, -1}));
  // Edge 0 runs (-1,-1) -> (1,-1): outward normal (0,-1).
  EXPECT_FLOAT_EQ(poly->normal(0).x, 0.0f);
  EXPECT_FLOAT_EQ(poly->normal(0).y, -1.0f);
  EXPECT_FLOAT_EQ(poly->normal(1).x, 1.0f);
  EXPECT_FLOAT_EQ(poly->centroid().x, 0.0f);
  EXPECT_FLOAT_EQ(poly->centroid().y, 0.0f);
  EXPECT_FLOAT_EQ(poly->extent(), 2.0f);
}

TEST(MakeConvexPolygon, NormalisesClockwiseInput) {
  const std::vector<Vec2> pts = {{0, 0}, {0, 3}, {3, 0}};  // Clockwise.
  absl::StatusOr<ConvexPolygon> poly = MakeConvexPolygon(pts);
  ASSERT_TRUE(poly.ok()) << poly.status();
  // Counter-clockwise: every turn is to the left.
  for (int i = 0; i < 3; ++i) {
    const Vec2 e0 = poly->vertex((i + 1) % 3) - poly->vertex(i);
    const Vec2 e1 = poly->vertex((i + 2) % 3) - poly->vertex((i + 1) % 3);
    EXPECT_GT(Cross(e0, e1), 0.0f);
  }
  // Triangle centroid: the mean of the vertices, (1, 1).
  EXPECT_NEAR(poly->centroid().x, 1.0f, 1e-6f);
  EXPECT_NEAR(poly->centroid().y, 1.0f, 1e-6f);
  // Normals are unit and outward: the centroid is behind every edge.
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(Length(poly->normal(i)), 1.0f, 1e-6f);
    EXPECT_LT(Dot(poly->normal(i), poly->centroid() - poly->vertex(i)), 0.0f);
  }
}

// The vertices come back bit for bit (reordered only), so a polygon sent
// back to a client converts to the same polygon again: with the clockwise
// input below reversed, rebuilding the vertex (256, 0.2) relative to
// (0, -32768) would bring it back as (256, 0.19921875).
TEST(MakeConvexPolygon, KeepsGivenVerticesExactlyAndIsIdempotent) {
  const std::vector<Vec2> pts = {{0, 0}, {256, 0.2f}, {5.4e-20f, -32768}};
  absl::StatusOr<ConvexPolygon> once = MakeConvexPolygon(pts);
  ASSERT_TRUE(once.ok()) << once.status();
  ASSERT_EQ(once->count(), 3);
  std::vector<Vec2> echoed;
  for (int i = 0; i < once->count(); ++i) {
    echoed.push_back(once->vertex(i));
    EXPECT_EQ(once->vertex(i), pts[static_cast<size_t>(2 - i)]) << i;
  }
  absl::StatusOr<ConvexPolygon> again = MakeConvexPolygon(echoed);
  ASSERT_TRUE(again.ok()) << again.status();
  for (int i = 0; i < once->count(); ++i) {
    EXPECT_EQ(again->vertex(i), once->vertex(i)) << i;
    EXPECT_EQ(again->normal(i), once->normal(i)) << i;
  }
}

TEST(MakeConvexPolygon, KeepsSixteenVerticesInline) {
  std::vector<Vec2> pts;
  for (int i = 0; i < kMaxPolygonVertices; ++i) {
    const float a = 2.0f * 3.14159265f * static_cast<float>(i) / 16.0f;
    pts.push_back({std::cos(a), std::sin(a)});
  }
  absl::StatusOr<ConvexPolygon> poly = MakeConvexPolygon(pts);
  ASSERT_TRUE(poly.ok()) << poly.status();
  EXPECT_EQ(poly->count(), 16);
  static_assert(sizeof(ConvexPolygon) <= 288);
}

TEST(MakeConvexPolygon, RefusesBadCounts) {
  ExpectInvalid(MakeConvexPolygon(std::vector<Vec2>{{0, 0}, {1, 0}}).status(),
                "at least 3");
  std::vector<Vec2> many;
  for (int i = 0; i < 17; ++i) {
    const float a = 2.0f * 3.14159265f * static_cast<float>(i) / 17.0f;
    many.push_back({std::cos(a), std::sin(a)});
  }
  ExpectInvalid(MakeConvexPolygon(many).status(), "more than the limit");
}

TEST(MakeConvexPolygon, RefusesNonFinite) {
  ExpectInvalid(
      MakeConvexPolygon(std::vector<Vec2>{{0, 0}, {1, kNaN}, {0, 1}}).status(),
      "vertex 1");
  ExpectInvalid(
      MakeConvexPolygon(std::vector<Vec2>{{0, 0}, {1, 0}, {kInf, 1}}).status(),
      "vertex 2");
  ExpectInvalid(
      MakeConvexPolygon(std::vector<Vec2>{{0, 0}, {1, 0}, {0, 2e6f}}).status(),
      "out-of-range");
}

TEST(MakeConvexPolygon, RefusesRepeatedPoints) {
  ExpectInvalid(
      MakeConvexPolygon(std::vector<Vec2>{{0, 0}, {1, 0}, {1, 0}, {0, 1}})
          .status(),
      "repeated");
}

TEST(MakeConvexPolygon, RefusesCollinearAndZeroArea) {
  ExpectInvalid(
      MakeConvexPolygon(std::vector<Vec2>{{0, 0}, {1, 1}, {2, 2}}).status(),
      "zero area");
  // A square with a vertex in the middle of an edge: not strictly convex.
  ExpectInvalid(MakeConvexPolygon(
                    std::vector<Vec2>{{0, 0}, {1, 0}, {2, 0}, {2, 2}, {0, 2}})
                    .status(),
                "not strictly convex");
}

TEST(MakeConvexPolygon, RefusesNonConvex) {
  // An arrow head: reflex vertex at (1, 1).
  ExpectInvalid(MakeConvexPolygon(
                    std::vector<Vec2>{{0, 0}, {2, 0}, {2, 2}, {1, 1}, {0, 2}})
                    .status(),
                "not strictly convex");
}

TEST(MakeConvexPolygon, RefusesSelfIntersectingStar) {
  // A pentagram: every turn is to the left but it winds twice.
  std::vector<Vec2> star;
  for (int i = 0; i < 5; ++i) {
    const float a = 2.0f * 3.14159265f * static_cast<float>(2 * i) / 5.0f;
    star.push_back({std::cos(a), std::sin(a)});
  }
  ExpectInvalid(MakeConvexPolygon(star).status(), "self-intersecting");
}

TEST(ValidateShape, AcceptsGoodShapes) {
  EXPECT_TRUE(ValidateShape(Circle{1.0f}).ok());
  EXPECT_TRUE(ValidateShape(Box2{{1.0f, 2.0f}}).ok());
  EXPECT_TRUE(ValidateShape(Capsule2{{0, 0}, {1, 0}, 0.5f}).ok());
  EXPECT_TRUE(ValidateShape(Segment2{{0, 0}, {1, 0}}).ok());
  EXPECT_TRUE(ValidateShape(
                  *MakeConvexPolygon(std::vector<Vec2>{{0, 0}, {1, 0}, {0, 1}}))
                  .ok());
}

TEST(ValidateShape, RefusesBadShapes) {
  ExpectInvalid(ValidateShape(Circle{0.0f}), "circle radius");
  ExpectInvalid(ValidateShape(Circle{-1.0f}), "circle radius");
  ExpectInvalid(ValidateShape(Circle{kNaN}), "circle radius");
  ExpectInvalid(ValidateShape(Box2{{1.0f, 0.0f}}), "half extent y");
  ExpectInvalid(ValidateShape(Box2{{kInf, 1.0f}}), "half extent x");
  ExpectInvalid(ValidateShape(Capsule2{{0, 0}, {0, 0}, 1.0f}), "zero-length");
  ExpectInvalid(ValidateShape(Capsule2{{0, 0}, {1, 0}, 0.0f}),
                "capsule radius");
  ExpectInvalid(ValidateShape(Capsule2{{0, kNaN}, {1, 0}, 1.0f}), "capsule");
  ExpectInvalid(ValidateShape(Segment2{{2, 2}, {2, 2}}), "zero-length");
  ExpectInvalid(ValidateShape(Segment2{{kInf, 0}, {1, 0}}), "segment");
}

TEST(ValidatePose, RefusesNonFiniteAndNonUnit) {
  EXPECT_TRUE(ValidatePose(Pose2::FromAngle({1, 2}, 0.3f)).ok());
  ExpectInvalid(ValidatePose(Pose2{{kNaN, 0}, {}}), "position");
  ExpectInvalid(ValidatePose(Pose2{{0, 0}, {kInf, 0}}), "rotation");
  ExpectInvalid(ValidatePose(Pose2{{0, 0}, {2.0f, 0.0f}}), "unit length");
}

// The early-out discs and corner factor of a square of half side 2 centred
// at (1, 1): bounding radius 2 sqrt 2, inscribed radius 2, corner factor
// cos(45 degrees) (each exterior angle is 90 degrees).
TEST(MakeConvexPolygon, EarlyOutDiscsOfASquare) {
  absl::StatusOr<ConvexPolygon> square =
      MakeConvexPolygon(std::vector<Vec2>{{-1, -1}, {3, -1}, {3, 3}, {-1, 3}});
  ASSERT_TRUE(square.ok()) << square.status();
  EXPECT_NEAR(square->centroid().x, 1.0f, 1e-6f);
  EXPECT_NEAR(square->bounding_radius(), 2.0f * std::sqrt(2.0f), 1e-4f);
  EXPECT_GE(square->bounding_radius(), 2.0f * std::sqrt(2.0f));
  EXPECT_NEAR(square->inner_radius(), 2.0f, 1e-4f);
  EXPECT_LE(square->inner_radius(), 2.0f);
  EXPECT_NEAR(square->corner_factor(), std::sqrt(0.5f), 1e-4f);
}

}  // namespace
}  // namespace sator
