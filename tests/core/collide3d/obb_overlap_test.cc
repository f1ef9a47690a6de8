// OverlapObbObb (boxes with precomputed world axes) against analytic cases
// and against the pose form OverlapBoxBox and the MTV on many seeded random
// pairs.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "collide3d/typed3d.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/overlap3d.h"
#include "test_shapes3d.h"

namespace sator {
namespace {

using testing::ShapeFactory;

// Two unit cubes (half extent 1) along x: they touch at a distance of 2 and
// are apart beyond it.
TEST(ObbOverlapTest, FaceToFace) {
  const Box3 cube{{1, 1, 1}};
  const Obb3 a = MakeObb(cube, {{0, 0, 0}, {}});
  EXPECT_TRUE(OverlapObbObb(a, MakeObb(cube, {{1.5f, 0, 0}, {}})));
  EXPECT_TRUE(OverlapObbObb(a, MakeObb(cube, {{2.0f, 0, 0}, {}})));
  EXPECT_FALSE(OverlapObbObb(a, MakeObb(cube, {{2.01f, 0, 0}, {}})));
}

// B is the unit cube turned 45 degrees about z: its corner points along x,
// at sqrt(2) from its centre, so the boxes touch at x = 1 + sqrt(2).
TEST(ObbOverlapTest, RotatedAlongFaceAxis) {
  const Box3 cube{{1, 1, 1}};
  const float s2 = std::numbers::sqrt2_v<float>;
  const Quat about_z = Quat::FromAxisAngle({0, 0, 1}, 0.25f * 3.14159265f);
  const Obb3 a = MakeObb(cube, {{0, 0, 0}, {}});
  EXPECT_TRUE(
      OverlapObbObb(a, MakeObb(cube, {{1.0f + s2 - 0.01f, 0, 0}, about_z})));
  EXPECT_FALSE(
      OverlapObbObb(a, MakeObb(cube, {{1.0f + s2 + 0.01f, 0, 0}, about_z})));
}

// Random pairs: the OBB form, the pose form and the MTV's sign (whose
// exactness the property tests check on their own) agree away from touching.
TEST(ObbOverlapTest, AgreesWithPoseFormAndMtvOnRandomPairs) {
  ShapeFactory f(9001u);
  int overlapping = 0;
  int disagreements = 0;
  for (int i = 0; i < 100000; ++i) {
    const Box3 a{{f.U(0.1f, 1.5f), f.U(0.1f, 1.5f), f.U(0.1f, 1.5f)}};
    const Box3 b{{f.U(0.1f, 1.5f), f.U(0.1f, 1.5f), f.U(0.1f, 1.5f)}};
    const Pose3 pa = f.RandomPose(1.5f);
    const Pose3 pb = f.RandomPose(1.5f);
    const bool obb = OverlapObbObb(MakeObb(a, pa), MakeObb(b, pb));
    const bool pose = OverlapBoxBox(a, b, MulT(pa, pb));
    const ContactResult<3> c = ContactBoxBox(a, b, MulT(pa, pb));
    overlapping += obb;
    // Away from touching (|depth| above round-off) all three agree.
    if (std::fabs(c.depth) > 1e-4f && (obb != pose || obb != c.overlapping)) {
      ++disagreements;
      if (disagreements <= 5) {
        ADD_FAILURE() << "case " << i << ": obb " << obb << " pose " << pose
                      << " depth " << c.depth;
      }
    }
  }
  EXPECT_EQ(disagreements, 0);
  // The generator gives both outcomes in bulk.
  EXPECT_GT(overlapping, 20000);
  EXPECT_LT(overlapping, 80000);
}

// The 15-axis test in double precision, with the separation along each
// axis normalised: the largest separation over A's and B's face axes and
// over the (non-degenerate) edge axes. Positive means apart along it.
struct AxisSeparations {
  double face = -1e300;
  double edge = -1e300;
};
AxisSeparations SeparationsOf(const Obb3& a, const Obb3& b) {
  auto to = [](Vec3 v) { return std::array<double, 3>{v.x, v.y, v.z}; };
  const auto d = to(b.center - a.center);
  std::array<std::array<double, 3>, 3> ax;
  std::array<std::array<double, 3>, 3> bx;
  for (int i = 0; i < 3; ++i) {
    ax[i] = to(a.axes[i]);
    bx[i] = to(b.axes[i]);
  }
  const auto ha = to(a.half_extents);
  const auto hb = to(b.half_extents);
  auto dot = [](const std::array<double, 3>& u,
                const std::array<double, 3>& v) {
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  };
  auto separation = [&](const std::array<double, 3>& axis) {
    const double length = std::sqrt(dot(axis, axis));
    double ra = 0.0;
    double rb = 0.0;
    for (int i = 0; i < 3; ++i) {
      ra += ha[i] * std::fabs(dot(ax[i], axis));
      rb += hb[i] * std::fabs(dot(bx[i], axis));
    }
    return (std::fabs(dot(d, axis)) - ra - rb) / length;
  };
  AxisSeparations out;
  for (int i = 0; i < 3; ++i) {
    out.face = std::max(out.face, separation(ax[i]));
    out.face = std::max(out.face, separation(bx[i]));
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const auto& u = ax[i];
      const auto& v = bx[j];
      const std::array<double, 3> axis{u[1] * v[2] - u[2] * v[1],
                                       u[2] * v[0] - u[0] * v[2],
                                       u[0] * v[1] - u[1] * v[0]};
      if (dot(axis, axis) < 1e-6) continue;
      out.edge = std::max(out.edge, separation(axis));
    }
  }
  return out;
}

// Pairs that only an edge-edge axis separates (every face axis overlaps),
// and pairs that overlap: each edge axis's terms must be right, which pairs
// separated by a face axis do not check. Compared with the double-precision
// reference away from touching.
TEST(ObbOverlapTest, EdgeAxesAgainstDoubleReference) {
  ShapeFactory f(4242u);
  int edge_only = 0;
  int overlapping = 0;
  for (int i = 0; i < 400000 && (edge_only < 3000 || overlapping < 3000); ++i) {
    const Box3 a{{f.U(0.1f, 1.5f), f.U(0.1f, 1.5f), f.U(0.1f, 1.5f)}};
    const Box3 b{{f.U(0.1f, 1.5f), f.U(0.1f, 1.5f), f.U(0.1f, 1.5f)}};
    const Obb3 oa = MakeObb(a, f.RandomPose(1.5f));
    const Obb3 ob = MakeObb(b, f.RandomPose(1.5f));
    const AxisSeparations s = SeparationsOf(oa, ob);
    constexpr double kMargin = 1e-4;
    if (s.face < -kMargin && s.edge > kMargin) {
      ++edge_only;
      ASSERT_FALSE(OverlapObbObb(oa, ob))
          << "case " << i << ": edge " << s.edge << " face " << s.face;
    } else if (s.face < -kMargin && s.edge < -kMargin) {
      ++overlapping;
      ASSERT_TRUE(OverlapObbObb(oa, ob)) << "case " << i;
    }
  }
  EXPECT_GE(edge_only, 3000);
  EXPECT_GE(overlapping, 3000);
}

// Two cubes both turned 45 degrees about x (an edge on
// top, an edge below), B turned 2e-3 rad about z and lifted 1e-3 clear of
// A. The top edge of A and the bottom edge of B are nearly parallel, and
// only their cross product separates the cubes; Ericson's epsilon, divided
// by the sine of 2e-3, widened the boxes by about 1e-3 along it and every
// overlap test reported contact.
TEST(ObbOverlapTest, NearlyParallelEdgesAgreeWithContact) {
  const float kPi = std::numbers::pi_v<float>;
  const Box3 cube{{0.75f, 0.75f, 0.75f}};
  const Quat diamond = Quat::FromAxisAngle({1, 0, 0}, 0.25f * kPi);
  const Quat twist = Quat::FromAxisAngle({0, 0, 1}, 2e-3f);
  const Pose3 pa{{0, 0, 0}, diamond};
  for (const float gap : {1e-3f, -1e-3f}) {
    SCOPED_TRACE(gap);
    const Pose3 pb{{0, 0, 1.5f * std::numbers::sqrt2_v<float> + gap},
                   Mul(twist, diamond)};
    const ContactResult<3> c =
        Contact(ConvexShape3{cube}, pa, ConvexShape3{cube}, pb);
    EXPECT_NEAR(c.depth, -gap, 1e-4f);
    const bool expected = gap < 0.0f;
    EXPECT_EQ(Overlap(ConvexShape3{cube}, pa, ConvexShape3{cube}, pb),
              expected);
    EXPECT_EQ(OverlapBoxBox(cube, cube, MulT(pa, pb)), expected);
    EXPECT_EQ(OverlapObbObb(MakeObb(cube, pa), MakeObb(cube, pb)), expected);
  }
}

// The largest separation over the 15 axes in double precision, edge axes
// down to a sine of 1e-10 (the float axes' cross products are exact enough
// in double for that).
double ExactSeparation(const Obb3& a, const Obb3& b) {
  using D3 = std::array<double, 3>;
  auto d3 = [](Vec3 v) { return D3{v.x, v.y, v.z}; };
  auto dot = [](const D3& u, const D3& v) {
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  };
  const D3 d = d3(b.center - a.center);
  const D3 ax[3] = {d3(a.axes[0]), d3(a.axes[1]), d3(a.axes[2])};
  const D3 bx[3] = {d3(b.axes[0]), d3(b.axes[1]), d3(b.axes[2])};
  auto separation = [&](const D3& axis) {
    double ra = 0.0;
    double rb = 0.0;
    for (int i = 0; i < 3; ++i) {
      ra += a.half_extents[i] * std::fabs(dot(ax[i], axis));
      rb += b.half_extents[i] * std::fabs(dot(bx[i], axis));
    }
    return (std::fabs(dot(d, axis)) - ra - rb) / std::sqrt(dot(axis, axis));
  };
  double best = -1e300;
  for (int i = 0; i < 3; ++i) {
    best = std::max({best, separation(ax[i]), separation(bx[i])});
    for (int j = 0; j < 3; ++j) {
      const D3& u = ax[i];
      const D3& v = bx[j];
      const D3 axis{u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                    u[0] * v[1] - u[1] * v[0]};
      if (dot(axis, axis) < 1e-20) continue;
      best = std::max(best, separation(axis));
    }
  }
  return best;
}

// The same on seeded random pairs whose edges are nearly parallel (B is A's
// rotation turned by 1e-5 to 1e-1 rad about a random axis) and meet near
// touching: the OBB form, the pose form, the MTV's sign and the 15 axes in
// double precision agree away from touching.
TEST(ObbOverlapTest, NearlyParallelEdgesAgreeWithMtvOnRandomPairs) {
  ShapeFactory f(9002u);
  int overlapping = 0;
  int separated = 0;
  int disagreements = 0;
  for (int i = 0; i < 100000; ++i) {
    const Box3 a{{f.U(0.1f, 1.5f), f.U(0.1f, 1.5f), f.U(0.1f, 1.5f)}};
    const Box3 b{{f.U(0.1f, 1.5f), f.U(0.1f, 1.5f), f.U(0.1f, 1.5f)}};
    const Pose3 pa = f.RandomPose(1.5f);
    const float tilt = std::pow(10.0f, f.U(-5.0f, -1.0f));
    const Quat rb =
        Normalize(Mul(Quat::FromAxisAngle(f.RandomUnit(), tilt), pa.rotation));
    // B's centre moved from A's towards an edge of their Minkowski sum (the
    // box of the summed half extents, in A's frame), where nearly parallel
    // edges meet, to where the MTV says they touch (bisection), then by up
    // to 1e-2 either way.
    const int k = static_cast<int>(f.rng()() % 3);
    Vec3 local;
    local[k] = f.U(-0.5f, 0.5f) * (a.half_extents[k] + b.half_extents[k]);
    for (const int m : {(k + 1) % 3, (k + 2) % 3}) {
      const float sign = f.rng()() % 2 == 0 ? 1.0f : -1.0f;
      const float jitter = f.U(-2e-3f, 2e-3f);
      local[m] =
          sign * (a.half_extents[m] + b.half_extents[m]) * (1.0f + jitter);
    }
    const Vec3 dir = Rotate(pa.rotation, NormalizeOrZero(local));
    float inside = 0.0f;
    float outside = 4.0f;
    for (int step = 0; step < 24; ++step) {
      const float mid = 0.5f * (inside + outside);
      const Pose3 at{pa.position + mid * dir, rb};
      (ContactBoxBox(a, b, MulT(pa, at)).overlapping ? inside : outside) = mid;
    }
    const Pose3 pb{pa.position + (inside + f.U(-1e-2f, 1e-2f)) * dir, rb};
    const ContactResult<3> c = ContactBoxBox(a, b, MulT(pa, pb));
    const bool obb = OverlapObbObb(MakeObb(a, pa), MakeObb(b, pb));
    const bool pose = OverlapBoxBox(a, b, MulT(pa, pb));
    const double exact = ExactSeparation(MakeObb(a, pa), MakeObb(b, pb));
    if (std::fabs(c.depth) <= 1e-4f || std::fabs(exact) <= 1e-4) continue;
    (c.overlapping ? overlapping : separated) += 1;
    if (obb != c.overlapping || pose != c.overlapping ||
        c.overlapping != (exact <= 0.0)) {
      ++disagreements;
      if (disagreements <= 5) {
        ADD_FAILURE() << "case " << i << ": obb " << obb << " pose " << pose
                      << " depth " << c.depth << " exact " << exact << " tilt "
                      << tilt;
      }
    }
  }
  EXPECT_EQ(disagreements, 0);
  EXPECT_GT(overlapping, 20000);
  EXPECT_GT(separated, 20000);
}

}  // namespace
}  // namespace sator
