// Private: rays against polytopes rounded by a radius, the building block of
// every sweep with a sphere or a capsule (sweep3d.cc).
//
// The set of points within r of a convex polytope P is the union of the face
// prisms (each face pushed out by r along its normal), the capsules around
// the edges, and P itself. A ray that starts outside that union enters it
// first through a face prism or an edge capsule (vertices are the capsules'
// end balls), so the entry is the least of those entries (the same
// decomposition as Ericson, "Real-Time Collision Detection", 5.5.7, for a
// moving sphere against a box, generalised to any convex polytope).
#ifndef SATOR_CORE_SRC_COLLIDE3D_SWEEP_ROUND_H_
#define SATOR_CORE_SRC_COLLIDE3D_SWEEP_ROUND_H_

#include <array>
#include <cstdint>

#include "collide3d/ray_primitives.h"
#include "sator/core/collide3d/shapes3d.h"
#include "sator/core/vec.h"

namespace sator::internal {

// A convex polytope by its features, in some frame. `solid` is false for a
// flat polygon (a triangle or the parallelogram of two segments), which is
// given as two faces with opposite normals.
struct RoundPoly {
  const Vec3* vertices = nullptr;
  int vertex_count = 0;
  const ConvexHull::Face* faces = nullptr;
  int face_count = 0;
  const std::uint16_t* face_vertex_indices = nullptr;
  const ConvexHull::Edge* edges = nullptr;
  int edge_count = 0;
  bool solid = true;
};

// Owned storage for the small polytopes (box, triangle, parallelogram).
struct SmallRoundPoly {
  std::array<Vec3, 8> vertices;
  std::array<ConvexHull::Face, 6> faces;
  std::array<std::uint16_t, 24> face_vertex_indices;
  std::array<ConvexHull::Edge, 12> edges;
  RoundPoly view;
};

RoundPoly HullRoundPoly(const ConvexHull& hull);
void MakeBoxRoundPoly(const Box3& box, SmallRoundPoly* out);
void MakeTriangleRoundPoly(const Triangle3& tri, SmallRoundPoly* out);

// The squared distance from x to the polytope (0 inside a solid).
float SquaredDistanceToPoly(Vec3 x, const RoundPoly& poly);

// Ray against the polytope rounded by `radius` (> 0), for t in [0, t_max]
// with t_max at most 1 (a sweep: `dir` is the whole motion). kInside when
// the origin is within `radius` of the polytope. The hit's normal is the
// outward normal of the rounded surface; `feature` is the face index, or
// face_count + edge index for an edge capsule.
RayStatus RayRoundPoly(Vec3 origin, Vec3 dir, float t_max,
                       const RoundPoly& poly, float radius, PrimitiveHit* hit);

// Ray against the parallelogram {y - x : y on c1c2, x on pq} (the Minkowski
// difference of two segments; corners c1 - p, c2 - p, c2 - q, c1 - q) rounded
// by `radius` (> 0): the two face prisms and the four edge capsules.
// kInside when the origin is within `radius` of the parallelogram. Feature:
// 0 or 1 a face, 2 + k the edge from corner k.
//
// The faces are needed however thin the parallelogram is: the edge capsules
// cover the parallelogram itself once its smaller height h (area / longer
// side) is at most 2 radius, but not the slab above and below it; a point
// at height z <= radius over the middle is sqrt(z^2 + h^2 / 4) from the
// edges, so edges alone miss a band up to sqrt(radius^2 + h^2 / 4) - radius
// thick (about h^2 / (8 radius)). Nearly parallel segments make h small but
// radius can be smaller still (for example h = 9e-3 with radius
// 2e-3). The faces are therefore tested whenever the segments' directions
// are not exactly parallel in float, in double: the normal is the cross
// product of the float edge vectors, whose products are exact in double, so
// its direction is good to about 1e-16 however small sin(theta) is (in float
// it is off by about 1e-7 / sin(theta), which tilts the face by more than
// the radius across a long parallelogram), and the in-plane test compares
// distances to the sides, not coefficients divided by sin(theta). The edge
// capsules are tested in double as well: the corners lie as far from the
// origin as the segments are long, where a float capsule test loses about
// 1e-7 of that length (1e-3 for 1e4-long capsules, half the radius in the
// example above).
RayStatus RayRoundSegmentDifference(Vec3 origin, Vec3 dir, float t_max, Vec3 p,
                                    Vec3 q, Vec3 c1, Vec3 c2, float radius,
                                    PrimitiveHit* hit);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_SWEEP_ROUND_H_
