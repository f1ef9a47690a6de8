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
//   The reference edge is the winning edge (A's unless B's wins by more than
//   a tenth of the tolerance, so the choice is stable); the incident edge is
//   the other core's edge most anti-parallel to the reference normal. The
//   incident edge is clipped to the reference edge's slab and each clipped
//   point is kept if its penetration is at least -tolerance; it is reported
//   midway between the two surfaces.
#include "geometry2d/sat2d.h"

namespace sator::internal2d {

void ClipIncidentEdge(Vec2 n, Vec2 v1, Vec2 v2, Vec2 p1, Vec2 p2, float rr,
                      float ri, float tolerance, ContactResult<2>& out) {
  const float plane = Dot(n, v1);
  // Penetration of an incident core point p: r_ref + r_inc - n.(p - v1).
  // Reported point: midway between the surfaces along n.
  auto add = [&](Vec2 p) {
    const float s = Dot(n, p) - plane;
    if (rr + ri - s < -tolerance) return;
    out.points[static_cast<size_t>(out.point_count++)] =
        p + (0.5f * (rr - s - ri)) * n;
  };
  out.point_count = 0;
  // Clip [p1, p2] to the slab lower <= t.x <= upper of the reference edge.
  const Vec2 t = LeftPerp(n);  // Unit direction v1 -> v2.
  const float lower = Dot(t, v1);
  const float upper = Dot(t, v2);
  float a1 = Dot(t, p1);
  float a2 = Dot(t, p2);
  if (a1 > a2) {
    std::swap(p1, p2);
    std::swap(a1, a2);
  }
  const float span = a2 - a1;
  const float lo = std::max(a1, lower);
  const float hi = std::min(a2, upper);
  if (lo > hi || span <= 1e-6f * (std::fabs(a1) + std::fabs(a2))) {
    // The incident edge is outside the slab (only possible for a corner
    // contact within the tolerance) or is seen end-on (or is a single
    // point): report its deepest vertex.
    add(Dot(n, p1) <= Dot(n, p2) ? p1 : p2);
    return;
  }
  const Vec2 d = (1.0f / span) * (p2 - p1);
  add(p1 + (lo - a1) * d);
  if (hi > lo) add(p1 + (hi - a1) * d);
}

void ClipContactPoints(const Core& ref, int ref_edge, const Core& inc,
                       float tolerance, ContactResult<2>& out) {
  const Vec2 n = ref.n(ref_edge);
  // Incident edge: the most anti-parallel normal (a point for a circle).
  int inc_edge = 0;
  float lowest = kInfinity;
  for (int i = 0; i < inc.EdgeCount(); ++i) {
    const float d = Dot(n, inc.n(i));
    if (d < lowest) {
      lowest = d;
      inc_edge = i;
    }
  }
  const Vec2 p1 = inc.v(inc_edge);
  const Vec2 p2 = inc.count == 1 ? p1 : inc.v(inc.Next(inc_edge));
  ClipIncidentEdge(n, ref.v(ref_edge), ref.v(ref.Next(ref_edge)), p1, p2,
                   ref.radius, inc.radius, tolerance, out);
}

ContactResult<2> ContactSat(const Core& a, const Core& b, float tolerance) {
  ContactResult<2> result;
  const AxisSeparation sa = MaxSeparation(a, b);
  const AxisSeparation sb = MaxSeparation(b, a);
  const bool flip = sb.separation > sa.separation + kFaceBias * tolerance;
  const Core& ref = flip ? b : a;
  const Core& inc = flip ? a : b;
  const AxisSeparation& s = flip ? sb : sa;
  const float rsum = a.radius + b.radius;
  if (s.edge < 0) {
    // Two points (both cores single vertices): the caller handles circles.
    result.normal = {1.0f, 0.0f};
    result.depth = rsum;
    result.overlapping = true;
    result.point_count = 1;
    result.points[0] = a.v(0);
    return result;
  }
  const Vec2 n = ref.n(s.edge);
  result.normal = flip ? -n : n;
  result.depth = rsum - s.separation;
  result.overlapping = result.depth >= -tolerance;
  if (!result.overlapping) return result;
  ClipContactPoints(ref, s.edge, inc, tolerance, result);
  if (result.point_count == 0) {
    // Cannot happen for overlapping cores (the deepest incident point is
    // within the slab); kept as a guard so a result never lacks a point.
    result.point_count = 1;
    result.points[0] = inc.v(0);
  }
  return result;
}

}  // namespace sator::internal2d
