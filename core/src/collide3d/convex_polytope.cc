// The core view of each convex shape (see convex_polytope.h): box corners,
// faces and edges as fixed tables, triangles as two-sided flat polytopes,
// spheres and capsules as point and segment cores.
#include "convex_polytope.h"

#include <cmath>
#include <cstddef>
#include <type_traits>

#include "double_vec3.h"
#include "hull_sat.h"
#include "round_typed.h"

namespace sator::internal {
namespace {

// Box corner c has coordinate signs (bit 0: x, bit 1: y, bit 2: z; set = +).
// Faces +x, -x, +y, -y, +z, -z, each counter-clockwise seen from outside.
constexpr std::array<std::array<std::uint16_t, 4>, 6> kBoxFaces = {{
    {1, 3, 7, 5},
    {0, 4, 6, 2},
    {2, 6, 7, 3},
    {0, 1, 5, 4},
    {4, 5, 7, 6},
    {0, 2, 3, 1},
}};
// Edges as (a, b, face, face): 4 along x, 4 along y, 4 along z.
constexpr std::array<ConvexHull::Edge, 12> kBoxEdges = {{
    {0, 1, 3, 5},
    {2, 3, 2, 5},
    {4, 5, 3, 4},
    {6, 7, 2, 4},
    {0, 2, 1, 5},
    {1, 3, 0, 5},
    {4, 6, 1, 4},
    {5, 7, 0, 4},
    {0, 4, 1, 3},
    {1, 5, 0, 3},
    {2, 6, 1, 2},
    {3, 7, 0, 2},
}};

// A triangle's two faces (n and -n, each listing the 3 vertices from
// kTriangleIndices), its 3 edges, each between the two faces.
constexpr std::array<std::uint16_t, 6> kTriangleIndices = {0, 1, 2, 0, 2, 1};
constexpr std::array<ConvexHull::Edge, 3> kTriangleEdges = {{
    {0, 1, 0, 1},
    {1, 2, 0, 1},
    {2, 0, 0, 1},
}};

// The triangle's faces in its own frame. The normal in double (see
// TriangleNormal: in float it is off by up to 0.1 radians on a sliver, and
// the face axis then misjudges the triangle's extent across its length);
// the plane's offset too.
void LocalTriangleFaces(const Triangle3& t, ConvexHull::Face faces[2]) {
  const Vec3 n = TriangleNormal(t.a, t.b, t.c);
  const auto offset = static_cast<float>(Dot(ToD3(n), ToD3(t.a)));
  faces[0] = {n, offset, 0, 3};
  faces[1] = {-n, -offset, 3, 3};
}

Vec3 TriangleCentroid(const Triangle3& t) {
  return (1.0f / 3.0f) * (t.a + t.b + t.c);
}

void MakeTriangleData(const Triangle3& t, PolyData* out) {
  out->kind = CoreKind::kTriangle;
  out->radius = 0.0f;
  out->vertex_count = 3;
  out->vertices[0] = t.a;
  out->vertices[1] = t.b;
  out->vertices[2] = t.c;
  out->face_count = 2;
  LocalTriangleFaces(t, &out->faces[0]);
  for (int i = 0; i < 6; ++i) {
    out->face_vertex_indices[i] = kTriangleIndices[i];
  }
  out->face_index_count = 6;
  out->edge_count = 3;
  for (int e = 0; e < 3; ++e) out->edges[e] = kTriangleEdges[e];
  out->centroid = TriangleCentroid(t);
}

void MakeHullData(const ConvexHull& hull, PolyData* out) {
  out->kind = CoreKind::kSolid;
  out->radius = 0.0f;
  out->vertex_count = static_cast<int>(hull.vertices.size());
  for (int i = 0; i < out->vertex_count; ++i) {
    out->vertices[i] = hull.vertices[i];
  }
  out->face_count = static_cast<int>(hull.faces.size());
  for (int i = 0; i < out->face_count; ++i) out->faces[i] = hull.faces[i];
  out->face_index_count = static_cast<int>(hull.face_vertex_indices.size());
  for (int i = 0; i < out->face_index_count; ++i) {
    out->face_vertex_indices[i] = hull.face_vertex_indices[i];
  }
  out->edge_count = static_cast<int>(hull.edges.size());
  for (int i = 0; i < out->edge_count; ++i) out->edges[i] = hull.edges[i];
  out->centroid = hull.centroid;
}

void MakeLocalData(const ConvexShape3& shape, PolyData* out) {
  std::visit(
      [out](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        out->face_count = 0;
        out->face_index_count = 0;
        out->edge_count = 0;
        if constexpr (std::is_same_v<T, Sphere>) {
          out->kind = CoreKind::kPoint;
          out->radius = s.radius;
          out->vertex_count = 1;
          out->vertices[0] = Vec3{};
          out->centroid = Vec3{};
        } else if constexpr (std::is_same_v<T, Capsule3>) {
          out->radius = s.radius;
          out->centroid = 0.5f * (s.a + s.b);
          if (s.a == s.b) {
            // A zero-length capsule is a sphere.
            out->kind = CoreKind::kPoint;
            out->vertex_count = 1;
            out->vertices[0] = s.a;
          } else {
            out->kind = CoreKind::kSegment;
            out->vertex_count = 2;
            out->vertices[0] = s.a;
            out->vertices[1] = s.b;
            out->edge_count = 1;
            out->edges[0] = {0, 1, 0, 0};
          }
        } else if constexpr (std::is_same_v<T, Box3>) {
          MakeBoxData(s, out);
        } else if constexpr (std::is_same_v<T, Triangle3>) {
          MakeTriangleData(s, out);
        } else {
          MakeHullData(*s, out);
        }
      },
      shape);
}

}  // namespace

void MakeBoxData(const Box3& box, PolyData* out) {
  const Vec3 h = box.half_extents;
  out->kind = CoreKind::kSolid;
  out->radius = 0.0f;
  out->vertex_count = 8;
  for (int c = 0; c < 8; ++c) {
    out->vertices[c] = {(c & 1) ? h.x : -h.x, (c & 2) ? h.y : -h.y,
                        (c & 4) ? h.z : -h.z};
  }
  const std::array<Vec3, 6> normals = {
      {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}};
  const std::array<float, 6> offsets = {h.x, h.x, h.y, h.y, h.z, h.z};
  out->face_count = 6;
  for (int f = 0; f < 6; ++f) {
    out->faces[f] = {normals[f], offsets[f], static_cast<std::uint16_t>(4 * f),
                     4};
    for (int i = 0; i < 4; ++i) {
      out->face_vertex_indices[4 * f + i] = kBoxFaces[f][i];
    }
  }
  out->face_index_count = 24;
  out->edge_count = 12;
  for (int e = 0; e < 12; ++e) out->edges[e] = kBoxEdges[e];
  out->centroid = Vec3{};
}

PolyRef HullRef(const ConvexHull& hull) {
  return {CoreKind::kSolid,
          0.0f,
          hull.vertices.data(),
          static_cast<int>(hull.vertices.size()),
          hull.faces.data(),
          static_cast<int>(hull.faces.size()),
          hull.face_vertex_indices.data(),
          hull.edges.data(),
          static_cast<int>(hull.edges.size()),
          hull.centroid,
          hull.soa.size() == static_cast<size_t>(HullSoaSize(
                                 static_cast<int>(hull.vertices.size()),
                                 static_cast<int>(hull.faces.size()),
                                 static_cast<int>(hull.edges.size())))
              ? hull.soa.data()
              : nullptr};
}

void TransformPoly(const PolyRef& in, const Pose3& pose, PolyData* out) {
  out->kind = in.kind;
  out->radius = in.radius;
  out->vertex_count = in.vertex_count;
  for (int i = 0; i < in.vertex_count; ++i) {
    out->vertices[i] = Transform(pose, in.vertices[i]);
  }
  out->face_count = in.face_count;
  int index_count = 0;
  for (int f = 0; f < in.face_count; ++f) {
    const ConvexHull::Face& face = in.faces[f];
    const Vec3 n = Rotate(pose.rotation, face.normal);
    out->faces[f] = {n, face.offset + Dot(n, pose.position), face.first_index,
                     face.vertex_count};
    const int end = face.first_index + face.vertex_count;
    index_count = end > index_count ? end : index_count;
  }
  for (int i = 0; i < index_count; ++i) {
    out->face_vertex_indices[i] = in.face_vertex_indices[i];
  }
  out->face_index_count = index_count;
  out->edge_count = in.edge_count;
  for (int e = 0; e < in.edge_count; ++e) out->edges[e] = in.edges[e];
  out->centroid = Transform(pose, in.centroid);
}

void MakePolyData(const ConvexShape3& shape, const Pose3& pose, PolyData* out) {
  PolyData local;
  MakeLocalData(shape, &local);
  TransformPoly(local.Ref(), pose, out);
}

// The point and segment cores with the floats MakeLocalData and
// TransformPoly give them (a sphere's point Transform(pose, 0); a
// zero-length capsule a point), viewed in place.
void MakeFlatCore(const Sphere& s, const Pose3& pose, FlatCore* out) {
  out->vertices[0] = Transform(pose, Vec3{});
  out->ref = PolyRef{};
  out->ref.kind = CoreKind::kPoint;
  out->ref.radius = s.radius;
  out->ref.vertices = out->vertices;
  out->ref.vertex_count = 1;
  out->ref.centroid = out->vertices[0];
}

void MakeFlatCore(const Capsule3& c, const Pose3& pose, FlatCore* out) {
  static constexpr ConvexHull::Edge kSegmentEdge = {0, 1, 0, 0};
  out->ref = PolyRef{};
  out->ref.radius = c.radius;
  out->ref.vertices = out->vertices;
  out->ref.centroid = Transform(pose, 0.5f * (c.a + c.b));
  out->vertices[0] = Transform(pose, c.a);
  if (c.a == c.b) {
    out->ref.kind = CoreKind::kPoint;
    out->ref.vertex_count = 1;
    return;
  }
  out->vertices[1] = Transform(pose, c.b);
  out->ref.kind = CoreKind::kSegment;
  out->ref.vertex_count = 2;
  out->ref.edges = &kSegmentEdge;
  out->ref.edge_count = 1;
}

// The triangle's features as MakeLocalData gives them, placed as
// TransformPoly places them, viewed in place.
void PlaceTriangleVertices(const Triangle3& t, const Pose3& pose,
                           TriangleCore* out) {
  out->vertices[0] = Transform(pose, t.a);
  out->vertices[1] = Transform(pose, t.b);
  out->vertices[2] = Transform(pose, t.c);
}

void FinishTriangleCore(const Triangle3& t, const Pose3& pose,
                        TriangleCore* out) {
  ConvexHull::Face local[2];
  LocalTriangleFaces(t, local);
  for (int f = 0; f < 2; ++f) {
    const Vec3 n = Rotate(pose.rotation, local[f].normal);
    out->faces[f] = {n, local[f].offset + Dot(n, pose.position),
                     local[f].first_index, local[f].vertex_count};
  }
  out->ref = PolyRef{CoreKind::kTriangle,
                     0.0f,
                     out->vertices,
                     3,
                     out->faces,
                     2,
                     kTriangleIndices.data(),
                     kTriangleEdges.data(),
                     3,
                     Transform(pose, TriangleCentroid(t))};
}

void MakeTriangleCore(const Triangle3& t, const Pose3& pose,
                      TriangleCore* out) {
  PlaceTriangleVertices(t, pose, out);
  FinishTriangleCore(t, pose, out);
}

Vec3 AnyPerpendicular(Vec3 v) {
  // Cross with the coordinate axis least aligned with v.
  const Vec3 a = Abs(v);
  Vec3 axis{1, 0, 0};
  if (a.y < a.x && a.y <= a.z) {
    axis = {0, 1, 0};
  } else if (a.z < a.x && a.z < a.y) {
    axis = {0, 0, 1};
  }
  return NormalizeOrZero(Cross(v, axis));
}

}  // namespace sator::internal
