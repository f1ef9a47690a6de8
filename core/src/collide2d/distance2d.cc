// Exact distance between a point or segment and a convex core.
//
// Closest points of two segments: end point against segment, after an
// orientation test for crossing (Ericson, "Real-Time Collision Detection"
// (2005), 5.1.9 and 5.1.9.1). Point to convex polygon: Ericson 5.1.2 and the
// Voronoi-region argument of Box2D's b2CollidePolygonAndCircle: for a point
// outside a convex polygon the closest feature is the edge of largest
// separation or one of its two end vertices. (Why: if the point lies in the
// Voronoi cone of vertex v, any other edge's normal is farther in angle from
// p - v than one of v's two edge normals, so its separation is smaller.)
// Distance between two disjoint convex polygons in 2D is reached at a
// vertex of one and an edge of the other, so a segment against a polygon
// needs the segment's end points against the polygon and the polygon's
// vertices against the segment.
#include "collide2d/distance2d.h"

#include <algorithm>
#include <limits>

#include "collide2d/sat2d.h"

namespace sator::internal2d {
namespace {

// Closest points of segments [p1, q1] and [p2, q2] (either may be a point).
// In 2D, two segments that do not cross have a closest pair that includes an
// end point of one of them, so the distance is the least of the four end
// point to segment distances (robust for nearly parallel segments, where the
// normal equations of Ericson 5.1.9 lose all precision in float). Crossing is
// decided first with orientation tests (Ericson 5.1.9.1).
CoreClosest SegmentSegment(Vec2 p1, Vec2 q1, Vec2 p2, Vec2 q2) {
  CoreClosest out;
  const Vec2 d1 = q1 - p1;
  const Vec2 d2 = q2 - p2;
  const float o1 = Cross(d1, p2 - p1);
  const float o2 = Cross(d1, q2 - p1);
  const float o3 = Cross(d2, p1 - p2);
  const float o4 = Cross(d2, q1 - p2);
  if (((o1 < 0.0f && o2 > 0.0f) || (o1 > 0.0f && o2 < 0.0f)) &&
      ((o3 < 0.0f && o4 > 0.0f) || (o3 > 0.0f && o4 < 0.0f))) {
    // Proper crossing at p2 + t d2 with t = o1 / (o1 - o2).
    out.intersecting = true;
    out.pa = out.pb = p2 + (o1 / (o1 - o2)) * d2;
    return out;
  }
  float best = kInfinity;
  auto consider = [&](Vec2 on_a, Vec2 on_b) {
    const float d = LengthSquared(on_b - on_a);
    if (d < best) {
      best = d;
      out.pa = on_a;
      out.pb = on_b;
    }
  };
  consider(p1, ClosestPointOnSegment(p1, p2, q2));
  consider(q1, ClosestPointOnSegment(q1, p2, q2));
  consider(ClosestPointOnSegment(p2, p1, q1), p2);
  consider(ClosestPointOnSegment(q2, p1, q1), q2);
  out.distance = std::sqrt(best);
  out.intersecting = out.distance == 0.0f;
  return out;
}

// Closest point of a convex polygon core to a point known to be outside it.
Vec2 ClosestOnPolygonOutside(const Core& polygon, Vec2 p) {
  int best = 0;
  float best_s = -kInfinity;
  for (int i = 0; i < polygon.count; ++i) {
    const float s = polygon.nx[i] * (p.x - polygon.vx[i]) +
                    polygon.ny[i] * (p.y - polygon.vy[i]);
    if (s > best_s) {
      best_s = s;
      best = i;
    }
  }
  return ClosestPointOnSegment(p, polygon.v(best),
                               polygon.v(polygon.Next(best)));
}

// `small` has 1 or 2 vertices, `polygon` 3 or more.
CoreClosest SmallPolygon(const Core& small, const Core& polygon) {
  CoreClosest out;
  // Intersection by SAT: complete here because small - polygon has positive
  // area, so its edge normals are exactly polygon's and small's.
  if (MaxSeparation(polygon, small).separation <= 0.0f &&
      MaxSeparation(small, polygon).separation <= 0.0f) {
    out.intersecting = true;
    return out;
  }
  float best = kInfinity;
  for (int i = 0; i < small.count; ++i) {
    const Vec2 p = small.v(i);
    const Vec2 q = ClosestOnPolygonOutside(polygon, p);
    const float d2 = LengthSquared(q - p);
    if (d2 < best) {
      best = d2;
      out.pa = p;
      out.pb = q;
    }
  }
  if (small.count == 2) {
    const Vec2 a = small.v(0);
    const Vec2 b = small.v(1);
    for (int j = 0; j < polygon.count; ++j) {
      const Vec2 w = polygon.v(j);
      const Vec2 q = ClosestPointOnSegment(w, a, b);
      const float d2 = LengthSquared(w - q);
      if (d2 < best) {
        best = d2;
        out.pa = q;
        out.pb = w;
      }
    }
  }
  out.distance = std::sqrt(best);
  out.intersecting = out.distance == 0.0f;
  return out;
}

// Squared distance from p to the segment [a, b] (a != b), in double from
// float inputs: each difference of two floats is exact in double, and so is
// each product of two such differences, so the result carries a relative
// error of a few 1e-16. Ericson 5.1.2.1, except that where p projects inside
// the segment the squared distance is (w x e)^2 / (e . e) (w = p - a, e = b
// - a): the book's w.w - (w.e)^2 / (e.e) cancels when p lies near the
// segment's line, which is the case this function is for.
double PointSegmentSquared(double px, double py, double ax, double ay,
                           double bx, double by) {
  const double ex = bx - ax;
  const double ey = by - ay;
  const double wx = px - ax;
  const double wy = py - ay;
  const double we = wx * ex + wy * ey;
  if (we <= 0.0) return wx * wx + wy * wy;
  const double ee = ex * ex + ey * ey;
  if (we >= ee) {
    const double vx = px - bx;
    const double vy = py - by;
    return vx * vx + vy * vy;
  }
  const double cross = wx * ey - wy * ex;
  return cross * cross / ee;
}

// max over the edges i of p (counter-clockwise, n >= 3) of the outward
// separation of the point (qx, qy) from edge i's line, times the edge's
// length (unnormalised: only its sign is used), in double.
double MaxScaledSeparation(const float* x, const float* y, int n, double qx,
                           double qy) {
  double best = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    const int j = i + 1 == n ? 0 : i + 1;
    const double ex = static_cast<double>(x[j]) - x[i];
    const double ey = static_cast<double>(y[j]) - y[i];
    // Outward normal of a counter-clockwise edge: (ey, -ex).
    best = std::max(best, ey * (qx - x[i]) - ex * (qy - y[i]));
  }
  return best;
}

// True when some edge line of p (n >= 3) has every vertex of q (m) strictly
// outside it: the separating axis test on p's edge normals, in double.
bool SomeEdgeSeparates(const float* px, const float* py, int n, const float* qx,
                       const float* qy, int m) {
  for (int i = 0; i < n; ++i) {
    const int j = i + 1 == n ? 0 : i + 1;
    const double ex = static_cast<double>(px[j]) - px[i];
    const double ey = static_cast<double>(py[j]) - py[i];
    double lowest = std::numeric_limits<double>::infinity();
    for (int k = 0; k < m; ++k) {
      lowest = std::min(lowest, ey * (static_cast<double>(qx[k]) - px[i]) -
                                    ex * (static_cast<double>(qy[k]) - py[i]));
    }
    if (lowest > 0.0) return true;
  }
  return false;
}

// min over the vertices of p (n) and the edges of q (m >= 3) of the
// squared vertex-to-edge distance.
double VertexEdgeSquared(const float* px, const float* py, int n,
                         const float* qx, const float* qy, int m) {
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < m; ++i) {
      const int j = i + 1 == m ? 0 : i + 1;
      best = std::min(
          best, PointSegmentSquared(px[k], py[k], qx[i], qy[i], qx[j], qy[j]));
    }
  }
  return best;
}

}  // namespace

