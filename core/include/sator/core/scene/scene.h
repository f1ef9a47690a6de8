// A scene: bodies with a tick history, answering filtered queries, with
// readers that never wait for the writer and never see half a batch.
//
// Design (docs/core/scene.md has the details and measurements):
// - The writer (UpsertBodies, RemoveBodies, UpdatePoses; serialised by a
//   mutex) builds a new immutable SceneSnapshot for every batch and publishes
//   it by swapping one shared_ptr. Readers take the newest snapshot (a pointer
//   copy under a mutex held for nanoseconds) and query it for as long as they
//   like: a query sees exactly one published state, and a long query never
//   holds the writer up.
// - A snapshot shares almost everything with its predecessor: the body table
//   (records: id, shape, layer, mask, user data, motion type) is replaced only
//   by upserts and removals, each tick's pose array is its own immutable
//   vector, and the history is H pointers to (table, poses) pairs.
// - Broad phase: two Bvh (sator/core/broadphase/bvh.h) over "window boxes",
//   one for static and one for dynamic bodies. A body's window box contains
//   the body at every pose it had in the history window and at every pose
//   interpolated between two consecutive ticks, so one tree answers current
//   and rewound queries alike. The static tree is rebuilt only when static
//   bodies change; the dynamic one is rebuilt (Morton LBVH) at each tick.
// - Narrow phase: the 2D and 3D cores (queries2d.h, shape3d_queries.h).
//
// Ticks: a scene starts at tick 0 with no bodies. UpsertBodies and
// RemoveBodies apply at the current tick (they amend it). UpdatePoses(tick)
// with tick == current amends the current tick too (later poses replace
// earlier ones); a tick above the current starts a new tick (skipped ticks
// repeat the last poses); a tick below is FAILED_PRECONDITION.
#ifndef SATOR_CORE_SCENE_SCENE_H_
#define SATOR_CORE_SCENE_SCENE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sator/core/scene/scene_types.h"

namespace sator::scene {

namespace internal {
template <int D>
struct SnapshotData;
template <int D>
struct WriterState;
template <int D>
struct SnapshotAccess;
}  // namespace internal

// The query kinds as records, for batches (RunQueryBatch) and the service.
template <int D>
struct OverlapRequest {
  ShapePtr<D> shape;
  Pose<D> pose{};
  QueryOptions options;
};
template <int D>
struct ContactsRequest {
  ShapePtr<D> shape;
  Pose<D> pose{};
  QueryOptions options;
  // The contact tolerance: contacts shallower than this are not reported
  // (see SceneSnapshot::Contacts).
  float min_depth = 0.0f;
};
template <int D>
struct SweepRequest {
  ShapePtr<D> shape;
  Pose<D> pose{};
  Vec<D> displacement{};
  QueryOptions options;
};
template <int D>
struct RayRequest {
  Vec<D> origin{};
  Vec<D> direction{};
  float max_distance = 0.0f;
  QueryOptions options;
};
template <int D>
struct PointRequest {
  Vec<D> point{};
  QueryOptions options;
};
template <int D>
using SceneQuery =
    std::variant<OverlapRequest<D>, ContactsRequest<D>, SweepRequest<D>,
                 RayRequest<D>, PointRequest<D>>;

// One immutable published state of a scene. Cheap to copy (one shared_ptr);
// safe to query from any number of threads.
//
// Every query validates its input first (INVALID_ARGUMENT naming the field:
// shape, pose, direction, max_distance, fraction, max_hits; OUT_OF_RANGE for a
// rewind tick outside [oldest_tick, tick], or a fraction above 0 at the
// newest tick) and reports the tick it used and the broad-phase TreeStats.
// Query shapes must be convex in 3D (a mesh cannot be a query shape).
template <int D>
class SceneSnapshot {
 public:
  SceneSnapshot() = default;

  // The newest tick, and the oldest one a query may rewind to.
  std::int64_t tick() const;
  std::int64_t oldest_tick() const;
  // The tick a query with `options` would answer at (the rewind's, or the
  // newest), or the error it would give for its options (max_hits out of
  // range, a rewind outside the history): a batch with no queries still
  // checks and reports it.
  absl::StatusOr<std::int64_t> QueryTick(const QueryOptions& options) const;
  // Bodies alive at the newest tick.
  std::size_t body_count() const;
  // SceneOptions::tick_rate and hit_policy.
  double tick_rate() const;
  const HitPolicy& hit_policy() const;

