// TriangleMesh: validation and construction.
#include "sator/core/collide3d/triangle_mesh.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace sator {

TriangleMesh::TriangleMesh(std::vector<Vec3> vertices,
                           std::vector<std::uint32_t> indices,
                           broadphase::Bvh3 bvh,
                           std::vector<MeshTriangle> leaf_triangles)
    : vertices_(std::move(vertices)),
      indices_(std::move(indices)),
      bvh_(std::move(bvh)),
      leaf_triangles_(std::move(leaf_triangles)) {}

std::size_t TriangleMesh::MemoryBytes() const {
  return vertices_.capacity() * sizeof(Vec3) +
         indices_.capacity() * sizeof(std::uint32_t) + bvh_.MemoryBytes() +
         leaf_triangles_.capacity() * sizeof(MeshTriangle);
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
  absl::StatusOr<broadphase::Bvh3> bvh = broadphase::Bvh3::Create(
      {.method = broadphase::BvhBuildMethod::kBinnedSah,
       .max_leaf_size = kMaxMeshLeafTriangles,
       .full_leaves = true});
  if (!bvh.ok()) return bvh.status();
  // A scratch of its own, freed here: the mesh keeps only its tree.
  broadphase::Bvh3::BuildScratch scratch;
  if (absl::Status s = bvh->Build(bounds, &scratch); !s.ok()) return s;
  std::vector<MeshTriangle> leaf_triangles;
  leaf_triangles.reserve(triangle_count);
  for (const std::uint32_t t : bvh->LeafIds()) {
    leaf_triangles.push_back({vertices[indices[3 * t]],
                              vertices[indices[3 * t + 1]],
                              vertices[indices[3 * t + 2]]});
  }
  return std::make_shared<const TriangleMesh>(
      std::move(vertices), std::move(indices), *std::move(bvh),
      std::move(leaf_triangles));
}

}  // namespace sator
