// OBB-OBB by the separating axis theorem: the 3 face axes of each box and
// the 9 cross products of their edge directions.
//
// Gottschalk, Lin and Manocha, "OBBTree", SIGGRAPH 1996; Gottschalk,
// "Separating axis theorem", 1996; Ericson, "Real-Time Collision Detection"
// (2005) 4.4.1, including the epsilon added to |R| so that parallel edges
// (whose cross product vanishes) cannot make the test report a separation.
//
// Everything is in A's frame: R[i][j] = A_i . B_j is B's rotation matrix,
// t is B's centre. Along a unit axis L the boxes' projected radii are
// r_a = sum_i a_i |A_i . L| and r_b = sum_j b_j |B_j . L|, and they are
// separated iff |t . L| > r_a + r_b. For L = A_i x B_j (not unit, length
// sqrt(1 - R[i][j]^2)) the terms reduce to entries of R (Ericson's table):
//   r_a = a[i1] |R[i2][j]| + a[i2] |R[i1][j]|
//   r_b = b[j1] |R[i][j2]| + b[j2] |R[i][j1]|
//   t . L = t[i2] R[i1][j] - t[i1] R[i2][j]
// with i1, i2 (j1, j2) the two other indices, cyclically.
#include "box_box.h"

#include <cmath>

#include "sator/core/geometry3d/contact3d.h"
#include "sator/core/geometry3d/overlap3d.h"

namespace sator {
namespace {

struct Frame {
  float r[3][3];
  float abs_r[3][3];
  float t[3];
};

Frame MakeFrame(const Pose3& b_in_a, float epsilon) {
  Frame f;
  const Vec3 cols[3] = {Rotate(b_in_a.rotation, {1, 0, 0}),
                        Rotate(b_in_a.rotation, {0, 1, 0}),
                        Rotate(b_in_a.rotation, {0, 0, 1})};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      f.r[i][j] = cols[j][i];
      f.abs_r[i][j] = std::fabs(cols[j][i]) + epsilon;
    }
    f.t[i] = b_in_a.position[i];
  }
  return f;
}

}  // namespace

bool OverlapBoxBox(const Box3& a, const Box3& b, const Pose3& b_in_a) {
  const Frame f = MakeFrame(b_in_a, 1e-6f);
  const Vec3 ha = a.half_extents;
  const Vec3 hb = b.half_extents;
  for (int i = 0; i < 3; ++i) {
    const float rb =
        hb.x * f.abs_r[i][0] + hb.y * f.abs_r[i][1] + hb.z * f.abs_r[i][2];
    if (std::fabs(f.t[i]) > ha[i] + rb) return false;
  }
  for (int j = 0; j < 3; ++j) {
    const float ra =
        ha.x * f.abs_r[0][j] + ha.y * f.abs_r[1][j] + ha.z * f.abs_r[2][j];
    const float tj =
        f.t[0] * f.r[0][j] + f.t[1] * f.r[1][j] + f.t[2] * f.r[2][j];
    if (std::fabs(tj) > ra + hb[j]) return false;
  }
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3;
    const int i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      const int j1 = (j + 1) % 3;
      const int j2 = (j + 2) % 3;
      const float ra = ha[i1] * f.abs_r[i2][j] + ha[i2] * f.abs_r[i1][j];
      const float rb = hb[j1] * f.abs_r[i][j2] + hb[j2] * f.abs_r[i][j1];
      const float dist = f.t[i2] * f.r[i1][j] - f.t[i1] * f.r[i2][j];
      if (std::fabs(dist) > ra + rb) return false;
    }
  }
  return true;
}

namespace internal {

SatAxis BoxBoxAxis(const Box3& a, const Box3& b, const Pose3& b_in_a) {
  const Frame f = MakeFrame(b_in_a, 0.0f);
  const Vec3 ha = a.half_extents;
  const Vec3 hb = b.half_extents;
  SatAxis best;
  // A's faces.
  for (int i = 0; i < 3; ++i) {
    const float rb =
        hb.x * f.abs_r[i][0] + hb.y * f.abs_r[i][1] + hb.z * f.abs_r[i][2];
    const float sep = std::fabs(f.t[i]) - (ha[i] + rb);
    if (sep > best.separation) {
      const float s = f.t[i] >= 0.0f ? 1.0f : -1.0f;
      Vec3 n{};
      n[i] = s;
      best = {AxisKind::kFaceA, sep, n, 2 * i + (s > 0.0f ? 0 : 1), -1};
    }
  }
  // B's faces.
  for (int j = 0; j < 3; ++j) {
    const float ra =
        ha.x * f.abs_r[0][j] + ha.y * f.abs_r[1][j] + ha.z * f.abs_r[2][j];
    const float tj =
        f.t[0] * f.r[0][j] + f.t[1] * f.r[1][j] + f.t[2] * f.r[2][j];
    const float sep = std::fabs(tj) - (ra + hb[j]);
    if (sep > best.separation) {
      const float s = tj >= 0.0f ? 1.0f : -1.0f;
      const Vec3 n{s * f.r[0][j], s * f.r[1][j], s * f.r[2][j]};
      // B's face towards A has outward normal -n.
      best = {AxisKind::kFaceB, sep, n, -1, 2 * j + (s > 0.0f ? 1 : 0)};
    }
  }
  // Edge-edge axes, normalised by |A_i x B_j| = sqrt(1 - R[i][j]^2).
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3;
    const int i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      const int j1 = (j + 1) % 3;
      const int j2 = (j + 2) % 3;
      const float len_sq = f.r[i1][j] * f.r[i1][j] + f.r[i2][j] * f.r[i2][j];
      if (!(len_sq > kParallelSine * kParallelSine)) continue;
      const float inv_len = 1.0f / std::sqrt(len_sq);
      const float ra = ha[i1] * f.abs_r[i2][j] + ha[i2] * f.abs_r[i1][j];
      const float rb = hb[j1] * f.abs_r[i][j2] + hb[j2] * f.abs_r[i][j1];
      const float dist = f.t[i2] * f.r[i1][j] - f.t[i1] * f.r[i2][j];
      const float sep = (std::fabs(dist) - (ra + rb)) * inv_len;
      if (sep > best.separation) {
        const float s = (dist >= 0.0f ? 1.0f : -1.0f) * inv_len;
        // L = A_i x B_j = -R[i2][j] e_i1 + R[i1][j] e_i2.
        Vec3 n{};
        n[i1] = -s * f.r[i2][j];
        n[i2] = s * f.r[i1][j];
        best = {AxisKind::kEdges, sep, n, 4 * i, 4 * j};
      }
    }
  }
  return best;
}

}  // namespace internal

ContactResult<3> ContactBoxBox(const Box3& a, const Box3& b,
                               const Pose3& b_in_a) {
  const internal::SatAxis axis = internal::BoxBoxAxis(a, b, b_in_a);
  ContactResult<3> result;
  result.normal = axis.normal;
  result.depth = -axis.separation;
  result.overlapping = result.depth >= 0.0f;
  if (!result.overlapping) return result;
  internal::PolyData box_a;
  internal::PolyData local_b;
  internal::PolyData box_b;
  internal::MakeBoxData(a, &box_a);
  internal::MakeBoxData(b, &local_b);
  internal::TransformPoly(local_b.Ref(), b_in_a, &box_b);
  internal::FillContact(box_a.Ref(), box_b.Ref(), axis, &result);
  return result;
}

}  // namespace sator
