// sator.v1 scene queries to and from the core's scene records
// (sator/core/scene/scene.h), validating every field.
//
// Errors name the field relative to the message converted: a kind message
// gives "direction: zero length", a whole v1::Query "raycast.direction: zero
// length" or "options.rewind.fraction: must be in [0, 1)"; the caller adds
// its own prefix ("queries[4]." in a batch, "query." in a unary request).
#ifndef SATOR_PROTO_CONVERT_QUERY_CONVERT_H_
#define SATOR_PROTO_CONVERT_QUERY_CONVERT_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/convert/geometry_convert.h"
#include "sator/core/scene/query_kind.h"
#include "sator/core/scene/scene.h"
#include "sator/v1/query.pb.h"

namespace sator::convert {

// The hits a query gets when QueryOptions.max_hits is 0.
inline constexpr int kDefaultMaxHits = 64;

// "any", "closest", "all", "closest_per_body".
absl::string_view ResultModeName(scene::ResultMode mode);

// The kind of a v1::Query, or INVALID_ARGUMENT "kind: no query kind is set".
absl::StatusOr<scene::QueryKind> KindOf(const sator::v1::Query& query);

// A filter: an unset layer or mask is all 64 bits; more than
// kMaxExcludedBodyIds exclude_body_ids (or exclude_group_ids) is
// RESOURCE_EXHAUSTED ("exclude_body_ids: ..."), checked before they are
// copied; the exclusions are sorted once, here (scene::ExcludedIds).
absl::Status ToQueryFilter(const sator::v1::QueryFilter& filter,
                           scene::QueryFilter* out);

// The shape and pose every shape query starts with: the shape through
// ToShape2 / ToShape3 ("shape...."; a mesh is refused, "shape.mesh: a mesh
// cannot be a query shape"), the pose through ToPose2 / ToPose3 ("pose....").
template <int D>
struct PlacedShape {
  scene::ShapePtr<D> shape;
  Pose<D> pose{};
};
template <int D>
absl::StatusOr<PlacedShape<D>> ToPlacedShape(const sator::v1::Shape& shape,
                                             const sator::v1::Pose& pose,
                                             const ShapeLimits& limits);

// Options: an unset layer or mask is all 64 bits; RESULT_MODE_UNSPECIFIED is
// closest; max_hits 0 is kDefaultMaxHits (capped at `max_hits_limit`), above
// `max_hits_limit` is RESOURCE_EXHAUSTED; more than kMaxExcludedBodyIds
// exclude_body_ids is RESOURCE_EXHAUSTED ("filter.exclude_body_ids: ..."),
// checked before they are copied; the exclusions are sorted once, here
// (scene::ExcludedIds), and shared by every copy of the options; a rewind
// needs a finite fraction in [0, 1) and a tick >= 0 (whether the tick is
// still in the history is the scene's OUT_OF_RANGE).
absl::StatusOr<scene::QueryOptions> ToQueryOptions(
    const sator::v1::QueryOptions& options, int max_hits_limit);

// One kind message with options already converted. Shapes go through
// ToShape2 / ToShape3; a mesh is refused as a query shape ("shape.mesh: a
// mesh cannot be a query shape"). Rays need a non-zero direction and a
// max_distance in (0, kMaxRayDistance].
template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(
    const sator::v1::OverlapQuery& query, scene::QueryOptions options,
    const ShapeLimits& limits);
template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(
    const sator::v1::ContactsQuery& query, scene::QueryOptions options,
    const ShapeLimits& limits);
template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(
    const sator::v1::SweepQuery& query, scene::QueryOptions options,
    const ShapeLimits& limits);
template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(
    const sator::v1::RaycastQuery& query, scene::QueryOptions options,
    const ShapeLimits& limits);
template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(
    const sator::v1::PointQuery& query, scene::QueryOptions options,
    const ShapeLimits& limits);

// A whole v1::Query (paths "options...." and "<kind>....").
template <int D>
absl::StatusOr<scene::SceneQuery<D>> ToSceneQuery(const sator::v1::Query& query,
                                                  const ShapeLimits& limits,
                                                  int max_hits_limit);

// Moves the field path of an error the scene reported for a query into the
// request's terms: the scene names options as "max_hits: ..." and
// "rewind.tick: ...", which become "<options_path>.max_hits: ...", and the
// query's own fields ("shape: ...", "direction: ...") become
// "<query_path>.shape: ...".
absl::Status SceneQueryError(const absl::Status& status,
                             absl::string_view query_path,
                             absl::string_view options_path);

// One hit, in the schema of v1::Hit: group_id and part only for a part of
// a hitbox group; distance as FromQueryResult says for `kind`.
template <int D>
void FromQueryHit(const scene::QueryHit<D>& hit, scene::QueryKind kind,
                  sator::v1::Hit* out);

// One result, in the schema of v1::Hit: contacts give distance = depth; a
// sweep distance = fraction (the initial depth when it started inside); a
// ray its distance. Point and normal are set only when the core filled them.
template <int D>
void FromQueryResult(const scene::QueryResult<D>& result, scene::QueryKind kind,
                     sator::v1::QueryResult* out);

}  // namespace sator::convert

#endif  // SATOR_PROTO_CONVERT_QUERY_CONVERT_H_
