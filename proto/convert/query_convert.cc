// sator.v1 scene queries to and from the core's scene records; see
// query_convert.h.
#include "proto/convert/query_convert.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/convert/dimension_convert.h"
#include "sator/core/field_status.h"

namespace sator::convert {

using scene::QueryKind;
using scene::QueryKindName;

template <int D>
absl::StatusOr<PlacedShape<D>> ToPlacedShape(const sator::v1::Shape& shape,
                                             const sator::v1::Pose& pose,
                                             const ShapeLimits& limits) {
  if (shape.kind_case() == sator::v1::Shape::kMesh) {
    return FieldError("shape.mesh", "a mesh cannot be a query shape");
  }
  if (shape.kind_case() == sator::v1::Shape::kLevel2D) {
    return FieldError("shape.level2d", "a level cannot be a query shape");
  }
  absl::StatusOr<scene::SceneShape<D>> converted =
      Dim<D>::ToShape(shape, limits);
  if (!converted.ok()) return PrefixField("shape", converted.status());
  absl::StatusOr<Pose<D>> placed = Dim<D>::ToPose(pose);
  if (!placed.ok()) return PrefixField("pose", placed.status());
  return PlacedShape<D>{
      std::make_shared<const scene::SceneShape<D>>(*std::move(converted)),
      *placed};
}

template absl::StatusOr<PlacedShape<2>> ToPlacedShape<2>(
    const sator::v1::Shape&, const sator::v1::Pose&, const ShapeLimits&);
template absl::StatusOr<PlacedShape<3>> ToPlacedShape<3>(
    const sator::v1::Shape&, const sator::v1::Pose&, const ShapeLimits&);

absl::string_view ResultModeName(scene::ResultMode mode) {
  switch (mode) {
    case scene::ResultMode::kAny:
      return "any";
    case scene::ResultMode::kClosest:
      return "closest";
    case scene::ResultMode::kAllUpToN:
      return "all";
    case scene::ResultMode::kClosestPerBody:
      return "closest_per_body";
    case scene::ResultMode::kClosestPerGroup:
      return "closest_per_group";
  }
  return "unknown";
}

absl::StatusOr<QueryKind> KindOf(const sator::v1::Query& query) {
  switch (query.kind_case()) {
    case sator::v1::Query::kOverlap:
      return QueryKind::kOverlap;
    case sator::v1::Query::kContacts:
      return QueryKind::kContacts;
    case sator::v1::Query::kSweep:
      return QueryKind::kSweep;
    case sator::v1::Query::kRaycast:
      return QueryKind::kRaycast;
    case sator::v1::Query::kPoint:
      return QueryKind::kPoint;
    case sator::v1::Query::KIND_NOT_SET:
      break;
  }
  return FieldError("kind", "no query kind is set");
}

absl::Status ToQueryFilter(const sator::v1::QueryFilter& filter,
                           scene::QueryFilter* out_filter) {
  scene::QueryFilter& out = *out_filter;
  // Layer and mask are uint64 on the wire: every value is meaningful.
  if (filter.has_layer()) out.layer = filter.layer();
  if (filter.has_mask()) out.mask = filter.mask();
  // Bounded: the ids are sorted once here, then searched by every
  // candidate body of every query that uses this filter.
  if (filter.exclude_body_ids_size() > kMaxExcludedBodyIds) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, "exclude_body_ids",
        absl::StrCat(
            "at most ", kMaxExcludedBodyIds,
            " ids (use layers and masks to leave out larger groups), got ",
            filter.exclude_body_ids_size()));
  }
  out.excluded_ids = scene::ExcludedIds(std::vector<std::uint64_t>(
      filter.exclude_body_ids().begin(), filter.exclude_body_ids().end()));
  if (filter.exclude_group_ids_size() > kMaxExcludedBodyIds) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, "exclude_group_ids",
        absl::StrCat("at most ", kMaxExcludedBodyIds, " ids, got ",
                     filter.exclude_group_ids_size()));
  }
  out.excluded_groups = scene::ExcludedIds(std::vector<std::uint64_t>(
      filter.exclude_group_ids().begin(), filter.exclude_group_ids().end()));
  switch (filter.motion()) {
    case sator::v1::MOTION_FILTER_UNSPECIFIED:
      out.motion = scene::MotionSelection::kAll;
      break;
    case sator::v1::MOTION_FILTER_STATIC_ONLY:
      out.motion = scene::MotionSelection::kStaticOnly;
      break;
    case sator::v1::MOTION_FILTER_DYNAMIC_ONLY:
      out.motion = scene::MotionSelection::kDynamicOnly;
      break;
    default:
      return FieldError("motion",
                        absl::StrCat("unknown value ", filter.motion()));
  }
  return absl::OkStatus();
}

