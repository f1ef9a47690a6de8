// Private: the typed paths of Contact and Overlap for round pairs (a sphere
// or capsule against a sphere, capsule, triangle, box or hull), which skip
// the two 5 KB PolyData records of the generic path, and that generic path
// itself, kept callable so that tests can compare the two.
//
// Sphere and capsule pairs, and a sphere or capsule against a triangle: the
// cores are viewed in place (a PolyRef over one or two vertices, or over a
// triangle's 3 vertices and 2 faces, in A's frame, placed exactly as
// MakePolyData places them) and go through the generic ContactRound /
// OverlapRound (round_triangle.cc): the answers are the generic path's,
// bit for bit.
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
#ifndef SATOR_CORE_SRC_COLLIDE3D_ROUND_TYPED_H_
#define SATOR_CORE_SRC_COLLIDE3D_ROUND_TYPED_H_

#include "convex_polytope.h"
#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"
#include "sator/core/vec.h"

namespace sator::internal {

// The generic paths (every pair, B's features placed in A's frame), which
// the typed round paths match.
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

// Storage for a triangle core: its 3 vertices and 2 faces (n and -n)
// placed by a pose; the face indices and edges are shared tables.
struct TriangleCore {
  Vec3 vertices[3];
  ConvexHull::Face faces[2];
  PolyRef ref;
};

// The triangle's core placed by `pose`, with the same floats as
// MakePolyData (MakeTriangleData, then TransformPoly). In two steps for
// callers that look at the vertices first (PlaceTriangleVertices, then
// FinishTriangleCore with the same t and pose).
void MakeTriangleCore(const Triangle3& t, const Pose3& pose, TriangleCore* out);
void PlaceTriangleVertices(const Triangle3& t, const Pose3& pose,
                           TriangleCore* out);
void FinishTriangleCore(const Triangle3& t, const Pose3& pose,
                        TriangleCore* out);

// A point or segment core `flat` in A's frame (MakeFlatCore with the
// identity) against the triangle `t` placed by `t_in_a`: the generic
// ContactRound / OverlapRound on the views, so ContactGeneric's and
// OverlapGeneric's answers bit for bit, in A's frame.
ContactResult<3> ContactFlatTriangle(const PolyRef& flat, const Triangle3& t,
                                     const Pose3& t_in_a);
bool OverlapFlatTriangle(const PolyRef& flat, const Triangle3& t,
                         const Pose3& t_in_a);
// For queries that keep only overlapping triangles (a mesh's Contact,
// ContactAll and Overlap): false, with nothing computed, when the flat core
// and the triangle are certainly farther apart than its radius, where
// ContactFlatTriangle would answer not overlapping and OverlapFlatTriangle
// false; otherwise true and those answers in *contact or *overlap.
bool ContactFlatTriangleIfNear(const PolyRef& flat, const Triangle3& t,
                               const Pose3& t_in_a, ContactResult<3>* contact);
bool OverlapFlatTriangleIfNear(const PolyRef& flat, const Triangle3& t,
                               const Pose3& t_in_a, bool* overlap);
// The triangle as A (in its own frame) and the flat core placed by B's pose
// in A's frame (MakeFlatCore with `b_in_a`).
ContactResult<3> ContactTriangleFlat(const Triangle3& t, const PolyRef& flat);
bool OverlapTriangleFlat(const Triangle3& t, const PolyRef& flat);

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

#endif  // SATOR_CORE_SRC_COLLIDE3D_ROUND_TYPED_H_
