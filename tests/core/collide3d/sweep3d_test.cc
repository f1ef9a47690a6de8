// Sweeps: analytic cases worked out by hand, then properties on seeded
// random pairs of every kind, checked with the static Contact (an independent
// static test): no overlap just before the time of impact, overlap just
// after it, symmetry under swapping A and B, started-overlapping flagged
// exactly when the shapes overlap at t = 0, and no overlap at sampled times
// of a miss.
#include "sator/core/collide3d/sweep3d.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/collide3d/double_reference3d.h"
#include "core/collide3d/shape_gen.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/shape3d_validation.h"

namespace sator {
namespace {

using test3d::CrossD;
using test3d::DistanceToSegment;
using test3d::DistanceToTriangle;
using test3d::DotD;
using test3d::Dv;
using test3d::LenD;
using test3d::ToDv;
using testing_util::Rng;

constexpr float kTol = 1e-5f;

void ExpectVec(Vec3 actual, Vec3 expected, float tol) {
  EXPECT_NEAR(actual.x, expected.x, tol);
  EXPECT_NEAR(actual.y, expected.y, tol);
  EXPECT_NEAR(actual.z, expected.z, tol);
}

TEST(Sweep, BoxFaceOnBoxFace) {
  // B (half size 1) at x = 5 moves by -10 in x; A (half size 1) rests at the
  // origin. B's -x face (at 4 - 10 t) meets A's +x face (1) at t = 0.3.
  const SweepResult<3> r = Sweep(Box3{{1, 1, 1}}, Pose3{}, {}, Box3{{1, 1, 1}},
                                 Pose3{{5, 0, 0}, {}}, {-10, 0, 0});
  ASSERT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, 0.3f, kTol);
  ExpectVec(r.normal, {1, 0, 0}, kTol);
  // Face on face: the centre of the overlap square.
  ExpectVec(r.point, {1, 0, 0}, 1e-4f);
}

TEST(Sweep, BoxesBothMovingAndOffset) {
  // A moves +2 in x, B moves -2; B is offset by 1.5 in y, so the faces
  // overlap in y over [0.5, 1]: the overlap rectangle's centre is y = 0.75.
  // Gap 3 closes at relative speed 4: t = 0.75; A's face is then at
  // x = 1 + 0.75 * 2 = 2.5.
  const SweepResult<3> r =
      Sweep(Box3{{1, 1, 1}}, Pose3{}, {2, 0, 0}, Box3{{1, 1, 1}},
            Pose3{{5, 1.5f, 0}, {}}, {-2, 0, 0});
  ASSERT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, 0.75f, kTol);
  ExpectVec(r.normal, {1, 0, 0}, kTol);
  ExpectVec(r.point, {2.5f, 0.75f, 0}, 1e-4f);
}

TEST(Sweep, RotatedBoxCornerFirst) {
  // B turned 45 degrees about z presents an edge along z at x = 5 - sqrt2;
  // moving by -10 in x it reaches A's face x = 1 when
  // 5 - sqrt2 - 10 t = 1: t = (4 - sqrt2) / 10.
  const SweepResult<3> r =
      Sweep(Box3{{1, 1, 1}}, Pose3{}, {}, Box3{{1, 1, 0.5f}},
            Pose3{{5, 0, 0}, Quat::FromAxisAngle({0, 0, 1}, 0.78539816f)},
            {-10, 0, 0});
  ASSERT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, (4.0f - std::sqrt(2.0f)) / 10.0f, kTol);
  ExpectVec(r.normal, {1, 0, 0}, kTol);
  // The edge lies on the face: its midpoint.
  ExpectVec(r.point, {1, 0, 0}, 1e-4f);
}

TEST(Sweep, SpheresAndSphereOnBoxEdge) {
  const SweepResult<3> s = Sweep(Sphere{1}, Pose3{}, {10, 0, 0}, Sphere{1},
                                 Pose3{{5, 0, 0}, {}}, {});
  ASSERT_EQ(s.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(s.fraction, 0.3f, kTol);
  ExpectVec(s.normal, {1, 0, 0}, kTol);
  ExpectVec(s.point, {4, 0, 0}, kTol);
  // Sphere (radius 1) from (3, 3, 0) moving by (-4, -4, 0) against the unit
  // box: it meets the edge x = y = 1 when sqrt2 (2 - 4 t) = 1.
  const SweepResult<3> e = Sweep(Sphere{1}, Pose3{{3, 3, 0}, {}}, {-4, -4, 0},
                                 Box3{{1, 1, 1}}, Pose3{}, {});
  ASSERT_EQ(e.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(e.fraction, (2.0f - std::sqrt(0.5f)) / 4.0f, kTol);
  ExpectVec(e.normal, {-std::sqrt(0.5f), -std::sqrt(0.5f), 0}, kTol);
  ExpectVec(e.point, {1, 1, 0}, 1e-4f);
  // The same with the box as A: same fraction, normal negated.
  const SweepResult<3> f = Sweep(Box3{{1, 1, 1}}, Pose3{}, {}, Sphere{1},
                                 Pose3{{3, 3, 0}, {}}, {-4, -4, 0});
  ASSERT_EQ(f.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(f.fraction, e.fraction, kTol);
  ExpectVec(f.normal, -e.normal, kTol);
}

TEST(Sweep, CrossedCapsules) {
  // A along x at z = 0, B along y at z = 5 falling by 10: the axes' gap
  // 5 - 10 t reaches the radii sum 0.5 at t = 0.45; they touch at z = 0.25.
  const SweepResult<3> r =
      Sweep(Capsule3{{-1, 0, 0}, {1, 0, 0}, 0.25f}, Pose3{}, {},
            Capsule3{{0, -1, 0}, {0, 1, 0}, 0.25f}, Pose3{{0, 0, 5}, {}},
            {0, 0, -10});
  ASSERT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, 0.45f, kTol);
  ExpectVec(r.normal, {0, 0, 1}, kTol);
  ExpectVec(r.point, {0, 0, 0.25f}, 1e-4f);
}

// Nearly parallel long capsules: A along x, B tilted by
// sin(theta) = 9e-7 in the xy plane, 1 above and moving down by 1. Their
// segments' difference is a parallelogram 1e4 long and 9e-3 high in the
// plane z = 1 (B's frame); the radii sum to 2e-3, so over its middle the
// rounded parallelogram is the slab |z - 1| <= 2e-3, 4.5e-3 from the edges:
// the hit is at t = 1 - 2e-3. Dropping its faces below sin(theta) = 1e-6
// (a float normal is off by ~1e-7 / sin(theta) there) would leave the edge
// capsules, which miss.
TEST(Sweep, NearlyParallelLongCapsulesHitTheFace) {
  const Capsule3 a{{-5000.0f, 0.0f, 0.0f}, {5000.0f, 0.0f, 0.0f}, 1e-3f};
  const Capsule3 b{{-5000.0f, -0.0045f, 0.0f}, {5000.0f, 0.0045f, 0.0f}, 1e-3f};
  ASSERT_TRUE(ValidateShape(ConvexShape3{a}).ok());
  ASSERT_TRUE(ValidateShape(ConvexShape3{b}).ok());
  const Pose3 pose_a{};
  const Pose3 pose_b{{0.0f, 0.0f, 1.0f}, {}};
  ASSERT_TRUE(Overlap(ConvexShape3{a}, pose_a, ConvexShape3{b}, Pose3{}));
  SweepResult<3> r = Sweep(ConvexShape3{a}, pose_a, Vec3{}, ConvexShape3{b},
                           pose_b, {0.0f, 0.0f, -1.0f});
  EXPECT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, 0.998f, 1e-4f);
  ExpectVec(r.normal, {0, 0, 1}, 1e-5f);
  // Swapped, and the same against A posed far from the origin.
  r = Sweep(ConvexShape3{b}, pose_b, {0.0f, 0.0f, -1.0f}, ConvexShape3{a},
            pose_a, Vec3{});
  EXPECT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, 0.998f, 1e-4f);
  ExpectVec(r.normal, {0, 0, -1}, 1e-5f);
  // Thinner than twice the radius (height 3.6e-3 <= 4e-3, so the edge
  // capsules cover the parallelogram itself) the faces are still needed:
  // over the middle the edges reach only sqrt(2e-3^2 - 1.8e-3^2) = 8.7e-4
  // above the plane, not 2e-3. B ends 1.5e-3 above A, overlapping.
  const Capsule3 thin{
      {-5000.0f, -0.0018f, 0.0f}, {5000.0f, 0.0018f, 0.0f}, 1e-3f};
  ASSERT_TRUE(Overlap(ConvexShape3{a}, pose_a, ConvexShape3{thin},
                      Pose3{{0.0f, 0.0f, 1.5e-3f}, {}}));
  r = Sweep(ConvexShape3{a}, pose_a, Vec3{}, ConvexShape3{thin}, pose_b,
            {0.0f, 0.0f, -1.0f + 1.5e-3f});
  EXPECT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, (1.0f - 2e-3f) / (1.0f - 1.5e-3f), 1e-4f);
}

