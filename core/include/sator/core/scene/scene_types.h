// The records a Scene takes and gives: options, bodies, filters, queries and
// the one result schema every query kind shares.
//
// Frames and units follow sator/core/query_types.h: world frame, the caller's
// length unit. Normals in a QueryHit always point out of the scene body (for
// contacts and sweeps: the direction in which moving the query shape
// separates it from the body; for rays: the body's outward surface normal).
#ifndef SATOR_CORE_SCENE_SCENE_TYPES_H_
#define SATOR_CORE_SCENE_SCENE_TYPES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "sator/core/broadphase/tree_stats.h"
#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/limits.h"
#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator::scene {

// SceneShape<2> is Shape2 and SceneShape<3> is Shape3 (meshes included; a
// mesh may only be the shape of a static body).
template <int D>
using SceneShape = std::conditional_t<D == 2, Shape2, Shape3>;

// Shapes are immutable and may be shared by many bodies (and by readers of
// old snapshots): a body holds a pointer, never a copy.
template <int D>
using ShapePtr = std::shared_ptr<const SceneShape<D>>;

// The default SceneOptions::teleport_distance, in the caller's length unit:
// 10 (metres: 600 m/s at 60 ticks a second, so no character or vehicle
// reaches it in a tick, while a respawn from x = 0 to x = 100 is a cut, not a
// glide through x = 50).
inline constexpr float kDefaultTeleportDistance = 10.0f;

// When a rewound query names a tick older than the history
// (Rewind::on_too_old).
enum class RewindLimit : std::uint8_t {
  // OUT_OF_RANGE.
  kReject = 0,
  // The query runs at the oldest tick kept (fraction 0) and reports
  // QueryResult::clamped.
  kClamp,
};

// How ValidateShots judges shots (sator/core/scene/shot_validation.h has the
// model; docs/HIT_VALIDATION.md the reasons). Each scene has one, and a call
// may override it.
struct HitPolicy {
  // The most a shot may rewind, in milliseconds before the current tick
  // (converted with SceneOptions::tick_rate); the history length bounds it
  // too. Finite and >= 0.
  float max_rewind_ms = 250.0f;
  // Older shots: clamped to the oldest allowed time (judged there, reason
  // kClamped when they hit), or rejected (kTooOld).
  RewindLimit on_too_old = RewindLimit::kClamp;
  // How far the claimed origin may lie from the shooter's own hitboxes at the
  // view time (the caller's length unit); +infinity turns the check off.
  // Finite or +infinity, >= 0.
  float max_origin_distance = 2.0f;
  // Static bodies (the level) stop shots; when false the shot passes through
  // them (dynamic bodies outside any group always block).
  bool static_blocks = true;
};

// The limits a scene enforces; checked by Scene<D>::Create.
struct SceneOptions {
  // H: how many ticks of poses a scene keeps (the current tick included), in
  // [1, kMaxHistoryTicks]. A query may rewind to any of them.
  int history_ticks = 64;
  // A body (or hitbox group) whose position jumps by more than this between
  // two consecutive ticks teleported: a rewound query between those ticks
  // uses the earlier pose instead of interpolating. Positive; +infinity
  // turns the distance test off (PoseUpdate::teleported still cuts). The
  // default, kDefaultTeleportDistance, is far above what a game character
  // moves in one tick and below a respawn across a level.
  float teleport_distance = kDefaultTeleportDistance;
  // The most bodies alive at once (RESOURCE_EXHAUSTED beyond), in
  // [1, kMaxBodies].
  int max_bodies = 1'000'000;
  // The most hits a query may ask for (QueryOptions::max_hits).
  int max_hits = 4096;
  // Ticks per second, for view delays in milliseconds (ValidateShots):
  // finite, in (0, 100000].
  double tick_rate = 60.0;
  // The scene's default hit policy (ValidateShots).
  HitPolicy hit_policy;
};

enum class MotionType : std::uint8_t { kStatic = 0, kDynamic = 1 };

