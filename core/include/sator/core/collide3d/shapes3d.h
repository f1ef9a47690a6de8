// The 3D shapes. Plain records, each in its own local frame; a Pose3 places
// them in the world. Construct convex hulls and meshes through their
// validating factories (convex_hull.h, triangle_mesh.h); the simple shapes
// are validated by ValidateShape (shape3d_validation.h).
#ifndef SATOR_CORE_COLLIDE3D_SHAPES3D_H_
#define SATOR_CORE_COLLIDE3D_SHAPES3D_H_

#include <array>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "sator/core/limits.h"
#include "sator/core/vec.h"

namespace sator {

// A sphere centred on the local origin.
struct Sphere {
  float radius = 0.0f;
};

// A box centred on the local origin with its edges along the local axes
// (an OBB once posed).
struct Box3 {
  Vec3 half_extents{};
};

// All points within `radius` of the segment from `a` to `b`.
struct Capsule3 {
  Vec3 a{};
  Vec3 b{};
  float radius = 0.0f;
};

// A single triangle, counter-clockwise when seen from the side its normal
// points to: normal = (b - a) x (c - a).
struct Triangle3 {
  Vec3 a{};
  Vec3 b{};
  Vec3 c{};
};

// A 3D shape's bounds (kMaxHullVertices, kMinShapeSize,
// kMaxShapeCoordinate3) are in sator/core/limits.h.

// A closed convex polytope with precomputed features: everything SAT needs.
// Built only by MakeConvexHull (convex_hull.h), which guarantees: at least 4
// vertices, not all coplanar, strictly convex (coplanar faces merged), faces
// counter-clockwise seen from outside, unit outward face normals.
struct ConvexHull {
  struct Face {
    Vec3 normal;                // Unit, outward.
    float offset;               // Plane: dot(normal, x) == offset on the face.
    std::uint16_t first_index;  // Into face_vertex_indices.
    std::uint16_t vertex_count;
  };
  struct Edge {
    std::uint16_t a;  // Vertex indices; each undirected edge appears once.
    std::uint16_t b;
    std::uint16_t face_left;  // The two faces that share the edge.
    std::uint16_t face_right;
  };
  std::vector<Vec3> vertices;
  std::vector<Face> faces;
  std::vector<std::uint16_t> face_vertex_indices;
  std::vector<Edge> edges;
  // Vertex -> incident edges, as compressed rows: vertex v's edges are
  // vertex_edges[vertex_edge_first[v]] up to vertex_edge_first[v + 1]
  // (filled by the factories; a hull built by hand may leave both empty,
  // and the queries then build them per call).
  std::vector<std::uint16_t> vertex_edge_first;
  std::vector<std::uint16_t> vertex_edges;
  // The vertices and face planes as structure-of-arrays for the SIMD face
  // queries: the vertices' x, y, z, then the faces' normal x, y, z and
  // offset, each array padded to a multiple of 4 with copies of its first
  // entry, then a ball inside the hull (centre and radius, 4 floats; filled
  // by the factories; a hull built by hand may leave it empty,
  // and the queries then build it per call; one whose vertices or faces are
  // changed must clear it or fill it again).
  std::vector<float> soa;
  Vec3 centroid{};  // An interior point (the mean of the vertices).
};

class TriangleMesh;  // triangle_mesh.h: static-only, with its own BVH.

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_SHAPES3D_H_
