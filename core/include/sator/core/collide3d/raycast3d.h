// Ray casts against the convex shapes and the triangle mesh.
//
// A ray is `origin + s * direction` for s in [0, max_distance] with a unit
// direction (query_types.h). Results are in the world frame of the pose.
//
// - The solids (sphere, box, capsule, hull) report started_inside (hit,
//   distance 0, point = origin, zero normal) when the origin is inside or on
//   the surface.
// - A triangle and a mesh are surfaces, two-sided, never "inside"; the
//   normal reported faces the ray's origin. A ray lying in a triangle's plane
//   misses it.
// - `feature`: box face 2 * axis + (0 for the + face, 1 for the - face);
//   capsule 0 lateral, 1 cap at a, 2 cap at b; sphere and triangle 0; hull
//   the entered face's index; mesh the triangle's id (index / 3).
//
// Methods and sources: see core/src/collide3d/ray_primitives.h and
// docs/core/collide3d-casts-and-meshes.md.
#ifndef SATOR_CORE_COLLIDE3D_RAYCAST3D_H_
#define SATOR_CORE_COLLIDE3D_RAYCAST3D_H_

#include <memory>

#include "sator/core/collide3d/shape3d.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"

namespace sator {

RayResult<3> RayCast(const ConvexShape3& shape, const Pose3& pose,
                     const Ray<3>& ray);

// The mesh, through its BVH: nodes are visited front to back and a subtree
// is skipped once its box starts beyond the closest hit so far.
RayResult<3> RayCast(const TriangleMesh& mesh, const Pose3& pose,
                     const Ray<3>& ray);

// Typed routines: the ray is in the shape's local frame and so is the result.
RayResult<3> RayCastSphere(const Sphere& sphere, const Ray<3>& local_ray);
RayResult<3> RayCastBox(const Box3& box, const Ray<3>& local_ray);
RayResult<3> RayCastCapsule(const Capsule3& capsule, const Ray<3>& local_ray);
RayResult<3> RayCastTriangle(const Triangle3& triangle,
                             const Ray<3>& local_ray);
RayResult<3> RayCastHull(const ConvexHull& hull, const Ray<3>& local_ray);
RayResult<3> RayCastMesh(const TriangleMesh& mesh, const Ray<3>& local_ray);

// The typed routine of each convex kind, by overload (a hull is held by
// pointer): the ray and the result in the shape's local frame.
inline RayResult<3> RayCastLocal(const Sphere& s, const Ray<3>& local_ray) {
  return RayCastSphere(s, local_ray);
}
inline RayResult<3> RayCastLocal(const Box3& s, const Ray<3>& local_ray) {
  return RayCastBox(s, local_ray);
}
inline RayResult<3> RayCastLocal(const Capsule3& s, const Ray<3>& local_ray) {
  return RayCastCapsule(s, local_ray);
}
inline RayResult<3> RayCastLocal(const Triangle3& s, const Ray<3>& local_ray) {
  return RayCastTriangle(s, local_ray);
}
inline RayResult<3> RayCastLocal(const std::shared_ptr<const ConvexHull>& s,
                                 const Ray<3>& local_ray) {
  if (s == nullptr) return {};
  return RayCastHull(*s, local_ray);
}

// Moves `ray` into the pose's frame, runs `cast` on it, and moves the
// result back (the point from the world ray: no round trip through the
// pose).
template <typename Cast>
RayResult<3> CastPosed(const Pose3& pose, const Ray<3>& ray, Cast&& cast) {
  const Ray<3> local{InvTransform(pose, ray.origin),
                     InvRotate(pose.rotation, ray.direction), ray.max_distance};
  RayResult<3> result = cast(local);
  if (!result.hit) return result;
  result.point = ray.origin + result.distance * ray.direction;
  result.normal = Rotate(pose.rotation, result.normal);
  return result;
}

// Statistics of a mesh ray cast (for tests and tuning, as Box2D's
// b2TreeStats): boxes tested (the tree's nodes and each triangle's own box)
// and triangles tested (those whose box the ray reached).
struct MeshRayStats {
  int node_visits = 0;
  int triangle_tests = 0;
};
RayResult<3> RayCastMesh(const TriangleMesh& mesh, const Ray<3>& local_ray,
                         MeshRayStats* stats);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_RAYCAST3D_H_
