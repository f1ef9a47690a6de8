// Private: the separating axis test on rounded cores (core2d.h).
#ifndef SATOR_CORE_SRC_GEOMETRY2D_SAT2D_H_
#define SATOR_CORE_SRC_GEOMETRY2D_SAT2D_H_

#include <limits>

#include "geometry2d/core2d.h"
#include "sator/core/query_types.h"

namespace sator::internal2d {

inline constexpr float kInfinity = std::numeric_limits<float>::infinity();
// The reference face is A's unless B's separates more by kFaceBias times
// the tolerance: a stable choice under round-off.
inline constexpr float kFaceBias = 0.1f;

struct AxisSeparation {
  int edge = -1;  // Edge of the first core, -1 when it has none.
  float separation = -kInfinity;
};

// The edge of `a` whose outward normal separates `b` the most: for each edge
// i, min over b's vertices of n_i . (w - v_i); the largest over i. Both cores
// in the same frame; radii ignored.
inline AxisSeparation MaxSeparation(const Core& a, const Core& b) {
  AxisSeparation best;
  const int edges = a.EdgeCount();
  for (int i = 0; i < edges; ++i) {
    const float nx = a.nx[i];
    const float ny = a.ny[i];
    const float s = MinDot(b, nx, ny) - (nx * a.vx[i] + ny * a.vy[i]);
    if (s > best.separation) best = {i, s};
  }
  return best;
}

// True when some edge normal of `a` separates `b` by more than `threshold`.
inline bool AnyAxisSeparates(const Core& a, const Core& b, float threshold) {
  const int edges = a.EdgeCount();
  for (int i = 0; i < edges; ++i) {
    const float nx = a.nx[i];
    const float ny = a.ny[i];
    if (MinDot(b, nx, ny) > nx * a.vx[i] + ny * a.vy[i] + threshold) {
      return true;
    }
  }
  return false;
}

// SAT and clipping for two cores in the same frame (A's), radii included.
// Exact MTV when the cores overlap, or when neither core is round; contact
// points by clipping the incident edge against the reference edge.
ContactResult<2> ContactSat(const Core& a, const Core& b, float tolerance);

// Clips the incident edge [p1, p2] (p1 == p2 for a point) against the
// reference edge v1 -> v2 with outward unit normal n; rr and ri are the
// radii. Writes up to two points into `out`.
void ClipIncidentEdge(Vec2 n, Vec2 v1, Vec2 v2, Vec2 p1, Vec2 p2, float rr,
                      float ri, float tolerance, ContactResult<2>& out);

// Contact points for a known reference edge (`ref_edge` of `ref`), kept when
// their penetration is at least -tolerance. Writes into `out` (normal and
// depth untouched).
void ClipContactPoints(const Core& ref, int ref_edge, const Core& inc,
                       float tolerance, ContactResult<2>& out);

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_GEOMETRY2D_SAT2D_H_
