// Hull-hull SAT after Gregorius, "The Separating Axis Test between Convex
// Polyhedra", GDC 2013:
//
//   1. Face axes of A: for each face of A, the deepest vertex of B below its
//      plane (B's vertices moved into A's frame once). Face axes of B: the
//      same with A's vertices moved into B's frame, so that B's face planes
//      are used as stored.
//   2. If a face axis separates, stop: the hulls are apart.
//   3. Edge pairs that build a face of the Minkowski difference A - B: the
//      arc of A's edge (between its two face normals a, b on the Gauss map)
//      crosses the arc of B's edge (between -c and -d). The first half of
//      the test only needs the side of each of B's (negated) face normals
//      against the plane of A's arc, so those signs are computed once per
//      edge of A for all of B's faces, and most pairs are rejected by
//      comparing two precomputed numbers. The separation along such an
//      axis is read off the two edges.
#include "hull_sat.h"

#include <cmath>
#include <cstdint>

namespace sator::internal {

PolyRef HullInA::Ref(const ConvexHull& b) const {
  PolyRef ref = HullRef(b);
  ref.vertices = vertices.data();
  ref.faces = faces.data();
  return ref;
}

SatAxis HullHullAxis(const ConvexHull& a, const ConvexHull& b,
                     const Pose3& b_in_a, bool early_out, HullInA* out) {
  const int va_count = static_cast<int>(a.vertices.size());
  const int vb_count = static_cast<int>(b.vertices.size());
  const int fa_count = static_cast<int>(a.faces.size());
  const int fb_count = static_cast<int>(b.faces.size());
  // B's vertices and faces in A's frame; A's vertices in B's frame (SoA).
  float bx[kMaxPolyVertices];
  float by[kMaxPolyVertices];
  float bz[kMaxPolyVertices];
  for (int i = 0; i < vb_count; ++i) {
    const Vec3 v = Transform(b_in_a, b.vertices[i]);
    out->vertices[i] = v;
    bx[i] = v.x;
    by[i] = v.y;
    bz[i] = v.z;
  }
  for (int f = 0; f < fb_count; ++f) {
    const ConvexHull::Face& face = b.faces[f];
    const Vec3 n = Rotate(b_in_a.rotation, face.normal);
    out->faces[f] = {n, face.offset + Dot(n, b_in_a.position), face.first_index,
                     face.vertex_count};
  }
  float ax[kMaxPolyVertices];
  float ay[kMaxPolyVertices];
  float az[kMaxPolyVertices];
  for (int i = 0; i < va_count; ++i) {
    const Vec3 v = InvTransform(b_in_a, a.vertices[i]);
    ax[i] = v.x;
    ay[i] = v.y;
    az[i] = v.z;
  }
  SatAxis best;
  for (int f = 0; f < fa_count; ++f) {
    const ConvexHull::Face& face = a.faces[f];
    const float nx = face.normal.x;
    const float ny = face.normal.y;
    const float nz = face.normal.z;
    float m = nx * bx[0] + ny * by[0] + nz * bz[0];
    for (int i = 1; i < vb_count; ++i) {
      const float d = nx * bx[i] + ny * by[i] + nz * bz[i];
      m = d < m ? d : m;
    }
    const float sep = m - face.offset;
    if (sep > best.separation) {
      best = {AxisKind::kFaceA, sep, face.normal, f, -1};
      if (early_out && sep > 0.0f) return best;
    }
  }
  for (int f = 0; f < fb_count; ++f) {
    const ConvexHull::Face& face = b.faces[f];
    const float nx = face.normal.x;
    const float ny = face.normal.y;
    const float nz = face.normal.z;
    float m = nx * ax[0] + ny * ay[0] + nz * az[0];
    for (int i = 1; i < va_count; ++i) {
      const float d = nx * ax[i] + ny * ay[i] + nz * az[i];
      m = d < m ? d : m;
    }
    const float sep = m - face.offset;
    if (sep > best.separation) {
      best = {AxisKind::kFaceB, sep, -out->faces[f].normal, -1, f};
      if (early_out && sep > 0.0f) return best;
    }
  }
  if (best.separation > 0.0f) return best;

  // Edge pairs. B's negated face normals in A's frame (SoA) and, per B
  // edge, the normal of its arc's plane d x c.
  float gx[kMaxPolyFaces];
  float gy[kMaxPolyFaces];
  float gz[kMaxPolyFaces];
  for (int f = 0; f < fb_count; ++f) {
    gx[f] = -out->faces[f].normal.x;
    gy[f] = -out->faces[f].normal.y;
    gz[f] = -out->faces[f].normal.z;
  }
  const int eb_count = static_cast<int>(b.edges.size());
  const int ea_count = static_cast<int>(a.edges.size());
  float side[kMaxPolyFaces];
  std::uint16_t eb_left[kMaxPolyEdges];
  std::uint16_t eb_right[kMaxPolyEdges];
  std::uint16_t candidates[kMaxPolyEdges];
  for (int j = 0; j < eb_count; ++j) {
    eb_left[j] = b.edges[j].face_left;
    eb_right[j] = b.edges[j].face_right;
  }
  for (int i = 0; i < ea_count; ++i) {
    const ConvexHull::Edge& ea = a.edges[i];
    const Vec3 na = a.faces[ea.face_left].normal;
    const Vec3 nb = a.faces[ea.face_right].normal;
    const Vec3 bxa = Cross(nb, na);
    for (int f = 0; f < fb_count; ++f) {
      side[f] = gx[f] * bxa.x + gy[f] * bxa.y + gz[f] * bxa.z;
    }
    // Candidates: B's edges whose two faces lie on opposite sides of the
    // plane of A's arc, collected without branches.
    int candidate_count = 0;
    for (int j = 0; j < eb_count; ++j) {
      candidates[candidate_count] = static_cast<std::uint16_t>(j);
      candidate_count +=
          (side[eb_left[j]] < 0.0f) != (side[eb_right[j]] < 0.0f);
    }
    const Vec3 pa = a.vertices[ea.a];
    const Vec3 da = a.vertices[ea.b] - pa;
    for (int k = 0; k < candidate_count; ++k) {
      const int j = candidates[k];
      const ConvexHull::Edge& eb = b.edges[j];
      const float cba = side[eb.face_left];
      const float dba = side[eb.face_right];
      if (!(cba * dba < 0.0f)) continue;
      const Vec3 c{gx[eb.face_left], gy[eb.face_left], gz[eb.face_left]};
      const Vec3 d{gx[eb.face_right], gy[eb.face_right], gz[eb.face_right]};
      const Vec3 dxc = Cross(d, c);
      const float adc = Dot(na, dxc);
      const float bdc = Dot(nb, dxc);
      if (!(adc * bdc < 0.0f && cba * bdc > 0.0f)) continue;
      const Vec3 pb = out->vertices[eb.a];
      const Vec3 db = out->vertices[eb.b] - pb;
      const Vec3 u = Cross(da, db);
      const float len_sq = LengthSquared(u);
      if (!(len_sq > kParallelSine * kParallelSine * LengthSquared(da) *
                         LengthSquared(db))) {
        continue;
      }
      Vec3 n = (1.0f / std::sqrt(len_sq)) * u;
      if (Dot(n, pa - a.centroid) < 0.0f) n = -n;
      const float sep = Dot(n, pb - pa);
      if (sep > best.separation) {
        best = {AxisKind::kEdges, sep, n, i, j};
        if (early_out && sep > 0.0f) return best;
      }
    }
  }
  return best;
}

}  // namespace sator::internal
