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
//
// The r_b entry of that table assumes R is exactly a rotation: it uses
// |B_j1 . L| = |A_i . (B_j x B_j1)| = |R[i][j2]|. R comes from a float
// quaternion, so its columns are orthonormal only to about 1e-7, and for
// nearly parallel edges (|L| small) that absolute error is divided by |L|
// when the separation is normalised: at |L| = 7.6e-5 the MTV came out 0.3%
// too shallow (tests/fuzz/seeds/core_pair/regression_box_box_mtv_too_
// shallow.bin). The MTV therefore takes B_j . (B_j' x B_j'') from the
// cross products of R's own columns (the cofactor matrix C, equal to R for
// an exact rotation): those are products of the small entries R[i1][j],
// R[i2][j] that define L, so their error is relative to |L| and the
// separation along L is exact for the L that is reported.
#include "box_box.h"

#include <cmath>

#include "box_overlap_axes.h"
#include "collide3d/typed3d.h"
#include "convex_closest.h"
#include "rotation_matrix.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/overlap3d.h"

namespace sator {
namespace {

struct Frame {
  float r[3][3];
  float abs_r[3][3];
  float t[3];
};

// R from B's unit quaternion in A's frame (9 products instead of rotating
// three axes), and |R|.
[[gnu::always_inline]] inline Frame MakeFrame(const Pose3& b_in_a) {
  Frame f;
  internal::RotationMatrixOf(b_in_a.rotation, f.r);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) f.abs_r[i][j] = std::fabs(f.r[i][j]);
    f.t[i] = b_in_a.position[i];
  }
  return f;
}

}  // namespace

bool OverlapBoxBox(const Box3& a, const Box3& b, const Pose3& b_in_a) {
  const Vec3 ha = a.half_extents;
  const Vec3 hb = b.half_extents;
  const Vec3 t = b_in_a.position;
  if (internal::BoundingSpheresApart(t, ha, hb)) return false;
  // R row by row (the quaternion-to-matrix formula), each of A's face axes
  // tested as soon as its row exists: pairs separated along A's axes skip
  // the rest. |R| carries Ericson's epsilon.
  constexpr float kEps = internal::kBoxOverlapEpsilon;
  const internal::RotationProducts p = internal::ProductsOf(b_in_a.rotation);
  float r[3][3];
  float abs_r[3][3];
  internal::RotationRow<0>(p, r[0]);
  for (int j = 0; j < 3; ++j) abs_r[0][j] = std::fabs(r[0][j]) + kEps;
  if (std::fabs(t.x) >
      ha.x + hb.x * abs_r[0][0] + hb.y * abs_r[0][1] + hb.z * abs_r[0][2]) {
    return false;
  }
  internal::RotationRow<1>(p, r[1]);
  for (int j = 0; j < 3; ++j) abs_r[1][j] = std::fabs(r[1][j]) + kEps;
  if (std::fabs(t.y) >
      ha.y + hb.x * abs_r[1][0] + hb.y * abs_r[1][1] + hb.z * abs_r[1][2]) {
    return false;
  }
  internal::RotationRow<2>(p, r[2]);
  for (int j = 0; j < 3; ++j) abs_r[2][j] = std::fabs(r[2][j]) + kEps;
  if (std::fabs(t.z) >
      ha.z + hb.x * abs_r[2][0] + hb.y * abs_r[2][1] + hb.z * abs_r[2][2]) {
    return false;
  }
  if (internal::SeparatedOnBAndEdgeAxes(ha, hb, t, r, abs_r)) return false;
  // Nearly parallel edges: the epsilon is too coarse (box_overlap_axes.h).
  return !internal::HasIllConditionedEdgePair(r) ||
         internal::BoxBoxSeparation(ha, hb, r, t) <= 0.0f;
}

