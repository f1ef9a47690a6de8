// Ray against a mesh through the BVH, checked against a brute-force test of
// every triangle.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/collide3d/mesh_test_util.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/raycast3d.h"

namespace sator {
namespace {

using testing_util::MeshInput;
using testing_util::Rng;

RayResult<3> BruteForce(const TriangleMesh& mesh, const Ray<3>& ray) {
  RayResult<3> best;
  for (std::uint32_t id = 0; id < mesh.triangle_count(); ++id) {
    const RayResult<3> h = RayCastTriangle(mesh.triangle(id), ray);
    if (h.hit && (!best.hit || h.distance < best.distance)) {
      best = h;
      best.feature = static_cast<std::int32_t>(id);
    }
  }
  return best;
}

void CompareOnRandomRays(const TriangleMesh& mesh, float half, int count,
                         unsigned seed, int* hits_out) {
  Rng rng(seed);
  int hits = 0;
  for (int i = 0; i < count; ++i) {
    Ray<3> ray{rng.InBox(half), rng.UnitVector(), rng.Uniform(0.0f, 3 * half)};
    // Aim a third of the rays at a vertex's neighbourhood so that many hit.
    if (i % 3 == 0) {
      const int vertex =
          rng.Int(0, static_cast<int>(mesh.vertices().size()) - 1);
      const Vec3 target = mesh.vertices()[vertex] + rng.InBox(0.3f);
      ray.direction = NormalizeOrZero(target - ray.origin);
      if (LengthSquared(ray.direction) == 0.0f) continue;
    }
    const RayResult<3> fast = RayCastMesh(mesh, ray);
    const RayResult<3> slow = BruteForce(mesh, ray);
    ASSERT_EQ(fast.hit, slow.hit) << i;
    if (!fast.hit) continue;
    ++hits;
    EXPECT_FALSE(fast.started_inside);
    // Both run the same triangle test on the same numbers: the same distance
    // exactly, and of triangles tied at it the least id.
    ASSERT_EQ(fast.distance, slow.distance) << i;
    ASSERT_EQ(fast.feature, slow.feature) << i;
  }
  *hits_out = hits;
}

TEST(MeshRay, MatchesBruteForceOnTerrain) {
  const MeshInput m = testing_util::Terrain(40, 20.0f, 3.0f, 21);
  const auto mesh = MakeTriangleMesh(m.vertices, m.indices);
  ASSERT_TRUE(mesh.ok());
  int hits = 0;
  CompareOnRandomRays(**mesh, 25.0f, 4000, 22, &hits);
  EXPECT_GT(hits, 1000);
}

TEST(MeshRay, MatchesBruteForceOnSoup) {
  const MeshInput m = testing_util::Soup(3000, 10.0f, 3.0f, 23);
  const auto mesh = MakeTriangleMesh(m.vertices, m.indices);
  ASSERT_TRUE(mesh.ok());
  int hits = 0;
  CompareOnRandomRays(**mesh, 12.0f, 4000, 24, &hits);
  EXPECT_GT(hits, 1000);
}

// Rays along the axes (direction components +0 or -0) whose origins lie
// exactly on the tile edges of a flat floor of unit squares, the floor's
// outer border included: the ray runs in a plane that bounds the boxes of
// the triangles beside it, and where no neighbour lies beyond (the border)
// only those boxes hold a triangle to hit.
TEST(MeshRay, AxisAlignedRaysOnTileEdgesHitTheFloor) {
  constexpr int kTiles = 4;
  std::vector<Vec3> vertices;
  std::vector<std::uint32_t> indices;
  for (int z = 0; z <= kTiles; ++z) {
    for (int x = 0; x <= kTiles; ++x) {
      vertices.push_back({static_cast<float>(x), 0.0f, static_cast<float>(z)});
    }
  }
  for (int z = 0; z < kTiles; ++z) {
    for (int x = 0; x < kTiles; ++x) {
      const std::uint32_t v = z * (kTiles + 1) + x;
      indices.insert(indices.end(), {v, v + kTiles + 1, v + 1, v + 1,
                                     v + kTiles + 1, v + kTiles + 2});
    }
  }
  const auto mesh = MakeTriangleMesh(vertices, indices);
  ASSERT_TRUE(mesh.ok());
  int rays = 0;
  for (int i = 0; i <= 2 * kTiles; ++i) {
    for (int k = 0; k <= 2 * kTiles; ++k) {
      for (const float zero : {0.0f, -0.0f}) {
        const Ray<3> ray{{0.5f * i, 3.0f, 0.5f * k}, {zero, -1.0f, zero}, 10};
        const RayResult<3> fast = RayCastMesh(**mesh, ray);
        const RayResult<3> slow = BruteForce(**mesh, ray);
        ASSERT_TRUE(slow.hit) << i << " " << k;
        ASSERT_TRUE(fast.hit) << i << " " << k << " " << zero;
        EXPECT_EQ(fast.distance, 3.0f);
        EXPECT_EQ(fast.feature, slow.feature) << i << " " << k;
        ++rays;
      }
    }
  }
  EXPECT_EQ(rays, 2 * (2 * kTiles + 1) * (2 * kTiles + 1));
}

TEST(MeshRay, AnalyticFloorThroughPose) {
  // A 2 x 2 floor quad at y = 0, posed 3 units up and turned 90 degrees
  // about x, becomes the wall z = 0 at height 3 (local z maps to world -y...
  // checked by hand: rotating (0, 0, 1) about x by +90 gives (0, -1, 0)).
  const auto mesh = MakeTriangleMesh(
      {{-1, 0, -1}, {1, 0, -1}, {1, 0, 1}, {-1, 0, 1}}, {0, 2, 1, 0, 3, 2});
  ASSERT_TRUE(mesh.ok());
  const Pose3 pose{{0, 3, 0}, Quat::FromAxisAngle({1, 0, 0}, 1.5707963f)};
  // Local +y maps to world +z: the quad lies in the plane z = 0 (world),
  // spanning x in [-1, 1] and y in [2, 4].
  const RayResult<3> r =
      RayCast(**mesh, pose, Ray<3>{{0.5f, 3.5f, -7}, {0, 0, 1}, 100});
  ASSERT_TRUE(r.hit);
  EXPECT_NEAR(r.distance, 7.0f, 1e-5f);
  EXPECT_NEAR(r.normal.z, -1.0f, 1e-5f);
  EXPECT_NEAR(r.point.y, 3.5f, 1e-5f);
  EXPECT_FALSE(
      RayCast(**mesh, pose, Ray<3>{{0.5f, 4.5f, -7}, {0, 0, 1}, 100}).hit);
  EXPECT_FALSE(
      RayCast(**mesh, pose, Ray<3>{{0.5f, 3.5f, -7}, {0, 0, 1}, 6.9f}).hit);
}

TEST(MeshRay, WatertightThroughSharedEdgesAndVertices) {
  // Rays aimed exactly at points of shared edges and at shared vertices of
  // a gentle height field (slopes below 1), from steep directions (within
  // about 11 degrees of vertical): the ray crosses the surface there, so it
  // must hit a triangle. A non-watertight test (Moller-Trumbore in float)
  // lets about 8% of such rays slip between the two triangles.
  const MeshInput m = testing_util::Terrain(40, 16.0f, 0.3f, 26);
  const auto mesh = MakeTriangleMesh(m.vertices, m.indices);
  ASSERT_TRUE(mesh.ok());
  Rng rng(27);
  int tested = 0;
  for (int i = 0; i < 30000; ++i) {
    const Triangle3 t = (*mesh)->triangle(static_cast<std::uint32_t>(
        rng.Int(0, static_cast<int>((*mesh)->triangle_count()) - 1)));
    // Half on an edge (a to b), half exactly on a vertex.
    const Vec3 target =
        (i % 2 == 0) ? t.a + rng.Uniform(0.0f, 1.0f) * (t.b - t.a) : t.a;
    if (std::fabs(target.x) > 15.0f || std::fabs(target.z) > 15.0f) continue;
    const Vec3 origin = target + Vec3{rng.Uniform(-1, 1), rng.Uniform(5, 10),
                                      rng.Uniform(-1, 1)};
    const Ray<3> ray{origin, NormalizeOrZero(target - origin), 100.0f};
    ++tested;
    const RayResult<3> r = RayCastMesh(**mesh, ray);
    ASSERT_TRUE(r.hit) << i;
    EXPECT_NEAR(r.distance, Length(target - origin), 1e-3f) << i;
  }
  EXPECT_GT(tested, 20000);
}

TEST(MeshRay, PrunesWithTheBvh) {
  // A ray straight down onto a 20k-triangle terrain tests a handful of
  // triangles, not all of them.
  const MeshInput m = testing_util::Terrain(100, 50.0f, 1.0f, 25);
  const auto mesh = MakeTriangleMesh(m.vertices, m.indices);
  ASSERT_TRUE(mesh.ok());
  MeshRayStats stats;
  const RayResult<3> r =
      RayCastMesh(**mesh, Ray<3>{{3.3f, 10, -7.7f}, {0, -1, 0}, 100}, &stats);
  ASSERT_TRUE(r.hit);
  EXPECT_LT(stats.triangle_tests, 64);
  EXPECT_LT(stats.node_visits, 200);
}

// A ray as long as the largest float (Shape3's CheckRay accepts it) must
// neither overflow in the triangle test (t > t_max * det) nor in the slab
// test's robustness scaling (t_far * (1 + 2 gamma(3))).
TEST(MeshRay, HugeMaxDistanceRaisesNoException) {
  auto mesh =
      MakeTriangleMesh({{-2, -2, 5}, {4, -2, 5}, {-2, 4, 5}}, {0, 1, 2});
  ASSERT_TRUE(mesh.ok());
  for (const float max_distance : {std::numeric_limits<float>::max(), 1e30f}) {
    SCOPED_TRACE(max_distance);
    const Ray<3> ray{{0, 0, 0}, {0, 0, 1}, max_distance};
    RayResult<3> r = RayCast(**mesh, Pose3{}, ray);
    ASSERT_TRUE(r.hit);
    EXPECT_NEAR(r.distance, 5.0f, 1e-5f);
    EXPECT_EQ(r.feature, 0);
    EXPECT_NEAR(r.normal.z, -1.0f, 1e-6f);
    // Missing the triangle, and a terrain through the BVH.
    EXPECT_FALSE(
        RayCast(**mesh, Pose3{}, Ray<3>{{10, 0, 0}, {0, 0, 1}, max_distance})
            .hit);
  }
  const MeshInput terrain = testing_util::Terrain(16, 10.0f, 2.0f, 78);
  auto big = MakeTriangleMesh(terrain.vertices, terrain.indices);
  ASSERT_TRUE(big.ok());
  Rng rng(77);
  for (int i = 0; i < 2000; ++i) {
    Ray<3> ray{rng.InBox(10.0f), rng.UnitVector(),
               std::numeric_limits<float>::max()};
    const RayResult<3> r = RayCast(**big, Pose3{}, ray);
    const RayResult<3> b = BruteForce(**big, ray);
    ASSERT_EQ(r.hit, b.hit);
    if (r.hit) {
      EXPECT_EQ(r.distance, b.distance);
    }
  }
}

}  // namespace
}  // namespace sator
