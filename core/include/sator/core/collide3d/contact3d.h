// The minimum translation vector (MTV) of two posed convex shapes.
//
// Polytopes (box, triangle, hull) by SAT: the axis of least overlap over
// the face normals of both shapes and the edge-edge cross products (pruned
// by the Gauss map for hulls, Gregorius GDC 2013). Round shapes (sphere,
// capsule) through the closest features of their cores (point, segment):
// exact distance while the cores are apart, SAT on the cores plus the radii
// once they intersect. See docs/core/collide3d.md.
//
// The result follows query_types.h: `normal` is a unit vector from A to B
// in the world frame; `depth` > 0 when overlapping; up to 4 contact points,
// midway between the surfaces. For separated shapes `depth` is minus the gap
// along the best axis found (the exact distance for pairs with a round
// shape; a lower bound on it for polytope pairs) and no points are given.
// Shapes overlap when depth >= 0 (touching counts).
#ifndef SATOR_CORE_COLLIDE3D_CONTACT3D_H_
#define SATOR_CORE_COLLIDE3D_CONTACT3D_H_

#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"

namespace sator {

ContactResult<3> Contact(const ConvexShape3& a, const Pose3& pose_a,
                         const ConvexShape3& b, const Pose3& pose_b);

// Flips a result so that it answers the pair (B, A): the normal is negated;
// depth and points are unchanged.
ContactResult<3> Flip(const ContactResult<3>& result);

// Maps a result from A's frame to the world frame of `pose_a`.
ContactResult<3> ToWorld(const ContactResult<3>& result, const Pose3& pose_a);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_CONTACT3D_H_
