// ShapeOps: the scene's adapter over the 2D and 3D cores.
#include "scene/shape_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>

#include "collide3d/shape3d_unchecked.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide2d/queries2d.h"
#include "sator/core/collide3d/shape3d_validation.h"

namespace sator::scene::internal {
namespace {

// Bound radii grow by this relative amount, so round-off in a rotated
// vertex never puts it outside the sphere box.
constexpr float kRadiusSlack = 1e-5f;

// What the pair functions assume of their inputs (every shape validated,
// every rotation unit to round-off), checked at each call in Debug builds
// and where SATOR_CHECK_INPUTS is defined (the sanitizer builds). An input
// that breaks it is a bug in the scene, so it stops the process.
#if !defined(NDEBUG) || defined(SATOR_CHECK_INPUTS)
constexpr bool kCheckInputs = true;
#else
constexpr bool kCheckInputs = false;
#endif

[[maybe_unused]] [[noreturn]] void InvalidInput(const absl::Status& status) {
  std::fprintf(stderr, "sator: a pair query got an invalid input: %s\n",
               std::string(status.message()).c_str());
  std::abort();
}

[[maybe_unused]] void ExpectValid(const Shape2& shape, const Pose2& pose) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) InvalidInput(s);
  if (absl::Status s = ValidatePose(pose); !s.ok()) InvalidInput(s);
}

[[maybe_unused]] void ExpectValid(const Shape3& shape, const Pose3& pose) {
  if (absl::Status s = ShapeOps<3>::ValidateBodyShape(shape, true); !s.ok()) {
    InvalidInput(s);
  }
  // Unit rotations: stored ones are normalized, a part's is a product of
  // two of them, an interpolated one is normalized again.
  if (!IsFinite(pose.position) ||
      !(std::fabs(Length(pose.rotation) - 1.0f) <= 1e-5f)) {
    InvalidInput(absl::InvalidArgumentError("a pose that is not normalized"));
  }
}

template <typename Shape, typename Pose>
void ExpectValidPair(const Shape& a, const Pose& pa, const Shape& b,
                     const Pose& pb) {
  if constexpr (kCheckInputs) {
    ExpectValid(a, pa);
    ExpectValid(b, pb);
  }
}

}  // namespace

// ---- 2D ------------------------------------------------------------------

absl::Status ShapeOps<2>::ValidateBodyShape(const Shape2& shape,
                                            bool is_static) {
  if (std::holds_alternative<std::shared_ptr<const Level2>>(shape) &&
      !is_static) {
    return absl::InvalidArgumentError(
        "a level can only be the shape of a static body");
  }
  return ValidateShape(shape);
}

absl::Status ShapeOps<2>::ValidateQueryShape(const Shape2& shape) {
  if (std::holds_alternative<std::shared_ptr<const Level2>>(shape)) {
    return absl::InvalidArgumentError("a level cannot be a query shape");
  }
  return ValidateShape(shape);
}

absl::StatusOr<Pose2> ShapeOps<2>::CheckPose(const Pose2& pose) {
  if (absl::Status status = ValidatePose(pose); !status.ok()) return status;
  return pose;
}

float ShapeOps<2>::BoundRadius(const Shape2& shape) {
  float r = 0.0f;
  if (const auto* circle = std::get_if<Circle>(&shape)) {
    r = circle->radius;
  } else if (const auto* box = std::get_if<Box2>(&shape)) {
    r = Length(box->half_extents);
  } else if (const auto* polygon = std::get_if<ConvexPolygon>(&shape)) {
    for (int i = 0; i < polygon->count(); ++i) {
      r = std::max(r, Length(polygon->vertex(i)));
    }
  } else if (const auto* capsule = std::get_if<Capsule2>(&shape)) {
    r = std::max(Length(capsule->a), Length(capsule->b)) + capsule->radius;
  } else if (const auto* segment = std::get_if<Segment2>(&shape)) {
    r = std::max(Length(segment->a), Length(segment->b));
  } else if (const auto* level =
                 std::get_if<std::shared_ptr<const Level2>>(&shape)) {
    const Aabb2& bounds = (*level)->local_bounds();
    r = Length(Max(Abs(bounds.min), Abs(bounds.max)));
  }
  return r * (1.0f + kRadiusSlack);
}

float ShapeOps<2>::InsideRadius(const Shape2& shape) {
  float r = 0.0f;
  if (const auto* circle = std::get_if<Circle>(&shape)) {
    r = circle->radius;
  } else if (const auto* box = std::get_if<Box2>(&shape)) {
    r = std::min(box->half_extents.x, box->half_extents.y);
  }
  return r * (1.0f - kRadiusSlack);
}

Aabb2 ShapeOps<2>::Bounds(const Shape2& shape, const Pose2& pose) {
  return ComputeAabb(shape, pose);
}

absl::StatusOr<bool> ShapeOps<2>::Overlap(const Shape2& a, const Pose2& pa,
                                          const Shape2& b, const Pose2& pb) {
  ExpectValidPair(a, pa, b, pb);
  return sator::Overlap(a, pa, b, pb);
}

void ShapeOps<2>::ForEachContact(const Shape2& a, const Pose2& pa,
                                 const Shape2& b, const Pose2& pb,
                                 ContactVisitor2 visit) {
  ExpectValidPair(a, pa, b, pb);
  if (const auto* level = std::get_if<std::shared_ptr<const Level2>>(&b)) {
    for (const LevelContact2& c : ContactAll(a, pa, **level, pb)) {
      visit(c.contact, static_cast<std::int32_t>(c.edge));
    }
    return;
  }
  const ContactResult<2> c = sator::Contact(a, pa, b, pb);
  if (c.overlapping) visit(c, -1);
}

