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
#include "collide2d/sat2d.h"

#include <algorithm>
#include <cmath>

#include "collide2d/pairs2d.h"
#include "sator/core/collide2d/tolerance2d.h"

namespace sator::internal2d {

void ClipIncidentEdge(Vec2 n, Vec2 v1, Vec2 v2, Vec2 p1, Vec2 p2, float rr,
                      float ri, float tolerance, ContactResult<2>& out) {
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

ContactResult<2> ContactCores(const Core& a, const Core& b, float tolerance) {
  if (a.count <= 2 || b.count <= 2) return ContactSmallCore(a, b, tolerance);
  return ContactSat(a, b, tolerance);
}

bool OverlapGeneral(const Shape2& a, const Shape2& b, const Pose2& b_in_a) {
  Core ca;
  Core cb;
  MakeCore(a, ca);
  MakeCoreIn(b, b_in_a, cb);
  const float tolerance = PairTolerance(ca, cb, b_in_a);
  if (ca.count <= 2 || cb.count <= 2) {
    return OverlapSmallCore(ca, cb, tolerance);
  }
  return PolygonsOverlap(ca, cb, tolerance);
}

ContactResult<2> ContactGeneral(const Shape2& a, const Shape2& b,
                                const Pose2& b_in_a) {
  Core ca;
  Core cb;
  MakeCore(a, ca);
  MakeCoreIn(b, b_in_a, cb);
  return ContactCores(ca, cb, PairTolerance(ca, cb, b_in_a));
}

namespace {

// The pair tolerance of two polygons (PairTolerance's sum, in its order).
float PolygonsTolerance(const ConvexPolygon& a, const ConvexPolygon& b,
                        const Pose2& b_in_a) {
  return TouchingTolerance(a.extent() + b.extent() + Length(b_in_a.position));
}

}  // namespace

bool OverlapPolygons(const Shape2& a, const Shape2& b, const Pose2& b_in_a) {
  const auto& pa = As<ConvexPolygon>(a);
  const auto& pb = As<ConvexPolygon>(b);
  Core cb;
  MakeTransformedPolygonCore(pb, b_in_a, cb);
  return PolygonsOverlap(PolygonRef(pa), cb, PolygonsTolerance(pa, pb, b_in_a));
}

ContactResult<2> ContactPolygons(const Shape2& a, const Shape2& b,
                                 const Pose2& b_in_a) {
  const auto& pa = As<ConvexPolygon>(a);
  const auto& pb = As<ConvexPolygon>(b);
  Core cb;
  MakeTransformedPolygonCore(pb, b_in_a, cb);
  return ContactSat(PolygonRef(pa), cb, PolygonsTolerance(pa, pb, b_in_a));
}

}  // namespace sator::internal2d
