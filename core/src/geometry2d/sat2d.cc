// The separating axis test with contact clipping, for convex polygons that
// may be inflated by a radius.
//
// Ericson, "Real-Time Collision Detection" (2005), 5.2.1 (SAT) and 5.1.9;
// Gottschalk, Lin, Manocha, "OBBTree" (SIGGRAPH 1996) for the axis test;
// the reference/incident clipping of Box2D v2's b2CollidePolygons (Catto,
// GDC 2007 "Contact Manifolds") done in our own words:
//
//   s_A = max over A's edges i of  min over B's vertices w of n_i.(w - v_i)
//   s_B = the same with A and B swapped
//   two convex polygons are disjoint iff max(s_A, s_B) > 0 (2D SAT: the
//   edge normals of both are the only candidate axes), and when they overlap
//   -max(s_A, s_B) is the penetration depth along that axis (the MTV).
//   With radii r_A, r_B the depth is r_A + r_B - max(s_A, s_B): exact when
//   the cores overlap (the Minkowski sum of a convex set and a disc has the
//   same MTV direction, deeper by the radius).
//   The pair touches when -depth <= tolerance, except that for two polygons
//   with max(s_A, s_B) in (0, tolerance] the exact distance decides: there
//   the SAT gap may be the distance shrunk by cos(half a corner's exterior
//   angle) (PolygonsTouch, distance2d.cc).
//   The reference edge is the winning edge (A's unless B's wins by more than
//   a tenth of the tolerance, so the choice is stable); the incident edge is
//   the other core's edge most anti-parallel to the reference normal. The
//   incident edge is clipped to the reference edge's slab and each clipped
//   point is kept if its penetration is at least -tolerance; it is reported
//   midway between the two surfaces.
//
// ContactSmallPolygons is the same method for two polygons of at most 8
// vertices, laid out for SSE2: each polygon's vertices and normals fill two
// groups of four lanes per coordinate (lanes past the count, up to 8,
// repeat vertex 0 and normal 0, as ConvexPolygon pads them). B is moved into
// A's frame in registers and its lanes stored once (the only copy). Each
// edge lane of one polygon takes the min over all eight vertex lanes of
// the other, read as each group of four rotated by 0 to 3 lanes; a repeated
// lane holds the very same floats as the lane it repeats, so it changes no
// min and no max.
// The winning edge is the lowest lane equal to the largest separation (a
// compare and a movemask), which is the edge the scalar scan of
// MaxSeparation keeps (strict >, so the first of equal ones): a repeated
// lane comes after the lane it repeats, so it never wins. The incident edge
// is picked the same way with the lowest lane of the smallest dot product.
// The arithmetic is ContactSat's, operation for operation, so the results
// are the same floats; FitsSmallPolygons bounds the pose so that no value
// is NaN or infinite (the lowest-lane rule needs an ordered set of floats).
//
// ContactSmallPolygonsAvx, used where the CPU has AVX (checked once at run
// time; the binary stays baseline x86-64), runs the same SAT on eight
// lanes per instruction: each vertex of the other polygon is broadcast
// from memory (a load) against all eight faces, eight Dot8 per direction
// where SSE2 needs sixteen Dot4 and twelve shuffles, and B's transform takes
// half the instructions. AVX without FMA rounds every product and sum as
// SSE does, and the mins are exact, so the results are the same floats;
// the verdict, reference face and clip are the SSE2 version's code
// (FinishContact) on the 4-lane halves.
#include "geometry2d/sat2d.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#include <immintrin.h>
#endif

#include <bit>
#include <cstddef>
#include <cstdint>

