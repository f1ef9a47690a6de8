// Round shapes by the closest-feature axis; Ericson, "Real-Time Collision
// Detection" (2005), 4.3.2 and chapter 5.
#include "convex_round.h"

#include "convex_closest.h"
#include "sat_polytope.h"

namespace sator::internal {

ContactResult<3> ContactRound(const PolyRef& a, const PolyRef& b) {
  ContactResult<3> result;
  Vec3 pa;
  Vec3 pb;
  const float d = ClosestCorePoints(a, b, &pa, &pb);
  const float radii = a.radius + b.radius;
  if (d > kCoreContactFraction * radii) {
    const Vec3 n = (1.0f / d) * (pb - pa);
    result.normal = n;
    result.depth = radii - d;
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
