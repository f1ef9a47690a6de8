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
//      crosses the arc of B's edge (between -c and -d). Instead of testing
//      every pair, walk B's negated Gauss map along each arc of A, from the
//      region of the B vertex deepest along -a (known from step 1) to that
//      of the vertex deepest along -b, crossing one B edge per step: an
//      overlay of the two Gauss maps in O(E_A + crossings) tests. The
//      separation along each crossing pair's axis is read off the two
//      edges.
#include "hull_sat.h"

#include <cmath>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sator::internal {

namespace {

// Vertex coordinates as structure-of-arrays.
struct SoaVertices {
  float x[kMaxPolyVertices];
  float y[kMaxPolyVertices];
  float z[kMaxPolyVertices];
  int count = 0;
};

// For every face f of a hull (normals `normal_of(f)`), min over the vertices
// of n_f . v and the lowest index reaching it. With SSE2, four faces at a
// time (one per lane) against each vertex in turn, so no horizontal
// reduction is needed.
template <typename NormalOf>
void MinDots(const SoaVertices& v, int face_count, NormalOf normal_of,
             float* min_out, std::uint8_t* arg_out) {
#if defined(__SSE2__)
  for (int f0 = 0; f0 < face_count; f0 += 4) {
    alignas(16) float fx[4];
    alignas(16) float fy[4];
    alignas(16) float fz[4];
    for (int k = 0; k < 4; ++k) {
      const Vec3 n = normal_of(f0 + k < face_count ? f0 + k : f0);
      fx[k] = n.x;
      fy[k] = n.y;
      fz[k] = n.z;
    }
    const __m128 nx = _mm_load_ps(fx);
    const __m128 ny = _mm_load_ps(fy);
    const __m128 nz = _mm_load_ps(fz);
    __m128 best = _mm_set1_ps(3.0e38f);
    __m128i best_index = _mm_setzero_si128();
    for (int i = 0; i < v.count; ++i) {
      const __m128 d =
          _mm_add_ps(_mm_add_ps(_mm_mul_ps(nx, _mm_set1_ps(v.x[i])),
                                _mm_mul_ps(ny, _mm_set1_ps(v.y[i]))),
                     _mm_mul_ps(nz, _mm_set1_ps(v.z[i])));
      const __m128i less = _mm_castps_si128(_mm_cmplt_ps(d, best));
      best = _mm_min_ps(d, best);
      best_index = _mm_or_si128(_mm_and_si128(less, _mm_set1_epi32(i)),
                                _mm_andnot_si128(less, best_index));
    }
    alignas(16) float lanes[4];
    alignas(16) std::int32_t lane_index[4];
    _mm_store_ps(lanes, best);
    _mm_store_si128(reinterpret_cast<__m128i*>(lane_index), best_index);
    for (int k = 0; k < 4 && f0 + k < face_count; ++k) {
      min_out[f0 + k] = lanes[k];
      arg_out[f0 + k] = static_cast<std::uint8_t>(lane_index[k]);
    }
  }
#else
  for (int f = 0; f < face_count; ++f) {
    const Vec3 n = normal_of(f);
    float m = n.x * v.x[0] + n.y * v.y[0] + n.z * v.z[0];
    int a = 0;
    for (int i = 1; i < v.count; ++i) {
      const float d = n.x * v.x[i] + n.y * v.y[i] + n.z * v.z[i];
      if (d < m) {
        m = d;
        a = i;
      }
    }
    min_out[f] = m;
    arg_out[f] = static_cast<std::uint8_t>(a);
  }
#endif
}

}  // namespace

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
  SoaVertices bv;
  bv.count = vb_count;
  for (int i = 0; i < vb_count; ++i) {
    const Vec3 v = Transform(b_in_a, b.vertices[i]);
    out->vertices[i] = v;
    bv.x[i] = v.x;
    bv.y[i] = v.y;
    bv.z[i] = v.z;
  }
  for (int f = 0; f < fb_count; ++f) {
    const ConvexHull::Face& face = b.faces[f];
    const Vec3 n = Rotate(b_in_a.rotation, face.normal);
    out->faces[f] = {n, face.offset + Dot(n, b_in_a.position), face.first_index,
                     face.vertex_count};
  }
  SoaVertices av;
  av.count = va_count;
  for (int i = 0; i < va_count; ++i) {
    const Vec3 v = InvTransform(b_in_a, a.vertices[i]);
    av.x[i] = v.x;
    av.y[i] = v.y;
    av.z[i] = v.z;
  }
  SatAxis best;
  // deepest_b[f]: B's vertex deepest along -n_f. Its region of B's negated
  // Gauss map contains n_f (where the walk below starts and ends).
  std::uint8_t deepest_b[kMaxPolyFaces];
  float min_b[kMaxPolyFaces];
  MinDots(
      bv, fa_count, [&a](int f) { return a.faces[f].normal; }, min_b,
      deepest_b);
  for (int f = 0; f < fa_count; ++f) {
    const float sep = min_b[f] - a.faces[f].offset;
    if (sep > best.separation) {
      best = {AxisKind::kFaceA, sep, a.faces[f].normal, f, -1};
      if (early_out && sep > 0.0f) return best;
    }
  }
  std::uint8_t deepest_a[kMaxPolyFaces];
  float min_a[kMaxPolyFaces];
  MinDots(
      av, fb_count, [&b](int f) { return b.faces[f].normal; }, min_a,
      deepest_a);
  for (int f = 0; f < fb_count; ++f) {
    const float sep = min_a[f] - b.faces[f].offset;
    if (sep > best.separation) {
      best = {AxisKind::kFaceB, sep, -out->faces[f].normal, -1, f};
      if (early_out && sep > 0.0f) return best;
    }
  }
  if (best.separation > 0.0f) return best;

  // Edge pairs. B's negated face normals in A's frame (SoA).
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
  // B's vertex -> incident edges (compressed rows).
  std::uint16_t vertex_first[kMaxPolyVertices + 1];
  std::uint16_t vertex_edges[2 * kMaxPolyEdges];
  for (int v = 0; v <= vb_count; ++v) vertex_first[v] = 0;
  for (const ConvexHull::Edge& e : b.edges) {
    ++vertex_first[e.a + 1];
    ++vertex_first[e.b + 1];
  }
  for (int v = 0; v < vb_count; ++v) vertex_first[v + 1] += vertex_first[v];
  {
    std::uint16_t fill[kMaxPolyVertices];
    for (int v = 0; v < vb_count; ++v) fill[v] = vertex_first[v];
    for (int j = 0; j < eb_count; ++j) {
      vertex_edges[fill[b.edges[j].a]++] = static_cast<std::uint16_t>(j);
      vertex_edges[fill[b.edges[j].b]++] = static_cast<std::uint16_t>(j);
    }
  }
  // The full Gauss-map test of A's arc (na, nb) against B's edge j; on a
  // crossing, the edge pair's axis is measured.
  auto test_pair = [&](int i, Vec3 na, Vec3 nb, Vec3 bxa, Vec3 pa, Vec3 da,
                       int j) -> bool {
    const ConvexHull::Edge& eb = b.edges[j];
    const Vec3 c{gx[eb.face_left], gy[eb.face_left], gz[eb.face_left]};
    const Vec3 d{gx[eb.face_right], gy[eb.face_right], gz[eb.face_right]};
    const float cba = Dot(c, bxa);
    const float dba = Dot(d, bxa);
    if (!(cba * dba < 0.0f)) return false;
    const Vec3 dxc = Cross(d, c);
    const float adc = Dot(na, dxc);
    const float bdc = Dot(nb, dxc);
    if (!(adc * bdc < 0.0f && cba * bdc > 0.0f)) return false;
    const Vec3 pb = out->vertices[eb.a];
    const Vec3 db = out->vertices[eb.b] - pb;
    const Vec3 u = Cross(da, db);
    const float len_sq = LengthSquared(u);
    if (len_sq >
        kParallelSine * kParallelSine * LengthSquared(da) * LengthSquared(db)) {
      Vec3 n = (1.0f / std::sqrt(len_sq)) * u;
      if (Dot(n, pa - a.centroid) < 0.0f) n = -n;
      const float sep = Dot(n, pb - pa);
      if (sep > best.separation) best = {AxisKind::kEdges, sep, n, i, j};
    }
    return true;
  };
  for (int i = 0; i < ea_count; ++i) {
    const ConvexHull::Edge& ea = a.edges[i];
    const Vec3 na = a.faces[ea.face_left].normal;
    const Vec3 nb = a.faces[ea.face_right].normal;
    const Vec3 bxa = Cross(nb, na);
    const Vec3 pa = a.vertices[ea.a];
    const Vec3 da = a.vertices[ea.b] - pa;
    // Walk B's negated Gauss map along A's arc from na to nb: start in the
    // region of the B vertex deepest along -na, leave each region through
    // the one other incident edge the arc crosses (regions are convex, so
    // the arc crosses each at most twice), and stop in the region of the
    // vertex deepest along -nb. Every crossed edge is a Minkowski face.
    // When round-off or a degenerate configuration (the arc through a
    // Gauss-map vertex) leaves the walk without an exit, scan all of B's
    // edges for this arc instead.
    int v = deepest_b[ea.face_left];
    const int end = deepest_b[ea.face_right];
    int came_from = -1;
    bool walked = true;
    for (int steps = 0; v != end; ++steps) {
      if (steps > eb_count) {
        walked = false;
        break;
      }
      int exit = -1;
      for (int k = vertex_first[v]; k < vertex_first[v + 1]; ++k) {
        const int j = vertex_edges[k];
        if (j == came_from) continue;
        if (test_pair(i, na, nb, bxa, pa, da, j)) {
          exit = j;
          break;
        }
      }
      if (exit < 0) {
        walked = false;
        break;
      }
      came_from = exit;
      v = b.edges[exit].a == v ? b.edges[exit].b : b.edges[exit].a;
    }
    if (!walked) {
      for (int j = 0; j < eb_count; ++j) test_pair(i, na, nb, bxa, pa, da, j);
    }
    if (early_out && best.separation > 0.0f) return best;
  }
  return best;
}

}  // namespace sator::internal
