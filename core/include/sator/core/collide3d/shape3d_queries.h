// Pair queries over every 3D shape, the triangle mesh included.
//
// Shape3 adds the static triangle mesh to the convex shapes. A mesh may be
// either side of a pair: with the mesh as A the mesh query (mesh_queries.h,
// where the mesh is B) runs with the roles swapped and its answer is flipped
// (normals negated), so results always follow query_types.h for (A, B).
// Mesh against mesh is not supported: those calls return kUnimplemented.
// These are the validating entry points: kInvalidArgument, naming the
// problem and the side (A or B), for a null hull or mesh pointer, a convex
// shape that fails ValidateShape (shape3d_validation.h), a pose that
// NormalizePose refuses (non-finite, or a rotation far from unit length;
// others are renormalised), a non-finite displacement, and a ray whose
// origin is not finite, whose direction is not unit length (within
// kRotationLengthTolerance) or whose max_distance is negative or not
// finite. Everything else is delegated: convex pairs to overlap3d.h /
// contact3d.h / sweep3d.h, rays to raycast3d.h, boxes to aabb3d.h.
//
// Pass Shape3 values (not bare shape records, which would also convert to
// ConvexShape3 and make the call ambiguous).
#ifndef SATOR_CORE_COLLIDE3D_SHAPE3D_QUERIES_H_
#define SATOR_CORE_COLLIDE3D_SHAPE3D_QUERIES_H_

#include <memory>
#include <optional>
#include <variant>

#include "absl/status/statusor.h"
#include "sator/core/aabb.h"
#include "sator/core/collide3d/shape3d.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"

namespace sator {

using Shape3 = std::variant<Sphere, Box3, Capsule3, Triangle3,
                            std::shared_ptr<const ConvexHull>,
                            std::shared_ptr<const TriangleMesh>>;

// The convex shape held by `shape`, or nullopt for a mesh.
std::optional<ConvexShape3> AsConvex(const Shape3& shape);

absl::StatusOr<bool> Overlap(const Shape3& a, const Pose3& pose_a,
                             const Shape3& b, const Pose3& pose_b);
absl::StatusOr<ContactResult<3>> Contact(const Shape3& a, const Pose3& pose_a,
                                         const Shape3& b, const Pose3& pose_b);
absl::StatusOr<SweepResult<3>> Sweep(const Shape3& a, const Pose3& pose_a,
                                     Vec3 displacement_a, const Shape3& b,
                                     const Pose3& pose_b, Vec3 displacement_b);
absl::StatusOr<RayResult<3>> RayCast(const Shape3& shape, const Pose3& pose,
                                     const Ray<3>& ray);
// The world AABB; for a mesh, the AABB of its rotated local box (Arvo's
// method: not tight under rotation, never too small).
absl::StatusOr<Aabb3> ComputeAabb(const Shape3& shape, const Pose3& pose);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_SHAPE3D_QUERIES_H_
