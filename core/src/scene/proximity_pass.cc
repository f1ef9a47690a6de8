// The proximity pass: every zone and observer of a ProximityState against
// the newest tick of a scene, all pairs in one pass over a uniform grid.
//
// Method:
//  1. Each entry's anchor is resolved to a pose (AnchorResolver) and the
//     entry becomes a probe: its shape at its world pose (an observer's is
//     the circle or sphere of radius r + h at its position), and its region,
//     where a body's position must lie, widened by the body's reach, for the
//     probe to count it.
//  2. The live bodies of the newest tick are gathered once and sorted into
//     a uniform grid (proximity_grid.h; Ericson, "Real-Time Collision
//     Detection", 2005, 7.1) whose cells are half the median probe's half
//     width; the few bodies that reach farther than a cell are kept aside.
//  3. Each probe, taken in the order of its centre's cell, visits the runs
//     of cells its region covers. A round probe (every observer, circle and
//     sphere zones) decides a pair from the squared distance, in double,
//     between its centre and the body's position against its radius and the
//     body's bound radius, and leaves to the exact narrow phase that
//     SceneSnapshot::Overlap uses only the pairs within a margin of the
//     boundary (about three times the cores' touching tolerance); any other
//     probe tests the body's padded sphere box against its own box, then the
//     narrow phase. Every pair passes the probe's filter and anchor
//     exclusion first. An observer's pair also tells whether the object is
//     within r. The bodies kept aside meet the probes through a BVH over the
//     probes' regions (sator/core/broadphase/bvh.h), with the same tests.
//  4. Each probe's hits are sorted by object and merged (a group is in when
//     any part is) with the entry's previous set, emitting the events as
//     they go: visible next = (within r) or (within r + h and visible now),
//     the hysteresis band of interest management; zones have no band.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "sator/core/aabb.h"
#include "sator/core/scene/proximity.h"
#include "scene/filter_accept.h"
#include "scene/proximity_data.h"
#include "scene/proximity_grid.h"
#include "scene/shape_ops.h"
#include "scene/snapshot_data.h"

