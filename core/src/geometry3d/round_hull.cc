// A sphere or capsule against a convex hull, in the hull's frame: the hull
// is read in place (HullRef: its own vertices, faces and edges) and only the
// round shape's one or two core points are placed in that frame, so the
// generic path's two PolyData records (about 5 KB each) and the placing of
// the hull's features (TransformPoly) are skipped. The answer is the
// generic path's with the hull as A, bit for bit. What remains is the
// generic ContactRound on these views; for a hull read in place it prunes,
// exactly, the cores' SAT axes (RoundPolySatD, convex_round.cc) and the
// segment's edge candidates (SegmentSolid, convex_closest.cc) that cannot
// change the answer.
#include "convex_round.h"
#include "round_typed.h"

namespace sator::internal {

void MakeFlatCore(const ConvexShape3& round, const Pose3& pose, FlatCore* out) {
  if (const auto* sphere = std::get_if<Sphere>(&round)) {
    MakeFlatCore(*sphere, pose, out);
    return;
  }
  MakeFlatCore(std::get<Capsule3>(round), pose, out);
}

ContactResult<3> ContactHullRoundLocal(const ConvexHull& hull,
                                       const PolyRef& round) {
  return ContactRound(HullRef(hull), round);
}

bool OverlapHullRoundLocal(const ConvexHull& hull, const PolyRef& round) {
  return OverlapRound(HullRef(hull), round);
}

}  // namespace sator::internal
