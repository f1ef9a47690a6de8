// Private: the separating axis test on rounded cores (core2d.h).
#ifndef SATOR_CORE_SRC_COLLIDE2D_SAT2D_H_
#define SATOR_CORE_SRC_COLLIDE2D_SAT2D_H_

#include <algorithm>
#include <limits>

#include "collide2d/core2d.h"
#include "collide2d/distance2d.h"
#include "sator/core/query_types.h"
#include "simd/float4.h"

namespace sator::internal2d {

inline constexpr float kInfinity = std::numeric_limits<float>::infinity();
// The reference face is A's unless B's separates more by kFaceBias times
// the tolerance: a stable choice under round-off.
inline constexpr float kFaceBias = 0.1f;

struct AxisSeparation {
  int edge = -1;  // Edge of the first core, -1 when it has none.
  float separation = -kInfinity;
};

// The separations of four of a's edges, k to k + 3, from b: for each edge
// i, min over b's vertices w of n_i . (w - v_i). Both in the same frame;
// radii ignored. Padded lanes repeat edge 0, so every lane is a real axis.
template <typename A, typename B>
inline simd::Float4 EdgeSeparations4(const A& a, int k, const B& b) {
  using simd::Float4;
  const Float4 nx = Float4::Load(a.nx + k);
  const Float4 ny = Float4::Load(a.ny + k);
  const Float4 offset =
      nx * Float4::Load(a.vx + k) + ny * Float4::Load(a.vy + k);
  Float4 m = nx * b.vx[0] + ny * b.vy[0];
  for (int j = 1; j < b.count; ++j) m = Min(m, nx * b.vx[j] + ny * b.vy[j]);
  return m - offset;
}

// The edge of `a` whose outward normal separates `b` the most (the first
// of equal ones), four edges at a time against every vertex of b: vertical
// mins only, no horizontal reduction in the inner loop. A and B are Core or
// PolygonRef.
template <typename A, typename B>
inline AxisSeparation MaxSeparation(const A& a, const B& b) {
  AxisSeparation best;
  const int edges = a.EdgeCount();
  for (int k = 0; k < edges; k += 4) {
    const simd::Float4 sep = EdgeSeparations4(a, k, b);
    const int lanes = std::min(4, edges - k);
    for (int l = 0; l < lanes; ++l) {
      if (sep[l] > best.separation) best = {k + l, sep[l]};
    }
  }
  return best;
}

// The edge normals of `a` against `b`: false as soon as one separates by
// more than `threshold`; otherwise true, with `highest` raised lane-wise to
// the separations seen (its largest lane is the best edge's separation).
template <typename A, typename B>
inline bool AxesWithin(const A& a, const B& b, float threshold,
                       simd::Float4& highest) {
  const simd::Float4 limit = simd::Float4::Splat(threshold);
  for (int k = 0; k < a.EdgeCount(); k += 4) {
    const simd::Float4 sep = EdgeSeparations4(a, k, b);
    if (simd::AnyLane(sep > limit)) return false;
    highest = Max(highest, sep);
  }
  return true;
}

// The touching verdict of two convex polygons (3 or more vertices each,
// radius 0, in the same frame) from the SAT in both directions: apart if an
// edge normal separates by more than the tolerance, touching if none
// separates at all, and otherwise (the band (0, tolerance]) by their exact
// distance (PolygonsTouch, distance2d.h).
template <typename A, typename B>
inline bool PolygonsOverlap(const A& a, const B& b, float tolerance) {
  simd::Float4 highest = simd::Float4::Splat(-kInfinity);
  if (!AxesWithin(a, b, tolerance, highest) ||
      !AxesWithin(b, a, tolerance, highest)) {
    return false;
  }
  if (!simd::AnyLane(highest > simd::Float4::Splat(0.0f))) [[likely]] {
    return true;
  }
  return PolygonsTouch(a.vx, a.vy, a.count, b.vx, b.vy, b.count, tolerance);
}

// Clips the incident edge [p1, p2] (p1 == p2 for a point) against the
// reference edge v1 -> v2 with outward unit normal n; rr and ri are the
// radii. Writes one or two points into `out`: those of penetration >=
// -tolerance, or else the deepest one alone.
void ClipIncidentEdge(Vec2 n, Vec2 v1, Vec2 v2, Vec2 p1, Vec2 p2, float rr,
                      float ri, float tolerance, ContactResult<2>& out);

// Contact points for a known reference edge (`ref_edge` of `ref`), kept when
// their penetration is at least -tolerance. Writes into `out` (normal and
// depth untouched).
template <typename R, typename I>
void ClipContactPoints(const R& ref, int ref_edge, const I& inc,
                       float tolerance, ContactResult<2>& out) {
  const Vec2 n = ref.n(ref_edge);
  // Incident edge: the most anti-parallel normal (a point for a circle).
  int inc_edge = 0;
  float lowest = kInfinity;
  for (int i = 0; i < inc.EdgeCount(); ++i) {
    const float d = Dot(n, inc.n(i));
    inc_edge = d < lowest ? i : inc_edge;
    lowest = std::min(lowest, d);
  }
  const Vec2 p1 = inc.v(inc_edge);
  const Vec2 p2 = inc.count == 1 ? p1 : inc.v(inc.Next(inc_edge));
  ClipIncidentEdge(n, ref.v(ref_edge), ref.v(ref.Next(ref_edge)), p1, p2,
                   ref.radius, inc.radius, tolerance, out);
}

// SAT and clipping for two cores in the same frame (A's), radii included.
// Exact MTV when the cores overlap, or when neither core is round; contact
// points by clipping the incident edge against the reference edge. The
// reference is A's edge unless B's separates more by kFaceBias times the
// tolerance (sat2d.cc explains the method).
template <typename A, typename B>
ContactResult<2> ContactSat(const A& a, const B& b, float tolerance) {
  ContactResult<2> result;
  const AxisSeparation sa = MaxSeparation(a, b);
  const AxisSeparation sb = MaxSeparation(b, a);
  const float rsum = a.radius + b.radius;
  // The verdict comes from the largest separation itself; the face bias
  // only picks the reference face of a pair that touches (else B's axis
  // separating by up to 1.1 x tolerance, A's by less than the tolerance,
  // would be called overlapping, which Overlap denies).
  const float best = std::max(sa.separation, sb.separation);
  bool touching = rsum - best >= -tolerance;
  if (touching && best > 0.0f && a.count >= 3 && b.count >= 3) [[unlikely]] {
    // Two polygons (radius 0) apart by at most the tolerance along every
    // edge normal: their exact distance decides (PolygonsTouch).
    touching =
        PolygonsTouch(a.vx, a.vy, a.count, b.vx, b.vy, b.count, tolerance);
  }
  const bool flip = touching
                        ? sb.separation > sa.separation + kFaceBias * tolerance
                        : sb.separation > sa.separation;
  const AxisSeparation& s = flip ? sb : sa;
  if (s.edge < 0) {
    // Two points (both cores single vertices): the caller handles circles.
    result.normal = {1.0f, 0.0f};
    result.depth = rsum;
    result.overlapping = true;
    result.point_count = 1;
    result.points[0] = a.v(0);
    return result;
  }
  const Vec2 n = flip ? b.n(s.edge) : a.n(s.edge);
  result.normal = flip ? -n : n;
  result.depth = rsum - s.separation;
  // The same as depth >= -tolerance but in the band, where the exact
  // distance may say apart with a depth in [-tolerance, 0).
  result.overlapping = touching;
  if (!result.overlapping) return result;
  if (flip) {
    ClipContactPoints(b, s.edge, a, tolerance, result);
  } else {
    ClipContactPoints(a, s.edge, b, tolerance, result);
  }
  if (result.point_count == 0) {
    // Cannot happen: ClipIncidentEdge always keeps at least one point.
    result.point_count = 1;
    result.points[0] = flip ? a.v(0) : b.v(0);
  }
  return result;
}

// Contact of any two cores in the same frame: ContactSat for two polytopes,
// ContactSmallCore (the exact distance) when one core is a point or a
// segment.
ContactResult<2> ContactCores(const Core& a, const Core& b, float tolerance);

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_COLLIDE2D_SAT2D_H_
