// Dispatch of the pair queries over Shape3 (see shape3d_queries.h).
#include "sator/core/collide3d/shape3d_queries.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collide3d/shape3d_unchecked.h"
#include "sator/core/collide3d/aabb3d.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/mesh_queries.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/raycast3d.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "sator/core/collide3d/sweep3d.h"

namespace sator {
namespace {

const TriangleMesh* AsMesh(const Shape3& shape) {
  const auto* p = std::get_if<std::shared_ptr<const TriangleMesh>>(&shape);
  return p != nullptr ? p->get() : nullptr;
}

bool IsMesh(const Shape3& shape) {
  return std::holds_alternative<std::shared_ptr<const TriangleMesh>>(shape);
}

// The shape is usable: a null hull or mesh is refused, and a convex shape
// must pass ValidateShape (meshes are validated when built).
absl::Status CheckShape(const Shape3& shape, const char* side) {
  if (const auto* hull =
          std::get_if<std::shared_ptr<const ConvexHull>>(&shape)) {
    if (*hull == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", side, " is a null convex hull"));
    }
  }
  if (IsMesh(shape)) {
    if (AsMesh(shape) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", side, " is a null triangle mesh"));
    }
    return absl::OkStatus();
  }
  if (absl::Status s = ValidateShape(*AsConvex(shape)); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", side, ": ", s.message()));
  }
  return absl::OkStatus();
}

// Normalises the pose's rotation (refusing one far from unit length or a
// non-finite pose, NormalizePose).
absl::StatusOr<Pose3> CheckPose(const Pose3& pose, const char* side) {
  absl::StatusOr<Pose3> p = NormalizePose(pose);
  if (!p.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pose ", side, ": ", p.status().message()));
  }
  return p;
}

absl::Status CheckDisplacement(Vec3 d, const char* side) {
  if (!IsFinite(d)) {
    return absl::InvalidArgumentError(
        absl::StrCat("displacement ", side, " is not finite"));
  }
  return absl::OkStatus();
}

absl::Status CheckRay(const Ray<3>& ray) {
  if (!IsFinite(ray.origin)) {
    return absl::InvalidArgumentError("ray origin is not finite");
  }
  if (!IsFinite(ray.direction) ||
      std::fabs(Length(ray.direction) - 1.0f) > kRotationLengthTolerance) {
    return absl::InvalidArgumentError("ray direction is not a unit vector");
  }
  if (!std::isfinite(ray.max_distance) || ray.max_distance < 0.0f) {
    return absl::InvalidArgumentError(
        "ray max_distance is negative or not finite");
  }
  return absl::OkStatus();
}

// Checks both shapes; a mesh against a mesh is not supported.
absl::Status CheckPair(const Shape3& a, const Shape3& b) {
  if (absl::Status s = CheckShape(a, "A"); !s.ok()) return s;
  if (absl::Status s = CheckShape(b, "B"); !s.ok()) return s;
  if (IsMesh(a) && IsMesh(b)) {
    return absl::UnimplementedError(
        "mesh against mesh queries are not supported");
  }
  return absl::OkStatus();
}

ContactResult<3> FlipContact(ContactResult<3> r) { return Flip(r); }

SweepResult<3> FlipSweep(SweepResult<3> r) {
  r.normal = -r.normal;
  r.initial = Flip(r.initial);
  return r;
}

}  // namespace

std::optional<ConvexShape3> AsConvex(const Shape3& shape) {
  return std::visit(
      [](const auto& s) -> std::optional<ConvexShape3> {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, std::shared_ptr<const TriangleMesh>>) {
          return std::nullopt;
        } else {
          return ConvexShape3{s};
        }
      },
      shape);
}

absl::StatusOr<bool> Overlap(const Shape3& a, const Pose3& pose_a,
                             const Shape3& b, const Pose3& pose_b) {
  if (absl::Status s = CheckPair(a, b); !s.ok()) return s;
  const absl::StatusOr<Pose3> pa = CheckPose(pose_a, "A");
  if (!pa.ok()) return pa.status();
  const absl::StatusOr<Pose3> pb = CheckPose(pose_b, "B");
  if (!pb.ok()) return pb.status();
  return internal::OverlapUnchecked(a, *pa, b, *pb);
}

absl::StatusOr<ContactResult<3>> Contact(const Shape3& a, const Pose3& pose_a,
                                         const Shape3& b, const Pose3& pose_b) {
  if (absl::Status s = CheckPair(a, b); !s.ok()) return s;
  const absl::StatusOr<Pose3> pa = CheckPose(pose_a, "A");
  if (!pa.ok()) return pa.status();
  const absl::StatusOr<Pose3> pb = CheckPose(pose_b, "B");
  if (!pb.ok()) return pb.status();
  return internal::ContactUnchecked(a, *pa, b, *pb);
}

