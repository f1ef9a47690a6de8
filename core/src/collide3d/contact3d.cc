// The MTV of every pair of convex shapes: the contact table's cells
// (pairs3d.h) and the typed routines they call. The algorithms live in
// sat_polytope.cc (polytopes), convex_round.cc (spheres and capsules),
// round_box.cc (a sphere or capsule against a box), round_triangle.cc (a sphere
// or capsule against a triangle), round_hull.cc (against a hull) and box_box.cc
// (OBB-OBB).
#include "sator/core/collide3d/contact3d.h"

#include "collide3d/pairs3d.h"
#include "collide3d/typed3d.h"
#include "convex_polytope.h"
#include "convex_round.h"
#include "hull_sat.h"
#include "round_typed.h"
#include "sat_polytope.h"

namespace sator {
namespace internal {

// Any pair, B's features placed in A's frame.
ContactResult<3> ContactGeneric(const ConvexShape3& a, const ConvexShape3& b,
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
    return internal::ContactRound(ref_a, ref_b);
  }
  ContactResult<3> result;
  internal::FillContact(ref_a, ref_b,
                        internal::SatQuery(ref_a, ref_b, /*early_out=*/false),
                        &result);
  return result;
}

}  // namespace internal

namespace {

using internal::FlatCore;

// Two point or segment cores in A's frame, viewed in place: the generic
// ContactRound on them, without PolyData (the same answer bit for bit).
template <typename A, typename B>
ContactResult<3> ContactFlat(const A& a, const B& b, const Pose3& b_in_a) {
  FlatCore core_a;
  FlatCore core_b;
  internal::MakeFlatCore(a, Pose3{}, &core_a);
  internal::MakeFlatCore(b, b_in_a, &core_b);
  return internal::ContactRound(core_a.ref, core_b.ref);
}

// A sphere or capsule (A, in its own frame) against a triangle placed by
// `b_in_a`, and a triangle (A) against a sphere or capsule placed by
// `b_in_a`: views of both cores, the generic ContactRound on them
// (round_triangle.cc).
template <typename R>
ContactResult<3> RoundTriangle(const R& round, const Triangle3& t,
                               const Pose3& b_in_a) {
  FlatCore core;
  internal::MakeFlatCore(round, Pose3{}, &core);
  return internal::ContactFlatTriangle(core.ref, t, b_in_a);
}
template <typename R>
ContactResult<3> TriangleRound(const Triangle3& t, const R& round,
                               const Pose3& b_in_a) {
  FlatCore core;
  internal::MakeFlatCore(round, b_in_a, &core);
  return internal::ContactTriangleFlat(t, core.ref);
}

// A sphere or capsule placed by `round_in_box` against the box, in the
// box's frame, the normal from the box to the round shape.
ContactResult<3> BoxRound(const Box3& box, const Sphere& sphere,
                          const Pose3& round_in_box) {
  const Vec3 p = Transform(round_in_box, Vec3{});
  return internal::ContactBoxRoundLocal(box.half_extents, p, p,
                                        /*segment=*/false, sphere.radius);
}
ContactResult<3> BoxRound(const Box3& box, const Capsule3& capsule,
                          const Pose3& round_in_box) {
  // A zero-length capsule is a sphere (as MakePolyData has it).
  return internal::ContactBoxRoundLocal(
      box.half_extents, Transform(round_in_box, capsule.a),
      Transform(round_in_box, capsule.b),
      /*segment=*/!(capsule.a == capsule.b), capsule.radius);
}

// f applied to the sphere or capsule that `shape` holds (a visit over the
// round alternatives only; the caller has checked the kind).
template <typename F>
ContactResult<3> VisitRound(const ConvexShape3& shape, F&& f) {
  if (const auto* sphere = std::get_if<Sphere>(&shape)) return f(*sphere);
  return f(std::get<Capsule3>(shape));
}

// A sphere or capsule and a hull (either order) in the hull's frame
// (round_hull.cc), flipped when the hull is B.
ContactResult<3> HullRound(const ConvexShape3& a, const Pose3& pose_a,
                           const ConvexShape3& b, const Pose3& pose_b,
                           const Pose3& b_in_a) {
  using HullPtr = std::shared_ptr<const ConvexHull>;
  FlatCore core;
  if (const auto* hull = std::get_if<HullPtr>(&a)) {
    internal::MakeFlatCore(b, b_in_a, &core);
    return ToWorld(internal::ContactHullRoundLocal(**hull, core.ref), pose_a);
  }
  internal::MakeFlatCore(a, MulT(pose_b, pose_a), &core);
  return ToWorld(
      Flip(internal::ContactHullRoundLocal(*std::get<HullPtr>(b), core.ref)),
      pose_b);
}

}  // namespace

