// Private: the last 12 axes of the OBB-OBB overlap test (B's 3 face axes and
// the 9 edge-edge axes), shared by OverlapBoxBox (R from a quaternion) and
// OverlapObbObb (R from two axis matrices).
//
// Everything is in A's frame: r[i][j] = A_i . B_j, abs_r = |r| + epsilon
// (Ericson 4.4.1: the epsilon keeps parallel edges, whose cross product
// vanishes, from reporting a separation), t is B's centre. Along
// L = A_i x B_j (not unit, no normalisation needed for a yes/no answer) the
// terms reduce to entries of R (Gottschalk 1996; Ericson's table 4.1):
//   r_a = a[i1] |R[i2][j]| + a[i2] |R[i1][j]|
//   r_b = b[j1] |R[i][j2]| + b[j2] |R[i][j1]|
//   t . L = t[i2] R[i1][j] - t[i1] R[i2][j]
// with i1, i2 (j1, j2) the two other indices, cyclically.
#ifndef SATOR_CORE_SRC_COLLIDE3D_BOX_OVERLAP_AXES_H_
#define SATOR_CORE_SRC_COLLIDE3D_BOX_OVERLAP_AXES_H_

#include <cmath>

#include "sator/core/vec.h"

namespace sator::internal {

// Ericson's epsilon added to |R|.
inline constexpr float kBoxOverlapEpsilon = 1e-6f;

// Ericson's epsilon is in the units of the unnormalised edge axis
// L = A_i x B_j, of length sin(angle): normalised, it widens the boxes by
// 1e-6 (a_i1 + a_i2 + b_j1 + b_j2) / sin(angle). Where the edges are nearly
// but not quite parallel that reaches 1e-3 of the size (a sine of 2e-3),
// and the test would report overlap for boxes 1e-3 apart that Contact
// reports apart (ObbOverlapTest.NearlyParallelEdgesAgreeWithContact).
// Edge pairs whose squared sine lies in [kBoxEdgeParallelSin2,
// kBoxEdgeConditionedSin2) are neither parallel enough to skip (the face
// axes bound such an axis's separation to about the sine times the size,
// 1e-5) nor long enough for the epsilon to be negligible (at a sine of
// 0.05 it widens by 2e-5 of the size). A pair of boxes with such an edge
// pair that the 15 axes find overlapping is decided by BoxBoxSeparation
// (box_box.h), the MTV's own test, without the epsilon.
inline constexpr float kBoxEdgeParallelSin2 = 1e-10f;
inline constexpr float kBoxEdgeConditionedSin2 = 0.0025f;
// sqrt(1 - kBoxEdgeConditionedSin2), rounded down: an entry of |R| above
// it marks a pair of nearly parallel edges (a cheap first test).
inline constexpr float kBoxEdgeNearlyParallelCos = 0.99874f;

// True when some edge pair A_i x B_j is nearly parallel in the sense above.
// |A_i x B_j|^2 = R[i1][j]^2 + R[i2][j]^2, summed from the small entries
// (1 - R[i][j]^2 would lose every digit of a sine below 1e-4).
inline bool HasIllConditionedEdgePair(const float (&r)[3][3]) {
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3;
    const int i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      if (!(std::fabs(r[i][j]) > kBoxEdgeNearlyParallelCos)) continue;
      const float sin2 = r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j];
      if (sin2 >= kBoxEdgeParallelSin2 && sin2 < kBoxEdgeConditionedSin2) {
        return true;
      }
    }
  }
  return false;
}

// A bounding-sphere pre-test: each box lies in the ball of radius |h| about
// its centre, so centres farther apart than the two radii cannot overlap.
// Squared twice to stay free of square roots:
// |t| > |ha| + |hb|  <=>  |t|^2 - |ha|^2 - |hb|^2 > 2 |ha| |hb|.
[[gnu::always_inline]] inline bool BoundingSpheresApart(Vec3 t, Vec3 ha,
                                                        Vec3 hb) {
  const float ra_sq = LengthSquared(ha);
  const float rb_sq = LengthSquared(hb);
  const float excess = LengthSquared(t) - ra_sq - rb_sq;
  return excess > 0.0f && excess * excess > 4.0f * ra_sq * rb_sq;
}

// True when one of B's face axes or the 9 edge axes separates the boxes.
// `r` and `a` (abs_r) are row-major 3x3.
[[gnu::always_inline]] inline bool SeparatedOnBAndEdgeAxes(
    Vec3 ha, Vec3 hb, Vec3 t, const float (&r)[3][3], const float (&a)[3][3]) {
  // B's face axes.
  if (std::fabs(t.x * r[0][0] + t.y * r[1][0] + t.z * r[2][0]) >
      ha.x * a[0][0] + ha.y * a[1][0] + ha.z * a[2][0] + hb.x) {
    return true;
  }
  if (std::fabs(t.x * r[0][1] + t.y * r[1][1] + t.z * r[2][1]) >
      ha.x * a[0][1] + ha.y * a[1][1] + ha.z * a[2][1] + hb.y) {
    return true;
  }
  if (std::fabs(t.x * r[0][2] + t.y * r[1][2] + t.z * r[2][2]) >
      ha.x * a[0][2] + ha.y * a[1][2] + ha.z * a[2][2] + hb.z) {
    return true;
  }
  // L = A0 x B0, A0 x B1, A0 x B2.
  if (std::fabs(t.z * r[1][0] - t.y * r[2][0]) >
      ha.y * a[2][0] + ha.z * a[1][0] + hb.y * a[0][2] + hb.z * a[0][1]) {
    return true;
  }
  if (std::fabs(t.z * r[1][1] - t.y * r[2][1]) >
      ha.y * a[2][1] + ha.z * a[1][1] + hb.x * a[0][2] + hb.z * a[0][0]) {
    return true;
  }
  if (std::fabs(t.z * r[1][2] - t.y * r[2][2]) >
      ha.y * a[2][2] + ha.z * a[1][2] + hb.x * a[0][1] + hb.y * a[0][0]) {
    return true;
  }
  // L = A1 x B0, A1 x B1, A1 x B2.
  if (std::fabs(t.x * r[2][0] - t.z * r[0][0]) >
      ha.x * a[2][0] + ha.z * a[0][0] + hb.y * a[1][2] + hb.z * a[1][1]) {
    return true;
  }
  if (std::fabs(t.x * r[2][1] - t.z * r[0][1]) >
      ha.x * a[2][1] + ha.z * a[0][1] + hb.x * a[1][2] + hb.z * a[1][0]) {
    return true;
  }
  if (std::fabs(t.x * r[2][2] - t.z * r[0][2]) >
      ha.x * a[2][2] + ha.z * a[0][2] + hb.x * a[1][1] + hb.y * a[1][0]) {
    return true;
  }
  // L = A2 x B0, A2 x B1, A2 x B2.
  if (std::fabs(t.y * r[0][0] - t.x * r[1][0]) >
      ha.x * a[1][0] + ha.y * a[0][0] + hb.y * a[2][2] + hb.z * a[2][1]) {
    return true;
  }
  if (std::fabs(t.y * r[0][1] - t.x * r[1][1]) >
      ha.x * a[1][1] + ha.y * a[0][1] + hb.x * a[2][2] + hb.z * a[2][0]) {
    return true;
  }
  if (std::fabs(t.y * r[0][2] - t.x * r[1][2]) >
      ha.x * a[1][2] + ha.y * a[0][2] + hb.x * a[2][1] + hb.y * a[2][0]) {
    return true;
  }
  return false;
}

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_BOX_OVERLAP_AXES_H_