namespace sator::internal2d {

namespace {

// ClipIncidentEdge's body, inlined into ContactSmallPolygons.
[[gnu::always_inline]] inline void ClipEdge(Vec2 n, Vec2 v1, Vec2 v2, Vec2 p1,
                                            Vec2 p2, float rr, float ri,
                                            float tolerance,
                                            ContactResult<2>& out) {
  // Written with selects rather than branches: on random contacts each
  // branch here would mispredict about half the time.
  const float plane = Dot(n, v1);
  const Vec2 t = LeftPerp(n);  // Unit direction v1 -> v2.
  const float lower = Dot(t, v1);
  const float upper = Dot(t, v2);
  const float a1 = Dot(t, p1);
  const float a2 = Dot(t, p2);
  const bool swap = a1 > a2;
  const Vec2 q = swap ? p2 : p1;  // The end with the smaller tangent value.
  const Vec2 e = swap ? p1 - p2 : p2 - p1;
  const float a_lo = std::min(a1, a2);
  const float a_hi = std::max(a1, a2);
  const float span = a_hi - a_lo;
  const float lo = std::max(a_lo, lower);
  const float hi = std::min(a_hi, upper);
  // Penetration of an incident core point p: r_ref + r_inc - n.(p - v1);
  // the reported point lies midway between the surfaces along n.
  const auto midway = [&](Vec2 p) {
    return p + (0.5f * (rr - (Dot(n, p) - plane) - ri)) * n;
  };
  const auto deep_enough = [&](Vec2 p) {
    return rr + ri - (Dot(n, p) - plane) >= -tolerance;
  };
  if (lo > hi || span <= 1e-6f * (std::fabs(a1) + std::fabs(a2))) {
    // The incident edge is outside the slab (only possible for a corner
    // contact within the tolerance) or is seen end-on (or is a single
    // point): report its deepest vertex.
    // It is reported even when shallower than -tolerance (a pair that
    // touches has a point; it lies within the tolerance of both shapes).
    const Vec2 p = Dot(n, p1) <= Dot(n, p2) ? p1 : p2;
    out.point_count = 1;
    out.points[0] = midway(p);
    return;
  }
  const Vec2 d = (1.0f / span) * e;
  const Vec2 c1 = q + (lo - a_lo) * d;
  const Vec2 c2 = q + (hi - a_lo) * d;
  bool keep1 = deep_enough(c1);
  const bool keep2 = hi > lo && deep_enough(c2);
  // Neither deep enough: the pair touches within the tolerance (its
  // deepest point is a vertex outside the slab, and the clipped part of the
  // incident edge, sloping away, lies just past -tolerance). Keep the
  // deeper clipped end: a touching result always has a point near both
  // surfaces.
  keep1 = keep1 || (!keep2 && Dot(n, c1) <= Dot(n, c2));
  const Vec2 m1 = midway(c1);
  const Vec2 m2 = midway(c2);
  out.points[0] = keep1 ? m1 : m2;
  out.points[1] = m2;
  out.point_count =
      std::max(1, static_cast<int>(keep1) + static_cast<int>(keep2));
}

}  // namespace

void ClipIncidentEdge(Vec2 n, Vec2 v1, Vec2 v2, Vec2 p1, Vec2 p2, float rr,
                      float ri, float tolerance, ContactResult<2>& out) {
  ClipEdge(n, v1, v2, p1, p2, rr, ri, tolerance, out);
}

#if defined(__SSE2__)
namespace {

// c ? x : y by a mask on the bits: GCC compiles a select of floats to a
// compare and a jump.
[[gnu::always_inline]] inline float SelectBits(bool c, float x, float y) {
  const std::uint32_t m = 0u - static_cast<std::uint32_t>(c);
  return std::bit_cast<float>((std::bit_cast<std::uint32_t>(x) & m) |
                              (std::bit_cast<std::uint32_t>(y) & ~m));
}

// A polygon of at most 8 vertices in registers: lanes 0-3 in [0], 4-7 in
// [1].
struct Lanes8 {
  __m128 x[2];
  __m128 y[2];
  __m128 nx[2];
  __m128 ny[2];
};

[[gnu::always_inline]] inline Lanes8 LoadLanes(const ConvexPolygon& p) {
  Lanes8 l;
  for (int g = 0; g < 2; ++g) {
    l.x[g] = _mm_load_ps(p.xs() + 4 * g);
    l.y[g] = _mm_load_ps(p.ys() + 4 * g);
    l.nx[g] = _mm_load_ps(p.normal_xs() + 4 * g);
    l.ny[g] = _mm_load_ps(p.normal_ys() + 4 * g);
  }
  return l;
}

// TransformCore (core2d.h) on the lanes, with its operations in its order:
// the vertices, then the normals.
[[gnu::always_inline]] inline void TransformVertexLanes(const Pose2& pose,
                                                        Lanes8& l) {
  const __m128 c = _mm_set1_ps(pose.rotation.c);
  const __m128 s = _mm_set1_ps(pose.rotation.s);
  const __m128 px = _mm_set1_ps(pose.position.x);
  const __m128 py = _mm_set1_ps(pose.position.y);
  for (int g = 0; g < 2; ++g) {
    const __m128 x = l.x[g];
    const __m128 y = l.y[g];
    l.x[g] = _mm_add_ps(_mm_sub_ps(_mm_mul_ps(c, x), _mm_mul_ps(s, y)), px);
    l.y[g] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(s, x), _mm_mul_ps(c, y)), py);
  }
}
[[gnu::always_inline]] inline void TransformNormalLanes(const Pose2& pose,
                                                        Lanes8& l) {
  const __m128 c = _mm_set1_ps(pose.rotation.c);
  const __m128 s = _mm_set1_ps(pose.rotation.s);
  for (int g = 0; g < 2; ++g) {
    const __m128 nx = l.nx[g];
    const __m128 ny = l.ny[g];
    l.nx[g] = _mm_sub_ps(_mm_mul_ps(c, nx), _mm_mul_ps(s, ny));
    l.ny[g] = _mm_add_ps(_mm_mul_ps(s, nx), _mm_mul_ps(c, ny));
  }
}

