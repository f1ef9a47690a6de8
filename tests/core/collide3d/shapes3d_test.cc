// Shapes: validation, rotations, quickhull and explicit hulls, AABBs.
#include <cmath>
#include <numbers>
#include <random>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/aabb3d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "test_shapes3d.h"

namespace sator {
namespace {

using ::testing::HasSubstr;

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(ValidateShapeTest, AcceptsGoodShapes) {
  EXPECT_TRUE(ValidateShape(Sphere{1}).ok());
  EXPECT_TRUE(ValidateShape(Box3{{1, 2, 3}}).ok());
  EXPECT_TRUE(ValidateShape(Capsule3{{0, 0, 0}, {1, 0, 0}, 0.5f}).ok());
  // Zero-length capsule: a sphere, accepted.
  EXPECT_TRUE(ValidateShape(Capsule3{{1, 1, 1}, {1, 1, 1}, 0.5f}).ok());
  EXPECT_TRUE(ValidateShape(Triangle3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}).ok());
}

TEST(ValidateShapeTest, RefusesBadShapes) {
  const float nan = std::nanf("");
  const float inf = std::numeric_limits<float>::infinity();
  ExpectInvalid(ValidateShape(Sphere{0}), "sphere radius");
  ExpectInvalid(ValidateShape(Sphere{-1}), "sphere radius");
  ExpectInvalid(ValidateShape(Sphere{nan}), "not finite");
  ExpectInvalid(ValidateShape(Box3{{1, 0, 1}}), "box half extent y is 0");
  ExpectInvalid(ValidateShape(Box3{{1, inf, 1}}), "not finite");
  ExpectInvalid(ValidateShape(Capsule3{{0, 0, 0}, {1, 0, 0}, 0}),
                "capsule radius");
  ExpectInvalid(ValidateShape(Capsule3{{nan, 0, 0}, {1, 0, 0}, 1}),
                "not finite");
  ExpectInvalid(ValidateShape(Triangle3{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}),
                "degenerate");
  ExpectInvalid(ValidateShape(Triangle3{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}),
                "degenerate");
  ExpectInvalid(ValidateShape(std::shared_ptr<const ConvexHull>()), "null");
  // A hand-made hull record with too many vertices, and one whose edge
  // names a face that does not exist.
  auto big = std::make_shared<ConvexHull>();
  big->vertices.resize(kMaxHullVertices + 1);
  ExpectInvalid(ValidateShape(std::shared_ptr<const ConvexHull>(big)),
                "vertices");
  std::vector<Vec3> corners;
  for (int c = 0; c < 8; ++c) {
    corners.push_back({(c & 1) ? 1.0f : -1.0f, (c & 2) ? 1.0f : -1.0f,
                       (c & 4) ? 1.0f : -1.0f});
  }
  auto cube = std::make_shared<ConvexHull>(**MakeConvexHull(corners));
  EXPECT_TRUE(ValidateShape(std::shared_ptr<const ConvexHull>(cube)).ok());
  cube->edges[0].face_left = 99;
  ExpectInvalid(ValidateShape(std::shared_ptr<const ConvexHull>(cube)),
                "edge index");
}

// Radii, half extents, capsule end points and triangle vertices beyond
// kMaxShapeCoordinate3 are refused, naming the field and the limit; values
// at the limit are accepted.
TEST(ValidateShapeTest, RefusesSizesBeyondTheLimit) {
  const float limit = kMaxShapeCoordinate3;
  const float over = std::nextafter(limit, 2.0f * limit);
  EXPECT_TRUE(ValidateShape(Sphere{limit}).ok());
  EXPECT_TRUE(ValidateShape(Box3{{limit, limit, limit}}).ok());
  EXPECT_TRUE(
      ValidateShape(Capsule3{{-limit, 0, 0}, {limit, 0, 0}, limit}).ok());
  EXPECT_TRUE(ValidateShape(Triangle3{{-limit, -limit, -limit},
                                      {limit, -limit, 0},
                                      {0, limit, limit}})
                  .ok());
  ExpectInvalid(ValidateShape(Sphere{over}),
                "sphere radius 100000.008 is beyond 100000 in magnitude "
                "(kMaxShapeCoordinate3)");
  ExpectInvalid(ValidateShape(Sphere{1e30f}),
                "sphere radius 1.00000002e+30 is beyond");
  ExpectInvalid(ValidateShape(Box3{{1, 1, 2e5f}}),
                "box half extent z 200000 is beyond 100000");
  ExpectInvalid(ValidateShape(Capsule3{{0, 0, 0}, {1, 0, 0}, 2e5f}),
                "capsule radius 200000 is beyond 100000");
  ExpectInvalid(ValidateShape(Capsule3{{0, -2e5f, 0}, {1, 0, 0}, 1}),
                "capsule end point a coordinate y -200000 is beyond 100000");
  ExpectInvalid(ValidateShape(Capsule3{{0, 0, 0}, {0, 0, 3e5f}, 1}),
                "capsule end point b coordinate z 300000 is beyond 100000");
  ExpectInvalid(ValidateShape(Triangle3{{0, 0, 0}, {1, 0, 0}, {0, 2e5f, 0}}),
                "triangle vertex c coordinate y 200000 is beyond 100000");
}

TEST(NormalizeRotationTest, NormalisesNearUnitAndRefusesFar) {
  // |(0, 0, 0.6, 0.8005)| = 1.0004: within 1e-3, renormalised.
  absl::StatusOr<Quat> q = NormalizeRotation({0, 0, 0.6f, 0.8005f});
  ASSERT_TRUE(q.ok());
  EXPECT_NEAR(Length(*q), 1.0f, 1e-6f);
  // Length 2 and length 0 are refused.
  ExpectInvalid(NormalizeRotation({0, 0, 0, 2}).status(), "length");
  ExpectInvalid(NormalizeRotation({0, 0, 0, 0}).status(), "length");
  ExpectInvalid(NormalizeRotation({0, 0, 0, std::nanf("")}).status(),
                "not finite");
  ExpectInvalid(NormalizePose({{std::nanf(""), 0, 0}, {}}).status(),
                "position");
}

std::vector<Vec3> CubeCorners(float h) {
  std::vector<Vec3> pts;
  for (int c = 0; c < 8; ++c) {
    pts.push_back({(c & 1) ? h : -h, (c & 2) ? h : -h, (c & 4) ? h : -h});
  }
  return pts;
}

// A cube given by its corners plus points on its faces, edges and inside:
// the hull is the cube: 8 vertices, 6 quad faces (coplanar triangles
// merged), 12 edges, unit axis normals with offset 1.
TEST(ConvexHullTest, CubeWithExtraPoints) {
  std::vector<Vec3> pts = CubeCorners(1);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int i = 0; i < 200; ++i) {
    Vec3 p{u(rng), u(rng), u(rng)};
    if (i % 2 == 0) p[i % 3] = (i % 4 == 0) ? 1.0f : -1.0f;  // On a face.
    pts.push_back(p);
  }
  absl::StatusOr<std::shared_ptr<const ConvexHull>> hull = MakeConvexHull(pts);
  ASSERT_TRUE(hull.ok()) << hull.status();
  const ConvexHull& h = **hull;
  EXPECT_EQ(h.vertices.size(), 8u);
  EXPECT_EQ(h.faces.size(), 6u);
  EXPECT_EQ(h.edges.size(), 12u);
  for (const ConvexHull::Face& f : h.faces) {
    EXPECT_EQ(f.vertex_count, 4);
    EXPECT_NEAR(f.offset, 1.0f, 1e-6f);
    EXPECT_NEAR(
        std::fabs(f.normal.x) + std::fabs(f.normal.y) + std::fabs(f.normal.z),
        1.0f, 1e-6f);
  }
  // Each edge's two faces share both its vertices.
  for (const ConvexHull::Edge& e : h.edges) {
    for (int f : {e.face_left, e.face_right}) {
      const ConvexHull::Face& face = h.faces[f];
      std::set<int> vs(
          h.face_vertex_indices.begin() + face.first_index,
          h.face_vertex_indices.begin() + face.first_index + face.vertex_count);
      EXPECT_TRUE(vs.count(e.a) && vs.count(e.b));
    }
  }
  EXPECT_NEAR(Length(h.centroid), 0.0f, 1e-6f);
}