absl::StatusOr<scene::QueryOptions> ToQueryOptions(
    const sator::v1::QueryOptions& options, int max_hits_limit) {
  scene::QueryOptions out;
  if (absl::Status s = ToQueryFilter(options.filter(), &out.filter); !s.ok()) {
    return PrefixField("filter", s);
  }

  switch (options.mode()) {
    case sator::v1::RESULT_MODE_UNSPECIFIED:
    case sator::v1::RESULT_MODE_CLOSEST:
      out.mode = scene::ResultMode::kClosest;
      break;
    case sator::v1::RESULT_MODE_ANY:
      out.mode = scene::ResultMode::kAny;
      break;
    case sator::v1::RESULT_MODE_ALL:
      out.mode = scene::ResultMode::kAllUpToN;
      break;
    case sator::v1::RESULT_MODE_CLOSEST_PER_BODY:
      out.mode = scene::ResultMode::kClosestPerBody;
      break;
    default:
      return FieldError("mode", absl::StrCat("unknown value ", options.mode()));
  }

  if (options.max_hits() == 0) {
    out.max_hits = std::min(kDefaultMaxHits, max_hits_limit);
  } else if (options.max_hits() > static_cast<std::uint32_t>(max_hits_limit)) {
    return FieldError(absl::StatusCode::kResourceExhausted, "max_hits",
                      absl::StrCat("at most ", max_hits_limit,
                                   " (--max_hits), got ", options.max_hits()));
  } else {
    out.max_hits = static_cast<int>(options.max_hits());
  }

  if (options.has_rewind()) {
    const sator::v1::Rewind& rewind = options.rewind();
    if (rewind.tick() < 0) {
      return FieldError("rewind.tick",
                        absl::StrCat("must be >= 0, got ", rewind.tick()));
    }
    if (!std::isfinite(rewind.fraction())) {
      return FieldError("rewind.fraction", "not finite");
    }
    if (rewind.fraction() < 0.0f || rewind.fraction() >= 1.0f) {
      return FieldError(
          "rewind.fraction",
          absl::StrCat("must be in [0, 1), got ", rewind.fraction()));
    }
    out.rewind = scene::Rewind{rewind.tick(), rewind.fraction()};
  }
  return out;
}

template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(
    const sator::v1::OverlapQuery& query, scene::QueryOptions options,
    const ShapeLimits& limits) {
  absl::StatusOr<PlacedShape<D>> placed =
      ToPlacedShape<D>(query.shape(), query.pose(), limits);
  if (!placed.ok()) return placed.status();
  return scene::SceneQuery<D>(scene::OverlapRequest<D>{
      std::move(placed->shape), placed->pose, std::move(options)});
}

template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(
    const sator::v1::ContactsQuery& query, scene::QueryOptions options,
    const ShapeLimits& limits) {
  absl::StatusOr<PlacedShape<D>> placed =
      ToPlacedShape<D>(query.shape(), query.pose(), limits);
  if (!placed.ok()) return placed.status();
  if (!std::isfinite(query.min_depth())) {
    return FieldError("min_depth", "not finite");
  }
  if (query.min_depth() < 0.0f) {
    return FieldError("min_depth",
                      absl::StrCat("must be >= 0, got ", query.min_depth()));
  }
  return scene::SceneQuery<D>(
      scene::ContactsRequest<D>{std::move(placed->shape), placed->pose,
                                std::move(options), query.min_depth()});
}