// v's lanes permuted as _mm_shuffle_ps(v, v, kImm) would, by pshufd: it
// writes a new register, where shufps needs a copy of v first.
template <int kImm>
[[gnu::always_inline]] inline __m128 Permute(__m128 v) {
  return _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(v), kImm));
}

// v's lanes rotated down by kShift: lane i holds v's lane (i + kShift) mod 4.
template <int kShift>
[[gnu::always_inline]] inline __m128 Rotate(__m128 v) {
  return Permute<_MM_SHUFFLE((kShift + 3) & 3, (kShift + 2) & 3,
                             (kShift + 1) & 3, kShift)>(v);
}

// (nx, ny) . (wx, wy) lane by lane, in Dot's order of operations.
[[gnu::always_inline]] inline __m128 Dot4(__m128 nx, __m128 ny, __m128 wx,
                                          __m128 wy) {
  return _mm_add_ps(_mm_mul_ps(nx, wx), _mm_mul_ps(ny, wy));
}

// The lowest of the eight lanes whose compare masks (eq0 for lanes 0-3, eq1
// for 4-7) are set.
[[gnu::always_inline]] inline int LowestLane(__m128 eq0, __m128 eq1) {
  const unsigned bits = static_cast<unsigned>(_mm_movemask_ps(eq0)) |
                        static_cast<unsigned>(_mm_movemask_ps(eq1)) << 4;
  return __builtin_ctz(bits | 0x100u);  // Never empty for ordered floats.
}

// The lanes of the 16-byte aligned p[0..3] rotated down by kShift (Rotate),
// read straight from memory by pshufd.
template <int kShift>
[[gnu::always_inline]] inline __m128 RotateLoad(const float* p) {
  return Rotate<kShift>(_mm_load_ps(p));
}

// The largest of the eight separations sep[0] (lanes 0-3) and sep[1]
// (lanes 4-7), and its lowest lane: the edge MaxSeparation's scan keeps
// (strict >, so the first of equal ones).
[[gnu::always_inline]] inline AxisSeparation BestLane(const __m128 (&sep)[2]) {
  // The largest lane, in every lane.
  __m128 top = _mm_max_ps(sep[0], sep[1]);
  top = _mm_max_ps(top, _mm_shuffle_ps(top, top, _MM_SHUFFLE(1, 0, 3, 2)));
  top = _mm_max_ps(top, _mm_shuffle_ps(top, top, _MM_SHUFFLE(2, 3, 0, 1)));
  AxisSeparation best;
  best.edge = LowestLane(_mm_cmpeq_ps(sep[0], top), _mm_cmpeq_ps(sep[1], top));
  best.separation = _mm_cvtss_f32(top);
  return best;
}

