// Sweeps: analytic cases worked out by hand, then properties on seeded
// random pairs of every kind, checked with part A's Contact (an independent
// static test): no overlap just before the time of impact, overlap just
// after it, symmetry under swapping A and B, started-overlapping flagged
// exactly when the shapes overlap at t = 0, and no overlap at sampled times
// of a miss.
#include "sator/core/geometry3d/sweep3d.h"

#include <cmath>
#include <cstdio>

#include "core/geometry3d_casts/shape_gen.h"
#include "gtest/gtest.h"
#include "sator/core/geometry3d/contact3d.h"

namespace sator {
namespace {

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
  // exactly when part A's Contact says the shapes touch, a miss otherwise
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
    const Vec3 db =
        (pa.position - pb.position) * rng.Uniform(0.3f, 2.0f) + rng.InBox(1.5f);
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
    ASSERT_GT(Dot(r.normal, -s.normal), 0.999f);
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

// Sweeps at the extremes of speed, for every pair kind: 1e-38 units per
// step (a time of impact over a rate that small overflows float) and 1e15
// (the largest displacement a scene accepts, broadphase::kMaxCoordinate).
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
