// Analytic cases for overlap and MTV; every expected value is derived by
// hand in the comment next to it.
#include "sator/core/collide3d/contact3d.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "collide3d/typed3d.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/overlap3d.h"

namespace sator {
namespace {

constexpr float kTol = 1e-5f;
constexpr float kSqrt2 = std::numbers::sqrt2_v<float>;

Pose3 At(Vec3 p, Quat q = {}) { return {p, q}; }

void ExpectVec(Vec3 actual, Vec3 expected, float tol = kTol) {
  EXPECT_NEAR(actual.x, expected.x, tol);
  EXPECT_NEAR(actual.y, expected.y, tol);
  EXPECT_NEAR(actual.z, expected.z, tol);
}

std::shared_ptr<const ConvexHull> CubeHull(float h) {
  std::vector<Vec3> pts;
  for (int c = 0; c < 8; ++c) {
    pts.push_back({(c & 1) ? h : -h, (c & 2) ? h : -h, (c & 4) ? h : -h});
  }
  return *MakeConvexHull(pts);
}

// Two unit cubes (half extent 1), B at x = 1.5: they overlap by 2 - 1.5 = 0.5
// along +x; the contact face is A's x = 1 face against B's x = 0.5 face, so
// the four points are at x = 0.75 (midway) and y, z = +-1.
TEST(Contact3dTest, BoxBoxFaceFace) {
  const Box3 box{{1, 1, 1}};
  const ContactResult<3> c = Contact(box, At({}), box, At({1.5f, 0, 0}));
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.5f, kTol);
  ExpectVec(c.normal, {1, 0, 0});
  ASSERT_EQ(c.point_count, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(c.points[i].x, 0.75f, kTol);
    EXPECT_NEAR(std::fabs(c.points[i].y), 1.0f, kTol);
    EXPECT_NEAR(std::fabs(c.points[i].z), 1.0f, kTol);
  }
  EXPECT_TRUE(Overlap(box, At({}), box, At({1.5f, 0, 0})));
}

// B at x = 3: a gap of 3 - 2 = 1 along x.
TEST(Contact3dTest, BoxBoxSeparated) {
  const Box3 box{{1, 1, 1}};
  const ContactResult<3> c = Contact(box, At({}), box, At({3, 0, 0}));
  EXPECT_FALSE(c.overlapping);
  EXPECT_NEAR(c.depth, -1.0f, kTol);
  ExpectVec(c.normal, {1, 0, 0});
  EXPECT_EQ(c.point_count, 0);
  EXPECT_FALSE(Overlap(box, At({}), box, At({3, 0, 0})));
}

// Faces exactly touching overlap (closed sets), with depth 0.
TEST(Contact3dTest, BoxBoxTouching) {
  const Box3 box{{1, 1, 1}};
  EXPECT_TRUE(Overlap(box, At({}), box, At({2, 0, 0})));
  const ContactResult<3> c = Contact(box, At({}), box, At({2, 0, 0}));
  EXPECT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.0f, kTol);
}

// Edge against edge. A is turned 45 degrees about z, so it has an edge along
// z at x = sqrt2, y = 0. B is turned 45 degrees about y, so it has an edge
// along y at x = -sqrt2 from its centre, z = 0. With B's centre at
// d = 2 sqrt2 - 0.1 the edges cross with 0.1 of overlap along x. Along A's
// face normal (1, 1, 0) / sqrt2 the overlap is 1 + (1/2 + 1/sqrt2 + 1/2) -
// d / sqrt2 = 0.78, and the same along B's face normals, so the edge axis
// z x y (oriented A to B: +x) is the MTV; the contact point is midway
// between (sqrt2, 0, 0) and (sqrt2 - 0.1, 0, 0).
TEST(Contact3dTest, BoxBoxEdgeEdge) {
  const Box3 box{{1, 1, 1}};
  const float pi = std::numbers::pi_v<float>;
  const Pose3 pa = At({}, Quat::FromAxisAngle({0, 0, 1}, pi / 4));
  const Pose3 pb =
      At({2 * kSqrt2 - 0.1f, 0, 0}, Quat::FromAxisAngle({0, 1, 0}, pi / 4));
  for (const auto& [a, b] :
       {std::pair<ConvexShape3, ConvexShape3>{box, box},
        std::pair<ConvexShape3, ConvexShape3>{CubeHull(1), CubeHull(1)},
        std::pair<ConvexShape3, ConvexShape3>{box, CubeHull(1)}}) {
    const ContactResult<3> c = Contact(a, pa, b, pb);
    ASSERT_TRUE(c.overlapping);
    EXPECT_NEAR(c.depth, 0.1f, 1e-4f);
    ExpectVec(c.normal, {1, 0, 0}, 1e-4f);
    ASSERT_EQ(c.point_count, 1);
    ExpectVec(c.points[0], {kSqrt2 - 0.05f, 0, 0}, 1e-4f);
  }
}