namespace {

struct EdgeBest {
  float sep;
  float dist;
  float inv_len;
  int index;  // 6 + 3 i + j once an edge axis wins.
};

// The edge axis A_i x B_j (Ericson's table, see the top of the file).
// `abs_c` is |C|, the cofactor matrix of R (see the top of the file).
template <int I, int J>
[[gnu::always_inline]] inline void TryEdge(const float* ha, const float* hb,
                                           const Frame& f,
                                           const float (&abs_c)[3][3],
                                           EdgeBest* best) {
  constexpr int kI1 = (I + 1) % 3;
  constexpr int kI2 = (I + 2) % 3;
  constexpr int kJ1 = (J + 1) % 3;
  constexpr int kJ2 = (J + 2) % 3;
  constexpr float kMinLenSq = internal::kParallelSine * internal::kParallelSine;
  const float len_sq = f.r[kI1][J] * f.r[kI1][J] + f.r[kI2][J] * f.r[kI2][J];
  // Nearly parallel edges give no axis (Ericson 4.4.1).
  if (!(len_sq > kMinLenSq)) return;
  const float ra = ha[kI1] * f.abs_r[kI2][J] + ha[kI2] * f.abs_r[kI1][J];
  // |B_j1 . L| = |A_i . (B_j x B_j1)| = |C[i][j2]|, |B_j2 . L| = |C[i][j1]|.
  const float rb = hb[kJ1] * abs_c[I][kJ2] + hb[kJ2] * abs_c[I][kJ1];
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
// With `faces_decide_separation`, a pair that a face axis separates skips
// the edge axes and reports the best face axis (a separating axis and a
// lower bound on the distance, as ContactHullHull does).
internal::SatAxis AxisFromFrame(const Box3& a, const Box3& b, const Frame& f,
                                bool faces_decide_separation) {
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
  // An edge axis must beat the best face by a margin of 1e-5 of the boxes'
  // size: where edges are parallel an edge axis is a face axis too, equal
  // but for round-off, and the face gives the full manifold (up to 4
  // points) where the edge gives one. The depth is then at most that margin
  // deeper than the least (Gregorius's and Catto's manifolds prefer faces
  // the same way, with larger margins, for coherence). The margin never
  // lifts the bar above 0: an edge axis that separates always counts.
  const float margin = 1e-5f * (ha[0] + ha[1] + ha[2] + hb[0] + hb[1] + hb[2]);
  const float bar =
      best_sep < 0.0f ? std::fmin(best_sep + margin, 0.0f) : best_sep;
  EdgeBest edge{bar, 0.0f, 0.0f, best};
  if (!(faces_decide_separation && best_sep > 0.0f)) {
    // C's column k is B_k1 x B_k2 (k1, k2 the next indices, cyclically).
    float abs_c[3][3];
    for (int i = 0; i < 3; ++i) {
      const int i1 = i == 2 ? 0 : i + 1;
      const int i2 = i == 0 ? 2 : i - 1;
      abs_c[i][0] =
          std::fabs(f.r[i1][1] * f.r[i2][2] - f.r[i2][1] * f.r[i1][2]);
      abs_c[i][1] =
          std::fabs(f.r[i1][2] * f.r[i2][0] - f.r[i2][2] * f.r[i1][0]);
      abs_c[i][2] =
          std::fabs(f.r[i1][0] * f.r[i2][1] - f.r[i2][0] * f.r[i1][1]);
    }
    TryEdge<0, 0>(ha, hb, f, abs_c, &edge);
    TryEdge<0, 1>(ha, hb, f, abs_c, &edge);
    TryEdge<0, 2>(ha, hb, f, abs_c, &edge);
    TryEdge<1, 0>(ha, hb, f, abs_c, &edge);
    TryEdge<1, 1>(ha, hb, f, abs_c, &edge);
    TryEdge<1, 2>(ha, hb, f, abs_c, &edge);
    TryEdge<2, 0>(ha, hb, f, abs_c, &edge);
    TryEdge<2, 1>(ha, hb, f, abs_c, &edge);
    TryEdge<2, 2>(ha, hb, f, abs_c, &edge);
  }
  if (edge.index >= 6) best_sep = edge.sep;
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
  return AxisFromFrame(a, b, MakeFrame(b_in_a),
                       /*faces_decide_separation=*/false);
}

float BoxBoxSeparation(Vec3 ha, Vec3 hb, const float (&r)[3][3], Vec3 t) {
  Frame f;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      f.r[i][j] = r[i][j];
      f.abs_r[i][j] = std::fabs(r[i][j]);
    }
    f.t[i] = t[i];
  }
  return AxisFromFrame(Box3{ha}, Box3{hb}, f,
                       /*faces_decide_separation=*/true)
      .separation;
}

}  // namespace internal

