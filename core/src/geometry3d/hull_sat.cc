// Hull-hull SAT after Gregorius, "The Separating Axis Test between Convex
// Polyhedra", GDC 2013, with every axis that cannot win skipped by a bound:
//
//   1. Face axes of A: the separation along face f is
//        sep_f = min_{v in B} n_f . v - d_f
//      (B's vertices moved into A's frame once, with a rotation matrix).
//      Face axes of B: the same in B's frame with A's vertices moved there.
//   2. If a face axis separates, stop: the hulls are apart, and the answer is
//      the best face axis (a lower bound on the distance).
//   3. Edge pairs that build a face of the Minkowski difference A - B: the
//      arc of A's edge (between its two face normals a, b on the Gauss map)
//      crosses the arc of B's edge (between -c and -d). Instead of testing
//      every pair, walk B's negated Gauss map along each arc of A, from the
//      region of the B vertex deepest along -a to that of the vertex deepest
//      along -b, crossing one B edge per step: an overlay of the two Gauss
//      maps in O(E_A + crossings) tests. The separation along each crossing
//      pair's axis is read off the two edges (the axis is the cross product
//      of the two arcs' poles, see EdgePole in sat_polytope.h).
//
// The bound that prunes (exact, so the answer is the exhaustive SAT's): a
// minimum over B's vertices is at most the value at any point of B, such as
// the mean c_B of its vertices, so
//   sep_f <= u_f = n_f . c_B - d_f.
// A face whose bound is below the best separation found so far is never
// measured. The same bound covers A's edges: an edge axis n of A's edge e
// (supported by e's point p) lies on e's arc, n = alpha a + beta b with
// alpha, beta >= 0 and alpha + beta >= 1 (|n| = 1, |a| = |b| = 1), so
//   sep(n) <= n . (c_B - p) = alpha u_a + beta u_b <= max(u_a, u_b)
// whenever that maximum is negative (p lies on both of e's face planes, so
// n . (c_B - p) = alpha (a . c_B - d_a) + beta (b . c_B - d_b)).
// An edge of A whose two faces are both bounded below the best separation
// has no Minkowski face that can win, and its walk is skipped; B's edges
// are bounded the same way with A's vertex mean in B's frame. Bounds are
// compared with a margin of round-off (kBoundMargin of the coordinates'
// magnitude) so that an axis within round-off of the best is measured.
#include "hull_sat.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "rotation_matrix.h"

namespace sator::internal {

namespace {

// Relative margin on the bounds: float round-off of a dot product, a mean
// and a transform is a few 1e-7 of the magnitudes involved, and a hull's
// vertices lie within its merge tolerance (4e-6 of the sum of its largest
// coordinates, convex_hull.cc) of their faces' planes.
constexpr float kBoundMargin = 5e-5f;

// The rows of the rotation matrix of a unit quaternion (Shoemake,
// "Animating rotation with quaternion curves", SIGGRAPH 1985): rotating v
// is (r0 . v, r1 . v, r2 . v), rotating back is v.x r0 + v.y r1 + v.z r2.
struct Rotation {
  Vec3 r0;
  Vec3 r1;
  Vec3 r2;

  explicit Rotation(Quat q) {
    float r[3][3];
    internal::RotationMatrixOf(q, r);
    r0 = {r[0][0], r[0][1], r[0][2]};
    r1 = {r[1][0], r[1][1], r[1][2]};
    r2 = {r[2][0], r[2][1], r[2][2]};
  }
  Vec3 Apply(Vec3 v) const { return {Dot(r0, v), Dot(r1, v), Dot(r2, v)}; }
  Vec3 ApplyInverse(Vec3 v) const { return v.x * r0 + v.y * r1 + v.z * r2; }
};

// Vertex coordinates as structure-of-arrays, padded to a multiple of 4 with
// copies of vertex 0 (which leave every minimum and its lowest index as
// they are).
struct SoaVertices {
  alignas(16) float x[kMaxPolyVertices];
  alignas(16) float y[kMaxPolyVertices];
  alignas(16) float z[kMaxPolyVertices];
  int count = 0;   // Real vertices.
  int padded = 0;  // count rounded up to a multiple of 4.