// Spheres of radius 1 at distance 1.5: depth 0.5 along +x, point midway

// A fuzz seed (tests/fuzz/seeds/core_pair/
// regression_box_box_mtv_too_shallow.bin): A is turned 180 degrees about
// (1, 1, 0), so its axes are world (y, x, -z); B is a 0.4 cube turned by
// theta = 2 asin(0.0275662) = 3.16 degrees about x and sits dz = 0.1157262
// below A. Along A's z axis (world -z) the overlap is
// a_z + b_y sin(theta) + b_z cos(theta) - dz = 0.5076275, the least of the
// 15 axes. A's y and B's x are 7.6e-5 radians from parallel: their edge
// axis has the same true overlap (0.5076495), but Gottschalk's table,
// which assumes R is an exact rotation, divided R's float round-off by that
// 7.6e-5 and gave 0.50603, a normal that did not separate. Both orders
// must give the face depth, and B moved by the MTV must come free.
TEST(Contact3dTest, BoxBoxNearlyParallelEdgesRegression) {
  const Box3 a{{0.500015259f, 0.299996942f, 0.201940984f}};
  const Box3 b{{0.400006115f, 0.400006115f, 0.399975598f}};
  const Pose3 pa =
      At({0, 0, 0.00622577593f}, {0.70713371f, 0.707079768f, 0, 0});
  const Pose3 pb =
      At({0, 0, -0.109500416f}, {-0.0275662169f, 0, 0, 0.999619961f});
  const double theta = 2.0 * std::asin(0.0275662169);
  const double dz = 0.00622577593 + 0.109500416;
  const double expected = 0.201940984 + 0.400006115 * std::sin(theta) +
                          0.399975598 * std::cos(theta) - dz;
  const ContactResult<3> ab = Contact(a, pa, b, pb);
  const ContactResult<3> ba = Contact(b, pb, a, pa);
  ASSERT_TRUE(ab.overlapping);
  ASSERT_TRUE(ba.overlapping);
  EXPECT_NEAR(ab.depth, expected, 2e-6);
  EXPECT_NEAR(ba.depth, expected, 2e-6);
  ExpectVec(ab.normal, {0, 0, -1}, 1e-4f);
  const Pose3 freed =
      At(pb.position + (ab.depth + 1e-5f) * ab.normal, pb.rotation);
  EXPECT_FALSE(Overlap(a, pa, b, freed));
  const Pose3 freed_ba =
      At(pb.position - (ba.depth + 1e-5f) * ba.normal, pb.rotation);
  EXPECT_FALSE(Overlap(a, pa, b, freed_ba));
}
// between A's surface (x = 1) and B's (x = 0.5).
TEST(Contact3dTest, SphereSphere) {
  const ContactResult<3> c =
      Contact(Sphere{1}, At({}), Sphere{1}, At({1.5f, 0, 0}));
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.5f, kTol);
  ExpectVec(c.normal, {1, 0, 0});
  ASSERT_EQ(c.point_count, 1);
  ExpectVec(c.points[0], {0.75f, 0, 0});
  // Apart by 3 - 2 = 1: depth -1 (exact distance for round shapes).
  const ContactResult<3> far =
      Contact(Sphere{1}, At({}), Sphere{1}, At({0, 3, 0}));
  EXPECT_FALSE(far.overlapping);
  EXPECT_NEAR(far.depth, -1.0f, kTol);
  ExpectVec(far.normal, {0, 1, 0});
}

// Box half 1, sphere radius 0.5 at x = 1.2: depth 1 + 0.5 - 1.2 = 0.3, point
// midway between x = 1 and x = 0.7.
TEST(Contact3dTest, BoxSphereFace) {
  const ContactResult<3> c =
      Contact(Box3{{1, 1, 1}}, At({}), Sphere{0.5f}, At({1.2f, 0, 0}));
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.3f, kTol);
  ExpectVec(c.normal, {1, 0, 0});
  ExpectVec(c.points[0], {0.85f, 0, 0});
}

// Sphere near the box edge x = y = 1: the centre (1.3, 1.3, 0) is
// 0.3 sqrt2 from the edge, so depth = 0.5 - 0.3 sqrt2 along (1, 1, 0)/sqrt2.
TEST(Contact3dTest, BoxSphereEdge) {
  const ContactResult<3> c =
      Contact(Box3{{1, 1, 1}}, At({}), Sphere{0.5f}, At({1.3f, 1.3f, 0}));
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.5f - 0.3f * kSqrt2, kTol);
  ExpectVec(c.normal, {1 / kSqrt2, 1 / kSqrt2, 0});
}