absl::StatusOr<SweepResult<3>> Sweep(const Shape3& a, const Pose3& pose_a,
                                     Vec3 displacement_a, const Shape3& b,
                                     const Pose3& pose_b, Vec3 displacement_b) {
  if (absl::Status s = CheckPair(a, b); !s.ok()) return s;
  const absl::StatusOr<Pose3> pa = CheckPose(pose_a, "A");
  if (!pa.ok()) return pa.status();
  const absl::StatusOr<Pose3> pb = CheckPose(pose_b, "B");
  if (!pb.ok()) return pb.status();
  if (absl::Status s = CheckDisplacement(displacement_a, "A"); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckDisplacement(displacement_b, "B"); !s.ok()) {
    return s;
  }
  return internal::SweepUnchecked(a, *pa, displacement_a, b, *pb,
                                  displacement_b);
}

absl::StatusOr<RayResult<3>> RayCast(const Shape3& shape, const Pose3& pose,
                                     const Ray<3>& ray) {
  if (absl::Status s = CheckShape(shape, "A"); !s.ok()) return s;
  const absl::StatusOr<Pose3> p = CheckPose(pose, "A");
  if (!p.ok()) return p.status();
  if (absl::Status s = CheckRay(ray); !s.ok()) return s;
  return internal::RayCastUnchecked(shape, *p, ray);
}

namespace internal {

bool OverlapUnchecked(const Shape3& a, const Pose3& pose_a, const Shape3& b,
                      const Pose3& pose_b) {
  if (IsMesh(a)) return Overlap(*AsConvex(b), pose_b, *AsMesh(a), pose_a);
  if (IsMesh(b)) return Overlap(*AsConvex(a), pose_a, *AsMesh(b), pose_b);
  return Overlap(*AsConvex(a), pose_a, *AsConvex(b), pose_b);
}

ContactResult<3> ContactUnchecked(const Shape3& a, const Pose3& pose_a,
                                  const Shape3& b, const Pose3& pose_b) {
  if (IsMesh(a)) {
    return FlipContact(Contact(*AsConvex(b), pose_b, *AsMesh(a), pose_a));
  }
  if (IsMesh(b)) return Contact(*AsConvex(a), pose_a, *AsMesh(b), pose_b);
  return Contact(*AsConvex(a), pose_a, *AsConvex(b), pose_b);
}

SweepResult<3> SweepUnchecked(const Shape3& a, const Pose3& pose_a,
                              Vec3 displacement_a, const Shape3& b,
                              const Pose3& pose_b, Vec3 displacement_b) {
  if (IsMesh(a)) {
    return FlipSweep(Sweep(*AsConvex(b), pose_b, displacement_b, *AsMesh(a),
                           pose_a, displacement_a));
  }
  if (IsMesh(b)) {
    return Sweep(*AsConvex(a), pose_a, displacement_a, *AsMesh(b), pose_b,
                 displacement_b);
  }
  return Sweep(*AsConvex(a), pose_a, displacement_a, *AsConvex(b), pose_b,
               displacement_b);
}

RayResult<3> RayCastUnchecked(const Shape3& shape, const Pose3& pose,
                              const Ray<3>& ray) {
  return std::visit(
      [&](const auto& s) -> RayResult<3> {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, std::shared_ptr<const TriangleMesh>>) {
          return RayCast(*s, pose, ray);
        } else {
          return CastPosed(pose, ray, [&](const Ray<3>& local) {
            return RayCastLocal(s, local);
          });
        }
      },
      shape);
}

}  // namespace internal

absl::StatusOr<Aabb3> ComputeAabb(const Shape3& shape, const Pose3& pose_in) {
  if (absl::Status s = CheckShape(shape, "A"); !s.ok()) return s;
  const absl::StatusOr<Pose3> p = CheckPose(pose_in, "A");
  if (!p.ok()) return p.status();
  const Pose3& pose = *p;
  const TriangleMesh* mesh = AsMesh(shape);
  if (mesh == nullptr) return ComputeAabb(*AsConvex(shape), pose);
  // The local box's centre and half extents mapped through the rotation
  // (Arvo, "Transforming Axis-Aligned Bounding Boxes", Graphics Gems 1990):
  // half extent i of the result is sum_j |R_ij| h_j.
  const Aabb3& local = mesh->local_bounds();
  const Vec3 c = Transform(pose, Center(local));
  const Vec3 h = HalfExtents(local);
  Vec3 e{};
  for (int j = 0; j < 3; ++j) {
    Vec3 axis{};
    axis[j] = 1.0f;
    const Vec3 col = Abs(Rotate(pose.rotation, axis));
    e += h[j] * col;
  }
  return Aabb3{c - e, c + e};
}

}  // namespace sator
