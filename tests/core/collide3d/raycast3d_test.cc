// Ray casts against the convex shapes: analytic cases worked out by hand,
// then properties on seeded random rays checked against exact signed
// distances (independent of the code under test).
#include "sator/core/collide3d/raycast3d.h"

#include <cmath>
#include <limits>
#include <memory>
#include <variant>

#include "core/collide3d/cast_test_util.h"
#include "gtest/gtest.h"

namespace sator {
namespace {

using testing_util::Rng;

constexpr float kTol = 1e-5f;

Ray<3> MakeRay(Vec3 origin, Vec3 direction, float max_distance) {
  return {origin, NormalizeOrZero(direction), max_distance};
}

void ExpectVec(Vec3 actual, Vec3 expected, float tol) {
  EXPECT_NEAR(actual.x, expected.x, tol);
  EXPECT_NEAR(actual.y, expected.y, tol);
  EXPECT_NEAR(actual.z, expected.z, tol);
}

TEST(RayCastSphere, HitsFromOutside) {
  // Sphere of radius 2 at (10, 0, 0); the ray along +x from the origin
  // enters at x = 8.
  const Pose3 pose{{10, 0, 0}, {}};
  const RayResult<3> r =
      RayCast(Sphere{2.0f}, pose, MakeRay({0, 0, 0}, {1, 0, 0}, 100));
  ASSERT_TRUE(r.hit);
  EXPECT_FALSE(r.started_inside);
  EXPECT_NEAR(r.distance, 8.0f, kTol);
  ExpectVec(r.point, {8, 0, 0}, kTol);
  ExpectVec(r.normal, {-1, 0, 0}, kTol);
}

TEST(RayCastSphere, OffsetRayHitsAtChord) {
  // Offset by 1.2 in y: enters at x = 10 - sqrt(4 - 1.44) = 10 - 1.6.
  const RayResult<3> r = RayCast(Sphere{2.0f}, Pose3{{10, 0, 0}, {}},
                                 MakeRay({0, 1.2f, 0}, {1, 0, 0}, 100));
  ASSERT_TRUE(r.hit);
  EXPECT_NEAR(r.distance, 8.4f, kTol);
  ExpectVec(r.normal, {-0.8f, 0.6f, 0}, kTol);
}

TEST(RayCastSphere, MissesAndStartsInside) {
  const Pose3 pose{{10, 0, 0}, {}};
  EXPECT_FALSE(
      RayCast(Sphere{2.0f}, pose, MakeRay({0, 2.5f, 0}, {1, 0, 0}, 100)).hit);
  // Too short to reach.
  EXPECT_FALSE(
      RayCast(Sphere{2.0f}, pose, MakeRay({0, 0, 0}, {1, 0, 0}, 7.9f)).hit);
  // Pointing away.
  EXPECT_FALSE(
      RayCast(Sphere{2.0f}, pose, MakeRay({0, 0, 0}, {-1, 0, 0}, 100)).hit);
  const RayResult<3> inside =
      RayCast(Sphere{2.0f}, pose, MakeRay({9, 0, 0}, {1, 0, 0}, 100));
  EXPECT_TRUE(inside.hit);
  EXPECT_TRUE(inside.started_inside);
  EXPECT_EQ(inside.distance, 0.0f);
  ExpectVec(inside.point, {9, 0, 0}, 0);
  ExpectVec(inside.normal, {0, 0, 0}, 0);
}

TEST(RayCastBox, RotatedBoxFace) {
  // Half extents (1, 2, 3), turned 90 degrees about z: local y lies along
  // world -x, so the box spans x in [3, 7] around (5, 0, 0). The ray along
  // +x enters the local +y face (feature 2 * 1 + 0 = 2) at x = 3.
  const Pose3 pose{{5, 0, 0}, Quat::FromAxisAngle({0, 0, 1}, 1.5707963f)};
  const RayResult<3> r =
      RayCast(Box3{{1, 2, 3}}, pose, MakeRay({0, 0.5f, 0.5f}, {1, 0, 0}, 100));
  ASSERT_TRUE(r.hit);
  EXPECT_NEAR(r.distance, 3.0f, kTol);
  ExpectVec(r.normal, {-1, 0, 0}, kTol);
  EXPECT_EQ(r.feature, 2);
}

TEST(RayCastBox, DiagonalEntryAndParallelMiss) {
  const Box3 box{{1, 1, 1}};
  // From (-3, -2, 0) along (1, 1, 0)/sqrt2: x reaches -1 at s = 2 sqrt2,
  // y reaches -1 at s = sqrt2; the later slab entry (x) wins: point (-1, 0).
  const RayResult<3> r = RayCastBox(box, MakeRay({-3, -2, 0}, {1, 1, 0}, 100));
  ASSERT_TRUE(r.hit);
  EXPECT_NEAR(r.distance, 2.0f * std::sqrt(2.0f), kTol);
  ExpectVec(r.point, {-1, 0, 0}, kTol);
  ExpectVec(r.normal, {-1, 0, 0}, 0);
  EXPECT_EQ(r.feature, 1);
  // Parallel to the x slab and outside it.
  EXPECT_FALSE(RayCastBox(box, MakeRay({2, -5, 0}, {0, 1, 0}, 100)).hit);
  // On the surface counts as inside.
  EXPECT_TRUE(
      RayCastBox(box, MakeRay({1, 0, 0}, {1, 0, 0}, 100)).started_inside);
}

TEST(RayCastCapsule, LateralCapAndCorner) {
  const Capsule3 cap{{0, -1, 0}, {0, 1, 0}, 0.5f};
  const RayResult<3> side =
      RayCastCapsule(cap, MakeRay({-5, 0, 0}, {1, 0, 0}, 100));
  ASSERT_TRUE(side.hit);
  EXPECT_NEAR(side.distance, 4.5f, kTol);
  ExpectVec(side.normal, {-1, 0, 0}, kTol);
  EXPECT_EQ(side.feature, 0);
  const RayResult<3> top =
      RayCastCapsule(cap, MakeRay({0, 5, 0}, {0, -1, 0}, 100));
  ASSERT_TRUE(top.hit);
  EXPECT_NEAR(top.distance, 3.5f, kTol);
  ExpectVec(top.normal, {0, 1, 0}, kTol);
  EXPECT_EQ(top.feature, 2);
  // y = 1.3 is past the segment's end: the cap at b, x = -sqrt(0.25 - 0.09).
  const RayResult<3> corner =
      RayCastCapsule(cap, MakeRay({-5, 1.3f, 0}, {1, 0, 0}, 100));
  ASSERT_TRUE(corner.hit);
  EXPECT_NEAR(corner.distance, 4.6f, kTol);
  ExpectVec(corner.normal, {-0.8f, 0.6f, 0}, kTol);
  EXPECT_EQ(corner.feature, 2);
  EXPECT_FALSE(RayCastCapsule(cap, MakeRay({-5, 1.6f, 0}, {1, 0, 0}, 100)).hit);
  EXPECT_TRUE(RayCastCapsule(cap, MakeRay({0.2f, 0.9f, 0}, {1, 0, 0}, 100))
                  .started_inside);
}

TEST(RayCastTriangle, BothSidesAndEdges) {
  const Triangle3 tri{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const RayResult<3> down =
      RayCastTriangle(tri, MakeRay({0.2f, 0.2f, 5}, {0, 0, -1}, 100));
  ASSERT_TRUE(down.hit);
  EXPECT_NEAR(down.distance, 5.0f, kTol);
  ExpectVec(down.normal, {0, 0, 1}, 0);
  const RayResult<3> up =
      RayCastTriangle(tri, MakeRay({0.2f, 0.2f, -5}, {0, 0, 1}, 100));
  ASSERT_TRUE(up.hit);
  ExpectVec(up.normal, {0, 0, -1}, 0);
  EXPECT_FALSE(up.started_inside);
  // Outside the hypotenuse, and in the plane.
  EXPECT_FALSE(
      RayCastTriangle(tri, MakeRay({0.6f, 0.6f, 5}, {0, 0, -1}, 100)).hit);
  EXPECT_FALSE(
      RayCastTriangle(tri, MakeRay({-1, 0.2f, 0}, {1, 0, 0}, 100)).hit);
  // Exactly on a vertex and an edge: edges are inclusive.
  EXPECT_TRUE(RayCastTriangle(tri, MakeRay({0, 0, 1}, {0, 0, -1}, 100)).hit);
  EXPECT_TRUE(RayCastTriangle(tri, MakeRay({0.5f, 0, 1}, {0, 0, -1}, 100)).hit);
}

TEST(RayCastHull, CubeHullAgreesWithBoxOnRandomRays) {
  // The same solid as a hull (face planes) and as a box (slabs): two
  // independent methods must agree on hit, distance and normal.
  const Vec3 h{1.0f, 0.5f, 2.0f};
  const ConvexHull hull = testing_util::BoxHull(h);
  Rng rng(11);
  int hits = 0;
  for (int i = 0; i < 20000; ++i) {
    const Vec3 origin = rng.InBox(4.0f);
    // Half the rays aim near the solid, so that many hit.
    const Vec3 dir = (i % 2 == 0) ? rng.InBox(1.0f) - origin : rng.UnitVector();
    const Ray<3> ray = MakeRay(origin, dir, rng.Uniform(0.0f, 8.0f));
    const RayResult<3> a = RayCastHull(hull, ray);
    const RayResult<3> b = RayCastBox(Box3{h}, ray);
    ASSERT_EQ(a.hit, b.hit) << i;
    ASSERT_EQ(a.started_inside, b.started_inside) << i;
    if (!a.hit || a.started_inside) continue;
    ++hits;
    EXPECT_NEAR(a.distance, b.distance, 1e-5f);
    EXPECT_NEAR(Dot(a.normal, b.normal), 1.0f, 1e-6f) << i;
  }
  EXPECT_GT(hits, 2000);
}

// Property check shared by the solids: a reported hit lies on the surface
// (signed distance ~ 0), the ray before it stays outside, the normal is the
// outward one, and a miss never passes through the solid.
template <typename Sdf>
void CheckSolidRay(const Ray<3>& ray, const RayResult<3>& r, Sdf sdf,
                   float scale, int case_index) {
  const float tol = 2e-5f * scale;
  if (r.started_inside) {
    ASSERT_LE(sdf(ray.origin), tol) << case_index;
    return;
  }
  ASSERT_GT(sdf(ray.origin), -tol) << case_index;
  const float end = r.hit ? r.distance : ray.max_distance;
  for (int k = 0; k < 16; ++k) {
    const float s = end * static_cast<float>(k) / 16.0f;
    ASSERT_GT(sdf(ray.origin + s * ray.direction), -tol) << case_index;
  }
  if (!r.hit) return;
  ASSERT_LE(r.distance, ray.max_distance);
  ASSERT_NEAR(sdf(r.point), 0.0f, tol) << case_index;
  // The outward normal: stepping along it leaves the solid.
  ASSERT_NEAR(Length(r.normal), 1.0f, 1e-5f);
  ASSERT_GT(sdf(r.point + 1e-2f * scale * r.normal), 0.0f) << case_index;
  ASSERT_LE(Dot(r.normal, ray.direction), 1e-6f) << case_index;
}

TEST(RayCastProperties, RandomRaysAgainstPosedSolids) {
  Rng rng(7);
  int hits[3] = {0, 0, 0};
  for (int i = 0; i < 30000; ++i) {
    const Pose3 pose = rng.Pose(2.0f);
    const Vec3 origin = rng.InBox(5.0f);
    // Half the rays aim near the shape, so that many hit.
    const Vec3 dir = (i % 2 == 0) ? pose.position + rng.InBox(1.0f) - origin
                                  : rng.UnitVector();
    const Ray<3> ray = MakeRay(origin, dir, rng.Uniform(0.0f, 12.0f));
    // The checks run in the shape's frame on the world result mapped back.
    auto local = [&](Vec3 p) { return InvTransform(pose, p); };
    const int kind = i % 3;
    RayResult<3> r;
    if (kind == 0) {
      const Sphere s{rng.Uniform(0.1f, 2.0f)};
      r = RayCast(s, pose, ray);
      CheckSolidRay(
          ray, r,
          [&](Vec3 p) {
            return testing_util::SignedDistanceSphere(s, local(p));
          },
          2.0f, i);
    } else if (kind == 1) {
      const Box3 b{{rng.Uniform(0.1f, 2.0f), rng.Uniform(0.1f, 2.0f),
                    rng.Uniform(0.1f, 2.0f)}};
      r = RayCast(b, pose, ray);
      CheckSolidRay(
          ray, r,
          [&](Vec3 p) { return testing_util::SignedDistanceBox(b, local(p)); },
          2.0f, i);
    } else {
      const Capsule3 c{rng.InBox(1.5f), rng.InBox(1.5f),
                       rng.Uniform(0.1f, 1.0f)};
      r = RayCast(c, pose, ray);
      CheckSolidRay(
          ray, r,
          [&](Vec3 p) {
            return testing_util::SignedDistanceCapsule(c, local(p));
          },
          2.0f, i);
    }
    if (r.hit && !r.started_inside) ++hits[kind];
  }
  for (int k = 0; k < 3; ++k) EXPECT_GT(hits[k], 1000) << k;
}

TEST(RayCastProperties, RandomRaysAgainstTriangles) {
  Rng rng(8);
  int hits = 0;
  for (int i = 0; i < 20000; ++i) {
    const Triangle3 tri{rng.InBox(2.0f), rng.InBox(2.0f), rng.InBox(2.0f)};
    // Aim at a random point of the triangle's plane region half the time.
    const Vec3 origin = rng.InBox(4.0f);
    const float u = rng.Uniform(-0.2f, 1.0f), v = rng.Uniform(-0.2f, 1.0f);
    const Vec3 target = tri.a + u * (tri.b - tri.a) + v * (tri.c - tri.a);
    const Vec3 dir = (i % 2 == 0) ? target - origin : rng.UnitVector();
    if (LengthSquared(dir) < 1e-4f) continue;
    const Ray<3> ray = MakeRay(origin, dir, 20.0f);
    const RayResult<3> r = RayCastTriangle(tri, ray);
    // Hand-checkable oracle for the aimed rays: inside the triangle (with a
    // margin, to stay clear of round-off at the edges) means a hit at the
    // target, clearly outside means a miss.
    if (i % 2 == 0) {
      const bool inside = u > 1e-3f && v > 1e-3f && u + v < 1.0f - 1e-3f;
      const bool outside = u < -1e-3f || v < -1e-3f || u + v > 1.0f + 1e-3f;
      if (inside) {
        ASSERT_TRUE(r.hit) << i;
        EXPECT_NEAR(r.distance, Length(target - origin),
                    1e-4f * (1.0f + Length(target - origin)))
            << i;
      }
      if (outside) {
        ASSERT_FALSE(r.hit) << i;
      }
    }
    if (r.hit) {
      ++hits;
      ASSERT_FALSE(r.started_inside);
      EXPECT_NEAR(testing_util::DistanceTriangle(tri, r.point), 0.0f,
                  5e-5f * (1.0f + r.distance))
          << i;
      EXPECT_LE(Dot(r.normal, ray.direction), 0.0f);
    }
  }
  EXPECT_GT(hits, 3000);
}

TEST(RayCast, VariantDispatchesToEveryKind) {
  auto hull =
      std::make_shared<const ConvexHull>(testing_util::BoxHull({1, 1, 1}));
  const Pose3 pose{{5, 0, 0}, {}};
  const Ray<3> ray = MakeRay({0, 0, 0}, {1, 0, 0}, 100);
  // Each shape's near surface along +x, worked out by hand.
  EXPECT_NEAR(RayCast(ConvexShape3{Sphere{1}}, pose, ray).distance, 4.0f, kTol);
  EXPECT_NEAR(RayCast(ConvexShape3{Box3{{2, 1, 1}}}, pose, ray).distance, 3.0f,
              kTol);
  EXPECT_NEAR(
      RayCast(ConvexShape3{Capsule3{{-1, 0, 0}, {1, 0, 0}, 0.5f}}, pose, ray)
          .distance,
      3.5f, kTol);
  EXPECT_NEAR(
      RayCast(ConvexShape3{Triangle3{{0, -1, -1}, {0, 1, -1}, {0, 0, 1}}}, pose,
              ray)
          .distance,
      5.0f, kTol);
  EXPECT_NEAR(RayCast(ConvexShape3{hull}, pose, ray).distance, 4.0f, kTol);
  EXPECT_FALSE(
      RayCast(ConvexShape3{std::shared_ptr<const ConvexHull>()}, pose, ray)
          .hit);
}

// A ray may be as long as any finite float (Shape3's CheckRay accepts
// FLT_MAX). The comparisons against max_distance must not multiply it by
// anything larger than 1: the watertight triangle test compared
// t > t_max * det and raised FE_OVERFLOW (SIGFPE here, exceptions trap) for
// any triangle whose sheared determinant exceeds 1.
TEST(RayCast, HugeMaxDistanceRaisesNoException) {
  auto hull =
      std::make_shared<const ConvexHull>(testing_util::BoxHull({3, 3, 3}));
  const Triangle3 big{{-2, -2, 5}, {4, -2, 5}, {-2, 4, 5}};  // det 36
  for (const float max_distance : {std::numeric_limits<float>::max(), 1e30f}) {
    SCOPED_TRACE(max_distance);
    // From the origin along +z onto z = 5.
    const Ray<3> up{{0, 0, 0}, {0, 0, 1}, max_distance};
    RayResult<3> r = RayCast(ConvexShape3{big}, Pose3{}, up);
    ASSERT_TRUE(r.hit);
    EXPECT_NEAR(r.distance, 5.0f, 1e-5f);
    ExpectVec(r.normal, {0, 0, -1}, kTol);
    // Every kind 10 units ahead along +x (posed, through the variant), each
    // with its near surface at x = 10 - reach; large shapes so that no
    // product in the tests is below 1.
    const Pose3 pose{{10, 0, 0}, Quat::FromAxisAngle({0, 0, 1}, 0.3f)};
    const Ray<3> ray = MakeRay({0, 0, 0}, {1, 0, 0}, max_distance);
    EXPECT_NEAR(
        RayCast(ConvexShape3{Sphere{3}}, Pose3{{10, 0, 0}, {}}, ray).distance,
        7.0f, kTol);
    EXPECT_NEAR(
        RayCast(ConvexShape3{Box3{{3, 3, 3}}}, Pose3{{10, 0, 0}, {}}, ray)
            .distance,
        7.0f, kTol);
    EXPECT_NEAR(RayCast(ConvexShape3{Capsule3{{0, -4, 0}, {0, 4, 0}, 3}},
                        Pose3{{10, 0, 0}, {}}, ray)
                    .distance,
                7.0f, kTol);
    EXPECT_NEAR(
        RayCast(ConvexShape3{hull}, Pose3{{10, 0, 0}, {}}, ray).distance, 7.0f,
        kTol);
    r = RayCast(ConvexShape3{Triangle3{{0, -6, -6}, {0, 6, -6}, {0, 0, 6}}},
                pose, ray);
    ASSERT_TRUE(r.hit);
    EXPECT_NEAR(r.distance, 10.0f, kTol);
    // Rotated shapes and misses run the same comparisons; a far shape
    // (1e15 away along +z: squared distances stay finite) is found there.
    const Triangle3 wall{{0, -6, -6}, {0, 6, -6}, {0, 0, 6}};
    for (const ConvexShape3& s :
         {ConvexShape3{Sphere{3}}, ConvexShape3{Box3{{3, 3, 3}}},
          ConvexShape3{Capsule3{{0, -4, 0}, {0, 4, 0}, 3}}, ConvexShape3{hull},
          ConvexShape3{wall}, ConvexShape3{big}}) {
      const bool is_big = std::holds_alternative<Triangle3>(s) &&
                          std::get<Triangle3>(s).a.z == 5.0f;
      if (!is_big) {
        EXPECT_TRUE(RayCast(s, pose, ray).hit);
        EXPECT_FALSE(
            RayCast(s, pose, MakeRay({0, 50, 0}, {1, 0, 0}, max_distance)).hit);
      }
      const bool is_wall = std::holds_alternative<Triangle3>(s) && !is_big;
      if (!is_wall) {
        const RayResult<3> far =
            RayCast(s, Pose3{{0, 0, 1e15f}, {}},
                    MakeRay({0, 0, 0}, {0, 0, 1}, max_distance));
        EXPECT_TRUE(far.hit);
        EXPECT_NEAR(far.distance, 1e15f, 1e9f);
      }
    }
  }
}

}  // namespace
}  // namespace sator
