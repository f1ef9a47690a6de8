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
//  3. Each pair is decided as the traversal hands it over, with both sides
//     read in leaf order (the probes copied into the probe tree's order, the
//     bodies gathered once per tick into each scene tree's), so a pair of
//     leaves reads two runs of contiguous memory. Each pair passes the
//     probe's filter and anchor exclusion, then the
//     bounding-sphere box test and the exact narrow phase that
//     SceneSnapshot::Overlap uses; a round probe (every observer, circle and
//     sphere zones) first compares the distance to the body's position, in
//     double, with its radius and the body's bound radius, and leaves to the
//     narrow phase only the pairs within a margin of the boundary (three
//     times the cores' touching tolerance). An observer's pair also tells
//     whether the object is within r.
//  4. The hits are bucketed by probe (counting sort), each bucket sorted by
//     object and merged (a group is in when any part is) with the entry's
//     previous set: visible next = (within r) or (within r + h and visible
//     now), the hysteresis band of interest management; zones have no band.
//     The two sorted sets are then diffed into ENTER, EXIT and INSIDE
//     events.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
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
using Probe = ProximityProbe<D>;
using Hit = ProximityHit;

// A round probe against a body, decided from the squared distance between
// the probe's centre and the body's position (in double) where the answer
// is clear by a margin. The cores' touching tolerance is at most
// 1e-5 * sqrt(D) times the sum of the two shapes' largest |coordinate|
// (shape_ops.h); each side's `scale` (the sum of its |coordinates| and its
// radius) bounds that from above, and the margin, 5e-5 of their sum, is
// three times the tolerance.
struct RoundDistance {
  double squared;
  double margin;
};
template <int D>
double RoundScale(Vec<D> centre, float radius) {
  auto scale = static_cast<double>(radius);
  for (int i = 0; i < D; ++i) {
    scale += std::fabs(static_cast<double>(centre[i]));
  }
  return scale;
}
template <int D>
RoundDistance DistanceOf(Vec<D> c, double c_scale, Vec<D> p, double p_scale) {
  double squared = 0.0;
  for (int i = 0; i < D; ++i) {
    const double t = static_cast<double>(p[i]) - static_cast<double>(c[i]);
    squared += t * t;
  }
  return {squared, 5e-5 * (c_scale + p_scale) + 1e-6};
}

// A round probe of radius r against a body whose shape lies in the ball of
// radius b about its position: 1 when the ball is inside the probe (so is
// the shape: they overlap), 0 when it is outside, -1 when the narrow phase
// must decide.
inline int RoundTest(const RoundDistance& distance, float r, float b) {
  const double inside = static_cast<double>(r) - distance.margin - b;
  if (inside >= 0.0 && distance.squared <= inside * inside) return 1;
  const double outside = static_cast<double>(r) + distance.margin + b;
  if (distance.squared > outside * outside) return 0;
  return -1;
}

template <int D>
using BodyInfo = ProximityBody<D>;