namespace {

// The face manifold, specialised to boxes. The reference face belongs to
// box R (half extents hr) in R's own frame, with outward normal s * e_i; the
// incident box I (half extents hi) is placed by (rot, t) in R's frame. The
// face is the rectangle |x_i1| <= hr[i1], |x_i2| <= hr[i2] (i1, i2 the
// other two axes) at height x_i = s * hr[i]:
//   1. I's face most anti-parallel to s * e_i gives 4 corners.
//   2. The quad is clipped against the rectangle's sides x_i1 <= hr[i1],
//      -x_i1 <= hr[i1], x_i2 <= hr[i2], -x_i2 <= hr[i2] (Sutherland-Hodgman,
//      one coordinate compared per side). A side that none of the 4 corners
//      crosses cannot cut their convex hull, so it is skipped: when the
//      incident face lies within the reference face's sides, no clipping.
//   3. Points below the face (depth = hr[i] - s x_i >= 0) are kept, moved
//      halfway to it, and at most 4 are chosen as ReduceContactPoints
//      (sat_polytope.cc) chooses them; with the normal along e_i its area
//      terms are 2D cross products in (x_i1, x_i2).
// The polygon is kept as coordinate arrays (c[k] holds every x_k), so a
// runtime axis index costs an offset, not a select.
struct FacePolygon {
  float c[3][8];
};

// Sutherland-Hodgman against one side: sg * x_k <= limit, sg = +1 for
// kUpper, -1 otherwise.
template <bool kUpper>
[[gnu::always_inline]] inline int ClipSide(const FacePolygon& in, int n, int k,
                                           float limit, FacePolygon* out) {
  const float* side = in.c[k];
  const auto outside = [limit](float x) { return (kUpper ? x : -x) - limit; };
  int m = 0;
  float px = in.c[0][n - 1];
  float py = in.c[1][n - 1];
  float pz = in.c[2][n - 1];
  float d_prev = outside(side[n - 1]);
  for (int q = 0; q < n; ++q) {
    const float cx = in.c[0][q];
    const float cy = in.c[1][q];
    const float cz = in.c[2][q];
    const float d_cur = outside(side[q]);
    if ((d_prev <= 0.0f) != (d_cur <= 0.0f)) {
      const float f = d_prev / (d_prev - d_cur);
      out->c[0][m] = px + f * (cx - px);
      out->c[1][m] = py + f * (cy - py);
      out->c[2][m] = pz + f * (cz - pz);
      ++m;
    }
    if (d_cur <= 0.0f) {
      out->c[0][m] = cx;
      out->c[1][m] = cy;
      out->c[2][m] = cz;
      ++m;
    }
    px = cx;
    py = cy;
    pz = cz;
    d_prev = d_cur;
  }
  return m;
}

// ReduceContactPoints' choice (the deepest point, the farthest from it, the
// one spanning the largest triangle with those two, the one adding the most
// area outside that triangle) on `n` > 4 points with depths `depth`, the
// normal along e_i; writes the chosen indices to `keep` and returns how
// many. (u, v) = (x_i1, x_i2): e_i . (a x b) = a_u b_v - a_v b_u.
int ReduceFacePoints(const FacePolygon& p, int i1, int i2, const float* depth,
                     int n, int* keep) {
  const float* x = p.c[0];
  const float* y = p.c[1];
  const float* z = p.c[2];
  const float* u = p.c[i1];
  const float* v = p.c[i2];
  int i0 = 0;
  for (int q = 1; q < n; ++q) {
    if (depth[q] > depth[i0]) i0 = q;
  }
  int i1st = i0 == 0 ? 1 : 0;
  float far = -1.0f;
  for (int q = 0; q < n; ++q) {
    const float dx = x[q] - x[i0];
    const float dy = y[q] - y[i0];
    const float dz = z[q] - z[i0];
    const float d = dx * dx + dy * dy + dz * dz;
    if (d > far) {
      far = d;
      i1st = q;
    }
  }
  keep[0] = i0;
  keep[1] = i1st;
  // Twice the area of (p_i0, p_i1st, p_q) in (u, v).
  const float eu = u[i1st] - u[i0];
  const float ev = v[i1st] - v[i0];
  int i2nd = -1;
  float area2 = 0.0f;
  for (int q = 0; q < n; ++q) {
    const float s = std::fabs(eu * (v[q] - v[i0]) - ev * (u[q] - u[i0]));
    if (s > area2) {
      area2 = s;
      i2nd = q;
    }
  }
  if (i2nd < 0) return 2;
  keep[2] = i2nd;
  // The point adding the most area outside the triangle: a point outside
  // edge (a, b) of the counterclockwise triangle has (b - a) x (p - a) < 0,
  // so each edge is taken with its direction times -orient.
  const float orient =
      eu * (v[i2nd] - v[i0]) - ev * (u[i2nd] - u[i0]) >= 0.0f ? 1.0f : -1.0f;
  const int tri[4] = {i0, i1st, i2nd, i0};
  float au[3];
  float av[3];
  float du[3];
  float dv[3];
  for (int e = 0; e < 3; ++e) {
    au[e] = u[tri[e]];
    av[e] = v[tri[e]];
    du[e] = -orient * (u[tri[e + 1]] - au[e]);
    dv[e] = -orient * (v[tri[e + 1]] - av[e]);
  }
  int i3rd = -1;
  float gain = 0.0f;
  for (int q = 0; q < n; ++q) {
    const float s0 = du[0] * (v[q] - av[0]) - dv[0] * (u[q] - au[0]);
    const float s1 = du[1] * (v[q] - av[1]) - dv[1] * (u[q] - au[1]);
    const float s2 = du[2] * (v[q] - av[2]) - dv[2] * (u[q] - au[2]);
    const float s01 = s0 > s1 ? s0 : s1;
    const float s = s01 > s2 ? s01 : s2;
    if (s > gain) {
      gain = s;
      i3rd = q;
    }
  }
  if (i3rd < 0) return 3;
  keep[3] = i3rd;
  return 4;
}

// Steps 1 to 3 above: at most 4 points, in R's frame; 0 when round-off
// clipped everything away.
int BoxFaceManifold(Vec3 hr, int i, float s, Vec3 hi, const float rot[3][3],
                    Vec3 t, Vec3* points) {
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
  const int j1 = j == 2 ? 0 : j + 1;
  const int j2 = j == 0 ? 2 : j - 1;
  const float h_j = face_sign * hi[j];
  const float h_j1 = hi[j1];
  const float h_j2 = hi[j2];
  const float tt[3] = {t.x, t.y, t.z};
  FacePolygon buf_a;
  FacePolygon buf_b;
  for (int r = 0; r < 3; ++r) {
    const float centre = tt[r] + h_j * rot[r][j];
    const float du = h_j1 * rot[r][j1];
    const float dv = h_j2 * rot[r][j2];
    buf_a.c[r][0] = centre + du + dv;
    buf_a.c[r][1] = centre - du + dv;
    buf_a.c[r][2] = centre - du - dv;
    buf_a.c[r][3] = centre + du - dv;
  }
  const int i1 = i == 2 ? 0 : i + 1;
  const int i2 = i == 0 ? 2 : i - 1;
  const float hu = hr[i1];
  const float hv = hr[i2];
  // The sides some corner crosses (x > limit, or -x > limit).
  const auto max4 = [](const float* x) {
    const float a = x[0] > x[1] ? x[0] : x[1];
    const float b = x[2] > x[3] ? x[2] : x[3];
    return a > b ? a : b;
  };
  const auto min4 = [](const float* x) {
    const float a = x[0] < x[1] ? x[0] : x[1];
    const float b = x[2] < x[3] ? x[2] : x[3];
    return a < b ? a : b;
  };
  const bool cut[4] = {max4(buf_a.c[i1]) > hu, -min4(buf_a.c[i1]) > hu,
                       max4(buf_a.c[i2]) > hv, -min4(buf_a.c[i2]) > hv};
  FacePolygon* in = &buf_a;
  FacePolygon* out = &buf_b;
  int n = 4;
  const auto swap = [&in, &out]() {
    FacePolygon* tmp = in;
    in = out;
    out = tmp;
  };
  if (cut[0]) {
    n = ClipSide<true>(*in, n, i1, hu, out);
    swap();
  }
  if (cut[1] && n > 0) {
    n = ClipSide<false>(*in, n, i1, hu, out);
    swap();
  }
  if (cut[2] && n > 0) {
    n = ClipSide<true>(*in, n, i2, hv, out);
    swap();
  }
  if (cut[3] && n > 0) {
    n = ClipSide<false>(*in, n, i2, hv, out);
    swap();
  }
  // Points below the face (copied without a branch into the other buffer,
  // the count advanced for those kept), moved halfway to it.
  const float face = hr[i];
  const float* h = in->c[i];
  FacePolygon& kept = *out;
  float depth[8];
  int count = 0;
  for (int q = 0; q < n; ++q) {
    const float d = face - s * h[q];
    kept.c[0][count] = in->c[0][q];
    kept.c[1][count] = in->c[1][q];
    kept.c[2][count] = in->c[2][q];
    depth[count] = d;
    count += d >= 0.0f ? 1 : 0;
  }
  for (int q = 0; q < count; ++q) kept.c[i][q] += s * 0.5f * depth[q];
  int keep[4] = {0, 1, 2, 3};
  if (count > 4) count = ReduceFacePoints(kept, i1, i2, depth, count, keep);
  for (int k = 0; k < count; ++k) {
    points[k] = {kept.c[0][keep[k]], kept.c[1][keep[k]], kept.c[2][keep[k]]};
  }
  return count;
}

}  // namespace

