// Private: the sweep of two polytopes (box, triangle, hull) by the separating
// axis theorem over time.
//
// Under linear relative motion v (B's displacement minus A's, t in [0, 1]),
// the projections of A and B on a fixed axis L are intervals [a0, a1] and
// [b0 + s t, b1 + s t] with s = dot(v, L). Turning L so that s >= 0, they
// overlap for t in [(a0 - b1) / s, (a1 - b0) / s]. The polytopes touch at the
// first t at which every axis of the separating-axis test overlaps: the
// latest entry time, if it is no later than the earliest exit time (Ericson,
// "Real-Time Collision Detection", 5.5.8, the moving-OBB form of Gottschalk's
// test; van den Bergen, "Collision Detection in Interactive 3D Environments",
// 2003, on SAT for continuous tests). Exact, for every axis of the static
// test: face normals of both shapes and the cross products of their edges
// (Gottschalk 1996 for boxes; Akenine-Moller 2001 for a triangle; for hulls
// the edge pairs are pruned by the Gauss map: only pairs whose arcs cross
// make faces of the Minkowski difference, Gregorius, "The Separating Axis
// Test between Convex Polyhedra", GDC 2013). A triangle is flat: its face
// normal serves both sides, and the in-plane edge normals n x e are added,
// which the coplanar case needs and which never hurt (any axis is a valid
// separation test).
//
// The entry and exit times are only divided out when they fall in [0, 1]
// (numerator and s compared first), so no axis can overflow.
#ifndef SATOR_CORE_SRC_COLLIDE3D_SWEEP_SAT_H_
#define SATOR_CORE_SRC_COLLIDE3D_SWEEP_SAT_H_

#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator::internal {

enum class SatSweepStatus { kMiss, kHit, kStartedOverlapping };

struct SatSweepResult {
  SatSweepStatus status = SatSweepStatus::kMiss;
  float t = 1.0f;
  Vec3 normal{};  // Unit, from A to B, in A's frame.
  Vec3 point{};   // At time t, in A's frame at time t.
};

// A and B are boxes, triangles or hulls (not spheres or capsules); B is
// placed by b_in_a; v is B's displacement relative to A, in A's frame.
SatSweepResult SweepPolytopes(const ConvexShape3& a, const ConvexShape3& b,
                              const Pose3& b_in_a, Vec3 v);

// Box against box with the 15 axes of Gottschalk's OBB test evaluated from
// the rotation matrix (no vertices unless there is a hit): the fast path of
// SweepPolytopes for this pair, with the same answers.
SatSweepResult SweepBoxBox(const Box3& a, const Box3& b, const Pose3& b_in_a,
                           Vec3 v);

// Box A against triangle B whose vertices `b` are already in A's frame (the
// mesh sweep transforms each triangle once and keeps A's pose and v for the
// whole query): the 16 axes of SweepPolytopes for this pair (A's 3 faces,
// B's normal and its 3 in-plane side normals, the 9 edge crosses), in the
// same order and with the same arithmetic, without building the generic
// feature lists. A box at the origin projects on an axis L to [-r, r] with
// r = |L.x| hx + |L.y| hy + |L.z| hz, which is exactly the largest of the
// corners' dot products in float (rounded addition is monotone, and the
// corner with L's signs has every term at its largest), so the answers are
// SweepPolytopes's to the bit (Akenine-Moller, "Fast 3D Triangle-Box
// Overlap Testing", 2001, for the 13 axes; Eberly, "Intersection of Convex
// Objects: The Method of Separating Axes", for each axis over time).
// Without `with_point` a hit's point is left zero (a mesh sweep needs the
// point of its best hit only, and asks again for that triangle). A hit later
// than t_max may be reported as a miss, found as soon as an axis enters after
// it (a mesh sweep passes its best hit so far; 1 gives every answer).
SatSweepResult SweepBoxTriangle(const Box3& a, const Vec3 (&b)[3], Vec3 v,
                                bool with_point, float t_max);

// The same without the Gauss-map pruning (every edge pair is an axis): the
// reference the pruned version is tested against.
SatSweepResult SweepPolytopesUnpruned(const ConvexShape3& a,
                                      const ConvexShape3& b,
                                      const Pose3& b_in_a, Vec3 v);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_SWEEP_SAT_H_
