// Private: closest points between the cores of round shapes (points and
// segments) and every other core, after Ericson, "Real-Time Collision
// Detection" (2005), chapter 5: 5.1.2 (point-segment), 5.1.5
// (point-triangle), 5.1.9 (segment-segment); a point against a solid
// polytope through its visible faces, a segment against one through
// Cyrus-Beck clipping (Cyrus and Beck 1978) and its edges.
#ifndef SATOR_CORE_SRC_COLLIDE3D_CONVEX_CLOSEST_H_
#define SATOR_CORE_SRC_COLLIDE3D_CONVEX_CLOSEST_H_

#include "convex_polytope.h"
#include "double_vec3.h"
#include "sator/core/vec.h"

namespace sator::internal {

// The closest point to p on segment [a, b] (a for a segment shorter than
// 1e-15).
Vec3 ClosestPointOnSegment(Vec3 p, Vec3 a, Vec3 b);
Vec3 ClosestPointOnTriangle(Vec3 p, Vec3 a, Vec3 b, Vec3 c);
// The same unrounded, and for a point given in double.
D3 ClosestPointOnTriangleD3(Vec3 p, Vec3 a, Vec3 b, Vec3 c);
D3 ClosestPointOnTriangleD3(D3 p, Vec3 a, Vec3 b, Vec3 c);
// The closest points c1 on [p1, q1] and c2 on [p2, q2] (Ericson 5.1.9, with
// the degenerate cases clamped). In float while the segments' sine exceeds
// 0.1; nearly parallel ones (whose float determinant cancels, putting s
// anywhere along the segment) are solved in double on a cold path, and
// exactly parallel ones get the middle of their common stretch.
void ClosestPointsSegmentSegment(Vec3 p1, Vec3 q1, Vec3 p2, Vec3 q2, Vec3* c1,
                                 Vec3* c2);
// The closest points solved in double throughout, unrounded (parallel
// segments get the clamped ends, not the middle): the difference c2 - c1
// keeps the direction
// between the points, which rounding each point to float loses (see
// ClosestCorePoints).
void ClosestPointsSegmentSegmentD3(Vec3 p1, Vec3 q1, Vec3 p2, Vec3 q2, D3* c1,
                                   D3* c2);

// Candidate closest pairs whose lengths tie with the closest one, each with
// its difference pb - pa taken in double before the points were rounded
// (then rounded itself, which keeps its direction to float precision).
inline constexpr int kMaxCorePairs = 8;
struct CorePairs {
  int count = 0;
  Vec3 pa[kMaxCorePairs];
  Vec3 pb[kMaxCorePairs];
  Vec3 diffs[kMaxCorePairs];
  double dist_sqs[kMaxCorePairs];
  void Offer(Vec3 a, Vec3 b, Vec3 diff, double dist_sq);
  void KeepNear(double best_dist_sq, double slack);
};

// The distance between the cores `a` and `b` (both in one frame) and the
// closest points `pa` on a and `pb` on b; 0 when they intersect (then pa and
// pb are a common point). One of the two must be a point or a segment.
// With `diff`, also pb - pa as taken in double (below). With `ties`, also
// the candidate pairs as long as the closest one within round-off (the
// closest included).
//
// The closest points are found in double and the distance and direction
// are taken from their double difference; pa and pb are only then rounded
// to float. Rounding first moves each point by up to half an ulp of the
// coordinates in any direction, also along a long segment, and so tilts
// pb - pa by about ulp / distance: across a segment of length L that tilt
// shifts the segment's extent along the direction by L ulp / distance
// (the reported pair: capsules 627 long of radius 0.17, nearly parallel and
// 1e-6 deep, were given a depth of 0.0085).
double ClosestCorePoints(const PolyRef& a, const PolyRef& b, Vec3* pa, Vec3* pb,
                         Vec3* diff = nullptr, CorePairs* ties = nullptr);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_CONVEX_CLOSEST_H_
