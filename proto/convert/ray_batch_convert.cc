// The packed ray batch; see ray_batch_convert.h.
#include "proto/convert/ray_batch_convert.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "proto/convert/geometry_convert.h"
#include "sator/core/field_status.h"

namespace sator::convert {
namespace {

// "field[i]" for one element.
std::string Element(absl::string_view field, int index) {
  return absl::StrCat(field, "[", index, "]");
}

// A point of D floats starting at `first`: every coordinate finite and
// within kMaxRequestCoordinate. NaN is classified before any ordered comparison
// (which would raise FE_INVALID); the message is built only on error.
template <int D>
absl::Status ReadPoint(const google::protobuf::RepeatedField<float>& values,
                       absl::string_view field, int first, Vec<D>* out) {
  for (int k = 0; k < D; ++k) {
    const float value = values.Get(first + k);
    if (!std::isfinite(value)) {
      return FieldError(Element(field, first + k), "not finite");
    }
    if (std::fabs(value) > kMaxRequestCoordinate) {
      return FieldError(Element(field, first + k),
                        absl::StrCat("out of range: |", value, "| > ",
                                     kMaxRequestCoordinate));
    }
    (*out)[k] = value;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> RayBatchDimension(
    const sator::v1::RaycastBatchRequest& request) {
  switch (request.dimension()) {
    case sator::v1::DIMENSION_2D:
      return 2;
    case sator::v1::DIMENSION_3D:
      return 3;
    default:
      return FieldError("dimension",
                        "must be DIMENSION_2D or DIMENSION_3D (the scene's "
                        "dimension: how many floats make a point)");
  }
}

template <int D>
absl::StatusOr<PackedRays<D>> PackedRays<D>::Make(
    const sator::v1::RaycastBatchRequest& request) {
  const int floats = request.origins_size();
  if (floats % D != 0) {
    return FieldError(
        "origins", absl::StrCat(floats, " floats is not a whole number of ", D,
                                "D points"));
  }
  const int count = floats / D;
  if (request.directions_size() != floats) {
    return FieldError(
        "directions",
        absl::StrCat(request.directions_size(), " floats for ", count,
                     " rays; need ", floats, " (", D, " per ray)"));
  }
  const int distances = request.max_distances_size();
  if (distances != count && !(distances == 1 && count > 0)) {
    return FieldError("max_distances",
                      absl::StrCat(distances, " values for ", count,
                                   " rays; need one per ray, or one for all"));
  }
  return PackedRays(request, count);
}

template <int D>
absl::Status PackedRays<D>::Get(int i, PackedRay<D>* ray) const {
  const int first = D * i;
  const float* origin = request_->origins().data() + first;
  const float* direction = request_->directions().data() + first;
  const int d = request_->max_distances_size() == 1 ? 0 : i;
  const float max_distance = request_->max_distances(d);
  // The common case in one pass: every coordinate finite and in range, the
  // distance in range, the direction long enough. isfinite is a
  // classification (no FE_INVALID on NaN) and guards every ordered
  // comparison; only a failure goes on to find and name the culprit.
  bool ok = std::isfinite(max_distance) && max_distance > 0.0f &&
            max_distance <= kMaxRayDistance;
  for (int k = 0; k < D; ++k) {
    ok = ok && std::isfinite(origin[k]) && std::isfinite(direction[k]) &&
         std::fabs(origin[k]) <= kMaxRequestCoordinate &&
         std::fabs(direction[k]) <= kMaxRequestCoordinate;
    ray->origin[k] = origin[k];
    ray->direction[k] = direction[k];
  }
  ray->max_distance = max_distance;
  // The scene's own test on the direction's length (finite values in
  // range keep Length finite).
  if (ok && Length(ray->direction) > kMinRayDirectionLength) {
    return absl::OkStatus();
  }

  Vec<D> unused;
  if (absl::Status s =
          ReadPoint<D>(request_->origins(), "origins", first, &unused);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          ReadPoint<D>(request_->directions(), "directions", first, &unused);
      !s.ok()) {
    return s;
  }
  // Every coordinate is now known finite and in range.
  if (absl::Status s = CheckRayDirection(
          ray->direction,
          absl::StrCat("directions[", first, "..", first + D - 1, "]"));
      !s.ok()) {
    return s;
  }
  if (!std::isfinite(max_distance)) {
    return FieldError(Element("max_distances", d), "not finite");
  }
  return FieldError(Element("max_distances", d),
                    absl::StrCat("must be in (0, ", kMaxRayDistance, "], got ",
                                 max_distance));
}

template <int D>
void AppendRayHits(const scene::QueryResult<D>& result,
                   sator::v1::RaycastBatchResponse* out) {
  out->add_hit_counts(static_cast<std::uint32_t>(result.hits.size()));
  for (const scene::QueryHit<D>& hit : result.hits) {
    const bool grouped = out->group_ids_size() > 0;
    if (!grouped && hit.group_id != 0) {
      // The batch's first hit on a group: the group arrays begin, with 0
      // for every hit before it.
      out->mutable_group_ids()->Resize(out->body_ids_size(), 0);
      out->mutable_parts()->Resize(out->body_ids_size(), 0);
    }
    if (grouped || hit.group_id != 0) {
      out->add_group_ids(hit.group_id);
      out->add_parts(hit.part);
    }
    out->add_body_ids(hit.body_id);
    out->add_user_data(hit.user_data);
    out->add_distances(hit.distance);
    const bool has_point = (hit.flags & scene::kHitPoint) != 0;
    const bool has_normal = (hit.flags & scene::kHitNormal) != 0;
    for (int k = 0; k < D; ++k) {
      out->add_points(has_point ? hit.point[k] : 0.0f);
    }
    for (int k = 0; k < D; ++k) {
      out->add_normals(has_normal ? hit.normal[k] : 0.0f);
    }
    out->add_features((hit.flags & scene::kHitFeature) != 0 ? hit.feature : -1);
    out->add_started_inside((hit.flags & scene::kHitStartedInside) != 0);
  }
}

template class PackedRays<2>;
template class PackedRays<3>;
template void AppendRayHits<2>(const scene::QueryResult<2>&,
                               sator::v1::RaycastBatchResponse*);
template void AppendRayHits<3>(const scene::QueryResult<3>&,
                               sator::v1::RaycastBatchResponse*);

}  // namespace sator::convert
