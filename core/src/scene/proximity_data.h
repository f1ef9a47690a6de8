// The state behind a ProximityState: its zones and observers with their
// sets, and the pass that evaluates them (proximity_pass.cc).
#ifndef SATOR_CORE_SRC_SCENE_PROXIMITY_DATA_H_
#define SATOR_CORE_SRC_SCENE_PROXIMITY_DATA_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "sator/core/broadphase/bvh.h"
#include "sator/core/scene/proximity.h"
#include "scene/proximity_grid.h"
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
  ProximityReport report = ProximityReport::kPerBody;
};

// A distance bound of a round probe: a body is apart beyond reach + its
// round_reach and overlapping within inside + its inside_reach
// (proximity_pass.cc).
struct RoundBounds {
  double reach = 0.0;
  double inside = 0.0;
};

// The events of one entry: [first, end) of the evaluation's events.
struct EventRun {
  std::uint32_t entry = 0;
  std::size_t first = 0;
  std::size_t end = 0;
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
template <int D>
struct ProximityScratch {
  std::vector<ProximityProbe<D>> probes;
  // Round probes: their outer (r + h) and inner (r) distance bounds
  // (proximity_pass.cc).
  std::vector<RoundBounds> outer;
  std::vector<RoundBounds> inner;
  // Each probe's region: where a body's position must lie, widened by the
  // body's reach, for the probe to count it.
  std::vector<std::array<double, D>> region_low;
  std::vector<std::array<double, D>> region_high;
  std::vector<double> sizes;
  // The live bodies of the newest tick: those in the grid, then those too
  // large for it (`moved`; `large` their indices while they are moved).
  std::vector<ProximityBody<D>> bodies;
  std::vector<ProximityBody<D>> in_cells;  // `bodies` in the grid's order.
  std::vector<ProximityBody<D>> moved;
  std::vector<std::uint32_t> large;
  // The probes by the cell of their centres: (cell, probe), and the entry
  // of each probe.
  std::vector<std::pair<std::int64_t, std::uint32_t>> order;
  std::vector<std::uint32_t> entry_of;
  // The events of each entry that has some, as evaluated, and the same in
  // entry order.
  std::vector<EventRun> runs;
  std::vector<ProximityEvent> events;
  // The large bodies' hits, bucketed by probe as `large_first` says.
  std::vector<ProximityHit> large_hits;
  std::vector<ProximityHit> large_bucketed;
  std::vector<std::uint32_t> large_first;
  std::vector<std::uint32_t> large_next;
  // One probe's hits, and its next set.
  std::vector<ProximityHit> merged;
  std::vector<ProximityObject> after;
  std::vector<Aabb<D>> boxes;
};

template <int D>
struct ProximityData {
  ProximityOptions options;
  std::map<std::uint64_t, ProximityEntry<D>> zones;
  std::map<std::uint64_t, ProximityEntry<D>> observers;
  std::int64_t last_tick = -1;
  BodyIndex<D> body_index;
  // Reused by every evaluation (capacity kept). The probe tree finds the
  // probes near each body too large for the grid.
  ProximityGrid<D> grid;
  broadphase::Bvh<D> probe_tree =
      broadphase::Bvh<D>::Create(
          {.method = broadphase::BvhBuildMethod::kMorton, .max_leaf_size = 4})
          .value();
  typename broadphase::Bvh<D>::BuildScratch build_scratch;
  ProximityScratch<D> scratch;
};

// Evaluates every entry against the newest tick of `data`, appends the
// events (ordered as ProximityTick says) and replaces each entry's set.
template <int D>
ProximityStats RunProximityPass(const SnapshotData<D>& data,
                                ProximityData<D>& state, std::int64_t tick,
                                std::vector<ProximityEvent>* events);

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_PROXIMITY_DATA_H_
