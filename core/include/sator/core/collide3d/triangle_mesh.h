// A static triangle mesh with its own bounding volume hierarchy.
//
// The mesh is immutable once built: MakeTriangleMesh validates the input,
// builds a binary BVH over the triangles once with the surface-area heuristic
// evaluated on centroid bins (Wald, "On fast Construction of SAH-based
// Bounding Volume Hierarchies", IEEE RT 2007; cost model of MacDonald and
// Booth 1990), and stores it as one flat, depth-first array of 32-byte nodes
// (the left child of an interior node is the next node; Ericson, "Real-Time
// Collision Detection", 6.6.2). Triangles are stored again in leaf order,
// so a leaf visit reads contiguous memory.
//
// A mesh is a surface, not a solid: a ray or shape inside a closed mesh does
// not "start inside" it. Triangles are two-sided. Mesh queries live in
// raycast3d.h (rays) and mesh_queries.h (convex shapes against a mesh); a
// mesh is always the static side of a pair.
#ifndef SATOR_CORE_COLLIDE3D_TRIANGLE_MESH_H_
#define SATOR_CORE_COLLIDE3D_TRIANGLE_MESH_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "sator/core/aabb.h"
#include "sator/core/collide3d/shapes3d.h"
#include "sator/core/limits.h"
#include "sator/core/vec.h"

namespace sator {

// The most triangles in one BVH leaf.
inline constexpr std::uint32_t kMaxMeshLeafTriangles = 4;

// One node of the flat BVH: 32 bytes, two per cache line.
struct MeshBvhNode {
  Aabb3 bounds;
  // Interior node: the index of the right child (the left child is the next
  // node). Leaf: the first triangle in leaf order.
  std::uint32_t index = 0;
  // 0 for an interior node; the number of triangles for a leaf.
  std::uint32_t count = 0;
};

// A triangle in leaf order: the input's vertices, copied unchanged (the
// watertight ray test needs a shared edge's two triangles to see exactly the
// same vertex values).
struct MeshTriangle {
  Vec3 a;
  Vec3 b;
  Vec3 c;
};

class TriangleMesh {
 public:
  // Use MakeTriangleMesh.
  TriangleMesh(std::vector<Vec3> vertices, std::vector<std::uint32_t> indices,
               std::vector<MeshBvhNode> nodes,
               std::vector<MeshTriangle> leaf_triangles,
               std::vector<std::uint32_t> leaf_triangle_ids);

  // The input, as given.
  const std::vector<Vec3>& vertices() const { return vertices_; }
  const std::vector<std::uint32_t>& indices() const { return indices_; }
  std::uint32_t triangle_count() const {
    return static_cast<std::uint32_t>(indices_.size() / 3);
  }
  // Triangle `id` (0 <= id < triangle_count()) in the mesh's local frame.
  Triangle3 triangle(std::uint32_t id) const {
    const std::size_t first = 3 * static_cast<std::size_t>(id);
    return {vertices_[indices_[first]], vertices_[indices_[first + 1]],
            vertices_[indices_[first + 2]]};
  }
  // The mesh's AABB in its local frame (the BVH root's box).
  const Aabb3& local_bounds() const { return nodes_.front().bounds; }

  // The BVH: nodes_[0] is the root.
  const std::vector<MeshBvhNode>& nodes() const { return nodes_; }
  // Triangles in leaf order, and their ids (indices into indices() / 3).
  const std::vector<MeshTriangle>& leaf_triangles() const {
    return leaf_triangles_;
  }
  const std::vector<std::uint32_t>& leaf_triangle_ids() const {
    return leaf_triangle_ids_;
  }
  // The depth of the deepest leaf (the root alone has depth 1).
  int depth() const { return depth_; }

  // Heap bytes held by the mesh (input copies, BVH, leaf-order triangles).
  std::size_t MemoryBytes() const;

 private:
  std::vector<Vec3> vertices_;
  std::vector<std::uint32_t> indices_;
  std::vector<MeshBvhNode> nodes_;
  std::vector<MeshTriangle> leaf_triangles_;
  std::vector<std::uint32_t> leaf_triangle_ids_;
  int depth_ = 0;
};

// Validates the input and builds the mesh and its BVH. Refuses with
// kInvalidArgument: a non-finite vertex coordinate or one beyond
// kMaxShapeCoordinate3 in magnitude (naming the vertex and coordinate), an
// index count that is not a multiple of 3, zero triangles, an index out of
// range (naming the triangle), a degenerate triangle (area below
// kMinTriangleAreaRatio times its longest edge squared, naming the
// triangle; degenerate triangles are refused, not dropped, so that triangle
// ids stay those of the input). Refuses more than kMaxMeshTriangles
// triangles with kResourceExhausted.
absl::StatusOr<std::shared_ptr<const TriangleMesh>> MakeTriangleMesh(
    std::vector<Vec3> vertices, std::vector<std::uint32_t> indices);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_TRIANGLE_MESH_H_