namespace sator::scene::internal {

namespace {

template <int D>
using Probe = ProximityProbe<D>;
using Hit = ProximityHit;
template <int D>
using BodyInfo = ProximityBody<D>;

// A round probe decides a pair from the squared distance between its
// centre and the body's position (in double) where the answer is clear by
// a margin. The cores' touching tolerance is at most 1e-5 * sqrt(D) times
// the sum of the two shapes' largest |coordinate| (shape_ops.h); each
// side's `scale` (the sum of its |coordinates| and its radius) bounds that
// from above, and the margin, 5e-5 of their sum plus 1e-6, is about three
// times the tolerance (2.9 times in 3D). The margin splits between the two
// sides: the probe's reach is r + 5e-5 * its scale + 1e-6 and the body's
// round_reach b + 5e-5 * its scale, so the pair is clearly apart beyond their
// sum. It clearly overlaps within the probe's inside, r - 5e-5 * its scale -
// 1e-6, plus the body's inside_reach: the radius of a ball about the body's
// position that lies in its shape (circles, spheres and boxes;
// BodyRecord::inside_256ths) less the body's share of the margin, or, with
// no such ball, -round_reach (the whole bound ball inside the probe).
// Between the two the narrow phase decides; a different rounding of these
// sums moves a pair only between a clear answer and the narrow phase, which
// gives the same answer a margin away from the boundary.
template <int D>
double RoundScale(Vec<D> centre, float radius) {
  auto scale = static_cast<double>(radius);
  for (int i = 0; i < D; ++i) {
    scale += std::fabs(static_cast<double>(centre[i]));
  }
  return scale;
}

// The bounds of a round probe of `radius` whose scale is `scale`.
RoundBounds BoundsOf(float radius, double scale) {
  const double margin = 5e-5 * scale + 1e-6;
  return {static_cast<double>(radius) + margin,
          static_cast<double>(radius) - margin};
}

// Whether the pair, `squared` apart, is clearly apart, or clearly
// overlapping; when neither, the narrow phase decides.
template <int D>
bool Apart(double squared, const RoundBounds& bounds,
           const ProximityBody<D>& body) {
  const double outside = bounds.reach + body.round_reach;
  return squared > outside * outside;
}
template <int D>
bool Inside(double squared, const RoundBounds& bounds,
            const ProximityBody<D>& body) {
  const double inside = bounds.inside + body.inside_reach;
  return inside >= 0.0 && squared <= inside * inside;
}

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

// The float box holding [lo - widen, hi + widen] (each bound rounded
// outwards).
template <int D>
Aabb<D> OutwardBox(const std::array<double, D>& lo,
                   const std::array<double, D>& hi, double widen) {
  Aabb<D> box;
  for (int i = 0; i < D; ++i) {
    const double from = lo[i] - widen;
    const double to = hi[i] + widen;
    auto low = static_cast<float>(from);
    auto high = static_cast<float>(to);
    if (static_cast<double>(low) > from) {
      low = std::nextafter(low, -std::numeric_limits<float>::infinity());
    }
    if (static_cast<double>(high) < to) {
      high = std::nextafter(high, std::numeric_limits<float>::infinity());
    }
    box.min[i] = low;
    box.max[i] = high;
  }
  return box;
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
  ProximityScratch<D>& scratch = state.scratch;

  // ---- 1. Probes, in entry order (zones, then observers, by id), and
  // their regions.
  std::vector<ProximityEntry<D>*> entries;
  entries.reserve(state.zones.size() + state.observers.size());
  for (auto& [id, entry] : state.zones) entries.push_back(&entry);
  for (auto& [id, entry] : state.observers) entries.push_back(&entry);
  std::vector<Probe<D>>& probes = scratch.probes;
  probes.clear();
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
    probe.box = entry.round_radius > 0.0f
                    ? Pad(SphereBox<D>(probe.pose.position, entry.round_radius))
                    : Pad(ShapeOps<D>::Bounds(*entry.shape, probe.pose));
    probe_of[e] = static_cast<std::uint32_t>(probes.size());
    probes.push_back(probe);
  }
  const std::size_t probe_count = probes.size();
  scratch.outer.resize(probe_count);
  scratch.inner.resize(probe_count);
  scratch.region_low.resize(probe_count);
  scratch.region_high.resize(probe_count);
  scratch.sizes.resize(probe_count);
  for (std::size_t p = 0; p < probe_count; ++p) {
    const Probe<D>& probe = probes[p];
    if (probe.round_radius > 0.0f) {
      const double scale =
          RoundScale<D>(probe.pose.position, probe.round_radius);
      scratch.outer[p] = BoundsOf(probe.round_radius, scale);
      scratch.inner[p] = BoundsOf(probe.inner_radius, scale);
    }
    double half = 0.0;
    for (int i = 0; i < D; ++i) {
      if (probe.round_radius > 0.0f) {
        scratch.region_low[p][i] =
            probe.pose.position[i] - scratch.outer[p].reach;
        scratch.region_high[p][i] =
            probe.pose.position[i] + scratch.outer[p].reach;
      } else {
        scratch.region_low[p][i] = probe.box.min[i];
        scratch.region_high[p][i] = probe.box.max[i];
      }
      half = std::max(
          half, (scratch.region_high[p][i] - scratch.region_low[p][i]) / 2);
    }
    scratch.sizes[p] = half;
  }

