// Private: the rotation matrix of a unit quaternion, shared by the box-box
// overlap and contact, the hull SAT and the polytope sweep (each then keeps
// R in its own layout). Row-major: r[i][j] = e_i . (q e_j), so rotating v
// is (row 0 . v, row 1 . v, row 2 . v). The standard formula (Shoemake,
// "Animating rotation with quaternion curves", SIGGRAPH 1985) with the
// doubled components formed once: 9 products and 12 additions. The rows can
// also be formed one at a time (OverlapBoxBox tests each of A's face axes
// as soon as its row exists).
#ifndef SATOR_CORE_SRC_COLLIDE3D_ROTATION_MATRIX_H_
#define SATOR_CORE_SRC_COLLIDE3D_ROTATION_MATRIX_H_

#include "sator/core/pose.h"

namespace sator::internal {

// The nine products of the quaternion's components the matrix is made of.
struct RotationProducts {
  float xx, yy, zz, xy, xz, yz, wx, wy, wz;
};

[[gnu::always_inline]] inline RotationProducts ProductsOf(const Quat& q) {
  const float x2 = q.x + q.x;
  const float y2 = q.y + q.y;
  const float z2 = q.z + q.z;
  return {q.x * x2, q.y * y2, q.z * z2, q.x * y2, q.x * z2,
          q.y * z2, q.w * x2, q.w * y2, q.w * z2};
}

// Row `I` of R.
template <int I>
[[gnu::always_inline]] inline void RotationRow(const RotationProducts& p,
                                               float row[3]) {
  static_assert(I >= 0 && I < 3);
  if constexpr (I == 0) {
    row[0] = 1.0f - (p.yy + p.zz);
    row[1] = p.xy - p.wz;
    row[2] = p.xz + p.wy;
  } else if constexpr (I == 1) {
    row[0] = p.xy + p.wz;
    row[1] = 1.0f - (p.xx + p.zz);
    row[2] = p.yz - p.wx;
  } else {
    row[0] = p.xz - p.wy;
    row[1] = p.yz + p.wx;
    row[2] = 1.0f - (p.xx + p.yy);
  }
}

[[gnu::always_inline]] inline void RotationMatrixOf(const Quat& q,
                                                    float r[3][3]) {
  const RotationProducts p = ProductsOf(q);
  RotationRow<0>(p, r[0]);
  RotationRow<1>(p, r[1]);
  RotationRow<2>(p, r[2]);
}

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_ROTATION_MATRIX_H_
