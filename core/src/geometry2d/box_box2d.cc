// Box against box fast paths: contact (MTV with clipped manifold) and sweep.
//
// Separating axes of two oriented boxes in 2D (Gottschalk, Lin, Manocha,
// "OBBTree", SIGGRAPH 1996; Ericson, "Real-Time Collision Detection" (2005),
// 4.4.1): A's axes x, y and B's axes u, v (the columns of B's rotation R in
// A's frame). On axis L with B's centre d, the boxes' projections are
// centred |d.L| apart with radii r_A(L) = sum_k hA_k |a_k . L| and
// r_B(L) likewise, so the separation is |d.L| - r_A(L) - r_B(L), in closed
// form, without building any vertex. The best axis gives the MTV; the
// reference face is that axis' face of its box towards the other, the
// incident face the other box's face most anti-parallel to it, clipped as in
// sat2d.cc.
//
// Sweep: SAT over time on the same four axes (Ericson 5.5.8; Eberly,
// "Intersection of Convex Objects: The Method of Separating Axes"): on axis
// L the centre distance moves as d.L + t v.L and the projections overlap
// while |d.L + t v.L| <= r_A(L) + r_B(L), an interval of t; the time of
// impact is the latest interval start if it precedes the earliest end.
// GCC's SLP vectoriser packs these small scalar pose and result updates into
// vector loads of values just stored as scalars, which stalls on store
// forwarding (measured: generic Contact 2x slower); keep them scalar.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

#include <cmath>

#include "geometry2d/core2d.h"
#include "geometry2d/sat2d.h"
#include "geometry2d/sweep2d.h"
#include "sator/core/geometry2d/queries2d.h"

