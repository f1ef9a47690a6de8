// Triangle-box overlap with 13 separating axes: the box's 3 face normals,
// the triangle's normal, and the 9 cross products of a box axis with a
// triangle edge. Akenine-Moller, "Fast 3D Triangle-Box Overlap Testing",
// journal of graphics tools 6(1), 2001; Ericson, "Real-Time Collision
// Detection" (2005) 5.2.9.
//
// Work in the box's frame, where the box is [-h, h]. Along an axis L the
// box projects to [-r, r] with r = sum_k h_k |L_k| and the triangle to the
// interval of its vertices' projections.
#include <algorithm>
#include <cmath>

#include "collide3d/typed3d.h"
#include "double_vec3.h"
#include "sator/core/collide3d/overlap3d.h"

namespace sator {
namespace {

bool SeparatedOnAxis(Vec3 axis, Vec3 h, const Vec3 v[3]) {
  const float p0 = Dot(axis, v[0]);
  const float p1 = Dot(axis, v[1]);
  const float p2 = Dot(axis, v[2]);
  const float r = h.x * std::fabs(axis.x) + h.y * std::fabs(axis.y) +
                  h.z * std::fabs(axis.z);
  return std::min({p0, p1, p2}) > r || std::max({p0, p1, p2}) < -r;
}

// The triangle `v` (in the box's frame) against the box [-h, h].
bool TriangleBoxLocal(const Vec3 v[3], Vec3 h) {
  // The box's face normals: the triangle's AABB against the box.
  for (int k = 0; k < 3; ++k) {
    if (std::min({v[0][k], v[1][k], v[2][k]}) > h[k] ||
        std::max({v[0][k], v[1][k], v[2][k]}) < -h[k]) {
      return false;
    }
  }
  // The triangle's plane against the box: |n . v0| > r, in double. In
  // float a sliver's normal (the cross product of two nearly parallel
  // edges) is off by up to 0.1 radians, and v0 alone then misplaces the
  // plane across the triangle's length (see TriangleNormal), so boxes poking
  // into a sliver would be reported apart. The edge vectors are exact in double
  // and every product is rounded once.
  {
    const internal::D3 d0 = internal::ToD3(v[0]);
    const internal::D3 n =
        internal::Cross(internal::ToD3(v[1]) - d0, internal::ToD3(v[2]) - d0);
    const double r =
        h.x * std::fabs(n.x) + h.y * std::fabs(n.y) + h.z * std::fabs(n.z);
    if (std::fabs(internal::Dot(n, d0)) > r) return false;
  }
  const Vec3 e[3] = {v[1] - v[0], v[2] - v[1], v[0] - v[2]};
  // Box axis x triangle edge (a zero axis projects everything to 0 and
  // never separates).
  const Vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (const Vec3& u : axes) {
    for (const Vec3& edge : e) {
      if (SeparatedOnAxis(Cross(u, edge), h, v)) return false;
    }
  }
  return true;
}

}  // namespace

bool OverlapBoxTriangle(const Box3& a, const Triangle3& b,
                        const Pose3& b_in_a) {
  const Vec3 v[3] = {Transform(b_in_a, b.a), Transform(b_in_a, b.b),
                     Transform(b_in_a, b.c)};
  return TriangleBoxLocal(v, a.half_extents);
}

bool OverlapTriangleBox(const Triangle3& a, const Box3& b,
                        const Pose3& b_in_a) {
  const Vec3 v[3] = {InvTransform(b_in_a, a.a), InvTransform(b_in_a, a.b),
                     InvTransform(b_in_a, a.c)};
  return TriangleBoxLocal(v, b.half_extents);
}

}  // namespace sator