ContactResult<3> ContactBoxBox(const Box3& a, const Box3& b,
                               const Pose3& b_in_a) {
  const Frame f = MakeFrame(b_in_a);
  const internal::SatAxis axis =
      AxisFromFrame(a, b, f, /*faces_decide_separation=*/true);
  ContactResult<3> result;
  result.normal = axis.normal;
  result.depth = -axis.separation;
  result.overlapping = result.depth >= 0.0f;
  if (!result.overlapping) return result;
  const Vec3 ha = a.half_extents;
  const Vec3 hb = b.half_extents;
  int count = 0;
  switch (axis.kind) {
    case internal::AxisKind::kFaceA: {
      const int i = axis.index_a / 2;
      const float s = (axis.index_a % 2 == 0) ? 1.0f : -1.0f;
      count = BoxFaceManifold(ha, i, s, hb, f.r, b_in_a.position,
                              result.points.data());
      break;
    }
    case internal::AxisKind::kFaceB: {
      // In B's frame A is placed by R^T and -R^T t; the points come back
      // by R and t.
      const int j = axis.index_b / 2;
      const float s = (axis.index_b % 2 == 0) ? 1.0f : -1.0f;
      float rt[3][3];
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) rt[r][c] = f.r[c][r];
      }
      const Vec3 ta{
          -(f.t[0] * f.r[0][0] + f.t[1] * f.r[1][0] + f.t[2] * f.r[2][0]),
          -(f.t[0] * f.r[0][1] + f.t[1] * f.r[1][1] + f.t[2] * f.r[2][1]),
          -(f.t[0] * f.r[0][2] + f.t[1] * f.r[1][2] + f.t[2] * f.r[2][2])};
      count = BoxFaceManifold(hb, j, s, ha, rt, ta, result.points.data());
      for (int k = 0; k < count; ++k) {
        const Vec3 p = result.points[k];
        result.points[k] = {
            f.t[0] + f.r[0][0] * p.x + f.r[0][1] * p.y + f.r[0][2] * p.z,
            f.t[1] + f.r[1][0] * p.x + f.r[1][1] * p.y + f.r[1][2] * p.z,
            f.t[2] + f.r[2][0] * p.x + f.r[2][1] * p.y + f.r[2][2] * p.z};
      }
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
  result.point_count = count;
  return result;
}

}  // namespace sator
