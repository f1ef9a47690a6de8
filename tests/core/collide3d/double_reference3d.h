// A double 3-vector and exact point distances for the tests' references
// (written from the definitions, independent of the library's code). The
// edge vectors of float points are exact in double, so a triangle's normal
// here is good to about 1e-16 / sin(angle) however thin the triangle.
#ifndef SATOR_TESTS_CORE_COLLIDE3D_DOUBLE_REFERENCE3D_H_
#define SATOR_TESTS_CORE_COLLIDE3D_DOUBLE_REFERENCE3D_H_

#include <algorithm>
#include <cmath>

#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator::test3d {

struct Dv {
  double x, y, z;
};
inline Dv ToDv(Vec3 v) { return {v.x, v.y, v.z}; }
inline Dv operator+(Dv a, Dv b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Dv operator-(Dv a, Dv b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Dv operator*(double s, Dv a) { return {s * a.x, s * a.y, s * a.z}; }
inline double DotD(Dv a, Dv b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Dv CrossD(Dv a, Dv b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double LenD(Dv a) { return std::sqrt(DotD(a, a)); }

// The rotation of a float quaternion (not exactly unit), normalised in
// double, as its three columns: the frame's unit axes in the parent frame.
inline void RotationAxesD(Quat q, Dv axes[3]) {
  const double n = std::sqrt(
      static_cast<double>(q.x) * q.x + static_cast<double>(q.y) * q.y +
      static_cast<double>(q.z) * q.z + static_cast<double>(q.w) * q.w);
  const double x = q.x / n;
  const double y = q.y / n;
  const double z = q.z / n;
  const double w = q.w / n;
  axes[0] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)};
  axes[1] = {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)};
  axes[2] = {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)};
}

// The distance from p to segment ab (a point when a == b).
inline double DistanceToSegment(Dv p, Dv a, Dv b) {
  const Dv ab = b - a;
  const double ab2 = DotD(ab, ab);
  const double t = ab2 > 0.0 ? std::clamp(DotD(p - a, ab) / ab2, 0.0, 1.0) : 0;
  return LenD(p - (a + t * ab));
}

// The distance from p to triangle abc: to its plane when p's projection lies
// inside (on the inner side of all three edges), else to the nearest edge;
// a collinear abc is its edges.
inline double DistanceToTriangle(Dv p, Dv a, Dv b, Dv c) {
  const Dv n = CrossD(b - a, c - a);
  if (DotD(n, n) == 0.0) {  // Collinear (a hull face's fan may have them).
    return std::min({DistanceToSegment(p, a, b), DistanceToSegment(p, b, c),
                     DistanceToSegment(p, c, a)});
  }
  const Dv q = p - (DotD(p - a, n) / DotD(n, n)) * n;
  const bool inside = DotD(CrossD(b - a, q - a), n) >= 0.0 &&
                      DotD(CrossD(c - b, q - b), n) >= 0.0 &&
                      DotD(CrossD(a - c, q - c), n) >= 0.0;
  if (inside) return LenD(p - q);
  return std::min({DistanceToSegment(p, a, b), DistanceToSegment(p, b, c),
                   DistanceToSegment(p, c, a)});
}

// The distance between segments ab and cd (either may be a point): the
// least over the four endpoint-to-segment distances and, when the lines'
// closest points lie inside both segments, the distance between them.
inline double DistanceSegmentSegment(Dv a, Dv b, Dv c, Dv d) {
  double best =
      std::min({DistanceToSegment(a, c, d), DistanceToSegment(b, c, d),
                DistanceToSegment(c, a, b), DistanceToSegment(d, a, b)});
  const Dv u = b - a;
  const Dv v = d - c;
  const Dv w = a - c;
  const double uu = DotD(u, u);
  const double uv = DotD(u, v);
  const double vv = DotD(v, v);
  const double den = uu * vv - uv * uv;
  if (den > 1e-24 * uu * vv) {
    const double s = (uv * DotD(v, w) - vv * DotD(u, w)) / den;
    const double t = (uu * DotD(v, w) - uv * DotD(u, w)) / den;
    if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
      best = std::min(best, LenD((a + s * u) - (c + t * v)));
    }
  }
  return best;
}

// The distance between segment pq and the (non-degenerate) triangle abc: 0
// when the segment crosses the triangle, else the least over its endpoints
// against the triangle and the segment against the triangle's edges.
inline double DistanceSegmentTriangle(Dv p, Dv q, Dv a, Dv b, Dv c) {
  const Dv n = CrossD(b - a, c - a);
  const double sp = DotD(p - a, n);
  const double sq = DotD(q - a, n);
  if (DotD(n, n) > 0.0 &&
      ((sp <= 0.0 && sq >= 0.0) || (sp >= 0.0 && sq <= 0.0))) {
    if (sp != sq) {
      const Dv x = p + (sp / (sp - sq)) * (q - p);
      if (DotD(CrossD(b - a, x - a), n) >= 0.0 &&
          DotD(CrossD(c - b, x - b), n) >= 0.0 &&
          DotD(CrossD(a - c, x - c), n) >= 0.0) {
        return 0.0;
      }
    }
  }
  return std::min(
      {DistanceToTriangle(p, a, b, c), DistanceToTriangle(q, a, b, c),
       DistanceSegmentSegment(p, q, a, b), DistanceSegmentSegment(p, q, b, c),
       DistanceSegmentSegment(p, q, c, a)});
}

}  // namespace sator::test3d

#endif  // SATOR_TESTS_CORE_COLLIDE3D_DOUBLE_REFERENCE3D_H_
