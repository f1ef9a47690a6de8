// Polygon against circle: overlap and contact in one pass over the edges.
//
// The edge of largest separation of the circle's centre c, then its Voronoi
// regions (Ericson, "Real-Time Collision Detection" (2005), 5.2.7; the
// method of Box2D's b2CollidePolygonAndCircle, in our own code): for a
// centre outside a convex polygon the closest feature is that edge or one of
// its two end vertices (distance2d.cc gives the reason), and for a centre
// inside, that edge's normal is the MTV. A centre separated along the edge's
// normal by more than r + tolerance is apart, with that gap as the
// (lower-bound) depth, as Box2D stops there.
//
// The separations are taken four edges at a time (simd/float4.h) and the
// edge is the lowest lane equal to their maximum: the first edge of largest
// separation, as a scalar scan with a strict > keeps. Padded lanes repeat
// edge 0 and come after it, so they never win.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "collide2d/core2d.h"
#include "collide2d/pairs2d.h"
#include "sator/core/collide2d/tolerance2d.h"
#include "simd/float4.h"

namespace sator::internal2d {
namespace {

struct PointSeparation {
  int edge = 0;
  float separation = 0.0f;
};

// The edge of `polygon` that separates the point c the most.
PointSeparation MaxSeparationOfPoint(const ConvexPolygon& polygon, Vec2 c) {
  using simd::Float4;
  const Float4 cx = Float4::Splat(c.x);
  const Float4 cy = Float4::Splat(c.y);
  Float4 sep[kMaxPolygonVertices / 4];
  const int groups = (polygon.count() + 3) / 4;
  Float4 top = Float4::Splat(-std::numeric_limits<float>::infinity());
  for (int g = 0; g < groups; ++g) {
    const int k = 4 * g;
    sep[g] = Float4::Load(polygon.normal_xs() + k) *
                 (cx - Float4::Load(polygon.xs() + k)) +
             Float4::Load(polygon.normal_ys() + k) *
                 (cy - Float4::Load(polygon.ys() + k));
    top = Max(top, sep[g]);
  }
  PointSeparation best;
  best.separation =
      std::max(std::max(top[0], top[1]), std::max(top[2], top[3]));
  const Float4 highest = Float4::Splat(best.separation);
  for (int g = 0; g < groups; ++g) {
    const int bits = simd::LaneBits(sep[g] == highest);
    if (bits != 0) {
      best.edge = 4 * g + std::countr_zero(static_cast<unsigned>(bits));
      break;
    }
  }
  return best;
}

// The contact of circle (centre c, radius r) against polygon `a`, both in
// A's frame. With `overlap_only`, stops once the verdict is known (the
// result then holds only `overlapping`).
template <bool kOverlapOnly>
ContactResult<2> PolygonCircle(const ConvexPolygon& a, Vec2 c, float r) {
  ContactResult<2> result;
  const PointSeparation best = MaxSeparationOfPoint(a, c);
  const float s = best.separation;
  const Vec2 normal_best = a.normal(best.edge);
  const float extent = a.extent() + r;
  // The pair's tolerance needs |c| (a square root); |c.x| + |c.y| >= |c|
  // bounds it from above, enough to decide most separated pairs. The exact
  // one is formed only for a pair that no cheaper test decides.
  if (s > r + TouchingTolerance(extent + L1(c))) {
    result.normal = normal_best;
    result.depth = r - s;
    return result;
  }
  if (s <= 0.0f) {
    // Centre inside: the MTV is along the least-deep edge normal.
    result.overlapping = true;
    if (kOverlapOnly) return result;
    result.normal = normal_best;
    result.depth = r - s;
    result.point_count = 1;
    result.points[0] = c - (0.5f * (s + r)) * normal_best;
    return result;
  }
  // Outside: the closest feature is edge `best` or one of its end points
  // (Voronoi regions by two dot products; no division on the edge).
  const int n = a.count();
  const Vec2 v1 = a.vertex(best.edge);
  const Vec2 v2 = a.vertex(best.edge + 1 == n ? 0 : best.edge + 1);
  Vec2 q;
  Vec2 normal;
  float distance;
  if (Dot(c - v1, v2 - v1) <= 0.0f || Dot(c - v2, v1 - v2) <= 0.0f) {
    q = Dot(c - v1, v2 - v1) <= 0.0f ? v1 : v2;
    const Vec2 dv = c - q;
    distance = Length(dv);
    normal = distance > 0.0f ? (1.0f / distance) * dv : normal_best;
  } else {
    distance = s;
    normal = normal_best;
    q = c - s * normal_best;
  }
  result.overlapping = distance <= r;
  if (!result.overlapping) {
    // Apart, or touching within the tolerance: the exact one decides; apart
    // along the edge's normal by more than it, the gap there is the depth.
    const float tolerance = TouchingTolerance(extent + Length(c));
    if (s > r + tolerance) {
      result.normal = normal_best;
      result.depth = r - s;
      return result;
    }
    result.overlapping = distance <= r + tolerance;
  }
  if (kOverlapOnly) return result;
  result.normal = normal;
  result.depth = r - distance;
  if (result.overlapping) {
    result.point_count = 1;
    result.points[0] = 0.5f * (q + c - r * normal);
  }
  return result;
}

Pose2 Inverse(const Pose2& pose) {
  return {InvRotate(pose.rotation, -pose.position),
          {pose.rotation.c, -pose.rotation.s}};
}

}  // namespace

bool OverlapPolygonCircle(const Shape2& a, const Shape2& b,
                          const Pose2& b_in_a) {
  return PolygonCircle<true>(As<ConvexPolygon>(a), b_in_a.position,
                             As<Circle>(b).radius)
      .overlapping;
}

bool OverlapCirclePolygon(const Shape2& a, const Shape2& b,
                          const Pose2& b_in_a) {
  return PolygonCircle<true>(As<ConvexPolygon>(b), Inverse(b_in_a).position,
                             As<Circle>(a).radius)
      .overlapping;
}

ContactResult<2> ContactPolygonCircle(const Shape2& a, const Shape2& b,
                                      const Pose2& b_in_a) {
  return PolygonCircle<false>(As<ConvexPolygon>(a), b_in_a.position,
                              As<Circle>(b).radius);
}

ContactResult<2> ContactCirclePolygon(const Shape2& a, const Shape2& b,
                                      const Pose2& b_in_a) {
  // The polygon's contact in its own frame, mapped to A's (the circle's)
  // and turned to point from A to B. In place: copying a result just
  // written field by field stalls on store forwarding.
  ContactResult<2> c = PolygonCircle<false>(
      As<ConvexPolygon>(b), Inverse(b_in_a).position, As<Circle>(a).radius);
  c.normal = -Rotate(b_in_a.rotation, c.normal);
  for (int i = 0; i < c.point_count; ++i) {
    c.points[static_cast<size_t>(i)] =
        Transform(b_in_a, c.points[static_cast<size_t>(i)]);
  }
  return c;
}

}  // namespace sator::internal2d
