// Sweeps: the first time of impact of two shapes in linear relative motion
// without rotation.
//
// Polytopes (boxes, polygons, segments): SAT over time (Ericson, "Real-Time
// Collision Detection" (2005), 5.5.8 "Intersection of moving OBBs"; Eberly,
// "Intersection of Convex Objects: The Method of Separating Axes", 2001).
// With B moving by v relative to A, the separation along a fixed axis n is
// linear in t: s_n(t) = s_n(0) + t (n . v). The configuration space
// obstacle B - A is exactly the intersection of the half-planes s_n <= 0
// over the edge normals of A and B (in 2D these are all of its edge
// normals); for a degenerate, zero-area obstacle (segments) the segment
// directions are added, as any extra axis is a valid separating axis. So
// each axis gives an interval of t where it does not separate:
//   s_n(0) > 0, n.v < 0:  [s_n(0) / -(n.v), inf)   (entry)
//   s_n(0) > 0, n.v >= 0: empty                    (never touch)
//   s_n(0) <= 0, n.v > 0: [0, -s_n(0) / (n.v)]     (exit)
// and the time of impact is the latest entry if it is no later than the
// earliest exit and 1. Exact up to round-off; no iteration.
//
// Round shapes (circle, capsule): the shapes touch when the distance between
// their cores equals r_A + r_B. The distance between convex cores is reached
// at a vertex of one and an edge (or vertex) of the other, so the first time
// of impact is the earliest of: each vertex of B, moving by v, cast against
// each edge of A inflated to a capsule of radius r_A + r_B, and each vertex
// of A, moving by -v, against each edge of B inflated likewise (the
// Minkowski-sum view of van den Bergen, "Ray Casting against General Convex
// Objects", 2004, done feature by feature). Exact; no conservative
// advancement.
//
// Grazes: shapes that never reach separation 0 but come within the touching
// tolerance on the way hit at the first time they are within it (the query
// semantics of "touch"). The SAT over time also keeps the intervals where
// each axis gap is at most the tolerance; where those meet in [0, 1] (a
// necessary condition), SweepGraze runs the feature casts above with the
// radius grown by the tolerance, which finds that first time exactly (or
// none). Round sweeps cast at the grown radius first (a miss there is
// final), then at r_A + r_B for the exact time of impact.
#include "collide2d/sweep2d.h"

#include "collide2d/cast2d.h"
#include "collide2d/distance2d.h"
#include "collide2d/pairs2d.h"
#include "collide2d/sat2d.h"