// Properties on random clouds: every input point is inside every face plane,
// every hull vertex is an input point, faces are counter-clockwise (Newell
// normal agrees with the stored one), Euler's formula holds.
TEST(ConvexHullTest, RandomCloudsProperties) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2, 2);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<Vec3> pts;
    const int n = 4 + trial % 40;
    for (int i = 0; i < n; ++i) pts.push_back({u(rng), u(rng), u(rng)});
    absl::StatusOr<std::shared_ptr<const ConvexHull>> hull =
        MakeConvexHull(pts);
    ASSERT_TRUE(hull.ok()) << hull.status();
    const ConvexHull& h = **hull;
    EXPECT_EQ(static_cast<int>(h.vertices.size()) -
                  static_cast<int>(h.edges.size()) +
                  static_cast<int>(h.faces.size()),
              2);
    for (const ConvexHull::Face& f : h.faces) {
      EXPECT_NEAR(Length(f.normal), 1.0f, 1e-5f);
      for (const Vec3& p : pts) EXPECT_LE(Dot(f.normal, p), f.offset + 1e-4f);
      Vec3 newell{};
      for (int i = 0; i < f.vertex_count; ++i) {
        const Vec3 a = h.vertices[h.face_vertex_indices[f.first_index + i]];
        const Vec3 b =
            h.vertices[h.face_vertex_indices[f.first_index +
                                             (i + 1) % f.vertex_count]];
        newell += Cross(a, b);
      }
      EXPECT_GT(Dot(newell, f.normal), 0.0f);
    }
    for (const Vec3& v : h.vertices) {
      bool found = false;
      for (const Vec3& p : pts) found = found || (p == v);
      EXPECT_TRUE(found);
    }
  }
}

