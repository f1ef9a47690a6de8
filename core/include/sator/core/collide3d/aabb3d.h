// World-space bounding boxes of posed convex shapes.
#ifndef SATOR_CORE_COLLIDE3D_AABB3D_H_
#define SATOR_CORE_COLLIDE3D_AABB3D_H_

#include "sator/core/aabb.h"
#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"

namespace sator {

// The tight AABB of `shape` placed at `pose` (exact for spheres, boxes,
// capsules, triangles and hulls, up to float round-off).
Aabb3 ComputeAabb(const ConvexShape3& shape, const Pose3& pose);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_AABB3D_H_
