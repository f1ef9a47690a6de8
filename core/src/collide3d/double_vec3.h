// Private: a 3-vector in double, for the few places that need exact
// products of float inputs (a product of two floats is exact in double) or
// more range and precision than float: quickhull's predicates, the
// nearly-parallel parts of the round sweeps and the closest points of round
// shapes' cores, and triangles' face normals.
#ifndef SATOR_CORE_SRC_COLLIDE3D_DOUBLE_VEC3_H_
#define SATOR_CORE_SRC_COLLIDE3D_DOUBLE_VEC3_H_

#include <cmath>

#include "sator/core/vec.h"

namespace sator::internal {

struct D3 {
  double x = 0.0;
  double y = 0.0;
  double z = 0.0;
};

inline D3 ToD3(Vec3 v) { return {v.x, v.y, v.z}; }
inline D3 operator-(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline D3 operator+(D3 a, D3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline D3 operator*(double s, D3 a) { return {s * a.x, s * a.y, s * a.z}; }
inline double Dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline D3 Cross(D3 a, D3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double Len(D3 a) { return std::sqrt(Dot(a, a)); }
// Rounded to float, each component once.
inline Vec3 ToVec3(D3 a) {
  return {static_cast<float>(a.x), static_cast<float>(a.y),
          static_cast<float>(a.z)};
}

// The unit normal of triangle abc, (b - a) x (c - a) normalised, formed in
// double and rounded to float once per component; zero for a degenerate
// triangle. On a sliver two edges are nearly parallel and their cross
// product cancels: in float its components carry round-off of about
// 1e-7 |b - a| |c - a| (from the products and from rounding the edge
// vectors) against a length of |b - a| |c - a| sin(angle), so the normal is
// off by about 1e-7 / sin(angle) radians, 0.1 at the smallest angle
// validation accepts (kMinTriangleAreaRatio), and a face plane along it
// tilts by that angle across the triangle's length. In double the edge
// vectors are exact (differences of floats) and each product is rounded
// once, so the direction is good to about 1e-16 / sin(angle) before the
// final rounding. (Ericson, "Real-Time Collision Detection", 2005, chapter
// 11, on cancellation in products of nearly parallel vectors.)
inline D3 TriangleNormalD3(Vec3 a, Vec3 b, Vec3 c) {
  const D3 n = Cross(ToD3(b) - ToD3(a), ToD3(c) - ToD3(a));
  const double len = Len(n);
  if (!(len > 0.0)) return {};
  return (1.0 / len) * n;
}
inline Vec3 TriangleNormal(Vec3 a, Vec3 b, Vec3 c) {
  return ToVec3(TriangleNormalD3(a, b, c));
}

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_DOUBLE_VEC3_H_
