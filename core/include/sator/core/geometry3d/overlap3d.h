// Boolean overlap of two posed convex shapes, by the separating axis theorem.
//
// Shapes that touch (share a boundary point) overlap. The typed functions
// take B's pose in A's frame (b_in_a = MulT(pose_a, pose_b)); the variant
// form dispatches to them. See contact3d.h for the MTV.
#ifndef SATOR_CORE_GEOMETRY3D_OVERLAP3D_H_
#define SATOR_CORE_GEOMETRY3D_OVERLAP3D_H_

#include "sator/core/geometry3d/shape3d.h"
#include "sator/core/pose.h"

namespace sator {

bool Overlap(const ConvexShape3& a, const Pose3& pose_a, const ConvexShape3& b,
             const Pose3& pose_b);

// OBB-OBB with 15 axes (Gottschalk 1996; Ericson 4.4.1).
bool OverlapBoxBox(const Box3& a, const Box3& b, const Pose3& b_in_a);

// An oriented box with its frame already worked out, as a bounding-volume
// tree or a broad phase caches it: centre, unit axes (the box's local x, y
// and z, orthonormal) and half extents, all in one frame (usually the
// world). OverlapObbObb is the OBB-OBB test without the quaternion to
// matrix conversion (the same axes and tolerances as OverlapBoxBox).
struct Obb3 {
  Vec3 center;
  Vec3 axes[3];
  Vec3 half_extents;
};
Obb3 MakeObb(const Box3& box, const Pose3& pose);
bool OverlapObbObb(const Obb3& a, const Obb3& b);
// Triangle-box with 13 axes (Akenine-Moller 2001); the triangle is B.
bool OverlapBoxTriangle(const Box3& a, const Triangle3& b, const Pose3& b_in_a);
// The same test with the triangle as A.
bool OverlapTriangleBox(const Triangle3& a, const Box3& b, const Pose3& b_in_a);
bool OverlapSphereSphere(const Sphere& a, const Sphere& b, const Pose3& b_in_a);
bool OverlapSphereBox(const Sphere& a, const Box3& b, const Pose3& b_in_a);
bool OverlapCapsuleCapsule(const Capsule3& a, const Capsule3& b,
                           const Pose3& b_in_a);
// In the box's frame: the segment's distance from the box in double.
bool OverlapCapsuleBox(const Capsule3& a, const Box3& b, const Pose3& b_in_a);
bool OverlapHullHull(const ConvexHull& a, const ConvexHull& b,
                     const Pose3& b_in_a);

}  // namespace sator

#endif  // SATOR_CORE_GEOMETRY3D_OVERLAP3D_H_
