// AABBs of posed convex shapes. A box's world half extents are |R| h
// (Ericson, "Real-Time Collision Detection" (2005) 4.2.6); the other shapes
// bound their transformed vertices, grown by the radius for round ones.
#include "sator/core/collide3d/aabb3d.h"

#include <cmath>
#include <type_traits>

namespace sator {
namespace {

Aabb3 PointsAabb(const Pose3& pose, const Vec3* points, int count) {
  Aabb3 box{Transform(pose, points[0]), Transform(pose, points[0])};
  for (int i = 1; i < count; ++i) {
    const Vec3 p = Transform(pose, points[i]);
    box.min = Min(box.min, p);
    box.max = Max(box.max, p);
  }
  return box;
}

}  // namespace

Aabb3 ComputeAabb(const ConvexShape3& shape, const Pose3& pose) {
  return std::visit(
      [&pose](const auto& s) -> Aabb3 {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Sphere>) {
          return Inflate(Aabb3{pose.position, pose.position}, s.radius);
        } else if constexpr (std::is_same_v<T, Box3>) {
          const Vec3 cols[3] = {Rotate(pose.rotation, {1, 0, 0}),
                                Rotate(pose.rotation, {0, 1, 0}),
                                Rotate(pose.rotation, {0, 0, 1})};
          const Vec3 h = s.half_extents;
          const Vec3 e =
              h.x * Abs(cols[0]) + h.y * Abs(cols[1]) + h.z * Abs(cols[2]);
          return {pose.position - e, pose.position + e};
        } else if constexpr (std::is_same_v<T, Capsule3>) {
          const Vec3 p[2] = {s.a, s.b};
          return Inflate(PointsAabb(pose, p, 2), s.radius);
        } else if constexpr (std::is_same_v<T, Triangle3>) {
          const Vec3 p[3] = {s.a, s.b, s.c};
          return PointsAabb(pose, p, 3);
        } else {
          return PointsAabb(pose, s->vertices.data(),
                            static_cast<int>(s->vertices.size()));
        }
      },
      shape);
}

}  // namespace sator
