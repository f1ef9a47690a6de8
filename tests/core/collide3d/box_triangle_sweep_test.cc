// The typed box-triangle sweep (SweepBoxTriangle, used by the mesh sweep for
// every box candidate) against the generic polytope sweep it replaces
// (SweepPolytopes on a Box3 and a Triangle3): the same status, and the same
// fraction, normal and contact point to the bit (with a limit t_max at or
// above the hit; below it, the same or a miss), on seeded random pairs and
// on the adversarial families where the two could part (faces and edges
// parallel, grazing and touching motions, started overlapping, tiny and
// sliver triangles, coordinates near 1e4, no motion).
#include <cmath>
#include <cstdio>
#include <limits>

#include "collide3d/sweep_sat.h"
#include "core/collide3d/cast_test_util.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/shapes3d.h"

namespace sator::internal {
namespace {

using testing_util::Rng;

// Equal as floats (a zero's sign aside: the generic box's axes are rotated
// by the identity quaternion, which may turn a 0 into -0).
bool Same(Vec3 x, Vec3 y) { return x.x == y.x && x.y == y.y && x.z == y.z; }

struct Tally {
  int hits = 0;
  int started = 0;
  int misses = 0;
};

// Runs both sweeps on the box `h` at the origin against triangle `tri`
// placed by `pose` (the typed one is given the vertices placed as
// MakeTriangle places them) and moving by v; returns false on a mismatch.
bool Matches(Vec3 h, const Triangle3& tri, const Pose3& pose, Vec3 v,
             Tally* tally, int i) {
  const Box3 box{h};
  const SatSweepResult generic =
      SweepPolytopes(ConvexShape3{box}, ConvexShape3{tri}, pose, v);
  const Vec3 placed[3] = {Transform(pose, tri.a), Transform(pose, tri.b),
                          Transform(pose, tri.c)};
  const SatSweepResult typed = SweepBoxTriangle(box, placed, v, true, 1.0f);
  // Without the point: the rest unchanged.
  const SatSweepResult no_point = SweepBoxTriangle(box, placed, v, false, 1.0f);
  EXPECT_TRUE(no_point.status == typed.status && no_point.t == typed.t &&
              Same(no_point.normal, typed.normal) &&
              Same(no_point.point, Vec3{}))
      << "case " << i;
  switch (generic.status) {
    case SatSweepStatus::kHit:
      ++tally->hits;
      break;
    case SatSweepStatus::kStartedOverlapping:
      ++tally->started;
      break;
    case SatSweepStatus::kMiss:
      ++tally->misses;
      break;
  }
  if (generic.status == SatSweepStatus::kHit) {
    // With a limit: a hit at exactly t_max is still found (a mesh sweep's
    // ties), and a hit after it comes back unchanged or as a miss.
    const SatSweepResult at_limit =
        SweepBoxTriangle(box, placed, v, true, generic.t);
    EXPECT_TRUE(at_limit.status == generic.status && at_limit.t == generic.t &&
                Same(at_limit.normal, generic.normal) &&
                Same(at_limit.point, generic.point))
        << "case " << i;
    for (const float below :
         {std::nextafter(generic.t, 0.0f), 0.999f * generic.t, 0.0f}) {
      const SatSweepResult early =
          SweepBoxTriangle(box, placed, v, true, below);
      EXPECT_TRUE(early.status == SatSweepStatus::kMiss ||
                  (early.status == generic.status && early.t == generic.t &&
                   Same(early.normal, generic.normal)))
          << "case " << i;
    }
  }
  const bool same = typed.status == generic.status && typed.t == generic.t &&
                    Same(typed.normal, generic.normal) &&
                    Same(typed.point, generic.point);
  EXPECT_TRUE(same) << "case " << i << ": status "
                    << static_cast<int>(typed.status) << " vs "
                    << static_cast<int>(generic.status) << ", t " << typed.t
                    << " vs " << generic.t << ", normal (" << typed.normal.x
                    << ", " << typed.normal.y << ", " << typed.normal.z
                    << ") vs (" << generic.normal.x << ", " << generic.normal.y
                    << ", " << generic.normal.z << ")";
  return same;
}

Vec3 RandomHalfExtents(Rng& rng) {
  const float x = rng.Uniform(0.05f, 2.0f);
  const float y = rng.Uniform(0.05f, 2.0f);
  const float z = rng.Uniform(0.05f, 2.0f);
  return {x, y, z};
}

// A triangle around `center` with vertices within `size` of it.
Triangle3 RandomTriangle(Vec3 center, float size, Rng& rng) {
  const Vec3 a = rng.InBox(size);
  const Vec3 b = rng.InBox(size);
  const Vec3 c = rng.InBox(size);
  return {center + a, center + b, center + c};
}

// A motion towards the origin (the box) from `from`, overshooting or
// falling short, with some sideways scatter.
Vec3 Aim(Vec3 from, Rng& rng) {
  const float aim = rng.Uniform(0.3f, 2.0f);
  const Vec3 scatter = rng.InBox(1.5f);
  return -from * aim + scatter;
}

// Every 4th pose is the identity, the rest random.
Pose3 RandomPose(int i, Rng& rng) {
  if (i % 4 == 0) return Pose3{};
  const Quat q = rng.Rotation();
  return {Vec3{}, q};
}

// 9 x 40,000 pairs in all (the random family counts twice).
constexpr int kPerFamily = 40000;

TEST(BoxTriangleSweep, RandomPairsMatchGeneric) {
  Rng rng(101);
  Tally tally;
  for (int i = 0; i < 2 * kPerFamily; ++i) {
    const Vec3 h = RandomHalfExtents(rng);
    const Vec3 center = rng.InBox(4.0f);
    const Triangle3 tri = RandomTriangle(center, 1.5f, rng);
    const Pose3 pose = RandomPose(i, rng);
    const Vec3 v = Aim(Transform(pose, center), rng);
    ASSERT_TRUE(Matches(h, tri, pose, v, &tally, i));
  }
  EXPECT_GT(tally.hits, kPerFamily / 2);
  EXPECT_GT(tally.started, 1000);
  EXPECT_GT(tally.misses, 1000);
}

// The triangle in a plane of constant x, y or z (its face parallel to one
// of the box's faces; its normal equals a box axis, and three of the edge
// crosses are parallel to it), sometimes with one edge along a box axis too.
TEST(BoxTriangleSweep, FaceParallelToBoxFaceMatchesGeneric) {
  Rng rng(102);
  Tally tally;
  for (int i = 0; i < kPerFamily; ++i) {
    const Vec3 h = RandomHalfExtents(rng);
    const int k = rng.Int(0, 2);
    const float level = rng.Uniform(-4.0f, 4.0f);
    const Vec3 center = rng.InBox(3.0f);
    Triangle3 tri = RandomTriangle(center, 1.5f, rng);
    tri.a[k] = level;
    tri.b[k] = level;
    tri.c[k] = level;
    if (i % 2 == 0) {
      // Edge ab along the box axis after k.
      const int j = (k + 1) % 3;
      const float length = rng.Uniform(0.1f, 3.0f);
      tri.b = tri.a;
      tri.b[j] += length;
    }
    Vec3 v = Aim((tri.a + tri.b + tri.c) * (1.0f / 3.0f), rng);
    if (i % 3 == 0) {
      // Straight along the face normal.
      const float along = v[k];
      v = Vec3{};
      v[k] = along;
    }
    ASSERT_TRUE(Matches(h, tri, Pose3{}, v, &tally, i));
  }
  EXPECT_GT(tally.hits, kPerFamily / 4);
}

// An edge of the triangle parallel to a box edge (the cross product of the
// pair vanishes: Run skips it, and so must the typed sweep), or nearly so.
TEST(BoxTriangleSweep, EdgesParallelMatchGeneric) {
  Rng rng(103);
  Tally tally;
  for (int i = 0; i < kPerFamily; ++i) {
    const Vec3 h = RandomHalfExtents(rng);
    const Vec3 center = rng.InBox(3.0f);
    Triangle3 tri = RandomTriangle(center, 1.5f, rng);
    const int k = rng.Int(0, 2);
    const float length = rng.Uniform(-3.0f, 3.0f);
    Vec3 along{};
    along[k] = length;
    if (i % 3 == 1) {
      // Nearly parallel: tilted by up to about 1e-5 radians.
      const Vec3 tilt = rng.InBox(1e-5f * std::fabs(length));
      along = along + tilt;
    }
    tri.b = tri.a + along;
    const Vec3 v = Aim(center, rng);
    ASSERT_TRUE(Matches(h, tri, Pose3{}, v, &tally, i));
  }
  EXPECT_GT(tally.hits, kPerFamily / 4);
}

// Motions that just reach the box at t = 1 (or just fall short or just
// pass), and triangles that start touching the box: the pair from a random
// hit, moved to its time of impact.
TEST(BoxTriangleSweep, GrazingAndTouchingMatchGeneric) {
  Rng rng(104);
  Tally tally;
  int built = 0;
  for (int i = 0; built < kPerFamily; ++i) {
    const Vec3 h = RandomHalfExtents(rng);
    const Vec3 center = rng.InBox(4.0f);
    const Triangle3 tri = RandomTriangle(center, 1.5f, rng);
    const Vec3 v = Aim(center, rng);
    const SatSweepResult first =
        SweepPolytopes(ConvexShape3{Box3{h}}, ConvexShape3{tri}, Pose3{}, v);
    if (first.status != SatSweepStatus::kHit) continue;
    ++built;
    const float t = first.t;
    // Reaching the box at the end of the motion, a hair before or after.
    const float scale =
        (i % 3 == 0) ? 1.0f : (i % 3 == 1 ? 0.999999f : 1.000001f);
    ASSERT_TRUE(Matches(h, tri, Pose3{}, v * (t * scale), &tally, i));
    // Moved to the time of impact: touching at the start, then moving on,
    // back, sideways or not at all.
    const Vec3 offset = v * t;
    const Triangle3 touching{tri.a + offset, tri.b + offset, tri.c + offset};
    const int kind = i % 4;
    Vec3 w = v;
    if (kind == 1) w = -v;
    if (kind == 2) w = Cross(v, first.normal);
    if (kind == 3) w = Vec3{};
    ASSERT_TRUE(Matches(h, touching, Pose3{}, w, &tally, i));
  }
  EXPECT_GT(tally.hits, kPerFamily / 4);
  EXPECT_GT(tally.started, kPerFamily / 4);
}

// Triangles through the box (a vertex inside, or an edge through it), and
// triangles larger than the box cutting it: started overlapping, whatever
// the motion.
TEST(BoxTriangleSweep, StartedOverlappingMatchesGeneric) {
  Rng rng(105);
  Tally tally;
  for (int i = 0; i < kPerFamily; ++i) {
    const Vec3 h = RandomHalfExtents(rng);
    const Vec3 inside_unit = rng.InBox(0.95f);
    const Vec3 inside{inside_unit.x * h.x, inside_unit.y * h.y,
                      inside_unit.z * h.z};
    const float size = (i % 2 == 0) ? 2.0f : 20.0f;
    Triangle3 tri = RandomTriangle(inside, size, rng);
    tri.a = inside;
    const Pose3 pose = RandomPose(i, rng);
    const Triangle3 local{InvTransform(pose, tri.a), InvTransform(pose, tri.b),
                          InvTransform(pose, tri.c)};
    const Vec3 v = rng.InBox(3.0f);
    ASSERT_TRUE(Matches(h, local, pose, v, &tally, i));
  }
  EXPECT_GT(tally.started, kPerFamily / 2);
}

// Tiny triangles (down to 1e-5 across) and slivers (a vertex within 1e-6
// of the opposite edge's line, relative to its length).
TEST(BoxTriangleSweep, TinyAndSliverTrianglesMatchGeneric) {
  Rng rng(106);
  Tally tally;
  for (int i = 0; i < kPerFamily; ++i) {
    const Vec3 h = RandomHalfExtents(rng);
    const Vec3 center = rng.InBox(4.0f);
    Triangle3 tri;
    if (i % 2 == 0) {
      const float exponent = rng.Uniform(-5.0f, -2.0f);
      tri = RandomTriangle(center, std::pow(10.0f, exponent), rng);
    } else {
      tri = RandomTriangle(center, 2.0f, rng);
      const float along = rng.Uniform(-0.5f, 1.5f);
      const float exponent = rng.Uniform(-6.0f, -3.0f);
      const Vec3 off = rng.InBox(std::pow(10.0f, exponent));
      tri.c = tri.a + (tri.b - tri.a) * along + off * Length(tri.b - tri.a);
    }
    const Vec3 v = Aim(center, rng);
    ASSERT_TRUE(Matches(h, tri, RandomPose(i, rng), v, &tally, i));
  }
  EXPECT_GT(tally.hits, kPerFamily / 8);
}

// Coordinates near 1e4: the triangle far from the box, coming at it from
// that far, or the pair placed far by the pose (the box frame keeps the box
// at the origin, so only the triangle's coordinates grow).
TEST(BoxTriangleSweep, LargeCoordinatesMatchGeneric) {
  Rng rng(107);
  Tally tally;
  for (int i = 0; i < kPerFamily; ++i) {
    const Vec3 h = RandomHalfExtents(rng);
    const Vec3 dir = rng.UnitVector();
    const float distance = rng.Uniform(5e3f, 1.5e4f);
    const Vec3 center = dir * distance;
    const Triangle3 tri = RandomTriangle(center, 3.0f, rng);
    const Vec3 scatter = rng.InBox(2.0f);
    const float aim = rng.Uniform(0.9f, 1.1f);
    const Vec3 v = -center * aim + scatter;
    ASSERT_TRUE(Matches(h, tri, RandomPose(i, rng), v, &tally, i));
  }
  EXPECT_GT(tally.hits, kPerFamily / 20);
}

// No motion (and motions so slow that entry / speed would overflow): a
// miss, or started overlapping; no floating-point exception either way
// (this binary traps them).
TEST(BoxTriangleSweep, ZeroAndTinyMotionMatchGeneric) {
  Rng rng(108);
  Tally tally;
  for (int i = 0; i < kPerFamily; ++i) {
    const Vec3 h = RandomHalfExtents(rng);
    const Vec3 center = rng.InBox(2.5f);
    const Triangle3 tri = RandomTriangle(center, 1.5f, rng);
    Vec3 v{};
    if (i % 2 == 1) {
      const Vec3 dir = rng.InBox(1.0f);
      v = dir * 1e-38f;
    }
    ASSERT_TRUE(Matches(h, tri, RandomPose(i, rng), v, &tally, i));
  }
  EXPECT_GT(tally.started, kPerFamily / 10);
  EXPECT_GT(tally.misses, kPerFamily / 10);
}

// Hits at fractions so small that they are subnormal floats (1e-45 to
// 1e-38): a triangle under the box's lowest face, 0 to 4 ulps of the face's
// coordinate below it, tilted by up to 1e-3 or not, coming up at 1e28 to
// 1e35 per unit time. t_max (1 + 1e-5) rounds to t_max itself there, and
// a hit whose exact quotient lies less than half a subnormal step above
// t_max (reported as t_max) must not be dropped when asked again with its
// own time as t_max (the mesh sweep's limit at a tie): the cut-off is
// next(t_max) (1 + 1e-5).
TEST(BoxTriangleSweep, SubnormalFractionsMatchGeneric) {
  Rng rng(109);
  Tally tally;
  int subnormal = 0;
  for (int i = 0; i < kPerFamily; ++i) {
    const Vec3 h = RandomHalfExtents(rng);
    float y = -h.y;
    const int steps = rng.Int(0, 4);
    for (int k = 0; k < steps; ++k) y = std::nextafter(y, -1.0f);
    const float tilt = (i % 2 == 0) ? 0.0f : rng.Uniform(-1e-3f, 1e-3f);
    const float x0 = rng.Uniform(-h.x, h.x);
    const float z0 = rng.Uniform(-h.z, h.z);
    const Triangle3 tri{{x0 - 1.0f, y, z0 - 1.0f},
                        {x0 + 1.0f, y + tilt, z0},
                        {x0, y - tilt, z0 + 1.0f}};
    const float speed = std::pow(10.0f, rng.Uniform(28.0f, 35.0f));
    const Vec3 v{rng.Uniform(-1e-3f, 1e-3f) * speed, speed,
                 rng.Uniform(-1e-3f, 1e-3f) * speed};
    const Pose3 pose = (i % 4 == 3) ? Pose3{{}, rng.Rotation()} : Pose3{};
    const SatSweepResult g =
        SweepPolytopes(ConvexShape3{Box3{h}}, ConvexShape3{tri}, pose, v);
    subnormal += g.status == SatSweepStatus::kHit &&
                 g.t < std::numeric_limits<float>::min();
    ASSERT_TRUE(Matches(h, tri, pose, v, &tally, i));
  }
  std::printf(
      "subnormal: %d hits (%d at subnormal fractions), %d started, "
      "%d misses\n",
      tally.hits, subnormal, tally.started, tally.misses);
  EXPECT_GT(subnormal, kPerFamily / 10);
}

}  // namespace
}  // namespace sator::internal
