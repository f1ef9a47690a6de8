// The MTV of every pair of convex shapes: the typed fast paths and the
// variant dispatch. The algorithms live in sat_polytope.cc (polytopes),
// convex_round.cc (spheres and capsules) and box_box.cc (OBB-OBB).
#include "sator/core/geometry3d/contact3d.h"

#include "convex_polytope.h"
#include "convex_round.h"
#include "hull_sat.h"
#include "sat_polytope.h"

namespace sator {
namespace {

using internal::PolyData;
using internal::PolyRef;

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

}  // namespace

ContactResult<3> ContactHullHull(const ConvexHull& a, const ConvexHull& b,
                                 const Pose3& b_in_a) {
  // Per-thread scratch for B's features in A's frame (about 3 KB): a local
  // one would be zero-initialised on every call.
  thread_local internal::HullInA b_data;
  const internal::SatAxis axis =
      internal::HullHullAxis(a, b, b_in_a, /*early_out=*/false, &b_data);
  ContactResult<3> result;
  internal::FillContactMinkowskiEdges(internal::HullRef(a), b_data.Ref(b), axis,
                                      &result);
  return result;
}

ContactResult<3> ContactSphereSphere(const Sphere& a, const Sphere& b,
                                     const Pose3& b_in_a) {
  return ContactGeneric(a, b, b_in_a);
}

ContactResult<3> ContactCapsuleCapsule(const Capsule3& a, const Capsule3& b,
                                       const Pose3& b_in_a) {
  return ContactGeneric(a, b, b_in_a);
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

ContactResult<3> Contact(const ConvexShape3& a, const Pose3& pose_a,
                         const ConvexShape3& b, const Pose3& pose_b) {
  const Pose3 b_in_a = MulT(pose_a, pose_b);
  if (const auto* box_a = std::get_if<Box3>(&a)) {
    if (const auto* box_b = std::get_if<Box3>(&b)) {
      return ToWorld(ContactBoxBox(*box_a, *box_b, b_in_a), pose_a);
    }
  }
  if (const auto* hull_a = std::get_if<std::shared_ptr<const ConvexHull>>(&a)) {
    if (const auto* hull_b =
            std::get_if<std::shared_ptr<const ConvexHull>>(&b)) {
      return ToWorld(ContactHullHull(**hull_a, **hull_b, b_in_a), pose_a);
    }
  }
  return ToWorld(ContactGeneric(a, b, b_in_a), pose_a);
}

}  // namespace sator