// Why the band needs more than the SAT: the edge-normal SAT gap is a lower
// bound of the distance, but where the closest features are two vertices
// the best edge normal is up to half an exterior angle phi off the
// closest-point direction, so it sees the distance times cos(phi / 2)
// (shapes2d.h, corner_factor()): a 1-degree tip is called touching up to
// 115 tolerances away. So in the band (0, tolerance] the exact distance
// decides.
// The distance of two disjoint convex polygons P and Q is that of the
// origin to their Minkowski difference P - Q (Ericson, "Real-Time Collision
// Detection", 3.11), a convex polygon whose every edge is an edge of P
// minus a vertex of Q or a vertex of P minus an edge of Q. Its point
// nearest the origin lies on one of those edges, so the distance is the
// least vertex-to-edge distance over both directions (each such distance is
// at least the true one, and the nearest edge attains it). That holds only
// for disjoint polygons (two crossing bars have every vertex far from the
// other's edges), so the SAT is first repeated in double: the band's float
// SAT said "apart" by at most a tolerance, which round-off can get wrong
// for slivers; if no edge separates in double, the polygons intersect and
// touch. Everything is in double from the float vertices the SAT used, so
// the verdict depends only on those vertices: the paths that decide
// touching (Overlap, Contact and the sweep's start) agree bit for bit. Cost: 2
// n m point-segment distances, far more than the SAT, but only pairs in the
// band pay it.
bool PolygonsTouch(const float* ax, const float* ay, int na, const float* bx,
                   const float* by, int nb, float tolerance) {
  if (!SomeEdgeSeparates(ax, ay, na, bx, by, nb) &&
      !SomeEdgeSeparates(bx, by, nb, ax, ay, na)) {
    return true;  // They intersect (in exact arithmetic on these vertices).
  }
  const double d2 = std::min(VertexEdgeSquared(ax, ay, na, bx, by, nb),
                             VertexEdgeSquared(bx, by, nb, ax, ay, na));
  const double tol = tolerance;
  return d2 <= tol * tol;
}

