// Private: the typed paths of Contact and Overlap for round pairs (a sphere
// or capsule against a sphere, capsule, box or hull), which skip the two 5 KB
// PolyData records of the generic path, and that generic path itself, kept
// callable so that tests can compare the two.
//
// Sphere and capsule pairs: the cores are viewed in place (a PolyRef over
// one or two vertices in A's frame, placed exactly as MakePolyData places
// them) and go through the generic ContactRound / OverlapRound, whose work
// for two point or segment cores is small: the answers are the generic
// path's, bit for bit.
//
// A sphere or capsule against a box (round_box.cc): the round core in the
// box's frame, where the box is [-h, h]: the closest points by a 1D convex
// minimisation along the segment, the cores' SAT over the box's 3 face
// normals and the segment crossed with its 3 edge directions, in double.
//
// A sphere or capsule against a hull (round_hull.cc): the round core placed
// in the hull's frame and the hull read in place (HullRef), through the
// generic ContactRound / OverlapRound: the generic path's answer with the
// hull as A, bit for bit.
#ifndef SATOR_CORE_SRC_GEOMETRY3D_ROUND_TYPED_H_
#define SATOR_CORE_SRC_GEOMETRY3D_ROUND_TYPED_H_

#include "convex_polytope.h"
#include "sator/core/geometry3d/shape3d.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"
#include "sator/core/vec.h"

namespace sator::internal {

// The generic paths (every pair, B's features placed in A's frame), as
// Contact and Overlap ran them for every round pair before the typed paths.
ContactResult<3> ContactGeneric(const ConvexShape3& a, const ConvexShape3& b,
                                const Pose3& b_in_a);
bool OverlapGeneric(const ConvexShape3& a, const ConvexShape3& b,
                    const Pose3& b_in_a);

// Storage for a point or segment core.
struct FlatCore {
  Vec3 vertices[2];
  PolyRef ref;
};

// The core of a sphere or capsule placed by `pose`, with the same floats as
// MakePolyData (a zero-length capsule is a point core).
void MakeFlatCore(const Sphere& s, const Pose3& pose, FlatCore* out);
void MakeFlatCore(const Capsule3& c, const Pose3& pose, FlatCore* out);
// The same for a shape holding a sphere or a capsule (round_hull.cc).
void MakeFlatCore(const ConvexShape3& round, const Pose3& pose, FlatCore* out);

// A point core (`segment` false: q is ignored) or segment core [p, q] of
// radius r in the frame of a box of half extents h: the MTV from the box to
// the round shape, in the box's frame.
ContactResult<3> ContactBoxRoundLocal(Vec3 h, Vec3 p, Vec3 q, bool segment,
                                      float radius);
// Whether the same pair overlaps (the cores' distance in double <= r).
bool OverlapBoxRoundLocal(Vec3 h, Vec3 p, Vec3 q, bool segment, float radius);

// A point or segment core `round` (a FlatCore placed in the hull's frame)
// against the hull, in the hull's frame (round_hull.cc): the MTV from the
// hull to the round shape, bit for bit the generic path's with the hull as
// A (ContactRound on HullRef(hull) and the same core).
ContactResult<3> ContactHullRoundLocal(const ConvexHull& hull,
                                       const PolyRef& round);
// Whether the same pair overlaps (OverlapRound's verdict, after an exact
// rejection by a face plane).
bool OverlapHullRoundLocal(const ConvexHull& hull, const PolyRef& round);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_GEOMETRY3D_ROUND_TYPED_H_
