// The sweep's internal fast paths against the generic code they shortcut:
// the box-box sweep (Gottschalk's 15 axes from the rotation matrix) against
// the generic polytope sweep, and the Gauss-map pruned edge axes against
// every edge pair. Same outcome, same time of impact.
#include <cmath>

#include "core/geometry3d_casts/shape_gen.h"
#include "geometry3d/sweep_sat.h"
#include "gtest/gtest.h"

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

TEST(SweepInternal, BoxBoxFastPathMatchesGeneric) {
  Rng rng(31);
  int hits = 0;
  for (int i = 0; i < 100000; ++i) {
    const Box3 a = std::get<Box3>(testing_util::RandomShape(1, rng));
    const Box3 b = std::get<Box3>(testing_util::RandomShape(1, rng));
    // Every fourth pose axis-aligned, to cover the parallel edge pairs.
    const Pose3 b_in_a{rng.InBox(4.0f), i % 4 == 0 ? Quat{} : rng.Rotation()};
    const Vec3 v = -b_in_a.position * rng.Uniform(0.3f, 2.0f) + rng.InBox(1.5f);
    const SatSweepResult fast = SweepBoxBox(a, b, b_in_a, v);
    const SatSweepResult slow = SweepPolytopes(a, b, b_in_a, v);
    Compare(fast, slow, i);
    hits += fast.status == SatSweepStatus::kHit;
  }
  EXPECT_GT(hits, 20000);
}

// The box sweep divides on every axis at once. Motions so slow that an
// axis's entry over its speed overflows float (or whose speed is zero) must
// raise no floating-point exception (this binary traps FE_OVERFLOW,
// FE_DIVBYZERO and FE_INVALID) and must agree with the generic sweep.
TEST(SweepInternal, BoxBoxFastPathTinyMotionsRaiseNoException) {
  const Box3 a{{1.0f, 0.5f, 0.25f}};
  const Box3 b{{0.5f, 0.5f, 0.5f}};
  Rng rng(33);
  for (int i = 0; i < 2000; ++i) {
    const Pose3 b_in_a{rng.InBox(4.0f), i % 2 == 0 ? Quat{} : rng.Rotation()};
    const float tiny = i % 3 == 0 ? 0.0f : 1e-38f * rng.Uniform(0.1f, 1.0f);
    const Vec3 v{tiny, i % 5 == 0 ? -tiny : 0.0f, 0.5f * tiny};
    Compare(SweepBoxBox(a, b, b_in_a, v), SweepPolytopes(a, b, b_in_a, v), i);
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
    const Vec3 v = -b_in_a.position * rng.Uniform(0.3f, 2.0f) + rng.InBox(1.5f);
    const SatSweepResult pruned = SweepPolytopes(a, b, b_in_a, v);
    const SatSweepResult all = SweepPolytopesUnpruned(a, b, b_in_a, v);
    Compare(pruned, all, i);
    hits += pruned.status == SatSweepStatus::kHit;
  }
  EXPECT_GT(hits, 6000);
}

}  // namespace
}  // namespace sator::internal
