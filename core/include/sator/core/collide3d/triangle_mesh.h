// A static triangle mesh with its own bounding volume hierarchy.
//
// The mesh is immutable once built: MakeTriangleMesh validates the input and
// builds a broadphase::Bvh3 over the triangles' boxes once, with the binned
// surface-area heuristic and up to kMaxMeshLeafTriangles triangles a leaf
// (bvh.h). Triangles are stored again in the tree's leaf order, so a leaf
// visit reads contiguous memory.
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
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "sator/core/aabb.h"
#include "sator/core/broadphase/bvh.h"
#include "sator/core/collide3d/shapes3d.h"
#include "sator/core/limits.h"
#include "sator/core/vec.h"

namespace sator {

// The most triangles in one BVH leaf.
inline constexpr int kMaxMeshLeafTriangles = 4;

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
               broadphase::Bvh3 bvh, std::vector<MeshTriangle> leaf_triangles);

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
  const Aabb3& local_bounds() const { return bvh_.Bounds(); }

  // The BVH over the triangles: proxy i is triangle i, and a query's leaf
  // position indexes leaf_triangles().
  const broadphase::Bvh3& bvh() const { return bvh_; }
  // Triangles in leaf order, and their ids (indices into indices() / 3).
  const std::vector<MeshTriangle>& leaf_triangles() const {
    return leaf_triangles_;
  }
  std::span<const std::uint32_t> leaf_triangle_ids() const {
    return bvh_.LeafIds();
  }
  // The depth of the deepest leaf (the root alone has depth 1).
  int depth() const { return bvh_.Height(); }

  // Heap bytes held by the mesh (input copies, BVH, leaf-order triangles).
  std::size_t MemoryBytes() const;

 private:
  std::vector<Vec3> vertices_;
  std::vector<std::uint32_t> indices_;
  broadphase::Bvh3 bvh_;
  std::vector<MeshTriangle> leaf_triangles_;
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