// Sphere centre inside the box, 0.2 from the x = 1 face: the core depth is
// 0.2, plus the radius 0.5.
TEST(Contact3dTest, BoxSphereCentreInside) {
  const ContactResult<3> c =
      Contact(Box3{{1, 1, 1}}, At({}), Sphere{0.5f}, At({0.8f, 0, 0}));
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.7f, kTol);
  ExpectVec(c.normal, {1, 0, 0});
  // Swapped: the normal flips, the depth does not.
  const ContactResult<3> s =
      Contact(Sphere{0.5f}, At({0.8f, 0, 0}), Box3{{1, 1, 1}}, At({}));
  EXPECT_NEAR(s.depth, 0.7f, kTol);
  ExpectVec(s.normal, {-1, 0, 0});
}

// Crossed capsules (x and y segments of half length 1, radius 0.5), B lifted
// 0.8 along z: the segments are 0.8 apart, depth 1 - 0.8 = 0.2; the point is
// midway between z = 0.5 (A's surface) and z = 0.3 (B's).
TEST(Contact3dTest, CapsuleCapsuleCrossed) {
  const Capsule3 a{{-1, 0, 0}, {1, 0, 0}, 0.5f};
  const Capsule3 b{{0, -1, 0}, {0, 1, 0}, 0.5f};
  const ContactResult<3> c = Contact(a, At({}), b, At({0, 0, 0.8f}));
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.2f, kTol);
  ExpectVec(c.normal, {0, 0, 1});
  ExpectVec(c.points[0], {0, 0, 0.4f});
  // Segments intersecting: the cores touch with zero depth along x cross y,
  // so the depth is the sum of the radii.
  const ContactResult<3> deep = Contact(a, At({}), b, At({0, 0, 0}));
  ASSERT_TRUE(deep.overlapping);
  EXPECT_NEAR(deep.depth, 1.0f, kTol);
  EXPECT_NEAR(std::fabs(deep.normal.z), 1.0f, kTol);
  EXPECT_TRUE(Overlap(a, At({}), b, At({0, 0, 0.99f})));
  EXPECT_FALSE(Overlap(a, At({}), b, At({0, 0, 1.01f})));
}

// A zero-length capsule is a sphere.
TEST(Contact3dTest, DegenerateCapsuleIsSphere) {
  const Capsule3 a{{0.5f, 0, 0}, {0.5f, 0, 0}, 1.0f};
  const ContactResult<3> c = Contact(a, At({}), Sphere{1}, At({2.0f, 0, 0}));
  EXPECT_NEAR(c.depth, 0.5f, kTol);
  ExpectVec(c.normal, {1, 0, 0});
}

// A flat triangle at z = 0.9 over a box's top face (z = 1): depth 0.1 along
// +z, and the three vertices are the contact points at z = 0.95.
TEST(Contact3dTest, BoxTriangleFace) {
  const Triangle3 t{{-0.5f, -0.5f, 0.9f}, {0.5f, -0.5f, 0.9f}, {0, 0.5f, 0.9f}};
  const Box3 box{{1, 1, 1}};
  const ContactResult<3> c = Contact(box, At({}), t, At({}));
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.1f, kTol);
  ExpectVec(c.normal, {0, 0, 1});
  ASSERT_EQ(c.point_count, 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(c.points[i].z, 0.95f, kTol);
  EXPECT_TRUE(Overlap(box, At({}), t, At({})));
  EXPECT_TRUE(Overlap(t, At({}), box, At({})));
  EXPECT_FALSE(Overlap(t, At({0, 0, 0.2f}), box, At({})));
  EXPECT_FALSE(OverlapBoxTriangle(box, t, At({0, 0, 0.11f})));
  EXPECT_TRUE(OverlapBoxTriangle(box, t, At({0, 0, 0.09f})));
}