TEST(Sweep, CapsuleOnBoxEdgeAndTriangleFace) {
  // A capsule lying along y (radius 0.5) at (0, 0, 4) falls by 8 onto the
  // unit box turned 45 degrees about y: the box's top edge (along y) is at
  // z = sqrt2, so contact at 4 - 8 t - 0.5 = sqrt2.
  const SweepResult<3> r =
      Sweep(Capsule3{{0, -3, 0}, {0, 3, 0}, 0.5f}, Pose3{{0, 0, 4}, {}},
            {0, 0, -8}, Box3{{1, 1, 1}},
            Pose3{{}, Quat::FromAxisAngle({0, 1, 0}, 0.78539816f)}, {});
  ASSERT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, (3.5f - std::sqrt(2.0f)) / 8.0f, kTol);
  ExpectVec(r.normal, {0, 0, -1}, kTol);
  EXPECT_NEAR(r.point.z, std::sqrt(2.0f), 1e-4f);
  EXPECT_NEAR(r.point.x, 0.0f, 1e-4f);
  // A box (half height 0.5) falling onto a big triangle at z = 0.
  const SweepResult<3> t =
      Sweep(Triangle3{{-10, -10, 0}, {10, -10, 0}, {0, 10, 0}}, Pose3{}, {},
            Box3{{0.5f, 0.5f, 0.5f}}, Pose3{{0, 0, 3}, {}}, {0, 0, -5});
  ASSERT_EQ(t.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(t.fraction, 0.5f, kTol);
  ExpectVec(t.normal, {0, 0, 1}, kTol);
  ExpectVec(t.point, {0, 0, 0}, 1e-4f);
}