template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(
    const sator::v1::SweepQuery& query, scene::QueryOptions options,
    const ShapeLimits& limits) {
  absl::StatusOr<PlacedShape<D>> placed =
      ToPlacedShape<D>(query.shape(), query.pose(), limits);
  if (!placed.ok()) return placed.status();
  absl::StatusOr<Vec<D>> displacement = Dim<D>::ToVec(query.displacement());
  if (!displacement.ok()) {
    return PrefixField("displacement", displacement.status());
  }
  return scene::SceneQuery<D>(
      scene::SweepRequest<D>{std::move(placed->shape), placed->pose,
                             *displacement, std::move(options)});
}

template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(
    const sator::v1::RaycastQuery& query, scene::QueryOptions options,
    const ShapeLimits& /*limits*/) {
  absl::StatusOr<Vec<D>> origin = Dim<D>::ToVec(query.origin());
  if (!origin.ok()) return PrefixField("origin", origin.status());
  absl::StatusOr<Vec<D>> direction = Dim<D>::ToVec(query.direction());
  if (!direction.ok()) return PrefixField("direction", direction.status());
  if (absl::Status s = CheckRayDirection(*direction, "direction"); !s.ok()) {
    return s;
  }
  const float max_distance = query.max_distance();
  if (!std::isfinite(max_distance)) {
    return FieldError("max_distance", "not finite");
  }
  if (!(max_distance > 0.0f) || max_distance > kMaxRayDistance) {
    return FieldError("max_distance",
                      absl::StrCat("must be in (0, ", kMaxRayDistance,
                                   "], got ", max_distance));
  }
  return scene::SceneQuery<D>(scene::RayRequest<D>{
      *origin, *direction, max_distance, std::move(options)});
}

template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(
    const sator::v1::PointQuery& query, scene::QueryOptions options,
    const ShapeLimits& /*limits*/) {
  absl::StatusOr<Vec<D>> point = Dim<D>::ToVec(query.point());
  if (!point.ok()) return PrefixField("point", point.status());
  return scene::SceneQuery<D>(
      scene::PointRequest<D>{*point, std::move(options)});
}

template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(const sator::v1::Query& query,
                                                  const ShapeLimits& limits,
                                                  int max_hits_limit) {
  absl::StatusOr<QueryKind> kind = KindOf(query);
  if (!kind.ok()) return kind.status();
  absl::StatusOr<scene::QueryOptions> options =
      ToQueryOptions(query.options(), max_hits_limit);
  if (!options.ok()) return PrefixField("options", options.status());
  absl::StatusOr<scene::SceneQuery<D>> converted;
  switch (*kind) {
    case QueryKind::kOverlap:
      converted = ToSceneQuery<D>(query.overlap(), *std::move(options), limits);
      break;
    case QueryKind::kContacts:
      converted =
          ToSceneQuery<D>(query.contacts(), *std::move(options), limits);
      break;
    case QueryKind::kSweep:
      converted = ToSceneQuery<D>(query.sweep(), *std::move(options), limits);
      break;
    case QueryKind::kRaycast:
      converted = ToSceneQuery<D>(query.raycast(), *std::move(options), limits);
      break;
    case QueryKind::kPoint:
      converted = ToSceneQuery<D>(query.point(), *std::move(options), limits);
      break;
  }
  if (!converted.ok()) {
    return PrefixField(QueryKindName(*kind), converted.status());
  }
  return converted;
}

absl::Status SceneQueryError(const absl::Status& status,
                             absl::string_view query_path,
                             absl::string_view options_path) {
  if (status.ok()) return status;
  const std::string field = FieldPathOf(status).value_or("");
  const bool about_options =
      absl::StartsWith(field, "max_hits") || absl::StartsWith(field, "rewind");
  return PrefixField(about_options ? options_path : query_path, status);
}

