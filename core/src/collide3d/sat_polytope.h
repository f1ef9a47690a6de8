// Private: the separating axis test between two convex cores in one frame,
// and the contact points of the axis it finds.
//
// Axes (Gottschalk 1996; Ericson, "Real-Time Collision Detection", 4.4 and
// 5.2.1): the face normals of A and of B, and the cross products of an edge
// of A with an edge of B. For two solids the edge pairs are pruned to those
// that build a face of the Minkowski difference: their arcs on the Gauss map
// cross (Gregorius, "The Separating Axis Test between Convex Polyhedra", GDC
// 2013), and the separation along such an axis is read off the two edges.
// When a flat or lower-dimensional core (triangle, segment, point) is
// involved every edge pair is tried and measured by projecting both vertex
// sets, so no pruning argument is needed; two triangles also try their
// in-plane edge normals (coplanar triangles have no other separating axis).
//
// The separation along a unit axis n (from A to B) is min_B(n.x) - max_A(n.x):
// positive when the axis separates, minus the overlap otherwise. The largest
// separation over the axes is the SAT answer: > 0 means disjoint (a lower
// bound on the distance), <= 0 means overlapping with penetration depth
// -separation, exactly, because every face of the Minkowski difference is
// among the axes tried (extra axes only ever overestimate the overlap).
#ifndef SATOR_CORE_SRC_COLLIDE3D_SAT_POLYTOPE_H_
#define SATOR_CORE_SRC_COLLIDE3D_SAT_POLYTOPE_H_

#include <algorithm>

#include "convex_polytope.h"
#include "sator/core/query_types.h"

