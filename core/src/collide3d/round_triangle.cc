// A sphere or capsule against a triangle without the generic path's
// PolyData records (two of about 5 KB per call, each built through a
// second one in the shape's own frame): the triangle's 3 vertices and 2
// faces are placed as MakePolyData places them and viewed in place, and
// the round core is a FlatCore, so the generic ContactRound and
// OverlapRound (convex_round.cc: closest points of the cores while they
// are apart, the cores' SAT over the triangle's normal and the segment
// crossed with its 3 edges once they cross) run on the same floats and
// give the generic path's answers bit for bit.
#include <algorithm>
#include <cmath>

#include "convex_round.h"
#include "double_vec3.h"
#include "round_typed.h"

namespace sator::internal {
namespace {

// Whether the flat core (a point, or a segment [p, q]) of radius r and the
// triangle with vertices v, all in one frame, are certainly farther apart
// than r: some axis among the triangle's normal and its 3 in-plane edge
// normals (n x e) separates the cores by more than r plus a margin. The
// gap along an axis bounds the cores' distance d from below (separating
// axes; Ericson, "Real-Time Collision Detection" (2005), 5.2.1), so d > r;
// ContactRound then reports r - d < 0 (it takes r - d from the closest
// points, in double, good to about 1e-16 of the coordinates, and measures
// other axes only when r - d >= 0): not overlapping; and OverlapRound
// d > r: false. The test reads the very floats ContactRound reads and runs
// in double, whose round-off (about 1e-16 of the coordinates, relative to
// the unnormalised axes' length) the margin of 1e-9 of the coordinates
// covers many times over. A degenerate triangle (n = 0) is never skipped.
bool CertainlyApart(const PolyRef& flat, const Vec3 v[3]) {
  const D3 p = ToD3(flat.vertices[0]);
  const D3 q = flat.kind == CoreKind::kSegment ? ToD3(flat.vertices[1]) : p;
  const D3 a = ToD3(v[0]);
  const D3 b = ToD3(v[1]);
  const D3 c = ToD3(v[2]);
  double m = flat.radius;
  for (const D3& x : {p, q, a, b, c}) {
    m = std::max({m, std::fabs(x.x), std::fabs(x.y), std::fabs(x.z)});
  }
  const double reach = static_cast<double>(flat.radius) + 1e-9 * m;
  // Whether the cores' projections on w (not unit) are apart by more than
  // reach |w|.
  const auto separates = [&](const D3& w) {
    const double da = Dot(w, a);
    const double db = Dot(w, b);
    const double dc = Dot(w, c);
    const double t_lo = std::min({da, db, dc});
    const double t_hi = std::max({da, db, dc});
    const double dp = Dot(w, p);
    const double dq = Dot(w, q);
    const double gap =
        std::max(std::min(dp, dq) - t_hi, t_lo - std::max(dp, dq));
    // Not squared: gap * gap reaches the eighth power of the coordinates,
    // which overflows double for floats near FLT_MAX.
    return gap > reach * std::sqrt(Dot(w, w));
  };
  const D3 ab = b - a;
  const D3 bc = c - b;
  const D3 ca = a - c;
  const D3 n = Cross(ab, bc);
  return separates(n) || separates(Cross(n, ab)) || separates(Cross(n, bc)) ||
         separates(Cross(n, ca));
}

}  // namespace

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

bool ContactFlatTriangleIfNear(const PolyRef& flat, const Triangle3& t,
                               const Pose3& t_in_a, ContactResult<3>* contact) {
  TriangleCore tri;
  PlaceTriangleVertices(t, t_in_a, &tri);
  if (CertainlyApart(flat, tri.vertices)) return false;
  FinishTriangleCore(t, t_in_a, &tri);
  *contact = ContactRound(flat, tri.ref);
  return true;
}

bool OverlapFlatTriangleIfNear(const PolyRef& flat, const Triangle3& t,
                               const Pose3& t_in_a, bool* overlap) {
  TriangleCore tri;
  PlaceTriangleVertices(t, t_in_a, &tri);
  if (CertainlyApart(flat, tri.vertices)) return false;
  FinishTriangleCore(t, t_in_a, &tri);
  *overlap = OverlapRound(flat, tri.ref);
  return true;
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
