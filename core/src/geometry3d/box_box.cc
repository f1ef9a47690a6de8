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

#include "convex_closest.h"
#include "sator/core/geometry3d/contact3d.h"
#include "sator/core/geometry3d/overlap3d.h"

namespace sator {
namespace {

struct Frame {
  float r[3][3];
  float abs_r[3][3];
  float t[3];
};

// R from B's unit quaternion in A's frame (the standard quaternion to matrix
// formula, 9 products instead of rotating three axes).
[[gnu::always_inline]] inline Frame MakeFrame(const Pose3& b_in_a,
                                              float epsilon) {
  const Quat q = b_in_a.rotation;
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
  Frame f;
  f.r[0][0] = 1.0f - (yy + zz);
  f.r[0][1] = xy - wz;
  f.r[0][2] = xz + wy;
  f.r[1][0] = xy + wz;
  f.r[1][1] = 1.0f - (xx + zz);
  f.r[1][2] = yz - wx;
  f.r[2][0] = xz - wy;
  f.r[2][1] = yz + wx;
  f.r[2][2] = 1.0f - (xx + yy);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) f.abs_r[i][j] = std::fabs(f.r[i][j]) + epsilon;
    f.t[i] = b_in_a.position[i];
  }
  return f;
}

}  // namespace

bool OverlapBoxBox(const Box3& a, const Box3& b, const Pose3& b_in_a) {
  const Vec3 ha = a.half_extents;
  const Vec3 hb = b.half_extents;
  // Each box lies in the ball of radius |h| about its centre: centres
  // farther apart than the two radii cannot overlap (a cheap early exit;
  // squared twice to stay free of square roots:
  // |t| > |ha| + |hb|  <=>  |t|^2 - |ha|^2 - |hb|^2 > 2 |ha| |hb|).
  const float t_sq = LengthSquared(b_in_a.position);
  const float ra_sq = LengthSquared(ha);
  const float rb_sq = LengthSquared(hb);
  const float excess = t_sq - ra_sq - rb_sq;
  if (excess > 0.0f && excess * excess > 4.0f * ra_sq * rb_sq) return false;
  // R row by row (the quaternion-to-matrix formula), each of A's face axes
  // tested as soon as its row exists: pairs separated along A's axes skip
  // the rest. |R| carries Ericson's epsilon.
  constexpr float kEps = 1e-6f;
  const Quat q = b_in_a.rotation;
  const Vec3 t = b_in_a.position;
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
  const float r00 = 1.0f - (yy + zz);
  const float r01 = xy - wz;
  const float r02 = xz + wy;
  const float a00 = std::fabs(r00) + kEps;
  const float a01 = std::fabs(r01) + kEps;
  const float a02 = std::fabs(r02) + kEps;
  if (std::fabs(t.x) > ha.x + hb.x * a00 + hb.y * a01 + hb.z * a02) {
    return false;
  }
  const float r10 = xy + wz;
  const float r11 = 1.0f - (xx + zz);
  const float r12 = yz - wx;
  const float a10 = std::fabs(r10) + kEps;
  const float a11 = std::fabs(r11) + kEps;
  const float a12 = std::fabs(r12) + kEps;
  if (std::fabs(t.y) > ha.y + hb.x * a10 + hb.y * a11 + hb.z * a12) {
    return false;
  }
  const float r20 = xz - wy;
  const float r21 = yz + wx;
  const float r22 = 1.0f - (xx + yy);
  const float a20 = std::fabs(r20) + kEps;
  const float a21 = std::fabs(r21) + kEps;
  const float a22 = std::fabs(r22) + kEps;
  if (std::fabs(t.z) > ha.z + hb.x * a20 + hb.y * a21 + hb.z * a22) {
    return false;
  }
  // B's face axes.
  if (std::fabs(t.x * r00 + t.y * r10 + t.z * r20) >
      ha.x * a00 + ha.y * a10 + ha.z * a20 + hb.x) {
    return false;
  }
  if (std::fabs(t.x * r01 + t.y * r11 + t.z * r21) >
      ha.x * a01 + ha.y * a11 + ha.z * a21 + hb.y) {
    return false;
  }
  if (std::fabs(t.x * r02 + t.y * r12 + t.z * r22) >
      ha.x * a02 + ha.y * a12 + ha.z * a22 + hb.z) {
    return false;
  }
  // A_i x B_j, Ericson's table written out (see the top of the file).
  // L = A0 x B0, A0 x B1, A0 x B2.
  if (std::fabs(t.z * r10 - t.y * r20) >
      ha.y * a20 + ha.z * a10 + hb.y * a02 + hb.z * a01) {
    return false;
  }
  if (std::fabs(t.z * r11 - t.y * r21) >
      ha.y * a21 + ha.z * a11 + hb.x * a02 + hb.z * a00) {
    return false;
  }
  if (std::fabs(t.z * r12 - t.y * r22) >
      ha.y * a22 + ha.z * a12 + hb.x * a01 + hb.y * a00) {
    return false;
  }
  // L = A1 x B0, A1 x B1, A1 x B2.
  if (std::fabs(t.x * r20 - t.z * r00) >
      ha.x * a20 + ha.z * a00 + hb.y * a12 + hb.z * a11) {
    return false;
  }
  if (std::fabs(t.x * r21 - t.z * r01) >
      ha.x * a21 + ha.z * a01 + hb.x * a12 + hb.z * a10) {
    return false;
  }
  if (std::fabs(t.x * r22 - t.z * r02) >
      ha.x * a22 + ha.z * a02 + hb.x * a11 + hb.y * a10) {
    return false;
  }
  // L = A2 x B0, A2 x B1, A2 x B2.
  if (std::fabs(t.y * r00 - t.x * r10) >
      ha.x * a10 + ha.y * a00 + hb.y * a22 + hb.z * a21) {
    return false;
  }
  if (std::fabs(t.y * r01 - t.x * r11) >
      ha.x * a11 + ha.y * a01 + hb.x * a22 + hb.z * a20) {
    return false;
  }
  if (std::fabs(t.y * r02 - t.x * r12) >
      ha.x * a12 + ha.y * a02 + hb.x * a21 + hb.y * a20) {
    return false;
  }
  return true;
}

