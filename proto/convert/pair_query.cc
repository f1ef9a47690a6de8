#include "proto/convert/pair_query.h"

#include <algorithm>
#include <cmath>
#include <variant>

#include "absl/strings/str_cat.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide2d/queries2d.h"
#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/field_status.h"

namespace sator::convert {
namespace {

using sator::v1::PairQueryRequest;
using sator::v1::PairQueryResponse;

// The two dimensions differ only in their types; this picks them.
template <int D>
struct Dim;

template <>
struct Dim<2> {
  using Shape = Shape2;
  static absl::StatusOr<Shape2> ToShape(const sator::v1::Shape& shape,
                                        const ShapeLimits& limits) {
    return ToShape2(shape, limits);
  }
  static absl::StatusOr<Pose2> ToPose(const sator::v1::Pose& pose) {
    return ToPose2(pose);
  }
  static absl::StatusOr<Vec2> ToVec(const sator::v1::Vector& vector) {
    return ToVec2(vector);
  }
  static void FromVec(Vec2 vector, sator::v1::Vector* out) {
    FromVec2(vector, out);
  }
  // The 2D core's queries cannot fail on validated shapes.
  // A level against a level is not a pair the core answers.
  static absl::Status CheckPair(const Shape2& a, const Shape2& b) {
    if (std::holds_alternative<std::shared_ptr<const Level2>>(a) &&
        std::holds_alternative<std::shared_ptr<const Level2>>(b)) {
      return absl::UnimplementedError(
          "a level against a level is not supported");
    }
    return absl::OkStatus();
  }
  static absl::StatusOr<bool> Overlap(const Shape2& a, const Pose2& pa,
                                      const Shape2& b, const Pose2& pb) {
    if (absl::Status s = CheckPair(a, b); !s.ok()) return s;
    return sator::Overlap(a, pa, b, pb);
  }
  static absl::StatusOr<ContactResult<2>> Contact(const Shape2& a,
                                                  const Pose2& pa,
                                                  const Shape2& b,
                                                  const Pose2& pb) {
    if (absl::Status s = CheckPair(a, b); !s.ok()) return s;
    return sator::Contact(a, pa, b, pb);
  }
  static absl::StatusOr<SweepResult<2>> Sweep(const Shape2& a, const Pose2& pa,
                                              Vec2 da, const Shape2& b,
                                              const Pose2& pb, Vec2 db) {
    if (absl::Status s = CheckPair(a, b); !s.ok()) return s;
    return sator::Sweep(a, pa, da, b, pb, db);
  }
  static absl::StatusOr<RayResult<2>> RayCast(const Shape2& shape,
                                              const Pose2& pose,
                                              const Ray<2>& ray) {
    return sator::RayCast(shape, pose, ray);
  }
};

template <>
struct Dim<3> {
  using Shape = Shape3;
  static absl::StatusOr<Shape3> ToShape(const sator::v1::Shape& shape,
                                        const ShapeLimits& limits) {
    return ToShape3(shape, limits);
  }
  static absl::StatusOr<Pose3> ToPose(const sator::v1::Pose& pose) {
    return ToPose3(pose);
  }
  static absl::StatusOr<Vec3> ToVec(const sator::v1::Vector& vector) {
    return ToVec3(vector);
  }
  static void FromVec(Vec3 vector, sator::v1::Vector* out) {
    FromVec3(vector, out);
  }
  static absl::StatusOr<bool> Overlap(const Shape3& a, const Pose3& pa,
                                      const Shape3& b, const Pose3& pb) {
    return sator::Overlap(a, pa, b, pb);
  }
  static absl::StatusOr<ContactResult<3>> Contact(const Shape3& a,
                                                  const Pose3& pa,
                                                  const Shape3& b,
                                                  const Pose3& pb) {
    return sator::Contact(a, pa, b, pb);
  }
  static absl::StatusOr<SweepResult<3>> Sweep(const Shape3& a, const Pose3& pa,
                                              Vec3 da, const Shape3& b,
                                              const Pose3& pb, Vec3 db) {
    return sator::Sweep(a, pa, da, b, pb, db);
  }
  static absl::StatusOr<RayResult<3>> RayCast(const Shape3& shape,
                                              const Pose3& pose,
                                              const Ray<3>& ray) {
    return sator::RayCast(shape, pose, ray);
  }
};

// `min_depth` is PairContact's contact tolerance: an overlap shallower than
// it is reported as none.
template <int D>
void FillContact(const ContactResult<D>& contact, float min_depth,
                 sator::v1::PairContactResult* out) {
  const bool overlapping = contact.overlapping && contact.depth >= min_depth;
  out->set_overlapping(overlapping);
  Dim<D>::FromVec(contact.normal, out->mutable_normal());
  out->set_depth(contact.depth);
  if (overlapping) {
    for (int i = 0; i < contact.point_count; ++i) {
      Dim<D>::FromVec(contact.points[static_cast<size_t>(i)],
                      out->add_points());
    }
  }
}

// The core reports pairs it does not support (mesh against mesh) as
// UNIMPLEMENTED; to the caller that is a property of the request.
absl::Status QueryError(const absl::Status& status) {
  if (status.code() == absl::StatusCode::kUnimplemented) {
    return FieldError("shape_b", status.message());
  }
  return status;
}

template <int D>
absl::Status RunRaycast(const PairQueryRequest& request,
                        const typename Dim<D>::Shape& shape_a,
                        const Pose<D>& pose_a, PairQueryResponse* response) {
  const sator::v1::RaycastQuery& query = request.raycast();
  absl::StatusOr<Vec<D>> origin = Dim<D>::ToVec(query.origin());
  if (!origin.ok()) return PrefixField("raycast.origin", origin.status());
  absl::StatusOr<Vec<D>> direction = Dim<D>::ToVec(query.direction());
  if (!direction.ok()) {
    return PrefixField("raycast.direction", direction.status());
  }
  // The scene's rule (Raycast, RaycastBatch): below it the length is too
  // inexact to normalise by (a 3e-23 direction came out 0.8 long).
  if (absl::Status s = CheckRayDirection(*direction, "raycast.direction");
      !s.ok()) {
    return s;
  }
  const float length = Length(*direction);
  const float max_distance = query.max_distance();
  if (!std::isfinite(max_distance) || !(max_distance > 0.0f) ||
      max_distance > kMaxRayDistance) {
    return FieldError(
        "raycast.max_distance",
        absl::StrCat("must be positive and at most ", kMaxRayDistance));
  }
  const Ray<D> ray{*origin, *direction * (1.0f / length), max_distance};
  absl::StatusOr<RayResult<D>> hit = Dim<D>::RayCast(shape_a, pose_a, ray);
  if (!hit.ok()) return QueryError(hit.status());
  sator::v1::PairRayResult* out = response->mutable_raycast();
  out->set_hit(hit->hit);
  out->set_started_inside(hit->started_inside);
  out->set_distance(hit->distance);
  Dim<D>::FromVec(hit->point, out->mutable_point());
  Dim<D>::FromVec(hit->normal, out->mutable_normal());
  out->set_feature(hit->feature);
  return absl::OkStatus();
}

template <int D>
absl::Status Run(const PairQueryRequest& request, const ShapeLimits& limits,
                 PairQueryResponse* response) {
  absl::StatusOr<typename Dim<D>::Shape> shape_a =
      Dim<D>::ToShape(request.shape_a(), limits);
  if (!shape_a.ok()) return PrefixField("shape_a", shape_a.status());
  absl::StatusOr<Pose<D>> pose_a = Dim<D>::ToPose(request.pose_a());
  if (!pose_a.ok()) return PrefixField("pose_a", pose_a.status());
  if (request.kind_case() == PairQueryRequest::kRaycast) {
    return RunRaycast<D>(request, *shape_a, *pose_a, response);
  }

  absl::StatusOr<typename Dim<D>::Shape> shape_b =
      Dim<D>::ToShape(request.shape_b(), limits);
  if (!shape_b.ok()) return PrefixField("shape_b", shape_b.status());
  absl::StatusOr<Pose<D>> pose_b = Dim<D>::ToPose(request.pose_b());
  if (!pose_b.ok()) return PrefixField("pose_b", pose_b.status());

  switch (request.kind_case()) {
    case PairQueryRequest::kOverlap: {
      absl::StatusOr<bool> overlapping =
          Dim<D>::Overlap(*shape_a, *pose_a, *shape_b, *pose_b);
      if (!overlapping.ok()) return QueryError(overlapping.status());
      response->mutable_overlap()->set_overlapping(*overlapping);
      return absl::OkStatus();
    }
    case PairQueryRequest::kContact: {
      const float min_depth = request.contact().min_depth();
      if (!std::isfinite(min_depth)) {
        return FieldError("contact.min_depth", "not finite");
      }
      if (min_depth < 0.0f) {
        return FieldError("contact.min_depth",
                          absl::StrCat("must be >= 0, got ", min_depth));
      }
      absl::StatusOr<ContactResult<D>> contact =
          Dim<D>::Contact(*shape_a, *pose_a, *shape_b, *pose_b);
      if (!contact.ok()) return QueryError(contact.status());
      FillContact<D>(*contact, min_depth, response->mutable_contact());
      return absl::OkStatus();
    }
    case PairQueryRequest::kSweep: {
      absl::StatusOr<Vec<D>> displacement_a =
          Dim<D>::ToVec(request.sweep().displacement_a());
      if (!displacement_a.ok()) {
        return PrefixField("sweep.displacement_a", displacement_a.status());
      }
      absl::StatusOr<Vec<D>> displacement_b =
          Dim<D>::ToVec(request.sweep().displacement_b());
      if (!displacement_b.ok()) {
        return PrefixField("sweep.displacement_b", displacement_b.status());
      }
      absl::StatusOr<SweepResult<D>> sweep =
          Dim<D>::Sweep(*shape_a, *pose_a, *displacement_a, *shape_b, *pose_b,
                        *displacement_b);
      if (!sweep.ok()) return QueryError(sweep.status());
      sator::v1::PairSweepResult* out = response->mutable_sweep();
      switch (sweep->outcome) {
        case SweepOutcome::kMiss:
          out->set_outcome(sator::v1::SWEEP_OUTCOME_MISS);
          break;
        case SweepOutcome::kHit:
          out->set_outcome(sator::v1::SWEEP_OUTCOME_HIT);
          out->set_fraction(sweep->fraction);
          Dim<D>::FromVec(sweep->normal, out->mutable_normal());
          Dim<D>::FromVec(sweep->point, out->mutable_point());
          break;
        case SweepOutcome::kStartedOverlapping:
          out->set_outcome(sator::v1::SWEEP_OUTCOME_STARTED_OVERLAPPING);
          FillContact<D>(sweep->initial, 0.0f, out->mutable_initial());
          break;
      }
      return absl::OkStatus();
    }
    default:
      return FieldError("kind", "no query kind is set");
  }
}

}  // namespace

absl::Status RunPairQuery(const PairQueryRequest& request,
                          const convert::ShapeLimits& limits,
                          PairQueryResponse* response) {
  const int dimension = ShapeDimension(request.shape_a());
  if (dimension == 0) return FieldError("shape_a.kind", "no shape kind is set");
  if (request.kind_case() == PairQueryRequest::KIND_NOT_SET) {
    return FieldError("kind", "no query kind is set");
  }
  if (request.kind_case() != PairQueryRequest::kRaycast) {
    const int dimension_b = ShapeDimension(request.shape_b());
    if (dimension_b == 0) {
      return FieldError("shape_b.kind", "no shape kind is set");
    }
    if (dimension_b != dimension) {
      return FieldError("shape_b",
                        absl::StrCat("a ", dimension_b, "D shape against a ",
                                     dimension, "D shape_a"));
    }
  }
  return dimension == 2 ? Run<2>(request, limits, response)
                        : Run<3>(request, limits, response);
}

}  // namespace sator::convert