// Two coplanar triangles side by side: only an in-plane axis separates them.
TEST(Contact3dTest, CoplanarTrianglesSeparated) {
  const Triangle3 t{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  EXPECT_FALSE(Overlap(t, At({}), t, At({0.6f, 0.6f, 0})));
  const ContactResult<3> c = Contact(t, At({}), t, At({0.6f, 0.6f, 0}));
  EXPECT_FALSE(c.overlapping);
  // A's hypotenuse is x + y = 1 and B's nearest vertex (0.6, 0.6) has
  // x + y = 1.2: a gap of 0.2 / sqrt2 along (1, 1, 0) / sqrt2.
  EXPECT_NEAR(c.depth, -0.2f / kSqrt2, kTol);
  EXPECT_TRUE(Overlap(t, At({}), t, At({0.4f, 0.4f, 0})));
}

// A sphere over the middle of a triangle, and one past its corner.
TEST(Contact3dTest, SphereTriangle) {
  const Triangle3 t{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}};
  const ContactResult<3> c =
      Contact(t, At({}), Sphere{0.5f}, At({0.5f, 0.5f, 0.4f}));
  EXPECT_NEAR(c.depth, 0.1f, kTol);
  ExpectVec(c.normal, {0, 0, 1});
  // Past vertex (0, 0, 0) at (-0.3, -0.4, 0): distance 0.5, touching.
  const ContactResult<3> v =
      Contact(t, At({}), Sphere{0.6f}, At({-0.3f, -0.4f, 0}));
  EXPECT_NEAR(v.depth, 0.1f, kTol);
  ExpectVec(v.normal, {-0.6f, -0.8f, 0});
}

// Capsule lying on a box: the segment z = 1.3 above the top face, radius
// 0.5, so depth 0.2 along +z.
TEST(Contact3dTest, BoxCapsule) {
  const Capsule3 cap{{-0.5f, 0, 0}, {0.5f, 0, 0}, 0.5f};
  const ContactResult<3> c =
      Contact(Box3{{1, 1, 1}}, At({}), cap, At({0, 0, 1.3f}));
  EXPECT_NEAR(c.depth, 0.2f, kTol);
  ExpectVec(c.normal, {0, 0, 1});
  // Segment going through the box along x: the core is inside, 1 below the
  // top and side faces in y and z; depth = 1 + 0.5 along one of them.
  const Capsule3 through{{-3, 0, 0}, {3, 0, 0}, 0.5f};
  const ContactResult<3> d = Contact(Box3{{1, 1, 1}}, At({}), through, At({}));
  EXPECT_NEAR(d.depth, 1.5f, kTol);
  EXPECT_NEAR(std::fabs(d.normal.x), 0.0f, kTol);
}

// A hull cube against a box, both half 1, B shifted (1.5, 0.2, 0): depth 0.5.
TEST(Contact3dTest, HullBox) {
  const ContactResult<3> c =
      Contact(CubeHull(1), At({}), Box3{{1, 1, 1}}, At({1.5f, 0.2f, 0}));
  EXPECT_NEAR(c.depth, 0.5f, kTol);
  ExpectVec(c.normal, {1, 0, 0});
  ASSERT_EQ(c.point_count, 4);
  // The contact square spans y in [-0.8, 1], z in [-1, 1] at x = 0.75.
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(c.points[i].x, 0.75f, kTol);
    EXPECT_GE(c.points[i].y, -0.8f - kTol);
  }
}

// Flip answers the reversed pair: same depth, opposite normal.
TEST(Contact3dTest, FlipMatchesReversedPair) {
  const ContactResult<3> ab =
      Contact(Sphere{1}, At({}), Box3{{1, 1, 1}}, At({0, 1.5f, 0}));
  const ContactResult<3> ba =
      Contact(Box3{{1, 1, 1}}, At({0, 1.5f, 0}), Sphere{1}, At({}));
  const ContactResult<3> flipped = Flip(ab);
  EXPECT_NEAR(flipped.depth, ba.depth, kTol);
  ExpectVec(flipped.normal, ba.normal);
  // The sphere's centre is 1.5 from the box centre, 0.5 outside its face:
  // depth 1 - 0.5 = 0.5 along +y from the sphere to the box.
  EXPECT_NEAR(ab.depth, 0.5f, kTol);
  ExpectVec(ab.normal, {0, 1, 0});
}

// The world frame: rotating and moving both shapes together rotates the
// normal and the points with them.
TEST(Contact3dTest, WorldFrame) {
  const Box3 box{{1, 1, 1}};
  const Quat q = Quat::FromAxisAngle({0, 0, 1}, std::numbers::pi_v<float> / 2);
  const Pose3 pa{{5, 5, 5}, q};
  const Pose3 pb = Mul(pa, At({1.5f, 0, 0}));
  const ContactResult<3> c = Contact(box, pa, box, pb);
  EXPECT_NEAR(c.depth, 0.5f, kTol);
  ExpectVec(c.normal, {0, 1, 0});
  for (int i = 0; i < c.point_count; ++i)
    EXPECT_NEAR(c.points[i].y, 5.75f, kTol);
}

}  // namespace
}  // namespace sator
