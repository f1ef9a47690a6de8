// Round shapes by the closest-feature axis; Ericson, "Real-Time Collision
// Detection" (2005), 4.3.2 and chapter 5.
#include "convex_round.h"

#include "convex_closest.h"
#include "double_vec3.h"
#include "sat_polytope.h"

namespace sator::internal {
namespace {

// The interval of the core's vertices projected on the unit axis u, in
// double: a product of two floats is exact there, so the interval is good to
// about 1e-16 of the coordinates, where float's (Project) carries a few
// ulps of them, as much as the whole tolerance of the depth.
void ProjectD3(const PolyRef& p, Vec3 u, double* lo, double* hi) {
  const D3 ud = ToD3(u);
  double min_v = Dot(ud, ToD3(p.vertices[0]));
  double max_v = min_v;
  for (int i = 1; i < p.vertex_count; ++i) {
    const double d = Dot(ud, ToD3(p.vertices[i]));
    min_v = d < min_v ? d : min_v;
    max_v = d > max_v ? d : max_v;
  }
  *lo = min_v;
  *hi = max_v;
}

// The gap between the cores along the unit direction u (B's lowest point
// minus A's highest; negative when their projections overlap).
double CoreGap(const PolyRef& a, const PolyRef& b, Vec3 u) {
  double a_lo;
  double a_hi;
  double b_lo;
  double b_hi;
  ProjectD3(a, u, &a_lo, &a_hi);
  ProjectD3(b, u, &b_lo, &b_hi);
  return b_lo - a_hi;
}

// The unit direction of tie i's difference (from its point of A to its
// point of B); false for a pair of coincident points.
bool TieDirection(const CorePairs& ties, int i, Vec3* u) {
  const float len = Length(ties.diffs[i]);
  if (!(len > 0.0f)) return false;
  *u = (1.0f / len) * ties.diffs[i];
  return true;
}

}  // namespace

ContactResult<3> ContactRound(const PolyRef& a, const PolyRef& b) {
  ContactResult<3> result;
  Vec3 pa;
  Vec3 pb;
  Vec3 diff;
  CorePairs ties;
  // The distance d and the direction come from the closest points'
  // difference taken in double before the points are rounded
  // (ClosestCorePoints; Ericson 5.1.2, 5.1.5, 5.1.9): rounding them first
  // tilted the direction by about an ulp of the coordinates over d, also
  // along a long segment, whose extent along the direction then grew by its
  // length times that tilt, and the depth measured below with it.
  const double d = ClosestCorePoints(a, b, &pa, &pb, &diff, &ties);
  const double radii = static_cast<double>(a.radius) + b.radius;
  if (d > kCoreContactFraction * radii) {
    Vec3 n = (1.0f / static_cast<float>(d)) * diff;
    double depth = radii - d;
    if (depth >= 0.0 &&
        (a.kind != CoreKind::kPoint || b.kind != CoreKind::kPoint)) {
      // Near-ties among the candidate pairs (a vertex and a point of an
      // edge next to it, say) have lengths equal to round-off but
      // directions apart by the offset over d. So measure each candidate's
      // axis by projection, measure the cores' SAT axis too, and keep the
      // one with less overlap: each is exact along its own axis, so the
      // depth reported is the overlap along the normal reported. (Apart,
      // the closest points give the exact distance, which SAT only bounds.)
      // Along the true direction the overlap is r_a + r_b - d; along its
      // float rounding (about 6e-8 off) at most the cores' extent times
      // that more.
      bool measured = false;
      for (int i = 0; i < ties.count; ++i) {
        Vec3 u;
        if (!TieDirection(ties, i, &u)) continue;
        const double along = radii - CoreGap(a, b, u);
        if (!measured || along < depth) {
          depth = along;
          n = u;
          pa = ties.pa[i];
          pb = ties.pb[i];
          measured = true;
        }
      }
      // The SAT's separation is float (a few ulps of the coordinates off):
      // an axis that seems better is measured again as the candidates were.
      const SatAxis axis = SatQuery(a, b, /*early_out=*/false);
      if (axis.kind != AxisKind::kNone && radii - axis.separation < depth) {
        const double along = radii - CoreGap(a, b, axis.normal);
        if (along < depth) {
          n = axis.normal;
          depth = along;
        }
      }
    } else if (depth < 0.0 && ties.count > 1) {
      // Apart, the distance is exact, but near-tied candidate pairs (a point
      // where the segment crosses a triangle's plane and the exact
      // edge-edge pair, say) point apart by their offset over d. The true
      // direction separates the cores by the distance and every other by
      // less, so keep the pair whose direction separates them most.
      double best_gap = -3.0e38;
      for (int i = 0; i < ties.count; ++i) {
        Vec3 u;
        if (!TieDirection(ties, i, &u)) continue;
        const double gap = CoreGap(a, b, u);
        if (gap > best_gap) {
          best_gap = gap;
          n = u;
          pa = ties.pa[i];
          pb = ties.pb[i];
        }
      }
    }
    result.normal = n;
    result.depth = static_cast<float>(depth);
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
  result.depth = core_depth + static_cast<float>(radii);
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
  return ClosestCorePoints(a, b, &pa, &pb) <=
         static_cast<double>(a.radius) + b.radius;
}

}  // namespace sator::internal
