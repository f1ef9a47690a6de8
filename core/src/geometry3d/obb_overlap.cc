// OBB-OBB overlap on boxes whose world axes are already known (Obb3): the
// same 15-axis test as OverlapBoxBox (box_overlap_axes.h), with B's rotation
// in A's frame formed from dot products of the two axis sets,
// R[i][j] = A_i . B_j (Gottschalk 1996; Ericson 4.4.1). With SSE2, three
// axes per instruction; otherwise the scalar form, row by row, A's face axes
// tested as soon as their row exists. The two agree except within round-off
// of touching (the sums are associated differently).
#include <cmath>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "box_box.h"
#include "box_overlap_axes.h"
#include "sator/core/geometry3d/overlap3d.h"

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

#if defined(__SSE2__)
namespace {

__m128 Load3(const Vec3& v) { return _mm_setr_ps(v.x, v.y, v.z, 0.0f); }
__m128 Splat(__m128 v, int lane) {
  switch (lane) {
    case 0:
      return _mm_shuffle_ps(v, v, _MM_SHUFFLE(0, 0, 0, 0));
    case 1:
      return _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 1, 1, 1));
    default:
      return _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 2, 2, 2));
  }
}
__m128 Abs(__m128 v) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), v); }
// (v1, v2, v0) and (v2, v0, v1): the components j1 = j + 1 and j2 = j + 2
// (mod 3) of lane j.
__m128 Next(__m128 v) { return _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 0, 2, 1)); }
__m128 After(__m128 v) { return _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 1, 0, 2)); }

}  // namespace