namespace sator::internal2d {
namespace {

struct Axis {
  Vec2 n;    // From A towards B.
  float s0;  // Separation at t = 0.
  int kind;  // 0: A's edge, 1: B's edge, 2: other.
  int edge;
};

// Support of a core: min over vertices of n.w, and the vertices within
// `slack` of it (at most two).
int SupportMin(const Core& c, Vec2 n, float slack, Vec2* out, float* value) {
  float lowest = kInfinity;
  for (int j = 0; j < c.count; ++j) {
    lowest = std::min(lowest, n.x * c.vx[j] + n.y * c.vy[j]);
  }
  int k = 0;
  for (int j = 0; j < c.count && k < 2; ++j) {
    if (n.x * c.vx[j] + n.y * c.vy[j] <= lowest + slack) out[k++] = c.v(j);
  }
  *value = lowest;
  return k;
}

SweepResult<2> SweepPolytopes(const Core& a, const Core& b, Vec2 v,
                              float tolerance) {
  float t_enter = -kInfinity;
  float t_exit = kInfinity;
  float s_max = -kInfinity;
  Axis enter_axis{{}, 0.0f, -1, -1};
  bool never = false;
  // The same intervals for "the axis separates by at most the tolerance"
  // (s_n(t) <= tol): where they meet in [0, 1] the shapes may pass within
  // the tolerance without touching (a graze, see SweepGraze).
  float g_enter = -kInfinity;
  float g_exit = kInfinity;
  bool g_never = false;
  auto consider = [&](Vec2 n, float s0, int kind, int edge) {
    s_max = std::max(s_max, s0);
    const float rate = Dot(n, v);
    const float g0 = s0 - tolerance;
    if (g0 > 0.0f) {
      if (rate >= 0.0f || g0 > -rate) {
        g_never = true;  // And so never (s0 > g0).
        never = true;
        return;
      }
      g_enter = std::max(g_enter, g0 / -rate);
    } else if (rate > 0.0f && -g0 < rate) {
      g_exit = std::min(g_exit, -g0 / rate);
    }
    if (s0 > 0.0f) {
      // Never closing, or closing only after t = 1 (s0 / -rate > 1; the
      // division could overflow for a tiny rate, raising FE_OVERFLOW).
      if (rate >= 0.0f || s0 > -rate) {
        never = true;
        return;
      }
      const float t = s0 / -rate;
      if (t > t_enter) {
        t_enter = t;
        enter_axis = {n, s0, kind, edge};
      }
    } else if (rate > 0.0f && -s0 < rate) {
      // Leaving before t = 1 (a later exit decides nothing).
      t_exit = std::min(t_exit, -s0 / rate);
    }
  };
  for (int i = 0; i < a.EdgeCount() && !g_never; ++i) {
    const Vec2 n = a.n(i);
    consider(n, MinDot(b, n.x, n.y) - Dot(n, a.v(i)), 0, i);
  }
  for (int j = 0; j < b.EdgeCount() && !g_never; ++j) {
    const Vec2 m = b.n(j);
    consider(-m, MinDot(a, m.x, m.y) - Dot(m, b.v(j)), 1, j);
  }
  // Segment directions, both ways: only needed when the obstacle may be
  // degenerate (a segment against a segment).
  if (a.count == 2 && b.count == 2 && !g_never) {
    for (const Core* c : {&a, &b}) {
      const Vec2 u = LeftPerp(c->n(0));
      for (const Vec2 n : {u, -u}) {
        float lo_b = kInfinity;
        float hi_a = -kInfinity;
        for (int j = 0; j < 2; ++j) lo_b = std::min(lo_b, Dot(n, b.v(j)));
        for (int i = 0; i < 2; ++i) hi_a = std::max(hi_a, Dot(n, a.v(i)));
        consider(n, lo_b - hi_a, 2, -1);
      }
    }
  }
  SweepResult<2> result;
  // Touching or overlapping at t = 0, whatever the motion (an axis that
  // separates by less than the tolerance and never closes still touches:
  // `never` alone must not turn a touching start into a miss).
  if (s_max <= tolerance) {
    const ContactResult<2> initial = ContactCores(a, b, tolerance);
    if (initial.overlapping) {
      result.outcome = SweepOutcome::kStartedOverlapping;
      result.initial = initial;
      return result;
    }
  }
  if (never || t_enter > t_exit || t_enter > 1.0f) {
    // No axis-by-axis touch at separation 0. Every axis within the
    // tolerance at once is needed for a graze (an axis' gap is a lower
    // bound of the distance); SweepGraze then decides by the distance.
    if (g_never || g_enter > g_exit || g_enter > 1.0f) return result;
    result = SweepGraze(a, b, v, tolerance);  // (One named result: NRVO.)
    return result;
  }
  if (enter_axis.kind < 0) {
    // Touching within round-off but not by the tolerance test: impact at 0.
    const ContactResult<2> c = ContactCores(a, b, tolerance);
    result.outcome = SweepOutcome::kHit;
    result.fraction = 0.0f;
    result.normal = c.normal;
    result.point = c.point_count > 0 ? c.points[0] : b.v(0);
    return result;
  }
  const float t = std::max(t_enter, 0.0f);
  result.outcome = SweepOutcome::kHit;
  result.fraction = t;
  result.normal = enter_axis.n;
  const Vec2 shift = t * v;
  const float slack = tolerance;
  Vec2 inc[2];
  float value = 0.0f;
  if (enter_axis.kind == 0) {
    const int k = SupportMin(b, enter_axis.n, slack, inc, &value);
    for (int q = 0; q < k; ++q) inc[q] += shift;
    const int i = enter_axis.edge;
    result.point =
        FeatureMidpoint(a.v(i), a.v(a.Next(i)), enter_axis.n, inc, k);
  } else if (enter_axis.kind == 1) {
    const int k = SupportMin(a, -enter_axis.n, slack, inc, &value);
    const int j = enter_axis.edge;
    // B's edge at impact; its outward normal is -n.
    result.point = FeatureMidpoint(b.v(b.Next(j)) + shift, b.v(j) + shift,
                                   enter_axis.n, inc, k);
  } else {
    SupportMin(b, enter_axis.n, 0.0f, inc, &value);
    result.point = inc[0] + shift;
  }
  return result;
}

// The first t in [0, 1] at which the cores (B moving by v) come within
// `reach` of each other, with the normal from A to B there and the point of
// A's core touched.
struct CoreCast {
  CastHit hit;
  Vec2 a_point{};
};

CoreCast CastCores(const Core& a, const Core& b, Vec2 v, float reach) {
  CoreCast best;
  auto keep = [&](const CastHit& h, Vec2 on_a) {
    if (h.hit && (!best.hit.hit || h.t < best.hit.t)) {
      best.hit = h;
      best.a_point = on_a;
    }
  };
  // B's vertices against A's edges (or A's single vertex).
  for (int j = 0; j < b.count; ++j) {
    const Vec2 w = b.v(j);
    if (a.count == 1) {
      keep(CastPointCircle(w, v, a.v(0), reach, 1.0f), a.v(0));
      continue;
    }
    const int edges = a.count == 2 ? 1 : a.count;
    for (int i = 0; i < edges; ++i) {
      const Vec2 p = a.v(i);
      const Vec2 q = a.v(a.Next(i));
      const CastHit h = CastPointCapsule(w, v, p, q, reach, 1.0f);
      if (h.hit && (!best.hit.hit || h.t < best.hit.t)) {
        keep(h, ClosestPointOnSegment(w + h.t * v, p, q));
      }
    }
  }
  // A's vertices, moving by -v, against B's edges.
  if (b.count >= 2) {
    const int edges = b.count == 2 ? 1 : b.count;
    for (int i = 0; i < a.count; ++i) {
      const Vec2 u = a.v(i);
      for (int j = 0; j < edges; ++j) {
        CastHit h =
            CastPointCapsule(u, -v, b.v(j), b.v(b.Next(j)), reach, 1.0f);
        h.normal = -h.normal;  // The cast's normal points from B to A.
        keep(h, u);
      }
    }
  }
  return best;
}

// The hit of a cast that found one, written into `result`. `gap` is the
// distance between the surfaces at that time (0 for an impact, the
// tolerance for a graze); the point is midway between them.
void HitFromCast(const Core& a, const Core& b, Vec2 v, const CoreCast& cast,
                 float gap, float tolerance, SweepResult<2>& result) {
  result.outcome = SweepOutcome::kHit;
  result.fraction = cast.hit.t;
  result.normal = cast.hit.normal;
  result.point = cast.a_point + (a.radius + 0.5f * gap) * cast.hit.normal;
  // Refine normal and point from the configuration at impact: the closest
  // points there are well conditioned, while a grazing cast's hit point
  // slides along the surface. Edges meeting flat (a capsule side on a box
  // face) report the middle of the touching span.
  Core moved = b;
  for (int j = 0; j < moved.Lanes(); ++j) {
    moved.vx[j] += cast.hit.t * v.x;
    moved.vy[j] += cast.hit.t * v.y;
  }
  const ContactResult<2> touch = ContactCores(a, moved, tolerance);
  // A graze passes nearly along the surfaces: the contact's face normal may
  // then lean along the motion, and the cast's (the closest points'
  // direction, against the motion where the distance falls to the
  // tolerance) stays.
  if (touch.overlapping && touch.point_count > 0 &&
      (gap == 0.0f || Dot(touch.normal, v) <= 0.0f)) {
    result.normal = touch.normal;
    result.point = touch.point_count == 2
                       ? 0.5f * (touch.points[0] + touch.points[1])
                       : touch.points[0];
  }
}

SweepResult<2> SweepRound(const Core& a, const Core& b, Vec2 v,
                          float tolerance) {
  SweepResult<2> result;
  const ContactResult<2> initial = ContactCores(a, b, tolerance);
  if (initial.overlapping) {
    result.outcome = SweepOutcome::kStartedOverlapping;
    result.initial = initial;
    return result;
  }
  // The casts at the grown radius r + tol first: they reach every sweep
  // that comes within the tolerance (a superset of the impacts), so a miss
  // there (most sweeps) is final after one pass; the rest cast again at r
  // for the exact time of impact, and graze if that misses (the rule of
  // SweepGraze).
  const float r = a.radius + b.radius;
  const CoreCast graze = CastCores(a, b, v, r + tolerance);
  if (!graze.hit.hit) return result;  // kMiss
  const CoreCast cast = CastCores(a, b, v, r);
  if (cast.hit.hit) {
    HitFromCast(a, b, v, cast, 0.0f, tolerance, result);
  } else {
    HitFromCast(a, b, v, graze, tolerance, tolerance, result);
  }
  return result;
}

}  // namespace

// Midpoint of the overlap, along the reference edge's tangent, of the
// reference edge [r1, r2] and the incident points (one or two), projected
// onto the reference line.
Vec2 FeatureMidpoint(Vec2 r1, Vec2 r2, Vec2 n, const Vec2* inc, int inc_count) {
  const Vec2 u = LeftPerp(n);
  float lo = std::min(Dot(u, r1), Dot(u, r2));
  float hi = std::max(Dot(u, r1), Dot(u, r2));
  float ilo = Dot(u, inc[0]);
  float ihi = ilo;
  if (inc_count == 2) {
    ilo = std::min(ilo, Dot(u, inc[1]));
    ihi = std::max(ihi, Dot(u, inc[1]));
  }
  lo = std::max(lo, ilo);
  hi = std::min(hi, ihi);
  // At the exact time of impact the two ranges meet (the entering axis'
  // supports touch), so lo > hi only under round-off, when two nearly
  // parallel axes enter at nearly the same time: then the end of the
  // reference edge nearest the incident feature is the contact (taking the
  // incident point itself could leave the reference shape by the whole
  // round-off gap times the edge length).
  const float mid = lo <= hi ? 0.5f * (lo + hi) : (ihi < lo ? lo : hi);
  const float height = Dot(n, r1);
  return mid * u + height * n;
}

// A graze: the shapes pass within the tolerance without touching (their
// separation never reaches 0 on [0, 1]). Query semantics: shapes touch when
// their separation is at most the tolerance, so such a sweep is a hit, at the
// first time the separation is within the tolerance. The distance between
// two convex cores is reached at a vertex of one and an edge (or the
// vertex) of the other (distance2d.cc), so that first time is the earliest
// of every vertex-edge cast with the capsule radius r_A + r_B + tolerance:
// the feature casts of SweepRound with the radius grown by the tolerance
// (for polytopes the radius is the tolerance alone, which is the
// exact-distance rule of PolygonsTouch, not the edge-normal SAT that sees a
// sharp corner's gap shrunk). No cast reaching that radius on [0, 1]: a
// miss.
SweepResult<2> SweepGraze(const Core& a, const Core& b, Vec2 motion,
                          float tolerance) {
  const CoreCast cast =
      CastCores(a, b, motion, a.radius + b.radius + tolerance);
  SweepResult<2> result;
  if (cast.hit.hit) {
    HitFromCast(a, b, motion, cast, tolerance, tolerance, result);
  }
  return result;
}

SweepResult<2> SweepCores(const Core& a, const Core& b, Vec2 motion,
                          float tolerance) {
  if (a.radius > 0.0f || b.radius > 0.0f) {
    return SweepRound(a, b, motion, tolerance);
  }
  return SweepPolytopes(a, b, motion, tolerance);
}

SweepResult<2> SweepGeneral(const Shape2& a, const Shape2& b,
                            const Pose2& b_in_a, Vec2 motion) {
  Core ca;
  Core cb;
  MakeCore(a, ca);
  MakeCoreIn(b, b_in_a, cb);
  return SweepCores(ca, cb, motion, PairTolerance(ca, cb, b_in_a));
}

}  // namespace sator::internal2d