// The probe's anchor exclusion and filter (FilterAccepts, inline unless the
// filter has exclusion lists).
template <int D>
bool Accepts(const Probe<D>& probe, const BodyInfo<D>& body,
             const BodyTable<D>& table) {
  switch (probe.anchor.kind) {
    case AnchorKind::kWorld:
      break;
    case AnchorKind::kBody:
      if (body.id == probe.anchor.id) return false;
      break;
    case AnchorKind::kGroup:
      if (body.group_id == probe.anchor.id) return false;
      break;
  }
  if (probe.exclusions != nullptr) {
    return FilterAccepts(*probe.exclusions, table[body.slot]);
  }
  return (body.layer & probe.mask) != 0 &&
         (!probe.two_way || (probe.layer & body.mask) != 0) &&
         (probe.motion != MotionSelection::kStaticOnly ||
          body.motion == MotionType::kStatic) &&
         (probe.motion != MotionSelection::kDynamicOnly ||
          body.motion == MotionType::kDynamic);
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
        BodyIndex<D>& index = *index_;
        if (index.table.lock() != frame.table) {
          index.table = frame.table;
          index.slots.clear();
          for (std::uint32_t slot = 0; slot < table.size(); ++slot) {
            if (table[slot].incarnation != 0) {
              index.slots.emplace_back(table[slot].id, slot);
            }
          }
          std::sort(index.slots.begin(), index.slots.end());
        }
        auto it = std::lower_bound(
            index.slots.begin(), index.slots.end(),
            std::pair<std::uint64_t, std::uint32_t>{anchor.id, 0});
        if (it == index.slots.end() || it->first != anchor.id) {
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
  AnchorResolver<D> resolver(data, &state.body_index);
  for (std::size_t e = 0; e < entries.size(); ++e) {
    ProximityEntry<D>& entry = *entries[e];
    const std::optional<Pose<D>> anchor =
        resolver.Resolve(entry.anchor, &entry.anchor_slot);
    if (!anchor.has_value()) continue;
    Probe<D> probe;
    probe.shape = entry.shape.get();
    probe.inner = entry.inner.get();
    probe.layer = entry.filter.layer;
    probe.mask = entry.filter.mask;
    probe.two_way = entry.filter.two_way;
    probe.motion = entry.filter.motion;
    if (!entry.filter.excluded_ids.empty() ||
        !entry.filter.excluded_groups.empty()) {
      probe.exclusions = &entry.filter;
    }
    probe.anchor = entry.anchor;
    probe.round_radius = entry.round_radius;
    probe.inner_radius = entry.inner_radius;
    probe.report = entry.report;
    if (entry.source == ProximitySource::kObserver) {
      probe.pose.position = anchor->position;
    } else {
      probe.pose = entry.anchor.kind == AnchorKind::kWorld
                       ? entry.pose
                       : Mul(*anchor, entry.pose);
    }
    if (entry.round_radius > 0.0f) {
      probe.round_scale =
          RoundScale<D>(probe.pose.position, entry.round_radius);
      probe.box = Pad(SphereBox<D>(probe.pose.position, entry.round_radius));
    } else {
      probe.box = Pad(ShapeOps<D>::Bounds(*entry.shape, probe.pose));
    }
    probe_of[e] = static_cast<std::uint32_t>(probes.size());
    probes.push_back(probe);
  }

  // ---- 2 and 3. The all-pairs pass: the probe tree against each scene
  // tree, each pair decided as the traversal hands it over. Both sides are
  // read in leaf order: the probes are copied into the probe tree's order
  // and each scene tree's bodies are gathered once into its leaf order
  // (BodyInfo), so a pair of leaves reads two runs of contiguous memory and
  // a body's record is read once per tick, not once per probe it meets.
  ProximityScratch& scratch = state.scratch;
  std::vector<Hit>& hits = scratch.hits;
  hits.clear();
  auto narrow = [&](const SceneShape<D>& shape, const Pose<D>& at,
                    std::uint32_t slot) {
    ++stats.narrow_tests;
    // Validated shapes and poses: the narrow phase cannot refuse them.
    return ShapeOps<D>::Overlap(shape, at, *table[slot].shape, poses[slot])
        .value_or(false);
  };
  // One (probe, body) pair: whether the body counts for the probe and as
  // which object, appended to `hits`.
  auto test_pair = [&](const Probe<D>& probe, std::uint32_t probe_index,
                       const BodyInfo<D>& body) {
    ++stats.candidate_pairs;
    if (!Accepts(probe, body, table)) return;
    bool within = false;
    // Observers: also whether the object is within r (used when it
    // is not visible yet; see step 4).
    bool within_inner = true;
    if (probe.round_radius > 0.0f) {
      const RoundDistance distance = DistanceOf<D>(
          probe.pose.position, probe.round_scale, body.position, body.scale);
      const int outer = RoundTest(distance, probe.round_radius, body.radius);
      within =
          outer >= 0 ? outer == 1 : narrow(*probe.shape, probe.pose, body.slot);
      if (within && probe.inner != nullptr) {
        const int inner = RoundTest(distance, probe.inner_radius, body.radius);
        within_inner = inner >= 0 ? inner == 1
                                  : narrow(*probe.inner, probe.pose, body.slot);
      }
    } else {
      within =
          Overlaps(Pad(SphereBox<D>(body.position, body.radius)), probe.box) &&
          narrow(*probe.shape, probe.pose, body.slot);
    }
    if (!within) return;
    const ProximityObject object =
        probe.report == ProximityReport::kPerGroup && body.group_id != 0
            ? ProximityObject{0, body.group_id}
            : ProximityObject{body.id, body.group_id};
    hits.push_back({probe_index, within_inner, object});
  };
  if (!probes.empty()) {
    std::vector<Aabb<D>> boxes(probes.size());
    for (std::size_t p = 0; p < probes.size(); ++p) boxes[p] = probes[p].box;
    // Finite boxes (validated shapes and poses): Build cannot refuse them.
    (void)state.probe_tree.Build(boxes, &state.build_scratch);
    const std::span<const std::uint32_t> probe_ids = state.probe_tree.LeafIds();
    std::vector<Probe<D>>& ordered = state.scratch_probes;
    ordered.resize(probe_ids.size());
    for (std::size_t k = 0; k < probe_ids.size(); ++k) {
      ordered[k] = probes[probe_ids[k]];
    }
    std::vector<BodyInfo<D>>& info = state.scratch_bodies;
    for (const SlotTree<D>* tree : {&data.static_tree, &data.dynamic_tree}) {
      if (tree->bvh == nullptr) continue;
      const std::span<const std::uint32_t> body_ids = tree->bvh->LeafIds();
      const std::vector<std::uint32_t>& slots = *tree->slots;
      // The live bodies behind each leaf (a group proxy has several):
      // info[leaf_first[k], leaf_first[k + 1]).
      std::vector<std::uint32_t>& leaf_first = state.scratch_leaf_first;
      leaf_first.resize(body_ids.size() + 1);
      info.clear();
      for (std::size_t k = 0; k < body_ids.size(); ++k) {
        leaf_first[k] = static_cast<std::uint32_t>(info.size());
        for (const std::uint32_t slot : ProxySlots(*tree, slots[body_ids[k]])) {
          // Slots beyond the newest table held bodies only at older ticks.
          if (slot >= table.size() || table[slot].incarnation == 0) continue;
          const BodyRecord<D>& record = table[slot];
          BodyInfo<D>& body = info.emplace_back();
          body.id = record.id;
          body.group_id = record.group_id;
          body.layer = record.layer;
          body.mask = record.mask;
          body.position = poses[slot].position;
          body.radius = record.radius;
          body.scale = RoundScale<D>(body.position, body.radius);
          body.slot = slot;
          body.motion = record.motion;
        }
      }
      leaf_first[body_ids.size()] = static_cast<std::uint32_t>(info.size());
      const Aabb<D>* current = tree->current_boxes != nullptr
                                   ? tree->current_boxes->data()
                                   : nullptr;
      stats.tree += state.probe_tree.QueryPairs(
          *tree->bvh, [&](std::uint32_t leaf_a, std::uint32_t leaf_b) {
            const Probe<D>& probe = ordered[leaf_a];
            if (current != nullptr && !Overlaps(current[leaf_b], probe.box)) {
              return true;
            }
            for (std::uint32_t b = leaf_first[leaf_b];
                 b < leaf_first[leaf_b + 1]; ++b) {
              test_pair(probe, probe_ids[leaf_a], info[b]);
            }
            return true;
          });
    }
  }
  std::vector<std::uint32_t>& counts = scratch.counts;

  // ---- 4. Bucket by probe, merge, diff.
  counts.assign(probes.size() + 1, 0);
  for (const Hit& hit : hits) ++counts[hit.probe + 1];
  for (std::size_t p = 0; p < probes.size(); ++p) counts[p + 1] += counts[p];
  std::vector<Hit>& bucketed = scratch.bucketed;
  bucketed.resize(hits.size());
  for (const Hit& hit : hits) bucketed[counts[hit.probe]++] = hit;
  // counts[p] is now the end of bucket p (and the start of bucket p + 1).
  std::vector<ProximityObject>& after = scratch.after;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    ProximityEntry<D>& entry = *entries[e];
    after.clear();
    if (const std::uint32_t p = probe_of[e]; p != kNoSlot) {
      const auto first = bucketed.begin() + (p == 0 ? 0 : counts[p - 1]);
      const auto last = bucketed.begin() + counts[p];
      std::sort(first, last,
                [](const Hit& a, const Hit& b) { return a.object < b.object; });
      // Merged with the previous set (both ascending): an object visible
      // now stays while within r + h, one that is not must come within r.
      auto before = entry.set.begin();
      for (auto it = first; it != last;) {
        const ProximityObject object = it->object;
        bool within_inner = false;
        for (; it != last && it->object == object; ++it) {
          within_inner |= it->within_inner;
        }
        while (before != entry.set.end() && *before < object) ++before;
        const bool visible = before != entry.set.end() && *before == object;
        if (within_inner || visible) after.push_back(object);
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
