// Boolean overlap of every pair of convex shapes: the overlap table's cells
// (pairs3d.h) over the typed routines (OBB-OBB in box_box.cc, triangle-box
// in box_triangle.cc, capsule-box in round_box.cc, sphere and capsule
// against a triangle in round_triangle.cc, sphere- and capsule-hull in
// round_hull.cc) and the generic SAT.
#include "sator/core/collide3d/overlap3d.h"

#include <algorithm>

#include "collide3d/pairs3d.h"
#include "collide3d/typed3d.h"
#include "convex_closest.h"
#include "convex_polytope.h"
#include "convex_round.h"
#include "hull_sat.h"
#include "round_typed.h"
#include "sat_polytope.h"

namespace sator {
namespace internal {

bool OverlapGeneric(const ConvexShape3& a, const ConvexShape3& b,
                    const Pose3& b_in_a) {
  PolyData data_a;
  PolyRef ref_a;
  if (const auto* hull = std::get_if<std::shared_ptr<const ConvexHull>>(&a)) {
    ref_a = internal::HullRef(**hull);
  } else {
    internal::MakePolyData(a, Pose3{}, &data_a);
    ref_a = data_a.Ref();
  }
  PolyData data_b;
  internal::MakePolyData(b, b_in_a, &data_b);
  const PolyRef ref_b = data_b.Ref();
  if (internal::IsRound(ref_a) || internal::IsRound(ref_b)) {
    return internal::OverlapRound(ref_a, ref_b);
  }
  return internal::SatQuery(ref_a, ref_b, /*early_out=*/true).separation <=
         0.0f;
}

}  // namespace internal

namespace {

bool PointInSphereOfBox(Vec3 center_in_box, Vec3 h, float radius) {
  const Vec3 q{std::clamp(center_in_box.x, -h.x, h.x),
               std::clamp(center_in_box.y, -h.y, h.y),
               std::clamp(center_in_box.z, -h.z, h.z)};
  return LengthSquared(center_in_box - q) <= radius * radius;
}

// A capsule placed by `capsule_in_box` against the box: the cores'
// distance in double (round_box.cc) against the radius.
bool BoxCapsule(const Box3& box, const Capsule3& capsule,
                const Pose3& capsule_in_box) {
  return internal::OverlapBoxRoundLocal(
      box.half_extents, Transform(capsule_in_box, capsule.a),
      Transform(capsule_in_box, capsule.b),
      /*segment=*/!(capsule.a == capsule.b), capsule.radius);
}

// A sphere and a capsule (either order) in A's frame, viewed in place: the
// generic OverlapRound without PolyData.
template <typename A, typename B>
bool OverlapFlat(const A& a, const B& b, const Pose3& b_in_a) {
  internal::FlatCore core_a;
  internal::FlatCore core_b;
  internal::MakeFlatCore(a, Pose3{}, &core_a);
  internal::MakeFlatCore(b, b_in_a, &core_b);
  return internal::OverlapRound(core_a.ref, core_b.ref);
}

// A sphere or capsule and a triangle (either order) in A's frame, viewed
// in place: the generic OverlapRound without PolyData (round_triangle.cc).
template <typename R>
bool OverlapRoundTriangle(const R& round, const Triangle3& t,
                          const Pose3& b_in_a) {
  internal::FlatCore core;
  internal::MakeFlatCore(round, Pose3{}, &core);
  return internal::OverlapFlatTriangle(core.ref, t, b_in_a);
}
template <typename R>
bool OverlapTriangleRound(const Triangle3& t, const R& round,
                          const Pose3& b_in_a) {
  internal::FlatCore core;
  internal::MakeFlatCore(round, b_in_a, &core);
  return internal::OverlapTriangleFlat(t, core.ref);
}

}  // namespace

bool OverlapSphereSphere(const Sphere& a, const Sphere& b,
                         const Pose3& b_in_a) {
  const float r = a.radius + b.radius;
  return LengthSquared(b_in_a.position) <= r * r;
}

bool OverlapCapsuleCapsule(const Capsule3& a, const Capsule3& b,
                           const Pose3& b_in_a) {
  // The distance from the closest points' difference in double, as
  // the capsule-capsule contact measures it (see ClosestCorePoints).
  internal::D3 ca;
  internal::D3 cb;
  internal::ClosestPointsSegmentSegmentD3(a.a, a.b, Transform(b_in_a, b.a),
                                          Transform(b_in_a, b.b), &ca, &cb);
  const double r = static_cast<double>(a.radius) + b.radius;
  const internal::D3 diff = cb - ca;
  return internal::Dot(diff, diff) <= r * r;
}

bool OverlapHullHull(const ConvexHull& a, const ConvexHull& b,
                     const Pose3& b_in_a) {
  thread_local internal::HullInA b_data;  // Scratch (see ContactHullHull).
  return internal::HullHullAxis(a, b, b_in_a, /*early_out=*/true, &b_data)
             .separation <= 0.0f;
}

namespace internal::overlap3d {

using HullPtr = std::shared_ptr<const ConvexHull>;

// The cells of the overlap table (dispatch3d.cc), each for the kinds its
// name gives (A first): world poses in.

bool SphereSphere(const ConvexShape3& a, const Pose3& pose_a,
                  const ConvexShape3& b, const Pose3& pose_b) {
  return OverlapSphereSphere(std::get<Sphere>(a), std::get<Sphere>(b),
                             MulT(pose_a, pose_b));
}
bool SphereBox(const ConvexShape3& a, const Pose3& pose_a,
               const ConvexShape3& b, const Pose3& pose_b) {
  // The sphere's centre in the box's frame.
  return PointInSphereOfBox(MulT(pose_b, pose_a).position,
                            std::get<Box3>(b).half_extents,
                            std::get<Sphere>(a).radius);
}
bool BoxSphere(const ConvexShape3& a, const Pose3& pose_a,
               const ConvexShape3& b, const Pose3& pose_b) {
  return PointInSphereOfBox(MulT(pose_a, pose_b).position,
                            std::get<Box3>(a).half_extents,
                            std::get<Sphere>(b).radius);
}
bool BoxBox(const ConvexShape3& a, const Pose3& pose_a, const ConvexShape3& b,
            const Pose3& pose_b) {
  return OverlapBoxBox(std::get<Box3>(a), std::get<Box3>(b),
                       MulT(pose_a, pose_b));
}
bool BoxTriangle(const ConvexShape3& a, const Pose3& pose_a,
                 const ConvexShape3& b, const Pose3& pose_b) {
  return OverlapBoxTriangle(std::get<Box3>(a), std::get<Triangle3>(b),
                            MulT(pose_a, pose_b));
}
bool TriangleBox(const ConvexShape3& a, const Pose3& pose_a,
                 const ConvexShape3& b, const Pose3& pose_b) {
  return OverlapTriangleBox(std::get<Triangle3>(a), std::get<Box3>(b),
                            MulT(pose_a, pose_b));
}
bool CapsuleCapsule(const ConvexShape3& a, const Pose3& pose_a,
                    const ConvexShape3& b, const Pose3& pose_b) {
  return OverlapCapsuleCapsule(std::get<Capsule3>(a), std::get<Capsule3>(b),
                               MulT(pose_a, pose_b));
}
bool CapsuleBox(const ConvexShape3& a, const Pose3& pose_a,
                const ConvexShape3& b, const Pose3& pose_b) {
  return sator::BoxCapsule(std::get<Box3>(b), std::get<Capsule3>(a),
                           MulT(pose_b, pose_a));
}
bool BoxCapsule(const ConvexShape3& a, const Pose3& pose_a,
                const ConvexShape3& b, const Pose3& pose_b) {
  return sator::BoxCapsule(std::get<Box3>(a), std::get<Capsule3>(b),
                           MulT(pose_a, pose_b));
}
bool SphereCapsule(const ConvexShape3& a, const Pose3& pose_a,
                   const ConvexShape3& b, const Pose3& pose_b) {
  return OverlapFlat(std::get<Sphere>(a), std::get<Capsule3>(b),
                     MulT(pose_a, pose_b));
}
bool CapsuleSphere(const ConvexShape3& a, const Pose3& pose_a,
                   const ConvexShape3& b, const Pose3& pose_b) {
  return OverlapFlat(std::get<Capsule3>(a), std::get<Sphere>(b),
                     MulT(pose_a, pose_b));
}
bool RoundTriangle(const ConvexShape3& a, const Pose3& pose_a,
                   const ConvexShape3& b, const Pose3& pose_b) {
  const auto& t = std::get<Triangle3>(b);
  const Pose3 b_in_a = MulT(pose_a, pose_b);
  if (const auto* sphere = std::get_if<Sphere>(&a)) {
    return OverlapRoundTriangle(*sphere, t, b_in_a);
  }
  return OverlapRoundTriangle(std::get<Capsule3>(a), t, b_in_a);
}
bool TriangleRound(const ConvexShape3& a, const Pose3& pose_a,
                   const ConvexShape3& b, const Pose3& pose_b) {
  const auto& t = std::get<Triangle3>(a);
  const Pose3 b_in_a = MulT(pose_a, pose_b);
  if (const auto* sphere = std::get_if<Sphere>(&b)) {
    return OverlapTriangleRound(t, *sphere, b_in_a);
  }
  return OverlapTriangleRound(t, std::get<Capsule3>(b), b_in_a);
}
bool HullHull(const ConvexShape3& a, const Pose3& pose_a, const ConvexShape3& b,
              const Pose3& pose_b) {
  return OverlapHullHull(*std::get<HullPtr>(a), *std::get<HullPtr>(b),
                         MulT(pose_a, pose_b));
}
bool RoundHull(const ConvexShape3& a, const Pose3& pose_a,
               const ConvexShape3& b, const Pose3& pose_b) {
  // In the hull's frame, as the contact's cell (round_hull.cc).
  FlatCore core;
  MakeFlatCore(a, MulT(pose_b, pose_a), &core);
  return OverlapHullRoundLocal(*std::get<HullPtr>(b), core.ref);
}
bool HullRound(const ConvexShape3& a, const Pose3& pose_a,
               const ConvexShape3& b, const Pose3& pose_b) {
  FlatCore core;
  MakeFlatCore(b, MulT(pose_a, pose_b), &core);
  return OverlapHullRoundLocal(*std::get<HullPtr>(a), core.ref);
}
bool Generic(const ConvexShape3& a, const Pose3& pose_a, const ConvexShape3& b,
             const Pose3& pose_b) {
  return OverlapGeneric(a, b, MulT(pose_a, pose_b));
}

}  // namespace internal::overlap3d

}  // namespace sator
