// Hull-hull SAT after Gregorius, "The Separating Axis Test between Convex
// Polyhedra", GDC 2013, with every axis that cannot win skipped by a bound:
//
//   1. Face axes of A: the separation along face f is
//        sep_f = min_{v in B} n_f . v - d_f
//      (B's vertices moved into A's frame once, with a rotation matrix),
//      measured one face at a time or four at once (a block of the face
//      matrix: four faces per SIMD lane, B's vertices broadcast one by one).
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
// c_B - r_B n for a ball (c_B, r_B) inside B (InscribedBall, precomputed per
// hull near its Chebyshev centre), so for unit n
//   sep_f <= u_f = n_f . c_B - d_f - r_B.
// A face whose bound is below the best separation found so far is never
// measured. The same bound covers A's edges: an edge axis n of A's edge e
// (supported by e's point p) lies on e's arc, n = alpha a + beta b with
// alpha, beta >= 0 and alpha + beta >= 1 (|n| = 1, |a| = |b| = 1), so with
// w_a = a . c_B - d_a (and w_b) the bounds before the radius,
//   sep(n) <= n . (c_B - p) - r_B = alpha w_a + beta w_b - r_B
//          <= max(w_a, w_b) - r_B = max(u_a, u_b)
// whenever max(w_a, w_b) <= 0, that is max(u_a, u_b) <= -r_B (p lies on
// both of e's face planes, so n . (c_B - p) = alpha w_a + beta w_b).
// An edge of A whose two faces are both bounded below the best separation
// has no Minkowski face that can win, and its walk is skipped; B's edges
// are bounded the same way with A's ball in B's frame. Once both faces of
// an edge are measured, their two deepest vertices of B bound the arc
// together (the pair bound in the edge loop). Bounds are
// compared with a margin of round-off (kBoundMargin of the coordinates'
// magnitude) so that an axis within round-off of the best is measured.
#include "hull_sat.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "rotation_matrix.h"
#include "simd/float4.h"

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

// Four float lanes (simd/float4.h) and the operations the tests below
// name.
using F4 = simd::Float4;
inline F4 Load4(const float* p) { return F4::Load(p); }
inline void Store4(float* p, F4 a) { a.Store(p); }
inline F4 Splat(float s) { return F4::Splat(s); }
inline F4 Max4(F4 a, F4 b) { return simd::Max(a, b); }
inline F4 Min4(F4 a, F4 b) { return simd::Min(a, b); }
inline F4 Abs4(F4 a) { return simd::Abs(a); }
inline F4 Negate4(F4 a) { return -a; }
// Where d < *m: *m = d and *arg = index.
inline void TakeLess(F4 d, F4 index, F4* m, F4* arg) {
  const simd::Mask4 less = d < *m;
  *m = simd::Select(less, d, *m);
  *arg = simd::Select(less, index, *arg);
}
// Where d > *m: *m = d and *arg = index.
inline void TakeGreater(F4 d, F4 index, F4* m, F4* arg) {
  const simd::Mask4 greater = d > *m;
  *m = simd::Select(greater, d, *m);
  *arg = simd::Select(greater, index, *arg);
}
// The least lane of `index` among the lanes where a equals b, else `none`.
inline float LeastIndexWhereEqual(F4 a, float b, F4 index, float none) {
  return simd::MinLane(simd::Select(a == Splat(b), index, Splat(none)));
}
// Bit i set where lane i of a is above b.
inline int MaskAbove(F4 a, float b) { return simd::LaneBits(a > Splat(b)); }
// -1 where lane i of a is at most b, else 0.
inline void StoreNotAbove(int* p, F4 a, float b) {
  simd::Store(a <= Splat(b), p);
}
inline void StoreInt4(int* p, F4 a) { simd::StoreTruncated(a, p); }
// Four planes (n, d) from structure-of-arrays into faces[0..3].
inline void StorePlanes(F4 nx, F4 ny, F4 nz, F4 d, ConvexHull::Face* faces) {
  simd::Transpose(nx, ny, nz, d);
  const F4 rows[4] = {nx, ny, nz, d};
  for (int i = 0; i < 4; ++i) {
    float plane[4];
    rows[i].Store(plane);
    faces[i].normal = {plane[0], plane[1], plane[2]};
    faces[i].offset = plane[3];
  }
}
// out[i] = lane i of a, in all four lanes.
inline void SplatLanes(F4 a, F4* out) {
  out[0] = simd::Broadcast<0>(a);
  out[1] = simd::Broadcast<1>(a);
  out[2] = simd::Broadcast<2>(a);
  out[3] = simd::Broadcast<3>(a);
}
// -1 where x < 0, else 1 (x = -0 and NaN included), without a branch
// (GCC made the ternary a branch, mispredicted about half the time).
inline float SignOf(float x) {
  return simd::Select(Splat(x) < Splat(0.0f), Splat(-1.0f), Splat(1.0f))[0];
}
inline float HorizontalSum(F4 a) { return simd::SumLanes(a); }
inline float HorizontalMax(F4 a) { return simd::MaxLane(a); }

// Vertex coordinates as structure-of-arrays, padded to a multiple of 4 with
// copies of vertex 0 (which leave every minimum and its lowest index as
// they are).
struct SoaVertices {
  alignas(16) float x[kMaxPolyVertices];
  alignas(16) float y[kMaxPolyVertices];
  alignas(16) float z[kMaxPolyVertices];
  int count = 0;   // Real vertices.
  int padded = 0;  // count rounded up to a multiple of 4.
};

// min over the vertices of n . v, and with kArg the lowest index reaching
// it.
template <bool kArg>
float MinDot(const SoaVertices& v, Vec3 n, int* arg) {
  const F4 nx = Splat(n.x);
  const F4 ny = Splat(n.y);
  const F4 nz = Splat(n.z);
  F4 d[kMaxPolyVertices / 4];
  F4 m = Splat(3.0e38f);
  const int blocks = v.padded / 4;
  for (int k = 0; k < blocks; ++k) {
    d[k] = (nx * Load4(v.x + 4 * k) + ny * Load4(v.y + 4 * k)) +
           nz * Load4(v.z + 4 * k);
    m = Min4(m, d[k]);
  }
  const float least = simd::MinLane(m);
  if constexpr (kArg) {
    // The lowest index reaching the minimum, without a branch per block (at
    // most 16 blocks: one bit per vertex in 64).
    const F4 at_least = Splat(least);
    std::uint64_t at = 0;
    for (int k = 0; k < blocks; ++k) {
      at |= static_cast<std::uint64_t>(simd::LaneBits(d[k] == at_least))
            << (4 * k);
    }
    *arg = at == 0 ? 0 : __builtin_ctzll(at);
  }
  return least;
}

