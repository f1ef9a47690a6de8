// A double 3-vector and exact point distances for the tests' references
// (written from the definitions, independent of the library's code). The
// edge vectors of float points are exact in double, so a triangle's normal
// here is good to about 1e-16 / sin(angle) however thin the triangle.
#ifndef SATOR_TESTS_CORE_GEOMETRY3D_DOUBLE_REFERENCE3D_H_
#define SATOR_TESTS_CORE_GEOMETRY3D_DOUBLE_REFERENCE3D_H_

#include <algorithm>
#include <cmath>

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

// The distance from p to segment ab (a point when a == b).
inline double DistanceToSegment(Dv p, Dv a, Dv b) {
  const Dv ab = b - a;
  const double ab2 = DotD(ab, ab);
  const double t = ab2 > 0.0 ? std::clamp(DotD(p - a, ab) / ab2, 0.0, 1.0) : 0;
  return LenD(p - (a + t * ab));
}

// The distance from p to triangle abc: to its plane when p's projection lies
// inside (on the inner side of all three edges), else to the nearest edge.
inline double DistanceToTriangle(Dv p, Dv a, Dv b, Dv c) {
  const Dv n = CrossD(b - a, c - a);
  const Dv q = p - (DotD(p - a, n) / DotD(n, n)) * n;
  const bool inside = DotD(CrossD(b - a, q - a), n) >= 0.0 &&
                      DotD(CrossD(c - b, q - b), n) >= 0.0 &&
                      DotD(CrossD(a - c, q - c), n) >= 0.0;
  if (inside) return LenD(p - q);
  return std::min({DistanceToSegment(p, a, b), DistanceToSegment(p, b, c),
                   DistanceToSegment(p, c, a)});
}

}  // namespace sator::test3d

#endif  // SATOR_TESTS_CORE_GEOMETRY3D_DOUBLE_REFERENCE3D_H_
