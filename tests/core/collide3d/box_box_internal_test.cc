// The box-box MTV (ContactBoxBox: Gottschalk's 15 axes read off the
// rotation matrix, the manifold clipped in the reference face's 2D
// coordinates) against a reference in double written from the separating
// axis theorem (box_reference3d.h), on many seeded random pairs: general
// poses, parallel and nearly parallel edges, tiny and huge boxes, and pairs
// moved to touch. The depth is the least overlap over the 15 axes and the
// overlap along the reported normal; a face manifold holds the deepest point
// of the clipped incident face and, where clipping leaves at most 4 points,
// all of them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "collide3d/box_box.h"
#include "collide3d/sat_polytope.h"
#include "collide3d/typed3d.h"
#include "core/collide3d/box_reference3d.h"
#include "core/collide3d/cast_test_util.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"

namespace sator::internal {
namespace {

using test3d::BoxDepthD;
using test3d::BoxPairD;
using test3d::Dv;
using test3d::ToDv;
using testing_util::Rng;

// How far the fast manifold's nearest point lies from q.
double NearestPoint(const ContactResult<3>& c, Dv q) {
  double nearest = 3e300;
  for (int k = 0; k < c.point_count; ++k) {
    nearest = std::min(nearest, test3d::LenD(ToDv(c.points[k]) - q));
  }
  return nearest;
}

// The rotation used for category k of the generated pairs.
Quat PairRotation(int category, Rng& rng) {
  const Vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const float half_pi = 1.5707964f;
  switch (category) {
    case 1: {  // Parallel edges: quarter turns, or a turn about one face axis.
      // One draw a statement: the order of a call's arguments is unspecified.
      const bool quarter = rng.Int(0, 1) == 0;
      const Vec3 axis = axes[rng.Int(0, 2)];
      const float angle =
          quarter ? half_pi * rng.Int(0, 3) : rng.Uniform(-3.14159f, 3.14159f);
      return Quat::FromAxisAngle(axis, angle);
    }
    case 5: {  // Nearly parallel edges: a quarter turn, then a tiny tilt.
      const float tilt = std::pow(10.0f, rng.Uniform(-7.0f, -2.0f));
      const Vec3 axis = axes[rng.Int(0, 2)];
      const float angle = half_pi * rng.Int(0, 3);
      const Vec3 tilt_axis = rng.UnitVector();
      return Mul(Quat::FromAxisAngle(axis, angle),
                 Quat::FromAxisAngle(tilt_axis, tilt));
    }
    default:
      return rng.Rotation();
  }
}

TEST(BoxBoxInternal, ContactMatchesDoubleReference) {
  Rng rng(4004);
  constexpr int kCases = 60000;
  int overlapping = 0;
  int face_manifolds = 0;
  int full_manifolds = 0;
  for (int i = 0; i < kCases; ++i) {
    const int category = i % 6;
    // Scale: tiny (category 2), huge (3), else about 1.
    const float scale = category == 2 ? 1e-3f : (category == 3 ? 1e3f : 1.0f);
    const Box3 a{scale * Vec3{rng.Uniform(0.05f, 1.5f),
                              rng.Uniform(0.05f, 1.5f),
                              rng.Uniform(0.05f, 1.5f)}};
    const Box3 b{scale * Vec3{rng.Uniform(0.05f, 1.5f),
                              rng.Uniform(0.05f, 1.5f),
                              rng.Uniform(0.05f, 1.5f)}};
    Pose3 b_in_a{scale * rng.InBox(2.5f), PairRotation(category, rng)};
    if (category == 4) {
      // Touching: B moved along the reference axis by the depth.
      const BoxDepthD r =
          test3d::BoxDepthReference(test3d::MakeBoxPairD(a, b, b_in_a));
      b_in_a.position.x += static_cast<float>(r.depth * r.normal.x);
      b_in_a.position.y += static_cast<float>(r.depth * r.normal.y);
      b_in_a.position.z += static_cast<float>(r.depth * r.normal.z);
    }
    const BoxPairD pair = test3d::MakeBoxPairD(a, b, b_in_a);
    const BoxDepthD ref = test3d::BoxDepthReference(pair);
    const ContactResult<3> fast = ContactBoxBox(a, b, b_in_a);
    const double size = scale * 3.0 + Length(b_in_a.position);
    const double tol = 4e-6 * size;
    SCOPED_TRACE(testing::Message() << "case " << i << " depth " << ref.depth);
    ASSERT_NEAR(Length(fast.normal), 1.0f, 1e-5f);
    const Dv n = ToDv(fast.normal);
    if (std::fabs(ref.depth) > tol) {
      ASSERT_EQ(fast.overlapping, ref.depth > 0.0);
    }
    if (ref.depth < -tol) {
      // Separated: the face axis that decides it is a true separating axis
      // (a lower bound on the gap, no more than the best axis's).
      ASSERT_LT(fast.depth, 0.0f);
      ASSERT_GE(fast.depth, ref.depth - tol);
      ASSERT_NEAR(test3d::OverlapAlongD(pair, n), fast.depth, tol);
      continue;
    }
    if (ref.depth <= tol) continue;
    ++overlapping;
    // The least depth (a face may be kept over an edge axis up to 1e-5 of
    // the boxes' size shallower, box_box.cc), and it is the overlap along
    // the reported normal.
    const double margin =
        1e-5 * (a.half_extents.x + a.half_extents.y + a.half_extents.z +
                b.half_extents.x + b.half_extents.y + b.half_extents.z);
    ASSERT_GE(fast.depth, ref.depth - tol);
    ASSERT_LE(fast.depth, ref.depth + margin + tol);
    ASSERT_NEAR(test3d::OverlapAlongD(pair, n), fast.depth, tol);
    const SatAxis fast_axis = BoxBoxAxis(a, b, b_in_a);
    ASSERT_NEAR(-fast_axis.separation, fast.depth, tol);
    ASSERT_GE(fast.point_count, 1);
    ASSERT_LE(fast.point_count, 4);
    const double hi_a = test3d::RadiusA(pair, n);
    const double lo_b =
        test3d::DotD(pair.center_b, n) - test3d::RadiusB(pair, n);
    for (int k = 0; k < fast.point_count; ++k) {
      const Dv q = ToDv(fast.points[k]);
      // Within the slab where the boxes overlap along the normal, and
      // within half the depth of both boxes: an incident point inside the
      // reference box moved halfway to the face.
      ASSERT_GE(test3d::DotD(q, n), lo_b - tol) << k;
      ASSERT_LE(test3d::DotD(q, n), hi_a + tol) << k;
      const double grow = 0.5 * fast.depth + tol;
      ASSERT_LE(test3d::OutsideA(pair, q), grow) << k;
      ASSERT_LE(test3d::OutsideB(pair, pair.center_b, q), grow) << k;
    }
    // A face axis, the same as the reference's: the manifold holds the
    // clipped incident face's deepest point and, where clipping leaves at
    // most 4 points none of them within tol of the face, every one.
    const AxisKind ref_kind = ref.axis < 3   ? AxisKind::kFaceA
                              : ref.axis < 6 ? AxisKind::kFaceB
                                             : AxisKind::kEdges;
    if (ref_kind == AxisKind::kEdges || fast_axis.kind != ref_kind ||
        test3d::DotD(n, ref.normal) < 1.0 - 1e-6) {
      continue;
    }
    std::vector<test3d::ManifoldPointD> expected;
    if (ref.axis < 3) {
      const double sign = test3d::Component(ref.normal, ref.axis) > 0 ? 1 : -1;
      expected = test3d::FaceManifoldReference(test3d::FrameA(pair), ref.axis,
                                               sign, test3d::FrameB(pair));
    } else {
      const int j = ref.axis - 3;
      const double sign = test3d::DotD(pair.axes_b[j], ref.normal) < 0 ? 1 : -1;
      expected = test3d::FaceManifoldReference(test3d::FrameB(pair), j, sign,
                                               test3d::FrameA(pair));
    }
    ASSERT_FALSE(expected.empty());
    ++face_manifolds;
    double deepest = 0.0;
    for (const auto& e : expected) deepest = std::max(deepest, e.depth);
    double nearest_deep = 3e300;
    bool borderline = false;
    for (const auto& e : expected) {
      if (e.depth >= deepest - tol) {
        nearest_deep = std::min(nearest_deep, NearestPoint(fast, e.point));
      }
      borderline = borderline || e.depth <= tol;
    }
    ASSERT_LE(nearest_deep, 10.0 * tol);
    if (expected.size() <= 4 && !borderline) {
      ++full_manifolds;
      ASSERT_EQ(fast.point_count, static_cast<int>(expected.size()));
      for (const auto& e : expected) {
        ASSERT_LE(NearestPoint(fast, e.point), 10.0 * tol);
      }
    }
  }
  EXPECT_GT(overlapping, kCases / 5);
  EXPECT_GT(face_manifolds, overlapping / 2);
  EXPECT_GT(full_manifolds, face_manifolds / 4);
  std::printf("overlapping %d, face manifolds %d, of at most 4 points %d\n",
              overlapping, face_manifolds, full_manifolds);
}

}  // namespace
}  // namespace sator::internal