namespace sator::internal {

enum class AxisKind : std::uint8_t { kNone, kFaceA, kFaceB, kEdges, kOther };

struct SatAxis {
  AxisKind kind = AxisKind::kNone;
  float separation = -3.0e38f;
  Vec3 normal{};     // Unit, from A to B.
  int index_a = -1;  // Face or edge of A.
  int index_b = -1;  // Face or edge of B.
};

// Edge pairs closer to parallel than this (sine of the angle) are skipped:
// their cross product has no reliable direction, and the face axes already
// bound the separation within about this fraction of the shapes' size
// (Ericson 4.4.1).
inline constexpr float kParallelSine = 1e-5f;

// Edge pairs closer to parallel than this (sine of the angle) but not
// skipped are measured by projecting both vertex sets on their axis instead
// of reading the separation off the two edges (and so is any edge pair whose
// read-off value would become the best so far, so that a reported
// separation is always the one along its normal). The axis is the normalised
// cross product of two float edge vectors, each carrying round-off of
// about 1e-7 of the coordinates, so its direction is off by about 1e-7 /
// sin(angle) of the size over the edge length: at a sine of 1e-4 (boxes
// stacked face to face with a little rotation jitter) a few percent. The
// two edges then no longer support their shapes along it, and the value
// read off them can exceed the true separation along it by that fraction
// of the edges' length, and overlapping shapes would be reported apart
// (HullSatTest.StackedHullsNeverReportMoreSeparationThanExists).
// A projected separation is exact for the axis it is measured on, and any
// axis's projected separation is at most the shapes' signed distance, so
// the test can only err towards overlap, by the axis error times the size,
// and the face axes, which carry no such error, decide stacked shapes.
// Above 0.05 the read-off error is at most a few 1e-6 of the size, and the
// read-off value only decides which axes are measured.
inline constexpr float kEdgeReadSine = 0.05f;

// An edge-edge axis closer than this (sine of the angle) to an outward face
// normal of A, or of B against it, takes its contact points from that face
// (reference-face clipping) instead of from the two edges. On exactly
// degenerate inputs (grid coordinates, exact turns) the cross product of two
// edges can be exactly a face normal: an edge of B parallel to a face of A,
// a triangle's edge against a box's, an octahedron's faces meeting
// another's. The face and the edge axis then tie and round-off of the
// normalised cross product (about 1e-7) decides for the edges, while the
// shapes meet with a face: the two edges need not cross along the axis (or,
// with a triangle, where every pair is measured by projection, even
// support), their closest points are clamped to the segments' ends, and the
// midpoint can lie off the shapes (0.76 beyond a triangle;
// Degenerate3dTest.PolytopeContactPointsLieBetweenSurfaces). The depth is the
// edge axis's, which the face axis matches within round-off.
inline constexpr float kFaceContactSine = 1e-5f;

// Below this length of n2 x n1 (the sine of the angle between an edge's
// two face normals), with the normals opposed, an edge is a knife edge: its
// faces are nearly antiparallel, its Gauss-map arc nearly a half circle, and n2
// x n1 keeps only the normals' round-off in its direction (about 1e-7 / sine:
// 1% at a sine of 1e-5, as on a sliver tetrahedron).
inline constexpr float kKnifeSine = 1e-2f;
inline bool IsKnifeEdge(Vec3 pole, Vec3 n1, Vec3 n2) {
  return LengthSquared(pole) < kKnifeSine * kKnifeSine && Dot(n1, n2) < 0.0f;
}

// How far from perpendicular to its two face normals (sine of the angle) an
// edge's direction may be for the direction to serve as the edge's pole on
// the Gauss map; see EdgePole.
inline constexpr float kEdgePoleSine = 1e-5f;

// The pole of an edge's arc on the Gauss map (the direction perpendicular to
// both face normals n1, n2), from which an edge-edge axis is formed. A hull
// merges faces that are coplanar within a tolerance relative to its size, so
// a short edge of a merged face can be several degrees off perpendicular to
// the face normals: its direction then names an axis that lies on neither
// arc, along which the edges do not support their shapes, and the
// separation read off the edges is wrong (depths short by up to 16% of the
// size). Such an edge takes the pole of its arc, n1 x n2, instead; an
// edge whose direction agrees with its normals keeps its direction, which is
// the better conditioned of the two for long edges between nearly coplanar
// faces (where n1 x n2 is short and loses digits).
//
// At a knife edge (kKnifeSine, below), between nearly antiparallel faces,
// the pole is worse: n1 x n2 is then short and its direction carries the
// normals' round-off divided by its length (about 1% at 1.4e-5 rad from
// antiparallel, as on a sliver tetrahedron), so the edge
// keeps its direction there.
inline Vec3 EdgePole(Vec3 direction, Vec3 n1, Vec3 n2) {
  const float d1 = Dot(direction, n1);
  const float d2 = Dot(direction, n2);
  const float limit = kEdgePoleSine * kEdgePoleSine * LengthSquared(direction);
  if (d1 * d1 <= limit && d2 * d2 <= limit) return direction;
  const Vec3 pole = Cross(n1, n2);
  if (IsKnifeEdge(pole, n1, n2)) return direction;
  return pole;
}

// The normal of the plane of an edge's arc from face normal n1 to n2, in
// Gregorius's orientation n2 x n1; at a knife edge the edge's pole
// (EdgePole: there its direction) oriented the same way, which an outward
// direction at the edge (`outward`: from an interior point to the edge)
// decides: the arc runs from n1 through the outward direction to n2, so
// n2 x n1 points along outward x n1. Sets *knife when it is one.
inline Vec3 ArcPlane(Vec3 n1, Vec3 n2, Vec3 pole, Vec3 outward, bool* knife) {
  const Vec3 plane = Cross(n2, n1);
  *knife = IsKnifeEdge(plane, n1, n2);
  if (!*knife) return plane;
  return Dot(pole, Cross(outward, n1)) >= 0.0f ? pole : -pole;
}

// The axis of greatest separation. With `early_out` it returns the first
// axis found with separation > 0 instead.
SatAxis SatQuery(const PolyRef& a, const PolyRef& b, bool early_out);

// Fills `result` (normal, depth, overlapping, contact points) from `axis`:
// reference-face clipping (Sutherland-Hodgman against the side planes of the
// reference face, as in Gregorius's and Catto's manifolds) for face axes,
// the closest points of the two edges for edge axes. Points are midway
// between the surfaces, reduced to at most 4.
void FillContact(const PolyRef& a, const PolyRef& b, const SatAxis& axis,
                 ContactResult<3>* result);

// FillContact for an axis from a search that accepts an edge pair only when
// it builds a face of the Minkowski difference (the Gauss-map arc test): the
// axis then lies on both edges' arcs, so the two edges are the supporting
// features along it and are used as they are (FillContact scans for
// parallel edges of equal support, which a box needs after a projected
// edge axis).
void FillContactMinkowskiEdges(const PolyRef& a, const PolyRef& b,
                               const SatAxis& axis, ContactResult<3>* result);

// Keeps at most 4 of `count` contact points (with their depths) in
// `result`: the deepest, the farthest from it, the one spanning the largest
// triangle with those two, and the one adding the most area outside it.
void ReduceContactPoints(const Vec3* points, const float* depths, int count,
                         Vec3 normal, ContactResult<3>* result);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_SAT_POLYTOPE_H_
