// Private: one view of every convex core shape for the generic SAT and
// closest-feature code.
//
// Every convex shape is a core polytope grown by a radius: a sphere is a
// point plus its radius, a capsule a segment plus its radius, and boxes,
// triangles and hulls are polytopes with radius 0. PolyRef views the
// features of one core in some frame; PolyData holds a copy transformed
// into another frame (B's features in A's frame).
#ifndef SATOR_CORE_SRC_COLLIDE3D_CONVEX_POLYTOPE_H_
#define SATOR_CORE_SRC_COLLIDE3D_CONVEX_POLYTOPE_H_

#include <array>
#include <cstdint>

#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator::internal {

enum class CoreKind : std::uint8_t {
  kPoint,     // 1 vertex (sphere).
  kSegment,   // 2 vertices, 1 edge (capsule).
  kTriangle,  // 3 vertices, 2 faces (n and -n), 3 edges: flat.
  kSolid,     // A box or hull: closed, with volume.
};

// Upper bounds for a hull of kMaxHullVertices vertices (Euler: F <= 2V - 4,
// E <= 3V - 6, and every edge borders two faces).
inline constexpr int kMaxPolyVertices = kMaxHullVertices;
inline constexpr int kMaxPolyFaces = 2 * kMaxHullVertices - 4;
inline constexpr int kMaxPolyEdges = 3 * kMaxHullVertices - 6;
inline constexpr int kMaxPolyFaceIndices = 2 * kMaxPolyEdges;

struct PolyRef {
  CoreKind kind = CoreKind::kPoint;
  float radius = 0.0f;
  const Vec3* vertices = nullptr;
  int vertex_count = 0;
  const ConvexHull::Face* faces = nullptr;
  int face_count = 0;
  const std::uint16_t* face_vertex_indices = nullptr;
  const ConvexHull::Edge* edges = nullptr;
  int edge_count = 0;
  Vec3 centroid{};
  // For a hull read in place (HullRef) whose `soa` is filled: its vertices'
  // x, y and z as ConvexHull::soa lays them out (HullSoaSize), else null.
  const float* vertex_soa = nullptr;

  Vec3 FaceVertex(int face, int i) const {
    return vertices[face_vertex_indices[faces[face].first_index + i]];
  }
};

// Owned storage for a PolyRef (about 5 KB; lives on the stack).
struct PolyData {
  CoreKind kind = CoreKind::kPoint;
  float radius = 0.0f;
  std::array<Vec3, kMaxPolyVertices> vertices;
  std::array<ConvexHull::Face, kMaxPolyFaces> faces;
  std::array<std::uint16_t, kMaxPolyFaceIndices> face_vertex_indices;
  std::array<ConvexHull::Edge, kMaxPolyEdges> edges;
  int vertex_count = 0;
  int face_count = 0;
  int face_index_count = 0;
  int edge_count = 0;
  Vec3 centroid{};

  PolyRef Ref() const {
    return {kind,
            radius,
            vertices.data(),
            vertex_count,
            faces.data(),
            face_count,
            face_vertex_indices.data(),
            edges.data(),
            edge_count,
            centroid,
            nullptr};
  }
};

// The core of `shape` with its features placed by `pose` (the identity for
// a shape in its own frame).
void MakePolyData(const ConvexShape3& shape, const Pose3& pose, PolyData* out);
// For a hull in its own frame, a view of its storage (no copy).
PolyRef HullRef(const ConvexHull& hull);

// The box's 8 corners, 6 faces and 12 edges in its own frame (used by the
// box fast paths for contact points).
void MakeBoxData(const Box3& box, PolyData* out);

// Maps every feature of `in` by `pose` into `out`.
void TransformPoly(const PolyRef& in, const Pose3& pose, PolyData* out);

// The interval of the core's vertices projected on `axis`.
inline void Project(const PolyRef& p, Vec3 axis, float* lo, float* hi) {
  float min_v = Dot(axis, p.vertices[0]);
  float max_v = min_v;
  for (int i = 1; i < p.vertex_count; ++i) {
    const float d = Dot(axis, p.vertices[i]);
    min_v = d < min_v ? d : min_v;
    max_v = d > max_v ? d : max_v;
  }
  *lo = min_v;
  *hi = max_v;
}

// The vertex of the core farthest along `axis`.
inline int SupportIndex(const PolyRef& p, Vec3 axis) {
  int best = 0;
  float best_d = Dot(axis, p.vertices[0]);
  for (int i = 1; i < p.vertex_count; ++i) {
    const float d = Dot(axis, p.vertices[i]);
    if (d > best_d) {
      best_d = d;
      best = i;
    }
  }
  return best;
}

// A unit vector perpendicular to the unit vector `v`.
Vec3 AnyPerpendicular(Vec3 v);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_CONVEX_POLYTOPE_H_
