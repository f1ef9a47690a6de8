// Private: exact closest points between cores when one of them is a point or
// a segment (circle, capsule, segment), and the contact of such pairs.
#ifndef SATOR_CORE_SRC_COLLIDE2D_DISTANCE2D_H_
#define SATOR_CORE_SRC_COLLIDE2D_DISTANCE2D_H_

#include "collide2d/core2d.h"
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

// The touching decision of two convex polygons (vertices (ax, ay), na >= 3,
// and (bx, by), nb >= 3, counter-clockwise, in the same frame) whose best
// edge-normal separation lies in (0, tolerance]: true when their exact
// distance is at most `tolerance` (distance2d.cc). The SAT alone would say
// "touching" for every such pair, but it sees a vertex-to-vertex gap shrunk
// by cos(half the exterior angle). Out of line and cold: only that band
// calls it.
[[gnu::cold, gnu::noinline]] bool PolygonsTouch(const float* ax,
                                                const float* ay, int na,
                                                const float* bx,
                                                const float* by, int nb,
                                                float tolerance);

// The touching decision for a point p outside a convex polygon (n >= 3
// vertices) by at most `tolerance` along every edge normal and by more than 0
// along one: true when its exact distance to the polygon is at most
// `tolerance`.
[[gnu::cold, gnu::noinline]] bool PointTouchesPolygon(const float* x,
                                                      const float* y, int n,
                                                      Vec2 p, float tolerance);

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_COLLIDE2D_DISTANCE2D_H_