// max over the vertices of n . v, from the structure-of-arrays layout
// (`padded` entries of x, then y, then z; the padding repeats vertex 0),
// each dot product in Dot's order, so the same float as a scalar loop.
float MaxDot(const float* soa, int padded, Vec3 n) {
  const F4 nx = Splat(n.x);
  const F4 ny = Splat(n.y);
  const F4 nz = Splat(n.z);
  F4 m = Splat(-3.0e38f);
  for (int k = 0; k < padded; k += 4) {
    const F4 d = (nx * Load4(soa + k) + ny * Load4(soa + padded + k)) +
                 nz * Load4(soa + 2 * padded + k);
    m = Max4(m, d);  // m where d is NaN, as std::max(m, d).
  }
  const float max = simd::MaxLane(m);
  // A maximum of zero: its sign is the first such vertex's, as the scalar
  // loop keeps it (the lanes' reduction may pick either zero).
  if (max != 0.0f) return max;
  float top = -3.0e38f;
  for (int i = 0; i < padded; ++i) {
    top = std::max(top,
                   Dot(n, Vec3{soa[i], soa[padded + i], soa[2 * padded + i]}));
  }
  return top;
}

constexpr int Round4(int n) { return (n + 3) & ~3; }

// Word w of face f's edge set (HullSoaSize: `words` words per face from
// `face_edges`).
inline std::uint64_t FaceEdgeWord(const float* face_edges, int words, int f,
                                  int w) {
  std::uint64_t bits;
  std::memcpy(&bits, face_edges + 2 * (words * f + w), sizeof(bits));
  return bits;
}

// A hull's vertices moved by a rotation (rows r0, r1, r2) and translation:
// structure-of-arrays (padded like the hull's), with their mean (of the
// padded set: a point of the hull) and largest |coordinate|; splatted per
// vertex for the face blocks once one is needed.
struct MovedVertices {
  SoaVertices soa;
  float magnitude = 0.0f;  // Forward moves only (MoveVertices).
  bool splatted = false;
  F4 sx[kMaxPolyVertices];
  F4 sy[kMaxPolyVertices];
  F4 sz[kMaxPolyVertices];

  void Splat4() {
    for (int i = 0; i < soa.padded; i += 4) {
      SplatLanes(Load4(soa.x + i), sx + i);
      SplatLanes(Load4(soa.y + i), sy + i);
      SplatLanes(Load4(soa.z + i), sz + i);
    }
    splatted = true;
  }
};

// The mean of a hull's vertices (of the padded set: a point of the hull)
// and their largest |coordinate|, from its structure-of-arrays layout.
void MeanAndMagnitude(const float* soa, int count, Vec3* mean,
                      float* magnitude) {
  const int padded = Round4(count);
  F4 sum_x = Splat(0.0f), sum_y = sum_x, sum_z = sum_x, m = sum_x;
  for (int k = 0; k < padded; k += 4) {
    const F4 x = Load4(soa + k);
    const F4 y = Load4(soa + padded + k);
    const F4 z = Load4(soa + 2 * padded + k);
    sum_x = sum_x + x;
    sum_y = sum_y + y;
    sum_z = sum_z + z;
    m = Max4(m, Max4(Abs4(x), Max4(Abs4(y), Abs4(z))));
  }
  const float inverse_count = 1.0f / static_cast<float>(padded);
  *mean = {inverse_count * HorizontalSum(sum_x),
           inverse_count * HorizontalSum(sum_y),
           inverse_count * HorizontalSum(sum_z)};
  *magnitude = HorizontalMax(m);
}

// The mean of moved vertices (of the padded set), in the order
// MeanAndMagnitude sums a layout.
Vec3 MeanOf(const SoaVertices& v) {
  F4 sum_x = Splat(0.0f), sum_y = sum_x, sum_z = sum_x;
  for (int k = 0; k < v.padded; k += 4) {
    sum_x = sum_x + Load4(v.x + k);
    sum_y = sum_y + Load4(v.y + k);
    sum_z = sum_z + Load4(v.z + k);
  }
  const float inverse_count = 1.0f / static_cast<float>(v.padded);
  return {inverse_count * HorizontalSum(sum_x),
          inverse_count * HorizontalSum(sum_y),
          inverse_count * HorizontalSum(sum_z)};
}

// v -> R v + t (forward) or R^T (v - t) (inverse), in the arithmetic order
// of Rotation::Apply and ApplyInverse, so the floats are the same; a
// forward move also gives the moved vertices' largest |coordinate| (for
// the bounds' margin). The mean, when needed, is MeanOf.
template <bool kInverse>
void MoveVertices(const float* soa, int count, const Rotation& rot, Vec3 t,
                  MovedVertices* out) {
  const int padded = Round4(count);
  const Vec3 c0 = kInverse ? Vec3{rot.r0.x, rot.r1.x, rot.r2.x} : rot.r0;
  const Vec3 c1 = kInverse ? Vec3{rot.r0.y, rot.r1.y, rot.r2.y} : rot.r1;
  const Vec3 c2 = kInverse ? Vec3{rot.r0.z, rot.r1.z, rot.r2.z} : rot.r2;
  const F4 m00 = Splat(c0.x), m01 = Splat(c0.y), m02 = Splat(c0.z);
  const F4 m10 = Splat(c1.x), m11 = Splat(c1.y), m12 = Splat(c1.z);
  const F4 m20 = Splat(c2.x), m21 = Splat(c2.y), m22 = Splat(c2.z);
  const F4 tx = Splat(t.x), ty = Splat(t.y), tz = Splat(t.z);
  F4 magnitude = Splat(0.0f);
  for (int k = 0; k < padded; k += 4) {
    F4 x = Load4(soa + k);
    F4 y = Load4(soa + padded + k);
    F4 z = Load4(soa + 2 * padded + k);
    if constexpr (kInverse) {
      x = x - tx;
      y = y - ty;
      z = z - tz;
    }
    F4 px = (m00 * x + m01 * y) + m02 * z;
    F4 py = (m10 * x + m11 * y) + m12 * z;
    F4 pz = (m20 * x + m21 * y) + m22 * z;
    if constexpr (!kInverse) {
      px = px + tx;
      py = py + ty;
      pz = pz + tz;
    }
    Store4(out->soa.x + k, px);
    Store4(out->soa.y + k, py);
    Store4(out->soa.z + k, pz);
    if constexpr (!kInverse) {
      magnitude = Max4(magnitude, Max4(Abs4(px), Max4(Abs4(py), Abs4(pz))));
    }
  }
  out->soa.count = count;
  out->soa.padded = padded;
  if constexpr (!kInverse) out->magnitude = HorizontalMax(magnitude);
}