namespace {

struct EdgeBest {
  float sep;
  float dist;
  float inv_len;
  int index;  // 6 + 3 i + j once an edge axis wins.
};

// The edge axis A_i x B_j (Ericson's table, see the top of the file).
template <int I, int J>
[[gnu::always_inline]] inline void TryEdge(const float* ha, const float* hb,
                                           const Frame& f, EdgeBest* best) {
  constexpr int kI1 = (I + 1) % 3;
  constexpr int kI2 = (I + 2) % 3;
  constexpr int kJ1 = (J + 1) % 3;
  constexpr int kJ2 = (J + 2) % 3;
  constexpr float kMinLenSq = internal::kParallelSine * internal::kParallelSine;
  const float len_sq = f.r[kI1][J] * f.r[kI1][J] + f.r[kI2][J] * f.r[kI2][J];
  // Nearly parallel edges give no axis (Ericson 4.4.1).
  if (!(len_sq > kMinLenSq)) return;
  const float ra = ha[kI1] * f.abs_r[kI2][J] + ha[kI2] * f.abs_r[kI1][J];
  const float rb = hb[kJ1] * f.abs_r[I][kJ2] + hb[kJ2] * f.abs_r[I][kJ1];
  const float dist = f.t[kI2] * f.r[kI1][J] - f.t[kI1] * f.r[kI2][J];
  const float num = std::fabs(dist) - (ra + rb);
  const float s = best->sep;
  const float bound = s * s * len_sq;
  const bool better = s >= 0.0f ? (num > 0.0f && num * num > bound)
                                : (num >= 0.0f || num * num < bound);
  if (better) {
    const float inv_len = 1.0f / std::sqrt(len_sq);
    *best = {num * inv_len, dist, inv_len, 6 + 3 * I + J};
  }
}

// The axis of greatest separation among the 15: the 6 face separations are
// computed without branches and the largest picked; the 9 edge pairs
// A_i x B_j (numbered 6 + 3 i + j) are compared against it without square
// roots.
internal::SatAxis AxisFromFrame(const Box3& a, const Box3& b, const Frame& f) {
  const float ha[3] = {a.half_extents.x, a.half_extents.y, a.half_extents.z};
  const float hb[3] = {b.half_extents.x, b.half_extents.y, b.half_extents.z};
  float tb[3];
  float sep[6];
  for (int i = 0; i < 3; ++i) {
    const float rb =
        hb[0] * f.abs_r[i][0] + hb[1] * f.abs_r[i][1] + hb[2] * f.abs_r[i][2];
    sep[i] = std::fabs(f.t[i]) - (ha[i] + rb);
  }
  for (int j = 0; j < 3; ++j) {
    const float ra =
        ha[0] * f.abs_r[0][j] + ha[1] * f.abs_r[1][j] + ha[2] * f.abs_r[2][j];
    tb[j] = f.t[0] * f.r[0][j] + f.t[1] * f.r[1][j] + f.t[2] * f.r[2][j];
    sep[3 + j] = std::fabs(tb[j]) - (ra + hb[j]);
  }
  // Faces first; ties go to the earlier axis.
  int best = 0;
  for (int k = 1; k < 6; ++k) {
    if (sep[k] > sep[best]) best = k;
  }
  float best_sep = sep[best];
  // Edge axes, unnormalised: (|dist| - (ra + rb)) / |L| beats best_sep iff
  // the comparison holds after multiplying by |L| > 0, which squaring
  // decides without a square root; only a winner is normalised. Unrolled
  // (TryEdge<i, j>) so every index is a constant.
  EdgeBest edge{best_sep, 0.0f, 0.0f, best};
  TryEdge<0, 0>(ha, hb, f, &edge);
  TryEdge<0, 1>(ha, hb, f, &edge);
  TryEdge<0, 2>(ha, hb, f, &edge);
  TryEdge<1, 0>(ha, hb, f, &edge);
  TryEdge<1, 1>(ha, hb, f, &edge);
  TryEdge<1, 2>(ha, hb, f, &edge);
  TryEdge<2, 0>(ha, hb, f, &edge);
  TryEdge<2, 1>(ha, hb, f, &edge);
  TryEdge<2, 2>(ha, hb, f, &edge);
  best_sep = edge.sep;
  best = edge.index;
  const float best_dist = edge.dist;
  const float best_inv_len = edge.inv_len;
  internal::SatAxis axis;
  axis.separation = best_sep;
  if (best < 3) {
    const float s = f.t[best] >= 0.0f ? 1.0f : -1.0f;
    Vec3 n{};
    n[best] = s;
    axis.kind = internal::AxisKind::kFaceA;
    axis.normal = n;
    axis.index_a = 2 * best + (s > 0.0f ? 0 : 1);
  } else if (best < 6) {
    const int j = best - 3;
    const float s = tb[j] >= 0.0f ? 1.0f : -1.0f;
    axis.kind = internal::AxisKind::kFaceB;
    axis.normal = {s * f.r[0][j], s * f.r[1][j], s * f.r[2][j]};
    // B's face towards A has outward normal -normal.
    axis.index_b = 2 * j + (s > 0.0f ? 1 : 0);
  } else {
    const int k = best - 6;
    const int i = k / 3;
    const int j = k % 3;
    const int i1 = i == 2 ? 0 : i + 1;
    const int i2 = i == 0 ? 2 : i - 1;
    const float s = (best_dist >= 0.0f ? 1.0f : -1.0f) * best_inv_len;
    // L = A_i x B_j = -R[i2][j] e_i1 + R[i1][j] e_i2.
    Vec3 n{};
    n[i1] = -s * f.r[i2][j];
    n[i2] = s * f.r[i1][j];
    axis.kind = internal::AxisKind::kEdges;
    axis.normal = n;
    axis.index_a = 4 * i;
    axis.index_b = 4 * j;
  }
  return axis;
}

}  // namespace