// MaxSeparation (sat2d.h) of a polygon's faces, normals (nx, ny) and
// offsets n . v in registers, against the vertices whose eight lanes wx, wy
// hold (16-byte aligned).
//
// Each face lane meets every vertex once: a group of four vertices is read
// rotated by 0, 1, 2 and 3 lanes (pshufd from memory: one instruction, no
// register held for the group), each rotation serving both groups of
// faces, and each lane keeps a running min. Broadcasting each vertex
// instead took sixteen shuffles per direction and kept all of them live,
// which GCC spilled. The products are MaxSeparation's and min is exact, so
// the minimum is the same value in any order; at most the sign of a zero
// min may differ, which changes no output (0 - (+0) and 0 - (-0) are both
// +0 and compare equal).
[[gnu::always_inline]] inline AxisSeparation MaxSeparationLanes(
    const __m128 (&nx)[2], const __m128 (&ny)[2], const __m128 (&offset)[2],
    const float* wx, const float* wy) {
  __m128 m[2][2];  // [face group][vertex group]
  for (int h = 0; h < 2; ++h) {
    const float* x = wx + 4 * h;
    const float* y = wy + 4 * h;
    const __m128 x0 = _mm_load_ps(x);
    const __m128 y0 = _mm_load_ps(y);
    for (int g = 0; g < 2; ++g) m[g][h] = Dot4(nx[g], ny[g], x0, y0);
    const __m128 x1 = RotateLoad<1>(x);
    const __m128 y1 = RotateLoad<1>(y);
    for (int g = 0; g < 2; ++g) {
      m[g][h] = _mm_min_ps(m[g][h], Dot4(nx[g], ny[g], x1, y1));
    }
    const __m128 x2 = RotateLoad<2>(x);
    const __m128 y2 = RotateLoad<2>(y);
    for (int g = 0; g < 2; ++g) {
      m[g][h] = _mm_min_ps(m[g][h], Dot4(nx[g], ny[g], x2, y2));
    }
    const __m128 x3 = RotateLoad<3>(x);
    const __m128 y3 = RotateLoad<3>(y);
    for (int g = 0; g < 2; ++g) {
      m[g][h] = _mm_min_ps(m[g][h], Dot4(nx[g], ny[g], x3, y3));
    }
  }
  __m128 sep[2];
  for (int g = 0; g < 2; ++g) {
    sep[g] = _mm_sub_ps(_mm_min_ps(m[g][0], m[g][1]), offset[g]);
  }
  return BestLane(sep);
}

// The incident edge of ClipContactPoints: the lowest lane of the smallest
// n . normal.
[[gnu::always_inline]] inline int IncidentEdge(Vec2 n, const Lanes8& inc) {
  const __m128 x = _mm_set1_ps(n.x);
  const __m128 y = _mm_set1_ps(n.y);
  __m128 d[2];
  for (int g = 0; g < 2; ++g) {
    d[g] = _mm_add_ps(_mm_mul_ps(x, inc.nx[g]), _mm_mul_ps(y, inc.ny[g]));
  }
  __m128 low = _mm_min_ps(d[0], d[1]);
  low = _mm_min_ps(low, _mm_shuffle_ps(low, low, _MM_SHUFFLE(1, 0, 3, 2)));
  low = _mm_min_ps(low, _mm_shuffle_ps(low, low, _MM_SHUFFLE(2, 3, 0, 1)));
  return LowestLane(_mm_cmpeq_ps(d[0], low), _mm_cmpeq_ps(d[1], low));
}