// The vertices as Vec3s, padding included (a multiple of 4, at most
// kMaxPolyVertices).
void StoreVec3s(const SoaVertices& v, Vec3* out) {
  for (int i = 0; i < v.padded; ++i) out[i] = {v.x[i], v.y[i], v.z[i]};
}

// Vertex indices, splatted (a memory operand for the argmin's blend).
struct VertexIndexTable {
  alignas(16) float lanes[kMaxPolyVertices][4] = {};
  constexpr VertexIndexTable() {
    for (int v = 0; v < kMaxPolyVertices; ++v) {
      for (float& lane : lanes[v]) lane = static_cast<float>(v);
    }
  }
};
constexpr VertexIndexTable kVertexIndexTable;
constexpr const float (&kVertexIndex)[kMaxPolyVertices][4] =
    kVertexIndexTable.lanes;

// Face indices 0, 1, 2, ... as floats (the argmax's blend).
struct FaceIndexTable {
  alignas(16) float index[kMaxPolyFaces + 4] = {};
  constexpr FaceIndexTable() {
    for (int f = 0; f < kMaxPolyFaces + 4; ++f) {
      index[f] = static_cast<float>(f);
    }
  }
};
constexpr FaceIndexTable kFaceIndexTable;

// One block of the face matrix: for the four planes k..k+3 of `planes`
// (nx, ny, nz, offset arrays of `padded` entries), sep[i] = min over the
// points of n . p - d, as MinDot computes it, without a branch; with kArg
// also arg[i], the lowest index reaching the minimum (the padding copies
// vertex 0, so it never takes the argmin).
template <bool kArg>
void FaceBlock(const float* planes, int padded, int k, const MovedVertices& p,
               float* sep, int* arg) {
  const F4 nx = Load4(planes + k);
  const F4 ny = Load4(planes + padded + k);
  const F4 nz = Load4(planes + 2 * padded + k);
  F4 m = Splat(3.0e38f);
  F4 at = Splat(0.0f);
  // The padded count is a multiple of 4: unrolled by 4.
#pragma GCC unroll 4
  for (int v = 0; v < p.soa.padded; ++v) {
    const F4 d = (nx * p.sx[v] + ny * p.sy[v]) + nz * p.sz[v];
    if constexpr (kArg) {
      TakeLess(d, Load4(kVertexIndex[v]), &m, &at);
    } else {
      m = Min4(m, d);
    }
  }
  Store4(sep, m - Load4(planes + 3 * padded + k));
  if constexpr (kArg) StoreInt4(arg, at);
}

// Which faces of the block k..k+3 may beat `best`: both bounds, at `bound`
// (precomputed; -FLT_MAX for the padding and for faces already measured)
// and at the point q, above it with the margin. The bounds at q go to
// at_q[k..k+3] unless at_q is null.
int FacesToMeasure(const float* planes, int padded, int k, const float* bound,
                   Vec3 q, float tolerance, float best, float* at_q) {
  const F4 u = ((Load4(planes + k) * Splat(q.x) +
                 Load4(planes + padded + k) * Splat(q.y)) +
                Load4(planes + 2 * padded + k) * Splat(q.z)) -
               Load4(planes + 3 * padded + k);
  if (at_q != nullptr) Store4(at_q + k, u);
  return MaskAbove(Min4(Load4(bound + k), u) + Splat(tolerance), best);
}

// bound[f] = n_f . point - d_f for every plane (an upper bound on the
// face's separation when `point` lies in the other hull); returns the face
// with the largest (the lowest such index), and that bound in `top_bound`.
// The padding past `count` gets -FLT_MAX, so that FacesToMeasure never
// picks it.
int FaceBounds(const float* planes, int count, int padded, Vec3 point,
               float radius, float* bound, float* top_bound) {
  const F4 x = Splat(point.x), y = Splat(point.y), z = Splat(point.z);
  const F4 rr = Splat(radius);
  // Per lane the largest bound and the lowest index holding it (blocks go
  // up, a later one replaces only a strictly larger bound), no branch.
  F4 top = Splat(-3.0e38f);
  F4 at = Splat(0.0f);
  for (int k = 0; k < padded; k += 4) {
    const F4 u = ((Load4(planes + k) * x + Load4(planes + padded + k) * y) +
                  Load4(planes + 2 * padded + k) * z) -
                 (Load4(planes + 3 * padded + k) + rr);
    Store4(bound + k, u);
    // The padding repeats face 0: never the lowest index holding the top.
    TakeGreater(u, Load4(kFaceIndexTable.index + k), &top, &at);
  }
  *top_bound = HorizontalMax(top);
  // The lowest index over the lanes holding the top.
  const float least = LeastIndexWhereEqual(top, *top_bound, at, 1e9f);
  for (int f = count; f < padded; ++f) bound[f] = -FLT_MAX;
  return least < static_cast<float>(count) ? static_cast<int>(least) : 0;
}

