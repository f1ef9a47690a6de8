// OBB-OBB overlap on boxes whose world axes are already known (Obb3): the
// same 15-axis test as OverlapBoxBox (box_overlap_axes.h), with B's rotation
// in A's frame formed from dot products of the two axis sets,
// R[i][j] = A_i . B_j (Gottschalk 1996; Ericson 4.4.1), three axes per
// vector operation (simd/float4.h).
#include <cmath>

#include "box_box.h"
#include "box_overlap_axes.h"
#include "sator/core/collide3d/overlap3d.h"
#include "simd/float4.h"

namespace sator {

Obb3 MakeObb(const Box3& box, const Pose3& pose) {
  Obb3 obb;
  obb.center = pose.position;
  obb.axes[0] = Rotate(pose.rotation, Vec3{1.0f, 0.0f, 0.0f});
  obb.axes[1] = Rotate(pose.rotation, Vec3{0.0f, 1.0f, 0.0f});
  obb.axes[2] = Rotate(pose.rotation, Vec3{0.0f, 0.0f, 1.0f});
  obb.half_extents = box.half_extents;
  return obb;
}

namespace {

// For boxes the 15 axes (with Ericson's epsilon) found overlapping: true
// unless an edge pair is nearly but not quite parallel and the MTV's test
// finds them apart (box_overlap_axes.h).
[[gnu::noinline, gnu::cold]] bool DecideNearlyParallel(const Obb3& a,
                                                       const Obb3& b) {
  float r[3][3];
  Vec3 t;
  const Vec3 d = b.center - a.center;
  for (int i = 0; i < 3; ++i) {
    t[i] = Dot(d, a.axes[i]);
    for (int j = 0; j < 3; ++j) r[i][j] = Dot(a.axes[i], b.axes[j]);
  }
  return !internal::HasIllConditionedEdgePair(r) ||
         internal::BoxBoxSeparation(a.half_extents, b.half_extents, r, t) <=
             0.0f;
}

}  // namespace

namespace {

using simd::Float4;

Float4 Load3(const Vec3& v) { return {v.x, v.y, v.z, 0.0f}; }
// (v1, v2, v0) and (v2, v0, v1): the components j1 = j + 1 and j2 = j + 2
// (mod 3) of lane j.
Float4 Next(Float4 v) { return simd::Permute<1, 2, 0, 3>(v); }
Float4 After(Float4 v) { return simd::Permute<2, 0, 1, 3>(v); }

}  // namespace

// The 15 axes three at a time (lanes 0-2; lane 3 holds zeros and never
// separates): A's faces, then B's faces and for each A_i the three edge axes
// A_i x B_j. The same terms as box_overlap_axes.h (Ericson's table 4.1),
// with R's columns and rows formed from the transposed A axes. One branch
// after A's faces (which separate most separated pairs), none after: the
// pairs a narrow phase gets are near each other, so a bounding-sphere
// pre-test rarely ends one and its branch mispredicts.
bool OverlapObbObb(const Obb3& a, const Obb3& b) {
  using simd::Abs;
  using simd::AnyLane;
  using simd::Broadcast;
  const Float4 eps = Float4::Splat(internal::kBoxOverlapEpsilon);
  // Columns of A's axis matrix: x, y and z of A_0, A_1, A_2.
  Float4 ax = Load3(a.axes[0]);
  Float4 ay = Load3(a.axes[1]);
  Float4 az = Load3(a.axes[2]);
  Float4 aw = Float4::Splat(0.0f);
  simd::Transpose(ax, ay, az, aw);
  auto in_a = [&](const Vec3& v) {
    return (ax * Float4::Splat(v.x) + ay * Float4::Splat(v.y)) +
           az * Float4::Splat(v.z);
  };
  const Float4 t = in_a(b.center - a.center);  // t_i = A_i . d
  const Float4 ha = Load3(a.half_extents);
  const Float4 hb = Load3(b.half_extents);
  // R's columns: col_j = (A_0 . B_j, A_1 . B_j, A_2 . B_j).
  Float4 c0 = in_a(b.axes[0]);
  Float4 c1 = in_a(b.axes[1]);
  Float4 c2 = in_a(b.axes[2]);
  const Float4 ac0 = Abs(c0) + eps;
  const Float4 ac1 = Abs(c1) + eps;
  const Float4 ac2 = Abs(c2) + eps;
  // A's face axes: |t_i| > ha_i + sum_j hb_j |R_ij|.
  const Float4 ra = ha + ((Broadcast<0>(hb) * ac0 + Broadcast<1>(hb) * ac1) +
                          Broadcast<2>(hb) * ac2);
  if (AnyLane(Abs(t) > ra)) return false;
  // R's rows: row_i = (R_i0, R_i1, R_i2), and their absolute values.
  Float4 r3 = Float4::Splat(0.0f);
  simd::Transpose(c0, c1, c2, r3);
  const Float4 row0 = c0;
  const Float4 row1 = c1;
  const Float4 row2 = c2;
  const Float4 arow0 = Abs(row0) + eps;
  const Float4 arow1 = Abs(row1) + eps;
  const Float4 arow2 = Abs(row2) + eps;
  const Float4 t0 = Broadcast<0>(t);
  const Float4 t1 = Broadcast<1>(t);
  const Float4 t2 = Broadcast<2>(t);
  const Float4 ha0 = Broadcast<0>(ha);
  const Float4 ha1 = Broadcast<1>(ha);
  const Float4 ha2 = Broadcast<2>(ha);
  // B's face axes: |t . col_j| > sum_i ha_i |R_ij| + hb_j.
  const Float4 sb = (t0 * row0 + t1 * row1) + t2 * row2;
  const Float4 rb = ((ha0 * arow0 + ha1 * arow1) + ha2 * arow2) + hb;
  simd::Mask4 separated = Abs(sb) > rb;
  // Edge axes A_i x B_j, for j in the lanes:
  //   |t_i2 R_i1j - t_i1 R_i2j| > ha_i1 |R_i2j| + ha_i2 |R_i1j|
  //                               + hb_j1 |R_ij2| + hb_j2 |R_ij1|.
  const Float4 hb_next = Next(hb);
  const Float4 hb_after = After(hb);
  auto edges = [&](Float4 t_i1, Float4 t_i2, Float4 row_i1, Float4 row_i2,
                   Float4 ha_i1, Float4 ha_i2, Float4 arow_i, Float4 arow_i1,
                   Float4 arow_i2) {
    const Float4 lhs = Abs(t_i2 * row_i1 - t_i1 * row_i2);
    const Float4 rhs = (ha_i1 * arow_i2 + ha_i2 * arow_i1) +
                       (hb_next * After(arow_i) + hb_after * Next(arow_i));
    return lhs > rhs;
  };
  separated =
      separated | edges(t1, t2, row1, row2, ha1, ha2, arow0, arow1, arow2);
  separated =
      separated | edges(t2, t0, row2, row0, ha2, ha0, arow1, arow2, arow0);
  separated =
      separated | edges(t0, t1, row0, row1, ha0, ha1, arow2, arow0, arow1);
  if (AnyLane(separated)) return false;
  // Nearly parallel edges (an entry of |R| near 1; lane 3 holds 1e-6): the
  // epsilon is too coarse there (box_overlap_axes.h).
  const Float4 largest = simd::Max(simd::Max(arow0, arow1), arow2);
  if (!AnyLane(largest > Float4::Splat(internal::kBoxEdgeNearlyParallelCos))) {
    return true;
  }
  return DecideNearlyParallel(a, b);
}

}  // namespace sator
