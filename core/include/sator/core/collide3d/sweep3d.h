// Sweeps: the first time of impact of two convex shapes moving linearly
// (without rotating) by `displacement_a` and `displacement_b` over t in
// [0, 1].
//
// - Polytope pairs (box, triangle, hull): SAT over time, exact (every axis
//   of the static test gives an entry and an exit time; the impact is the
//   latest entry if it comes before the earliest exit).
// - Pairs with a sphere or a capsule: an exact ray against the Minkowski
//   sum: a sphere against X is the ray of its centre against X grown by the
//   radius; capsule pairs decompose into rays against rounded segments,
//   parallelograms and polytopes.
//
// Outcomes (query_types.h): kStartedOverlapping when the shapes overlap or
// touch at t = 0, with `initial` = Contact(a, pose_a, b, pose_b) (never a
// kHit at t = 0); kHit with fraction in (0, 1], the unit normal from A to B
// at impact and a contact point (world frame, at the time of impact);
// kMiss otherwise. Swapping A and B gives the same fraction and the negated
// normal. See docs/core/collide3d-casts-and-meshes.md.
#ifndef SATOR_CORE_COLLIDE3D_SWEEP3D_H_
#define SATOR_CORE_COLLIDE3D_SWEEP3D_H_

#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"
#include "sator/core/vec.h"

namespace sator {

SweepResult<3> Sweep(const ConvexShape3& a, const Pose3& pose_a,
                     Vec3 displacement_a, const ConvexShape3& b,
                     const Pose3& pose_b, Vec3 displacement_b);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_SWEEP3D_H_
