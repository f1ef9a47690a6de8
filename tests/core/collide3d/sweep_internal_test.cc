// The sweep's internal paths: the box-box sweep (Gottschalk's 15 axes from
// the rotation matrix) against a reference in double from the separating
// axis theorem, and the Gauss-map pruned edge axes against every edge pair
// (same outcome, same time of impact).
#include <algorithm>
#include <cmath>

#include "collide3d/convex_closest.h"
#include "collide3d/sweep_round.h"
#include "collide3d/sweep_sat.h"
#include "collide3d/swept_box.h"
#include "collide3d/typed3d.h"
#include "core/collide3d/box_reference3d.h"
#include "core/collide3d/shape_gen.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/sweep3d.h"

namespace sator::internal {
namespace {

using testing_util::Rng;

void Compare(const SatSweepResult& x, const SatSweepResult& y, int i) {
  ASSERT_EQ(x.status, y.status) << i;
  if (x.status != SatSweepStatus::kHit) return;
  ASSERT_NEAR(x.t, y.t, 1e-5f) << i;
  // Two axes may tie for the latest entry (then either normal is right);
  // in random poses that happens only on a set of measure zero.
  ASSERT_GT(Dot(x.normal, y.normal), 0.999f) << i;
  ASSERT_LE(Length(x.point - y.point), 1e-3f) << i;
}

// The box-box sweep against the reference in double (box_reference3d.h),
// exact up to a distance tolerance: boxes shrunk by it that touch must be
// hit, boxes grown by it that do not must be missed, the time lies between
// the grown and the shrunk boxes' times, the boxes at that time touch along
// the reported normal, and the reported point lies in both.
void CheckBoxSweep(const Box3& a, const Box3& b, const Pose3& b_in_a, Vec3 v,
                   int i) {
  const SatSweepResult fast = SweepBoxBox(a, b, b_in_a, v);
  const test3d::BoxPairD pair = test3d::MakeBoxPairD(a, b, b_in_a);
  const test3d::Dv motion = test3d::ToDv(v);
  const double size = Length(a.half_extents) + Length(b.half_extents) +
                      Length(b_in_a.position) + Length(v);
  const double tol = 1e-5 * size;
  const test3d::BoxSweepD inner = test3d::BoxSweepReference(pair, motion, -tol);
  const test3d::BoxSweepD outer = test3d::BoxSweepReference(pair, motion, tol);
  SCOPED_TRACE(testing::Message() << "case " << i);
  if (inner.hit) {
    ASSERT_NE(fast.status, SatSweepStatus::kMiss);
  }
  if (!outer.hit) {
    ASSERT_EQ(fast.status, SatSweepStatus::kMiss);
  }
  if (fast.status == SatSweepStatus::kMiss) return;
  if (inner.hit && inner.started_overlapping) {
    ASSERT_EQ(fast.status, SatSweepStatus::kStartedOverlapping);
  }
  if (!outer.started_overlapping) {
    ASSERT_EQ(fast.status, SatSweepStatus::kHit);
  }
  if (fast.status != SatSweepStatus::kHit) return;
  ASSERT_GE(fast.t, outer.t - 1e-6);
  if (inner.hit) {
    ASSERT_LE(fast.t, inner.t + 1e-6);
  }
  ASSERT_NEAR(Length(fast.normal), 1.0f, 1e-5f);
  test3d::BoxPairD at_t = pair;
  at_t.center_b = pair.center_b + static_cast<double>(fast.t) * motion;
  ASSERT_NEAR(test3d::OverlapAlongD(at_t, test3d::ToDv(fast.normal)), 0.0,
              2.0 * tol);
  const test3d::Dv point = test3d::ToDv(fast.point);
  ASSERT_LE(test3d::OutsideA(at_t, point), tol);
  ASSERT_LE(test3d::OutsideB(at_t, at_t.center_b, point), tol);
}

TEST(SweepInternal, BoxBoxMatchesDoubleReference) {
  Rng rng(31);
  int hits = 0;
  for (int i = 0; i < 100000; ++i) {
    const Box3 a = std::get<Box3>(testing_util::RandomShape(1, rng));
    const Box3 b = std::get<Box3>(testing_util::RandomShape(1, rng));
    // Every fourth pose axis-aligned, to cover the parallel edge pairs.
    const Pose3 b_in_a{rng.InBox(4.0f), i % 4 == 0 ? Quat{} : rng.Rotation()};
    const float aim = rng.Uniform(0.3f, 2.0f);
    const Vec3 v = -b_in_a.position * aim + rng.InBox(1.5f);
    CheckBoxSweep(a, b, b_in_a, v, i);
    if (HasFatalFailure()) return;
    hits += SweepBoxBox(a, b, b_in_a, v).status == SatSweepStatus::kHit;
  }
  EXPECT_GT(hits, 20000);
}

// The box sweep divides on every axis at once. Motions so slow that an
// axis's entry over its speed overflows float (or whose speed is zero) must
// raise no floating-point exception (this binary traps FE_OVERFLOW,
// FE_DIVBYZERO and FE_INVALID) and must agree with the reference.
TEST(SweepInternal, BoxBoxTinyMotionsRaiseNoException) {
  const Box3 a{{1.0f, 0.5f, 0.25f}};
  const Box3 b{{0.5f, 0.5f, 0.5f}};
  Rng rng(33);
  for (int i = 0; i < 2000; ++i) {
    const Pose3 b_in_a{rng.InBox(4.0f), i % 2 == 0 ? Quat{} : rng.Rotation()};
    const float tiny = i % 3 == 0 ? 0.0f : 1e-38f * rng.Uniform(0.1f, 1.0f);
    const Vec3 v{tiny, i % 5 == 0 ? -tiny : 0.0f, 0.5f * tiny};
    CheckBoxSweep(a, b, b_in_a, v, i);
    if (HasFatalFailure()) return;
  }
}

TEST(SweepInternal, GaussMapPruningKeepsEveryNeededAxis) {
  Rng rng(32);
  int hits = 0;
  for (int i = 0; i < 30000; ++i) {
    const int kind_a = (i % 3 == 0) ? 1 : ((i % 3 == 1) ? 3 : 4);
    const ConvexShape3 a = testing_util::RandomShape(kind_a, rng);
    const ConvexShape3 b = testing_util::RandomShape(4, rng);
    const Pose3 b_in_a{rng.InBox(4.0f), rng.Rotation()};
    const float aim = rng.Uniform(0.3f, 2.0f);
    const Vec3 v = -b_in_a.position * aim + rng.InBox(1.5f);
    const SatSweepResult pruned = SweepPolytopes(a, b, b_in_a, v);
    const SatSweepResult all = SweepPolytopesUnpruned(a, b, b_in_a, v);
    Compare(pruned, all, i);
    hits += pruned.status == SatSweepStatus::kHit;
  }
  EXPECT_GT(hits, 6000);
}

// Two 3 x 0.2 x 0.2 boxes turned 45 degrees about x (an
// edge on top, an edge below), B turned 8e-4 rad about z and dropped onto
// A. The edges are nearly parallel, their cross product alone decides the
// impact at 1 - 0.2 sqrt(2), and skipping it (sine below 1e-3) would report
// the impact 1.2e-3 early, where the boxes are still apart.
TEST(SweepInternal, BoxBoxNearlyParallelEdgesHitOnTime) {
  const float kPi = 3.14159265f;
  const Box3 box{{1.5f, 0.1f, 0.1f}};
  const Quat diamond = Quat::FromAxisAngle({1, 0, 0}, 0.25f * kPi);
  const Quat twist = Quat::FromAxisAngle({0, 0, 1}, 8e-4f);
  const Pose3 pose_a{{0, 0, 0}, diamond};
  const Pose3 pose_b{{0, 0, 1.0f}, Mul(twist, diamond)};
  const Vec3 move_b{0, 0, -1.0f};
  const SweepResult<3> r = Sweep(ConvexShape3{box}, pose_a, Vec3{},
                                 ConvexShape3{box}, pose_b, move_b);
  ASSERT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, 1.0f - 0.2f * std::sqrt(2.0f), 2e-5f);
  const Pose3 at_hit{pose_b.position + r.fraction * move_b, pose_b.rotation};
  EXPECT_NEAR(ContactBoxBox(box, box, MulT(pose_a, at_hit)).depth, 0.0f, 2e-5f);
}

// Seeded random box pairs whose edges are 1e-5 to 1e-1 rad from parallel,
// B thrown at an edge of their Minkowski sum (where nearly parallel edges
// meet): at the time of impact the boxes touch (the static MTV's depth is
// within round-off of 0), before it they are apart, and a miss never
// passes through overlap (sampled).
TEST(SweepInternal, BoxBoxNearlyParallelEdgesTouchAtImpact) {
  Rng rng(34);
  int hits = 0;
  for (int i = 0; i < 20000; ++i) {
    const Box3 a{{rng.Uniform(0.1f, 1.5f), rng.Uniform(0.1f, 1.5f),
                  rng.Uniform(0.1f, 1.5f)}};
    const Box3 b{{rng.Uniform(0.1f, 1.5f), rng.Uniform(0.1f, 1.5f),
                  rng.Uniform(0.1f, 1.5f)}};
    const float tilt = std::pow(10.0f, rng.Uniform(-5.0f, -1.0f));
    const Quat rotation = Quat::FromAxisAngle(rng.UnitVector(), tilt);
    const int k = rng.Int(0, 2);
    Vec3 corner;
    corner[k] =
        rng.Uniform(-0.5f, 0.5f) * (a.half_extents[k] + b.half_extents[k]);
    for (const int m : {(k + 1) % 3, (k + 2) % 3}) {
      const float sign = rng.Int(0, 1) == 0 ? 1.0f : -1.0f;
      const float jitter = rng.Uniform(-2e-3f, 2e-3f);
      corner[m] =
          sign * (a.half_extents[m] + b.half_extents[m]) * (1.0f + jitter);
    }
    const Pose3 b_in_a{corner * rng.Uniform(1.1f, 2.0f), rotation};
    const float aim = rng.Uniform(0.3f, 1.2f);
    const Vec3 v = -b_in_a.position * aim + rng.InBox(0.01f);
    const SatSweepResult r = SweepBoxBox(a, b, b_in_a, v);
    ASSERT_NE(r.status, SatSweepStatus::kStartedOverlapping) << i;
    const float size = Length(a.half_extents) + Length(b.half_extents);
    const float tol = 2e-5f * size;
    auto depth_at = [&](float t) {
      return ContactBoxBox(a, b, {b_in_a.position + t * v, b_in_a.rotation})
          .depth;
    };
    if (r.status == SatSweepStatus::kHit) {
      ++hits;
      ASSERT_NEAR(depth_at(r.t), 0.0f, tol) << i << " tilt " << tilt;
      ASSERT_LT(depth_at(0.5f * r.t), tol) << i;
    } else {
      for (int step = 1; step <= 16; ++step) {
        ASSERT_LT(depth_at(static_cast<float>(step) / 16.0f), tol) << i;
      }
    }
  }
  EXPECT_GT(hits, 8000);
}

// ClosestPointsSegmentSegment on parallel and nearly parallel segments
// (sines 1e-8 to 1e-1), against the double solve
// (ClosestPointsSegmentSegmentD3): the middle of
// the common stretch for exactly parallel overlapping segments (not s = 0,
// an end of it), and the double answer within 1e-6 of the lengths for
// nearly parallel ones (a float solve's s is off by about FLT_EPSILON /
// sin^2).
TEST(SweepInternal, ClosestPointsOfNearlyParallelSegmentsMatchDouble) {
  // Parallel along x, overlapping over [1, 3]: the middle is x = 2.
  Vec3 c1;
  Vec3 c2;
  ClosestPointsSegmentSegment({0, 0, 0}, {3, 0, 0}, {1, 1, 0}, {5, 1, 0}, &c1,
                              &c2);
  EXPECT_NEAR(c1.x, 2.0f, 1e-6f);
  EXPECT_NEAR(c2.x, 2.0f, 1e-6f);
  EXPECT_NEAR(c2.y, 1.0f, 1e-6f);
  // Reversed direction, B inside A: B's middle.
  ClosestPointsSegmentSegment({0, 0, 0}, {4, 0, 0}, {3, 0, 1}, {2, 0, 1}, &c1,
                              &c2);
  EXPECT_NEAR(c1.x, 2.5f, 1e-6f);
  EXPECT_NEAR(c2.x, 2.5f, 1e-6f);
  Rng rng(35);
  int failures = 0;
  for (int i = 0; i < 20000; ++i) {
    const float len = std::pow(10.0f, rng.Uniform(-1.0f, 3.0f));
    const Vec3 u = rng.UnitVector();
    const Vec3 w = NormalizeOrZero(Cross(u, rng.UnitVector()));
    const float sine = std::pow(10.0f, rng.Uniform(-8.0f, -1.0f));
    const Vec3 dir = std::sqrt(1.0f - sine * sine) * u + sine * w;
    const Vec3 p1 = rng.InBox(len);
    const Vec3 q1 = p1 + len * u;
    const float along = rng.Uniform(-0.5f, 0.5f);
    const Vec3 p2 = p1 + along * len * u + rng.InBox(1e-2f * len);
    const Vec3 q2 = p2 + len * rng.Uniform(0.5f, 1.5f) * dir;
    ClosestPointsSegmentSegment(p1, q1, p2, q2, &c1, &c2);
    D3 d1;
    D3 d2;
    ClosestPointsSegmentSegmentD3(p1, q1, p2, q2, &d1, &d2);
    const Vec3 r1 = ToVec3(d1);
    const Vec3 r2 = ToVec3(d2);
    // Near parallel the closest pair is ill-posed only where the double
    // solve also treats the segments as parallel: compare distances there.
    const float tol = 1e-6f * 3.0f * len;
    const bool ok = sine < 1e-6f
                        ? std::fabs(Length(c2 - c1) - Length(r2 - r1)) <= tol
                        : Length(c1 - r1) <= tol && Length(c2 - r2) <= tol;
    if (!ok && ++failures <= 5) {
      ADD_FAILURE() << "case " << i << " len " << len << " sine " << sine
                    << ": off the double solve by " << Length(c1 - r1);
    }
  }
  EXPECT_EQ(failures, 0);
}

// The mesh sweep's slab test (swept_box.h) is monotone: a box containing
// another is reached whenever that one is, and no later, with both margins
// (kBoxSlack of the size, the per-query frame slack), on boxes near the
// origin and near 1e4, motions with parallel (|d_i| below kParallelEpsilon),
// tiny and large components, and limits t_max down to subnormal.
TEST(SweepInternal, SweptBoxIsMonotone) {
  Rng rng(33);
  int reached = 0;
  int failures = 0;
  for (int i = 0; i < 200000; ++i) {
    const float scale = (i % 3 == 0) ? 1e4f : (i % 3 == 1 ? 1e2f : 1.0f);
    const Vec3 base = rng.InBox(scale);
    const Aabb3 start{
        base - Vec3{0.3f, 0.2f, 0.4f},
        base + Vec3{rng.Uniform(0.0f, 1.0f), rng.Uniform(0.0f, 1.0f),
                    rng.Uniform(0.0f, 1.0f)}};
    Vec3 d = rng.InBox(8.0f);
    for (int k = 0; k < 3; ++k) {
      const int kind = rng.Int(0, 5);
      if (kind == 0) d[k] = 0.0f;
      if (kind == 1) d[k] = rng.Uniform(-1e-20f, 1e-20f);
      if (kind == 2) d[k] = rng.Uniform(-1e-6f, 1e-6f);
    }
    const float frame = kFrameSlack * std::max(Magnitude(start), Magnitude(d));
    const SweptBox swept(start, d, frame);
    // A box near the start's path, and one containing it.
    const Vec3 c = base + rng.Uniform(-0.5f, 1.5f) * d + rng.InBox(1.0f);
    const Vec3 h{rng.Uniform(0.0f, 0.5f), rng.Uniform(0.0f, 0.5f),
                 rng.Uniform(0.0f, 0.5f)};
    const Aabb3 inner{c - h, c + h};
    const Aabb3 outer{inner.min - Vec3{rng.Uniform(0.0f, 0.2f), 0.0f,
                                       rng.Uniform(0.0f, 0.2f)},
                      inner.max + Vec3{0.0f, rng.Uniform(0.0f, 0.2f), 0.0f}};
    float t_max = 1.0f;
    if (i % 4 == 1) t_max = rng.Uniform(0.0f, 1.0f);
    if (i % 4 == 2)
      t_max = std::ldexp(rng.Uniform(1.0f, 2.0f), -rng.Int(1, 148));
    float t_inner = 0.0f;
    float t_outer = 0.0f;
    if (swept.Reaches(inner, t_max, &t_inner)) {
      ++reached;
      const bool outer_reached = swept.Reaches(outer, t_max, &t_outer);
      if ((!outer_reached || t_outer > t_inner) && ++failures <= 5) {
        ADD_FAILURE() << "case " << i << ": not monotone, " << t_inner
                      << " then " << outer_reached << " " << t_outer;
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(reached, 20000);
}

}  // namespace
}  // namespace sator::internal