// ClipContactPoints for the reference face `ref_edge` (normal n) of the
// polygon with vertex arrays ref_x, ref_y and the incident polygon with
// normal lanes `inc` and vertex arrays inc_x, inc_y.
[[gnu::always_inline]] inline void ClipLanes(
    Vec2 n, const float* ref_x, const float* ref_y, int ref_count, int ref_edge,
    const Lanes8& inc, const float* inc_x, const float* inc_y, int inc_count,
    float tolerance, ContactResult<2>& result) {
  // Reference edge v1 -> v2, incident edge p1 -> p2.
  const int ref_next = ref_edge + 1 == ref_count ? 0 : ref_edge + 1;
  const int inc_edge = IncidentEdge(n, inc);
  const int inc_next = inc_edge + 1 == inc_count ? 0 : inc_edge + 1;
  ClipEdge(n, {ref_x[ref_edge], ref_y[ref_edge]},
           {ref_x[ref_next], ref_y[ref_next]},
           {inc_x[inc_edge], inc_y[inc_edge]},
           {inc_x[inc_next], inc_y[inc_next]}, 0.0f, 0.0f, tolerance, result);
  if (result.point_count == 0) {
    // ContactSat's guard (cannot happen: ClipEdge keeps a point).
    result.point_count = 1;
    result.points[0] = {inc_x[0], inc_y[0]};
  }
}

// ContactSmallPolygons after the SAT: the verdict, a separated pair's
// normal, or the reference face and the clip. bx, by hold B's vertices in
// A's frame, bnx, bny its normals, and lb its normals in registers.
[[gnu::always_inline]] inline void FinishContact(
    const ConvexPolygon& a, const ConvexPolygon& b, AxisSeparation sa,
    AxisSeparation sb, const float* bx, const float* by, const float* bnx,
    const float* bny, const Lanes8& lb, float tolerance,
    ContactResult<2>& result) {
  // ContactSat's verdict (with the exact distance in the band, on the same
  // vertices as the core path's) and reference face choice (sat2d.h).
  const float best = std::max(sa.separation, sb.separation);
  bool touching = 0.0f - best >= -tolerance;
  if (touching && best > 0.0f) [[unlikely]] {
    touching =
        PolygonsTouch(a.xs(), a.ys(), a.count(), bx, by, b.count(), tolerance);
  }
  if (!touching) {
    // Separated: the face is B's when sb > sa, so its separation is best.
    // Which one is a coin toss on random pairs: the normal is selected by
    // a mask, not a branch (a mispredicted branch here cost more than the
    // two loads and the select).
    const bool b_face = sb.separation > sa.separation;
    const Vec2 na = a.normal(sa.edge);
    const Vec2 nb{bnx[sb.edge], bny[sb.edge]};
    result.normal = {SelectBits(b_face, -nb.x, na.x),
                     SelectBits(b_face, -nb.y, na.y)};
    result.depth = 0.0f - best;  // Radii 0.
    return;
  }
  result.overlapping = true;
  // One clip per reference polygon, each reading its polygons' arrays in
  // place (no pointer or register selected on flip).
  if (sb.separation > sa.separation + kFaceBias * tolerance) {
    const Vec2 n{bnx[sb.edge], bny[sb.edge]};
    result.normal = -n;
    result.depth = 0.0f - sb.separation;  // Radii 0.
    // A's normals read again from the polygon, so that its lanes need not
    // stay in registers through the SAT.
    ClipLanes(n, bx, by, b.count(), sb.edge, LoadLanes(a), a.xs(), a.ys(),
              a.count(), tolerance, result);
  } else {
    const Vec2 n = a.normal(sa.edge);
    result.normal = n;
    result.depth = 0.0f - sa.separation;  // Radii 0.
    ClipLanes(n, a.xs(), a.ys(), a.count(), sa.edge, lb, bx, by, b.count(),
              tolerance, result);
  }
}

}  // namespace