// One body as the caller gives it to UpsertBodies.
//
// Hitbox groups: a dynamic body with group_id != 0 is a part of that group (a
// player, a vehicle) and `pose` is its local pose in the group's frame; its
// world pose is group pose * local pose. A group exists while it has parts;
// it starts at the identity pose and moves with GroupPoseUpdate. `part` is
// the caller's label (head, torso, ...) in [kMinPart, kMaxPart], returned
// with every hit.
template <int D>
struct BodyDesc {
  std::uint64_t id = 0;
  ShapePtr<D> shape;
  Pose<D> pose{};
  std::uint64_t group_id = 0;
  std::int32_t part = 0;
  MotionType motion = MotionType::kDynamic;
  // What the body is (layer) and what it collides with (mask); see
  // QueryFilter for the test.
  std::uint64_t layer = 1;
  std::uint64_t mask = ~std::uint64_t{0};
  std::uint64_t user_data = 0;
};

// A body's pose at a tick (its local pose when it is a part of a group). A
// teleported body jumped at this tick: a rewound query between the previous
// tick and this one uses the previous pose instead of interpolating.
template <int D>
struct PoseUpdate {
  std::uint64_t id = 0;
  Pose<D> pose{};
  bool teleported = false;
};

// A hitbox group's pose at a tick: moves every part at once. teleported cuts
// the interpolation of all its parts, as PoseUpdate::teleported does.
template <int D>
struct GroupPoseUpdate {
  std::uint64_t group_id = 0;
  Pose<D> pose{};
  bool teleported = false;
};

// A group as SceneSnapshot::Groups gives it: id, pose at the newest tick and
// how many parts it has.
template <int D>
struct GroupDesc {
  std::uint64_t group_id = 0;
  Pose<D> pose{};
  std::size_t part_count = 0;
};

enum class MotionSelection : std::uint8_t {
  kAll = 0,
  kStaticOnly,
  kDynamicOnly
};

// The ids of the bodies a query skips (QueryFilter::excluded_ids), sorted
// and deduplicated once, when the set is made, and then shared by every copy
// of it (immutable, so copies may be used on any thread). A batch whose
// queries share one QueryOptions (RaycastBatch's rays) thus sorts its
// exclusions once, not once per query.
class ExcludedIds {
 public:
  ExcludedIds() = default;
  // Implicit, so that a filter reads `filter.excluded_ids = ids`.
  // NOLINTNEXTLINE(google-explicit-constructor)
  ExcludedIds(std::vector<std::uint64_t> ids) {
    if (ids.empty()) return;
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    ids_ = std::make_shared<const std::vector<std::uint64_t>>(std::move(ids));
  }
  ExcludedIds(std::initializer_list<std::uint64_t> ids)
      : ExcludedIds(std::vector<std::uint64_t>(ids)) {}
  // The set of one id, held in place (no allocation: a shot's exclusion of
  // its shooter).
  static ExcludedIds Single(std::uint64_t id) {
    ExcludedIds single;
    single.single_ = id;
    single.has_single_ = true;
    return single;
  }

  bool Contains(std::uint64_t id) const {
    if (has_single_) return id == single_;
    return ids_ != nullptr &&
           std::binary_search(ids_->begin(), ids_->end(), id);
  }
  bool empty() const { return ids_ == nullptr && !has_single_; }
  // Distinct ids.
  std::size_t size() const { return sorted().size(); }
  // Ascending, without repeats; shared by every copy of this set (or held
  // by this copy, for a Single).
  absl::Span<const std::uint64_t> sorted() const {
    if (has_single_) return absl::MakeConstSpan(&single_, 1);
    if (ids_ == nullptr) return {};
    return absl::MakeConstSpan(*ids_);
  }

 private:
  std::shared_ptr<const std::vector<std::uint64_t>> ids_;  // Null if empty.
  std::uint64_t single_ = 0;
  bool has_single_ = false;
};

// Which bodies a query considers. A body passes when:
//   (body.layer & filter.mask) != 0, and
//   if two_way: (filter.layer & body.mask) != 0 as well
// (the query is an object of layer `filter.layer` that collides with
// `filter.mask`; two_way also asks the body to want to collide with it),
// its id is not in excluded_ids, its group (if any) is not in
// excluded_groups, and its motion type is selected. The defaults pass every
// body.
struct QueryFilter {
  std::uint64_t layer = ~std::uint64_t{0};
  std::uint64_t mask = ~std::uint64_t{0};
  bool two_way = true;
  ExcludedIds excluded_ids;
  // Group ids whose parts are all skipped (the shooter's own hitboxes).
  ExcludedIds excluded_groups;
  MotionSelection motion = MotionSelection::kAll;
};