// True when no axis on the arc of an edge whose two faces have the bounds
// u_a, u_b (each less `radius`, the other hull's ball; 0 for bounds at a
// vertex) can separate more than `best`: every such axis is bounded by
// alpha w_a + beta w_b - radius with w = u + radius and alpha + beta >= 1,
// which is at most max(u_a, u_b) only when max(w_a, w_b) <= 0 (hence the min
// with -radius).
bool EdgeBoundedBelow(float u_a, float u_b, float radius, float tolerance,
                      float best) {
  return std::max(u_a, u_b) + tolerance <= std::min(best, -radius);
}

// x clamped to [0, 1], and NaN to 0.
inline float Clamp01(float x) {
  return x >= 0.0f ? (x <= 1.0f ? x : 1.0f) : 0.0f;
}

// The vertex mean with radius 0: a ball inside the hull at no cost (the
// bounds are looser than at an inscribed ball, the answers the same).
void CentroidBall(const ConvexHull& h, float* ball) {
  double cx = 0.0, cy = 0.0, cz = 0.0;
  for (const Vec3& p : h.vertices) {
    cx += p.x;
    cy += p.y;
    cz += p.z;
  }
  const auto v = static_cast<double>(h.vertices.size());
  ball[0] = static_cast<float>(cx / v);
  ball[1] = static_cast<float>(cy / v);
  ball[2] = static_cast<float>(cz / v);
  ball[3] = 0.0f;
}

// A ball inside the hull: ball[0..2] its centre, ball[3] its radius, the
// least distance from the centre to a face plane less the hull's merge
// tolerance and less the hull's measured flatness (how far any face's own
// vertices lie below its stored plane: a face given by hand may be off its
// plane by up to about twice the tolerance, as Finish checks deviations from
// the face's mean), so the ball lies in the hull of the vertices. When that
// leaves no positive radius the ball is the vertex mean with radius 0 (the
// mean is inside the hull, as the bounds before this ball used it). Any
// interior point gives a valid ball; a central one (near the Chebyshev centre,
// the LP that maximises the radius) gives a larger radius and tighter bounds.
// An ascent from the vertex mean: the radius r(c) = min_g (d_g - n_g . c) is
// concave, and moving against the sum of the normals of the faces within one
// step of the nearest (an epsilon-subgradient) raises it; a step that helps is
// kept and lengthened, one that does not is halved, down to 1e-3 of the hull's
// extent (about 30k instructions for a 16-point hull, once per hull, by
// the factories; a hull built by hand without `soa` gets CentroidBall per
// call instead, looser bounds and the same answers).
void InscribedBall(const ConvexHull& h, float* ball) {
  const int v = static_cast<int>(h.vertices.size());
  double cx = 0.0, cy = 0.0, cz = 0.0;
  double lo[3] = {1e300, 1e300, 1e300};
  double hi[3] = {-1e300, -1e300, -1e300};
  double magnitude[3] = {0.0, 0.0, 0.0};
  for (const Vec3& p : h.vertices) {
    cx += p.x;
    cy += p.y;
    cz += p.z;
    const double q[3] = {p.x, p.y, p.z};
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], q[k]);
      hi[k] = std::max(hi[k], q[k]);
      magnitude[k] = std::max(magnitude[k], std::fabs(q[k]));
    }
  }
  cx /= v;
  cy /= v;
  cz /= v;
  auto clearance = [&](double x, double y, double z) {
    double r = 1e300;
    for (const ConvexHull::Face& f : h.faces) {
      r = std::min(r, static_cast<double>(f.offset) -
                          (f.normal.x * x + f.normal.y * y + f.normal.z * z));
    }
    return r;
  };
  const double extent =
      std::max(hi[0] - lo[0], std::max(hi[1] - lo[1], hi[2] - lo[2]));
  double step = 0.125 * extent;
  const double stop = 1e-3 * extent;
  double r = clearance(cx, cy, cz);
  for (int it = 0; it < 100 && step > stop; ++it) {
    double dx = 0.0, dy = 0.0, dz = 0.0;
    for (const ConvexHull::Face& f : h.faces) {
      const double s = static_cast<double>(f.offset) -
                       (f.normal.x * cx + f.normal.y * cy + f.normal.z * cz);
      if (s <= r + step) {
        dx -= f.normal.x;
        dy -= f.normal.y;
        dz -= f.normal.z;
      }
    }
    const double len = std::sqrt(dx * dx + dy * dy + dz * dz);
    if (len < 1e-9) break;
    const double x = cx + step * dx / len, y = cy + step * dy / len,
                 z = cz + step * dz / len;
    const double rr = clearance(x, y, z);
    if (rr > r) {
      cx = x;
      cy = y;
      cz = z;
      r = rr;
      step *= 1.5;
    } else {
      step *= 0.5;
    }
  }
  ball[0] = static_cast<float>(cx);
  ball[1] = static_cast<float>(cy);
  ball[2] = static_cast<float>(cz);
  double flatness = 0.0;
  for (const ConvexHull::Face& f : h.faces) {
    for (int k = 0; k < f.vertex_count; ++k) {
      const Vec3& p = h.vertices[h.face_vertex_indices[f.first_index + k]];
      flatness =
          std::max(flatness, static_cast<double>(f.offset) -
                                 (f.normal.x * static_cast<double>(p.x) +
                                  f.normal.y * static_cast<double>(p.y) +
                                  f.normal.z * static_cast<double>(p.z)));
    }
  }
  // The radius about the float centre, less the merge tolerance
  // (convex_hull.cc) and the flatness, rounded down.
  const double rf = clearance(ball[0], ball[1], ball[2]) - flatness -
                    4e-6 * (magnitude[0] + magnitude[1] + magnitude[2]);
  if (rf > 0.0) {
    ball[3] = std::nextafter(static_cast<float>(rf), 0.0f);
    return;
  }
  CentroidBall(h, ball);
}

// The hull's structure-of-arrays layout: its own, or built into `scratch`
// for a hull made by hand without it.
const float* SoaOf(const ConvexHull& h, float* scratch) {
  const int v = static_cast<int>(h.vertices.size());
  const int f = static_cast<int>(h.faces.size());
  const int e = static_cast<int>(h.edges.size());
  if (h.soa.size() == static_cast<size_t>(HullSoaSize(v, f, e))) {
    return h.soa.data();
  }
  FillHullSoa(h, scratch, /*inscribed_ball=*/false);
  return scratch;
}

}  // namespace

