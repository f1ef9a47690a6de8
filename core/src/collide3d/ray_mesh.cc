// Ray against a TriangleMesh through its BVH.
//
// Closest-hit traversal, front to back (the ordered traversal of Ericson,
// "Real-Time Collision Detection", 6.2.2, with the early-out of ray tracers:
// Wald et al., "Interactive Rendering with Coherent Ray Tracing", 2001):
//
//   best = max_distance
//   node = root
//   loop:
//     leaf:     test its triangles with t_max = best (shrinks best)
//     interior: slab-test both children with t_max = best; descend into the
//               nearer, push the farther with its entry distance
//     pop nodes whose entry distance is beyond best
//
// The slab test is broadphase::RaySlabs' conservative one (casts.h): a
// clamped reciprocal direction, so a ray parallel to a slab never makes
// 0 * inf, and a far distance scaled up by the rounding bound (Ize 2013), so
// that with the watertight triangle test (Woop et al. 2013) no ray slips
// through a shared edge or vertex.
#include <algorithm>
#include <cmath>

#include "collide3d/bvh_builder.h"
#include "collide3d/ray_primitives.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/collide3d/raycast3d.h"

namespace sator {

RayResult<3> RayCastMesh(const TriangleMesh& mesh, const Ray<3>& ray,
                         MeshRayStats* stats) {
  RayResult<3> result;
  if (!(ray.max_distance >= 0.0f)) return result;
  const auto slab = broadphase::RaySlabs<3>::Clamped(ray.origin, ray.direction);
  const internal::TriangleRay tri_ray =
      internal::MakeTriangleRay(ray.origin, ray.direction);
  const std::vector<MeshBvhNode>& nodes = mesh.nodes();
  const std::vector<MeshTriangle>& tris = mesh.leaf_triangles();
  float best = ray.max_distance;
  std::int64_t best_index = -1;
  int node_visits = 1;
  int triangle_tests = 0;

  struct Entry {
    std::uint32_t node;
    float t;
  };
  Entry stack[internal::kMaxBvhDepth];
  int top = 0;
  float t_root = 0.0f;
  if (slab.HitsConservative(nodes[0].bounds, best, &t_root)) {
    std::uint32_t node = 0;
    while (true) {
      const MeshBvhNode& n = nodes[node];
      if (n.count > 0) {
        for (std::uint32_t i = n.index; i < n.index + n.count; ++i) {
          ++triangle_tests;
          float t = 0.0f;
          if (internal::RayTriangleT(tri_ray, best, tris[i], &t) ==
              internal::RayStatus::kHit) {
            best = t;
            best_index = i;
          }
        }
      } else {
        const std::uint32_t left = node + 1;
        const std::uint32_t right = n.index;
        float t_left = 0.0f;
        float t_right = 0.0f;
        node_visits += 2;
        const bool hit_left =
            slab.HitsConservative(nodes[left].bounds, best, &t_left);
        const bool hit_right =
            slab.HitsConservative(nodes[right].bounds, best, &t_right);
        if (hit_left && hit_right) {
          if (t_left <= t_right) {
            stack[top++] = {right, t_right};
            node = left;
          } else {
            stack[top++] = {left, t_left};
            node = right;
          }
          continue;
        }
        if (hit_left) {
          node = left;
          continue;
        }
        if (hit_right) {
          node = right;
          continue;
        }
      }
      // Pop the next subtree that may still hold a closer hit.
      bool found = false;
      while (top > 0) {
        const Entry e = stack[--top];
        if (e.t <= best) {
          node = e.node;
          found = true;
          break;
        }
      }
      if (!found) break;
    }
  }
  if (stats != nullptr) {
    stats->node_visits = node_visits;
    stats->triangle_tests = triangle_tests;
  }
  if (best_index < 0) return result;
  result.hit = true;
  result.distance = best;
  result.point = ray.origin + best * ray.direction;
  // The normal of the nearest hit only (formed in double).
  result.normal = internal::TriangleHitNormal(tris[best_index], ray.direction);
  result.feature =
      static_cast<std::int32_t>(mesh.leaf_triangle_ids()[best_index]);
  return result;
}

RayResult<3> RayCastMesh(const TriangleMesh& mesh, const Ray<3>& ray) {
  return RayCastMesh(mesh, ray, nullptr);
}

}  // namespace sator
