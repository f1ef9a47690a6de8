// Ray casts against convex shapes: frame changes and result assembly around
// the primitive tests of ray_primitives.cc.
#include "sator/core/collide3d/raycast3d.h"

#include <type_traits>
#include <variant>

#include "collide3d/ray_primitives.h"

namespace sator {
namespace {

using internal::PrimitiveHit;
using internal::RayStatus;

RayResult<3> ToResult(RayStatus status, const PrimitiveHit& hit,
                      const Ray<3>& ray) {
  RayResult<3> result;
  if (status == RayStatus::kMiss) return result;
  result.hit = true;
  if (status == RayStatus::kInside) {
    result.started_inside = true;
    result.point = ray.origin;
    return result;
  }
  result.distance = hit.t;
  result.point = ray.origin + hit.t * ray.direction;
  result.normal = hit.normal;
  result.feature = hit.feature;
  return result;
}

bool Usable(const Ray<3>& ray) { return ray.max_distance >= 0.0f; }

}  // namespace

RayResult<3> RayCastSphere(const Sphere& sphere, const Ray<3>& ray) {
  if (!Usable(ray)) return {};
  PrimitiveHit hit;
  const RayStatus status = internal::RaySphere(
      ray.origin, ray.direction, ray.max_distance, Vec3{}, sphere.radius, &hit);
  return ToResult(status, hit, ray);
}

RayResult<3> RayCastBox(const Box3& box, const Ray<3>& ray) {
  if (!Usable(ray)) return {};
  PrimitiveHit hit;
  const RayStatus status = internal::RayBox(
      ray.origin, ray.direction, ray.max_distance, box.half_extents, &hit);
  return ToResult(status, hit, ray);
}

RayResult<3> RayCastCapsule(const Capsule3& capsule, const Ray<3>& ray) {
  if (!Usable(ray)) return {};
  PrimitiveHit hit;
  const RayStatus status =
      internal::RayCapsule(ray.origin, ray.direction, ray.max_distance,
                           capsule.a, capsule.b, capsule.radius, &hit);
  return ToResult(status, hit, ray);
}

RayResult<3> RayCastTriangle(const Triangle3& triangle, const Ray<3>& ray) {
  if (!Usable(ray)) return {};
  PrimitiveHit hit;
  const MeshTriangle tri{triangle.a, triangle.b, triangle.c};
  const RayStatus status = internal::RayTriangle(
      internal::MakeTriangleRay(ray.origin, ray.direction), ray.direction,
      ray.max_distance, tri, &hit);
  return ToResult(status, hit, ray);
}

RayResult<3> RayCastHull(const ConvexHull& hull, const Ray<3>& ray) {
  if (!Usable(ray)) return {};
  PrimitiveHit hit;
  const RayStatus status = internal::RayHull(ray.origin, ray.direction,
                                             ray.max_distance, hull, &hit);
  return ToResult(status, hit, ray);
}

namespace {}  // namespace

RayResult<3> RayCast(const ConvexShape3& shape, const Pose3& pose,
                     const Ray<3>& ray) {
  return CastPosed(pose, ray, [&](const Ray<3>& local) {
    return std::visit([&](const auto& s) { return RayCastLocal(s, local); },
                      shape);
  });
}

RayResult<3> RayCast(const TriangleMesh& mesh, const Pose3& pose,
                     const Ray<3>& ray) {
  return CastPosed(
      pose, ray, [&](const Ray<3>& local) { return RayCastMesh(mesh, local); });
}

}  // namespace sator