// The 15 axes three at a time (lanes 0-2; lane 3 holds zeros and never
// separates): A's faces, then B's faces and for each A_i the three edge axes
// A_i x B_j. The same terms as box_overlap_axes.h (Ericson's table 4.1),
// with R's columns and rows formed from the transposed A axes. One branch
// after A's faces (which separate most separated pairs), none after: on the
// benchmark's pairs (half overlapping, core3d_benchmark BoxBoxOverlap) this
// took 12.2 ns against 15.7 for the scalar form; without the early branch
// 15.5 ns, and with the scalar form's bounding-sphere pre-test 13.0 ns (the
// pairs a narrow phase gets are near each other, so that test rarely ends
// one and its branch mispredicts).
bool OverlapObbObb(const Obb3& a, const Obb3& b) {
  const Vec3 ha3 = a.half_extents;
  const Vec3 hb3 = b.half_extents;
  const Vec3 d3 = b.center - a.center;
  const __m128 eps = _mm_set1_ps(internal::kBoxOverlapEpsilon);
  // Columns of A's axis matrix: x, y and z of A_0, A_1, A_2.
  __m128 ax = Load3(a.axes[0]);
  __m128 ay = Load3(a.axes[1]);
  __m128 az = Load3(a.axes[2]);
  __m128 aw = _mm_setzero_ps();
  _MM_TRANSPOSE4_PS(ax, ay, az, aw);
  auto in_a = [&](const Vec3& v) {
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, _mm_set1_ps(v.x)),
                                 _mm_mul_ps(ay, _mm_set1_ps(v.y))),
                      _mm_mul_ps(az, _mm_set1_ps(v.z)));
  };
  const __m128 t = in_a(d3);  // t_i = A_i . d
  const __m128 ha = Load3(ha3);
  const __m128 hb = Load3(hb3);
  // R's columns: col_j = (A_0 . B_j, A_1 . B_j, A_2 . B_j).
  __m128 c0 = in_a(b.axes[0]);
  __m128 c1 = in_a(b.axes[1]);
  __m128 c2 = in_a(b.axes[2]);
  const __m128 ac0 = _mm_add_ps(Abs(c0), eps);
  const __m128 ac1 = _mm_add_ps(Abs(c1), eps);
  const __m128 ac2 = _mm_add_ps(Abs(c2), eps);
  // A's face axes: |t_i| > ha_i + sum_j hb_j |R_ij|.
  const __m128 ra =
      _mm_add_ps(ha, _mm_add_ps(_mm_add_ps(_mm_mul_ps(Splat(hb, 0), ac0),
                                           _mm_mul_ps(Splat(hb, 1), ac1)),
                                _mm_mul_ps(Splat(hb, 2), ac2)));
  if (_mm_movemask_ps(_mm_cmpgt_ps(Abs(t), ra)) != 0) return false;
  // R's rows: row_i = (R_i0, R_i1, R_i2), and their absolute values.
  __m128 r3 = _mm_setzero_ps();
  _MM_TRANSPOSE4_PS(c0, c1, c2, r3);
  const __m128 row0 = c0;
  const __m128 row1 = c1;
  const __m128 row2 = c2;
  const __m128 arow0 = _mm_add_ps(Abs(row0), eps);
  const __m128 arow1 = _mm_add_ps(Abs(row1), eps);
  const __m128 arow2 = _mm_add_ps(Abs(row2), eps);
  const __m128 t0 = Splat(t, 0);
  const __m128 t1 = Splat(t, 1);
  const __m128 t2 = Splat(t, 2);
  const __m128 ha0 = Splat(ha, 0);
  const __m128 ha1 = Splat(ha, 1);
  const __m128 ha2 = Splat(ha, 2);
  // B's face axes: |t . col_j| > sum_i ha_i |R_ij| + hb_j.
  const __m128 sb =
      _mm_add_ps(_mm_add_ps(_mm_mul_ps(t0, row0), _mm_mul_ps(t1, row1)),
                 _mm_mul_ps(t2, row2));
  const __m128 rb = _mm_add_ps(
      _mm_add_ps(_mm_add_ps(_mm_mul_ps(ha0, arow0), _mm_mul_ps(ha1, arow1)),
                 _mm_mul_ps(ha2, arow2)),
      hb);
  __m128 separated = _mm_cmpgt_ps(Abs(sb), rb);
  // Edge axes A_i x B_j, for j in the lanes:
  //   |t_i2 R_i1j - t_i1 R_i2j| > ha_i1 |R_i2j| + ha_i2 |R_i1j|
  //                               + hb_j1 |R_ij2| + hb_j2 |R_ij1|.
  const __m128 hb_next = Next(hb);
  const __m128 hb_after = After(hb);
  auto edges = [&](__m128 t_i1, __m128 t_i2, __m128 row_i1, __m128 row_i2,
                   __m128 ha_i1, __m128 ha_i2, __m128 arow_i, __m128 arow_i1,
                   __m128 arow_i2) {
    const __m128 lhs =
        Abs(_mm_sub_ps(_mm_mul_ps(t_i2, row_i1), _mm_mul_ps(t_i1, row_i2)));
    const __m128 rhs = _mm_add_ps(
        _mm_add_ps(_mm_mul_ps(ha_i1, arow_i2), _mm_mul_ps(ha_i2, arow_i1)),
        _mm_add_ps(_mm_mul_ps(hb_next, After(arow_i)),
                   _mm_mul_ps(hb_after, Next(arow_i))));
    return _mm_cmpgt_ps(lhs, rhs);
  };
  separated = _mm_or_ps(
      separated, edges(t1, t2, row1, row2, ha1, ha2, arow0, arow1, arow2));
  separated = _mm_or_ps(
      separated, edges(t2, t0, row2, row0, ha2, ha0, arow1, arow2, arow0));
  separated = _mm_or_ps(
      separated, edges(t0, t1, row0, row1, ha0, ha1, arow2, arow0, arow1));
  if (_mm_movemask_ps(separated) != 0) return false;
  // Nearly parallel edges (an entry of |R| near 1; lane 3 holds 1e-6): the
  // epsilon is too coarse there (box_overlap_axes.h).
  const __m128 largest = _mm_max_ps(_mm_max_ps(arow0, arow1), arow2);
  if (_mm_movemask_ps(_mm_cmpgt_ps(
          largest, _mm_set1_ps(internal::kBoxEdgeNearlyParallelCos))) == 0) {
    return true;
  }
  return DecideNearlyParallel(a, b);
}
#else
bool OverlapObbObb(const Obb3& a, const Obb3& b) {
  const Vec3 ha = a.half_extents;
  const Vec3 hb = b.half_extents;
  const Vec3 d = b.center - a.center;
  if (internal::BoundingSpheresApart(d, ha, hb)) return false;
  constexpr float kEps = internal::kBoxOverlapEpsilon;
  float r[3][3];
  float abs_r[3][3];
  float t[3];
  for (int i = 0; i < 3; ++i) {
    const Vec3 axis = a.axes[i];
    t[i] = Dot(d, axis);
    for (int j = 0; j < 3; ++j) {
      r[i][j] = Dot(axis, b.axes[j]);
      abs_r[i][j] = std::fabs(r[i][j]) + kEps;
    }
    if (std::fabs(t[i]) >
        ha[i] + hb.x * abs_r[i][0] + hb.y * abs_r[i][1] + hb.z * abs_r[i][2]) {
      return false;
    }
  }
  if (internal::SeparatedOnBAndEdgeAxes(ha, hb, Vec3{t[0], t[1], t[2]}, r,
                                        abs_r)) {
    return false;
  }
  return DecideNearlyParallel(a, b);
}
#endif

}  // namespace sator