TEST(Sweep, StartedOverlappingAndMisses) {
  const SweepResult<3> o = Sweep(Box3{{1, 1, 1}}, Pose3{}, {}, Box3{{1, 1, 1}},
                                 Pose3{{1.5f, 0, 0}, {}}, {3, 0, 0});
  ASSERT_EQ(o.outcome, SweepOutcome::kStartedOverlapping);
  EXPECT_TRUE(o.initial.overlapping);
  EXPECT_NEAR(o.initial.depth, 0.5f, kTol);
  ExpectVec(o.initial.normal, {1, 0, 0}, kTol);
  const SweepResult<3> s =
      Sweep(Sphere{1}, Pose3{}, {}, Capsule3{{0, 0, 0}, {0, 0, 1}, 0.5f},
            Pose3{{1, 0, 0}, {}}, {1, 0, 0});
  EXPECT_EQ(s.outcome, SweepOutcome::kStartedOverlapping);
  // Moving apart, too short, and passing by.
  EXPECT_EQ(Sweep(Box3{{1, 1, 1}}, Pose3{}, {}, Box3{{1, 1, 1}},
                  Pose3{{3, 0, 0}, {}}, {3, 0, 0})
                .outcome,
            SweepOutcome::kMiss);
  EXPECT_EQ(Sweep(Sphere{1}, Pose3{}, {0.9f, 0, 0}, Sphere{1},
                  Pose3{{3, 0, 0}, {}}, {})
                .outcome,
            SweepOutcome::kMiss);
  EXPECT_EQ(Sweep(Capsule3{{0, 0, -1}, {0, 0, 1}, 0.5f}, Pose3{}, {},
                  Sphere{0.4f}, Pose3{{5, 1, 0}, {}}, {-10, 0, 0})
                .outcome,
            SweepOutcome::kMiss);
  // Touching at the end of the motion counts: t = 1.
  const SweepResult<3> end =
      Sweep(Sphere{1}, Pose3{}, {1, 0, 0}, Sphere{1}, Pose3{{3, 0, 0}, {}}, {});
  ASSERT_EQ(end.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(end.fraction, 1.0f, kTol);
}

TEST(Sweep, NoMotionIsOverlapOrMiss) {
  // Without relative motion a sweep is the static test: started overlapping
  // exactly when the static Contact says the shapes touch, a miss otherwise
  // (never a hit). Both moving by the same vector is no relative motion.
  Rng rng(99);
  for (int ka = 0; ka < 5; ++ka) {
    for (int kb = 0; kb < 5; ++kb) {
      for (int i = 0; i < 400; ++i) {
        const ConvexShape3 a = testing_util::RandomShape(ka, rng);
        const ConvexShape3 b = testing_util::RandomShape(kb, rng);
        const Pose3 pa = rng.Pose(1.0f);
        const Pose3 pb{pa.position + rng.InBox(2.5f), rng.Rotation()};
        const Vec3 d = (i % 2 == 0) ? Vec3{} : rng.InBox(3.0f);
        const SweepResult<3> r = Sweep(a, pa, d, b, pb, d);
        const float depth = Contact(a, pa, b, pb).depth;
        SCOPED_TRACE(::testing::Message()
                     << testing_util::KindName(ka) << "-"
                     << testing_util::KindName(kb) << " case " << i);
        ASSERT_NE(r.outcome, SweepOutcome::kHit);
        if (depth > 1e-4f) {
          ASSERT_EQ(r.outcome, SweepOutcome::kStartedOverlapping);
        }
        if (depth < -1e-4f) {
          ASSERT_EQ(r.outcome, SweepOutcome::kMiss);
        }
      }
    }
  }
}

// ---- Properties --------------------------------------------------------

struct Stats {
  int hits = 0;
  int misses = 0;
  int started = 0;
};

Pose3 Moved(const Pose3& p, Vec3 d, float t) {
  return {p.position + t * d, p.rotation};
}

float DepthAt(const ConvexShape3& a, const Pose3& pa, Vec3 da,
              const ConvexShape3& b, const Pose3& pb, Vec3 db, float t) {
  return Contact(a, Moved(pa, da, t), b, Moved(pb, db, t)).depth;
}

// max over the posed shape of dot(n, x), in double.
double SupportAlong(const ConvexShape3& shape, const Pose3& pose, Vec3 n) {
  const Vec3 local = InvRotate(pose.rotation, n);
  const double centre = DotD(ToDv(pose.position), ToDv(n));
  auto max_over = [&](const Vec3* points, int count) {
    double best = -DBL_MAX;
    for (int i = 0; i < count; ++i) {
      best = std::max(best, DotD(ToDv(points[i]), ToDv(local)));
    }
    return best;
  };
  return centre + std::visit(
                      [&](const auto& s) -> double {
                        using T = std::decay_t<decltype(s)>;
                        if constexpr (std::is_same_v<T, Sphere>) {
                          return s.radius * LenD(ToDv(local));
                        } else if constexpr (std::is_same_v<T, Box3>) {
                          return std::fabs(double{local.x}) * s.half_extents.x +
                                 std::fabs(double{local.y}) * s.half_extents.y +
                                 std::fabs(double{local.z}) * s.half_extents.z;
                        } else if constexpr (std::is_same_v<T, Capsule3>) {
                          const Vec3 ends[2] = {s.a, s.b};
                          return max_over(ends, 2) +
                                 s.radius * LenD(ToDv(local));
                        } else if constexpr (std::is_same_v<T, Triangle3>) {
                          const Vec3 corners[3] = {s.a, s.b, s.c};
                          return max_over(corners, 3);
                        } else {
                          return max_over(s->vertices.data(),
                                          static_cast<int>(s->vertices.size()));
                        }
                      },
                      shape);
}

bool IsRound(const ConvexShape3& shape) {
  return std::holds_alternative<Sphere>(shape) ||
         std::holds_alternative<Capsule3>(shape);
}

// The farthest the shape reaches from its origin along its local axes.
float Extent(const ConvexShape3& shape) {
  double extent = 0.0;
  for (int i = 0; i < 3; ++i) {
    for (float sign : {1.0f, -1.0f}) {
      Vec3 axis{};
      axis[i] = sign;
      extent = std::max(extent, SupportAlong(shape, Pose3{}, axis));
    }
  }
  return static_cast<float>(extent);
}

// The gap along n (pointing from A to B) between A and B at time t: B's
// lowest point minus A's highest. A valid impact normal is an axis along
// which the shapes just touch at the time of impact, so this is ~0 there;
// along any other axis the projections overlap (the gap is negative).
double GapAlong(const ConvexShape3& a, const Pose3& pa, Vec3 da,
                const ConvexShape3& b, const Pose3& pb, Vec3 db, float t,
                Vec3 n) {
  return -SupportAlong(b, Moved(pb, db, t), -n) -
         SupportAlong(a, Moved(pa, da, t), n);
}

void RunProperties(int kind_a, int kind_b, int count, unsigned seed,
                   Stats* stats) {
  Rng rng(seed);
  // Depth tolerance for round-off in the static test and the sweep.
  constexpr float kDepthTol = 2e-4f;
  constexpr float kEps = 2e-3f;  // Time step before and after the impact.
  for (int i = 0; i < count; ++i) {
    const ConvexShape3 a = testing_util::RandomShape(kind_a, rng);
    const ConvexShape3 b = testing_util::RandomShape(kind_b, rng);
    const Pose3 pa = rng.Pose(1.0f);
    const Pose3 pb{pa.position + rng.InBox(4.0f), rng.Rotation()};
    // Aim B roughly at A so that about half the pairs hit.
    const Vec3 da = rng.InBox(1.0f);
    const float aim = rng.Uniform(0.3f, 2.0f);
    const Vec3 db = (pa.position - pb.position) * aim + rng.InBox(1.5f);
    const SweepResult<3> r = Sweep(a, pa, da, b, pb, db);
    const SweepResult<3> s = Sweep(b, pb, db, a, pa, da);
    SCOPED_TRACE(::testing::Message()
                 << testing_util::KindName(kind_a) << "-"
                 << testing_util::KindName(kind_b) << " case " << i);
    // Symmetry under swapping A and B.
    ASSERT_EQ(r.outcome, s.outcome);
    if (r.outcome == SweepOutcome::kStartedOverlapping) {
      ++stats->started;
      ASSERT_GE(DepthAt(a, pa, da, b, pb, db, 0.0f), -kDepthTol);
      ASSERT_GE(r.initial.depth, -kDepthTol);
      continue;
    }
    const Vec3 v = db - da;
    if (r.outcome == SweepOutcome::kMiss) {
      ++stats->misses;
      // Apart at t = 0 and at sampled times (a sampled check: a miss that
      // grazes between samples is caught only by the hit checks below).
      for (int k = 0; k <= 3; ++k) {
        ASSERT_LE(DepthAt(a, pa, da, b, pb, db, k / 3.0f), kDepthTol) << k;
      }
      continue;
    }
    ++stats->hits;
    ASSERT_GT(r.fraction, 0.0f);
    ASSERT_LE(r.fraction, 1.0f);
    ASSERT_NEAR(s.fraction, r.fraction, 1e-4f);
    ASSERT_NEAR(Length(r.normal), 1.0f, 1e-4f);
    // Symmetry under swapping A and B: the two orders may pick different
    // axes when two entry times tie within round-off (for instance the two
    // faces next to the edge a vertex hits), so each order's normal must be
    // an axis along which the other order's pair touches at its time. The
    // SAT axes of polytope pairs are exact; a pair with a round shape gets
    // its normal from closest points, good to a few 1e-3 radians, and a
    // normal tilted by an angle moves a flat side's support by the angle
    // times the side's extent.
    const float gap_tol = IsRound(a) || IsRound(b)
                              ? kDepthTol + 5e-3f * (Extent(a) + Extent(b))
                              : kDepthTol;
    ASSERT_LE(std::fabs(GapAlong(b, pb, db, a, pa, da, s.fraction, -r.normal)),
              gap_tol);
    ASSERT_LE(std::fabs(GapAlong(a, pa, da, b, pb, db, r.fraction, -s.normal)),
              gap_tol);
    // B approaches A along the normal (it cannot hit moving away).
    ASSERT_LE(Dot(v, r.normal), 1e-4f * Length(v));
    // No overlap before the impact (which, for convex shapes in linear
    // motion, also proves none at t = 0) ...
    const float before = std::max(0.0f, r.fraction - kEps);
    ASSERT_LE(DepthAt(a, pa, da, b, pb, db, before), kDepthTol);
    // ... and touching at it: neither separated (too early) nor already
    // penetrating (too late). (Just after the impact the shapes may part
    // again when B only clips a corner of A, so t + eps proves nothing.)
    const float at = DepthAt(a, pa, da, b, pb, db, r.fraction);
    ASSERT_GE(at, -kDepthTol);
    ASSERT_LE(at, kDepthTol);
  }
}

class SweepProperties : public ::testing::TestWithParam<std::pair<int, int>> {};

TEST_P(SweepProperties, RandomPairs) {
  const auto [ka, kb] = GetParam();
  Stats stats;
  constexpr int kCount = 100000;
  RunProperties(ka, kb, kCount, 1000u + 10u * ka + kb, &stats);
  std::printf("%s-%s: %d hits, %d misses, %d started overlapping\n",
              testing_util::KindName(ka), testing_util::KindName(kb),
              stats.hits, stats.misses, stats.started);
  // Every outcome is exercised in bulk.
  EXPECT_GT(stats.hits, kCount / 10);
  EXPECT_GT(stats.misses, kCount / 10);
  EXPECT_GT(stats.started, kCount / 200);
}

std::vector<std::pair<int, int>> AllPairs() {
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < 5; ++a) {
    for (int b = a; b < 5; ++b) pairs.push_back({a, b});
  }
  return pairs;
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, SweepProperties, ::testing::ValuesIn(AllPairs()),
    [](const ::testing::TestParamInfo<std::pair<int, int>>& param_info) {
      return std::string(testing_util::KindName(param_info.param.first)) + "_" +
             testing_util::KindName(param_info.param.second);
    });