absl::StatusOr<SweepResult<2>> ShapeOps<2>::Sweep(const Shape2& a,
                                                  const Pose2& pa,
                                                  Vec2 displacement,
                                                  const Shape2& b,
                                                  const Pose2& pb) {
  ExpectValidPair(a, pa, b, pb);
  return sator::Sweep(a, pa, displacement, b, pb, Vec2{});
}

absl::StatusOr<RayResult<2>> ShapeOps<2>::RayCast(const Shape2& shape,
                                                  const Pose2& pose,
                                                  const Ray<2>& ray) {
  return sator::RayCast(shape, pose, ray);
}

// ---- 3D ------------------------------------------------------------------

absl::Status ShapeOps<3>::ValidateBodyShape(const Shape3& shape,
                                            bool is_static) {
  if (const auto* mesh =
          std::get_if<std::shared_ptr<const TriangleMesh>>(&shape)) {
    if (*mesh == nullptr) {
      return absl::InvalidArgumentError("the mesh pointer is null");
    }
    if (!is_static) {
      return absl::InvalidArgumentError(
          "a triangle mesh can only be the shape of a static body");
    }
    return absl::OkStatus();
  }
  return ValidateShape(*AsConvex(shape));
}

absl::Status ShapeOps<3>::ValidateQueryShape(const Shape3& shape) {
  const std::optional<ConvexShape3> convex = AsConvex(shape);
  if (!convex.has_value()) {
    return absl::InvalidArgumentError(
        "a triangle mesh cannot be a query shape");
  }
  return ValidateShape(*convex);
}

absl::StatusOr<Pose3> ShapeOps<3>::CheckPose(const Pose3& pose) {
  return NormalizePose(pose);
}

float ShapeOps<3>::BoundRadius(const Shape3& shape) {
  float r = 0.0f;
  if (const auto* sphere = std::get_if<Sphere>(&shape)) {
    r = sphere->radius;
  } else if (const auto* box = std::get_if<Box3>(&shape)) {
    r = Length(box->half_extents);
  } else if (const auto* capsule = std::get_if<Capsule3>(&shape)) {
    r = std::max(Length(capsule->a), Length(capsule->b)) + capsule->radius;
  } else if (const auto* triangle = std::get_if<Triangle3>(&shape)) {
    r = std::max(
        {Length(triangle->a), Length(triangle->b), Length(triangle->c)});
  } else if (const auto* hull =
                 std::get_if<std::shared_ptr<const ConvexHull>>(&shape)) {
    for (const Vec3& v : (*hull)->vertices) r = std::max(r, Length(v));
  } else if (const auto* mesh =
                 std::get_if<std::shared_ptr<const TriangleMesh>>(&shape)) {
    // The farthest corner of the local bounds.
    const Aabb3& b = (*mesh)->local_bounds();
    const Vec3 far = Max(Abs(b.min), Abs(b.max));
    r = Length(far);
  }
  return r * (1.0f + kRadiusSlack);
}

float ShapeOps<3>::InsideRadius(const Shape3& shape) {
  float r = 0.0f;
  if (const auto* sphere = std::get_if<Sphere>(&shape)) {
    r = sphere->radius;
  } else if (const auto* box = std::get_if<Box3>(&shape)) {
    r = std::min(
        {box->half_extents.x, box->half_extents.y, box->half_extents.z});
  }
  return r * (1.0f - kRadiusSlack);
}

Aabb3 ShapeOps<3>::Bounds(const Shape3& shape, const Pose3& pose) {
  absl::StatusOr<Aabb3> box = ComputeAabb(shape, pose);
  if (box.ok()) return *box;
  // Only a null pointer fails, and validation refuses those: fall back to
  // the sphere box, which is never too small.
  return SphereBox<3>(pose.position, BoundRadius(shape));
}

// The pair functions below run unchecked: a stored body's shape was
// validated when it was stored, a query's, zone's or observer's once (and
// never a mesh), poses are normalized (stored or interpolated), a sweep's
// displacement was checked once per query and the scene's ray is unit.
// ExpectValidPair checks it where kCheckInputs.

absl::StatusOr<bool> ShapeOps<3>::Overlap(const Shape3& a, const Pose3& pa,
                                          const Shape3& b, const Pose3& pb) {
  ExpectValidPair(a, pa, b, pb);
  return sator::internal::OverlapUnchecked(a, pa, b, pb);
}

void ShapeOps<3>::ForEachContact(const Shape3& a, const Pose3& pa,
                                 const Shape3& b, const Pose3& pb,
                                 ContactVisitor3 visit) {
  ExpectValidPair(a, pa, b, pb);
  const ContactResult<3> c = sator::internal::ContactUnchecked(a, pa, b, pb);
  if (c.overlapping) visit(c, -1);
}

absl::StatusOr<SweepResult<3>> ShapeOps<3>::Sweep(const Shape3& a,
                                                  const Pose3& pa,
                                                  Vec3 displacement,
                                                  const Shape3& b,
                                                  const Pose3& pb) {
  ExpectValidPair(a, pa, b, pb);
  return sator::internal::SweepUnchecked(a, pa, displacement, b, pb, Vec3{});
}

absl::StatusOr<RayResult<3>> ShapeOps<3>::RayCast(const Shape3& shape,
                                                  const Pose3& pose,
                                                  const Ray<3>& ray) {
  return sator::internal::RayCastUnchecked(shape, pose, ray);
}

}  // namespace sator::scene::internal
