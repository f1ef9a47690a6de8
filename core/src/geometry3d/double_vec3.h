// Private: a 3-vector in double, for the few places that need exact
// products of float inputs (a product of two floats is exact in double) or
// more range and precision than float: quickhull's predicates, the
// nearly-parallel parts of the round sweeps and the closest points of round
// shapes' cores.
#ifndef SATOR_CORE_SRC_GEOMETRY3D_DOUBLE_VEC3_H_
#define SATOR_CORE_SRC_GEOMETRY3D_DOUBLE_VEC3_H_

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

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_GEOMETRY3D_DOUBLE_VEC3_H_