// A triangle-hull pair (the Clang-ordered inputs of RandomPairs case 22099)
// where a triangle vertex reaches the edge between two hull faces: the two
// faces' entry times differ by round-off (~1e-8), and the two orders pick
// different faces, normals 3.3 degrees apart. Both are touching axes.
TEST(Sweep3d, TriangleHullNearTieNormalsTouchInBothOrders) {
  const Triangle3 tri{{0x1.a6ae1p-3f, -0x1.66f694p-1f, 0x1.01e9p-3f},
                      {-0x1.7d0888p+0f, -0x1.49432p-3f, -0x1.00d81ap-1f},
                      {-0x1.171eep-2f, -0x1.c69062p-1f, 0x1.01cd28p-1f}};
  const auto hull =
      MakeConvexHull({{0x1.340064p+0f, 0x1.55be26p-2f, -0x1.5394fap-3f},
                      {-0x1.510474p+0f, 0x1.89cbc6p-1f, -0x1.d4368ep-3f},
                      {0x1.0a2316p+0f, 0x1.c1873cp-1f, 0x1.63e436p-3f},
                      {0x1.c0e574p-1f, -0x1.435b5ap-1f, 0x1.30d8c8p-2f},
                      {-0x1.60f2eep+0f, 0x1.3d423ep-2f, 0x1.e6b886p-2f},
                      {-0x1.605afcp+0f, -0x1.43f742p-2f, -0x1.9d72d8p-10f},
                      {-0x1.5e9726p-1f, 0x1.f3190ep-3f, -0x1.e9c732p-2f},
                      {-0x1.1d69cep-1f, 0x1.960a36p-1f, -0x1.47fab4p-5f},
                      {0x1.e95372p-3f, -0x1.18cd6ap-1f, 0x1.8c441ep-2f},
                      {0x1.60276p+0f, 0x1.a4450ep-1f, 0x1.2f5eb6p-3f}});
  ASSERT_TRUE(hull.ok());
  const ConvexShape3 a = tri;
  const ConvexShape3 b = *hull;
  const Pose3 pa{
      {0x1.f6a2p-4f, -0x1.31ba88p-3f, -0x1.b4a2p-9f},
      {-0x1.b9db6ap-2f, 0x1.c84a5cp-1f, 0x1.fb5e7ep-4f, 0x1.0ab23ep-4f}};
  const Pose3 pb{
      {-0x1.a8528p-5f, 0x1.032bf4p+1f, -0x1.55d532p+1f},
      {0x1.70fe28p-7f, 0x1.ecb48p-3f, 0x1.8958dep-5f, 0x1.f05208p-1f}};
  const Vec3 da{0x1.816dap-3f, 0x1.b985bp-1f, 0x1.1d72bp-1f};
  const Vec3 db{0x1.83d424p-2f, -0x1.056e88p+2f, 0x1.54bb82p+2f};
  const SweepResult<3> r = Sweep(a, pa, da, b, pb, db);
  const SweepResult<3> s = Sweep(b, pb, db, a, pa, da);
  ASSERT_EQ(r.outcome, SweepOutcome::kHit);
  ASSERT_EQ(s.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, 0.46998f, 1e-4f);
  EXPECT_NEAR(s.fraction, r.fraction, 1e-6f);
  constexpr double kGapTol = 2e-4;
  // Each normal is a touching axis for its own order and for the other.
  EXPECT_LE(std::fabs(GapAlong(a, pa, da, b, pb, db, r.fraction, r.normal)),
            kGapTol);
  EXPECT_LE(std::fabs(GapAlong(b, pb, db, a, pa, da, s.fraction, s.normal)),
            kGapTol);
  EXPECT_LE(std::fabs(GapAlong(b, pb, db, a, pa, da, s.fraction, -r.normal)),
            kGapTol);
  EXPECT_LE(std::fabs(GapAlong(a, pa, da, b, pb, db, r.fraction, -s.normal)),
            kGapTol);
  // The check can fail: a normal pointing the wrong way (or another axis,
  // such as the triangle's normal) leaves the projections overlapping.
  EXPECT_GT(std::fabs(GapAlong(b, pb, db, a, pa, da, s.fraction, r.normal)),
            0.1);
  const Vec3 tri_normal =
      NormalizeOrZero(Rotate(pa.rotation, Cross(tri.b - tri.a, tri.c - tri.a)));
  EXPECT_GT(std::fabs(GapAlong(a, pa, da, b, pb, db, r.fraction, -tri_normal)),
            0.1);
}

// Nearly parallel pairs, by properties checked with the static Overlap (the
// exact core distance for pairs with a capsule) on the pair with the
// capsule's radius grown or shrunk by `tol`: the shapes are within tol of
// touching at a start reported as kStartedOverlapping; at a hit t they do
// not overlap by more than tol at t - eps and touch within tol at t; when
// the end pose overlaps by more than tol the sweep never misses and, the
// distance being convex in t for linear motion, the shapes still touch at
// t + eps; a miss is apart (by tol) at t = 0, 1/3, 2/3 and 1; swapping A and
// B gives the same outcome. (Contact's depth is not used: for overlapping
// long nearly parallel capsules it is an upper bound measured along float
// directions, up to 1e-5 of the length too deep.)
struct NearlyParallelStats {
  int hits = 0;
  int misses = 0;
  int started = 0;
  int end_overlapping = 0;
  int grazes = 0;  // A hit one way, a miss the other, within tol.
};

// Overlap at time t, with the first capsule's radius (A's if A is one)
// changed by `grow`.
bool OverlapGrownAt(const ConvexShape3& a, const Pose3& pa, Vec3 da,
                    const ConvexShape3& b, const Pose3& pb, Vec3 db, float t,
                    float grow) {
  ConvexShape3 ga = a;
  ConvexShape3 gb = b;
  if (auto* cap = std::get_if<Capsule3>(&ga)) {
    cap->radius += grow;
  } else {
    std::get<Capsule3>(gb).radius += grow;
  }
  return Overlap(ga, Moved(pa, da, t), gb, Moved(pb, db, t));
}

void CheckNearlyParallel(const ConvexShape3& a, const Pose3& pa, Vec3 da,
                         const ConvexShape3& b, const Pose3& pb, Vec3 db,
                         float tol, NearlyParallelStats* stats) {
  constexpr float kEps = 2e-3f;
  const auto overlap = [&](float t, float grow) {
    return OverlapGrownAt(a, pa, da, b, pb, db, t, grow);
  };
  const SweepResult<3> r = Sweep(a, pa, da, b, pb, db);
  const SweepResult<3> s = Sweep(b, pb, db, a, pa, da);
  if (r.outcome != s.outcome) {
    // Only a graze within the tolerance may be a hit one way and a miss the
    // other (the edge capsules are tested in float, good to about 1e-7 of
    // the coordinates): never deeper than tol from the hit to the end.
    ASSERT_NE(r.outcome, SweepOutcome::kStartedOverlapping);
    ASSERT_NE(s.outcome, SweepOutcome::kStartedOverlapping);
    const float t = r.outcome == SweepOutcome::kHit ? r.fraction : s.fraction;
    for (int k = 0; k <= 16; ++k) {
      ASSERT_FALSE(overlap(t + (1.0f - t) * k / 16.0f, -tol)) << k;
    }
    ++stats->grazes;
    return;
  }
  const bool end_overlaps = overlap(1.0f, -tol);
  if (end_overlaps) {
    ++stats->end_overlapping;
    ASSERT_NE(r.outcome, SweepOutcome::kMiss);
  }
  if (r.outcome == SweepOutcome::kStartedOverlapping) {
    ++stats->started;
    ASSERT_TRUE(overlap(0.0f, tol));
    return;
  }
  if (r.outcome == SweepOutcome::kMiss) {
    ++stats->misses;
    for (int k = 0; k <= 3; ++k) ASSERT_FALSE(overlap(k / 3.0f, -tol)) << k;
    return;
  }
  ++stats->hits;
  ASSERT_GT(r.fraction, 0.0f);
  ASSERT_LE(r.fraction, 1.0f);
  // The same time within the distance tolerance over the speed.
  ASSERT_NEAR(s.fraction, r.fraction, 1e-5f + 2 * tol / Length(db - da));
  ASSERT_NEAR(Length(r.normal), 1.0f, 1e-4f);
  ASSERT_FALSE(overlap(std::max(0.0f, r.fraction - kEps), -tol));
  ASSERT_TRUE(overlap(r.fraction, tol));
  ASSERT_FALSE(overlap(r.fraction, -tol));
  if (end_overlaps) {
    ASSERT_TRUE(overlap(std::min(1.0f, r.fraction + kEps), tol));
  }
}