  void Set(int i, Vec3 v) {
    x[i] = v.x;
    y[i] = v.y;
    z[i] = v.z;
  }
  void Pad() {
    padded = (count + 3) & ~3;
    for (int i = count; i < padded; ++i) Set(i, {x[0], y[0], z[0]});
  }
};

// min over the vertices of n . v, and the lowest index reaching it.
float MinDot(const SoaVertices& v, Vec3 n, int* arg) {
#if defined(__SSE2__)
  const __m128 nx = _mm_set1_ps(n.x);
  const __m128 ny = _mm_set1_ps(n.y);
  const __m128 nz = _mm_set1_ps(n.z);
  __m128 d[kMaxPolyVertices / 4];
  __m128 m = _mm_set1_ps(3.0e38f);
  const int blocks = v.padded / 4;
  for (int k = 0; k < blocks; ++k) {
    d[k] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(nx, _mm_load_ps(v.x + 4 * k)),
                                 _mm_mul_ps(ny, _mm_load_ps(v.y + 4 * k))),
                      _mm_mul_ps(nz, _mm_load_ps(v.z + 4 * k)));
    m = _mm_min_ps(m, d[k]);
  }
  m = _mm_min_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
  m = _mm_min_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
  *arg = 0;
  for (int k = 0; k < blocks; ++k) {
    const int mask = _mm_movemask_ps(_mm_cmpeq_ps(d[k], m));
    if (mask != 0) {
      *arg = 4 * k + __builtin_ctz(static_cast<unsigned>(mask));
      break;
    }
  }
  return _mm_cvtss_f32(m);
#else
  float m = n.x * v.x[0] + n.y * v.y[0] + n.z * v.z[0];
  int a = 0;
  for (int i = 1; i < v.count; ++i) {
    const float d = n.x * v.x[i] + n.y * v.y[i] + n.z * v.z[i];
    if (d < m) {
      m = d;
      a = i;
    }
  }
  *arg = a;
  return m;
#endif
}

// max over the vertices of n . v.
float MaxDot(const std::vector<Vec3>& vertices, Vec3 n) {
  float m = -3.0e38f;
  for (const Vec3& v : vertices) m = std::max(m, Dot(n, v));
  return m;
}