  // The hitbox groups with at least one part at the newest tick, with their
  // pose there, in ascending id order.
  std::vector<GroupDesc<D>> Groups() const;

  // One part of a group at a query time.
  struct Part {
    std::uint64_t body_id = 0;
    std::int32_t part = 0;
    std::uint64_t layer = 0;
    std::uint64_t mask = 0;
    ShapePtr<D> shape;
    Pose<D> pose{};  // World pose at the time asked for.
    // Not interpolated: it teleported at the tick after the rewind's.
    bool teleported = false;
  };
  // The parts of `group_id` as a query with `rewind` would see them (the
  // newest tick when absent), in ascending body id order; empty when the
  // group had no part then. Rewind errors as for the queries.
  absl::StatusOr<std::vector<Part>> GroupParts(
      std::uint64_t group_id, const std::optional<Rewind>& rewind) const;

  // Every body alive at the newest tick, with its pose at that tick (a
  // part's local pose), in ascending id order (for export and snapshots).
  // O(n).
  std::vector<BodyDesc<D>> Bodies() const;

  // One body at a query time, placed in the world.
  struct PosedBody {
    std::uint64_t id = 0;
    ShapePtr<D> shape;
    Pose<D> pose{};  // World pose (a part's composed with its group's).
    std::uint64_t group_id = 0;
    std::int32_t part = 0;
    MotionType motion = MotionType::kDynamic;
    // Not interpolated: it teleported at the tick after the rewind's.
    bool teleported = false;
  };
  // Every body as a query with `rewind` would see it (the newest tick when
  // absent), in ascending id order: the debug viewer's picture of a past
  // tick. Rewind errors as for the queries. O(n).
  absl::StatusOr<std::vector<PosedBody>> BodiesAt(
      const std::optional<Rewind>& rewind) const;
  // How many of those bodies are static and how many dynamic. O(n).
  BodyCounts CountBodies() const;

  // Bodies that overlap or touch `shape` at `pose`.
  absl::StatusOr<QueryResult<D>> Overlap(const SceneShape<D>& shape,
                                         const Pose<D>& pose,
                                         const QueryOptions& options) const;
  // Bodies that overlap or touch `shape`, each with its MTV: `normal` (out of
  // the body), `depth` (>= 0 up to the touching tolerance) and `point`. A 2D
  // level body gives one hit per edge the shape touches (`feature` the edge,
  // the normal within the edge's cone; each hit counts against max_hits). Also
  // `depenetration`, the translation a character controller applies to move
  // the shape out of all of them at once: starting from zero, the hits are
  // taken deepest first and each adds normal * max(0, depth - dot(v,
  // normal)), the part of its depth the vector so far does not already
  // resolve (a single projection pass: exact for one contact and for
  // orthogonal ones, never pushing twice along a shared normal). It combines
  // the hits the mode returns (use kAllUpToN for the full vector).
  //
  // `min_depth` is a contact tolerance: a contact shallower than it is not
  // reported, does not take the place of a deeper one in the mode's
  // collector, and adds nothing to `depenetration`. 0 (the default) reports
  // every contact, touching ones included (a shape resting on another
  // reports a depth of 0 or of round-off). INVALID_ARGUMENT
  // "min_depth: ..." unless finite and >= 0.
  absl::StatusOr<QueryResult<D>> Contacts(const SceneShape<D>& shape,
                                          const Pose<D>& pose,
                                          const QueryOptions& options,
                                          float min_depth = 0.0f) const;
  // `shape` moving from `pose` by `displacement` without rotating: bodies it
  // hits, by time of impact (`fraction` of the displacement, `point`,
  // `normal`). A body it touches at the start is a hit at fraction 0 with
  // kHitStartedInside and the initial MTV in depth and normal.
  absl::StatusOr<QueryResult<D>> Sweep(const SceneShape<D>& shape,
                                       const Pose<D>& pose, Vec<D> displacement,
                                       const QueryOptions& options) const;
  // The ray origin + s * direction, s in [0, max_distance] (direction need
  // not be unit length; it is normalised): hits by distance. An origin inside
  // a body is a hit at distance 0 with kHitStartedInside.
  absl::StatusOr<QueryResult<D>> RayCast(Vec<D> origin, Vec<D> direction,
                                         float max_distance,
                                         const QueryOptions& options) const;
  // Bodies that contain `point` (within the touching tolerance). Meshes are
  // surfaces and contain no point.
  absl::StatusOr<QueryResult<D>> PointQuery(Vec<D> point,
                                            const QueryOptions& options) const;