// The hull keeps its vertices in input order, so rebuilding a hull from its
// own vertices (what a client gets back and may send again) gives the same
// vertex list. The first cloud has a point 1.5e-5 off a face (a
// request_convert fuzz seed), which makes the order easy to lose.
TEST(ConvexHullTest, RebuildFromOwnVerticesIsIdempotent) {
  std::vector<std::vector<Vec3>> clouds = {{{0, 0, 0},
                                            {1, 0, 0},
                                            {0, 1.52587891e-05f, 0},
                                            {0, 0, 1},
                                            {0.2f, 0.2f, 0.2f}}};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-2, 2);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Vec3> pts;
    for (int i = 0; i < 4 + trial % 30; ++i) {
      pts.push_back({u(rng), u(rng), u(rng)});
    }
    clouds.push_back(pts);
  }
  for (size_t c = 0; c < clouds.size(); ++c) {
    absl::StatusOr<std::shared_ptr<const ConvexHull>> once =
        MakeConvexHull(clouds[c]);
    ASSERT_TRUE(once.ok()) << once.status();
    // Input order: each vertex appears later in the cloud than the last.
    size_t next = 0;
    for (const Vec3& v : (*once)->vertices) {
      while (next < clouds[c].size() && !(clouds[c][next] == v)) ++next;
      ASSERT_LT(next, clouds[c].size()) << "cloud " << c;
      ++next;
    }
    absl::StatusOr<std::shared_ptr<const ConvexHull>> again =
        MakeConvexHull((*once)->vertices);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ((*again)->vertices, (*once)->vertices) << "cloud " << c;
  }
}