  // ---- 2. The bodies of the newest tick, and the grid. A body's reach
  // bounds, along every axis, how far from a probe's region it can count:
  // its round_reach for round probes, its padded sphere box for others.
  std::vector<BodyInfo<D>>& bodies = scratch.bodies;
  std::vector<std::uint32_t>& large = scratch.large;
  std::vector<BodyInfo<D>>& moved = scratch.moved;
  bodies.clear();
  large.clear();
  moved.clear();
  if (probe_count > 0) {
    std::nth_element(scratch.sizes.begin(),
                     scratch.sizes.begin() + probe_count / 2,
                     scratch.sizes.end());
    const double cell = scratch.sizes[probe_count / 2] / 2;
    for (std::uint32_t slot = 0; slot < table.size(); ++slot) {
      const BodyRecord<D>& record = table[slot];
      if (record.incarnation == 0) continue;
      BodyInfo<D>& body = bodies.emplace_back();
      body.id = record.id;
      body.group_id = record.group_id;
      body.layer = record.layer;
      body.mask = record.mask;
      body.position = poses[slot].position;
      body.radius = record.radius;
      const double body_margin =
          5e-5 * RoundScale<D>(body.position, body.radius);
      body.round_reach = static_cast<double>(body.radius) + body_margin;
      body.inside_reach =
          record.inside_256ths > 0
              ? static_cast<double>(body.radius) * record.inside_256ths / 256 -
                    body_margin
              : -body.round_reach;
      body.slot = slot;
      body.motion = record.motion;
      const Aabb<D> box = Pad(SphereBox<D>(body.position, body.radius));
      body.reach = body.round_reach;
      for (int i = 0; i < D; ++i) {
        const double at = body.position[i];
        body.reach = std::max({body.reach, at - static_cast<double>(box.min[i]),
                               static_cast<double>(box.max[i]) - at});
      }
      if (body.reach > cell) {
        large.push_back(static_cast<std::uint32_t>(bodies.size() - 1));
      }
    }
    // The large bodies leave the grid (each swapped with the last).
    for (std::size_t n = large.size(); n-- > 0;) {
      const std::uint32_t index = large[n];
      moved.push_back(bodies[index]);
      bodies[index] = bodies.back();
      bodies.pop_back();
    }
    state.grid.Build(bodies, cell);
    // The grid's bodies in its order: a probe reads runs of memory.
    scratch.in_cells.resize(bodies.size());
    for (std::uint32_t k = 0; k < bodies.size(); ++k) {
      scratch.in_cells[k] = bodies[state.grid.Body(k)];
    }
  }
  const std::vector<BodyInfo<D>>& in_cells = scratch.in_cells;

  // ---- 3. The pairs.
  auto narrow = [&](const SceneShape<D>& shape, const Pose<D>& at,
                    std::uint32_t slot) {
    ++stats.narrow_tests;
    // Validated shapes and poses: the narrow phase cannot refuse them.
    return ShapeOps<D>::Overlap(shape, at, *table[slot].shape, poses[slot])
        .value_or(false);
  };
  auto add_hit = [](const Probe<D>& probe, std::uint32_t p,
                    const BodyInfo<D>& body, bool within_inner,
                    std::vector<Hit>* out) {
    const ProximityObject object =
        probe.report == ProximityReport::kPerGroup && body.group_id != 0
            ? ProximityObject{0, body.group_id}
            : ProximityObject{body.id, body.group_id};
    out->push_back({p, within_inner, object});
  };
  // A round probe and a body that is not Apart from it (`squared` apart).
  auto round_pair = [&](const Probe<D>& probe, std::uint32_t p,
                        const BodyInfo<D>& body, double squared,
                        std::vector<Hit>* out) {
    ++stats.candidate_pairs;
    if (!Accepts(probe, body, table) ||
        (!Inside<D>(squared, scratch.outer[p], body) &&
         !narrow(*probe.shape, probe.pose, body.slot))) {
      return;
    }
    // Observers: also whether the object is within r (used when it is not
    // visible yet; see step 4).
    bool within_inner = true;
    if (probe.inner != nullptr && !Inside<D>(squared, scratch.inner[p], body)) {
      within_inner = !Apart<D>(squared, scratch.inner[p], body) &&
                     narrow(*probe.inner, probe.pose, body.slot);
    }
    add_hit(probe, p, body, within_inner, out);
  };
  auto box_pair = [&](const Probe<D>& probe, std::uint32_t p,
                      const BodyInfo<D>& body, std::vector<Hit>* out) {
    ++stats.candidate_pairs;
    if (Accepts(probe, body, table) &&
        Overlaps(Pad(SphereBox<D>(body.position, body.radius)), probe.box) &&
        narrow(*probe.shape, probe.pose, body.slot)) {
      add_hit(probe, p, body, true, out);
    }
  };
  auto squared_distance = [](Vec<D> a, Vec<D> b) {
    double squared = 0.0;
    for (int i = 0; i < D; ++i) {
      const double t = static_cast<double>(a[i]) - static_cast<double>(b[i]);
      squared += t * t;
    }
    return squared;
  };