// A point outside a convex polygon is nearest to one of its edges (as
// segments; Ericson 5.1.2), so its distance is the least point-to-edge
// distance. A point inside (the float test said outside by round-off) is
// inside in double too: touching.
bool PointTouchesPolygon(const float* x, const float* y, int n, Vec2 p,
                         float tolerance) {
  if (MaxScaledSeparation(x, y, n, p.x, p.y) <= 0.0) return true;
  const double d2 = VertexEdgeSquared(&p.x, &p.y, 1, x, y, n);
  const double tol = tolerance;
  return d2 <= tol * tol;
}

Vec2 ClosestPointOnSegment(Vec2 p, Vec2 a, Vec2 b) {
  const Vec2 d = b - a;
  const float dd = Dot(d, d);
  if (!(dd > 0.0f)) return a;
  const float t = std::clamp(Dot(p - a, d) / dd, 0.0f, 1.0f);
  return a + t * d;
}

CoreClosest ClosestCores(const Core& a, const Core& b) {
  if (a.count <= 2 && b.count <= 2) {
    return SegmentSegment(a.v(0), a.v(a.count - 1), b.v(0), b.v(b.count - 1));
  }
  if (a.count <= 2) return SmallPolygon(a, b);
  CoreClosest out = SmallPolygon(b, a);
  std::swap(out.pa, out.pb);
  return out;
}

bool OverlapSmallCore(const Core& a, const Core& b, float tolerance) {
  const CoreClosest c = ClosestCores(a, b);
  return c.intersecting || c.distance <= a.radius + b.radius + tolerance;
}

ContactResult<2> ContactSmallCore(const Core& a, const Core& b,
                                  float tolerance) {
  const CoreClosest c = ClosestCores(a, b);
  // Within the touching tolerance the direction between the closest points
  // is unreliable (at a few float ulps of the scale it is noise: the
  // closest point on a segment is rounded to the segment's coordinates), so
  // the cores are treated as intersecting and SAT gives the MTV: a face
  // normal, whose depth is within the tolerance of the exact one. A smaller
  // threshold (1e-3 * tolerance is below one ulp of the scale) would let a
  // segment touching another at its endpoint get a normal along the other
  // segment, which does not separate them
  // (tests/fuzz/seeds/core_pair/regression_segment_touch_normal.bin).
  if (c.intersecting || c.distance <= tolerance) {
    return ContactSat(a, b, tolerance);
  }
  ContactResult<2> result;
  const Vec2 n = (1.0f / c.distance) * (c.pb - c.pa);
  result.normal = n;
  result.depth = a.radius + b.radius - c.distance;
  result.overlapping = result.depth >= -tolerance;
  if (!result.overlapping) return result;
  // Edges lying flat on each other (a capsule on a box, ...): when the best
  // SAT edge is parallel to the closest-point direction, clip for up to two
  // points.
  if (a.count >= 2 && b.count >= 2) {
    const AxisSeparation sa = MaxSeparation(a, b);
    const AxisSeparation sb = MaxSeparation(b, a);
    const bool flip = sb.separation > sa.separation;
    const Core& ref = flip ? b : a;
    const AxisSeparation& s = flip ? sb : sa;
    const Vec2 ns = flip ? -ref.n(s.edge) : ref.n(s.edge);
    if (Dot(ns, n) > 1.0f - 1e-6f) {
      ClipContactPoints(ref, s.edge, flip ? a : b, tolerance, result);
      // Only a true two-point manifold replaces the exact closest point.
      if (result.point_count == 2) return result;
    }
  }
  result.point_count = 1;
  result.points[0] = 0.5f * ((c.pa + a.radius * n) + (c.pb - b.radius * n));
  return result;
}

}  // namespace sator::internal2d
