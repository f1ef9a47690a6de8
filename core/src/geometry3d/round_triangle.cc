// A sphere or capsule against a triangle without the generic path's
// PolyData records (two of about 5 KB per call, each built through a
// second one in the shape's own frame): the triangle's 3 vertices and 2
// faces are placed as MakePolyData places them and viewed in place, and
// the round core is a FlatCore, so the generic ContactRound and
// OverlapRound (convex_round.cc: closest points of the cores while they
// are apart, the cores' SAT over the triangle's normal and the segment
// crossed with its 3 edges once they cross) run on the same floats and
// give the generic path's answers bit for bit.
#include "convex_round.h"
#include "round_typed.h"

namespace sator::internal {

ContactResult<3> ContactFlatTriangle(const PolyRef& flat, const Triangle3& t,
                                     const Pose3& t_in_a) {
  TriangleCore tri;
  MakeTriangleCore(t, t_in_a, &tri);
  return ContactRound(flat, tri.ref);
}

bool OverlapFlatTriangle(const PolyRef& flat, const Triangle3& t,
                         const Pose3& t_in_a) {
  TriangleCore tri;
  MakeTriangleCore(t, t_in_a, &tri);
  return OverlapRound(flat, tri.ref);
}

ContactResult<3> ContactTriangleFlat(const Triangle3& t, const PolyRef& flat) {
  TriangleCore tri;
  MakeTriangleCore(t, Pose3{}, &tri);
  return ContactRound(tri.ref, flat);
}

bool OverlapTriangleFlat(const Triangle3& t, const PolyRef& flat) {
  TriangleCore tri;
  MakeTriangleCore(t, Pose3{}, &tri);
  return OverlapRound(tri.ref, flat);
}

}  // namespace sator::internal