float LogUniform(Rng& rng, float lo_exp, float hi_exp) {
  return std::pow(10.0f, rng.Uniform(lo_exp, hi_exp));
}

// A unit vector at angle theta from `axis` (unit), turned about it by phi.
Vec3 Tilted(Vec3 axis, Vec3 u, Vec3 v, float theta, float phi) {
  return std::cos(theta) * axis +
         std::sin(theta) * (std::cos(phi) * u + std::sin(phi) * v);
}

// Capsule pairs at angles of 1e-9 to 1e-2 radians, 1 to 1e4 long, radii
// 1e-5 to 1e-2 of the length, in a random orientation: the smaller height
// of the segments' parallelogram ranges from far below to far above the
// radius. B starts above A along a normal and moves towards it. Float
// endpoints in a general orientation are only good to about 6e-8 of the
// coordinates, so the tolerance is 1e-6 of them.
TEST(Sweep3d, NearlyParallelCapsulesProperties) {
  Rng rng(9001);
  NearlyParallelStats stats;
  int thick = 0;  // Pairs whose parallelogram is over 2 radii high.
  for (int i = 0; i < 20000; ++i) {
    const float len = LogUniform(rng, 0.0f, 4.0f);
    const float ra = len * LogUniform(rng, -5.0f, -2.0f);
    const float rb = len * LogUniform(rng, -5.0f, -2.0f);
    const float theta = LogUniform(rng, -9.0f, -2.0f);
    const float len_b = len * rng.Uniform(0.3f, 1.5f);
    const float r = ra + rb;
    if (theta * std::min(len, len_b) > 2 * r) ++thick;
    // A's frame: axis x, B above along z (y lateral), then all turned by q.
    const Quat q = rng.Rotation();
    const Vec3 x = Rotate(q, {1, 0, 0});
    const Vec3 y = Rotate(q, {0, 1, 0});
    const Vec3 z = Rotate(q, {0, 0, 1});
    const Vec3 dir_b = Tilted(x, y, z, theta, rng.Uniform(-3.14159f, 3.14159f));
    const float lift = r * LogUniform(rng, 0.1f, 1.5f);
    const float along = rng.Uniform(-0.3f, 0.3f);
    const float across = rng.Uniform(-2.0f, 2.0f);
    const Vec3 centre_b = along * len * x + across * r * y + lift * z;
    const Capsule3 a{-0.5f * len * x, 0.5f * len * x, ra};
    const Capsule3 b{centre_b - 0.5f * len_b * dir_b,
                     centre_b + 0.5f * len_b * dir_b, rb};
    const float dx = rng.Uniform(-1.0f, 1.0f);
    const float dy = rng.Uniform(-1.0f, 1.0f);
    const float dz = rng.Uniform(0.5f, 1.5f);
    const Vec3 db = dx * lift * x + dy * r * y - dz * lift * z;
    const Pose3 pose{rng.InBox(len), {}};
    SCOPED_TRACE(::testing::Message() << "case " << i << " len " << len
                                      << " theta " << theta << " r " << r);
    CheckNearlyParallel(ConvexShape3{a}, pose, Vec3{}, ConvexShape3{b}, pose,
                        db, 1e-6f * 2 * len, &stats);
  }
  std::printf(
      "nearly parallel capsules: %d hits, %d misses, %d started, "
      "%d end overlapping, %d over 2 radii high, %d grazes\n",
      stats.hits, stats.misses, stats.started, stats.end_overlapping, thick,
      stats.grazes);
  EXPECT_GT(stats.hits, 4000);
  EXPECT_GT(stats.misses, 2000);
  EXPECT_GT(thick, 1000);
  EXPECT_LT(stats.grazes, 20);
}

// The contact point of nearly parallel capsule sweeps (the family above):
// at the time of impact it must lie on both surfaces, within r_a and r_b
// of the cores (in double) up to the family's tolerance. The point is A's
// core point closest to B's segment plus r_a along the normal; for nearly
// parallel segments the float closest-point solve (its determinant
// a e - b^2 cancels) could return a point far along the segment from the
// contact, off B's surface by that distance times sin(theta).
TEST(Sweep3d, NearlyParallelCapsulesContactPointOnBothSurfaces) {
  Rng rng(9002);
  int hits = 0;
  int failures = 0;
  double worst = 0.0;  // In units of the tolerance.
  for (int i = 0; i < 20000; ++i) {
    const float len = LogUniform(rng, 0.0f, 4.0f);
    const float ra = len * LogUniform(rng, -5.0f, -2.0f);
    const float rb = len * LogUniform(rng, -5.0f, -2.0f);
    const float theta = LogUniform(rng, -9.0f, -2.0f);
    const float len_b = len * rng.Uniform(0.3f, 1.5f);
    const float r = ra + rb;
    const Quat q = rng.Rotation();
    const Vec3 x = Rotate(q, {1, 0, 0});
    const Vec3 y = Rotate(q, {0, 1, 0});
    const Vec3 z = Rotate(q, {0, 0, 1});
    const Vec3 dir_b = Tilted(x, y, z, theta, rng.Uniform(-3.14159f, 3.14159f));
    const float lift = r * LogUniform(rng, 0.1f, 1.5f);
    const float along = rng.Uniform(-0.3f, 0.3f);
    const float across = rng.Uniform(-2.0f, 2.0f);
    const Vec3 centre_b = along * len * x + across * r * y + lift * z;
    const Capsule3 a{-0.5f * len * x, 0.5f * len * x, ra};
    const Capsule3 b{centre_b - 0.5f * len_b * dir_b,
                     centre_b + 0.5f * len_b * dir_b, rb};
    const float dx = rng.Uniform(-1.0f, 1.0f);
    const float dy = rng.Uniform(-1.0f, 1.0f);
    const float dz = rng.Uniform(0.5f, 1.5f);
    const Vec3 db = dx * lift * x + dy * r * y - dz * lift * z;
    const SweepResult<3> s = Sweep(a, Pose3{}, Vec3{}, b, Pose3{}, db);
    if (s.outcome != SweepOutcome::kHit) continue;
    ++hits;
    const double tol = 1e-6 * 2.0 * len;
    const Dv p = ToDv(s.point);
    const Dv shift = static_cast<double>(s.fraction) * ToDv(db);
    const double off_a =
        std::fabs(DistanceToSegment(p, ToDv(a.a), ToDv(a.b)) - ra);
    const double off_b = std::fabs(
        DistanceToSegment(p, ToDv(b.a) + shift, ToDv(b.b) + shift) - rb);
    const double off = std::max(off_a, off_b);
    worst = std::max(worst, off / tol);
    if (off > tol && ++failures <= 5) {
      ADD_FAILURE() << "case " << i << " len " << len << " theta " << theta
                    << ": point off A's surface by " << off_a << ", off B's by "
                    << off_b << ", tolerance " << tol;
    }
  }
  std::printf(
      "nearly parallel capsule points: %d hits, %d failures, worst %.2f"
      " tolerances\n",
      hits, failures, worst);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(hits, 4000);
}

