// Ray casts against one shape, in the shape's frame.
//
// Polygons and boxes: Cyrus-Beck clipping of the ray against the edge
// half-planes (Cyrus and Beck, "Generalized two- and three-dimensional
// clipping", Computers & Graphics 3(1), 1978; Ericson, "Real-Time Collision
// Detection" (2005), 5.3.8): each half-plane n.(x - v) <= 0 clips the
// parameter interval [lower, upper]; the ray hits if the interval stays
// non-empty, at `lower`, on the edge that raised it last.
// Circles and capsules: cast2d.h. Segments: the 2x2 linear system of two
// lines solved with cross products (Ericson 5.1.9.1), the parallel case
// handled on its own.
// A ray whose origin is inside the shape, or within the touching tolerance
// of it, reports started_inside (query_types.h). Polygons are read in place
// and first try an early reject by their bounding disc (RayCastPolygon).
#include <algorithm>

#include "collide2d/cast2d.h"
#include "collide2d/core2d.h"
#include "collide2d/distance2d.h"
#include "collide2d/pairs2d.h"
#include "collide2d/sat2d.h"
#include "simd/float4.h"

namespace sator::internal2d {
namespace {

RayResult<2> Inside(const Ray<2>& ray) {
  RayResult<2> r;
  r.hit = true;
  r.started_inside = true;
  r.distance = 0.0f;
  r.point = ray.origin;
  return r;
}

RayResult<2> FromCast(const CastHit& h, const Ray<2>& ray) {
  RayResult<2> r;
  if (!h.hit) return r;
  r.hit = true;
  r.distance = h.t;
  r.point = ray.origin + h.t * ray.direction;
  r.normal = h.normal;
  r.feature = h.feature;
  return r;
}

// The clipping of RayConvex again in double, for an interval that float
// left too thin to trust: each num and den is a dot product of floats,
// exact in double but for one rounding of the sum, where in float each
// carries a few ulps of the coordinates, and num / den that over |den|.
// Near a sharp corner two nearly parallel edge lines cut the ray a hair
// apart (a tip of angle phi passed at distance s is cut at parameters
// about s phi apart), below float's resolution of the parameter, so float
// could keep a ray that passes the tip well beyond the tolerance (a
// needle of angle 3e-5 passed at 2e-5, 50 times the tolerance, would report
// a hit 2e-5 off the polygon). False when the interval
// is empty; else its lower end and the edge that raised it.
template <typename VertexFn, typename NormalFn>
[[gnu::cold, gnu::noinline]] bool ClipInDouble(int count, VertexFn vertex,
                                               NormalFn normal,
                                               const Ray<2>& ray, float upper,
                                               double* lower_out,
                                               int* index_out) {
  const double ox = ray.origin.x;
  const double oy = ray.origin.y;
  double lower = 0.0;
  double upper_d = upper;
  int index = -1;
  for (int i = 0; i < count; ++i) {
    // The edge's line through both its vertices, its normal formed in
    // double: the stored unit normal is off by up to an ulp in angle, which
    // turns the line about vertex i and moves a grazing crossing along the
    // ray by the edge's length times that over the sine (7e-4 for a needle
    // 1.4 long). Oriented as the stored one (edge i runs from vertex i to
    // vertex i + 1, shapes2d.h).
    const Vec2 v = vertex(i);
    const Vec2 w = vertex(i + 1 == count ? 0 : i + 1);
    double nx = static_cast<double>(w.y) - v.y;
    double ny = static_cast<double>(v.x) - w.x;
    const Vec2 stored = normal(i);
    if (nx * stored.x + ny * stored.y < 0.0) {
      nx = -nx;
      ny = -ny;
    }
    if (nx == 0.0 && ny == 0.0) {
      nx = stored.x;
      ny = stored.y;
    }
    const double num = nx * (v.x - ox) + ny * (v.y - oy);
    const double den = nx * ray.direction.x + ny * ray.direction.y;
    if (den == 0.0) {
      if (num < 0.0) return false;
    } else if (den < 0.0) {
      const double t = num / den;
      if (t > lower) {
        lower = t;
        index = i;
      }
    } else {
      upper_d = std::min(upper_d, num / den);
    }
  }
  if (upper_d < lower || index < 0) return false;
  *lower_out = lower;
  *index_out = index;
  return true;
}

// Cyrus-Beck over a convex polygon in SoA form (a Core, or a ConvexPolygon
// read in place as a PolygonRef: vx, vy, nx, ny padded to a multiple of 4
// lanes with copies of edge 0).
template <typename Poly>
RayResult<2> RayConvex(const Poly& poly, const Ray<2>& ray, float tolerance) {
  const int count = poly.count;
  const auto vertex = [&](int i) { return Vec2{poly.vx[i], poly.vy[i]}; };
  const auto normal = [&](int i) { return Vec2{poly.nx[i], poly.ny[i]}; };
  const Vec2 o = ray.origin;
  const Vec2 d = ray.direction;
  // n_i.(o + t d - v_i) <= 0  <=>  t * den_i <= num_i, with num_i =
  // n_i.(v_i - o) and den_i = n_i.d, four edges at a time (the operations
  // of Dot, in its order).
  using simd::Float4;
  float nums[kMaxPolygonVertices];
  float dens[kMaxPolygonVertices];
  Float4 lowest4 = Float4::Splat(kInfinity);
  for (int k = 0; k < count; k += 4) {
    const Float4 nx = Float4::Load(poly.nx + k);
    const Float4 ny = Float4::Load(poly.ny + k);
    const Float4 num = nx * (Float4::Load(poly.vx + k) - Float4::Splat(o.x)) +
                       ny * (Float4::Load(poly.vy + k) - Float4::Splat(o.y));
    num.Store(nums + k);
    (nx * Float4::Splat(d.x) + ny * Float4::Splat(d.y)).Store(dens + k);
    lowest4 = simd::Min(lowest4, num);
  }
  // The origin is inside (within the tolerance) when it lies within the
  // tolerance of the polygon: every num >= -tol is necessary, and enough
  // when every num >= 0 (truly inside); in between (outside some edge line
  // by at most the tolerance) the exact distance decides, as for pairs (a
  // sharp corner's half-planes reach tol / cos(phi / 2) past its tip).
  const float lowest = simd::MinLane(lowest4);
  if (!(lowest < -tolerance) &&
      (!(lowest < 0.0f) ||
       PointTouchesPolygon(poly.vx, poly.vy, count, o, tolerance))) {
    return Inside(ray);
  }
  // The interval [lower, upper] of t, upper capped at kMaxClipDistance so
  // that no product t * den overflows (|den| <= 1 but for round-off, and
  // max_distance may be FLT_MAX): a hit farther than 1e37 is not reported,
  // where a float point along the ray is off by more than 1e30 anyway.
  constexpr float kMaxClipDistance = 1e37f;
  float lower = 0.0f;
  float lower_den = -1.0f;  // The den of the edge that raised `lower`.
  float upper = std::min(ray.max_distance, kMaxClipDistance);
  int index = -1;
  RayResult<2> r;
  for (int i = 0; i < count; ++i) {
    // Each quotient num / den is compared with the interval before it is
    // formed (a direction with a subnormal component makes den tiny and the
    // quotient overflow), so every one formed lies in [0, upper].
    const float num = nums[i];
    const float den = dens[i];
    if (den == 0.0f) {
      if (num < 0.0f) return r;
    } else if (den < 0.0f && num < lower * den) {
      // Entering this half-plane after lower; after upper too: empty.
      if (num < upper * den) return r;
      lower = num / den;
      lower_den = den;
      index = i;
    } else if (den > 0.0f && num < upper * den) {
      upper = num / den;  // Leaving it, before upper.
    }
    if (upper < lower) return r;
  }
  // The origin is outside some edge line, so the loop has entered it
  // (index >= 0, a hit at lower > 0) or ended early above.
  if (index < 0) return r;
  // An interval thinner than float can resolve (its ends carry a few ulps
  // of the problem's scale, more over a small |den|; the scale is tol /
  // kTouchingRelativeTolerance): decided again in double. So is an entry
  // through an edge the ray meets at a grazing angle (|den|, the sine, below
  // kGrazingSine): lower = num / den then carries the few ulps of num and
  // den over |den|, about 2.4e-7 t / |den|, above the tolerance below a sine
  // of about 1e-2. Mid-edge that only slides the point along the edge, but
  // at a needle's tip, with the ray along the needle, it puts the point
  // before the tip, off the polygon (a needle 4e-5 thick and 1.4 long, the
  // ray along its edge: the point 1.7e-3 short of the tip).
  // Rare for rays that hit, so off the hot path.
  constexpr float kGrazingSine = 1e-2f;
  if (upper - lower <= 1e-3f * upper + 100.0f * tolerance ||
      lower_den > -kGrazingSine) {
    double lower_d;
    if (!ClipInDouble(count, vertex, normal, ray,
                      std::min(ray.max_distance, kMaxClipDistance), &lower_d,
                      &index)) {
      return r;
    }
    lower = static_cast<float>(lower_d);
  }
  r.hit = true;
  r.distance = lower;
  r.point = o + lower * d;
  r.normal = normal(index);
  r.feature = index;
  return r;
}

RayResult<2> RayPolygon(const Core& core, const Ray<2>& ray, float tolerance) {
  return RayConvex(core, ray, tolerance);
}

RayResult<2> RaySegment(Vec2 a, Vec2 b, const Ray<2>& ray, float tolerance) {
  const Vec2 o = ray.origin;
  const Vec2 d = ray.direction;
  if (Length(o - ClosestPointOnSegment(o, a, b)) <= tolerance) {
    return Inside(ray);
  }
  RayResult<2> r;
  const Vec2 e = b - a;
  const float length = Length(e);
  const float denom = Cross(d, e);
  const Vec2 ao = a - o;
  if (std::fabs(denom) <= 1e-7f * length) {
    // Parallel: a hit only if collinear, at the nearer end point ahead.
    if (std::fabs(Cross(ao, d)) > tolerance) return r;
    const float ta = Dot(ao, d);
    const float tb = Dot(b - o, d);
    const float t = std::min(ta, tb);
    if (t < 0.0f || t > ray.max_distance) return r;
    r.hit = true;
    r.distance = t;
    r.point = o + t * d;
    r.normal = -d;
    r.feature = 0;
    return r;
  }
  const float t = Cross(ao, e) / denom;
  const float u = Cross(ao, d) / denom;
  if (t < 0.0f || t > ray.max_distance || u < 0.0f || u > 1.0f) return r;
  Vec2 n = (1.0f / length) * RightPerp(e);
  if (Dot(n, d) > 0.0f) n = -n;
  r.hit = true;
  r.distance = t;
  r.point = o + t * d;
  r.normal = n;
  r.feature = 0;
  return r;
}

RayResult<2> RayCastCore(const Core& core, const Ray<2>& ray) {
  const float tolerance = TouchingTolerance(core.extent + L1(ray.origin));
  if (core.count == 1) {
    const float r = core.radius;
    if (LengthSquared(ray.origin - core.v(0)) <=
        (r + tolerance) * (r + tolerance)) {
      return Inside(ray);
    }
    return FromCast(CastPointCircle(ray.origin, ray.direction, core.v(0), r,
                                    ray.max_distance),
                    ray);
  }
  if (core.count == 2) {
    if (core.radius == 0.0f) {
      return RaySegment(core.v(0), core.v(1), ray, tolerance);
    }
    const Vec2 q = ClosestPointOnSegment(ray.origin, core.v(0), core.v(1));
    if (Length(ray.origin - q) <= core.radius + tolerance) return Inside(ray);
    return FromCast(CastPointCapsule(ray.origin, ray.direction, core.v(0),
                                     core.v(1), core.radius, ray.max_distance),
                    ray);
  }
  return RayPolygon(core, ray, tolerance);
}

}  // namespace

RayResult<2> RayCastGeneral(const Shape2& shape, const Ray<2>& ray) {
  Core core;
  MakeCore(shape, core);
  return RayCastCore(core, ray);
}

RayResult<2> RayCastPolygon(const Shape2& shape, const Ray<2>& ray) {
  const auto& polygon = As<ConvexPolygon>(shape);
  const float tolerance = TouchingTolerance(polygon.extent() + L1(ray.origin));
  // Early reject by the bounding disc (centroid c, radius R, shapes2d.h).
  // Every point the clipping could report (a boundary point, or an origin
  // with n_i.(o - v_i) <= tol for all i) lies in the polygon grown by tol
  // along each edge normal, whose vertices are tol / cos(phi / 2) from the
  // original ones (phi the exterior angle), so within R + tol /
  // corner_factor of c. If the closest point of the ray's segment [0,
  // max_distance] to c is farther, the loop below would find nothing.
  // Compared multiplied by corner_factor (no division); 1.1 tol covers the
  // round-off of the closest point (a few ulps of the scale, which the
  // tolerance exceeds 80-fold).
  const Vec2 to_c = polygon.centroid() - ray.origin;
  const float along =
      std::clamp(Dot(to_c, ray.direction), 0.0f, ray.max_distance);
  const Vec2 off = to_c - along * ray.direction;
  const float cf = polygon.corner_factor();
  const float reach = polygon.bounding_radius() * cf + 1.1f * tolerance;
  if (LengthSquared(off) * (cf * cf) > reach * reach) return RayResult<2>{};
  return RayConvex(PolygonRef(polygon), ray, tolerance);
}

}  // namespace sator::internal2d
