// Private: builds the flat BVH of a TriangleMesh (see triangle_mesh.h).
#ifndef SATOR_CORE_SRC_COLLIDE3D_BVH_BUILDER_H_
#define SATOR_CORE_SRC_COLLIDE3D_BVH_BUILDER_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "sator/core/aabb.h"
#include "sator/core/collide3d/triangle_mesh.h"

namespace sator::internal {

struct BvhBuildOutput {
  std::vector<MeshBvhNode> nodes;  // Depth-first; nodes[0] is the root.
  // Leaf order: leaves reference order[node.index .. node.index + count).
  std::vector<std::uint32_t> order;
  int depth = 0;
};

// Builds a BVH over primitives given by their bounds (at least one). Splits
// by the binned surface-area heuristic; a range whose centroids coincide, or
// one deeper than a fixed limit, is split at the median so the depth stays
// bounded (at most kMaxBvhDepth).
BvhBuildOutput BuildBvh(absl::Span<const Aabb3> primitive_bounds,
                        std::uint32_t max_leaf_size);

// Traversal stacks of this size never overflow.
inline constexpr int kMaxBvhDepth = 96;

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_BVH_BUILDER_H_
