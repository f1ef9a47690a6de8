// Private: the typed pair routines that the dispatch tables' cells
// (pairs3d.h) call, each taking B's pose in A's frame (b_in_a =
// MulT(pose_a, pose_b)); a contact's result is in A's frame. The public
// entry points are Overlap and Contact (overlap3d.h, contact3d.h).
#ifndef SATOR_CORE_SRC_COLLIDE3D_TYPED3D_H_
#define SATOR_CORE_SRC_COLLIDE3D_TYPED3D_H_

#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"

namespace sator {

// OBB-OBB with 15 axes (Gottschalk 1996; Ericson 4.4.1).
bool OverlapBoxBox(const Box3& a, const Box3& b, const Pose3& b_in_a);
// Triangle-box with 13 axes (Akenine-Moller 2001); the triangle is B.
bool OverlapBoxTriangle(const Box3& a, const Triangle3& b, const Pose3& b_in_a);
// The same test with the triangle as A.
bool OverlapTriangleBox(const Triangle3& a, const Box3& b, const Pose3& b_in_a);
bool OverlapSphereSphere(const Sphere& a, const Sphere& b, const Pose3& b_in_a);
bool OverlapCapsuleCapsule(const Capsule3& a, const Capsule3& b,
                           const Pose3& b_in_a);
bool OverlapHullHull(const ConvexHull& a, const ConvexHull& b,
                     const Pose3& b_in_a);

ContactResult<3> ContactBoxBox(const Box3& a, const Box3& b,
                               const Pose3& b_in_a);
ContactResult<3> ContactHullHull(const ConvexHull& a, const ConvexHull& b,
                                 const Pose3& b_in_a);

}  // namespace sator

#endif  // SATOR_CORE_SRC_COLLIDE3D_TYPED3D_H_
