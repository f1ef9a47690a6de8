// The dimension checks of dimension_check.h.
#include "dimension_check.h"

#include <cstddef>
#include <variant>

#include "absl/strings/str_cat.h"
#include "sator/core/field_status.h"

namespace sator::client_internal {
namespace {

template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

absl::Status Mismatch(absl::string_view path, absl::string_view field,
                      absl::string_view what, int got, int want,
                      absl::string_view of) {
  return FieldError(
      absl::StrCat(path, field),
      absl::StrCat("a ", got, "D ", what, " with a ", want, "D ", of));
}

absl::Status CheckPose(const std::optional<AnyPose>& pose, int dimension,
                       absl::string_view path, absl::string_view field) {
  if (!pose.has_value() || DimensionOf(*pose) == dimension) {
    return absl::OkStatus();
  }
  return Mismatch(path, field, "pose", DimensionOf(*pose), dimension, "shape");
}

absl::Status CheckVector(const AnyVector& vector, int dimension,
                         absl::string_view path, absl::string_view field,
                         absl::string_view of) {
  if (vector.dimension() == dimension) return absl::OkStatus();
  return Mismatch(path, field, "vector", vector.dimension(), dimension, of);
}

template <typename Q>
absl::Status CheckShapeAndPose(const Q& query, absl::string_view path) {
  return CheckPose(query.pose, DimensionOf(query.shape), path, "pose");
}

}  // namespace

int DimensionOf(const AnyShape& shape) { return shape.index() == 0 ? 2 : 3; }
int DimensionOf(const AnyPose& pose) { return pose.index() == 0 ? 2 : 3; }

absl::Status CheckBody(const Body& body, absl::string_view path) {
  return CheckPose(body.pose, DimensionOf(body.shape), path, "pose");
}

absl::Status CheckBodies(const std::vector<Body>& bodies,
                         absl::string_view path) {
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    if (absl::Status status =
            CheckBody(bodies[i], absl::StrCat(path, "bodies[", i, "]."));
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckQuery(const OverlapQuery& query, absl::string_view path) {
  return CheckShapeAndPose(query, path);
}

absl::Status CheckQuery(const ContactsQuery& query, absl::string_view path) {
  return CheckShapeAndPose(query, path);
}

absl::Status CheckQuery(const SweepQuery& query, absl::string_view path) {
  if (absl::Status status = CheckShapeAndPose(query, path); !status.ok()) {
    return status;
  }
  return CheckVector(query.displacement, DimensionOf(query.shape), path,
                     "displacement", "shape");
}

absl::Status CheckQuery(const RaycastQuery& query, absl::string_view path) {
  return CheckVector(query.direction, query.origin.dimension(), path,
                     "direction", "origin");
}

absl::Status CheckQuery(const Query& query, absl::string_view path) {
  return std::visit(
      Overloaded{[&](const OverlapQuery& q) {
                   return CheckQuery(q, absl::StrCat(path, ".overlap."));
                 },
                 [&](const ContactsQuery& q) {
                   return CheckQuery(q, absl::StrCat(path, ".contacts."));
                 },
                 [&](const SweepQuery& q) {
                   return CheckQuery(q, absl::StrCat(path, ".sweep."));
                 },
                 [&](const RaycastQuery& q) {
                   return CheckQuery(q, absl::StrCat(path, ".raycast."));
                 },
                 [](const ::sator::PointQuery&) { return absl::OkStatus(); }},
      query.kind);
}

absl::Status CheckQueries(const std::vector<Query>& queries) {
  for (std::size_t i = 0; i < queries.size(); ++i) {
    if (absl::Status status =
            CheckQuery(queries[i], absl::StrCat("queries[", i, "]"));
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckPairQuery(const PairQueryRequest& request) {
  const int dimension = DimensionOf(request.shape_a);
  if (absl::Status status = CheckPose(request.pose_a, dimension, "", "pose_a");
      !status.ok()) {
    return status;
  }
  // A ray meets shape A alone; shape B is not sent.
  if (!std::holds_alternative<PairRaycast>(request.kind)) {
    if (DimensionOf(request.shape_b) != dimension) {
      return Mismatch("", "shape_b", "shape", DimensionOf(request.shape_b),
                      dimension, "shape_a");
    }
    if (absl::Status status =
            CheckPose(request.pose_b, dimension, "", "pose_b");
        !status.ok()) {
      return status;
    }
  }
  return std::visit(
      Overloaded{[](const PairOverlap&) { return absl::OkStatus(); },
                 [](const PairContact&) { return absl::OkStatus(); },
                 [&](const PairSweep& sweep) {
                   if (absl::Status status =
                           CheckVector(sweep.displacement_a, dimension,
                                       "sweep.", "displacement_a", "shape_a");
                       !status.ok()) {
                     return status;
                   }
                   return CheckVector(sweep.displacement_b, dimension, "sweep.",
                                      "displacement_b", "shape_a");
                 },
                 [&](const PairRaycast& ray) {
                   if (absl::Status status =
                           CheckVector(ray.origin, dimension, "raycast.",
                                       "origin", "shape_a");
                       !status.ok()) {
                     return status;
                   }
                   return CheckVector(ray.direction, dimension, "raycast.",
                                      "direction", "shape_a");
                 }},
      request.kind);
}

}  // namespace sator::client_internal