// Radii 1e-7 to 1e-5 of lengths 1e3 to 1e4: below
// float resolution in a general orientation, so the pairs are axis-aligned
// (A along x, B tilted in the xy plane by 2.5 to 100 radii over its length
// and moving down z, as in NearlyParallelLongCapsulesHitTheFace), where the
// endpoints are exact. The parallelogram is always over 2 radii high, so
// dropping its faces (for sin(theta) < 1e-6, say) would miss hits over its
// middle.
TEST(Sweep3d, NearlyParallelLongThinCapsulesProperties) {
  Rng rng(9002);
  NearlyParallelStats stats;
  for (int i = 0; i < 5000; ++i) {
    const float len = LogUniform(rng, 3.0f, 4.0f);
    const float ra = len * LogUniform(rng, -7.0f, -5.0f);
    const float rb = len * LogUniform(rng, -7.0f, -5.0f);
    const float r = ra + rb;
    const float half_height = 0.5f * r * LogUniform(rng, 0.4f, 2.0f);
    const float lift = r * LogUniform(rng, 0.1f, 1.5f);
    const float lateral = rng.Uniform(-1.0f, 1.0f) * half_height;
    const Capsule3 a{{-0.5f * len, 0, 0}, {0.5f * len, 0, 0}, ra};
    const Capsule3 b{{-0.5f * len, lateral - half_height, 0},
                     {0.5f * len, lateral + half_height, 0},
                     rb};
    const Vec3 db{0, rng.Uniform(-1.0f, 1.0f) * r,
                  -rng.Uniform(0.5f, 1.5f) * lift};
    SCOPED_TRACE(::testing::Message() << "case " << i << " len " << len << " r "
                                      << r << " h " << half_height);
    CheckNearlyParallel(ConvexShape3{a}, Pose3{}, Vec3{}, ConvexShape3{b},
                        Pose3{{0, 0, lift}, {}}, db, 0.02f * r, &stats);
  }
  std::printf(
      "long thin capsules: %d hits, %d misses, %d started, "
      "%d end overlapping, %d grazes\n",
      stats.hits, stats.misses, stats.started, stats.end_overlapping,
      stats.grazes);
  EXPECT_GT(stats.hits, 1500);
  EXPECT_GT(stats.end_overlapping, 1500);
}

// A capsule nearly parallel (1e-9 to 1e-2 radians) to a box edge, beside it
// and moving towards it: the capsule's segment meets that edge as a nearly
// degenerate parallelogram (RoundAgainst's loop over the box's edges).
TEST(Sweep3d, CapsuleNearlyParallelToBoxEdgeProperties) {
  Rng rng(9003);
  NearlyParallelStats stats;
  for (int i = 0; i < 20000; ++i) {
    const float len = LogUniform(rng, 0.0f, 3.0f);
    const Vec3 h{0.5f * len * rng.Uniform(0.5f, 1.5f),
                 len * rng.Uniform(0.01f, 0.5f),
                 len * rng.Uniform(0.01f, 0.5f)};
    const float r = len * LogUniform(rng, -5.0f, -2.0f);
    const float theta = LogUniform(rng, -9.0f, -2.0f);
    const Quat q = rng.Rotation();
    const Vec3 x = Rotate(q, {1, 0, 0});
    const Vec3 y = Rotate(q, {0, 1, 0});
    const Vec3 z = Rotate(q, {0, 0, 1});
    // Outward from the edge (x, +h.y, +h.z), between its two faces.
    const float angle = rng.Uniform(0.1f, 1.47f);
    const Vec3 out = std::cos(angle) * y + std::sin(angle) * z;
    const Vec3 side = std::sin(angle) * y - std::cos(angle) * z;
    const float lift = r * LogUniform(rng, 0.1f, 1.5f);
    const Vec3 edge = h.y * y + h.z * z;
    const float along = rng.Uniform(-0.5f, 0.5f);
    const float across = rng.Uniform(-2.0f, 2.0f);
    const Vec3 centre = edge + along * h.x * x + lift * out + across * r * side;
    const Vec3 dir =
        Tilted(x, out, side, theta, rng.Uniform(-3.14159f, 3.14159f));
    const float len_c = len * rng.Uniform(0.3f, 1.5f);
    const Capsule3 cap{centre - 0.5f * len_c * dir, centre + 0.5f * len_c * dir,
                       r};
    const float dx = rng.Uniform(-1.0f, 1.0f);
    const float dside = rng.Uniform(-1.0f, 1.0f);
    const float dout = rng.Uniform(0.5f, 1.5f);
    const Vec3 dc = dx * lift * x + dside * r * side - dout * lift * out;
    const Pose3 pose{rng.InBox(len), q};
    // The box's axes are q's; the capsule is given in world coordinates
    // around the box's centre.
    const Pose3 cap_pose{pose.position, {}};
    SCOPED_TRACE(::testing::Message() << "case " << i << " len " << len
                                      << " theta " << theta << " r " << r);
    CheckNearlyParallel(ConvexShape3{cap}, cap_pose, dc, ConvexShape3{Box3{h}},
                        pose, Vec3{}, 1e-6f * 2 * len, &stats);
  }
  std::printf(
      "capsule along a box edge: %d hits, %d misses, %d started, "
      "%d end overlapping, %d grazes\n",
      stats.hits, stats.misses, stats.started, stats.end_overlapping,
      stats.grazes);
  EXPECT_GT(stats.hits, 4000);
  EXPECT_GT(stats.misses, 2000);
}

// The same regime against a box: a capsule 1e3 to 1e4 long with a
// radius of 1e-7 to 1e-5 of that lies beside an edge of an equally long box
// (axis-aligned, small cross-section, so the coordinates are good to 5e-7),
// outside both faces, turned about the outward direction by 2.5 to 100
// radii over its length, and moves onto the edge. Its segment and the edge
// span a parallelogram over 2 radii high whose face the capsule meets first
// (RoundAgainst's loop over B's edges, which keeps the face however small
// sin(theta) is).
TEST(Sweep3d, CapsuleAlongLongBoxEdgeProperties) {
  Rng rng(9004);
  NearlyParallelStats stats;
  for (int i = 0; i < 5000; ++i) {
    const float len = LogUniform(rng, 3.0f, 4.0f);
    const Vec3 h{0.5f * len, rng.Uniform(1.0f, 4.0f), rng.Uniform(1.0f, 4.0f)};
    const float r = len * LogUniform(rng, -7.0f, -5.0f);
    const float half_height = r * LogUniform(rng, 0.1f, 1.7f);
    const float lift = r * LogUniform(rng, 0.1f, 1.5f);
    const float half_len = 0.5f * len * rng.Uniform(0.5f, 1.5f);
    const float lateral = rng.Uniform(-1.0f, 1.0f) * half_height;
    // Outward from the edge (x, +h.y, +h.z), and across it.
    const float angle = rng.Uniform(0.2f, 1.37f);
    const Vec3 out{0, std::cos(angle), std::sin(angle)};
    const Vec3 side{0, std::sin(angle), -std::cos(angle)};
    const Vec3 mid = Vec3{0, h.y, h.z} + lift * out + lateral * side;
    const Capsule3 cap{mid + Vec3{-half_len, 0, 0} - half_height * side,
                       mid + Vec3{half_len, 0, 0} + half_height * side, r};
    const float dside = rng.Uniform(-1.0f, 1.0f);
    const float dout = rng.Uniform(0.5f, 1.5f);
    const Vec3 dc = dside * r * side - dout * lift * out;
    SCOPED_TRACE(::testing::Message() << "case " << i << " len " << len << " r "
                                      << r << " h " << half_height);
    CheckNearlyParallel(ConvexShape3{cap}, Pose3{}, dc, ConvexShape3{Box3{h}},
                        Pose3{}, Vec3{}, 0.02f * r, &stats);
  }
  std::printf(
      "capsule along a long box edge: %d hits, %d misses, %d started, "
      "%d end overlapping, %d grazes\n",
      stats.hits, stats.misses, stats.started, stats.end_overlapping,
      stats.grazes);
  EXPECT_GT(stats.hits, 1500);
  EXPECT_GT(stats.end_overlapping, 1500);
}