void FillHullSoa(const ConvexHull& h, float* out, bool inscribed_ball) {
  const int v = static_cast<int>(h.vertices.size());
  const int f = static_cast<int>(h.faces.size());
  const int vp = Round4(v);
  const int fp = Round4(f);
  for (int i = 0; i < vp; ++i) {
    const Vec3& p = h.vertices[i < v ? i : 0];
    out[i] = p.x;
    out[vp + i] = p.y;
    out[2 * vp + i] = p.z;
  }
  float* planes = out + 3 * vp;
  for (int i = 0; i < fp; ++i) {
    const ConvexHull::Face& face = h.faces[i < f ? i : 0];
    planes[i] = face.normal.x;
    planes[fp + i] = face.normal.y;
    planes[2 * fp + i] = face.normal.z;
    planes[3 * fp + i] = face.offset;
  }
  if (inscribed_ball) {
    InscribedBall(h, planes + 4 * fp);
  } else {
    CentroidBall(h, planes + 4 * fp);
  }
  // Each edge's pole and arc plane, as the edge walk uses them (they depend
  // on the hull alone; the vertex mean as HullHullAxis computes it).
  Vec3 mean;
  float magnitude;
  MeanAndMagnitude(out, v, &mean, &magnitude);
  planes[4 * fp + 4] = mean.x;
  planes[4 * fp + 5] = mean.y;
  planes[4 * fp + 6] = mean.z;
  planes[4 * fp + 7] = magnitude;
  float* edge = planes + 4 * fp + 8;
  for (const ConvexHull::Edge& e : h.edges) {
    const Vec3 n1 = h.faces[e.face_left].normal;
    const Vec3 n2 = h.faces[e.face_right].normal;
    const Vec3 p = h.vertices[e.a];
    const Vec3 pole = EdgePole(h.vertices[e.b] - p, n1, n2);
    bool knife;
    const Vec3 plane = ArcPlane(n1, n2, pole, p - mean, &knife);
    edge[0] = pole.x;
    edge[1] = pole.y;
    edge[2] = pole.z;
    edge[3] = knife ? 1.0f : 0.0f;
    edge[4] = plane.x;
    edge[5] = plane.y;
    edge[6] = plane.z;
    edge[7] = 0.0f;
    edge += 8;
  }
  // Each face's edges as bit sets (the edge gather in HullHullAxis), padded
  // to a multiple of 4 faces with empty sets.
  const int e_count = static_cast<int>(h.edges.size());
  const int words = HullEdgeWords(e_count);
  std::uint64_t bits[HullEdgeWords(kMaxPolyEdges)];
  for (int g = 0; g < fp; ++g) {
    std::fill(bits, bits + words, std::uint64_t{0});
    for (int i = 0; i < e_count; ++i) {
      if (h.edges[i].face_left == g || h.edges[i].face_right == g) {
        bits[i >> 6] |= std::uint64_t{1} << (i & 63);
      }
    }
    std::memcpy(edge + 2 * words * g, bits, sizeof(std::uint64_t) * words);
  }
}

PolyRef HullInA::Ref(const ConvexHull& b) const {
  PolyRef ref = HullRef(b);
  ref.vertices = vertices.data();
  ref.faces = faces.data();
  // B's structure-of-arrays vertices are in B's own frame, not where these
  // vertices are: a view of placed features has none (RoundPolySatD and
  // SegmentSolid would bracket with them). The centroid stays B's own
  // (FillContactMinkowskiEdges does not read it; SatQuery would).
  ref.vertex_soa = nullptr;
  return ref;
}

