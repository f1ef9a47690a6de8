// The scene's view of the 2D and 3D cores: one set of names per dimension
// (validation, bounds, narrow phase), so the scene is written once.
#ifndef SATOR_CORE_SRC_SCENE_SHAPE_OPS_H_
#define SATOR_CORE_SRC_SCENE_SHAPE_OPS_H_

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "collide2d/pose_check2d.h"
#include "sator/core/aabb.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"
#include "sator/core/scene/scene_types.h"

namespace sator::scene::internal {

template <int D>
struct ShapeOps;

template <>
struct ShapeOps<2> {
  static absl::Status ValidateBodyShape(const Shape2& shape, bool is_static);
  static absl::Status ValidateQueryShape(const Shape2& shape);
  static absl::StatusOr<Pose2> CheckPose(const Pose2& pose);
  // True when CheckPose would accept `pose` and return it unchanged (the
  // fast path of pose batches; CheckPose words the error otherwise).
  static bool IsAcceptedAsIs(const Pose2& pose) {
    return internal2d::IsValidPose(pose);
  }
  // The largest distance from the local origin to a point of the shape.
  static float BoundRadius(const Shape2& shape);
  // A radius whose ball about the local origin lies inside the shape (0
  // when none is known).
  static float InsideRadius(const Shape2& shape);
  static Aabb2 Bounds(const Shape2& shape, const Pose2& pose);
  static absl::StatusOr<bool> Overlap(const Shape2& a, const Pose2& pa,
                                      const Shape2& b, const Pose2& pb);
  // Every contact of the overlapping pair, each with the feature of b it
  // touches: one (feature -1) for most pairs, one per edge for a level
  // (feature: the edge), so that a shape in a concave corner gets both
  // walls; nothing when apart.
  using ContactVisitor2 =
      absl::FunctionRef<void(const ContactResult<2>&, std::int32_t)>;
  static void ForEachContact(const Shape2& a, const Pose2& pa, const Shape2& b,
                             const Pose2& pb, ContactVisitor2 visit);
  static absl::StatusOr<SweepResult<2>> Sweep(const Shape2& a, const Pose2& pa,
                                              Vec2 displacement,
                                              const Shape2& b, const Pose2& pb);
  static absl::StatusOr<RayResult<2>> RayCast(const Shape2& shape,
                                              const Pose2& pose,
                                              const Ray<2>& ray);
};

template <>
struct ShapeOps<3> {
  static absl::Status ValidateBodyShape(const Shape3& shape, bool is_static);
  static absl::Status ValidateQueryShape(const Shape3& shape);
  static absl::StatusOr<Pose3> CheckPose(const Pose3& pose);
  // 3D poses are normalised by CheckPose: no fast path.
  static bool IsAcceptedAsIs(const Pose3& /*pose*/) { return false; }
  static float BoundRadius(const Shape3& shape);
  static float InsideRadius(const Shape3& shape);
  static Aabb3 Bounds(const Shape3& shape, const Pose3& pose);
  static absl::StatusOr<bool> Overlap(const Shape3& a, const Pose3& pa,
                                      const Shape3& b, const Pose3& pb);
  // The contact of the overlapping pair (feature -1); nothing when apart.
  using ContactVisitor3 =
      absl::FunctionRef<void(const ContactResult<3>&, std::int32_t)>;
  static void ForEachContact(const Shape3& a, const Pose3& pa, const Shape3& b,
                             const Pose3& pb, ContactVisitor3 visit);
  static absl::StatusOr<SweepResult<3>> Sweep(const Shape3& a, const Pose3& pa,
                                              Vec3 displacement,
                                              const Shape3& b, const Pose3& pb);
  static absl::StatusOr<RayResult<3>> RayCast(const Shape3& shape,
                                              const Pose3& pose,
                                              const Ray<3>& ray);
};

// The largest |coordinate| of a box: the scale of float round-off there.
template <int D>
[[gnu::always_inline]] inline float MaxAbs(const Aabb<D>& box) {
  float m = 0.0f;
  for (int i = 0; i < D; ++i) {
    m = std::max(m, std::max(std::fabs(box.min[i]), std::fabs(box.max[i])));
  }
  return m;
}

// Grows a box by a margin relative to its coordinates. The cores' touching
// tolerance is 1e-5 of the problem's scale (tolerance2d.h; positions enter
// it), so the broad phase must never cull a pair closer than that: tree boxes
// and query boxes each grow by 5e-5 of their largest coordinate (together
// well above the tolerance, which is at most 1e-5 * sqrt(3) * the sum of the
// two scales).
template <int D>
[[gnu::always_inline]] inline float PadMargin(const Aabb<D>& box) {
  return 5e-5f * MaxAbs(box) + 1e-6f;
}
template <int D>
[[gnu::always_inline]] inline Aabb<D> Pad(const Aabb<D>& box) {
  return Inflate(box, PadMargin(box));
}

// The box of a sphere of `radius` around `center`: contains the shape at any
// rotation.
template <int D>
Aabb<D> SphereBox(Vec<D> center, float radius) {
  Aabb<D> box{center, center};
  return Inflate(box, radius);
}

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_SHAPE_OPS_H_