template <int D>
void FromQueryHit(const scene::QueryHit<D>& hit, QueryKind kind,
                  sator::v1::Hit* message) {
  message->set_body_id(hit.body_id);
  message->set_user_data(hit.user_data);
  if (hit.group_id != 0) {
    message->set_group_id(hit.group_id);
    message->set_part(hit.part);
  }
  if ((hit.flags & scene::kHitPoint) != 0) {
    Dim<D>::FromVec(hit.point, message->mutable_point());
  }
  if ((hit.flags & scene::kHitNormal) != 0) {
    Dim<D>::FromVec(hit.normal, message->mutable_normal());
  }
  const bool started_inside = (hit.flags & scene::kHitStartedInside) != 0;
  message->set_started_inside(started_inside);
  message->set_feature((hit.flags & scene::kHitFeature) != 0 ? hit.feature
                                                             : -1);
  switch (kind) {
    case QueryKind::kContacts:
      message->set_distance(hit.depth);
      break;
    case QueryKind::kSweep:
      message->set_distance(started_inside ? hit.depth : hit.fraction);
      break;
    case QueryKind::kRaycast:
      message->set_distance(hit.distance);
      break;
    case QueryKind::kOverlap:
    case QueryKind::kPoint:
      break;
  }
}

template <int D>
void FromQueryResult(const scene::QueryResult<D>& result, QueryKind kind,
                     sator::v1::QueryResult* out) {
  out->set_tick(result.tick);
  out->mutable_hits()->Reserve(static_cast<int>(result.hits.size()));
  for (const scene::QueryHit<D>& hit : result.hits) {
    FromQueryHit<D>(hit, kind, out->add_hits());
  }
  if (kind == QueryKind::kContacts) {
    Dim<D>::FromVec(result.depenetration, out->mutable_depenetration());
  }
  sator::v1::QueryStats* stats = out->mutable_stats();
  // The counts are int64 in the core and uint32 on the wire; one query never
  // visits 2^32 nodes of a tree of at most 2^24 bodies, but clamp anyway.
  constexpr std::int64_t kMaxCount = 0xffffffffLL;
  stats->set_node_visits(static_cast<std::uint32_t>(
      std::clamp<std::int64_t>(result.stats.node_visits, 0, kMaxCount)));
  stats->set_leaf_visits(static_cast<std::uint32_t>(
      std::clamp<std::int64_t>(result.stats.leaf_visits, 0, kMaxCount)));
}

// D is a template argument, which cannot be parenthesized here (clang then
// finds the explicit instantiations ambiguous with the templates).
// NOLINTBEGIN(bugprone-macro-parentheses)
#define SATOR_INSTANTIATE_QUERY_CONVERT(D)                                    \
  template absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery<D>(              \
      const sator::v1::OverlapQuery&, scene::QueryOptions,                    \
      const ShapeLimits&);                                                    \
  template absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery<D>(              \
      const sator::v1::ContactsQuery&, scene::QueryOptions,                   \
      const ShapeLimits&);                                                    \
  template absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery<D>(              \
      const sator::v1::SweepQuery&, scene::QueryOptions, const ShapeLimits&); \
  template absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery<D>(              \
      const sator::v1::RaycastQuery&, scene::QueryOptions,                    \
      const ShapeLimits&);                                                    \
  template absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery<D>(              \
      const sator::v1::PointQuery&, scene::QueryOptions, const ShapeLimits&); \
  template absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery<D>(              \
      const sator::v1::Query&, const ShapeLimits&, int);                      \
  template void FromQueryHit<D>(const scene::QueryHit<D>&, QueryKind,         \
                                sator::v1::Hit*);                             \
  template void FromQueryResult<D>(const scene::QueryResult<D>&, QueryKind,   \
                                   sator::v1::QueryResult*);

// NOLINTEND(bugprone-macro-parentheses)
SATOR_INSTANTIATE_QUERY_CONVERT(2)
SATOR_INSTANTIATE_QUERY_CONVERT(3)

#undef SATOR_INSTANTIATE_QUERY_CONVERT

}  // namespace sator::convert