ContactResult<3> ContactHullHull(const ConvexHull& a, const ConvexHull& b,
                                 const Pose3& b_in_a) {
  // Per-thread scratch for B's features in A's frame (about 3 KB): a local
  // one would be zero-initialised on every call.
  thread_local internal::HullInA b_data;
  const internal::SatAxis axis =
      internal::HullHullAxis(a, b, b_in_a, /*early_out=*/false, &b_data);
  ContactResult<3> result;
  if (axis.separation > 0.0f) {
    // Apart: what FillContact reports then (no points), without building
    // the two shapes' references (about half of the calls).
    result.normal = axis.normal;
    result.depth = -axis.separation;
    return result;
  }
  internal::FillContactMinkowskiEdges(internal::HullRef(a), b_data.Ref(b), axis,
                                      &result);
  return result;
}

ContactResult<3> Flip(const ContactResult<3>& result) {
  ContactResult<3> out = result;
  out.normal = -result.normal;
  return out;
}

ContactResult<3> ToWorld(const ContactResult<3>& result, const Pose3& pose_a) {
  ContactResult<3> out = result;
  out.normal = Rotate(pose_a.rotation, result.normal);
  for (int i = 0; i < result.point_count; ++i) {
    out.points[i] = Transform(pose_a, result.points[i]);
  }
  return out;
}

namespace internal::contact3d {

using HullPtr = std::shared_ptr<const ConvexHull>;

// The cells of the contact table (dispatch3d.cc), each for the kinds its
// name gives (A first): world poses in, the world contact out.

ContactResult<3> BoxBox(const ConvexShape3& a, const Pose3& pose_a,
                        const ConvexShape3& b, const Pose3& pose_b) {
  return ToWorld(
      ContactBoxBox(std::get<Box3>(a), std::get<Box3>(b), MulT(pose_a, pose_b)),
      pose_a);
}
ContactResult<3> HullHull(const ConvexShape3& a, const Pose3& pose_a,
                          const ConvexShape3& b, const Pose3& pose_b) {
  return ToWorld(ContactHullHull(*std::get<HullPtr>(a), *std::get<HullPtr>(b),
                                 MulT(pose_a, pose_b)),
                 pose_a);
}
// Spheres and capsules, in A's frame.
ContactResult<3> RoundRound(const ConvexShape3& a, const Pose3& pose_a,
                            const ConvexShape3& b, const Pose3& pose_b) {
  const Pose3 b_in_a = MulT(pose_a, pose_b);
  const auto with_a = [&](const auto& round_a) {
    return VisitRound(b, [&](const auto& round_b) {
      return ContactFlat(round_a, round_b, b_in_a);
    });
  };
  return ToWorld(VisitRound(a, with_a), pose_a);
}
// A sphere or capsule against a box, in the box's frame.
ContactResult<3> RoundBox(const ConvexShape3& a, const Pose3& pose_a,
                          const ConvexShape3& b, const Pose3& pose_b) {
  const Box3& box = std::get<Box3>(b);
  const Pose3 a_in_b = MulT(pose_b, pose_a);
  const auto against_box = [&](const auto& round) {
    return sator::BoxRound(box, round, a_in_b);
  };
  return ToWorld(Flip(VisitRound(a, against_box)), pose_b);
}
ContactResult<3> BoxRound(const ConvexShape3& a, const Pose3& pose_a,
                          const ConvexShape3& b, const Pose3& pose_b) {
  const Box3& box = std::get<Box3>(a);
  const Pose3 b_in_a = MulT(pose_a, pose_b);
  const auto against_box = [&](const auto& round) {
    return sator::BoxRound(box, round, b_in_a);
  };
  return ToWorld(VisitRound(b, against_box), pose_a);
}
// A sphere or capsule and a triangle, in A's frame.
ContactResult<3> RoundTriangle(const ConvexShape3& a, const Pose3& pose_a,
                               const ConvexShape3& b, const Pose3& pose_b) {
  const auto& t = std::get<Triangle3>(b);
  const Pose3 b_in_a = MulT(pose_a, pose_b);
  const auto against_triangle = [&](const auto& round) {
    return sator::RoundTriangle(round, t, b_in_a);
  };
  return ToWorld(VisitRound(a, against_triangle), pose_a);
}
ContactResult<3> TriangleRound(const ConvexShape3& a, const Pose3& pose_a,
                               const ConvexShape3& b, const Pose3& pose_b) {
  const auto& t = std::get<Triangle3>(a);
  const Pose3 b_in_a = MulT(pose_a, pose_b);
  const auto against_round = [&](const auto& round) {
    return sator::TriangleRound(t, round, b_in_a);
  };
  return ToWorld(VisitRound(b, against_round), pose_a);
}
// A sphere or capsule and a hull, either order, in the hull's frame.
ContactResult<3> HullAndRound(const ConvexShape3& a, const Pose3& pose_a,
                              const ConvexShape3& b, const Pose3& pose_b) {
  return HullRound(a, pose_a, b, pose_b, MulT(pose_a, pose_b));
}
ContactResult<3> Generic(const ConvexShape3& a, const Pose3& pose_a,
                         const ConvexShape3& b, const Pose3& pose_b) {
  return ToWorld(ContactGeneric(a, b, MulT(pose_a, pose_b)), pose_a);
}

}  // namespace internal::contact3d

}  // namespace sator
