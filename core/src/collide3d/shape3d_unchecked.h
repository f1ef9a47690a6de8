// Private: the pair queries over Shape3 without their checks, for callers
// that checked each input once (the scene: a stored body's shape when it was
// stored, a query's shape once per query) and pass normalized poses, finite
// displacements and unit ray directions. At most one side is a mesh. The
// checked functions of shape3d_queries.h run their checks, then these.
#ifndef SATOR_CORE_SRC_COLLIDE3D_SHAPE3D_UNCHECKED_H_
#define SATOR_CORE_SRC_COLLIDE3D_SHAPE3D_UNCHECKED_H_

#include "sator/core/collide3d/shape3d_queries.h"

namespace sator::internal {

bool OverlapUnchecked(const Shape3& a, const Pose3& pose_a, const Shape3& b,
                      const Pose3& pose_b);
ContactResult<3> ContactUnchecked(const Shape3& a, const Pose3& pose_a,
                                  const Shape3& b, const Pose3& pose_b);
SweepResult<3> SweepUnchecked(const Shape3& a, const Pose3& pose_a,
                              Vec3 displacement_a, const Shape3& b,
                              const Pose3& pose_b, Vec3 displacement_b);
RayResult<3> RayCastUnchecked(const Shape3& shape, const Pose3& pose,
                              const Ray<3>& ray);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_SHAPE3D_UNCHECKED_H_
