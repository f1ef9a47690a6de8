// Bit-for-bit comparison of 3D query results, for the tests that hold a fast
// path to the answer of the path it replaces. Floats are compared by their
// bits, so -0 against +0 and two NaNs differ where == would not tell.
#ifndef SATOR_TESTS_CORE_COLLIDE3D_SAME_BITS3D_H_
#define SATOR_TESTS_CORE_COLLIDE3D_SAME_BITS3D_H_

#include <bit>
#include <cstdint>

#include "sator/core/collide3d/contact3d.h"
#include "sator/core/vec.h"

namespace sator::testing {

inline bool SameFloat(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

inline bool SameDouble(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

inline bool SameVec(Vec3 a, Vec3 b) {
  return SameFloat(a.x, b.x) && SameFloat(a.y, b.y) && SameFloat(a.z, b.z);
}

// Every field of a contact that the result defines: the points past
// point_count are not compared.
inline bool SameBits(const ContactResult<3>& x, const ContactResult<3>& y) {
  if (x.overlapping != y.overlapping || x.point_count != y.point_count ||
      !SameFloat(x.depth, y.depth) || !SameVec(x.normal, y.normal)) {
    return false;
  }
  for (int i = 0; i < x.point_count; ++i) {
    if (!SameVec(x.points[i], y.points[i])) return false;
  }
  return true;
}

}  // namespace sator::testing

#endif  // SATOR_TESTS_CORE_COLLIDE3D_SAME_BITS3D_H_
