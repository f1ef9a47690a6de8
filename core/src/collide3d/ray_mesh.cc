// Ray against a TriangleMesh through its BVH.
//
// Closest hit, front to back (Bvh::CastInOrder: Ericson, "Real-Time
// Collision Detection", 6.2.2, with the early out of ray tracers, Wald et
// al., "Interactive Rendering with Coherent Ray Tracing", 2001): each
// triangle reached is tested with t_max a rounding past the best hit so
// far, and a subtree entered beyond it is skipped. Of hits at the same distance
// the triangle with the least id wins, so the answer does not depend on the
// tree.
//
// The slab test is broadphase::RaySlabs' conservative one (casts.h): a
// clamped reciprocal direction, so a ray parallel to a slab never makes
// 0 * inf, and a far distance scaled up by the rounding bound (Ize 2013), so
// that with the watertight triangle test (Woop et al. 2013) no ray slips
// through a shared edge or vertex.
#include <cstdint>
#include <vector>

#include "collide3d/ray_primitives.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/collide3d/raycast3d.h"

namespace sator {

namespace {
constexpr float kPastBest =
    1.0f + 2.0f * broadphase::RaySlabs<3>::kConservativeSlack;
}  // namespace

RayResult<3> RayCastMesh(const TriangleMesh& mesh, const Ray<3>& ray,
                         MeshRayStats* stats) {
  RayResult<3> result;
  if (!(ray.max_distance >= 0.0f)) return result;
  const auto slab = broadphase::RaySlabs<3>::Clamped(ray.origin, ray.direction);
  const internal::TriangleRay tri_ray =
      internal::MakeTriangleRay(ray.origin, ray.direction);
  const std::vector<MeshTriangle>& tris = mesh.leaf_triangles();
  float best = ray.max_distance;
  std::uint32_t best_id = 0;
  std::int64_t best_index = -1;
  const broadphase::TreeStats visits = mesh.bvh().CastInOrder(
      ray.max_distance,
      [&slab](const Aabb3& box, float t_max, float* t_enter) {
        return slab.HitsConservative(box, t_max, t_enter);
      },
      [&](std::uint32_t id, std::uint32_t k, float t_max) {
        float t = 0.0f;
        if (internal::RayTriangleT(tri_ray, t_max, tris[k], &t) ==
                internal::RayStatus::kHit &&
            (best_index < 0 || t < best || (t == best && id < best_id))) {
          best = t;
          best_id = id;
          best_index = k;
        }
        // Past the best by twice the slab test's slack: a box the
        // conservative test accepts at the best still starts within it, so
        // it is entered, and a triangle whose exact distance rounds to the
        // best is accepted; a tie is then decided by id whatever the
        // visiting order.
        return best_index < 0 ? best : best * kPastBest;
      });
  if (stats != nullptr) {
    stats->node_visits = static_cast<int>(visits.node_visits);
    stats->triangle_tests = static_cast<int>(visits.leaf_visits);
  }
  if (best_index < 0) return result;
  result.hit = true;
  result.distance = best;
  result.point = ray.origin + best * ray.direction;
  // The normal of the nearest hit only (formed in double).
  result.normal = internal::TriangleHitNormal(tris[best_index], ray.direction);
  result.feature = static_cast<std::int32_t>(best_id);
  return result;
}

RayResult<3> RayCastMesh(const TriangleMesh& mesh, const Ray<3>& ray) {
  return RayCastMesh(mesh, ray, nullptr);
}

}  // namespace sator
