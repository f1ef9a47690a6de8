// Private: pairs with a round shape (sphere or capsule) on either side.
//
// A round shape is its core (a point or a segment) grown by its radius, so
// for cores at distance d the shapes are at distance d - r_a - r_b along the
// line of the closest points (the closest-feature axis; Ericson, "Real-Time
// Collision Detection", 4.3 and 5.1). That is exact while the cores are
// apart. Once they intersect, the penetration depth of the rounded shapes
// is the cores' SAT penetration depth plus r_a + r_b (growing both shapes by
// a ball grows the Minkowski difference by a ball of the summed radius, and
// the depth of a point inside a polytope grows by exactly that radius), so
// the cores go through a SAT: for a point or segment core against a
// polytope core its axes (the polytope's faces, the segment crossed with
// each edge) are formed and measured in double (convex_round.cc). Two
// point or segment cores need no SAT: their Minkowski difference (a point,
// a segment or a parallelogram) has no interior, so their penetration depth
// is 0 and the depth is r_a + r_b - d for every d >= 0.
#ifndef SATOR_CORE_SRC_COLLIDE3D_CONVEX_ROUND_H_
#define SATOR_CORE_SRC_COLLIDE3D_CONVEX_ROUND_H_

#include <cmath>

#include "convex_polytope.h"
#include "sator/core/query_types.h"
#include "sator/core/vec.h"

namespace sator::internal {

inline bool IsRound(const PolyRef& p) {
  return p.kind == CoreKind::kPoint || p.kind == CoreKind::kSegment;
}

// Below this core distance, relative to r_a + r_b, the closest-point
// direction is too noisy in float and the cores' SAT (in double) gives the
// normal instead, with the closest-point direction as a further candidate
// while the cores are apart. Not for two point or segment cores (see
// above), which measure the axis perpendicular to both instead.
inline constexpr float kCoreContactFraction = 1e-5f;

// The point of a point core p (`segment` false: q is ignored) or segment
// core [p, q] deepest along u. Where a segment lies across u (its ends
// level within round-off), the closest core point `closest` (on the
// segment, where it meets or nearly meets the other core) instead of an
// end, which may lie beyond the other shape. For the contact point of the
// generic path (RoundCorePoint) and of the box's typed path (round_box.cc).
inline Vec3 DeepestCorePoint(Vec3 p, Vec3 q, bool segment, Vec3 u,
                             Vec3 closest) {
  if (!segment) return p;
  const float along = Dot(q - p, u);
  if (std::fabs(along) <= 1e-6f * Length(q - p)) return closest;
  return along > 0.0f ? q : p;
}

// Both in one frame (A's); at least one of a, b is round.
ContactResult<3> ContactRound(const PolyRef& a, const PolyRef& b);
bool OverlapRound(const PolyRef& a, const PolyRef& b);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_CONVEX_ROUND_H_
