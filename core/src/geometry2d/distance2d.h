// Private: exact closest points between cores when one of them is a point or
// a segment (circle, capsule, segment), and the contact of such pairs.
#ifndef SATOR_CORE_SRC_GEOMETRY2D_DISTANCE2D_H_
#define SATOR_CORE_SRC_GEOMETRY2D_DISTANCE2D_H_

#include "geometry2d/core2d.h"
#include "sator/core/query_types.h"

namespace sator::internal2d {

struct CoreClosest {
  bool intersecting = false;  // The cores share a point (distance 0).
  Vec2 pa{};                  // Closest point on A's core.
  Vec2 pb{};                  // Closest point on B's core.
  float distance = 0.0f;
};

// The closest point to p on the segment [a, b] (a == b allowed).
Vec2 ClosestPointOnSegment(Vec2 p, Vec2 a, Vec2 b);

// Closest points of two cores in the same frame. Requires a.count <= 2 or
// b.count <= 2 (any pair involving a circle, capsule or segment).
CoreClosest ClosestCores(const Core& a, const Core& b);

// Contact for a pair with a point or segment core: exact distance when the
// cores are apart, SAT on the cores when they intersect.
ContactResult<2> ContactSmallCore(const Core& a, const Core& b,
                                  float tolerance);

// Overlap for a pair with a point or segment core.
bool OverlapSmallCore(const Core& a, const Core& b, float tolerance);

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_GEOMETRY2D_DISTANCE2D_H_
