// The state behind a ProximityState: its zones and observers with their
// sets, and the pass that evaluates them (proximity_pass.cc).
#ifndef SATOR_CORE_SRC_SCENE_PROXIMITY_DATA_H_
#define SATOR_CORE_SRC_SCENE_PROXIMITY_DATA_H_

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "sator/core/broadphase/bvh.h"
#include "sator/core/scene/proximity.h"
#include "scene/snapshot_data.h"

namespace sator::scene::internal {

inline constexpr std::uint32_t kNoSlot =
    std::numeric_limits<std::uint32_t>::max();

// A zone or an observer, as the pass sees it: a probe shape at a pose that
// follows an anchor. An observer's probe is the circle or sphere of radius
// r + h (`shape`) with the one of radius r (`inner`, null when h is 0) for
// objects not yet visible.
template <int D>
struct ProximityEntry {
  ProximitySource source = ProximitySource::kZone;
  std::uint64_t id = 0;
  ShapePtr<D> shape;
  ShapePtr<D> inner;
  // The zone's pose (world, or in the anchor's frame); identity for
  // observers.
  Pose<D> pose{};
  Anchor anchor;
  QueryFilter filter;
  ProximityReport report = ProximityReport::kPerBody;
  bool report_inside = false;
  // > 0 when `shape` is a circle or sphere of this radius about its origin
  // (every observer, some zones): pairs far from its boundary are decided
  // from the body's bounding sphere (see proximity_pass.cc).
  float round_radius = 0.0f;
  float inner_radius = 0.0f;
  // The set of the last evaluation, ascending.
  std::vector<ProximityObject> set;
  // Where the anchor was found last (a body's slot, or a live part's slot
  // for a group): checked first, looked up again when stale.
  std::uint32_t anchor_slot = kNoSlot;
};

// Body id -> slot for one body table (tables are immutable and shared by
// the ticks that changed no body), rebuilt when the table is another.
template <int D>
struct BodyIndex {
  std::weak_ptr<const BodyTable<D>> table;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> slots;  // By id.
};

// Finds anchors in the newest frame of a snapshot: by the cached slot when
// it still holds the anchor, otherwise through `index` (built from one scan
// of the table when it belongs to another table).
template <int D>
class AnchorResolver {
 public:
  AnchorResolver(const SnapshotData<D>& data, BodyIndex<D>* index)
      : data_(data), index_(index) {}
  // The anchor's world pose (a group's pose for a group), or nullopt when
  // the scene does not have it at its newest tick. Updates *cached_slot.
  std::optional<Pose<D>> Resolve(const Anchor& anchor,
                                 std::uint32_t* cached_slot);

 private:
  const SnapshotData<D>& data_;
  BodyIndex<D>* index_;
};

// An entry at this tick, with the fields the pair test reads copied in, so
// that the probes of a leaf of the probe tree lie side by side.
template <int D>
struct ProximityProbe {
  Pose<D> pose{};
  Aabb<D> box{};
  const SceneShape<D>* shape = nullptr;
  const SceneShape<D>* inner = nullptr;
  // The filter's bits inline; the filter itself only when it excludes ids
  // or groups (null otherwise).
  std::uint64_t layer = 0;
  std::uint64_t mask = 0;
  const QueryFilter* exclusions = nullptr;
  bool two_way = true;
  MotionSelection motion = MotionSelection::kAll;
  Anchor anchor;
  float round_radius = 0.0f;
  float inner_radius = 0.0f;
  double round_scale = 0.0;  // RoundScale(pose.position, round_radius).
  ProximityReport report = ProximityReport::kPerBody;
};

// A body of a scene tree at the newest tick, in the tree's leaf order: what
// the pair test reads, gathered once per tick.
template <int D>
struct ProximityBody {
  std::uint64_t id = 0;
  std::uint64_t group_id = 0;
  std::uint64_t layer = 0;
  std::uint64_t mask = 0;
  Vec<D> position{};
  float radius = 0.0f;  // BodyRecord::radius: the shape lies in this ball.
  double scale = 0.0;   // RoundScale(position, radius), proximity_pass.cc.
  std::uint32_t slot = 0;
  MotionType motion = MotionType::kStatic;
};

// A body that meets a probe: the object it counts as and, for observers,
// whether it counts as within r (see proximity_pass.cc).
struct ProximityHit {
  std::uint32_t probe;
  bool within_inner;
  ProximityObject object;
};

// The pass's buffers, kept between evaluations so that a tick allocates
// (and page-faults) nothing in the steady state.
struct ProximityScratch {
  std::vector<std::uint32_t> counts;
  std::vector<ProximityHit> hits;
  std::vector<ProximityHit> bucketed;
  std::vector<ProximityObject> after;
};

template <int D>
struct ProximityData {
  ProximityOptions options;
  std::map<std::uint64_t, ProximityEntry<D>> zones;
  std::map<std::uint64_t, ProximityEntry<D>> observers;
  std::int64_t last_tick = -1;
  BodyIndex<D> body_index;
  // Reused by every evaluation (capacity kept).
  broadphase::Bvh<D> probe_tree =
      broadphase::Bvh<D>::Create(
          {.method = broadphase::BvhBuildMethod::kMorton, .max_leaf_size = 4})
          .value();
  typename broadphase::Bvh<D>::BuildScratch build_scratch;
  ProximityScratch scratch;
  std::vector<ProximityProbe<D>> scratch_probes;
  std::vector<ProximityBody<D>> scratch_bodies;
  std::vector<std::uint32_t> scratch_leaf_first;
};

// Evaluates every entry against the newest tick of `data`, appends the
// events (ordered as ProximityTick says) and replaces each entry's set.
template <int D>
ProximityStats RunProximityPass(const SnapshotData<D>& data,
                                ProximityData<D>& state, std::int64_t tick,
                                std::vector<ProximityEvent>* events);

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_PROXIMITY_DATA_H_
