// A sphere or capsule against a box, in the box's frame (the box is
// [-h, h]), without the generic path's PolyData records. The same rules as
// the generic ContactRound (convex_round.cc), specialised:
//
//   closest points (double): a point's is its clamp to [-h, h] (Ericson,
//     "Real-Time Collision Detection", 2005, 5.1.3); a segment that enters
//     the box (slabs, Ericson 5.3.3) touches it at its entry point;
//     otherwise the squared distance from the segment's point at t to the
//     box, f(t) = sum_i e_i(t)^2 with e_i the part of coordinate i beyond
//     [-h_i, h_i], is convex and piecewise quadratic in t, with breaks
//     where a coordinate crosses -h_i or h_i (at most 6). Its half slope
//     g(t) = sum_i e_i(t) d_i is nondecreasing and piecewise linear, so the
//     minimum is at t = 0 if g(0) >= 0, at t = 1 if g(1) <= 0, and
//     otherwise at the root of g, found by evaluating g at the sorted breaks
//     and interpolating linearly inside the piece where it changes sign.
//     The box's closest point is then the clamp of the segment's, and their
//     difference is exactly 0 along every axis not clamped, so its
//     direction carries no round-off along the box's edges.
//   cores apart by more than kCoreContactFraction (r): depth r - d along
//     the closest points' direction, measured by projection (the overlap
//     along the normal reported), and the cores' SAT below as a further
//     candidate; apart, r - d and that direction.
//   cores touching or crossing: the cores' SAT in double over the faces of
//     the Minkowski difference of the box and the segment: the box's 3
//     face normals and the segment's direction crossed with the box's 3
//     edge directions (Gottschalk's OBB axes with one box flattened to a
//     segment; for a point, the face normals only), plus r; while the
//     cores are apart, the closest points' direction as well.
//
// The box's support along a unit u is sum_i |u_i| h_i, the same sum the
// generic path finds as the largest over the 8 corners.
#include <algorithm>
#include <cmath>
#include <utility>

#include "convex_round.h"
#include "double_vec3.h"
#include "round_typed.h"

