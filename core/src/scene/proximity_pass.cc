// The proximity pass: every zone and observer of a ProximityState against
// the newest tick of a scene, in one traversal of the broad phase.
//
// Method:
//  1. Each entry's anchor is resolved to a pose (AnchorResolver) and the
//     entry becomes a probe: its shape at its world pose (an observer's is
//     the circle or sphere of radius r + h at its position) and the probe's
//     padded box.
//  2. A BVH is built over the probe boxes (Morton LBVH, sator/core/
//     broadphase/bvh.h) and traversed simultaneously with each of the
//     scene's trees (Bvh::QueryPairs: Ericson, "Real-Time Collision
//     Detection", 2005, 6.3.3), giving every (probe, body) pair whose boxes
//     meet: the all-pairs pass. Bodies near a probe only at other ticks of
//     the history are dropped with the tree's newest-tick boxes.
//  3. Each pair passes the probe's filter and anchor exclusion, then the
//     bounding-sphere box test and the exact narrow phase that
//     SceneSnapshot::Overlap uses. An observer's pair also runs the radius-r
//     test when the object is not visible yet: visible next = (within r) or
//     (within r + h and visible now), the hysteresis band of interest
//     management.
//  4. The hits are bucketed by probe (counting sort), each bucket sorted by
//     object and merged (a group is in when any part is), and diffed with
//     the entry's previous set (one merge of two sorted lists) into ENTER,
//     EXIT and INSIDE events.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "sator/core/aabb.h"
#include "sator/core/scene/proximity.h"
#include "scene/filter_accept.h"
#include "scene/proximity_data.h"
#include "scene/shape_ops.h"
#include "scene/snapshot_data.h"

namespace sator::scene::internal {

namespace {

template <int D>
struct Probe {
  ProximityEntry<D>* entry = nullptr;
  Pose<D> pose{};
  Aabb<D> box{};
};

// A (probe, body) pair from the broad phase.
struct Candidate {
  std::uint32_t probe;
  std::uint32_t slot;
};

// A body that meets a probe: the object it counts as, and for observers
// whether it is within r too.
struct Hit {
  std::uint32_t probe;
  bool within_inner;
  ProximityObject object;
};

template <int D>
ProximityObject ObjectOf(const BodyRecord<D>& record, ProximityReport report) {
  if (report == ProximityReport::kPerGroup && record.group_id != 0) {
    return {0, record.group_id};
  }
  return {record.id, record.group_id};
}

template <int D>
bool IsAnchor(const Anchor& anchor, const BodyRecord<D>& record) {
  switch (anchor.kind) {
    case AnchorKind::kWorld:
      return false;
    case AnchorKind::kBody:
      return record.id == anchor.id;
    case AnchorKind::kGroup:
      return record.group_id == anchor.id;
  }
  return false;
}

// Appends the events from `before` to `after` (both ascending).
void Diff(std::int64_t tick, ProximitySource source, std::uint64_t id,
          bool report_inside, const std::vector<ProximityObject>& before,
          const std::vector<ProximityObject>& after,
          std::vector<ProximityEvent>* events) {
  auto emit = [&](ProximityEventKind kind, const ProximityObject& object) {
    events->push_back({tick, kind, source, id, object});
  };
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < before.size() || j < after.size()) {
    if (j == after.size() || (i < before.size() && before[i] < after[j])) {
      emit(ProximityEventKind::kExit, before[i++]);
    } else if (i == before.size() || after[j] < before[i]) {
      emit(ProximityEventKind::kEnter, after[j++]);
    } else {
      if (report_inside) emit(ProximityEventKind::kInside, after[j]);
      ++i;
      ++j;
    }
  }
}

}  // namespace

