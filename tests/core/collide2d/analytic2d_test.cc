// Analytic cases for every pair of 2D shape kinds, with expected values
// derived by hand from the geometry (see the comment of each case).
//
// The "unit" shapes below are all symmetric about the x axis and reach
// exactly w along +x and -x from their centre:
//   circle r = 1 (w = 1), box 1 x 1 half extents (w = 1), the square
//   [-1, 1]^2 as a polygon (w = 1), a vertical capsule (0,-0.5)-(0,0.5)
//   r = 1 (w = 1, a flat side of half length 0.5), a vertical segment
//   (0,-1)-(0,1) (w = 0, flat of half length 1).
// With A at the origin and B at (wA + wB + gap, 0), the shapes are `gap`
// apart along x: for gap > 0 the exact distance is gap (both extreme
// points lie on the x axis), for small gap < 0 the MTV is (1, 0) with depth
// -gap (every other direction needs at least 0.75), and contact points lie
// midway, on x = wA + gap / 2. Where both sides are flat there are two
// points at y = +-min(flat half lengths). Everything is then scaled by s
// and offset, to check tiny, huge and far-away shapes.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "test_shapes2d.h"

namespace sator {
namespace {

using test2d::KindName;

struct UnitShape {
  Shape2 shape;
  float w;          // Reach along +-x.
  float flat_half;  // Half length of the flat side facing +-x, 0 if round.
};

ConvexPolygon Square(float h) {
  return *MakeConvexPolygon(
      std::vector<Vec2>{{-h, -h}, {h, -h}, {h, h}, {-h, h}});
}

UnitShape MakeUnit(int kind, float s) {
  switch (kind) {
    case 0:
      return {Circle{s}, s, 0.0f};
    case 1:
      return {Box2{{s, s}}, s, s};
    case 2:
      return {Square(s), s, s};
    case 3:
      return {Capsule2{{0, -0.5f * s}, {0, 0.5f * s}, s}, s, 0.5f * s};
    default:
      return {Segment2{{0, -s}, {0, s}}, 0.0f, s};
  }
}

struct Frame {
  float scale;
  Vec2 offset;
};

const Frame kFrames[] = {
    {1.0f, {0, 0}},         {1e-3f, {0, 0}},        {1e3f, {0, 0}},
    {1.0f, {10000, 10000}}, {1.0f, {-10000, 9000}}, {4.0f, {10000, -10000}},
};

// Allowed error on a length: round-off relative to the problem size, plus
// the float spacing of the world coordinates.
float LengthSlack(const Frame& f) {
  return 1e-5f * f.scale +
         4e-7f * (std::fabs(f.offset.x) + std::fabs(f.offset.y));
}

class PairCase : public ::testing::Test {
 protected:
  void Check(int ka, int kb, const Frame& f, float gap) {
    const UnitShape a = MakeUnit(ka, f.scale);
    const UnitShape b = MakeUnit(kb, f.scale);
    const float g = gap * f.scale;
    const Pose2 pa{f.offset, {}};
    const Pose2 pb{f.offset + Vec2{a.w + b.w + g, 0.0f}, {}};
    const float slack = LengthSlack(f);
    SCOPED_TRACE(absl::StrFormat("%s vs %s, scale %g, offset (%g, %g), gap %g",
                                 KindName(ka), KindName(kb), f.scale,
                                 f.offset.x, f.offset.y, gap));
    const bool seg_seg = ka == 4 && kb == 4;
    const bool expect_overlap = gap <= 0.0f;
    EXPECT_EQ(Overlap(a.shape, pa, b.shape, pb), expect_overlap);
    EXPECT_EQ(Overlap(b.shape, pb, a.shape, pa), expect_overlap);
    const ContactResult<2> c = Contact(a.shape, pa, b.shape, pb);
    EXPECT_EQ(c.overlapping, expect_overlap);
    EXPECT_NEAR(c.depth, -g, slack);
    if (!seg_seg || gap > 0.0f) {
      EXPECT_NEAR(c.normal.x, 1.0f, 1e-5f);
      EXPECT_NEAR(c.normal.y, 0.0f, 1e-5f);
    }
    if (!expect_overlap) {
      EXPECT_EQ(c.point_count, 0);
      return;
    }
    if (seg_seg) return;
    const bool flat = a.flat_half > 0.0f && b.flat_half > 0.0f;
    ASSERT_EQ(c.point_count, flat ? 2 : 1);
    const float x = f.offset.x + a.w + 0.5f * g;
    const float y = flat ? std::min(a.flat_half, b.flat_half) : 0.0f;
    for (int i = 0; i < c.point_count; ++i) {
      EXPECT_NEAR(c.points[i].x, x, slack);
      EXPECT_NEAR(std::fabs(c.points[i].y - f.offset.y), y, slack);
    }
    if (flat) {
      EXPECT_GT(std::fabs(c.points[0].y - c.points[1].y), y);
    }
  }
};

TEST_F(PairCase, SeparatedTouchingAndOverlappingForEveryPair) {
  for (const Frame& f : kFrames) {
    for (int ka = 0; ka < test2d::kKindCount; ++ka) {
      for (int kb = 0; kb < test2d::kKindCount; ++kb) {
        Check(ka, kb, f, 0.5f);
        Check(ka, kb, f, 0.0f);
        if (!(ka == 4 && kb == 4)) Check(ka, kb, f, -0.0625f);
      }
    }
  }
}

// A 45-degree box (or square polygon) touching with its corner: the corner
// reaches sqrt(2) from its centre. MTV (1, 0), depth -gap, one point.
TEST(CornerOnEdge, EveryShapeAgainstARotatedBoxAndSquare) {
  const float kRoot2 = std::sqrt(2.0f);
  for (const Frame& f : kFrames) {
    for (int ka = 0; ka < test2d::kKindCount; ++ka) {
      for (const Shape2& b :
           {Shape2{Box2{{f.scale, f.scale}}}, Shape2{Square(f.scale)}}) {
        for (float gap : {0.25f, 0.0f, -0.0625f}) {
          const UnitShape a = MakeUnit(ka, f.scale);
          const float g = gap * f.scale;
          const Pose2 pa{f.offset, {}};
          const Pose2 pb = Pose2::FromAngle(
              f.offset + Vec2{a.w + kRoot2 * f.scale + g, 0.0f}, 0.785398163f);
          SCOPED_TRACE(absl::StrFormat(
              "%s vs rotated %d, scale %g, gap %g", KindName(ka),
              static_cast<int>(b.index()), f.scale, gap));
          const float slack = LengthSlack(f) + 1e-6f * f.scale;
          // Far from the origin the centre distance is rounded to the
          // float grid (about 1e-3 at 10,000): use the gap actually
          // represented, and skip exact touching, which cannot be posed.
          const double actual_gap =
              (static_cast<double>(pb.position.x) - pa.position.x) - a.w -
              static_cast<double>(kRoot2) * f.scale;
          if (gap == 0.0f && f.offset.x != 0.0f) continue;
          const ContactResult<2> c = Contact(a.shape, pa, b, pb);
          EXPECT_EQ(c.overlapping, gap <= 0.0f);
          EXPECT_EQ(Overlap(a.shape, pa, b, pb), gap <= 0.0f);
          EXPECT_NEAR(c.depth, -actual_gap, slack);
          EXPECT_NEAR(c.normal.x, 1.0f, 1e-5f);
          if (gap <= 0.0f) {
            ASSERT_EQ(c.point_count, 1);
            EXPECT_NEAR(c.points[0].x, f.offset.x + a.w + 0.5f * g, slack);
            EXPECT_NEAR(c.points[0].y, f.offset.y, slack);
          }
        }
      }
    }
  }
}

// Containment: A is a 2 x 2 half-extent box (or the same square polygon);
// B sits inside at (1, 0.3) reaching 0.5 left of its centre (and 0.25 or
// 0.5 up). The cheapest way out is through the right face: depth
// 2 - (1 - 0.5) = 1.5, normal (1, 0) (the top face would need 1.95).
TEST(Containment, SmallShapesInsideABigBox) {
  const std::vector<Shape2> inner = {Circle{0.5f}, Box2{{0.5f, 0.25f}},
                                     Square(0.5f),
                                     Capsule2{{-0.25f, 0}, {0.25f, 0}, 0.25f},
                                     Segment2{{-0.5f, 0}, {0.5f, 0}}};
  for (const Shape2& a : {Shape2{Box2{{2, 2}}}, Shape2{Square(2.0f)}}) {
    for (const Shape2& b : inner) {
      const Pose2 pa{{10, 20}, {}};
      const Pose2 pb{{11, 20.3f}, {}};
      SCOPED_TRACE(
          absl::StrFormat("inner kind %d", static_cast<int>(b.index())));
      const ContactResult<2> c = Contact(a, pa, b, pb);
      EXPECT_TRUE(c.overlapping);
      EXPECT_NEAR(c.depth, 1.5f, 1e-5f);
      EXPECT_NEAR(c.normal.x, 1.0f, 1e-6f);
      EXPECT_NEAR(c.normal.y, 0.0f, 1e-6f);
      // Seen from B, the MTV is the opposite one.
      const ContactResult<2> r = Contact(b, pb, a, pa);
      EXPECT_NEAR(r.depth, 1.5f, 1e-5f);
      EXPECT_NEAR(r.normal.x, -1.0f, 1e-6f);
    }
  }
  // Circle in circle: centre offset c = (1, 0.3), |c| = sqrt(1.09); the way
  // out is along c, depth 2 - |c| + 0.5.
  const ContactResult<2> c =
      Contact(Circle{2}, Pose2{}, Circle{0.5f}, Pose2{{1, 0.3f}, {}});
  const float len = std::sqrt(1.09f);
  EXPECT_NEAR(c.depth, 2.5f - len, 1e-6f);
  EXPECT_NEAR(c.normal.x, 1.0f / len, 1e-6f);
  EXPECT_NEAR(c.normal.y, 0.3f / len, 1e-6f);
}

// Parallel edges, offset sideways: two unit boxes, B at (2 + gap, 1.5):
// the edges overlap on y in [0.5, 1], so the two points are at y = 0.5 and
// y = 1.
TEST(ParallelEdges, PartialOverlapClipsToTheSharedSpan) {
  const ContactResult<2> c =
      Contact(Box2{{1, 1}}, Pose2{}, Box2{{1, 1}}, Pose2{{1.9f, 1.5f}, {}});
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.1f, 1e-6f);
  ASSERT_EQ(c.point_count, 2);
  EXPECT_NEAR(std::min(c.points[0].y, c.points[1].y), 0.5f, 1e-6f);
  EXPECT_NEAR(std::max(c.points[0].y, c.points[1].y), 1.0f, 1e-6f);
  EXPECT_NEAR(c.points[0].x, 0.95f, 1e-6f);
}

// Capsule against capsule, crossing at right angles at their centres: the
// cores intersect; the MTV pushes along a core normal by the full
// radius sum plus the core overlap: cores (-1,0)-(1,0) and (0,-1)-(0,1),
// radii 0.25 each; along x B's core must move 1 past A's... the cheapest
// is along A's core normal (y): B's core spans y in [-1, 1], so 1 + 0.5;
// and along B's normal (x) the same 1.5.
TEST(CrossingCores, CapsulesThroughEachOther) {
  const ContactResult<2> c =
      Contact(Capsule2{{-1, 0}, {1, 0}, 0.25f}, Pose2{},
              Capsule2{{0, -1}, {0, 1}, 0.25f}, Pose2{{0.2f, 0}, {}});
  ASSERT_TRUE(c.overlapping);
  // Along x: B's core (x = 0.2) must clear A's core end (x = 1): 0.8 + 0.5.
  EXPECT_NEAR(c.depth, 1.3f, 1e-6f);
  EXPECT_NEAR(c.normal.x, 1.0f, 1e-6f);
}

// Ray casts: from (-5, 0) along +x the first hit is at x = -w, distance
// 5 - w, normal (-1, 0).
TEST(RayCast, HitsMissesAndStartsInside) {
  for (const Frame& f : kFrames) {
    for (int k = 0; k < test2d::kKindCount; ++k) {
      const UnitShape u = MakeUnit(k, f.scale);
      const Pose2 pose{f.offset, {}};
      const float slack = LengthSlack(f);
      SCOPED_TRACE(absl::StrFormat("%s scale %g", KindName(k), f.scale));
      Ray<2> ray{f.offset + Vec2{-5 * f.scale, 0}, {1, 0}, 10 * f.scale};
      RayResult<2> r = RayCast(u.shape, pose, ray);
      ASSERT_TRUE(r.hit);
      EXPECT_FALSE(r.started_inside);
      EXPECT_NEAR(r.distance, 5 * f.scale - u.w, slack);
      EXPECT_NEAR(r.point.x, f.offset.x - u.w, slack);
      EXPECT_NEAR(r.normal.x, -1.0f, 1e-6f);
      // Too short.
      ray.max_distance = 3 * f.scale;
      EXPECT_FALSE(RayCast(u.shape, pose, ray).hit);
      // Passing above (every unit shape is below y = 1.5 s).
      ray = {f.offset + Vec2{-5 * f.scale, 3 * f.scale}, {1, 0}, 10 * f.scale};
      EXPECT_FALSE(RayCast(u.shape, pose, ray).hit);
      // Rotated: the same ray against the shape turned a quarter turn hits
      // the side that was facing -y: reach along x of the turned shape.
      if (k != 4) {
        ray = {
            f.offset + Vec2{0.1f * f.scale, 0.05f * f.scale}, {0, 1}, f.scale};
        r = RayCast(u.shape, pose, ray);
        EXPECT_TRUE(r.hit);
        EXPECT_TRUE(r.started_inside);
        EXPECT_EQ(r.distance, 0.0f);
      }
    }
  }
}

// A ray may be as long as any finite float: the casts compare candidate
// distances against max_distance without forming max_distance * x (which
// overflowed for circles and capsules, FE_OVERFLOW traps here). The same
// cases as above, with max_distance FLT_MAX and 1e30 and the shapes turned
// (an edge normal dotted with the direction can round to just above 1).
TEST(RayCast, HugeMaxDistanceRaisesNoException) {
  for (const float max_distance : {std::numeric_limits<float>::max(), 1e30f}) {
    for (const Frame& f : kFrames) {
      for (int k = 0; k < test2d::kKindCount; ++k) {
        const UnitShape u = MakeUnit(k, f.scale);
        SCOPED_TRACE(absl::StrFormat("%s scale %g max %g", KindName(k), f.scale,
                                     max_distance));
        const float slack = LengthSlack(f);
        const Ray<2> ray{
            f.offset + Vec2{-5 * f.scale, 0}, {1, 0}, max_distance};
        const RayResult<2> r = RayCast(u.shape, Pose2{f.offset, {}}, ray);
        ASSERT_TRUE(r.hit);
        EXPECT_NEAR(r.distance, 5 * f.scale - u.w, slack);
        EXPECT_NEAR(r.normal.x, -1.0f, 1e-6f);
        // Turned by a little: the hit moves by less than the reach.
        const RayResult<2> turned =
            RayCast(u.shape, Pose2::FromAngle(f.offset, 0.1f), ray);
        ASSERT_TRUE(turned.hit);
        EXPECT_NEAR(turned.distance, 5 * f.scale - u.w, 0.2f * f.scale);
        // Passing above.
        EXPECT_FALSE(RayCast(u.shape, Pose2{f.offset, {}},
                             Ray<2>{f.offset + Vec2{-5 * f.scale, 3 * f.scale},
                                    {1, 0},
                                    max_distance})
                         .hit);
      }
    }
  }
}

// A unit direction may have a subnormal component. A ray just outside the
// square's left side, running up along it with direction (1e-39, 1), would
// enter that side's half-plane only after 0.4 / 1e-39 = 4e38 > FLT_MAX:
// the entry distance must be compared before it is divided out.
TEST(RayCast, NearlyParallelToASideRaisesNoException) {
  const Ray<2> ray{{-1.4f, 0}, {1e-39f, 1}, std::numeric_limits<float>::max()};
  EXPECT_FALSE(RayCast(Square(1), Pose2{}, ray).hit);
  EXPECT_FALSE(RayCast(Box2{{1, 1}}, Pose2{}, ray).hit);
  const Ray<2> inside{{-0.6f, -5}, {1e-39f, 1}, 10};
  const RayResult<2> r = RayCast(Box2{{1, 1}}, Pose2{}, inside);
  ASSERT_TRUE(r.hit);
  EXPECT_NEAR(r.distance, 4.0f, 1e-5f);
}

TEST(RayCast, AngledRayAgainstRotatedBox) {
  // A unit box turned 90 degrees is the same box; a ray from (3, 3) towards
  // the origin along (-1, -1)/sqrt2 enters at the corner (1, 1) after
  // sqrt(8) - sqrt(2) = sqrt(2).
  const float r2 = std::sqrt(2.0f);
  const Ray<2> ray{{3, 3}, {-1 / r2, -1 / r2}, 10};
  const RayResult<2> r =
      RayCast(Box2{{1, 1}}, Pose2::FromAngle({0, 0}, 1.5707963f), ray);
  ASSERT_TRUE(r.hit);
  EXPECT_NEAR(r.distance, 2 * r2, 1e-5f);
  EXPECT_NEAR(r.point.x, 1.0f, 1e-5f);
  EXPECT_NEAR(r.point.y, 1.0f, 1e-5f);
}

// Sweeps: B starts 2 s to the right of touching and moves by (-4 s, 0)
// relative to A (A moves +1 s, B -3 s): impact at t = 0.5, normal (1, 0),
// the point on A's right side, which has moved by 0.5 s.
TEST(Sweep, HeadOnMissAndStartedOverlapping) {
  for (const Frame& f : kFrames) {
    for (int ka = 0; ka < test2d::kKindCount; ++ka) {
      for (int kb = 0; kb < test2d::kKindCount; ++kb) {
        const UnitShape a = MakeUnit(ka, f.scale);
        const UnitShape b = MakeUnit(kb, f.scale);
        const float s = f.scale;
        const Pose2 pa{f.offset, {}};
        const Pose2 pb{f.offset + Vec2{a.w + b.w + 2 * s, 0}, {}};
        SCOPED_TRACE(absl::StrFormat("%s vs %s, scale %g, offset (%g, %g)",
                                     KindName(ka), KindName(kb), s, f.offset.x,
                                     f.offset.y));
        const float slack = LengthSlack(f);
        SweepResult<2> r = Sweep(a.shape, pa, {s, 0}, b.shape, pb, {-3 * s, 0});
        ASSERT_EQ(r.outcome, SweepOutcome::kHit);
        EXPECT_NEAR(r.fraction, 0.5f, slack / s);
        EXPECT_NEAR(r.normal.x, 1.0f, 1e-5f);
        EXPECT_NEAR(r.point.x, f.offset.x + a.w + 0.5f * s, slack + 1e-5f * s);
        EXPECT_NEAR(r.point.y, f.offset.y, slack + 1e-5f * s);
        // Sideways: never touches.
        r = Sweep(a.shape, pa, {0, 0}, b.shape, pb, {0, 4 * s});
        EXPECT_EQ(r.outcome, SweepOutcome::kMiss);
        // Too short: stops 1 s before touching.
        r = Sweep(a.shape, pa, {0, 0}, b.shape, pb, {-s, 0});
        EXPECT_EQ(r.outcome, SweepOutcome::kMiss);
        if (ka == 4 && kb == 4) continue;
        const Pose2 deep{f.offset + Vec2{a.w + b.w - 0.0625f * s, 0}, {}};
        r = Sweep(a.shape, pa, {s, 0}, b.shape, deep, {-3 * s, 0});
        ASSERT_EQ(r.outcome, SweepOutcome::kStartedOverlapping);
        EXPECT_TRUE(r.initial.overlapping);
        EXPECT_NEAR(r.initial.depth, 0.0625f * s, slack);
        EXPECT_NEAR(r.initial.normal.x, 1.0f, 1e-5f);
      }
    }
  }
}

TEST(Aabb, EveryKindAtARotatedPose) {
  // A quarter turn swaps the box's extents; 45 degrees gives sqrt2 (hx+hy)/2.
  const Aabb2 box =
      ComputeAabb(Box2{{2, 1}}, Pose2::FromAngle({10, 20}, 1.5707963f));
  EXPECT_NEAR(box.min.x, 9.0f, 1e-5f);
  EXPECT_NEAR(box.max.y, 22.0f, 1e-5f);
  const Aabb2 diag =
      ComputeAabb(Box2{{1, 1}}, Pose2::FromAngle({0, 0}, 0.785398163f));
  EXPECT_NEAR(diag.max.x, std::sqrt(2.0f), 1e-6f);
  const Aabb2 circle = ComputeAabb(Circle{3}, Pose2::FromAngle({1, 1}, 0.3f));
  EXPECT_EQ(circle.min.x, -2.0f);
  EXPECT_EQ(circle.max.y, 4.0f);
  const Aabb2 cap = ComputeAabb(Capsule2{{-1, 0}, {1, 0}, 0.5f},
                                Pose2::FromAngle({0, 0}, 1.5707963f));
  EXPECT_NEAR(cap.min.y, -1.5f, 1e-6f);
  EXPECT_NEAR(cap.max.x, 0.5f, 1e-6f);
  const Aabb2 seg = ComputeAabb(Segment2{{0, 0}, {2, 0}}, Pose2{{5, 5}, {}});
  EXPECT_EQ(seg.min.x, 5.0f);
  EXPECT_EQ(seg.max.x, 7.0f);
  EXPECT_EQ(seg.min.y, 5.0f);
  const Aabb2 tri =
      ComputeAabb(*MakeConvexPolygon(std::vector<Vec2>{{0, 0}, {1, 0}, {0, 1}}),
                  Pose2::FromAngle({0, 0}, 3.14159265f));
  EXPECT_NEAR(tri.min.x, -1.0f, 1e-6f);
  EXPECT_NEAR(tri.max.x, 0.0f, 1e-6f);
}

// Sweeps at the extremes of speed, for every pair kind: 1e-38 units per
// step (a time of impact over a rate that small overflows float) and 1e15
// (the largest displacement a scene accepts, kMaxQueryCoordinate;
// its square is still a float). This binary traps FE_OVERFLOW,
// FE_DIVBYZERO and FE_INVALID, so a sweep that divides carelessly crashes
// the test. The outcome must not change with the motion's scale where the
// motion is too small to reach: a miss, or a start already overlapping.
TEST(SweepAnalytic, ExtremeSpeedsRaiseNoFloatingPointException) {
  test2d::ShapeGen gen(4242u);
  int checked = 0;
  for (int ka = 0; ka < 5; ++ka) {
    for (int kb = 0; kb < 5; ++kb) {
      for (int i = 0; i < 40; ++i) {
        const Shape2 a = gen.Shape(ka);
        const Shape2 b = gen.Shape(kb);
        const Pose2 pa = gen.RandomPose(2.0f);
        const Pose2 pb = gen.RandomPose(6.0f);
        const Vec2 direction = gen.Point(1.0f);
        for (const float speed : {1e-38f, 1e15f}) {
          const SweepResult<2> r = Sweep(a, pa, {}, b, pb, speed * direction);
          if (speed < 1.0f) {
            const bool overlapping = Contact(a, pa, b, pb).overlapping;
            EXPECT_EQ(r.outcome, overlapping ? SweepOutcome::kStartedOverlapping
                                             : SweepOutcome::kMiss)
                << KindName(ka) << "-" << KindName(kb) << " " << i;
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 2000);
}

}  // namespace
}  // namespace sator