namespace internal {

SatAxis BoxBoxAxis(const Box3& a, const Box3& b, const Pose3& b_in_a) {
  return AxisFromFrame(a, b, MakeFrame(b_in_a, 0.0f));
}

}  // namespace internal

namespace {

// Reference-face clipping specialised to boxes. The reference face belongs
// to box R (half extents hr) in R's own frame, with outward normal s * e_i;
// the incident box I (half extents hi) is placed by (rot, t) in R's frame.
// The incident face is I's face most anti-parallel to the reference normal;
// it is clipped against the four axis-aligned side planes |x_k| <= hr[k]
// (k != i) of the reference face, and the points below the face are kept,
// moved halfway to it. Points are returned in R's frame.
int ClipBoxFace(Vec3 hr, int i, float s, Vec3 hi, const float rot[3][3], Vec3 t,
                Vec3* points, float* depths) {
  // The incident face: I's axis j most aligned with e_i, facing against
  // s * e_i.
  int j = 0;
  float best = std::fabs(rot[i][0]);
  for (int k = 1; k < 3; ++k) {
    if (std::fabs(rot[i][k]) > best) {
      best = std::fabs(rot[i][k]);
      j = k;
    }
  }
  const float face_sign = (rot[i][j] * s > 0.0f) ? -1.0f : 1.0f;
  const int j1 = (j + 1) % 3;
  const int j2 = (j + 2) % 3;
  const Vec3 axis_j{rot[0][j], rot[1][j], rot[2][j]};
  const Vec3 axis_j1{rot[0][j1], rot[1][j1], rot[2][j1]};
  const Vec3 axis_j2{rot[0][j2], rot[1][j2], rot[2][j2]};
  const Vec3 centre = t + (face_sign * hi[j]) * axis_j;
  const Vec3 u = hi[j1] * axis_j1;
  const Vec3 v = hi[j2] * axis_j2;
  Vec3 buf_a[8] = {centre + u + v, centre - u + v, centre - u - v,
                   centre + u - v};
  Vec3 buf_b[8];
  int n = 4;
  Vec3* in = buf_a;
  Vec3* out = buf_b;
  const int i1 = (i + 1) % 3;
  const int i2 = (i + 2) % 3;
  // Side planes: sign * x_k <= hr[k].
  const int ks[4] = {i1, i1, i2, i2};
  const float signs[4] = {1.0f, -1.0f, 1.0f, -1.0f};
  for (int p = 0; p < 4 && n > 0; ++p) {
    const int k = ks[p];
    const float sg = signs[p];
    const float limit = hr[k];
    int m = 0;
    Vec3 prev = in[n - 1];
    float d_prev = sg * prev[k] - limit;
    for (int q = 0; q < n; ++q) {
      const Vec3 cur = in[q];
      const float d_cur = sg * cur[k] - limit;
      if ((d_prev <= 0.0f) != (d_cur <= 0.0f)) {
        out[m++] = prev + (d_prev / (d_prev - d_cur)) * (cur - prev);
      }
      if (d_cur <= 0.0f) out[m++] = cur;
      prev = cur;
      d_prev = d_cur;
    }
    n = m;
    Vec3* tmp = in;
    in = out;
    out = tmp;
  }
  int count = 0;
  for (int q = 0; q < n; ++q) {
    const float depth = hr[i] - s * in[q][i];
    if (depth >= 0.0f) {
      Vec3 p = in[q];
      p[i] += s * 0.5f * depth;
      points[count] = p;
      depths[count] = depth;
      ++count;
    }
  }
  return count;
}

}  // namespace

