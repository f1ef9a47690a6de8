// A reference in double for two boxes, B posed in A's frame, written from
// the separating axis theorem (Gottschalk, "Separating axis theorem" (1996);
// Ericson, "Real-Time Collision Detection" (2005) 4.4.1 and 5.5.8): the
// Minkowski difference of two boxes is a convex polytope whose face normals
// are among 15 axes (the 3 face normals of each box and the 9 cross products
// of an edge direction of each). So
// - the penetration depth is the least overlap of the boxes' projections
//   over those axes (any other direction only bounds it from above, so an
//   axis computed with rounding, from nearly parallel edges, cannot make it
//   too small), and
// - under a relative translation the first time of contact is the latest
//   entry of the projections' overlap over the axes, if that precedes the
//   earliest exit.
// The float pose is read exactly; its quaternion is normalised and turned
// into B's axes in double, independently of the library's rotation code.
#ifndef SATOR_TESTS_CORE_COLLIDE3D_BOX_REFERENCE3D_H_
#define SATOR_TESTS_CORE_COLLIDE3D_BOX_REFERENCE3D_H_

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/collide3d/double_reference3d.h"
#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"

namespace sator::test3d {

struct BoxPairD {
  Dv half_a;     // A's half extents; A is axis-aligned at the origin.
  Dv half_b;     // B's half extents.
  Dv center_b;   // B's centre in A's frame.
  Dv axes_b[3];  // B's unit axes in A's frame.
};

inline double Component(Dv v, int i) {
  return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

inline BoxPairD MakeBoxPairD(const Box3& a, const Box3& b,
                             const Pose3& b_in_a) {
  BoxPairD p;
  p.half_a = ToDv(a.half_extents);
  p.half_b = ToDv(b.half_extents);
  p.center_b = ToDv(b_in_a.position);
  RotationAxesD(b_in_a.rotation, p.axes_b);
  return p;
}

// The 15 axes, unit (exactly parallel edge pairs left out): A's faces 0-2,
// B's faces 3-5, the edge pairs 6-14.
struct AxisD {
  Dv u;
  int index;
};
inline std::vector<AxisD> BoxAxesD(const BoxPairD& p) {
  const Dv axes_a[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  std::vector<AxisD> out;
  for (int i = 0; i < 3; ++i) out.push_back({axes_a[i], i});
  for (int j = 0; j < 3; ++j) out.push_back({p.axes_b[j], 3 + j});
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const Dv c = CrossD(axes_a[i], p.axes_b[j]);
      const double len = LenD(c);
      if (len > 0.0) out.push_back({(1.0 / len) * c, 6 + 3 * i + j});
    }
  }
  return out;
}

// The projected radii of A and of B on unit u, and their sum.
inline double RadiusA(const BoxPairD& p, Dv u) {
  return std::fabs(p.half_a.x * u.x) + std::fabs(p.half_a.y * u.y) +
         std::fabs(p.half_a.z * u.z);
}
inline double RadiusB(const BoxPairD& p, Dv u) {
  double r = 0.0;
  for (int j = 0; j < 3; ++j) {
    r += Component(p.half_b, j) * std::fabs(DotD(p.axes_b[j], u));
  }
  return r;
}
inline double RadiiAlong(const BoxPairD& p, Dv u) {
  return RadiusA(p, u) + RadiusB(p, u);
}

// How far the boxes overlap along n (any direction, normalised here), B
// taken as lying on n's side: A's highest point minus B's lowest. Negative
// for a gap.
inline double OverlapAlongD(const BoxPairD& p, Dv n) {
  const Dv u = (1.0 / LenD(n)) * n;
  return RadiiAlong(p, u) - DotD(p.center_b, u);
}

// The least overlap over the 15 axes (negative: the boxes are apart, by at
// least its magnitude), and its axis, unit, from A to B.
struct BoxDepthD {
  double depth = 0.0;
  Dv normal{};
  int axis = -1;
};
inline BoxDepthD BoxDepthReference(const BoxPairD& p) {
  BoxDepthD best;
  best.depth = 3e300;
  for (const AxisD& a : BoxAxesD(p)) {
    const double c = DotD(p.center_b, a.u);
    const double overlap = RadiiAlong(p, a.u) - std::fabs(c);
    if (overlap < best.depth) {
      best.depth = overlap;
      best.normal = c >= 0.0 ? a.u : -1.0 * a.u;
      best.axis = a.index;
    }
  }
  return best;
}

// The boxes, grown (or shrunk, for a negative `grow`) by `grow` along every
// axis's projection, under B's relative displacement v over t in [0, 1]:
// whether they touch, whether they already do at t = 0, and the first time.
struct BoxSweepD {
  bool hit = false;
  bool started_overlapping = false;
  double t = 1.0;
};
inline BoxSweepD BoxSweepReference(const BoxPairD& p, Dv v, double grow) {
  double enter = -3e300;
  double exit = 3e300;
  for (const AxisD& a : BoxAxesD(p)) {
    const double reach = RadiiAlong(p, a.u) + grow;
    if (reach < 0.0) return {};  // Shrunk past nothing along this axis.
    const double c = DotD(p.center_b, a.u);
    const double s = DotD(v, a.u);
    // Overlapping while -reach <= c + t s <= reach.
    if (s == 0.0) {
      if (std::fabs(c) > reach) return {};
      continue;
    }
    const double t0 = (-reach - c) / s;
    const double t1 = (reach - c) / s;
    enter = std::max(enter, std::min(t0, t1));
    exit = std::min(exit, std::max(t0, t1));
  }
  BoxSweepD r;
  if (enter > exit || enter > 1.0 || exit < 0.0) return r;
  r.hit = true;
  r.started_overlapping = enter <= 0.0;
  r.t = std::max(enter, 0.0);
  return r;
}

// The distance by which point q (A's frame) lies outside A, or outside B
// centred at `center_b`: the largest excess over the box's half extents
// along its axes (negative inside).
inline double OutsideA(const BoxPairD& p, Dv q) {
  return std::max({std::fabs(q.x) - p.half_a.x, std::fabs(q.y) - p.half_a.y,
                   std::fabs(q.z) - p.half_a.z});
}
inline double OutsideB(const BoxPairD& p, Dv center_b, Dv q) {
  double out = -3e300;
  for (int j = 0; j < 3; ++j) {
    out = std::max(out, std::fabs(DotD(q - center_b, p.axes_b[j])) -
                            Component(p.half_b, j));
  }
  return out;
}

// A box as a frame: centre, unit axes and half extents, in A's frame.
struct BoxFrameD {
  Dv center;
  Dv axes[3];
  Dv half;
};
inline BoxFrameD FrameA(const BoxPairD& p) {
  return {{0, 0, 0}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, p.half_a};
}
inline BoxFrameD FrameB(const BoxPairD& p) {
  return {p.center_b, {p.axes_b[0], p.axes_b[1], p.axes_b[2]}, p.half_b};
}

// The face manifold by its definition: the reference box's face along axis
// `face_axis` with outward normal `sign` times that axis; the incident box's
// face most anti-parallel to it; that face clipped to the reference face's
// four sides (Sutherland-Hodgman); of the clipped polygon the points on or
// below the reference face, each with its depth below it and moved halfway
// to it.
struct ManifoldPointD {
  Dv point;
  double depth;
};
inline std::vector<ManifoldPointD> FaceManifoldReference(const BoxFrameD& ref,
                                                         int face_axis,
                                                         double sign,
                                                         const BoxFrameD& inc) {
  const Dv n = sign * ref.axes[face_axis];
  int k = 0;
  for (int j = 1; j < 3; ++j) {
    if (std::fabs(DotD(inc.axes[j], n)) > std::fabs(DotD(inc.axes[k], n))) {
      k = j;
    }
  }
  const double toward = DotD(inc.axes[k], n) > 0.0 ? -1.0 : 1.0;
  const int k1 = (k + 1) % 3;
  const int k2 = (k + 2) % 3;
  const Dv face = inc.center + (toward * Component(inc.half, k)) * inc.axes[k];
  const Dv u1 = Component(inc.half, k1) * inc.axes[k1];
  const Dv u2 = Component(inc.half, k2) * inc.axes[k2];
  std::vector<Dv> polygon = {face + u1 + u2, face - u1 + u2, face - u1 - u2,
                             face + u1 - u2};
  for (int side = 0; side < 3; ++side) {
    if (side == face_axis) continue;
    for (const double sg : {1.0, -1.0}) {
      // Inside while sg * (q - centre) . axis <= half.
      const auto outside = [&](Dv q) {
        return sg * DotD(q - ref.center, ref.axes[side]) -
               Component(ref.half, side);
      };
      std::vector<Dv> clipped;
      for (size_t m = 0; m < polygon.size(); ++m) {
        const Dv q0 = polygon[m];
        const Dv q1 = polygon[(m + 1) % polygon.size()];
        const double d0 = outside(q0);
        const double d1 = outside(q1);
        if (d0 <= 0.0) clipped.push_back(q0);
        if ((d0 < 0.0 && d1 > 0.0) || (d0 > 0.0 && d1 < 0.0)) {
          clipped.push_back(q0 + (d0 / (d0 - d1)) * (q1 - q0));
        }
      }
      polygon = clipped;
    }
  }
  std::vector<ManifoldPointD> out;
  for (const Dv& q : polygon) {
    const double depth =
        Component(ref.half, face_axis) - DotD(q - ref.center, n);
    if (depth >= 0.0) out.push_back({q + (0.5 * depth) * n, depth});
  }
  return out;
}

}  // namespace sator::test3d

#endif  // SATOR_TESTS_CORE_COLLIDE3D_BOX_REFERENCE3D_H_