ContactResult<2> ContactSmallPolygons(const ConvexPolygon& a,
                                      const ConvexPolygon& b,
                                      const Pose2& b_in_a, float tolerance) {
  ContactResult<2> result;
  const Lanes8 la = LoadLanes(a);
  Lanes8 lb = LoadLanes(b);
  // B's lanes in memory: its vertices are read from there by the SAT
  // (rotated, see MaxSeparationLanes), and single vertices and normals by
  // the clip. Vertices first and A's faces against them, then B's normals.
  alignas(16) float bx[8];
  alignas(16) float by[8];
  alignas(16) float bnx[8];
  alignas(16) float bny[8];
  TransformVertexLanes(b_in_a, lb);
  for (std::size_t g = 0; g < 2; ++g) {
    _mm_store_ps(bx + 4 * g, lb.x[g]);
    _mm_store_ps(by + 4 * g, lb.y[g]);
  }
  __m128 offset[2];
  for (int g = 0; g < 2; ++g) {
    offset[g] = Dot4(la.nx[g], la.ny[g], la.x[g], la.y[g]);
  }
  const AxisSeparation sa = MaxSeparationLanes(la.nx, la.ny, offset, bx, by);
  TransformNormalLanes(b_in_a, lb);
  for (std::size_t g = 0; g < 2; ++g) {
    _mm_store_ps(bnx + 4 * g, lb.nx[g]);
    _mm_store_ps(bny + 4 * g, lb.ny[g]);
    offset[g] = Dot4(lb.nx[g], lb.ny[g], lb.x[g], lb.y[g]);
  }
  // A's lanes 4-7 are in place (padded up to 8 for fewer vertices).
  const AxisSeparation sb =
      MaxSeparationLanes(lb.nx, lb.ny, offset, a.xs(), a.ys());
  FinishContact(a, b, sa, sb, bx, by, bnx, bny, lb, tolerance, result);
  return result;
}

namespace {

// (nx, ny) . (wx, wy) on eight lanes, in Dot's order of operations.
[[gnu::target("avx"), gnu::always_inline]] inline __m256 Dot8(__m256 nx,
                                                              __m256 ny,
                                                              __m256 wx,
                                                              __m256 wy) {
  return _mm256_add_ps(_mm256_mul_ps(nx, wx), _mm256_mul_ps(ny, wy));
}

// min over j < 4 of (nx, ny) . (wx[j], wy[j]) on eight lanes, each vertex
// broadcast from memory, the mins as a tree.
[[gnu::target("avx"), gnu::always_inline]] inline __m256 MinDot4(
    __m256 nx, __m256 ny, const float* wx, const float* wy) {
  __m256 d[4];
  for (int j = 0; j < 4; ++j) {
    d[j] =
        Dot8(nx, ny, _mm256_broadcast_ss(wx + j), _mm256_broadcast_ss(wy + j));
  }
  return _mm256_min_ps(_mm256_min_ps(d[0], d[1]), _mm256_min_ps(d[2], d[3]));
}

// MaxSeparation of eight faces (normals nx, ny, offsets n . v) against the
// eight vertex lanes wx, wy in memory: each vertex broadcast from memory (a
// load, no shuffle) against all eight faces at once; the min is exact, so
// the same value in any order (see MaxSeparationLanes).
[[gnu::target("avx"), gnu::always_inline]] inline AxisSeparation MaxSeparation8(
    __m256 nx, __m256 ny, __m256 offset, const float* wx, const float* wy) {
  // A tree of mins, three deep (a running min was seven deep, and this
  // chain sets when the verdict and the reference face are known), taken
  // in fours as the products come so that few registers are live.
  const __m256 m =
      _mm256_min_ps(MinDot4(nx, ny, wx, wy), MinDot4(nx, ny, wx + 4, wy + 4));
  const __m256 sep8 = _mm256_sub_ps(m, offset);
  const __m128 sep[2] = {_mm256_castps256_ps128(sep8),
                         _mm256_extractf128_ps(sep8, 1)};
  return BestLane(sep);
}

}  // namespace

