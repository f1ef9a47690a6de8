// Round shapes by the closest-feature axis; Ericson, "Real-Time Collision
// Detection" (2005), 4.3.2 and chapter 5.
#include "convex_round.h"

#include "convex_closest.h"
#include "sat_polytope.h"

namespace sator::internal {
namespace {

// The unit direction from tie i's point of A to its point of B; false for a
// pair of coincident points.
bool TieDirection(const CorePairs& ties, int i, Vec3* u) {
  const Vec3 diff = ties.pb[i] - ties.pa[i];
  const float len = Length(diff);
  if (!(len > 0.0f)) return false;
  *u = (1.0f / len) * diff;
  return true;
}

// The gap between the cores along the unit direction u (B's lowest point
// minus A's highest; negative when their projections overlap).
float CoreGap(const PolyRef& a, const PolyRef& b, Vec3 u) {
  float a_lo;
  float a_hi;
  float b_lo;
  float b_hi;
  Project(a, u, &a_lo, &a_hi);
  Project(b, u, &b_lo, &b_hi);
  return b_lo - a_hi;
}

}  // namespace

ContactResult<3> ContactRound(const PolyRef& a, const PolyRef& b) {
  ContactResult<3> result;
  Vec3 pa;
  Vec3 pb;
  CorePairs ties;
  const float d = ClosestCorePoints(a, b, &pa, &pb, &ties);
  const float radii = a.radius + b.radius;
  if (d > kCoreContactFraction * radii) {
    Vec3 n = (1.0f / d) * (pb - pa);
    float depth = radii - d;
    if (depth >= 0.0f &&
        (a.kind != CoreKind::kPoint || b.kind != CoreKind::kPoint)) {
      // The direction of pa -> pb carries the round-off of the closest
      // points divided by d: of the coordinates (about 1e-7 of their size)
      // when d is short, and more for nearly parallel segment pairs (Ericson
      // 5.1.9 divides by the squared sine of their angle). Near a face the
      // tilt costs overlap in proportion to the face's size. So measure this
      // axis by projection, measure the cores' SAT axis too, and keep the
      // one with less overlap: both are exact along their own axis. (Apart,
      // the closest points give the exact distance, which SAT only bounds.)
      // Near-ties among the candidate pairs (a vertex and a point of an
      // edge next to it, say) have lengths equal in float but directions
      // apart by the round-off over d: measure each.
      depth = 3.0e38f;
      for (int i = 0; i < ties.count; ++i) {
        Vec3 u;
        if (!TieDirection(ties, i, &u)) continue;
        const float along = radii - CoreGap(a, b, u);
        if (along < depth) {
          depth = along;
          n = u;
          pa = ties.pa[i];
          pb = ties.pb[i];
        }
      }
      if (ties.count == 0) depth = radii - d;
      const SatAxis axis = SatQuery(a, b, /*early_out=*/false);
      if (axis.kind != AxisKind::kNone && radii - axis.separation < depth) {
        n = axis.normal;
        depth = radii - axis.separation;
      }
    } else if (depth < 0.0f && ties.count > 1) {
      // Apart, the distance is exact, but near-tied candidate pairs (a point
      // where the segment crosses a triangle's plane and the exact
      // edge-edge pair, say, equal in float) point apart by their offset
      // over d. The true direction separates the cores by the distance
      // and every other by less, so keep the pair whose direction
      // separates them most.
      float best_gap = -3.0e38f;
      for (int i = 0; i < ties.count; ++i) {
        Vec3 u;
        if (!TieDirection(ties, i, &u)) continue;
        const float gap = CoreGap(a, b, u);
        if (gap > best_gap) {
          best_gap = gap;
          n = u;
          pa = ties.pa[i];
          pb = ties.pb[i];
        }
      }
    }
    result.normal = n;
    result.depth = depth;
    result.overlapping = result.depth >= 0.0f;
    if (result.overlapping) {
      // Midway between A's surface point and B's.
      result.points[0] = 0.5f * ((pa + a.radius * n) + (pb - b.radius * n));
      result.point_count = 1;
    }
    return result;
  }
  // The cores touch or intersect: SAT on the cores, plus the radii.
  const SatAxis axis = SatQuery(a, b, /*early_out=*/false);
  Vec3 n = axis.normal;
  float core_depth = -axis.separation;
  if (axis.kind == AxisKind::kNone) {
    // No axis at all cannot happen for valid cores; keep a defined answer.
    n = {0.0f, 0.0f, 1.0f};
    core_depth = 0.0f;
  }
  result.normal = n;
  result.depth = core_depth + radii;
  result.overlapping = result.depth >= 0.0f;
  if (result.overlapping) {
    // B's deepest surface point towards A, moved half the depth into A.
    const Vec3 v = b.vertices[SupportIndex(b, -n)] - b.radius * n;
    result.points[0] = v + (0.5f * result.depth) * n;
    result.point_count = 1;
  }
  return result;
}

bool OverlapRound(const PolyRef& a, const PolyRef& b) {
  Vec3 pa;
  Vec3 pb;
  return ClosestCorePoints(a, b, &pa, &pb) <= a.radius + b.radius;
}

}  // namespace sator::internal
