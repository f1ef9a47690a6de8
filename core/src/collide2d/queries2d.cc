// The public 2D queries: the dispatch table (which function answers each
// pair of shape kinds) and the mapping between the world and A's frame.
// GCC's SLP vectoriser packs these small scalar pose and result updates into
// vector loads of values just stored as scalars, which stalls on store
// forwarding (measured: generic Contact 2x slower); keep them scalar.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

#include "sator/core/collide2d/queries2d.h"

#include <cmath>
#include <variant>

#include "collide2d/core2d.h"
#include "collide2d/pairs2d.h"
#include "sator/core/collide2d/level2d.h"

namespace sator {
namespace {

using internal2d::ContactFn;
using internal2d::OverlapFn;
using internal2d::RayCastFn;
using internal2d::SweepFn;

// The answers for one ordered pair of shape kinds.
struct PairFunctions {
  OverlapFn overlap;
  ContactFn contact;
  SweepFn sweep;
};

constexpr PairFunctions kGeneral{internal2d::OverlapGeneral,
                                 internal2d::ContactGeneral,
                                 internal2d::SweepGeneral};
constexpr PairFunctions kPolygonPolygon{internal2d::OverlapPolygons,
                                        internal2d::ContactPolygons,
                                        internal2d::SweepGeneral};
constexpr PairFunctions kPolygonCircle{internal2d::OverlapPolygonCircle,
                                       internal2d::ContactPolygonCircle,
                                       internal2d::SweepGeneral};
constexpr PairFunctions kCirclePolygon{internal2d::OverlapCirclePolygon,
                                       internal2d::ContactCirclePolygon,
                                       internal2d::SweepGeneral};
constexpr PairFunctions kConvexLevel{internal2d::OverlapConvexLevel,
                                     internal2d::ContactConvexLevel,
                                     internal2d::SweepConvexLevel};
constexpr PairFunctions kLevelConvex{internal2d::OverlapLevelConvex,
                                     internal2d::ContactLevelConvex,
                                     internal2d::SweepLevelConvex};
constexpr PairFunctions kLevels{internal2d::OverlapLevels,
                                internal2d::ContactLevels,
                                internal2d::SweepLevels};

// Shape2's alternatives, in order.
enum Kind : int { kCircle, kBox, kPolygon, kCapsule, kSegment, kLevel, kKinds };
static_assert(kKinds == std::variant_size_v<Shape2>);

// Rows: A's kind; columns: B's kind; both in Shape2's order.
// clang-format off
constexpr PairFunctions kPairs[kKinds][kKinds] = {
  // B: Circle         Box           Polygon          Capsule       Segment       Level          A:
     {kGeneral,        kGeneral,     kCirclePolygon,  kGeneral,     kGeneral,     kConvexLevel},  // Circle
     {kGeneral,        kGeneral,     kGeneral,        kGeneral,     kGeneral,     kConvexLevel},  // Box
     {kPolygonCircle,  kGeneral,     kPolygonPolygon, kGeneral,     kGeneral,     kConvexLevel},  // Polygon
     {kGeneral,        kGeneral,     kGeneral,        kGeneral,     kGeneral,     kConvexLevel},  // Capsule
     {kGeneral,        kGeneral,     kGeneral,        kGeneral,     kGeneral,     kConvexLevel},  // Segment
     {kLevelConvex,    kLevelConvex, kLevelConvex,    kLevelConvex, kLevelConvex, kLevels},       // Level
};
// clang-format on

// The ray against one shape, by its kind.
constexpr RayCastFn kRayCasts[kKinds] = {
    internal2d::RayCastGeneral,  // Circle
    internal2d::RayCastGeneral,  // Box
    internal2d::RayCastPolygon,  // Polygon
    internal2d::RayCastGeneral,  // Capsule
    internal2d::RayCastGeneral,  // Segment
    internal2d::RayCastLevel,    // Level
};

const PairFunctions& For(const Shape2& a, const Shape2& b) {
  return kPairs[a.index()][b.index()];
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

// ---- In A's frame -----------------------------------------------------------

bool OverlapLocal(const Shape2& a, const Shape2& b, const Pose2& b_in_a) {
  return For(a, b).overlap(a, b, b_in_a);
}

ContactResult<2> ContactLocal(const Shape2& a, const Shape2& b,
                              const Pose2& b_in_a) {
  return For(a, b).contact(a, b, b_in_a);
}

SweepResult<2> SweepLocal(const Shape2& a, const Shape2& b, const Pose2& b_in_a,
                          Vec2 motion) {
  return For(a, b).sweep(a, b, b_in_a, motion);
}

RayResult<2> RayCastLocal(const Shape2& shape, const Ray<2>& ray) {
  return kRayCasts[shape.index()](shape, ray);
}

// ---- World frame ------------------------------------------------------------

bool Overlap(const Shape2& a, const Pose2& pose_a, const Shape2& b,
             const Pose2& pose_b) {
  return OverlapLocal(a, b, MulT(pose_a, pose_b));
}

ContactResult<2> Contact(const Shape2& a, const Pose2& pose_a, const Shape2& b,
                         const Pose2& pose_b) {
  ContactResult<2> c = For(a, b).contact(a, b, MulT(pose_a, pose_b));
  ToWorld(c, pose_a);
  return c;
}

SweepResult<2> Sweep(const Shape2& a, const Pose2& pose_a, Vec2 displacement_a,
                     const Shape2& b, const Pose2& pose_b,
                     Vec2 displacement_b) {
  const Vec2 motion =
      InvRotate(pose_a.rotation, displacement_b - displacement_a);
  SweepResult<2> r = For(a, b).sweep(a, b, MulT(pose_a, pose_b), motion);
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
  RayResult<2> r = kRayCasts[shape.index()](shape, local);
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
    case kSegment: {
      const auto& s = internal2d::As<Segment2>(shape);
      const Vec2 a = Transform(pose, s.a);
      const Vec2 b = Transform(pose, s.b);
      return {Min(a, b), Max(a, b)};
    }
    default: {
      // The level's local box, its corners placed by the pose.
      const Aabb2& local =
          internal2d::As<std::shared_ptr<const Level2>>(shape)->local_bounds();
      Vec2 lo = Transform(pose, local.min);
      Vec2 hi = lo;
      for (Vec2 corner : {Vec2{local.max.x, local.min.y}, local.max,
                          Vec2{local.min.x, local.max.y}}) {
        const Vec2 v = Transform(pose, corner);
        lo = Min(lo, v);
        hi = Max(hi, v);
      }
      return {lo, hi};
    }
  }
}

}  // namespace sator