template <int D>
std::optional<Pose<D>> AnchorResolver<D>::Resolve(const Anchor& anchor,
                                                  std::uint32_t* cached_slot) {
  const Frame<D>& frame = data_.frames.back();
  const BodyTable<D>& table = *frame.table;
  auto live = [&](std::uint32_t slot) -> const BodyRecord<D>* {
    if (slot >= table.size() || table[slot].incarnation == 0) return nullptr;
    return &table[slot];
  };
  switch (anchor.kind) {
    case AnchorKind::kWorld:
      return Pose<D>{};
    case AnchorKind::kBody: {
      const BodyRecord<D>* record = live(*cached_slot);
      if (record == nullptr || record->id != anchor.id) {
        if (!indexed_) {
          indexed_ = true;
          body_slots_.clear();
          for (std::uint32_t slot = 0; slot < table.size(); ++slot) {
            if (table[slot].incarnation != 0) {
              body_slots_.emplace_back(table[slot].id, slot);
            }
          }
          std::sort(body_slots_.begin(), body_slots_.end());
        }
        auto it = std::lower_bound(
            body_slots_.begin(), body_slots_.end(),
            std::pair<std::uint64_t, std::uint32_t>{anchor.id, 0});
        if (it == body_slots_.end() || it->first != anchor.id) {
          *cached_slot = kNoSlot;
          return std::nullopt;
        }
        *cached_slot = it->second;
      }
      return (*frame.poses)[*cached_slot];
    }
    case AnchorKind::kGroup: {
      const BodyRecord<D>* record = live(*cached_slot);
      if (record == nullptr || record->group_id != anchor.id) {
        *cached_slot = kNoSlot;
        auto it = data_.group_slots->find(anchor.id);
        if (it == data_.group_slots->end()) return std::nullopt;
        for (const std::uint32_t slot : it->second) {
          const BodyRecord<D>* part = live(slot);
          if (part != nullptr && part->group_id == anchor.id) {
            *cached_slot = slot;
            break;
          }
        }
        if (*cached_slot == kNoSlot) return std::nullopt;
      }
      return frame.groups->group[*cached_slot];
    }
  }
  return std::nullopt;
}