namespace sator {
namespace {

float SignOf(float x) { return x < 0.0f ? -1.0f : 1.0f; }

// The four axes of a box pair in A's frame.
struct BoxAxes {
  Vec2 axis[4];     // x, y, u, v.
  float dist[4];    // d . L
  float radius[4];  // r_A(L) + r_B(L)
  float sep[4];     // |d . L| - radius: the separation along L.
};

BoxAxes MakeAxes(const Box2& a, const Box2& b, const Pose2& b_in_a) {
  const Vec2 ha = a.half_extents;
  const Vec2 hb = b.half_extents;
  const Vec2 d = b_in_a.position;
  const float c = b_in_a.rotation.c;
  const float s = b_in_a.rotation.s;
  const float ac = std::fabs(c);
  const float as = std::fabs(s);
  BoxAxes x;
  x.axis[0] = {1.0f, 0.0f};
  x.axis[1] = {0.0f, 1.0f};
  x.axis[2] = {c, s};
  x.axis[3] = {-s, c};
  x.dist[0] = d.x;
  x.dist[1] = d.y;
  x.dist[2] = c * d.x + s * d.y;
  x.dist[3] = c * d.y - s * d.x;
  x.radius[0] = ha.x + hb.x * ac + hb.y * as;
  x.radius[1] = ha.y + hb.x * as + hb.y * ac;
  x.radius[2] = hb.x + ha.x * ac + ha.y * as;
  x.radius[3] = hb.y + ha.x * as + ha.y * ac;
  // Scalar expressions on purpose: a vectorised loop over the arrays just
  // written would stall on store forwarding.
  x.sep[0] = std::fabs(x.dist[0]) - x.radius[0];
  x.sep[1] = std::fabs(x.dist[1]) - x.radius[1];
  x.sep[2] = std::fabs(x.dist[2]) - x.radius[2];
  x.sep[3] = std::fabs(x.dist[3]) - x.radius[3];
  return x;
}

// The face of a box (centre `center`, axes e0 and e1, half extents h) whose
// outward normal is n = sign * e_k: its end points in counter-clockwise
// order (v1 -> v2 along LeftPerp(n)).
void Face(Vec2 center, Vec2 e0, Vec2 e1, Vec2 h, int k, float sign, Vec2* v1,
          Vec2* v2) {
  const Vec2 n = sign * (k == 0 ? e0 : e1);
  const float along = k == 0 ? h.x : h.y;
  const float half = k == 0 ? h.y : h.x;
  const Vec2 mid = center + along * n;
  const Vec2 t = LeftPerp(n);
  *v1 = mid - half * t;
  *v2 = mid + half * t;
}

// The face of a box most anti-parallel to n.
void IncidentFace(Vec2 center, Vec2 e0, Vec2 e1, Vec2 h, Vec2 n, Vec2* p1,
                  Vec2* p2) {
  const float d0 = Dot(n, e0);
  const float d1 = Dot(n, e1);
  if (std::fabs(d0) >= std::fabs(d1)) {
    Face(center, e0, e1, h, 0, -SignOf(d0), p1, p2);
  } else {
    Face(center, e0, e1, h, 1, -SignOf(d1), p1, p2);
  }
}

}  // namespace

ContactResult<2> ContactBoxBox(const Box2& a, const Box2& b,
                               const Pose2& b_in_a) {
  const BoxAxes x = MakeAxes(a, b, b_in_a);
  const Vec2 ha = a.half_extents;
  const Vec2 hb = b.half_extents;
  const Vec2 d = b_in_a.position;
  const float tolerance =
      TouchingTolerance(ha.x + ha.y + hb.x + hb.y + Length(d));
  const float* sep = x.sep;
  const int ka = sep[1] > sep[0] ? 1 : 0;
  const int kb = sep[3] > sep[2] ? 3 : 2;
  // A's face unless B's is better by a tenth of the tolerance (sat2d.cc).
  const bool flip = sep[kb] > sep[ka] + internal2d::kFaceBias * tolerance;
  const int k = flip ? kb : ka;
  ContactResult<2> result;
  const float sign = SignOf(x.dist[k]);
  result.normal = sign * x.axis[k];
  result.depth = -sep[k];
  result.overlapping = result.depth >= -tolerance;
  if (!result.overlapping) return result;
  const Vec2 ax{1.0f, 0.0f};
  const Vec2 ay{0.0f, 1.0f};
  const Vec2 u = x.axis[2];
  const Vec2 v = x.axis[3];
  Vec2 v1, v2, p1, p2;
  Vec2 n;
  if (!flip) {
    n = result.normal;
    Face({}, ax, ay, ha, k, sign, &v1, &v2);
    IncidentFace(d, u, v, hb, n, &p1, &p2);
  } else {
    n = -result.normal;  // B's outward normal, towards A.
    Face(d, u, v, hb, k - 2, -sign, &v1, &v2);
    IncidentFace({}, ax, ay, ha, n, &p1, &p2);
  }
  internal2d::ClipIncidentEdge(n, v1, v2, p1, p2, 0.0f, 0.0f, tolerance,
                               result);
  return result;
}

SweepResult<2> SweepBoxBox(const Box2& a, const Box2& b, const Pose2& b_in_a,
                           Vec2 motion) {
  const BoxAxes x = MakeAxes(a, b, b_in_a);
  const Vec2 ha = a.half_extents;
  const Vec2 hb = b.half_extents;
  const Vec2 d = b_in_a.position;
  const float tolerance =
      TouchingTolerance(ha.x + ha.y + hb.x + hb.y + Length(d));
  SweepResult<2> result;
  // Branch-free on purpose: on random inputs every data-dependent branch
  // here mispredicts about half the time, which costs more than the math.
  bool started = true;
  bool never = false;
  float enter = -internal2d::kInfinity;
  float exit = internal2d::kInfinity;
  int enter_axis = -1;
  for (int k = 0; k < 4; ++k) {
    const float dist = x.dist[k];
    const float r = x.radius[k];
    started &= std::fabs(dist) <= r + tolerance;
    const float rate = Dot(motion, x.axis[k]);
    // No motion along L: overlapping on L for all t, or never.
    const bool still = rate == 0.0f;
    never |= still & (std::fabs(dist) > r);
    const float inv = 1.0f / (still ? 1.0f : rate);
    const float t0 = (-r - dist) * inv;
    const float t1 = (r - dist) * inv;
    const float lo = still ? -internal2d::kInfinity : std::min(t0, t1);
    const float hi = still ? internal2d::kInfinity : std::max(t0, t1);
    enter_axis = lo > enter ? k : enter_axis;
    enter = std::max(enter, lo);
    exit = std::min(exit, hi);
  }
  if (started) {
    result.outcome = SweepOutcome::kStartedOverlapping;
    result.initial = ContactBoxBox(a, b, b_in_a);
    return result;
  }
  if (never || enter > exit || enter > 1.0f || exit < 0.0f || enter_axis < 0) {
    return result;  // kMiss
  }
  const float t = std::max(enter, 0.0f);
  const int k = enter_axis;
  // B approaches from the side it starts on.
  const Vec2 n = SignOf(x.dist[k]) * x.axis[k];
  result.outcome = SweepOutcome::kHit;
  result.fraction = t;
  result.normal = n;
  // Contact point: the reference face meets the other box's support
  // feature (a vertex, or an edge when parallel) at time t.
  const Vec2 dt = d + t * motion;
  const Vec2 u = x.axis[2];
  const Vec2 v = x.axis[3];
  Vec2 r1, r2;
  Vec2 inc[2];
  int count = 1;
  // Support of a box (centre c, axes e0, e1, half extents h) towards -m:
  // its vertex c - sum h_k sign(m.e_k) e_k, and the neighbour along e_k when
  // e_k is (within round-off) perpendicular to m.
  auto support = [&](Vec2 c, Vec2 e0, Vec2 e1, Vec2 h, Vec2 m) {
    const float d0 = Dot(m, e0);
    const float d1 = Dot(m, e1);
    inc[0] = c - (h.x * SignOf(d0)) * e0 - (h.y * SignOf(d1)) * e1;
    if (std::fabs(d0) * h.x <= tolerance) {
      inc[1] = inc[0] + (2.0f * h.x * SignOf(d0)) * e0;
      count = 2;
    } else if (std::fabs(d1) * h.y <= tolerance) {
      inc[1] = inc[0] + (2.0f * h.y * SignOf(d1)) * e1;
      count = 2;
    }
  };
  if (k < 2) {
    Face({}, {1.0f, 0.0f}, {0.0f, 1.0f}, ha, k, SignOf(x.dist[k]), &r1, &r2);
    support(dt, u, v, hb, n);
    result.point = internal2d::FeatureMidpoint(r1, r2, n, inc, count);
  } else {
    Face(dt, u, v, hb, k - 2, -SignOf(x.dist[k]), &r1, &r2);
    support({}, {1.0f, 0.0f}, {0.0f, 1.0f}, ha, -n);
    result.point = internal2d::FeatureMidpoint(r1, r2, -n, inc, count);
  }
  return result;
}

}  // namespace sator
