// Boolean overlap of two posed convex shapes, by the separating axis theorem.
//
// Shapes that touch (share a boundary point) overlap. See contact3d.h for
// the MTV.
#ifndef SATOR_CORE_COLLIDE3D_OVERLAP3D_H_
#define SATOR_CORE_COLLIDE3D_OVERLAP3D_H_

#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"

namespace sator {

bool Overlap(const ConvexShape3& a, const Pose3& pose_a, const ConvexShape3& b,
             const Pose3& pose_b);

// An oriented box with its frame already worked out, as a bounding-volume
// tree or a broad phase caches it: centre, unit axes (the box's local x, y
// and z, orthonormal) and half extents, all in one frame (usually the
// world). OverlapObbObb is the OBB-OBB test without the quaternion to
// matrix conversion (the same axes and tolerances as Overlap on two boxes).
struct Obb3 {
  Vec3 center;
  Vec3 axes[3];
  Vec3 half_extents;
};
Obb3 MakeObb(const Box3& box, const Pose3& pose);
bool OverlapObbObb(const Obb3& a, const Obb3& b);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_OVERLAP3D_H_
