// ShapeOps::InsideRadius and its byte in the body record (internal headers
// of the scene library): the ball they describe about the shape's origin
// lies inside the shape, and it is not much smaller than the largest such
// ball. The proximity pass counts a pair as overlapping from this ball
// without the narrow phase, so a ball too large would report false hits.
#include <algorithm>
#include <cmath>
#include <memory>

#include "core/scene/scene_test_util.h"
#include "gtest/gtest.h"
#include "scene/shape_ops.h"
#include "scene/snapshot_data.h"

namespace sator::scene::internal {
namespace {

using testing_util::Rng;

// The ball the record keeps: the byte times the bound radius / 256.
double RecordedRadius(float inside, float bound) {
  return static_cast<double>(bound) * InsideFraction(inside, bound) / 256;
}

TEST(ShapeInsideRadiusTest, CirclesAndBoxesHoldTheirBallAndNoMore) {
  Rng rng(31);
  for (int i = 0; i < 2000; ++i) {
    const float a = rng.Uniform(1e-3f, 50.0f);
    const float b = rng.Uniform(1e-3f, 50.0f);
    const float c = rng.Uniform(1e-3f, 50.0f);
    // The largest ball about the origin each shape holds.
    const struct {
      float inside;
      float bound;
      double largest;
    } cases[] = {
        {ShapeOps<2>::InsideRadius(Shape2(Circle{a})),
         ShapeOps<2>::BoundRadius(Shape2(Circle{a})), a},
        {ShapeOps<2>::InsideRadius(Shape2(Box2{{a, b}})),
         ShapeOps<2>::BoundRadius(Shape2(Box2{{a, b}})), std::min(a, b)},
        {ShapeOps<3>::InsideRadius(Shape3(Sphere{a})),
         ShapeOps<3>::BoundRadius(Shape3(Sphere{a})), a},
        {ShapeOps<3>::InsideRadius(Shape3(Box3{{a, b, c}})),
         ShapeOps<3>::BoundRadius(Shape3(Box3{{a, b, c}})),
         std::min({a, b, c})},
    };
    for (const auto& shape : cases) {
      ASSERT_LE(shape.inside, shape.largest);
      ASSERT_GE(shape.inside, shape.largest * (1.0 - 1e-4));
      const double recorded = RecordedRadius(shape.inside, shape.bound);
      ASSERT_LE(recorded, shape.inside);
      ASSERT_GE(recorded, shape.inside - shape.bound / 256.0 * 1.0001);
    }
  }
}

TEST(ShapeInsideRadiusTest, ShapesWithoutAKnownBallRecordNone) {
  const Shape2 capsule(Capsule2{{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.5f});
  const Shape2 segment(Segment2{{-1.0f, 0.0f}, {1.0f, 0.0f}});
  EXPECT_EQ(ShapeOps<2>::InsideRadius(capsule), 0.0f);
  EXPECT_EQ(ShapeOps<2>::InsideRadius(segment), 0.0f);
  const Shape3 capsule3(
      Capsule3{{0.0f, -1.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, 0.5f});
  EXPECT_EQ(ShapeOps<3>::InsideRadius(capsule3), 0.0f);
  EXPECT_EQ(InsideFraction(0.0f, 2.0f), 0);
  EXPECT_EQ(InsideFraction(1.0f, 0.0f), 0);
}

}  // namespace
}  // namespace sator::scene::internal
