// The public 2D queries: one dispatch on the pair of shape kinds, the typed
// fast paths, and the mapping between world and A's frame.
//
// Box against box (OverlapBoxBox) is the 2D case of the OBB test of
// Gottschalk, Lin and Manocha, "OBBTree" (SIGGRAPH 1996) / Ericson,
// "Real-Time Collision Detection" (2005), 4.4.1: with B's centre d and
// rotation R in A's frame, the four axes are A's x and y and R's columns;
// on axis L the boxes are apart when |d.L| exceeds the sum of their
// projected radii, sum_k h_k |e_k . L|.
// Polygon against circle (OverlapPolygonCircle, ContactPolygonCircle): the
// edge of largest separation of the centre, then its Voronoi regions
// (Ericson 5.2.7; see distance2d.cc for why that edge is enough).
// GCC's SLP vectoriser packs these small scalar pose and result updates into
// vector loads of values just stored as scalars, which stalls on store
// forwarding (measured: generic Contact 2x slower); keep them scalar.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

#include "sator/core/geometry2d/queries2d.h"

#include "geometry2d/core2d.h"
#include "geometry2d/distance2d.h"
#include "geometry2d/raycast2d.h"
#include "geometry2d/sat2d.h"
#include "geometry2d/sweep2d.h"

namespace sator {
namespace {

using internal2d::Core;

enum Kind : int {
  kCircle = 0,
  kBox = 1,
  kPolygon = 2,
  kCapsule = 3,
  kSegment = 4,
};
constexpr int Pair(int a, int b) { return a * 5 + b; }

Pose2 Inverse(const Pose2& pose) {
  return {InvRotate(pose.rotation, -pose.position),
          {pose.rotation.c, -pose.rotation.s}};
}

// Circle B (centre c, radius r) against polygon A, both in A's frame.
ContactResult<2> PolygonCircle(const ConvexPolygon& a, Vec2 c, float r,
                               float extent, bool overlap_only,
                               bool* overlaps) {
  ContactResult<2> result;
  int best = 0;
  float s = -internal2d::kInfinity;
  const int n = a.count();
  for (int i = 0; i < n; ++i) {
    const float si = Dot(a.normal(i), c - a.vertex(i));
    best = si > s ? i : best;
    s = std::max(s, si);
  }
  // The pair's tolerance needs |c| (a square root); |c.x| + |c.y| >= |c|
  // bounds it from above, enough to decide most separated pairs.
  const float loose = TouchingTolerance(extent + internal2d::L1(c));
  const Vec2 normal_best = a.normal(best);
  if (s > r + loose) {
    // Separated along this edge's normal; as Box2D does, stop here and
    // report the gap along that axis (a lower bound on the distance).
    *overlaps = false;
    result.normal = normal_best;
    result.depth = r - s;
    return result;
  }
  const float tolerance = TouchingTolerance(extent + Length(c));
  if (s > r + tolerance) {
    *overlaps = false;
    result.normal = normal_best;
    result.depth = r - s;
    return result;
  }
  if (s <= 0.0f) {
    // Centre inside: the MTV is along the least-deep edge normal.
    result.overlapping = true;
    result.normal = normal_best;
    result.depth = r - s;
    result.point_count = 1;
    result.points[0] = c - (0.5f * (s + r)) * normal_best;
    *overlaps = true;
    return result;
  }
  // Outside: the closest feature is edge `best` or one of its end points
  // (Voronoi regions by two dot products; no division on the edge).
  const Vec2 v1 = a.vertex(best);
  const Vec2 v2 = a.vertex(best + 1 == n ? 0 : best + 1);
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
  *overlaps = distance <= r + tolerance;
  if (overlap_only) return result;
  result.normal = normal;
  result.depth = r - distance;
  result.overlapping = *overlaps;
  if (result.overlapping) {
    result.point_count = 1;
    result.points[0] = 0.5f * (q + c - r * normal);
  }
  return result;
}

// In place (no copies of the result: copying a struct just written field
// by field stalls on store forwarding).
void FlipContact(ContactResult<2>& c, const Pose2& a_in_b) {
  // c is B-against-A in B's frame; map to A-against-B in A's frame.
  const Pose2 b_in_a = Inverse(a_in_b);
  c.normal = -Rotate(b_in_a.rotation, c.normal);
  for (int i = 0; i < c.point_count; ++i) {
    c.points[static_cast<size_t>(i)] =
        Transform(b_in_a, c.points[static_cast<size_t>(i)]);
  }
}

// Point by point, not as a loop: GCC's loop vectoriser turned the loop into
// one 16-byte load of both points, which the query that returned them had
// just stored as four floats (a store-forwarding stall on every contact).
void ToWorld(ContactResult<2>& c, const Pose2& pose_a) {
  static_assert(kMaxContactPoints<2> == 2);
  c.normal = Rotate(pose_a.rotation, c.normal);
  if (c.point_count > 0) c.points[0] = Transform(pose_a, c.points[0]);
  if (c.point_count > 1) c.points[1] = Transform(pose_a, c.points[1]);
}

}  // namespace

// ---- Typed fast paths -------------------------------------------------------

bool OverlapBoxBox(const Box2& a, const Box2& b, const Pose2& b_in_a) {
  const Vec2 ha = a.half_extents;
  const Vec2 hb = b.half_extents;
  const Vec2 d = b_in_a.position;
  const float c = b_in_a.rotation.c;
  const float s = b_in_a.rotation.s;
  const float ac = std::fabs(c);
  const float as = std::fabs(s);
  const float tolerance =
      TouchingTolerance(ha.x + ha.y + hb.x + hb.y + Length(d));
  // On each axis: apart by more than the tolerance ends the test; apart by
  // less (a gap in (0, tol]) leaves the verdict to the exact distance
  // (sat2d.h, PolygonsOverlap). Testing the gap against 0 first keeps
  // overlapping pairs to one compare per axis; the inner test is taken only
  // by pairs apart on that axis, and almost all of those are apart by more.
  bool within = false;
  // A's axes: B's projected radius along x is hb.x |c| + hb.y |s|.
  const float dx = std::fabs(d.x);
  const float rx = ha.x + hb.x * ac + hb.y * as;
  if (dx > rx) {
    if (dx > rx + tolerance) return false;
    within = true;
  }
  const float dy = std::fabs(d.y);
  const float ry = ha.y + hb.x * as + hb.y * ac;
  if (dy > ry) {
    if (dy > ry + tolerance) return false;
    within = true;
  }
  // B's axes u = (c, s) and v = (-s, c).
  const float du = std::fabs(c * d.x + s * d.y);
  const float ru = hb.x + ha.x * ac + ha.y * as;
  if (du > ru) {
    if (du > ru + tolerance) return false;
    within = true;
  }
  const float dv = std::fabs(c * d.y - s * d.x);
  const float rv = hb.y + ha.x * as + ha.y * ac;
  if (!(dv <= rv)) {
    // (Written so that a NaN is apart, as before.)
    if (!(dv <= rv + tolerance)) return false;
    within = true;
  }
  if (within) [[unlikely]] {
    return internal2d::BoxesTouch(ha, hb, b_in_a, tolerance);
  }
  return true;
}

bool OverlapPolygons(const ConvexPolygon& a, const ConvexPolygon& b,
                     const Pose2& b_in_a) {
  // Bounding and inscribed discs about the centroids first (shapes2d.h):
  // inscribed discs that meet prove a common point; bounding discs apart
  // by more than tolerance / corner_factor prove that some edge normal
  // separates by more than the tolerance (see corner_factor()), so both
  // early outs give the SAT's own answer.
  const Vec2 gap = Transform(b_in_a, b.centroid()) - a.centroid();
  const float gap2 = LengthSquared(gap);
  const float inner = a.inner_radius() + b.inner_radius();
  if (gap2 <= inner * inner) return true;
  // |p|_1 >= |p|: an upper bound of the pair's tolerance without a root.
  const float loose_tolerance = TouchingTolerance(
      a.extent() + b.extent() + internal2d::L1(b_in_a.position));
  const float outer =
      a.bounding_radius() + b.bounding_radius() +
      1.01f * loose_tolerance / std::min(a.corner_factor(), b.corner_factor());
  if (gap2 > outer * outer) return false;
  Core cb;
  internal2d::MakeTransformedPolygonCore(b, b_in_a, cb);
  const internal2d::PolygonRef ca(a);
  const float tolerance =
      TouchingTolerance(a.extent() + b.extent() + Length(b_in_a.position));
  return internal2d::PolygonsOverlap(ca, cb, tolerance);
}

bool OverlapPolygonCircle(const ConvexPolygon& a, const Circle& b,
                          const Pose2& b_in_a) {
  bool overlaps = false;
  PolygonCircle(a, b_in_a.position, b.radius, a.extent() + b.radius, true,
                &overlaps);
  return overlaps;
}

namespace {

// ContactPolygons for polygons of more than 8 vertices (or a pose beyond
// 1e12): two cores, about 1 KB of stack, out of line so that the register
// path's caller needs no frame of that size.
[[gnu::noinline]] ContactResult<2> ContactLargePolygons(const ConvexPolygon& a,
                                                        const ConvexPolygon& b,
                                                        const Pose2& b_in_a) {
  Core ca;
  Core cb;
  internal2d::MakePolygonCore(a, ca);
  internal2d::MakePolygonCore(b, cb);
  internal2d::TransformCore(b_in_a, cb);
  return internal2d::ContactSat(ca, cb,
                                internal2d::PairTolerance(ca, cb, b_in_a));
}

}  // namespace

ContactResult<2> ContactPolygons(const ConvexPolygon& a, const ConvexPolygon& b,
                                 const Pose2& b_in_a) {
  if (internal2d::FitsSmallPolygons(a, b, b_in_a)) {
    // PairTolerance's sum, in its order.
    const float tolerance =
        TouchingTolerance(a.extent() + b.extent() + Length(b_in_a.position));
    if (internal2d::SmallPolygonsUseAvx()) {
      return internal2d::ContactSmallPolygonsAvx(a, b, b_in_a, tolerance);
    }
    return internal2d::ContactSmallPolygons(a, b, b_in_a, tolerance);
  }
  return ContactLargePolygons(a, b, b_in_a);
}

ContactResult<2> ContactPolygonCircle(const ConvexPolygon& a, const Circle& b,
                                      const Pose2& b_in_a) {
  bool overlaps = false;
  return PolygonCircle(a, b_in_a.position, b.radius, a.extent() + b.radius,
                       false, &overlaps);
}

SweepResult<2> SweepPolygons(const ConvexPolygon& a, const ConvexPolygon& b,
                             const Pose2& b_in_a, Vec2 motion) {
  Core ca;
  Core cb;
  internal2d::MakePolygonCore(a, ca);
  internal2d::MakePolygonCore(b, cb);
  internal2d::TransformCore(b_in_a, cb);
  return internal2d::SweepCores(ca, cb, motion,
                                internal2d::PairTolerance(ca, cb, b_in_a));
}

RayResult<2> RayCastBox(const Box2& box, const Ray<2>& ray) {
  Core core;
  internal2d::MakeBoxCore(box, core);
  return internal2d::RayCastCore(core, ray);
}

RayResult<2> RayCastCircle(const Circle& circle, const Ray<2>& ray) {
  Core core;
  internal2d::MakeCore(Shape2{circle}, core);
  return internal2d::RayCastCore(core, ray);
}

// ---- Generic, in A's frame --------------------------------------------------

bool OverlapLocal(const Shape2& a, const Shape2& b, const Pose2& b_in_a) {
  switch (Pair(static_cast<int>(a.index()), static_cast<int>(b.index()))) {
    case Pair(kBox, kBox):
      return OverlapBoxBox(internal2d::As<Box2>(a), internal2d::As<Box2>(b),
                           b_in_a);
    case Pair(kPolygon, kPolygon):
      return OverlapPolygons(internal2d::As<ConvexPolygon>(a),
                             internal2d::As<ConvexPolygon>(b), b_in_a);
    case Pair(kPolygon, kCircle):
      return OverlapPolygonCircle(internal2d::As<ConvexPolygon>(a),
                                  internal2d::As<Circle>(b), b_in_a);
    case Pair(kCircle, kPolygon):
      return OverlapPolygonCircle(internal2d::As<ConvexPolygon>(b),
                                  internal2d::As<Circle>(a), Inverse(b_in_a));
    case Pair(kCircle, kCircle): {
      const float r =
          internal2d::As<Circle>(a).radius + internal2d::As<Circle>(b).radius;
      const float tolerance = TouchingTolerance(r + Length(b_in_a.position));
      return LengthSquared(b_in_a.position) <=
             (r + tolerance) * (r + tolerance);
    }
    default:
      break;
  }
  Core ca;
  Core cb;
  internal2d::MakeCore(a, ca);
  internal2d::MakeCore(b, cb);
  internal2d::TransformCore(b_in_a, cb);
  const float tolerance = internal2d::PairTolerance(ca, cb, b_in_a);
  if (ca.count <= 2 || cb.count <= 2) {
    return internal2d::OverlapSmallCore(ca, cb, tolerance);
  }
  return internal2d::PolygonsOverlap(ca, cb, tolerance);
}

ContactResult<2> ContactLocal(const Shape2& a, const Shape2& b,
                              const Pose2& b_in_a) {
  switch (Pair(static_cast<int>(a.index()), static_cast<int>(b.index()))) {
    case Pair(kBox, kBox):
      return ContactBoxBox(internal2d::As<Box2>(a), internal2d::As<Box2>(b),
                           b_in_a);
    case Pair(kPolygon, kPolygon):
      return ContactPolygons(internal2d::As<ConvexPolygon>(a),
                             internal2d::As<ConvexPolygon>(b), b_in_a);
    case Pair(kPolygon, kCircle):
      return ContactPolygonCircle(internal2d::As<ConvexPolygon>(a),
                                  internal2d::As<Circle>(b), b_in_a);
    case Pair(kCircle, kPolygon): {
      const Pose2 a_in_b = Inverse(b_in_a);
      ContactResult<2> c = ContactPolygonCircle(
          internal2d::As<ConvexPolygon>(b), internal2d::As<Circle>(a), a_in_b);
      FlipContact(c, a_in_b);
      return c;
    }
    default:
      break;
  }
  Core ca;
  Core cb;
  internal2d::MakeCore(a, ca);
  internal2d::MakeCore(b, cb);
  internal2d::TransformCore(b_in_a, cb);
  return internal2d::ContactCores(ca, cb,
                                  internal2d::PairTolerance(ca, cb, b_in_a));
}

SweepResult<2> SweepLocal(const Shape2& a, const Shape2& b, const Pose2& b_in_a,
                          Vec2 motion) {
  if (a.index() == kBox && b.index() == kBox) {
    return SweepBoxBox(internal2d::As<Box2>(a), internal2d::As<Box2>(b), b_in_a,
                       motion);
  }
  Core ca;
  Core cb;
  internal2d::MakeCore(a, ca);
  internal2d::MakeCore(b, cb);
  internal2d::TransformCore(b_in_a, cb);
  return internal2d::SweepCores(ca, cb, motion,
                                internal2d::PairTolerance(ca, cb, b_in_a));
}

RayResult<2> RayCastLocal(const Shape2& shape, const Ray<2>& ray) {
  if (shape.index() == kPolygon) {
    return RayCastPolygon(internal2d::As<ConvexPolygon>(shape), ray);
  }
  Core core;
  internal2d::MakeCore(shape, core);
  return internal2d::RayCastCore(core, ray);
}

// ---- Generic, world frame
// -----------------------------------------------------

bool Overlap(const Shape2& a, const Pose2& pose_a, const Shape2& b,
             const Pose2& pose_b) {
  return OverlapLocal(a, b, MulT(pose_a, pose_b));
}

ContactResult<2> Contact(const Shape2& a, const Pose2& pose_a, const Shape2& b,
                         const Pose2& pose_b) {
  ContactResult<2> c = ContactLocal(a, b, MulT(pose_a, pose_b));
  ToWorld(c, pose_a);
  return c;
}

SweepResult<2> Sweep(const Shape2& a, const Pose2& pose_a, Vec2 displacement_a,
                     const Shape2& b, const Pose2& pose_b,
                     Vec2 displacement_b) {
  const Vec2 motion =
      InvRotate(pose_a.rotation, displacement_b - displacement_a);
  const Pose2 b_in_a = MulT(pose_a, pose_b);
  // Two boxes straight to their sweep (one call fewer than via SweepLocal).
  SweepResult<2> r = a.index() == kBox && b.index() == kBox
                         ? SweepBoxBox(internal2d::As<Box2>(a),
                                       internal2d::As<Box2>(b), b_in_a, motion)
                         : SweepLocal(a, b, b_in_a, motion);
  switch (r.outcome) {
    case SweepOutcome::kHit:
      r.normal = Rotate(pose_a.rotation, r.normal);
      r.point = Transform(pose_a, r.point) + r.fraction * displacement_a;
      break;
    case SweepOutcome::kStartedOverlapping:
      ToWorld(r.initial, pose_a);
      break;
    case SweepOutcome::kMiss:
      break;
  }
  return r;
}

RayResult<2> RayCast(const Shape2& shape, const Pose2& pose,
                     const Ray<2>& ray) {
  const Ray<2> local{InvTransform(pose, ray.origin),
                     InvRotate(pose.rotation, ray.direction), ray.max_distance};
  // Polygons straight to their ray (one call fewer than via RayCastLocal).
  RayResult<2> r =
      shape.index() == kPolygon
          ? RayCastPolygon(internal2d::As<ConvexPolygon>(shape), local)
          : RayCastLocal(shape, local);
  if (r.started_inside) {
    r.point = ray.origin;
  } else if (r.hit) {
    r.point = ray.origin + r.distance * ray.direction;
    r.normal = Rotate(pose.rotation, r.normal);
  }
  return r;
}

Aabb2 ComputeAabb(const Shape2& shape, const Pose2& pose) {
  const Vec2 p = pose.position;
  switch (shape.index()) {
    case kCircle: {
      const float r = internal2d::As<Circle>(shape).radius;
      return {{p.x - r, p.y - r}, {p.x + r, p.y + r}};
    }
    case kBox: {
      const Vec2 h = internal2d::As<Box2>(shape).half_extents;
      const float ac = std::fabs(pose.rotation.c);
      const float as = std::fabs(pose.rotation.s);
      const Vec2 e{h.x * ac + h.y * as, h.x * as + h.y * ac};
      return {p - e, p + e};
    }
    case kPolygon: {
      const auto& polygon = internal2d::As<ConvexPolygon>(shape);
      Vec2 lo = Transform(pose, polygon.vertex(0));
      Vec2 hi = lo;
      for (int i = 1; i < polygon.count(); ++i) {
        const Vec2 v = Transform(pose, polygon.vertex(i));
        lo = Min(lo, v);
        hi = Max(hi, v);
      }
      return {lo, hi};
    }
    case kCapsule: {
      const auto& c = internal2d::As<Capsule2>(shape);
      const Vec2 a = Transform(pose, c.a);
      const Vec2 b = Transform(pose, c.b);
      const Vec2 r{c.radius, c.radius};
      return {Min(a, b) - r, Max(a, b) + r};
    }
    default: {
      const auto& s = internal2d::As<Segment2>(shape);
      const Vec2 a = Transform(pose, s.a);
      const Vec2 b = Transform(pose, s.b);
      return {Min(a, b), Max(a, b)};
    }
  }
}

}  // namespace sator
