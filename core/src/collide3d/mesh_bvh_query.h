// Private: box queries against a TriangleMesh's BVH.
#ifndef SATOR_CORE_SRC_COLLIDE3D_MESH_BVH_QUERY_H_
#define SATOR_CORE_SRC_COLLIDE3D_MESH_BVH_QUERY_H_

#include <cstdint>

#include "collide3d/bvh_builder.h"
#include "sator/core/aabb.h"
#include "sator/core/collide3d/triangle_mesh.h"

namespace sator::internal {

// Calls visit(leaf_position) for every triangle (by its position in leaf
// order) whose leaf box overlaps `box`; visit returns false to stop early.
template <typename Visit>
void QueryMeshBox(const TriangleMesh& mesh, const Aabb3& box, Visit&& visit) {
  const auto& nodes = mesh.nodes();
  std::uint32_t stack[kMaxBvhDepth + 1];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const MeshBvhNode& n = nodes[stack[--top]];
    if (!Overlaps(n.bounds, box)) continue;
    if (n.count > 0) {
      for (std::uint32_t k = n.index; k < n.index + n.count; ++k) {
        if (!visit(k)) return;
      }
    } else {
      const auto self = static_cast<std::uint32_t>(&n - nodes.data());
      stack[top++] = n.index;
      stack[top++] = self + 1;
    }
  }
}

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_MESH_BVH_QUERY_H_