// ---- Sliver triangles against a double-precision reference -------------

// The first t in [0, 1] at which the point p + t d comes within r of the
// triangle, or -1. The distance along a line to a convex set is convex in
// t, so a golden-section search finds its least value and, when that is
// within r, bisection finds the first crossing before it.
double ReferenceSphereTriangleToi(Dv p, Dv d, double r, Dv a, Dv b, Dv c) {
  const auto gap = [&](double t) {
    return DistanceToTriangle(p + t * d, a, b, c) - r;
  };
  if (!(gap(0.0) > 0.0)) return -1.0;
  const double g = (std::sqrt(5.0) - 1.0) / 2.0;
  double lo = 0.0;
  double hi = 1.0;
  for (int i = 0; i < 100; ++i) {
    const double x1 = hi - g * (hi - lo);
    const double x2 = lo + g * (hi - lo);
    if (gap(x1) < gap(x2)) {
      hi = x2;
    } else {
      lo = x1;
    }
  }
  double t_min = 0.5 * (lo + hi);
  if (gap(1.0) < gap(t_min)) t_min = 1.0;
  if (gap(t_min) > 0.0) return -1.0;
  lo = 0.0;
  hi = t_min;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (gap(mid) > 0.0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

// Spheres swept onto sliver triangles (width 3e-6 to 3e-3 of the length,
// down to what validation accepts, in random orientations, 1 to 100 long
// and up to 1000 from the origin), from above the face along its normal
// with a little sideways motion. A face normal formed as the float cross
// product of two nearly parallel edges is off by about 1e-7 / sin(angle)
// radians, and its tilted face prism is hit early (by up to 7281
// FLT_EPSILON of the coordinates on this family). The time of impact (as a
// distance travelled) must match the reference within 4 FLT_EPSILON of the
// coordinates' magnitude (the rounding of the normal and the points to float;
// the worst seen is 1.6), and so the sphere must not overlap the triangle
// before the reported time.
TEST(Sweep3d, SphereOntoSliverTriangleMatchesDoubleReference) {
  Rng rng(9101);
  int hits = 0;
  for (int i = 0; i < 6000; ++i) {
    const float len = LogUniform(rng, 0.0f, 2.0f);
    const float far = i % 2 == 0 ? 0.0f : LogUniform(rng, 0.0f, 3.0f);
    const Vec3 u = rng.UnitVector();
    const Vec3 v = NormalizeOrZero(Cross(u, rng.UnitVector()));
    const Vec3 n = Cross(u, v);
    const Vec3 o = rng.InBox(far);
    const float width = len * LogUniform(rng, -5.5f, -2.5f);
    const Triangle3 tri{o - 0.5f * len * u, o + 0.5f * len * u,
                        o + rng.Uniform(-0.5f, 0.5f) * len * u + width * v};
    // Far from the origin the rounding of the vertices can flatten the
    // thinnest slivers below what validation accepts: those are refused
    // upstream, so skip them.
    if (!ValidateShape(ConvexShape3{tri}).ok()) continue;
    const float r = len * LogUniform(rng, -2.0f, -0.3f);
    const float gap = r * rng.Uniform(0.05f, 1.0f);
    // Over the sliver (or just beside it), moving down onto it.
    const float cu = rng.Uniform(-0.5f, 0.5f);
    const float cv = rng.Uniform(-1.0f, 2.0f);
    const Vec3 centre = o + cu * len * u + cv * width * v + (r + gap) * n;
    const float down = rng.Uniform(1.0f, 2.0f);
    const float slide = rng.Uniform(-1.0f, 1.0f);
    const Vec3 d = -(gap * down) * n + (0.1f * gap * slide) * u;
    const double t_ref = ReferenceSphereTriangleToi(
        ToDv(centre), ToDv(d), r, ToDv(tri.a), ToDv(tri.b), ToDv(tri.c));
    if (t_ref < 0.0) continue;
    const SweepResult<3> s =
        Sweep(Sphere{r}, Pose3{centre, {}}, d, tri, Pose3{}, Vec3{});
    SCOPED_TRACE(::testing::Message() << "case " << i << " len " << len
                                      << " width " << width << " r " << r);
    ASSERT_EQ(s.outcome, SweepOutcome::kHit) << "reference t " << t_ref;
    ++hits;
    float m = std::max(r, Length(d));
    for (const Vec3 p : {centre, tri.a, tri.b, tri.c}) {
      m = std::max({m, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
    }
    const double tol = 4.0 * FLT_EPSILON * m;
    const double speed = LenD(ToDv(d));
    ASSERT_NEAR(s.fraction * speed, t_ref * speed, tol)
        << "fraction " << s.fraction << " reference " << t_ref;
    // Nothing overlaps before the reported time.
    const double gap_at = DistanceToTriangle(
        ToDv(centre) + static_cast<double>(s.fraction) * ToDv(d), ToDv(tri.a),
        ToDv(tri.b), ToDv(tri.c));
    ASSERT_GE(gap_at, r - tol);
  }
  EXPECT_GT(hits, 5000);
}

// A box's half extents and pose with the rotation as a double matrix, for
// the exact distance of a point to its surface.
struct DoubleBox {
  Dv centre;
  Dv axis[3];
  double half[3];
};

DoubleBox ToDoubleBox(const Vec3& h, const Pose3& pose) {
  // The float geometry rounds to within about 1e-7 of the double rotation.
  DoubleBox b;
  b.centre = ToDv(pose.position);
  test3d::RotationAxesD(pose.rotation, b.axis);
  b.half[0] = h.x;
  b.half[1] = h.y;
  b.half[2] = h.z;
  return b;
}

Dv LocalToWorld(const DoubleBox& b, Dv local) {
  return b.centre + local.x * b.axis[0] + local.y * b.axis[1] +
         local.z * b.axis[2];
}

// The distance from p to the box's surface (from outside or inside).
double DistanceToBoxSurface(const DoubleBox& b, Dv p) {
  const Dv d = p - b.centre;
  double outside = 0.0;
  double inside = -1e300;  // The largest (least negative) face distance.
  for (int i = 0; i < 3; ++i) {
    const double excess = std::fabs(DotD(d, b.axis[i])) - b.half[i];
    if (excess > 0.0) outside += excess * excess;
    inside = std::max(inside, excess);
  }
  return outside > 0.0 ? std::sqrt(outside) : -inside;
}

// A convex shape of the edge family below: a box, the same box as a hull,
// or a triangle on one of the box's faces sharing the edge; with the exact
// distance to its surface.
struct EdgeFamilyShape {
  ConvexShape3 shape;
  DoubleBox box;
  bool triangle = false;
  Dv tri[3];

  double DistanceToSurface(Dv p) const {
    return triangle ? DistanceToTriangle(p, tri[0], tri[1], tri[2])
                    : DistanceToBoxSurface(box, p);
  }
};

// Kind 0 a box, 1 its hull, 2 the triangle with the box's edge along local
// x at (y, z) = (sy h.y, sz h.z) on the face y = sy h.y, its third vertex
// at the far side of that face.
EdgeFamilyShape MakeEdgeFamilyShape(int kind, Vec3 h, const Pose3& pose,
                                    float sy, float sz) {
  EdgeFamilyShape s;
  s.box = ToDoubleBox(h, pose);
  if (kind == 0) {
    s.shape = Box3{h};
  } else if (kind == 1) {
    std::vector<Vec3> corners;
    for (int k = 0; k < 8; ++k) {
      corners.push_back(
          {(k & 1) ? h.x : -h.x, (k & 2) ? h.y : -h.y, (k & 4) ? h.z : -h.z});
    }
    s.shape = *MakeConvexHull(corners);
  } else {
    const Vec3 local[3] = {{-h.x, sy * h.y, sz * h.z},
                           {h.x, sy * h.y, sz * h.z},
                           {0, sy * h.y, -sz * h.z}};
    s.shape = Triangle3{local[0], local[1], local[2]};
    s.triangle = true;
    for (int k = 0; k < 3; ++k) s.tri[k] = LocalToWorld(s.box, ToDv(local[k]));
  }
  return s;
}

EdgeFamilyShape Shifted(EdgeFamilyShape s, Dv shift) {
  s.box.centre = s.box.centre + shift;
  for (Dv& v : s.tri) v = v + shift;
  return s;
}

// Polytope sweeps whose time of impact is an edge of A against an edge of
// B at sines of 1e-5 (below which edge axes are skipped) to 1e-2: boxes,
// the same boxes as hulls, and triangles on their faces, 1e-1 to 1e3 long,
// in a random orientation and position up to 10 sizes from the origin. B's
// edge is turned by theta about the normal between A's two faces there, so
// the edges' cross product is that normal, beside A's edge and moving onto
// it; they cross when B's lateral offset is under theta times the length.
// At the time of impact the contact point must lie on both surfaces within
// 4e-6 of the coordinates' magnitude M (the rounding of the poses and the
// vertices to float is about 1e-7 of it). The float solve of the edges'
// closest points (ClosestPointsSegmentSegment) has a determinant of
// |d1|^2 |d2|^2 sin^2 carrying round-off of about FLT_EPSILON |d1|^2 |d2|^2,
// so its s is off by about FLT_EPSILON / sin^2 and the point by that times
// the length times sin, off the other edge; below a sine of 0.1 the points
// come from a double solve.
TEST(Sweep3d, NearlyParallelPolytopeEdgesContactPointOnBothSurfaces) {
  Rng rng(9201);
  int hits = 0;
  int edge_hits = 0;  // Normal within 1e-3 of the edges' normal.
  int failures = 0;
  double worst = 0.0;  // In units of the tolerance.
  for (int i = 0; i < 12000; ++i) {
    const int kind_a = i % 3;
    const int kind_b = (i / 3) % 3;
    const float len = LogUniform(rng, -1.0f, 3.0f);
    const Vec3 ha{0.5f * len, len * rng.Uniform(0.05f, 0.5f),
                  len * rng.Uniform(0.05f, 0.5f)};
    const Vec3 hb{0.5f * len * rng.Uniform(0.5f, 1.5f),
                  len * rng.Uniform(0.05f, 0.5f),
                  len * rng.Uniform(0.05f, 0.5f)};
    const float theta = LogUniform(rng, -5.0f, -0.5f);
    // Between A's faces +y and +z at its edge (x, +h.y, +h.z).
    const float alpha = rng.Uniform(0.1f, 1.47f);
    const Vec3 out{0.0f, std::cos(alpha), std::sin(alpha)};
    const Vec3 side{0.0f, std::sin(alpha), -std::cos(alpha)};
    // B: its edge along local x at (-h.y, -h.z) faces -out between its
    // faces -y and -z (beta), then the edge tilts by theta about out.
    const float beta = rng.Uniform(0.1f, 1.47f);
    const Quat qb = Mul(Quat::FromAxisAngle(out, theta),
                        Quat::FromAxisAngle({1, 0, 0}, alpha - beta));
    const float lift = len * LogUniform(rng, -3.0f, -1.0f);
    const float lateral =
        rng.Uniform(-0.4f, 0.4f) * theta * std::min(ha.x, hb.x);
    const Vec3 edge_mid = Vec3{rng.Uniform(-0.3f, 0.3f) * ha.x, ha.y, ha.z} +
                          lift * out + lateral * side;
    const Vec3 centre_b = edge_mid - Rotate(qb, Vec3{0.0f, -hb.y, -hb.z});
    const float approach = rng.Uniform(1.2f, 3.0f);
    const float slide = rng.Uniform(-0.2f, 0.2f);
    const Vec3 db_local = -approach * lift * out + slide * lift * Vec3{1, 0, 0};
    // Everything turned and placed at random.
    const Pose3 world{rng.InBox(2.0f * len), rng.Rotation()};
    const Pose3 pose_a = world;
    const Pose3 pose_b = Mul(world, Pose3{centre_b, qb});
    const Vec3 db = Rotate(world.rotation, db_local);
    const EdgeFamilyShape a =
        MakeEdgeFamilyShape(kind_a, ha, pose_a, 1.0f, 1.0f);
    const EdgeFamilyShape b =
        MakeEdgeFamilyShape(kind_b, hb, pose_b, -1.0f, -1.0f);
    const SweepResult<3> s =
        Sweep(a.shape, pose_a, Vec3{}, b.shape, pose_b, db);
    if (s.outcome != SweepOutcome::kHit) continue;
    ++hits;
    if (Length(s.normal - Rotate(world.rotation, out)) < 1e-3f) ++edge_hits;
    float m = Length(db);
    for (const Vec3 p : {pose_a.position, pose_b.position}) {
      m = std::max({m, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
    }
    m += 2.0f * std::max(Length(ha), Length(hb));
    const double tol = 4e-6 * m;
    const Dv p = ToDv(s.point);
    const Dv shift = static_cast<double>(s.fraction) * ToDv(db);
    const double off_a = std::fabs(a.DistanceToSurface(p));
    const double off_b = std::fabs(Shifted(b, shift).DistanceToSurface(p));
    const double off = std::max(off_a, off_b);
    worst = std::max(worst, off / tol);
    if (off > tol && ++failures <= 5) {
      ADD_FAILURE() << "case " << i << " kinds " << kind_a << "-" << kind_b
                    << " len " << len << " theta " << theta
                    << ": point off A's surface by " << off_a << ", off B's by "
                    << off_b << ", tolerance " << tol;
    }
  }
  std::printf(
      "nearly parallel polytope edges: %d hits, %d on the edge axis, %d "
      "failures, worst %.2f tolerances\n",
      hits, edge_hits, failures, worst);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(edge_hits, 8000);
}

// Sweeps at the extremes of speed, for every pair kind: 1e-38 units per
// step (a time of impact over a rate that small overflows float) and 1e15
// (the largest displacement a scene accepts, kMaxQueryCoordinate).
// This binary traps FE_OVERFLOW, FE_DIVBYZERO and FE_INVALID, so a sweep
// that divides carelessly crashes the test. Too slow to arrive, the tiny
// motion must give a miss or a start already overlapping.
TEST(Sweep3d, ExtremeSpeedsRaiseNoFloatingPointException) {
  Rng rng(4243);
  int checked = 0;
  for (int ka = 0; ka < 5; ++ka) {
    for (int kb = 0; kb < 5; ++kb) {
      for (int i = 0; i < 20; ++i) {
        const ConvexShape3 a = testing_util::RandomShape(ka, rng);
        const ConvexShape3 b = testing_util::RandomShape(kb, rng);
        const Pose3 pa{rng.InBox(2.0f), rng.Rotation()};
        const Pose3 pb{rng.InBox(6.0f), rng.Rotation()};
        const Vec3 direction = rng.InBox(1.0f);
        for (const float speed : {1e-38f, 1e15f}) {
          const SweepResult<3> r = Sweep(a, pa, {}, b, pb, speed * direction);
          if (speed < 1.0f) {
            const bool overlapping = Contact(a, pa, b, pb).overlapping;
            EXPECT_EQ(r.outcome, overlapping ? SweepOutcome::kStartedOverlapping
                                             : SweepOutcome::kMiss)
                << testing_util::KindName(ka) << "-"
                << testing_util::KindName(kb) << " " << i;
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 1000);
}

}  // namespace
}  // namespace sator
