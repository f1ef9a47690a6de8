// Private: the hull-hull separating axis test, arranged for speed.
#ifndef SATOR_CORE_SRC_COLLIDE3D_HULL_SAT_H_
#define SATOR_CORE_SRC_COLLIDE3D_HULL_SAT_H_

#include "convex_polytope.h"
#include "sat_polytope.h"
#include "sator/core/collide3d/shapes3d.h"
#include "sator/core/pose.h"

namespace sator::internal {

// B's features placed in A's frame: enough for FillContact.
struct HullInA {
  std::array<Vec3, kMaxPolyVertices> vertices;
  std::array<ConvexHull::Face, kMaxPolyFaces> faces;
  // A view of B with these placed features (no structure-of-arrays
  // vertices: those are in B's frame).
  PolyRef Ref(const ConvexHull& b) const;
};

// The hull's vertices and face planes as structure-of-arrays
// (ConvexHull::soa): the vertices' x, y and z, then the faces' normal x, y,
// z and offset, each array padded to a multiple of 4 with copies of its
// first entry, then a ball inside the hull (centre x, y, z and radius, see
// InscribedBall in hull_sat.cc), the vertex mean (of the padded set) and
// largest |coordinate| (4 floats), then 8 floats per edge: its pole (EdgePole),
// 1 for a knife edge (IsKnifeEdge) else 0, its arc plane (ArcPlane, oriented
// by the vertex mean) and a 0, then per face the set of its edges as
// HullEdgeWords(edge_count) 64-bit words (bit i of word w for edge 64 w + i,
// each word's bits in two floats' storage, read with memcpy: FaceEdgeWord),
// padded to a multiple of 4 faces with empty sets; HullSoaSize floats in
// all, at most kHullSoaMax.
constexpr int HullEdgeWords(int edge_count) { return (edge_count + 63) / 64; }
constexpr int HullSoaSize(int vertex_count, int face_count, int edge_count) {
  return 3 * ((vertex_count + 3) & ~3) + 4 * ((face_count + 3) & ~3) + 8 +
         8 * edge_count +
         2 * ((face_count + 3) & ~3) * HullEdgeWords(edge_count);
}
inline constexpr int kHullSoaMax =
    HullSoaSize(kMaxPolyVertices, kMaxPolyFaces, kMaxPolyEdges);
// `inscribed_ball` false puts the vertex mean with radius 0 in the ball's
// place (CentroidBall): what a hull made by hand without `soa` gets per call,
// since the inscribed-ball search costs about 30k instructions.
void FillHullSoa(const ConvexHull& h, float* out, bool inscribed_ball);

// The axis of greatest separation of two hulls (B placed by b_in_a), as
// SatQuery gives for two solids (axes that provably cannot win are skipped,
// see hull_sat.cc), and B's vertices in A's frame in `b_in_a_out`; B's faces
// are placed there too whenever the result does not separate (what
// FillContact needs). The edge pairs are searched only when no face axis
// separates (Gregorius): for separated hulls the result is the best face
// axis, still a separating axis and a lower bound on the distance. With
// `early_out` the first separating axis found is returned.
SatAxis HullHullAxis(const ConvexHull& a, const ConvexHull& b,
                     const Pose3& b_in_a, bool early_out, HullInA* b_in_a_out);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_HULL_SAT_H_