TEST(ConvexHullTest, RefusesBadInput) {
  ExpectInvalid(
      MakeConvexHull(std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
          .status(),
      "at least 4 points");
  ExpectInvalid(MakeConvexHull(std::vector<Vec3>{
                                   {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}})
                    .status(),
                "coplanar");
  ExpectInvalid(MakeConvexHull(std::vector<Vec3>{
                                   {0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}})
                    .status(),
                "collinear");
  ExpectInvalid(MakeConvexHull(std::vector<Vec3>(5, Vec3{1, 1, 1})).status(),
                "coincident");
  std::vector<Vec3> bad = CubeCorners(1);
  bad[3].y = std::numeric_limits<float>::infinity();
  ExpectInvalid(MakeConvexHull(bad).status(), "point 3 is not finite");
  // 100 points on a sphere: all are hull vertices, more than 64.
  std::vector<Vec3> sphere;
  const float golden = std::numbers::pi_v<float> * (3.0f - std::sqrt(5.0f));
  for (int i = 0; i < 100; ++i) {
    const float z = 1.0f - 2.0f * (static_cast<float>(i) + 0.5f) / 100.0f;
    const float r = std::sqrt(1.0f - z * z);
    sphere.push_back({r * std::cos(golden * static_cast<float>(i)),
                      r * std::sin(golden * static_cast<float>(i)), z});
  }
  ExpectInvalid(MakeConvexHull(sphere).status(), "at most 64");
}

// Coordinates beyond kMaxShapeCoordinate3 (1e5) are refused by both
// factories and by ValidateShape for a record made by hand: two shapes a
// few times that large overflow float in Sweep (docs/core/collide3d.md).
TEST(ConvexHullTest, RefusesCoordinatesBeyondTheLimit) {
  const float limit = kMaxShapeCoordinate3;
  // A cube reaching the limit is accepted, in either direction.
  std::vector<Vec3> at = CubeCorners(limit);
  EXPECT_TRUE(MakeConvexHull(at).ok());
  std::vector<Vec3> beyond = CubeCorners(1);
  beyond[5].z = std::nextafter(limit, 2.0f * limit);
  ExpectInvalid(MakeConvexHull(beyond).status(),
                "point 5 coordinate z 100000.008 is beyond 100000 in magnitude "
                "(kMaxShapeCoordinate3)");
  beyond = CubeCorners(1);
  beyond[2].x = -1e19f;
  ExpectInvalid(MakeConvexHull(beyond).status(), "point 2 coordinate x");
  const std::vector<std::vector<int>> faces = {{0, 2, 3, 1}, {4, 5, 7, 6},
                                               {0, 1, 5, 4}, {2, 6, 7, 3},
                                               {0, 4, 6, 2}, {1, 3, 7, 5}};
  EXPECT_TRUE(MakeConvexHullFromFaces(CubeCorners(limit), faces).ok());
  std::vector<Vec3> big = CubeCorners(2e5f);
  ExpectInvalid(MakeConvexHullFromFaces(big, faces).status(),
                "vertex 0 coordinate x");
  // A record scaled past the limit by hand.
  auto hull = MakeConvexHull(CubeCorners(1));
  ASSERT_TRUE(hull.ok());
  auto record = std::make_shared<ConvexHull>(**hull);
  record->vertices[4].y = 3e5f;
  ExpectInvalid(ValidateShape(ConvexShape3{
                    std::shared_ptr<const ConvexHull>(std::move(record))}),
                "vertex 4 coordinate y");
}

// A cube given by faces (counter-clockwise from outside) is accepted; the
// same with one face reversed, one face missing, or a dent, is refused.
TEST(ConvexHullTest, FromFaces) {
  const std::vector<Vec3> v = CubeCorners(1);
  std::vector<std::vector<int>> faces = {{1, 3, 7, 5}, {0, 4, 6, 2},
                                         {2, 6, 7, 3}, {0, 1, 5, 4},
                                         {4, 5, 7, 6}, {0, 2, 3, 1}};
  absl::StatusOr<std::shared_ptr<const ConvexHull>> hull =
      MakeConvexHullFromFaces(v, faces);
  ASSERT_TRUE(hull.ok()) << hull.status();
  EXPECT_EQ((*hull)->edges.size(), 12u);
  EXPECT_EQ((*hull)->faces.size(), 6u);

  std::vector<std::vector<int>> reversed = faces;
  std::reverse(reversed[0].begin(), reversed[0].end());
  ExpectInvalid(MakeConvexHullFromFaces(v, reversed).status(), "face 0");

  std::vector<std::vector<int>> open(faces.begin(), faces.end() - 1);
  ExpectInvalid(MakeConvexHullFromFaces(v, open).status(), "not closed");

  std::vector<Vec3> dented = v;
  dented[7] = {0.5f, 0.5f, 0.5f};  // Pushed inward: faces no longer planar.
  EXPECT_FALSE(MakeConvexHullFromFaces(dented, faces).ok());

  // The +z face split into two coplanar triangles: refused.
  std::vector<std::vector<int>> split = faces;
  split[4] = {4, 5, 7};
  split.push_back({4, 7, 6});
  ExpectInvalid(MakeConvexHullFromFaces(v, split).status(), "coplanar");

  std::vector<std::vector<int>> out_of_range = faces;
  out_of_range[0][0] = 9;
  ExpectInvalid(MakeConvexHullFromFaces(v, out_of_range).status(),
                "out of range");
}

// Faces can close up around a flat vertex set: two fans of one polygon,
// back to back, pass every face check (each vertex lies on each plane, the
// surface is closed, V - E + F = 6 - 12 + 8 = 2). Such a polytope has no
// volume; MakeConvexHull refuses the same points as coplanar, and so must
// MakeConvexHullFromFaces, by the same test and tolerance (1e-6 of the sum
// of the largest coordinate magnitudes).
TEST(ConvexHullTest, FromFacesRefusesFlatPolytope) {
  const std::vector<Vec3> flat = {{4, 2, 0}, {4, -1, 0}, {0, 0, 0},
                                  {3, 4, 0}, {2, -4, 0}, {3, -1, 0}};
  const std::vector<std::vector<int>> pillow = {{0, 2, 4}, {0, 5, 2}, {0, 4, 3},
                                                {0, 3, 5}, {1, 4, 2}, {1, 2, 5},
                                                {1, 3, 4}, {1, 5, 3}};
  ExpectInvalid(MakeConvexHullFromFaces(flat, pillow).status(),
                "convex polytope vertices are all coplanar (within "
                "tolerance); a hull needs volume");
  ExpectInvalid(MakeConvexHull(flat).status(),
                "convex hull points are all coplanar (within tolerance)");
  // Flat within the tolerance (z = +-1e-6 on a 10-unit slab: 2e-6 thick,
  // tolerance 2e-5): refused by both. Collinear too.
  const std::vector<std::vector<int>> cube_faces = {{1, 3, 7, 5}, {0, 4, 6, 2},
                                                    {2, 6, 7, 3}, {0, 1, 5, 4},
                                                    {4, 5, 7, 6}, {0, 2, 3, 1}};
  const auto slab = [](float half_thickness) {
    std::vector<Vec3> v = CubeCorners(1);
    for (Vec3& p : v) p = {10 * p.x, 10 * p.y, half_thickness * p.z};
    return v;
  };
  ExpectInvalid(MakeConvexHullFromFaces(slab(1e-6f), cube_faces).status(),
                "coplanar");
  ExpectInvalid(MakeConvexHull(slab(1e-6f)).status(), "coplanar");
  // Thin but solid (2e-3 thick, 100 times the tolerance): accepted by both.
  absl::StatusOr<std::shared_ptr<const ConvexHull>> thin =
      MakeConvexHullFromFaces(slab(1e-3f), cube_faces);
  ASSERT_TRUE(thin.ok()) << thin.status();
  EXPECT_EQ((*thin)->faces.size(), 6u);
  ASSERT_TRUE(MakeConvexHull(slab(1e-3f)).ok());
  // A thin tetrahedron (height 1e-3 over a 10-unit base) also passes.
  const std::vector<Vec3> tet = {
      {0, 0, 0}, {10, 0, 0}, {0, 10, 0}, {3, 3, 1e-3f}};
  absl::StatusOr<std::shared_ptr<const ConvexHull>> sliver =
      MakeConvexHullFromFaces(tet,
                              {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}});
  ASSERT_TRUE(sliver.ok()) << sliver.status();
  ExpectInvalid(
      MakeConvexHullFromFaces(
          std::vector<Vec3>{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}},
          {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}})
          .status(),
      "convex polytope vertices are all collinear");
}