  // The large bodies first: each body's reach box against a tree of the
  // probes' regions (boxes rounded outwards to float). Their hits are
  // bucketed by probe (counting sort): probe p's are
  // [large_first[p], large_first[p + 1]) of large_bucketed.
  std::vector<Hit>& large_hits = scratch.large_hits;
  large_hits.clear();
  if (!moved.empty()) {
    std::vector<Aabb<D>>& boxes = scratch.boxes;
    boxes.resize(probe_count);
    for (std::size_t p = 0; p < probe_count; ++p) {
      boxes[p] =
          OutwardBox<D>(scratch.region_low[p], scratch.region_high[p], 0.0);
    }
    // Finite boxes (validated shapes and poses): Build cannot refuse them.
    (void)state.probe_tree.Build(boxes, &state.build_scratch);
    for (const BodyInfo<D>& body : moved) {
      std::array<double, D> at{};
      for (int i = 0; i < D; ++i) at[i] = body.position[i];
      stats.tree += state.probe_tree.Query(
          OutwardBox<D>(at, at, body.reach * (1.0 + kGridSlack)),
          [&](std::uint32_t p) {
            const Probe<D>& probe = probes[p];
            if (probe.round_radius <= 0.0f) {
              box_pair(probe, p, body, &large_hits);
              return true;
            }
            const double squared =
                squared_distance(probe.pose.position, body.position);
            if (!Apart<D>(squared, scratch.outer[p], body)) {
              round_pair(probe, p, body, squared, &large_hits);
            }
            return true;
          });
    }
  }
  std::vector<std::uint32_t>& large_first = scratch.large_first;
  std::vector<Hit>& large_bucketed = scratch.large_bucketed;
  large_first.assign(probe_count + 1, 0);
  for (const Hit& hit : large_hits) ++large_first[hit.probe + 1];
  for (std::size_t p = 0; p < probe_count; ++p) {
    large_first[p + 1] += large_first[p];
  }
  large_bucketed.resize(large_hits.size());
  std::vector<std::uint32_t>& next = scratch.large_next;
  next.assign(large_first.begin(), large_first.end());
  for (const Hit& hit : large_hits) large_bucketed[next[hit.probe]++] = hit;