SatAxis HullHullAxis(const ConvexHull& a, const ConvexHull& b,
                     const Pose3& b_in_a, bool early_out, HullInA* out) {
  const int va_count = static_cast<int>(a.vertices.size());
  const int vb_count = static_cast<int>(b.vertices.size());
  const int fa_count = static_cast<int>(a.faces.size());
  const int fb_count = static_cast<int>(b.faces.size());
  const int fa_padded = Round4(fa_count);
  const int fb_padded = Round4(fb_count);
  const Rotation rot(b_in_a.rotation);
  const Vec3 t = b_in_a.position;
  alignas(16) float own_a[kHullSoaMax];
  alignas(16) float own_b[kHullSoaMax];
  const float* soa_a = SoaOf(a, own_a);
  const float* soa_b = SoaOf(b, own_b);
  const float* planes_a = soa_a + 3 * Round4(va_count);
  const float* planes_b = soa_b + 3 * Round4(vb_count);
  const float* edges_a = planes_a + 4 * fa_padded + 8;

  // B's vertices in A's frame, their mean and magnitude; A's (in its own
  // frame) the same.
  MovedVertices bv;
  MoveVertices<false>(soa_b, vb_count, rot, t, &bv);
  // A's vertex mean and magnitude (in its own frame), precomputed.
  const Vec3 mean_a{planes_a[4 * fa_padded + 4], planes_a[4 * fa_padded + 5],
                    planes_a[4 * fa_padded + 6]};
  const float magnitude_a = planes_a[4 * fa_padded + 7];
  const float tolerance = kBoundMargin * (magnitude_a + bv.magnitude);

  SatAxis best;
  // The best face axis alone, and whether an edge axis that is best was
  // measured by projection (see the end).
  SatAxis best_face;
  bool best_measured = true;
  // Face axes of A. The face with the largest bound at B's ball is
  // measured first, and the vertex of B deepest below it bounds every other
  // face too (often much more tightly than the mean, for faces facing B).
  // The others go by blocks of four: a block is skipped when both bounds
  // rule out all four, one face is measured alone (MinDot), and two or more
  // are measured together (FaceBlock, the four at once without a branch).
  // Bounds at the centre of B's inscribed ball (InscribedBall), less its
  // radius: min over B of n . v <= n . (c - r n) = n . c - r for unit n.
  const float* ball_a = planes_a + 4 * fa_padded;
  const float* ball_b = planes_b + 4 * fb_padded;
  const float radius_a = ball_a[3];
  const float radius_b = ball_b[3];
  alignas(16) float bound_a[kMaxPolyFaces];
  float top_bound;
  const int top_a = FaceBounds(planes_a, fa_count, fa_padded,
                               rot.Apply({ball_b[0], ball_b[1], ball_b[2]}) + t,
                               radius_b, bound_a, &top_bound);
  // deepest_b[f]: B's vertex deepest along -n_f, once measured (else -1).
  // Its region of B's negated Gauss map contains n_f (where the edge walks
  // start and end).
  alignas(16) float sep_a[kMaxPolyFaces];
  alignas(16) int deepest_b[kMaxPolyFaces];
  std::fill(deepest_b, deepest_b + fa_count, -1);
  auto measure_a = [&](int f) {
    int arg;
    const float sep =
        MinDot<true>(bv.soa, a.faces[f].normal, &arg) - a.faces[f].offset;
    deepest_b[f] = arg;
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
  const Vec3 deep_b{bv.soa.x[deepest_b[top_a]], bv.soa.y[deepest_b[top_a]],
                    bv.soa.z[deepest_b[top_a]]};
  // bound_deep_a[f]: A's face bounds at deep_b (for the edge flags too).
  alignas(16) float bound_deep_a[kMaxPolyFaces];
  {
    // The top face is already measured: out of the blocks' tests (its bound
    // is restored after them, for the edge flags).
    const float top_a_bound = bound_a[top_a];
    bound_a[top_a] = -FLT_MAX;
    for (int k = 0; k < fa_padded; k += 4) {
      const int mask = FacesToMeasure(planes_a, fa_padded, k, bound_a, deep_b,
                                      tolerance, best.separation, bound_deep_a);
      if (mask == 0) continue;
      if ((mask & (mask - 1)) == 0) {
        measure_a(k + __builtin_ctz(static_cast<unsigned>(mask)));
      } else {
        if (!bv.splatted) bv.Splat4();
        FaceBlock<true>(planes_a, fa_padded, k, bv, sep_a + k, deepest_b + k);
        for (int f = k; f < std::min(k + 4, fa_count); ++f) {
          if (sep_a[f] > best.separation) {
            best = {AxisKind::kFaceA, sep_a[f], a.faces[f].normal, f, -1};
            best_face = best;
          }
        }
      }
      if (early_out && best.separation > 0.0f) return best;
    }
    bound_a[top_a] = top_a_bound;
  }

  // Face axes of B, in B's frame, the same way (without the deepest
  // vertices beyond the first): bounds from A's ball there; A's
  // vertices are moved into B's frame only if a face needs measuring.
  const Vec3 ball_a_in_b =
      rot.ApplyInverse(Vec3{ball_a[0], ball_a[1], ball_a[2]} - t);
  alignas(16) float bound_b[kMaxPolyFaces];
  const int top_b = FaceBounds(planes_b, fb_count, fb_padded, ball_a_in_b,
                               radius_a, bound_b, &top_bound);
  if (top_bound + tolerance > best.separation) {
    MovedVertices av;
    MoveVertices<true>(soa_a, va_count, rot, t, &av);
    auto take_b = [&](int f, float sep) {
      if (sep > best.separation) {
        best = {AxisKind::kFaceB, sep, -rot.Apply(b.faces[f].normal), -1, f};
        best_face = best;
      }
    };
    int deepest;
    take_b(top_b, MinDot<true>(av.soa, b.faces[top_b].normal, &deepest) -
                      b.faces[top_b].offset);
    if (early_out && best.separation > 0.0f) return best;
    const Vec3 deep_a{av.soa.x[deepest], av.soa.y[deepest], av.soa.z[deepest]};
    // The top face is already measured (its bound restored after).
    const float top_b_bound = bound_b[top_b];
    bound_b[top_b] = -FLT_MAX;
    for (int k = 0; k < fb_padded; k += 4) {
      const int mask = FacesToMeasure(planes_b, fb_padded, k, bound_b, deep_a,
                                      tolerance, best.separation, nullptr);
      if (mask == 0) continue;
      if ((mask & (mask - 1)) == 0) {
        const int f = k + __builtin_ctz(static_cast<unsigned>(mask));
        take_b(f, MinDot<false>(av.soa, b.faces[f].normal, nullptr) -
                      b.faces[f].offset);
      } else {
        if (!av.splatted) av.Splat4();
        alignas(16) float sep_b[4];
        FaceBlock<false>(planes_b, fb_padded, k, av, sep_b, nullptr);
        for (int f = k; f < std::min(k + 4, fb_count); ++f) {
          take_b(f, sep_b[f - k]);
        }
      }
      if (early_out && best.separation > 0.0f) return best;
    }
    bound_b[top_b] = top_b_bound;
  }
  if (best.separation > 0.0f) return best;

  // Edge pairs. B's vertices and faces in A's frame (also what the contact
  // needs), and B's negated face normals as structure-of-arrays for the arc
  // tests; A's face bounds at B's ball.
  StoreVec3s(bv.soa, out->vertices.data());
  alignas(16) float gx[kMaxPolyFaces];
  alignas(16) float gy[kMaxPolyFaces];
  alignas(16) float gz[kMaxPolyFaces];
  {
    const F4 r00 = Splat(rot.r0.x), r01 = Splat(rot.r0.y),
             r02 = Splat(rot.r0.z);
    const F4 r10 = Splat(rot.r1.x), r11 = Splat(rot.r1.y),
             r12 = Splat(rot.r1.z);
    const F4 r20 = Splat(rot.r2.x), r21 = Splat(rot.r2.y),
             r22 = Splat(rot.r2.z);
    const F4 tx = Splat(t.x), ty = Splat(t.y), tz = Splat(t.z);
    for (int k = 0; k < fb_padded; k += 4) {
      const F4 x = Load4(planes_b + k);
      const F4 y = Load4(planes_b + fb_padded + k);
      const F4 z = Load4(planes_b + 2 * fb_padded + k);
      const F4 nx = (r00 * x + r01 * y) + r02 * z;
      const F4 ny = (r10 * x + r11 * y) + r12 * z;
      const F4 nz = (r20 * x + r21 * y) + r22 * z;
      StorePlanes(
          nx, ny, nz,
          Load4(planes_b + 3 * fb_padded + k) + ((nx * tx + ny * ty) + nz * tz),
          &out->faces[k]);
      Store4(gx + k, Negate4(nx));
      Store4(gy + k, Negate4(ny));
      Store4(gz + k, Negate4(nz));
    }
  }
  for (int f = 0; f < fb_count; ++f) {
    out->faces[f].first_index = b.faces[f].first_index;
    out->faces[f].vertex_count = b.faces[f].vertex_count;
  }
  const int eb_count = static_cast<int>(b.edges.size());
  const int ea_count = static_cast<int>(a.edges.size());
  // The separation along unit n by projecting both hulls (rare: kept out
  // of line so that the pair test stays inlined in the walk).
  auto projected = [&](Vec3 n) __attribute__((noinline, cold)) {
    return MinDot<false>(bv.soa, n, nullptr) -
           MaxDot(soa_a, Round4(va_count), n);
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
                       bool knife_a, int j) __attribute__((always_inline))
                       ->bool {
    const ConvexHull::Edge& eb = b.edges[j];
    const Vec3 c{gx[eb.face_left], gy[eb.face_left], gz[eb.face_left]};
    const Vec3 d{gx[eb.face_right], gy[eb.face_right], gz[eb.face_right]};
    const float cba = Dot(c, bxa);
    const float dba = Dot(d, bxa);
    if (!(cba * dba < 0.0f)) return false;
    Vec3 dxc = Cross(d, c);
    // B's arc runs from -c to -d: its plane is (-d) x (-c) = d x c, and at
    // a knife edge B's pole, oriented by B's outward direction there.
    bool knife_b = false;
    if (IsKnifeEdge(dxc, c, d)) [[unlikely]] {
      const Vec3 pb = out->vertices[eb.a];
      dxc = ArcPlane(-c, -d, EdgePole(out->vertices[eb.b] - pb, -c, -d),
                     pb - MeanOf(bv.soa), &knife_b);
    }
    const float adc = Dot(na, dxc);
    const float bdc = Dot(nb, dxc);
    if (!(adc * bdc < 0.0f && cba * bdc > 0.0f)) return false;
    if (EdgeBoundedBelow(bound_b[eb.face_left], bound_b[eb.face_right],
                         radius_a, tolerance, best.separation)) {
      return true;
    }
    const Vec3 pb = out->vertices[eb.a];
    const Vec3 db = EdgePole(out->vertices[eb.b] - pb, -c, -d);
    const Vec3 u = Cross(da, db);
    const float len_sq = LengthSquared(u);
    const float lengths_sq = LengthSquared(da) * LengthSquared(db);
    if (len_sq > kParallelSine * kParallelSine * lengths_sq) {
      Vec3 n = (1.0f / std::sqrt(len_sq)) * u;
      n = SignOf(Dot(n, pa - mean_a)) * n;
      // Read off the edges where the axis is well conditioned, measured by
      // projecting both hulls where it is not (kEdgeReadSine,
      // sat_polytope.h) or where it would end an early-out search.
      // Knife edges too: a crossing decided within their arcs' round-off
      // may name an axis along which the edges do not support, and a value
      // read off them could then beat the true best and hide it (the
      // winner's check at the end would fall back to the best face).
      float sep = Dot(n, pb - pa);
      const bool measure =
          !(len_sq > kEdgeReadSine * kEdgeReadSine * lengths_sq) ||
          (early_out && sep > 0.0f) || knife_a || knife_b;
      if (measure) sep = projected(n);
      if (sep > best.separation) {
        best = {AxisKind::kEdges, sep, n, i, j};
        best_measured = measure;
      }
    }
    return true;
  };
  // The edges left, as bit sets in index order. A face of A is low at B's
  // ball when its bound there is below the best separation
  // (EdgeBoundedBelow for one face), and low at B's vertex deepest below the
  // top face likewise (one point of B for both faces of an edge, as the
  // bound needs); an edge whose two faces are both low at the same point is
  // skipped, so an edge is left when it belongs to a face not low at the
  // ball and to a face not low at the deep vertex: the union of the edge
  // sets (FillHullSoa) of the faces not low at each, intersected. The best
  // only grows, so the sets stay valid. No branch per face (whether a face
  // is low is hard to predict).
  const int words = HullEdgeWords(ea_count);
  const float* face_edges_a = edges_a + 8 * ea_count;
  std::uint64_t live[HullEdgeWords(kMaxPolyEdges)];
  {
    const F4 margin = Splat(tolerance);
    const float bar = std::min(best.separation, -radius_b);
    const float bar_deep = std::min(best.separation, 0.0f);
    // A's face bounds at deep_b, from the face blocks' tests.
    auto bound_deep = [&](int k) { return Load4(bound_deep_a + k); };
    if (words == 1) {
      // Four faces per step: each face's flag (a 32-bit lane of 0 or -1),
      // duplicated into the two 32-bit halves of its edge word, masks that
      // word. The face edge sets are padded to a multiple of 4 faces with
      // empty sets.
      using simd::Mask4;
      using simd::Permute;
      Mask4 by_ball = Mask4::Zero();
      Mask4 by_deep = by_ball;
      for (int k = 0; k < fa_padded; k += 4) {
        const Mask4 low_ball = Load4(bound_a + k) + margin <= Splat(bar);
        const Mask4 low_deep = bound_deep(k) + margin <= Splat(bar_deep);
        const Mask4 e01 = Mask4::LoadBits(face_edges_a + 2 * k);
        const Mask4 e23 = Mask4::LoadBits(face_edges_a + 2 * k + 4);
        by_ball = by_ball | (~Permute<0, 0, 1, 1>(low_ball) & e01) |
                  (~Permute<2, 2, 3, 3>(low_ball) & e23);
        by_deep = by_deep | (~Permute<0, 0, 1, 1>(low_deep) & e01) |
                  (~Permute<2, 2, 3, 3>(low_deep) & e23);
      }
      const Mask4 both = (by_ball | Permute<2, 3, 2, 3>(by_ball)) &
                         (by_deep | Permute<2, 3, 2, 3>(by_deep));
      const std::uint32_t halves[2] = {static_cast<std::uint32_t>(both[0]),
                                       static_cast<std::uint32_t>(both[1])};
      std::memcpy(live, halves, sizeof(halves));
    } else {
      alignas(16) int low_ball[kMaxPolyFaces];
      alignas(16) int low_deep[kMaxPolyFaces];
      for (int k = 0; k < fa_padded; k += 4) {
        StoreNotAbove(low_ball + k, Load4(bound_a + k) + margin, bar);
        StoreNotAbove(low_deep + k, bound_deep(k) + margin, bar_deep);
      }
      std::uint64_t by_ball[HullEdgeWords(kMaxPolyEdges)] = {};
      std::uint64_t by_deep[HullEdgeWords(kMaxPolyEdges)] = {};
      for (int f = 0; f < fa_count; ++f) {
        const auto keep_ball =
            ~static_cast<std::uint64_t>(static_cast<std::int64_t>(low_ball[f]));
        const auto keep_deep =
            ~static_cast<std::uint64_t>(static_cast<std::int64_t>(low_deep[f]));
        for (int w = 0; w < words; ++w) {
          const std::uint64_t edges = FaceEdgeWord(face_edges_a, words, f, w);
          by_ball[w] |= edges & keep_ball;
          by_deep[w] |= edges & keep_deep;
        }
      }
      for (int w = 0; w < words; ++w) live[w] = by_ball[w] & by_deep[w];
    }
  }
  for (int w = 0; w < words; ++w) {
    for (std::uint64_t bits = live[w]; bits != 0; bits &= bits - 1) {
      const int i = 64 * w + __builtin_ctzll(bits);
      const ConvexHull::Edge& ea = a.edges[i];
      const int left = ea.face_left;
      const int right = ea.face_right;
      const ConvexHull::Face& fl = a.faces[left];
      const ConvexHull::Face& fr = a.faces[right];
      const Vec3 na = fl.normal;
      const Vec3 nb = fr.normal;
      // Tighter bounds with B's vertex deepest below one face as the point of
      // B: along the arc, n . (q - p) = alpha (a . q - d_a) + beta (b . q -
      // d_b). A face not yet measured is measured only if the bound from the
      // other face's deepest vertex does not already skip the edge.
      auto bounded_from_left = [&] {
        return EdgeBoundedBelow(
            sep_a[left], Dot(nb, out->vertices[deepest_b[left]]) - fr.offset,
            0.0f, tolerance, best.separation);
      };
      auto bounded_from_right = [&] {
        return EdgeBoundedBelow(
            Dot(na, out->vertices[deepest_b[right]]) - fl.offset, sep_a[right],
            0.0f, tolerance, best.separation);
      };
      if (deepest_b[left] < 0 && deepest_b[right] < 0) measure_a(left);
      if (deepest_b[right] < 0) {
        if (bounded_from_left()) continue;
        measure_a(right);
      } else if (deepest_b[left] < 0) {
        if (bounded_from_right()) continue;
        measure_a(left);
      }
      const int start = deepest_b[left];
      const int end = deepest_b[right];
      // The arc lies in one region of B's negated Gauss map: no crossing.
      if (start == end) continue;
      // Both faces measured: the two deepest vertices q_l = start, q_r = end
      // bound every axis n = s ((1 - t) a + t b), s >= 1, of the arc by
      // s min(L1(t), L2(t)), with the lines L1 from sep_l to
      // u_lr = b . q_l - d_b and L2 from u_rl = a . q_r - d_a to sep_r (the
      // bounds above take L1 or L2 alone). For any lambda in [0, 1] the
      // minimum is at most lambda L1 + (1 - lambda) L2, a line whose
      // largest value is at t = 0 or 1; lambda making it flat gives the
      // tightest such bound, max_t min(L1, L2) (the lines' crossing). Any
      // lambda in [0, 1] is valid, so its round-off only loosens the bound
      // (and Clamp01 maps a NaN from NaN inputs to 0).
      {
        const float sep_l = sep_a[left];
        const float sep_r = sep_a[right];
        const float u_lr = Dot(nb, out->vertices[start]) - fr.offset;
        const float u_rl = Dot(na, out->vertices[end]) - fl.offset;
        const float rise_l = u_lr - sep_l;
        const float rise_r = u_rl - sep_r;
        // rise_r / (rise_l + rise_r), in [0, 1] without a division by zero
        // or an overflow (the tests trap both): the numerator is clamped to
        // [0, denominator] and the denominator kept positive.
        const float den = std::max(rise_l + rise_r, FLT_MIN);
        const float lambda =
            Clamp01(std::min(std::max(rise_r, 0.0f), den) / den);
        const float bound = std::max(lambda * sep_l + (1.0f - lambda) * u_rl,
                                     lambda * u_lr + (1.0f - lambda) * sep_r);
        if (bound + tolerance <= std::min(best.separation, 0.0f)) continue;
      }
      if (!adjacency_built) build_adjacency();
      const Vec3 pa = a.vertices[ea.a];
      // The edge's pole and arc plane, precomputed (FillHullSoa).
      const float* edge = edges_a + 8 * i;
      const Vec3 da{edge[0], edge[1], edge[2]};
      const bool knife_a = edge[3] != 0.0f;
      const Vec3 bxa{edge[4], edge[5], edge[6]};
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
          if (test_pair(i, na, nb, bxa, pa, da, knife_a, j)) {
            exit = j;
            break;
          }
        }
        if (exit < 0) {
          walked = false;
          break;
        }
        came_from = exit;
        v = b.edges[exit].a ^ b.edges[exit].b ^ v;  // The other end.
      }
      if (!walked) {
        for (int j = 0; j < eb_count; ++j) {
          test_pair(i, na, nb, bxa, pa, da, knife_a, j);
        }
      }
      if (early_out && best.separation > 0.0f) return finish();
    }
  }
  return finish();
}

}  // namespace sator::internal