// AABBs: a box turned 45 degrees about z spans sqrt2 in x and y; a capsule
// along x of half length 1 and radius 0.5 spans 1.5 in x; every AABB
// contains the support points of the shape in the six axis directions and
// touches them (tight), checked on random shapes with the independent
// support model.
TEST(AabbTest, Analytic) {
  const float pi = std::numbers::pi_v<float>;
  const Aabb3 box = ComputeAabb(
      Box3{{1, 1, 1}}, {{1, 2, 3}, Quat::FromAxisAngle({0, 0, 1}, pi / 4)});
  EXPECT_NEAR(box.max.x, 1 + std::numbers::sqrt2_v<float>, 1e-5f);
  EXPECT_NEAR(box.min.y, 2 - std::numbers::sqrt2_v<float>, 1e-5f);
  EXPECT_NEAR(box.max.z, 4, 1e-5f);
  const Aabb3 cap =
      ComputeAabb(Capsule3{{-1, 0, 0}, {1, 0, 0}, 0.5f}, {{0, 0, 0}, {}});
  EXPECT_NEAR(cap.max.x, 1.5f, 1e-6f);
  EXPECT_NEAR(cap.min.y, -0.5f, 1e-6f);
}

TEST(AabbTest, TightOnRandomShapes) {
  testing::ShapeFactory f(3);
  for (int i = 0; i < 5000; ++i) {
    const ConvexShape3 s = f.Make(static_cast<ShapeKind3>(i % 5));
    const Pose3 pose = f.RandomPose(10);
    const Aabb3 box = ComputeAabb(s, pose);
    for (int k = 0; k < 3; ++k) {
      Vec3 d{};
      d[k] = 1;
      EXPECT_NEAR(box.max[k], testing::SupportValue(s, pose, d), 1e-4f);
      EXPECT_NEAR(box.min[k], -testing::SupportValue(s, pose, -d), 1e-4f);
    }
  }
}

}  // namespace
}  // namespace sator