  // ---- 4. Each entry's hits (the grid's, then the large bodies'), sorted,
  // merged with its previous set into the next one and the events, one
  // entry after another while its hits are fresh in the cache. The events
  // are put in entry order at the end.
  const std::size_t first_event = events->size();
  std::vector<ProximityObject>& after = scratch.after;
  std::vector<Hit>& merged = scratch.merged;
  // The events of each entry that has some: (entry, first, end).
  std::vector<EventRun>& runs = scratch.runs;
  runs.clear();
  auto update = [&](std::uint32_t e) {
    ProximityEntry<D>& entry = *entries[e];
    const std::size_t first = events->size();
    if (entry.report == ProximityReport::kPerBody) {
      // Every object is a body, once: body ids alone order them.
      std::sort(merged.begin(), merged.end(), [](const Hit& a, const Hit& b) {
        return a.object.body_id < b.object.body_id;
      });
    } else {
      std::sort(merged.begin(), merged.end(),
                [](const Hit& a, const Hit& b) { return a.object < b.object; });
    }
    auto emit = [&](ProximityEventKind kind, const ProximityObject& object) {
      events->push_back({tick, kind, entry.source, entry.id, object});
    };
    // Both ascending: an object visible now stays while within r + h, one
    // that is not must come within r.
    after.clear();
    auto before = entry.set.begin();
    for (auto it = merged.begin(); it != merged.end();) {
      const ProximityObject object = it->object;
      bool within_inner = false;
      for (; it != merged.end() && it->object == object; ++it) {
        within_inner |= it->within_inner;
      }
      for (; before != entry.set.end() && *before < object; ++before) {
        emit(ProximityEventKind::kExit, *before);
      }
      if (before != entry.set.end() && *before == object) {
        if (entry.report_inside) emit(ProximityEventKind::kInside, object);
        after.push_back(object);
        ++before;
      } else if (within_inner) {
        emit(ProximityEventKind::kEnter, object);
        after.push_back(object);
      }
    }
    for (; before != entry.set.end(); ++before) {
      emit(ProximityEventKind::kExit, *before);
    }
    entry.set.swap(after);
    if (events->size() > first) runs.push_back({e, first, events->size()});
  };
  // Entries without a probe (their anchor is gone) lose their whole set.
  std::vector<std::uint32_t>& entry_of = scratch.entry_of;
  entry_of.resize(probe_count);
  for (std::uint32_t e = 0; e < entries.size(); ++e) {
    if (probe_of[e] == kNoSlot) {
      merged.clear();
      update(e);
    } else {
      entry_of[probe_of[e]] = e;
    }
  }
  // The probes in the order of their centres' cells, so that probes taken
  // one after another read the same cells.
  std::vector<std::pair<std::int64_t, std::uint32_t>>& order = scratch.order;
  order.resize(probe_count);
  for (std::uint32_t p = 0; p < probe_count; ++p) {
    std::array<double, D> centre{};
    for (int i = 0; i < D; ++i) {
      centre[i] = (scratch.region_low[p][i] + scratch.region_high[p][i]) / 2;
    }
    order[p] = {state.grid.CellIndex(centre), p};
  }
  std::sort(order.begin(), order.end());
  std::array<const float*, D> coordinates{};
  for (int i = 0; i < D; ++i) coordinates[i] = state.grid.Coordinates(i);
  const double* round_reaches = state.grid.RoundReaches();
  for (const auto& cell_and_probe : order) {
    const std::uint32_t p = cell_and_probe.second;
    const Probe<D>& probe = probes[p];
    std::array<double, D> centre{};
    for (int i = 0; i < D; ++i) centre[i] = probe.pose.position[i];
    const double reach = scratch.outer[p].reach;
    merged.clear();
    state.grid.ForEachRun(
        scratch.region_low[p], scratch.region_high[p],
        [&](std::uint32_t first, std::uint32_t last) {
          if (probe.round_radius <= 0.0f) {
            for (std::uint32_t k = first; k < last; ++k) {
              box_pair(probe, p, in_cells[k], &merged);
            }
            return;
          }
          for (std::uint32_t k = first; k < last; ++k) {
            double squared = 0.0;
            for (int i = 0; i < D; ++i) {
              const double t =
                  static_cast<double>(coordinates[i][k]) - centre[i];
              squared += t * t;
            }
            const double outside = reach + round_reaches[k];
            // Apart, with the body's reach read from the grid's column.
            if (squared <= outside * outside) {
              round_pair(probe, p, in_cells[k], squared, &merged);
            }
          }
        });
    merged.insert(merged.end(), large_bucketed.begin() + large_first[p],
                  large_bucketed.begin() + large_first[p + 1]);
    update(entry_of[p]);
  }
  // The runs in entry order (zones, then observers, each by id); each run
  // is already by object.
  std::sort(runs.begin(), runs.end(), [](const EventRun& a, const EventRun& b) {
    return a.entry < b.entry;
  });
  std::vector<ProximityEvent>& ordered = scratch.events;
  ordered.clear();
  for (const EventRun& run : runs) {
    ordered.insert(ordered.end(),
                   events->begin() + static_cast<std::ptrdiff_t>(run.first),
                   events->begin() + static_cast<std::ptrdiff_t>(run.end));
  }
  std::copy(ordered.begin(), ordered.end(),
            events->begin() + static_cast<std::ptrdiff_t>(first_event));
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
