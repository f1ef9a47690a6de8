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

namespace {

// How far in front of the plane (n, offset) the point x must lie, by its
// height n . x - offset in double, for float to see it in front: for
// ClosestPointOnSolid's test Dot(n, x) - offset > 0.0f to pass. That float
// dot product is within gamma_3 = 3 x 2^-24 / (1 - 3 x 2^-24) of
// |n_x x_x| + |n_y y| + |n_z z| of the exact one while its products are
// normal floats, and within 3 x 2^-150 more absolutely (each product rounds
// by at most half the smallest subnormal; sums of subnormals are exact);
// the subtraction of the float offset then has the sign of fl(n . x) -
// offset exactly (gradual underflow). In double the products are exact and
// the sums and the offset's subtraction round by about 3 x 2^-53 of the
// same sum. So 2^-21 (more than gamma_3 plus that) of the sum plus 1e-44
// (more than 3 x 2^-150 = 2.1e-45) is enough, with or without fused
// multiply-adds.
double FloatFrontMargin(const D3& n, const D3& x) {
  return 0x1p-21 * (std::fabs(n.x * x.x) + std::fabs(n.y * x.y) +
                    std::fabs(n.z * x.z)) +
         1e-44;
}

}  // namespace

// First a quick rejection, exact: the face plane the core lies farthest in
// front of (by the smaller height of its ends) bounds the cores' distance
// from below by the core's height above the hull's highest vertex along
// that face's unit normal (every unit axis bounds a distance; Ericson
// 5.2.1), taken in double over every vertex. OverlapRound's verdict is
// ClosestCorePoints(...) <= r, and that distance can fall below the true
// one in two ways, both ruled out before answering false:
//
// - Where float sees a core end behind every face plane it lies within
//   float rounding (a few FLT_EPSILON x M) of, ClosestPointOnSolid takes
//   it for inside and the distance is 0 (a core r + 2 ulps from a face, r
//   a few ulps of the coordinates, was false here and true there). So both
//   ends must lie in front of that face's plane by more than float's
//   rounding of their height (FloatFrontMargin): then that face passes
//   ClosestPointOnSolid's test for each end and the end's candidates are
//   points of the hull's faces. The same heights, positive far beyond
//   double's rounding, keep the segment's clipping (Cyrus-Beck, in double)
//   from finding a crossing: along that face's normal both ends are
//   outside, so the segment enters after t = 1 or leaves before t = 0.
// - Every remaining candidate is a point of the core and a point of a face
//   or edge of the hull formed in double from float vertices, off them by
//   about 1e-16 of the largest coordinate M, and the distance is their
//   difference's length in double: so it is at least the bound less a few
//   1e-16 M. The bound is taken less 1e-12 M, far more than that and its
//   own rounding.
//
// Beyond the radius then, OverlapRound's distance is beyond it too and its
// verdict false.
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
    const ConvexHull::Face& face = hull.faces[best_face];
    const D3 n = ToD3(face.normal);
    const bool float_front = Dot(n, p) - face.offset > FloatFrontMargin(n, p) &&
                             Dot(n, q) - face.offset > FloatFrontMargin(n, q);
    if (float_front) {
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
  }
  return OverlapRound(HullRef(hull), round);
}

}  // namespace sator::internal
