// TriangleMesh: the validating factory and the BVH's invariants.
#include "sator/core/collide3d/triangle_mesh.h"

#include <cmath>
#include <limits>
#include <vector>

#include "core/collide3d/mesh_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sator {
namespace {

using ::testing::HasSubstr;
using testing_util::MeshInput;

TEST(MakeTriangleMesh, RefusesInvalidInput) {
  const std::vector<Vec3> v = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  struct Case {
    std::vector<Vec3> vertices;
    std::vector<std::uint32_t> indices;
    absl::StatusCode code;
    const char* message;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<Vec3> nan_v = {v[0], v[1], {0, nan, 0}, v[3]};
  const std::vector<Vec3> inf_v = {v[0], v[1], v[2], {1, 1, inf}};
  // Beyond kMaxShapeCoordinate3 (1e5), in any vertex, used or not.
  const std::vector<Vec3> far_v = {v[0], {-2e5f, 0, 0}, v[2], v[3]};
  const std::vector<Vec3> unused_far_v = {v[0], v[1], v[2], {1, 1, 3e5f}};
  const Case cases[] = {
      {nan_v, {0, 1, 2}, absl::StatusCode::kInvalidArgument, "vertex 2"},
      {inf_v, {0, 1, 2}, absl::StatusCode::kInvalidArgument, "vertex 3"},
      {far_v,
       {0, 1, 2},
       absl::StatusCode::kInvalidArgument,
       "vertex 1 coordinate x -200000 is beyond 100000 in magnitude "
       "(kMaxShapeCoordinate3)"},
      {unused_far_v,
       {0, 1, 2},
       absl::StatusCode::kInvalidArgument,
       "vertex 3 coordinate z 300000 is beyond 100000"},
      {v, {0, 1, 2, 3}, absl::StatusCode::kInvalidArgument, "multiple of 3"},
      {v, {}, absl::StatusCode::kInvalidArgument, "no triangles"},
      {v,
       {0, 1, 2, 1, 3, 4},
       absl::StatusCode::kInvalidArgument,
       "triangle 1 has index 4"},
      {v,
       {0, 1, 2, 0, 0, 1},
       absl::StatusCode::kInvalidArgument,
       "triangle 1 is degenerate"},
      // Collinear: (0,0,0), (1,0,0), (2,0,0).
      {{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}},
       {0, 1, 2},
       absl::StatusCode::kInvalidArgument,
       "triangle 0 is degenerate"},
  };
  // At the limit: accepted.
  const float m = kMaxShapeCoordinate3;
  EXPECT_TRUE(
      MakeTriangleMesh({{-m, -m, -m}, {m, -m, m}, {0, m, 0}}, {0, 1, 2}).ok());
  for (const Case& c : cases) {
    const auto mesh = MakeTriangleMesh(c.vertices, c.indices);
    ASSERT_FALSE(mesh.ok()) << c.message;
    EXPECT_EQ(mesh.status().code(), c.code) << c.message;
    EXPECT_THAT(mesh.status().message(), HasSubstr(c.message));
  }
}

TEST(MakeTriangleMesh, KeepsTheInputAndBounds) {
  const auto mesh =
      MakeTriangleMesh({{0, 0, 0}, {2, 0, 0}, {0, 3, -1}}, {0, 1, 2});
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  const TriangleMesh& m = **mesh;
  EXPECT_EQ(m.triangle_count(), 1u);
  EXPECT_EQ(m.bvh().NodeCount(), 1);
  EXPECT_EQ(m.local_bounds().min.z, -1.0f);
  EXPECT_EQ(m.local_bounds().max.x, 2.0f);
  EXPECT_EQ(m.local_bounds().max.y, 3.0f);
  EXPECT_EQ(m.triangle(0).c.y, 3.0f);
  // The input, the leaf-order copy, and the tree: a box and an id for the
  // triangle and a box for each node.
  EXPECT_GE(m.MemoryBytes(), 3 * sizeof(Vec3) + 3 * sizeof(std::uint32_t) +
                                 sizeof(MeshTriangle) + sizeof(Aabb3) +
                                 sizeof(std::uint32_t) +
                                 m.bvh().NodeCount() * sizeof(Aabb3));
}

// The tree is valid (every node contains its children and proxies, each
// proxy is in exactly one leaf), has one proxy per triangle, and each leaf
// position holds its triangle's copy, found by a query on its own box.
void CheckBvh(const TriangleMesh& m) {
  ASSERT_TRUE(m.bvh().Validate().ok()) << m.bvh().Validate();
  ASSERT_EQ(m.bvh().ProxyCount(), static_cast<int>(m.triangle_count()));
  ASSERT_EQ(m.leaf_triangles().size(), m.triangle_count());
  std::vector<int> seen(m.triangle_count(), 0);
  for (std::size_t k = 0; k < m.leaf_triangle_ids().size(); ++k) {
    const std::uint32_t id = m.leaf_triangle_ids()[k];
    ASSERT_LT(id, m.triangle_count());
    ++seen[id];
    const Triangle3 t = m.triangle(id);
    const MeshTriangle& lt = m.leaf_triangles()[k];
    ASSERT_EQ(lt.a, t.a);
    ASSERT_EQ(lt.b, t.b);
    ASSERT_EQ(lt.c, t.c);
    bool found = false;
    m.bvh().Query(Aabb3{Min(t.a, Min(t.b, t.c)), Max(t.a, Max(t.b, t.c))},
                  [&](std::uint32_t proxy, std::uint32_t slot) {
                    found = found || (proxy == id && slot == k);
                    return true;
                  });
    ASSERT_TRUE(found) << id;
  }
  for (int s : seen) ASSERT_EQ(s, 1);
}

TEST(MakeTriangleMesh, BvhInvariantsOnTerrainAndSoup) {
  const MeshInput terrain = testing_util::Terrain(60, 50.0f, 2.0f, 3);
  const auto t = MakeTriangleMesh(terrain.vertices, terrain.indices);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)->triangle_count(), 2u * 60 * 60);
  CheckBvh(**t);
  // A balanced tree: a 7,200-triangle height field in leaves of 4 needs
  // depth 11; SAH on a regular grid stays within about twice that.
  EXPECT_LE((*t)->depth(), 24);

  const MeshInput soup = testing_util::Soup(5000, 20.0f, 2.0f, 4);
  const auto s = MakeTriangleMesh(soup.vertices, soup.indices);
  ASSERT_TRUE(s.ok()) << s.status();
  CheckBvh(**s);
  EXPECT_LE((*s)->depth(), 30);
}

TEST(MakeTriangleMesh, CoincidentCentroidsStillSplit) {
  // 64 copies of one triangle: the SAH cannot bin them; the median split
  // must still give small leaves and a shallow tree.
  MeshInput m;
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  for (int i = 0; i < 64; ++i) m.indices.insert(m.indices.end(), {0, 1, 2});
  const auto mesh = MakeTriangleMesh(m.vertices, m.indices);
  ASSERT_TRUE(mesh.ok());
  CheckBvh(**mesh);
  EXPECT_LE((*mesh)->depth(), 6);
}

}  // namespace
}  // namespace sator
