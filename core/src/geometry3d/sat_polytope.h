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
#ifndef SATOR_CORE_SRC_GEOMETRY3D_SAT_POLYTOPE_H_
#define SATOR_CORE_SRC_GEOMETRY3D_SAT_POLYTOPE_H_

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

// Keeps at most 4 of `count` contact points (with their depths) in
// `result`: the deepest, the farthest from it, the one spanning the largest
// triangle with those two, and the one adding the most area outside it.
void ReduceContactPoints(const Vec3* points, const float* depths, int count,
                         Vec3 normal, ContactResult<3>* result);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_GEOMETRY3D_SAT_POLYTOPE_H_