template <int D>
ProximityStats RunProximityPass(const SnapshotData<D>& data,
                                ProximityData<D>& state, std::int64_t tick,
                                std::vector<ProximityEvent>* events) {
  ProximityStats stats;
  const Frame<D>& frame = data.frames.back();
  const BodyTable<D>& table = *frame.table;
  const std::vector<Pose<D>>& poses = *frame.poses;

  // ---- 1. Probes, in entry order (zones, then observers, by id).
  std::vector<ProximityEntry<D>*> entries;
  entries.reserve(state.zones.size() + state.observers.size());
  for (auto& [id, entry] : state.zones) entries.push_back(&entry);
  for (auto& [id, entry] : state.observers) entries.push_back(&entry);
  std::vector<Probe<D>> probes;
  probes.reserve(entries.size());
  // The probe index of each entry, or kNoSlot when its anchor is absent.
  std::vector<std::uint32_t> probe_of(entries.size(), kNoSlot);
  AnchorResolver<D> resolver(data);
  for (std::size_t e = 0; e < entries.size(); ++e) {
    ProximityEntry<D>& entry = *entries[e];
    const std::optional<Pose<D>> anchor =
        resolver.Resolve(entry.anchor, &entry.anchor_slot);
    if (!anchor.has_value()) continue;
    Probe<D> probe;
    probe.entry = &entry;
    if (entry.source == ProximitySource::kObserver) {
      probe.pose.position = anchor->position;
    } else {
      probe.pose = entry.anchor.kind == AnchorKind::kWorld
                       ? entry.pose
                       : Mul(*anchor, entry.pose);
    }
    probe.box = Pad(ShapeOps<D>::Bounds(*entry.shape, probe.pose));
    probe_of[e] = static_cast<std::uint32_t>(probes.size());
    probes.push_back(probe);
  }

  // ---- 2. The all-pairs pass: the probe tree against each scene tree.
  std::vector<Candidate> candidates;
  if (!probes.empty()) {
    std::vector<Aabb<D>> boxes(probes.size());
    for (std::size_t p = 0; p < probes.size(); ++p) boxes[p] = probes[p].box;
    // Finite boxes (validated shapes and poses): Build cannot refuse them.
    (void)state.probe_tree.Build(boxes, &state.build_scratch);
    const std::span<const std::uint32_t> probe_ids = state.probe_tree.LeafIds();
    for (const SlotTree<D>* tree : {&data.static_tree, &data.dynamic_tree}) {
      if (tree->bvh == nullptr) continue;
      const std::span<const std::uint32_t> body_ids = tree->bvh->LeafIds();
      const std::vector<std::uint32_t>& slots = *tree->slots;
      const Aabb<D>* current = tree->current_boxes != nullptr
                                   ? tree->current_boxes->data()
                                   : nullptr;
      stats.tree += state.probe_tree.QueryPairs(
          *tree->bvh, [&](std::uint32_t leaf_a, std::uint32_t leaf_b) {
            const std::uint32_t probe = probe_ids[leaf_a];
            if (current != nullptr &&
                !Overlaps(current[leaf_b], probes[probe].box)) {
              return true;
            }
            candidates.push_back({probe, slots[body_ids[leaf_b]]});
            return true;
          });
    }
  }
  stats.candidate_pairs = static_cast<std::int64_t>(candidates.size());

  // ---- 3. Filters and the narrow phase.
  std::vector<Hit> hits;
  for (const Candidate& candidate : candidates) {
    if (candidate.slot >= table.size()) continue;
    const BodyRecord<D>& record = table[candidate.slot];
    if (record.incarnation == 0) continue;
    const Probe<D>& probe = probes[candidate.probe];
    const ProximityEntry<D>& entry = *probe.entry;
    if (IsAnchor(entry.anchor, record) ||
        !FilterAccepts(entry.filter, record)) {
      continue;
    }
    const Pose<D>& pose = poses[candidate.slot];
    if (!Overlaps(Pad(SphereBox<D>(pose.position, record.radius)), probe.box)) {
      continue;
    }
    ++stats.narrow_tests;
    // Validated shapes and poses: the narrow phase cannot refuse them.
    if (!ShapeOps<D>::Overlap(*entry.shape, probe.pose, *record.shape, pose)
             .value_or(false)) {
      continue;
    }
    const ProximityObject object = ObjectOf(record, entry.report);
    // Hysteresis: an object visible now stays while within r + h; one that
    // is not must come within r.
    bool within_inner = true;
    if (entry.inner != nullptr &&
        !std::binary_search(entry.set.begin(), entry.set.end(), object)) {
      ++stats.narrow_tests;
      within_inner =
          ShapeOps<D>::Overlap(*entry.inner, probe.pose, *record.shape, pose)
              .value_or(false);
    }
    hits.push_back({candidate.probe, within_inner, object});
  }

  // ---- 4. Bucket by probe, merge, diff.
  std::vector<std::uint32_t> begin(probes.size() + 1, 0);
  for (const Hit& hit : hits) ++begin[hit.probe + 1];
  for (std::size_t p = 0; p < probes.size(); ++p) begin[p + 1] += begin[p];
  std::vector<Hit> bucketed(hits.size());
  {
    std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
    for (const Hit& hit : hits) bucketed[next[hit.probe]++] = hit;
  }
  std::vector<ProximityObject> after;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    ProximityEntry<D>& entry = *entries[e];
    after.clear();
    if (const std::uint32_t p = probe_of[e]; p != kNoSlot) {
      const auto first = bucketed.begin() + begin[p];
      const auto last = bucketed.begin() + begin[p + 1];
      std::sort(first, last,
                [](const Hit& a, const Hit& b) { return a.object < b.object; });
      for (auto it = first; it != last;) {
        const ProximityObject object = it->object;
        bool within_inner = false;
        for (; it != last && it->object == object; ++it) {
          within_inner |= it->within_inner;
        }
        // Objects visible before count as within r (step 3).
        if (within_inner) after.push_back(object);
      }
    }
    Diff(tick, entry.source, entry.id, entry.report_inside, entry.set, after,
         events);
    entry.set.assign(after.begin(), after.end());
  }
  return stats;
}

template class AnchorResolver<2>;
template class AnchorResolver<3>;
template ProximityStats RunProximityPass<2>(const SnapshotData<2>&,
                                            ProximityData<2>&, std::int64_t,
                                            std::vector<ProximityEvent>*);
template ProximityStats RunProximityPass<3>(const SnapshotData<3>&,
                                            ProximityData<3>&, std::int64_t,
                                            std::vector<ProximityEvent>*);

}  // namespace sator::scene::internal
