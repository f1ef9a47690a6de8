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
#include <algorithm>
#include <cmath>
#include <variant>

#include "convex_round.h"
#include "double_vec3.h"
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

// First a quick rejection, exact: the face plane the core lies farthest in
// front of (by the smaller height of its ends) bounds the cores' distance
// from below by the core's height above the hull's highest vertex along
// that face's unit normal (every unit axis bounds a distance; Ericson 5.2.1),
// taken in double over every vertex and less a slack of 1e-12 of the
// largest coordinate for the rounding of that bound and of the distance
// OverlapRound computes (about 1e-16 of the coordinates). Beyond the
// radius, OverlapRound's distance is beyond it too and its verdict false.
bool OverlapHullRoundLocal(const ConvexHull& hull, const PolyRef& round) {
  const D3 p = ToD3(round.vertices[0]);
  const D3 q = round.kind == CoreKind::kSegment ? ToD3(round.vertices[1]) : p;
  const double r = round.radius;
  int best_face = -1;
  double best_height = r;
  for (int f = 0; f < static_cast<int>(hull.faces.size()); ++f) {
    const ConvexHull::Face& face = hull.faces[f];
    const D3 n = ToD3(face.normal);
    const double height = std::min(Dot(n, p), Dot(n, q)) - face.offset;
    if (height > best_height) {
      best_height = height;
      best_face = f;
    }
  }
  if (best_face >= 0) {
    const D3 n = ToD3(hull.faces[best_face].normal);
    double top = -3.0e300;
    float m = 0.0f;
    for (const Vec3& v : hull.vertices) {
      top = std::max(top, Dot(n, ToD3(v)));
      m = std::max({m, std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
    }
    for (const D3& x : {p, q}) {
      m = std::max({m, static_cast<float>(std::fabs(x.x)),
                    static_cast<float>(std::fabs(x.y)),
                    static_cast<float>(std::fabs(x.z))});
    }
    const double bound = (std::min(Dot(n, p), Dot(n, q)) - top) / Len(n) -
                         1e-12 * static_cast<double>(m);
    if (bound > r) return false;
  }
  return OverlapRound(HullRef(hull), round);
}

}  // namespace sator::internal