// The SAT of ContactSmallPolygons on eight lanes per instruction (AVX
// without FMA: the products and sums are SSE's, rounded alike): B moved
// into A's frame and each direction's 64 dot products in eight Dot8 of
// one broadcast vertex (a load) against all eight faces, where the SSE2
// version takes sixteen Dot4 and twelve shuffles. The rest (verdict,
// reference face, clip) is FinishContact on 4-lane halves, VEX-encoded.
[[gnu::target("avx")]] ContactResult<2> ContactSmallPolygonsAvx(
    const ConvexPolygon& a, const ConvexPolygon& b, const Pose2& b_in_a,
    float tolerance) {
  ContactResult<2> result;
  const __m256 c = _mm256_set1_ps(b_in_a.rotation.c);
  const __m256 s = _mm256_set1_ps(b_in_a.rotation.s);
  const __m256 px = _mm256_set1_ps(b_in_a.position.x);
  const __m256 py = _mm256_set1_ps(b_in_a.position.y);
  alignas(32) float bx[8];
  alignas(32) float by[8];
  alignas(32) float bnx[8];
  alignas(32) float bny[8];
  // TransformCore's operations in its order (TransformVertexLanes).
  const __m256 x = _mm256_loadu_ps(b.xs());
  const __m256 y = _mm256_loadu_ps(b.ys());
  const __m256 tx = _mm256_add_ps(
      _mm256_sub_ps(_mm256_mul_ps(c, x), _mm256_mul_ps(s, y)), px);
  const __m256 ty = _mm256_add_ps(
      _mm256_add_ps(_mm256_mul_ps(s, x), _mm256_mul_ps(c, y)), py);
  _mm256_store_ps(bx, tx);
  _mm256_store_ps(by, ty);
  const __m256 anx = _mm256_loadu_ps(a.normal_xs());
  const __m256 any = _mm256_loadu_ps(a.normal_ys());
  const AxisSeparation sa = MaxSeparation8(
      anx, any,
      Dot8(anx, any, _mm256_loadu_ps(a.xs()), _mm256_loadu_ps(a.ys())), bx, by);
  const __m256 nx = _mm256_loadu_ps(b.normal_xs());
  const __m256 ny = _mm256_loadu_ps(b.normal_ys());
  const __m256 tnx = _mm256_sub_ps(_mm256_mul_ps(c, nx), _mm256_mul_ps(s, ny));
  const __m256 tny = _mm256_add_ps(_mm256_mul_ps(s, nx), _mm256_mul_ps(c, ny));
  _mm256_store_ps(bnx, tnx);
  _mm256_store_ps(bny, tny);
  const AxisSeparation sb =
      MaxSeparation8(tnx, tny, Dot8(tnx, tny, tx, ty), a.xs(), a.ys());
  Lanes8 lb;
  lb.x[0] = _mm256_castps256_ps128(tx);
  lb.x[1] = _mm256_extractf128_ps(tx, 1);
  lb.y[0] = _mm256_castps256_ps128(ty);
  lb.y[1] = _mm256_extractf128_ps(ty, 1);
  lb.nx[0] = _mm256_castps256_ps128(tnx);
  lb.nx[1] = _mm256_extractf128_ps(tnx, 1);
  lb.ny[0] = _mm256_castps256_ps128(tny);
  lb.ny[1] = _mm256_extractf128_ps(tny, 1);
  FinishContact(a, b, sa, sb, bx, by, bnx, bny, lb, tolerance, result);
  return result;
}

bool CpuHasAvx() {
  // GCC's and Clang's CPU check; it also asks the OS (XGETBV) whether it
  // saves the YMM registers.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx") != 0;
}
#else
ContactResult<2> ContactSmallPolygons(const ConvexPolygon& a,
                                      const ConvexPolygon& b,
                                      const Pose2& b_in_a, float tolerance) {
  Core ca;
  Core cb;
  MakePolygonCore(a, ca);
  MakePolygonCore(b, cb);
  TransformCore(b_in_a, cb);
  return ContactSat(ca, cb, tolerance);
}

ContactResult<2> ContactSmallPolygonsAvx(const ConvexPolygon& a,
                                         const ConvexPolygon& b,
                                         const Pose2& b_in_a, float tolerance) {
  return ContactSmallPolygons(a, b, b_in_a, tolerance);
}

bool CpuHasAvx() { return false; }
#endif

}  // namespace sator::internal2d