  // Any of the above, from its record.
  absl::StatusOr<QueryResult<D>> Run(const SceneQuery<D>& query) const;

 private:
  template <int>
  friend class Scene;
  // The in-process readers of the published state (the proximity pass).
  friend struct internal::SnapshotAccess<D>;
  explicit SceneSnapshot(std::shared_ptr<const internal::SnapshotData<D>> data)
      : data_(std::move(data)) {}

  std::shared_ptr<const internal::SnapshotData<D>> data_;
};

template <int D>
class Scene {
 public:
  // The validating factory: INVALID_ARGUMENT naming the option out of range.
  static absl::StatusOr<std::unique_ptr<Scene>> Create(
      const SceneOptions& options = {});
  ~Scene();
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  // Inserts new bodies and replaces existing ones (same id: shape, pose,
  // motion, layer, mask and user data are replaced; the body keeps its
  // history, so a rewound query between the previous tick and this one
  // interpolates to the new pose unless it is a teleport). All or nothing:
  // INVALID_ARGUMENT for a null or invalid shape, an invalid pose, a mesh on a
  // dynamic body or an id twice in the batch ("bodies[3].shape: ...");
  // RESOURCE_EXHAUSTED when the bodies would exceed max_bodies.
  absl::Status UpsertBodies(absl::Span<const BodyDesc<D>> bodies);
  // Removes bodies at the current tick (rewound queries to earlier ticks
  // still see them). All or nothing: NOT_FOUND for an unknown id,
  // INVALID_ARGUMENT for an id given twice.
  absl::Status RemoveBodies(absl::Span<const std::uint64_t> ids);
  // Sets the poses of dynamic bodies at `tick` (see the tick rules above).
  // All or nothing: FAILED_PRECONDITION for a tick below the current one or
  // a static body, NOT_FOUND for an unknown id, INVALID_ARGUMENT for an
  // invalid pose. An id given twice takes the later pose.
  absl::Status UpdatePoses(std::int64_t tick,
                           absl::Span<const PoseUpdate<D>> updates);
  // The same, moving hitbox groups too: each GroupPoseUpdate sets a group's
  // pose (NOT_FOUND for a group with no part, INVALID_ARGUMENT
  // "group_updates[i].pose" for an invalid one) and so every part's world
  // pose; a PoseUpdate of a part sets its local pose. Teleport flags mark the
  // body (or every part of the group) as jumping at `tick`.
  absl::Status UpdatePoses(std::int64_t tick,
                           absl::Span<const PoseUpdate<D>> updates,
                           absl::Span<const GroupPoseUpdate<D>> group_updates);

  // The newest published state.
  SceneSnapshot<D> Snapshot() const;
  const SceneOptions& options() const { return options_; }
  SceneMemory Memory() const;

 private:
  explicit Scene(const SceneOptions& options);
  void Publish();

  SceneOptions options_;
  // Serialises writers; guards writer_.
  mutable std::mutex writer_mutex_;
  std::unique_ptr<internal::WriterState<D>> writer_;
  // Guards snapshot_ (held only to copy or swap the pointer).
  mutable std::mutex snapshot_mutex_;
  std::shared_ptr<const internal::SnapshotData<D>> snapshot_;
};

extern template class SceneSnapshot<2>;
extern template class SceneSnapshot<3>;
extern template class Scene<2>;
extern template class Scene<3>;

using Scene2 = Scene<2>;
using Scene3 = Scene<3>;

}  // namespace sator::scene

#endif  // SATOR_CORE_SCENE_SCENE_H_
