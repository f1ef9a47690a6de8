// OBB-OBB overlap on boxes whose world axes are already known (Obb3): the
// same 15-axis test as OverlapBoxBox (box_overlap_axes.h), with B's rotation
// in A's frame formed row by row as dot products of the two axis sets,
// R[i][j] = A_i . B_j (Gottschalk 1996; Ericson 4.4.1), and A's face axes
// tested as soon as their row exists.
#include <cmath>

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
  return !internal::SeparatedOnBAndEdgeAxes(ha, hb, Vec3{t[0], t[1], t[2]}, r,
                                            abs_r);
}

}  // namespace sator
