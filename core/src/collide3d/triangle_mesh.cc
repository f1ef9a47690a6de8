// TriangleMesh: validation and construction (the BVH is built by
// bvh_builder.cc).
#include "sator/core/collide3d/triangle_mesh.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "collide3d/bvh_builder.h"

namespace sator {

TriangleMesh::TriangleMesh(std::vector<Vec3> vertices,
                           std::vector<std::uint32_t> indices,
                           std::vector<MeshBvhNode> nodes,
                           std::vector<MeshTriangle> leaf_triangles,
                           std::vector<std::uint32_t> leaf_triangle_ids)
    : vertices_(std::move(vertices)),
      indices_(std::move(indices)),
      nodes_(std::move(nodes)),
      leaf_triangles_(std::move(leaf_triangles)),
      leaf_triangle_ids_(std::move(leaf_triangle_ids)) {
  // Depth of the flat tree, by an explicit walk (the builder knows it too,
  // but the class does not trust its caller).
  std::vector<std::pair<std::uint32_t, int>> stack = {{0u, 1}};
  while (!stack.empty()) {
    const auto [node, d] = stack.back();
    stack.pop_back();
    depth_ = std::max(depth_, d);
    if (nodes_[node].count == 0) {
      stack.emplace_back(node + 1, d + 1);
      stack.emplace_back(nodes_[node].index, d + 1);
    }
  }
}

std::size_t TriangleMesh::MemoryBytes() const {
  return vertices_.capacity() * sizeof(Vec3) +
         indices_.capacity() * sizeof(std::uint32_t) +
         nodes_.capacity() * sizeof(MeshBvhNode) +
         leaf_triangles_.capacity() * sizeof(MeshTriangle) +
         leaf_triangle_ids_.capacity() * sizeof(std::uint32_t);
}

absl::StatusOr<std::shared_ptr<const TriangleMesh>> MakeTriangleMesh(
    std::vector<Vec3> vertices, std::vector<std::uint32_t> indices) {
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    if (!IsFinite(vertices[i])) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "triangle mesh: vertex %d has a non-finite coordinate", i));
    }
    const float c[3] = {vertices[i].x, vertices[i].y, vertices[i].z};
    for (int k = 0; k < 3; ++k) {
      if (std::fabs(c[k]) > kMaxShapeCoordinate3) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "triangle mesh: vertex %d coordinate %c %.9g is beyond %g in "
            "magnitude (kMaxShapeCoordinate3)",
            i, "xyz"[k], c[k], kMaxShapeCoordinate3));
      }
    }
  }
  if (indices.size() % 3 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "triangle mesh: the index count %d is not a multiple of 3",
        indices.size()));
  }
  if (indices.empty()) {
    return absl::InvalidArgumentError("triangle mesh: no triangles");
  }
  const std::size_t triangle_count = indices.size() / 3;
  if (triangle_count > kMaxMeshTriangles) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("triangle mesh: %d triangles exceed the limit of %d",
                        triangle_count, kMaxMeshTriangles));
  }
  std::vector<Aabb3> bounds(triangle_count);
  for (std::size_t t = 0; t < triangle_count; ++t) {
    for (int k = 0; k < 3; ++k) {
      if (indices[3 * t + k] >= vertices.size()) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "triangle mesh: triangle %d has index %d, out of range for %d "
            "vertices",
            t, indices[3 * t + k], vertices.size()));
      }
    }
    const Vec3 a = vertices[indices[3 * t]];
    const Vec3 b = vertices[indices[3 * t + 1]];
    const Vec3 c = vertices[indices[3 * t + 2]];
    // Twice the area against the longest edge squared: a scale-free measure
    // of how flat the triangle is (about the sine of its smallest angle).
    const float twice_area = Length(Cross(b - a, c - a));
    const float longest_sq = std::max(
        {LengthSquared(b - a), LengthSquared(c - b), LengthSquared(a - c)});
    if (!(twice_area > 2.0f * kMinTriangleAreaRatio * longest_sq) ||
        !std::isfinite(twice_area)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "triangle mesh: triangle %d is degenerate (zero or near-zero area)",
          t));
    }
    bounds[t] = {Min(a, Min(b, c)), Max(a, Max(b, c))};
  }
  internal::BvhBuildOutput bvh =
      internal::BuildBvh(bounds, kMaxMeshLeafTriangles);
  std::vector<MeshTriangle> leaf_triangles;
  leaf_triangles.reserve(triangle_count);
  for (const std::uint32_t t : bvh.order) {
    leaf_triangles.push_back({vertices[indices[3 * t]],
                              vertices[indices[3 * t + 1]],
                              vertices[indices[3 * t + 2]]});
  }
  bvh.nodes.shrink_to_fit();
  return std::make_shared<const TriangleMesh>(
      std::move(vertices), std::move(indices), std::move(bvh.nodes),
      std::move(leaf_triangles), std::move(bvh.order));
}

}  // namespace sator
