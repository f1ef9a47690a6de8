// Pair queries and ray casts on 2D shapes.
//
// The entry points take world poses (Overlap, Contact, Sweep, RayCast,
// ComputeAabb): they compute B's pose relative to A once (MulT), look up the
// function for the pair of shape kinds in one table, work in A's frame and
// map results back to the world frame. The *Local forms take B's pose in
// A's frame and answer in A's frame.
//
// Semantics of the results are those of sator/core/query_types.h; the
// touching tolerance is that of tolerance2d.h. Inputs are assumed valid
// (ValidateShape, ValidatePose, a unit ray direction): the service validates
// every request before it reaches here. No query allocates.
#ifndef SATOR_CORE_COLLIDE2D_QUERIES2D_H_
#define SATOR_CORE_COLLIDE2D_QUERIES2D_H_

#include "sator/core/aabb.h"
#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"

namespace sator {

// ---- World frame -----------------------------------------------------------

// True when the shapes overlap or touch within the touching tolerance: their
// exact distance is at most the tolerance (for boxes and polygons too, whose
// edge-normal SAT alone would let sharp corners touch from farther).
bool Overlap(const Shape2& a, const Pose2& pose_a, const Shape2& b,
             const Pose2& pose_b);

// The minimum translation vector (normal from A to B, depth > 0) with up to
// two contact points when overlapping; when separated, overlapping is false
// and depth is minus the gap along the best axis: the exact distance for
// pairs with a capsule or segment, and for a circle against a box, capsule,
// segment or circle; a lower bound (the best SAT axis) for polygon/box
// pairs and for a circle against a ConvexPolygon (Box2D's early out).
ContactResult<2> Contact(const Shape2& a, const Pose2& pose_a, const Shape2& b,
                         const Pose2& pose_b);

// A moves by displacement_a and B by displacement_b over t in [0, 1],
// linearly, without rotating. Exact time of first touch (SAT over time for
// polygons, capsule casts for round shapes): the first t at which the
// separation reaches 0. Shapes that overlap or touch at t = 0 give
// kStartedOverlapping with the MTV in `initial`. Shapes that never reach
// separation 0 but come within the touching tolerance (the pair's at t = 0)
// on the way graze: kHit at the first t at which their distance is within
// it. Otherwise kMiss.
SweepResult<2> Sweep(const Shape2& a, const Pose2& pose_a, Vec2 displacement_a,
                     const Shape2& b, const Pose2& pose_b, Vec2 displacement_b);

// A ray against one shape. A ray whose origin is inside the shape (or within
// the touching tolerance of it) reports hit and started_inside, distance 0.
// `feature` is the polygon/box edge index hit (box edges: 0 bottom, 1 right,
// 2 top, 3 left), 0 for a segment or a capsule side, -1 otherwise.
RayResult<2> RayCast(const Shape2& shape, const Pose2& pose, const Ray<2>& ray);

// The tight world-frame AABB of the shape at the pose.
Aabb2 ComputeAabb(const Shape2& shape, const Pose2& pose);

// ---- In A's frame -----------------------------------------------------------
// b_in_a = MulT(pose_a, pose_b); results are in A's frame.
bool OverlapLocal(const Shape2& a, const Shape2& b, const Pose2& b_in_a);
ContactResult<2> ContactLocal(const Shape2& a, const Shape2& b,
                              const Pose2& b_in_a);
// `motion` is B's displacement relative to A, in A's frame:
// InvRotate(pose_a.rotation, displacement_b - displacement_a).
SweepResult<2> SweepLocal(const Shape2& a, const Shape2& b, const Pose2& b_in_a,
                          Vec2 motion);
// The ray in the shape's frame.
RayResult<2> RayCastLocal(const Shape2& shape, const Ray<2>& ray);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE2D_QUERIES2D_H_