// The largest |coordinate| of the vertices and their mean.
void MeanAndMagnitude(const std::vector<Vec3>& vertices, Vec3* mean,
                      float* magnitude) {
  Vec3 sum{};
  float m = 0.0f;
  for (const Vec3& v : vertices) {
    sum = sum + v;
    m = std::max({m, std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
  }
  *mean = (1.0f / static_cast<float>(vertices.size())) * sum;
  *magnitude = m;
}

constexpr std::uint8_t kUnknown = 0xFF;

// bound[f] = n_f . point - d_f for every face (an upper bound on the face's
// separation when `point` lies in the other hull); returns the face with the
// largest, and that bound in `top_bound`.
int FaceBounds(const ConvexHull& h, Vec3 point, float* bound,
               float* top_bound) {
  const int count = static_cast<int>(h.faces.size());
  int top = 0;
  float top_value = -3.0e38f;
  for (int f = 0; f < count; ++f) {
    const float u = Dot(h.faces[f].normal, point) - h.faces[f].offset;
    bound[f] = u;
    if (u > top_value) {
      top_value = u;
      top = f;
    }
  }
  *top_bound = top_value;
  return top;
}

// True when no axis on the arc of an edge whose two faces have the bounds
// u_a, u_b can separate more than `best`: every such axis is bounded by
// alpha u_a + beta u_b with alpha + beta >= 1, which is at most
// max(u_a, u_b) only when that is negative (hence the min with 0).
bool EdgeBoundedBelow(float u_a, float u_b, float tolerance, float best) {
  return std::max(u_a, u_b) + tolerance <= std::min(best, 0.0f);
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
  const Rotation rot(b_in_a.rotation);
  const Vec3 t = b_in_a.position;

  // B's vertices in A's frame (AoS for the contact, SoA for the face
  // queries), their mean and magnitude.
  SoaVertices bv;
  bv.count = vb_count;
  Vec3 sum_b{};
  float magnitude_b = 0.0f;
  for (int i = 0; i < vb_count; ++i) {
    const Vec3 v = rot.Apply(b.vertices[i]) + t;
    out->vertices[i] = v;
    bv.Set(i, v);
    sum_b = sum_b + v;
    magnitude_b =
        std::max({magnitude_b, std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
  }
  bv.Pad();
  const Vec3 mean_b = (1.0f / static_cast<float>(vb_count)) * sum_b;
  Vec3 mean_a;
  float magnitude_a;
  MeanAndMagnitude(a.vertices, &mean_a, &magnitude_a);
  const float tolerance = kBoundMargin * (magnitude_a + magnitude_b);

  SatAxis best;
  // The best face axis alone, and whether an edge axis that is best was
  // measured by projection (see the end).
  SatAxis best_face;
  bool best_measured = true;
  // Face bounds of A and the face with the largest.
  float bound_a[kMaxPolyFaces];
  float top_bound;
  const int top_a = FaceBounds(a, mean_b, bound_a, &top_bound);
  // deepest_b[f]: B's vertex deepest along -n_f, once measured. Its region
  // of B's negated Gauss map contains n_f (where the edge walks start and
  // end).
  std::uint8_t deepest_b[kMaxPolyFaces];
  float sep_a[kMaxPolyFaces];  // The face's separation, once measured.
  std::fill(deepest_b, deepest_b + fa_count, kUnknown);
  auto measure_a = [&](int f) {
    int arg;
    const float sep = MinDot(bv, a.faces[f].normal, &arg) - a.faces[f].offset;
    deepest_b[f] = static_cast<std::uint8_t>(arg);
    sep_a[f] = sep;
    if (sep > best.separation) {
      best = {AxisKind::kFaceA, sep, a.faces[f].normal, f, -1};
    }
    if (sep > best_face.separation) {
      best_face = {AxisKind::kFaceA, sep, a.faces[f].normal, f, -1};
    }
  };
  measure_a(top_a);
  if (early_out && best.separation > 0.0f) return best;
  // The vertex of B deepest below the top face bounds every other face too
  // (often much more tightly than the mean, for faces facing B).
  const Vec3 deep_b = out->vertices[deepest_b[top_a]];
  for (int f = 0; f < fa_count; ++f) {
    if (f == top_a || bound_a[f] + tolerance <= best.separation) continue;
    const ConvexHull::Face& face = a.faces[f];
    if (Dot(face.normal, deep_b) - face.offset + tolerance <= best.separation) {
      continue;
    }
    measure_a(f);
    if (early_out && best.separation > 0.0f) return best;
  }

  // Face axes of B, in B's frame: bounds from A's vertex mean there; A's
  // vertices are moved into B's frame only if a face needs measuring.
  const Vec3 mean_a_in_b = rot.ApplyInverse(mean_a - t);
  float bound_b[kMaxPolyFaces];
  const int top_b = FaceBounds(b, mean_a_in_b, bound_b, &top_bound);
  if (top_bound + tolerance > best.separation) {
    SoaVertices av;
    av.count = va_count;
    for (int i = 0; i < va_count; ++i) {
      av.Set(i, rot.ApplyInverse(a.vertices[i] - t));
    }
    av.Pad();
    auto measure_b = [&](int f) {
      int arg;
      const float sep = MinDot(av, b.faces[f].normal, &arg) - b.faces[f].offset;
      if (sep > best.separation) {
        best = {AxisKind::kFaceB, sep, -rot.Apply(b.faces[f].normal), -1, f};
        best_face = best;
      }
      return arg;
    };
    const int deepest = measure_b(top_b);
    if (early_out && best.separation > 0.0f) return best;
    const Vec3 deep_a{av.x[deepest], av.y[deepest], av.z[deepest]};
    for (int f = 0; f < fb_count; ++f) {
      if (f == top_b || bound_b[f] + tolerance <= best.separation) continue;
      const ConvexHull::Face& face = b.faces[f];
      if (Dot(face.normal, deep_a) - face.offset + tolerance <=
          best.separation) {
        continue;
      }
      measure_b(f);
      if (early_out && best.separation > 0.0f) return best;
    }
  }
  if (best.separation > 0.0f) return best;

  // Edge pairs. B's faces in A's frame (also what the contact needs), and
  // B's negated face normals as structure-of-arrays for the arc tests.
  float gx[kMaxPolyFaces];
  float gy[kMaxPolyFaces];
  float gz[kMaxPolyFaces];
  for (int f = 0; f < fb_count; ++f) {
    const ConvexHull::Face& face = b.faces[f];
    const Vec3 n = rot.Apply(face.normal);
    out->faces[f] = {n, face.offset + Dot(n, t), face.first_index,
                     face.vertex_count};
    gx[f] = -n.x;
    gy[f] = -n.y;
    gz[f] = -n.z;
  }
  const int eb_count = static_cast<int>(b.edges.size());
  const int ea_count = static_cast<int>(a.edges.size());
  // The separation along unit n by projecting both hulls (rare: kept out
  // of line so that the pair test stays inlined in the walk).
  auto projected = [&](Vec3 n) __attribute__((noinline, cold)) {
    int unused;
    return MinDot(bv, n, &unused) - MaxDot(a.vertices, n);
  };
  // An edge axis read off its edges is measured once it has won: its value
  // is then the one along its normal. Round-off in the read-off value (a
  // few 1e-6 of the size, kEdgeReadSine) may have let it beat an axis it
  // does not beat; the best face axis is kept for that case, and any other
  // edge axis it beat was within that round-off of it.
  auto finish = [&] {
    if (best.kind == AxisKind::kEdges && !best_measured) {
      const float sep = projected(best.normal);
      if (sep >= best_face.separation) {
        best.separation = sep;
      } else {
        best = best_face;
      }
    }
    return best;
  };
  // B's vertex -> incident edges (compressed rows): the hull's own, or
  // built here for a hull made by hand without them.
  const std::uint16_t* vertex_first = b.vertex_edge_first.data();
  const std::uint16_t* vertex_edges = b.vertex_edges.data();
  std::uint16_t own_first[kMaxPolyVertices + 1];
  std::uint16_t own_edges[2 * kMaxPolyEdges];
  bool adjacency_built =
      b.vertex_edge_first.size() == static_cast<size_t>(vb_count) + 1;
  auto build_adjacency = [&] {
    for (int v = 0; v <= vb_count; ++v) own_first[v] = 0;
    for (const ConvexHull::Edge& e : b.edges) {
      ++own_first[e.a + 1];
      ++own_first[e.b + 1];
    }
    for (int v = 0; v < vb_count; ++v) own_first[v + 1] += own_first[v];
    std::uint16_t fill[kMaxPolyVertices];
    for (int v = 0; v < vb_count; ++v) fill[v] = own_first[v];
    for (int j = 0; j < eb_count; ++j) {
      own_edges[fill[b.edges[j].a]++] = static_cast<std::uint16_t>(j);
      own_edges[fill[b.edges[j].b]++] = static_cast<std::uint16_t>(j);
    }
    vertex_first = own_first;
    vertex_edges = own_edges;
    adjacency_built = true;
  };
  // The full Gauss-map test of A's arc (na, nb) against B's edge j; on a
  // crossing, the edge pair's axis is measured unless B's edge is bounded
  // below the best separation.
  auto test_pair = [&](int i, Vec3 na, Vec3 nb, Vec3 bxa, Vec3 pa, Vec3 da,
                       int j) __attribute__((always_inline))
                       ->bool {
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
    if (EdgeBoundedBelow(bound_b[eb.face_left], bound_b[eb.face_right],
                         tolerance, best.separation)) {
      return true;
    }
    const Vec3 pb = out->vertices[eb.a];
    const Vec3 db = EdgePole(out->vertices[eb.b] - pb, -c, -d);
    const Vec3 u = Cross(da, db);
    const float len_sq = LengthSquared(u);
    const float lengths_sq = LengthSquared(da) * LengthSquared(db);
    if (len_sq > kParallelSine * kParallelSine * lengths_sq) {
      Vec3 n = (1.0f / std::sqrt(len_sq)) * u;
      if (Dot(n, pa - mean_a) < 0.0f) n = -n;
      // Read off the edges where the axis is well conditioned, measured by
      // projecting both hulls where it is not (kEdgeReadSine,
      // sat_polytope.h) or where it would end an early-out search.
      float sep = Dot(n, pb - pa);
      const bool measure =
          !(len_sq > kEdgeReadSine * kEdgeReadSine * lengths_sq) ||
          (early_out && sep > 0.0f);
      if (measure) sep = projected(n);
      if (sep > best.separation) {
        best = {AxisKind::kEdges, sep, n, i, j};
        best_measured = measure;
      }
    }
    return true;
  };
  for (int i = 0; i < ea_count; ++i) {
    const ConvexHull::Edge& ea = a.edges[i];
    if (EdgeBoundedBelow(bound_a[ea.face_left], bound_a[ea.face_right],
                         tolerance, best.separation)) {
      continue;
    }
    if (deepest_b[ea.face_left] == kUnknown) measure_a(ea.face_left);
    if (deepest_b[ea.face_right] == kUnknown) measure_a(ea.face_right);
    const int start = deepest_b[ea.face_left];
    const int end = deepest_b[ea.face_right];
    // The arc lies in one region of B's negated Gauss map: no crossing.
    if (start == end) continue;
    // Tighter bounds with B's deepest vertices as the point of B: along the
    // arc, n . (q - p) = alpha (a . q - d_a) + beta (b . q - d_b).
    const ConvexHull::Face& fl = a.faces[ea.face_left];
    const ConvexHull::Face& fr = a.faces[ea.face_right];
    const Vec3 na = fl.normal;
    const Vec3 nb = fr.normal;
    if (EdgeBoundedBelow(sep_a[ea.face_left],
                         Dot(nb, out->vertices[start]) - fr.offset, tolerance,
                         best.separation) ||
        EdgeBoundedBelow(Dot(na, out->vertices[end]) - fl.offset,
                         sep_a[ea.face_right], tolerance, best.separation)) {
      continue;
    }
    if (!adjacency_built) build_adjacency();
    const Vec3 bxa = Cross(nb, na);
    const Vec3 pa = a.vertices[ea.a];
    const Vec3 da = EdgePole(a.vertices[ea.b] - pa, na, nb);
    // Walk B's negated Gauss map along A's arc from na to nb: start in the
    // region of the B vertex deepest along -na, leave each region through
    // the one other incident edge the arc crosses (regions are convex, so
    // the arc crosses each at most twice), and stop in the region of the
    // vertex deepest along -nb. Every crossed edge is a Minkowski face.
    // When round-off or a degenerate configuration (the arc through a
    // Gauss-map vertex) leaves the walk without an exit, scan all of B's
    // edges for this arc instead.
    int v = start;
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
    if (early_out && best.separation > 0.0f) return finish();
  }
  return finish();
}

}  // namespace sator::internal