ContactResult<3> ContactBoxBox(const Box3& a, const Box3& b,
                               const Pose3& b_in_a) {
  const Frame f = MakeFrame(b_in_a, 0.0f);
  const internal::SatAxis axis = AxisFromFrame(a, b, f);
  ContactResult<3> result;
  result.normal = axis.normal;
  result.depth = -axis.separation;
  result.overlapping = result.depth >= 0.0f;
  if (!result.overlapping) return result;
  const Vec3 ha = a.half_extents;
  const Vec3 hb = b.half_extents;
  Vec3 points[8];
  float depths[8];
  int count = 0;
  switch (axis.kind) {
    case internal::AxisKind::kFaceA: {
      const int i = axis.index_a / 2;
      const float s = (axis.index_a % 2 == 0) ? 1.0f : -1.0f;
      count = ClipBoxFace(ha, i, s, hb, f.r, b_in_a.position, points, depths);
      break;
    }
    case internal::AxisKind::kFaceB: {
      // Clip in B's frame: A is placed by R^T and -R^T t there.
      const int j = axis.index_b / 2;
      const float s = (axis.index_b % 2 == 0) ? 1.0f : -1.0f;
      float rt[3][3];
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) rt[r][c] = f.r[c][r];
      }
      const Vec3 ta = InvRotate(b_in_a.rotation, -b_in_a.position);
      count = ClipBoxFace(hb, j, s, ha, rt, ta, points, depths);
      for (int k = 0; k < count; ++k) points[k] = Transform(b_in_a, points[k]);
      break;
    }
    default: {
      // Edge-edge: A's edge along e_i farthest along n, B's edge along B_j
      // farthest along -n; the point is midway between their closest points.
      const Vec3 n = axis.normal;
      const int i = axis.index_a / 4;
      const int j = axis.index_b / 4;
      Vec3 ca{};
      for (int k = 0; k < 3; ++k) {
        if (k != i) ca[k] = n[k] >= 0.0f ? ha[k] : -ha[k];
      }
      Vec3 ea{};
      ea[i] = ha[i];
      Vec3 cb = b_in_a.position;
      Vec3 eb{};
      for (int k = 0; k < 3; ++k) {
        const Vec3 bk{f.r[0][k], f.r[1][k], f.r[2][k]};
        if (k == j) {
          eb = hb[k] * bk;
        } else {
          cb += (Dot(n, bk) >= 0.0f ? -hb[k] : hb[k]) * bk;
        }
      }
      Vec3 pa;
      Vec3 pb;
      internal::ClosestPointsSegmentSegment(ca - ea, ca + ea, cb - eb, cb + eb,
                                            &pa, &pb);
      result.points[0] = 0.5f * (pa + pb);
      result.point_count = 1;
      return result;
    }
  }
  if (count == 0) {
    // Round-off clipped everything: fall back to the generic manifold.
    internal::PolyData box_a;
    internal::PolyData local_b;
    internal::PolyData box_b;
    internal::MakeBoxData(a, &box_a);
    internal::MakeBoxData(b, &local_b);
    internal::TransformPoly(local_b.Ref(), b_in_a, &box_b);
    internal::FillContact(box_a.Ref(), box_b.Ref(), axis, &result);
    return result;
  }
  internal::ReduceContactPoints(points, depths, count, result.normal, &result);
  return result;
}

}  // namespace sator
