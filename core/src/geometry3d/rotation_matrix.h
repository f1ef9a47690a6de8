// Private: the rotation matrix of a unit quaternion, shared by the box-box
// contact, the hull SAT and the polytope sweep (each then keeps R in its
// own layout). Row-major: r[i][j] = e_i . (q e_j), so rotating v is
// (row 0 . v, row 1 . v, row 2 . v). The standard formula (Shoemake,
// "Animating rotation with quaternion curves", SIGGRAPH 1985) with the
// doubled components formed once: 9 products and 12 additions.
#ifndef SATOR_CORE_SRC_GEOMETRY3D_ROTATION_MATRIX_H_
#define SATOR_CORE_SRC_GEOMETRY3D_ROTATION_MATRIX_H_

#include "sator/core/pose.h"

namespace sator::internal {

[[gnu::always_inline]] inline void RotationMatrixOf(const Quat& q,
                                                    float r[3][3]) {
  const float x2 = q.x + q.x;
  const float y2 = q.y + q.y;
  const float z2 = q.z + q.z;
  const float xx = q.x * x2;
  const float yy = q.y * y2;
  const float zz = q.z * z2;
  const float xy = q.x * y2;
  const float xz = q.x * z2;
  const float yz = q.y * z2;
  const float wx = q.w * x2;
  const float wy = q.w * y2;
  const float wz = q.w * z2;
  r[0][0] = 1.0f - (yy + zz);
  r[0][1] = xy - wz;
  r[0][2] = xz + wy;
  r[1][0] = xy + wz;
  r[1][1] = 1.0f - (xx + zz);
  r[1][2] = yz - wx;
  r[2][0] = xz - wy;
  r[2][1] = yz + wx;
  r[2][2] = 1.0f - (xx + yy);
}

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_GEOMETRY3D_ROTATION_MATRIX_H_