namespace sator::internal {
namespace {

// The box's half extents and the round core in the box's frame, in double:
// the point, or the segment's start p and direction d = q - p (exact while
// the coordinates' exponents are within 29 of each other, as a difference
// of floats is; the slabs and the closest parameter read these). End() is
// p + d: q itself whenever d is exact.
struct BoxFrameCore {
  double h[3];
  double p[3];  // The segment's start (or the point).
  double d[3];  // q - p (0 for a point).
  bool segment;
  D3 Start() const { return {p[0], p[1], p[2]}; }
  D3 Dir() const { return {d[0], d[1], d[2]}; }
  D3 End() const { return Start() + Dir(); }
};

BoxFrameCore MakeBoxFrameCore(Vec3 h, Vec3 p, Vec3 q, bool segment) {
  BoxFrameCore s;
  s.h[0] = h.x;
  s.h[1] = h.y;
  s.h[2] = h.z;
  const D3 start = ToD3(p);
  const D3 d = segment ? ToD3(q) - start : D3{};
  s.p[0] = start.x;
  s.p[1] = start.y;
  s.p[2] = start.z;
  s.d[0] = d.x;
  s.d[1] = d.y;
  s.d[2] = d.z;
  s.segment = segment;
  return s;
}

// Slabs (Ericson 5.3.3): whether the segment meets the box, and the first
// parameter t in [0, 1] where it does.
bool SegmentEntersBox(const BoxFrameCore& s, double* t_enter) {
  double lo = 0.0;
  double hi = 1.0;
  for (int i = 0; i < 3; ++i) {
    if (s.d[i] == 0.0) {
      if (s.p[i] < -s.h[i] || s.p[i] > s.h[i]) return false;
      continue;
    }
    double t1 = (-s.h[i] - s.p[i]) / s.d[i];
    double t2 = (s.h[i] - s.p[i]) / s.d[i];
    if (t1 > t2) std::swap(t1, t2);
    lo = std::max(lo, t1);
    hi = std::min(hi, t2);
    if (lo > hi) return false;
  }
  *t_enter = lo;
  return true;
}

// g(t) = sum_i e_i(t) d_i, half the slope of the squared distance at t.
double HalfSlope(const BoxFrameCore& s, double t) {
  double g = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double x = s.p[i] + t * s.d[i];
    double e = 0.0;
    if (x > s.h[i]) {
      e = x - s.h[i];
    } else if (x < -s.h[i]) {
      e = x + s.h[i];
    }
    g += e * s.d[i];
  }
  return g;
}

// The parameter of the segment's point closest to the box (the segment
// misses it; see the top of the file).
double ClosestParameter(const BoxFrameCore& s) {
  const double g0 = HalfSlope(s, 0.0);
  if (g0 >= 0.0) return 0.0;
  const double g1 = HalfSlope(s, 1.0);
  if (g1 <= 0.0) return 1.0;
  double breaks[6];
  int count = 0;
  for (int i = 0; i < 3; ++i) {
    if (s.d[i] == 0.0) continue;
    for (const double face : {-s.h[i], s.h[i]}) {
      const double t = (face - s.p[i]) / s.d[i];
      if (!(t > 0.0 && t < 1.0)) continue;
      // Insertion into the sorted breaks (at most 6).
      int k = count++;
      for (; k > 0 && breaks[k - 1] > t; --k) breaks[k] = breaks[k - 1];
      breaks[k] = t;
    }
  }
  double lo = 0.0;
  double g_lo = g0;
  for (int k = 0; k < count; ++k) {
    const double g = HalfSlope(s, breaks[k]);
    if (g >= 0.0) return lo + (breaks[k] - lo) * (-g_lo / (g - g_lo));
    lo = breaks[k];
    g_lo = g;
  }
  return lo + (1.0 - lo) * (-g_lo / (g1 - g_lo));
}

D3 ClampToBox(const BoxFrameCore& s, D3 x) {
  return {std::clamp(x.x, -s.h[0], s.h[0]), std::clamp(x.y, -s.h[1], s.h[1]),
          std::clamp(x.z, -s.h[2], s.h[2])};
}

// The box's support along u (the largest over its corners).
double BoxSupport(const BoxFrameCore& s, D3 u) {
  return std::fabs(u.x) * s.h[0] + std::fabs(u.y) * s.h[1] +
         std::fabs(u.z) * s.h[2];
}

// The round core's extent along u.
void RoundInterval(const BoxFrameCore& s, D3 u, double* lo, double* hi) {
  const double d0 = Dot(u, s.Start());
  const double d1 = Dot(u, s.End());
  *lo = d0 < d1 ? d0 : d1;
  *hi = d0 < d1 ? d1 : d0;
}

// The gap from the box to the round core along u (the core's lowest point
// minus the box's highest; CoreGap of the generic path).
double GapAlong(const BoxFrameCore& s, Vec3 u) {
  const D3 ud = ToD3(u);
  double lo;
  double hi;
  RoundInterval(s, ud, &lo, &hi);
  return lo - BoxSupport(s, ud);
}

// The cores' SAT in double (RoundPolySatD with the box as A): r minus the
// largest gap over the axes in their better orientation, that axis (from
// the box to the round core) in *n. Axes in the generic path's order (the
// faces +x, +y, +z, then the segment crossed with the edges along x, y and
// z, formed from the edge vectors 2 h_i as it forms them from the corners);
// a face's opposite normal measures the same gap and never wins a tie.
double BoxRoundSat(const BoxFrameCore& s, double radius, Vec3* n) {
  double best_gap = -3.0e300;
  D3 best_axis{0.0, 0.0, 1.0};
  const auto measure = [&](D3 u) {
    const double box_hi = BoxSupport(s, u);
    double r_lo;
    double r_hi;
    RoundInterval(s, u, &r_lo, &r_hi);
    const double above = -box_hi - r_hi;  // The box above the round core.
    const double below = r_lo - box_hi;   // The round core above the box.
    const double gap = above > below ? above : below;
    if (gap > best_gap) {
      best_gap = gap;
      best_axis = below > above ? u : -1.0 * u;
    }
  };
  measure({1.0, 0.0, 0.0});
  measure({0.0, 1.0, 0.0});
  measure({0.0, 0.0, 1.0});
  if (s.segment) {
    const D3 dr = s.Dir();
    const D3 edges[3] = {{s.h[0] + s.h[0], 0.0, 0.0},
                         {0.0, s.h[1] + s.h[1], 0.0},
                         {0.0, 0.0, s.h[2] + s.h[2]}};
    for (const D3& e : edges) {
      const D3 c = Cross(dr, e);
      const double c2 = Dot(c, c);
      if (c2 > 0.0) measure((1.0 / std::sqrt(c2)) * c);
    }
  }
  *n = ToVec3(best_axis);
  return radius - best_gap;
}

// The closest points of the cores (the round core's in *on_round, the
// box's in *on_box) and their squared distance, in double.
double ClosestPoints(const BoxFrameCore& s, D3* on_round, D3* on_box) {
  D3 x = s.Start();
  double t_enter = 0.0;
  if (s.segment) {
    if (SegmentEntersBox(s, &t_enter)) {
      x = s.Start() + t_enter * s.Dir();
      *on_round = x;
      *on_box = x;
      return 0.0;
    }
    x = s.Start() + ClosestParameter(s) * s.Dir();
  }
  *on_round = x;
  *on_box = ClampToBox(s, x);
  const D3 diff = x - *on_box;
  return Dot(diff, diff);
}

// The cores apart by more than kCoreContactFraction (r), d between them:
// the closest points' direction, exact up to its rounding, with on_box and
// on_round the closest points and diff their difference.
ContactResult<3> ContactCoresApart(const BoxFrameCore& s, double d, Vec3 on_box,
                                   Vec3 on_round, Vec3 diff, float radius) {
  const auto radii = static_cast<double>(radius);
  Vec3 n{0.0f, 0.0f, 1.0f};
  const float diff_len = Length(diff);
  if (diff_len > 0.0f) n = (1.0f / diff_len) * diff;
  double depth = radii - d;
  if (depth >= 0.0) {
    // Overlapping: the overlap along the (rounded) normal, by projection,
    // and the cores' SAT if it is less (see ContactRound).
    depth = radii - GapAlong(s, n);
    Vec3 u;
    const double along = BoxRoundSat(s, radii, &u);
    if (along < depth) {
      n = u;
      depth = along;
    }
  }
  ContactResult<3> result;
  result.normal = n;
  result.depth = static_cast<float>(depth);
  result.overlapping = result.depth >= 0.0f;
  if (result.overlapping) {
    // Midway between the box's surface point and the round one's.
    result.points[0] = 0.5f * (on_box + (on_round - radius * n));
    result.point_count = 1;
  }
  return result;
}

// The cores touch or cross (d at most kCoreContactFraction (r)): their
// SAT, and while they are apart (d > 0) the closest points' direction too.
// p and q are the round core's floats, on_round its closest point.
ContactResult<3> ContactCoresTouching(const BoxFrameCore& s, double d, Vec3 p,
                                      Vec3 q, Vec3 on_round, Vec3 diff,
                                      float radius) {
  const auto radii = static_cast<double>(radius);
  Vec3 n;
  double depth = BoxRoundSat(s, radii, &n);
  if (d > 0.0) {
    const float len = Length(diff);
    if (len > 0.0f) {
      const Vec3 u = (1.0f / len) * diff;
      const double along = radii - GapAlong(s, u);
      if (along < depth) {
        depth = along;
        n = u;
      }
    }
  }
  ContactResult<3> result;
  result.normal = n;
  result.depth = static_cast<float>(depth);
  result.overlapping = result.depth >= 0.0f;
  if (result.overlapping) {
    // The round core's deepest point towards the box, moved to its surface
    // and half the depth back (DeepestCorePoint, convex_round.h).
    result.points[0] = DeepestCorePoint(p, q, s.segment, -n, on_round) -
                       (radius - 0.5f * result.depth) * n;
    result.point_count = 1;
  }
  return result;
}

}  // namespace

ContactResult<3> ContactBoxRoundLocal(Vec3 h, Vec3 p, Vec3 q, bool segment,
                                      float radius) {
  const BoxFrameCore s = MakeBoxFrameCore(h, p, q, segment);
  D3 on_round;
  D3 on_box;
  const double d = std::sqrt(ClosestPoints(s, &on_round, &on_box));
  const Vec3 diff = ToVec3(on_round - on_box);
  if (d > kCoreContactFraction * static_cast<double>(radius)) {
    return ContactCoresApart(s, d, ToVec3(on_box), ToVec3(on_round), diff,
                             radius);
  }
  return ContactCoresTouching(s, d, p, q, ToVec3(on_round), diff, radius);
}

bool OverlapBoxRoundLocal(Vec3 h, Vec3 p, Vec3 q, bool segment, float radius) {
  const BoxFrameCore s = MakeBoxFrameCore(h, p, q, segment);
  D3 on_round;
  D3 on_box;
  const double r = radius;
  return ClosestPoints(s, &on_round, &on_box) <= r * r;
}

}  // namespace sator::internal