enum class ResultMode : std::uint8_t {
  // At most one hit, any of them (the first the traversal finds): the
  // cheapest "is there anything?" test.
  kAny = 0,
  // At most one hit: the one with the smallest key (see QueryHit).
  kClosest,
  // Every hit, ordered by key, the first max_hits of them.
  kAllUpToN,
  // The closest hit of each body, ordered by key, the first max_hits. Only
  // a 2D level gives a body several hits (Contacts: one per edge it
  // touches); for every other body and query this equals kAllUpToN.
  kClosestPerBody,
  // The closest hit of each hitbox group (a body outside any group counts
  // as a group of its own), ordered by key, the first max_hits.
  kClosestPerGroup,
};

// Run the query against the scene as it was at `tick` + `fraction` (tick
// must be within the scene's history, fraction in [0, 1); a fraction above 0
// needs tick + 1 to exist too). A tick older than the history is
// OUT_OF_RANGE, or with on_too_old = kClamp runs at the oldest tick kept.
struct Rewind {
  std::int64_t tick = 0;
  float fraction = 0.0f;
  RewindLimit on_too_old = RewindLimit::kReject;
};

struct QueryOptions {
  QueryFilter filter;
  ResultMode mode = ResultMode::kAllUpToN;
  int max_hits = 64;
  std::optional<Rewind> rewind;
};

// Which fields of a QueryHit hold a value.
enum HitFlags : std::uint32_t {
  kHitPoint = 1u << 0,
  kHitNormal = 1u << 1,
  kHitDistance = 1u << 2,
  kHitFraction = 1u << 3,
  kHitDepth = 1u << 4,
  kHitFeature = 1u << 5,
  // The query shape (sweep) or ray origin was already touching the body at
  // the start; for a sweep `depth` and `normal` are then the initial MTV.
  kHitStartedInside = 1u << 6,
};

// One hit, the same record for every query kind. The ordering key of each
// kind (ties broken by ascending body id):
//   overlap, point: 0 (so hits come out by body id);
//   contacts: -depth (deepest first);
//   sweep: fraction (time of impact; 0 when started inside);
//   raycast: distance (0 when started inside), compared as the fraction
//   distance / max_distance (the same order; the broad phase clips on it).
template <int D>
struct QueryHit {
  std::uint64_t body_id = 0;
  std::uint64_t user_data = 0;
  // The body's hitbox group (0: none) and part label.
  std::uint64_t group_id = 0;
  std::int32_t part = 0;
  Vec<D> point{};
  Vec<D> normal{};
  float distance = 0.0f;
  float fraction = 0.0f;
  float depth = 0.0f;
  std::int32_t feature = -1;
  std::uint32_t flags = 0;
};

template <int D>
struct QueryResult {
  // The tick and fraction the query ran at (the current tick when it did not
  // rewind).
  std::int64_t tick = 0;
  float fraction = 0.0f;
  // The rewind was older than the history and ran at the oldest tick
  // (RewindLimit::kClamp).
  bool clamped = false;
  std::vector<QueryHit<D>> hits;
  // Contacts only: the combined depenetration vector (see Scene::Contacts).
  Vec<D> depenetration{};
  // Broad-phase cost, summed over the scene's trees.
  broadphase::TreeStats stats;
};

// The heap bytes of the convex hull or triangle mesh `shape` holds
// (vertices, faces, triangles, a mesh's BVH); 0 for the shapes held inline.
std::size_t ShapeHeapBytes(const Shape2& shape);
std::size_t ShapeHeapBytes(const Shape3& shape);

struct BodyCounts {
  std::size_t static_bodies = 0;
  std::size_t dynamic_bodies = 0;
};

// Memory held by a scene's newest state, for metrics and the targets of
// docs/core/scene.md.
struct SceneMemory {
  std::size_t body_bytes = 0;     // Records, id index, per-body writer state.
  std::size_t tree_bytes = 0;     // Broad-phase trees.
  std::size_t history_bytes = 0;  // Pose arrays of the ticks kept.
  // The convex hulls and triangle meshes the bodies hold (vertices, faces,
  // triangles, a mesh's BVH), each counted once however many bodies share
  // it. Other shapes are inline in the body records.
  std::size_t shape_bytes = 0;
  std::size_t body_count = 0;
  std::size_t history_ticks = 0;

  std::size_t total_bytes() const {
    return body_bytes + tree_bytes + history_bytes + shape_bytes;
  }
};

}  // namespace sator::scene

#endif  // SATOR_CORE_SCENE_SCENE_TYPES_H_
