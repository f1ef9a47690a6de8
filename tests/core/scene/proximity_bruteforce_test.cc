// Proximity against a brute-force reference: random moving scenes (2D and
// 3D; bodies and hitbox groups moving, teleporting, added and removed, with
// static bodies wider than the pass's grid cells and one far from the rest;
// zones and observers anchored to the world, to bodies and to groups),
// evaluated every tick; the reference tests every (zone or observer, body) pair
// with the cores' exact pair query, keeps its own sets with the hysteresis rule
// and derives its own events. The two event streams must be equal, event
// for event. World zones are also checked against SceneSnapshot::Overlap.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "core/scene/scene_test_util.h"
#include "gtest/gtest.h"
#include "sator/core/scene/proximity.h"
#include "sator/core/scene/scene.h"
#include "support/test_scale.h"

namespace sator::scene {
namespace {

using testing_util::Dim;
using testing_util::Rng;

template <int D>
ShapePtr<D> Round(float radius) {
  if constexpr (D == 2) {
    return std::make_shared<const Shape2>(Circle{radius});
  } else {
    return std::make_shared<const Shape3>(Sphere{radius});
  }
}

// A box of half extent `length` along x and `width` across.
template <int D>
ShapePtr<D> Long(float length, float width) {
  if constexpr (D == 2) {
    return std::make_shared<const Shape2>(Box2{{length, width}});
  } else {
    return std::make_shared<const Shape3>(Box3{{length, width, width}});
  }
}

// Where the far body and its zone are, on every axis.
constexpr float kFar = 4e4f;

// QueryFilter's rule, written out again.
template <int D>
bool Passes(const QueryFilter& filter, const BodyDesc<D>& body) {
  if ((body.layer & filter.mask) == 0) return false;
  if (filter.two_way && (filter.layer & body.mask) == 0) return false;
  if (filter.motion == MotionSelection::kStaticOnly &&
      body.motion != MotionType::kStatic) {
    return false;
  }
  if (filter.motion == MotionSelection::kDynamicOnly &&
      body.motion != MotionType::kDynamic) {
    return false;
  }
  const auto ids = filter.excluded_ids.sorted();
  if (std::find(ids.begin(), ids.end(), body.id) != ids.end()) return false;
  const auto groups = filter.excluded_groups.sorted();
  return body.group_id == 0 ||
         std::find(groups.begin(), groups.end(), body.group_id) == groups.end();
}

template <int D>
struct ReferenceEntry {
  ProximitySource source = ProximitySource::kZone;
  std::uint64_t id = 0;
  ShapePtr<D> shape;    // The zone's shape.
  float radius = 0.0f;  // Observers: r and h.
  float hysteresis = 0.0f;
  Pose<D> pose{};
  Anchor anchor;
  QueryFilter filter;
  ProximityReport report = ProximityReport::kPerBody;
  bool report_inside = false;
  std::set<ProximityObject> set;
};

template <int D>
class Reference {
 public:
  void Add(ReferenceEntry<D> entry) { entries_.push_back(std::move(entry)); }

  // The events of the scene's newest tick, in the documented order.
  std::vector<ProximityEvent> Evaluate(const SceneSnapshot<D>& scene) {
    const std::vector<BodyDesc<D>> bodies = scene.Bodies();
    std::map<std::uint64_t, Pose<D>> group_poses;
    for (const GroupDesc<D>& group : scene.Groups()) {
      group_poses[group.group_id] = group.pose;
    }
    std::vector<Pose<D>> world(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      world[i] = bodies[i].group_id == 0
                     ? bodies[i].pose
                     : Mul(group_poses.at(bodies[i].group_id), bodies[i].pose);
    }
    std::sort(entries_.begin(), entries_.end(),
              [](const ReferenceEntry<D>& a, const ReferenceEntry<D>& b) {
                return std::pair(a.source, a.id) < std::pair(b.source, b.id);
              });
    std::vector<ProximityEvent> events;
    for (ReferenceEntry<D>& entry : entries_) {
      std::optional<Pose<D>> anchor;
      if (entry.anchor.kind == AnchorKind::kWorld) anchor = Pose<D>{};
      if (entry.anchor.kind == AnchorKind::kGroup &&
          group_poses.contains(entry.anchor.id)) {
        anchor = group_poses[entry.anchor.id];
      }
      for (std::size_t i = 0; i < bodies.size(); ++i) {
        if (entry.anchor.kind == AnchorKind::kBody &&
            bodies[i].id == entry.anchor.id) {
          anchor = world[i];
        }
      }
      std::set<ProximityObject> within_inner;
      std::set<ProximityObject> within_outer;
      if (anchor.has_value()) {
        Pose<D> probe{};
        if (entry.source == ProximitySource::kObserver) {
          probe.position = anchor->position;
        } else {
          probe = Mul(*anchor, entry.pose);
        }
        for (std::size_t i = 0; i < bodies.size(); ++i) {
          const BodyDesc<D>& body = bodies[i];
          const bool is_anchor = (entry.anchor.kind == AnchorKind::kBody &&
                                  body.id == entry.anchor.id) ||
                                 (entry.anchor.kind == AnchorKind::kGroup &&
                                  body.group_id == entry.anchor.id);
          if (is_anchor || !Passes<D>(entry.filter, body)) continue;
          const ProximityObject object =
              entry.report == ProximityReport::kPerGroup && body.group_id != 0
                  ? ProximityObject{0, body.group_id}
                  : ProximityObject{body.id, body.group_id};
          if (entry.source == ProximitySource::kZone) {
            if (Dim<D>::Overlap(*entry.shape, probe, *body.shape, world[i])) {
              within_inner.insert(object);
            }
            continue;
          }
          if (Dim<D>::Overlap(*Round<D>(entry.radius), probe, *body.shape,
                              world[i])) {
            within_inner.insert(object);
          }
          if (Dim<D>::Overlap(*Round<D>(entry.radius + entry.hysteresis), probe,
                              *body.shape, world[i])) {
            within_outer.insert(object);
          }
        }
      }
      std::set<ProximityObject> next = within_inner;
      for (const ProximityObject& object : within_outer) {
        if (entry.set.contains(object)) next.insert(object);
      }
      std::set<ProximityObject> all = entry.set;
      all.insert(next.begin(), next.end());
      for (const ProximityObject& object : all) {
        const bool before = entry.set.contains(object);
        const bool after = next.contains(object);
        ProximityEventKind kind = ProximityEventKind::kInside;
        if (before && !after) kind = ProximityEventKind::kExit;
        if (!before && after) kind = ProximityEventKind::kEnter;
        if (kind == ProximityEventKind::kInside && !entry.report_inside) {
          continue;
        }
        events.push_back({scene.tick(), kind, entry.source, entry.id, object});
      }
      entry.set = std::move(next);
    }
    return events;
  }

 private:
  std::vector<ReferenceEntry<D>> entries_;
};

template <int D>
QueryFilter RandomFilter(Rng& rng, std::uint64_t max_id) {
  QueryFilter filter;
  if (rng.Chance(0.3f)) filter.mask = 1 | 2;
  if (rng.Chance(0.2f)) filter.motion = MotionSelection::kDynamicOnly;
  if (rng.Chance(0.2f)) {
    filter.excluded_ids = {static_cast<std::uint64_t>(rng.Int(1, max_id))};
  }
  if (rng.Chance(0.1f)) filter.excluded_groups = {1001};
  return filter;
}

template <typename T>
class ProximityBruteForceTest : public ::testing::Test {};
template <int N>
struct DimTag {
  static constexpr int kDim = N;
};
using Dims = ::testing::Types<DimTag<2>, DimTag<3>>;
TYPED_TEST_SUITE(ProximityBruteForceTest, Dims);

TYPED_TEST(ProximityBruteForceTest, EventStreamsEqualTheReference) {
  constexpr int D = TypeParam::kDim;
  constexpr float kHalf = 30.0f;
  const int ticks = sator::testing::ScaledCount(D == 2 ? 150 : 80);
  const int seeds = sator::testing::ScaledCount(D == 2 ? 4 : 2);
  std::map<ProximityEventKind, int> totals;
  std::int64_t wide_body_visits = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    Rng rng(static_cast<std::uint64_t>(seed) * 7919u);
    SceneOptions options;
    options.history_ticks = 4;
    auto scene = Scene<D>::Create(options).value();
    auto state = ProximityState<D>::Create().value();
    Reference<D> reference;

    // Bodies 1..kLoose loose, groups 1001..1008 with 2 or 3 parts each, a
    // few static bodies.
    constexpr std::uint64_t kLoose = 120;
    constexpr std::uint64_t kGroups = 8;
    std::uint64_t next_id = 1;
    std::vector<BodyDesc<D>> bodies;
    for (; next_id <= kLoose; ++next_id) {
      BodyDesc<D> body;
      body.id = next_id;
      body.motion =
          next_id % 12 == 0 ? MotionType::kStatic : MotionType::kDynamic;
      body.shape = Dim<D>::RandomShape(rng, body.motion == MotionType::kStatic);
      body.pose = Dim<D>::RandomPose(rng, kHalf);
      body.layer = std::uint64_t{1} << rng.Int(0, 2);
      bodies.push_back(body);
    }
    for (std::uint64_t g = 1; g <= kGroups; ++g) {
      const int parts = rng.Int(2, 3);
      for (int p = 0; p < parts; ++p, ++next_id) {
        BodyDesc<D> part;
        part.id = next_id;
        part.group_id = 1000 + g;
        part.part = p;
        part.shape = Dim<D>::RandomShape(rng, false);
        part.pose = Dim<D>::RandomPose(rng, 1.5f);
        bodies.push_back(part);
      }
    }
    // Static bodies wider than the pass's grid cells (met through its probe
    // tree), and one far from the rest (the grid's cells must grow).
    std::vector<BodyDesc<D>> wide(3);
    wide[0].shape = Round<D>(12.0f);
    wide[1].shape = Long<D>(15.0f, 1.0f);
    wide[1].pose.position[0] = 10.0f;
    wide[1].pose.position[1] = -10.0f;
    wide[2].shape = Round<D>(1.0f);
    for (int i = 0; i < D; ++i) wide[2].pose.position[i] = kFar;
    for (std::size_t i = 0; i < wide.size(); ++i) {
      wide[i].id = 900001 + i;
      bodies.push_back(wide[i]);
    }
    ASSERT_TRUE(scene->UpsertBodies(bodies).ok());
    std::vector<std::uint64_t> live;
    for (const BodyDesc<D>& body : bodies) live.push_back(body.id);
    std::map<std::uint64_t, Pose<D>> group_poses;
    for (std::uint64_t g = 1; g <= kGroups; ++g) {
      group_poses[1000 + g] = Dim<D>::RandomPose(rng, kHalf);
    }
    auto group_updates = [&] {
      std::vector<GroupPoseUpdate<D>> updates;
      for (const auto& [group, pose] : group_poses) {
        updates.push_back({group, pose, false});
      }
      return updates;
    };
    ASSERT_TRUE(scene->UpdatePoses(0, {}, group_updates()).ok());

    const SceneSnapshot<D> first = scene->Snapshot();
    std::map<std::uint64_t, ZoneDesc<D>> world_zones;
    for (std::uint64_t z = 1; z <= 14; ++z) {
      ReferenceEntry<D> entry;
      entry.source = ProximitySource::kZone;
      entry.id = z * 3;
      entry.shape = Dim<D>::RandomQueryShape(rng);
      if (rng.Chance(0.5f)) {
        entry.shape = Round<D>(rng.Uniform(1.0f, 8.0f));
      }
      const int anchor = rng.Int(0, 2);
      if (anchor == 0) {
        entry.pose = Dim<D>::RandomPose(rng, kHalf);
      } else {
        entry.pose = Dim<D>::RandomPose(rng, 3.0f);
        entry.anchor =
            anchor == 1
                ? Anchor{AnchorKind::kBody,
                         static_cast<std::uint64_t>(rng.Int(1, kLoose))}
                : Anchor{AnchorKind::kGroup, 1000 + static_cast<std::uint64_t>(
                                                        rng.Int(1, kGroups))};
      }
      entry.filter = RandomFilter<D>(rng, kLoose);
      entry.report = rng.Chance(0.5f) ? ProximityReport::kPerGroup
                                      : ProximityReport::kPerBody;
      entry.report_inside = rng.Chance(0.3f);
      ZoneDesc<D> zone;
      zone.id = entry.id;
      zone.shape = entry.shape;
      zone.pose = entry.pose;
      zone.anchor = entry.anchor;
      zone.filter = entry.filter;
      zone.report = entry.report;
      zone.report_inside = entry.report_inside;
      ASSERT_TRUE(state->AddZone(zone, first).ok());
      if (zone.anchor.kind == AnchorKind::kWorld &&
          zone.report == ProximityReport::kPerBody) {
        world_zones[zone.id] = zone;
      }
      // The stored pose is the validated one (normalised in 3D).
      if constexpr (D == 3) entry.pose = Dim<D>::Normalized(entry.pose);
      reference.Add(std::move(entry));
    }
    {
      // A world zone by the far body.
      ReferenceEntry<D> entry;
      entry.source = ProximitySource::kZone;
      entry.id = 999;
      entry.shape = Round<D>(3.0f);
      for (int i = 0; i < D; ++i) entry.pose.position[i] = kFar + 1.0f;
      ZoneDesc<D> zone;
      zone.id = entry.id;
      zone.shape = entry.shape;
      zone.pose = entry.pose;
      ASSERT_TRUE(state->AddZone(zone, first).ok());
      reference.Add(std::move(entry));
    }
    for (std::uint64_t o = 1; o <= 20; ++o) {
      ReferenceEntry<D> entry;
      entry.source = ProximitySource::kObserver;
      entry.id = o;
      entry.anchor =
          o % 4 == 0
              ? Anchor{AnchorKind::kGroup,
                       1000 + static_cast<std::uint64_t>(rng.Int(1, kGroups))}
              : Anchor{AnchorKind::kBody,
                       static_cast<std::uint64_t>(rng.Int(1, kLoose))};
      entry.radius = rng.Uniform(2.0f, 10.0f);
      entry.hysteresis = rng.Chance(0.2f) ? 0.0f : rng.Uniform(0.5f, 4.0f);
      entry.filter = RandomFilter<D>(rng, kLoose);
      entry.report = rng.Chance(0.5f) ? ProximityReport::kPerGroup
                                      : ProximityReport::kPerBody;
      ObserverDesc<D> observer;
      observer.id = entry.id;
      observer.anchor = entry.anchor;
      observer.radius = entry.radius;
      observer.hysteresis = entry.hysteresis;
      observer.filter = entry.filter;
      observer.report = entry.report;
      ASSERT_TRUE(state->AddObserver(observer, first).ok());
      reference.Add(std::move(entry));
    }

    std::map<std::uint64_t, Pose<D>> poses;
    for (const BodyDesc<D>& body : bodies) poses[body.id] = body.pose;
    for (int tick = 0; tick < ticks; ++tick) {
      if (tick > 0) {
        // Moves; a few teleports; a removal and an addition now and then.
        std::vector<PoseUpdate<D>> updates;
        for (const BodyDesc<D>& body : scene->Snapshot().Bodies()) {
          if (body.motion == MotionType::kStatic) continue;
          PoseUpdate<D> update;
          update.id = body.id;
          if (body.group_id != 0) {
            if (!rng.Chance(0.1f)) continue;
            update.pose = Dim<D>::Nudge(rng, body.pose, 0.2f);
          } else if (rng.Chance(0.03f)) {
            update.pose = Dim<D>::RandomPose(rng, kHalf);
            update.teleported = true;
          } else {
            update.pose = Dim<D>::Nudge(rng, body.pose, 1.0f);
          }
          updates.push_back(update);
        }
        for (auto& [group, pose] : group_poses) {
          pose = rng.Chance(0.03f) ? Dim<D>::RandomPose(rng, kHalf)
                                   : Dim<D>::Nudge(rng, pose, 1.0f);
        }
        ASSERT_TRUE(scene->UpdatePoses(tick, updates, group_updates()).ok());
        if (rng.Chance(0.3f) && live.size() > 20) {
          const std::size_t k = static_cast<std::size_t>(
              rng.Int(0, static_cast<int>(live.size()) - 1));
          const BodyDesc<D>* found = nullptr;
          const std::vector<BodyDesc<D>> now = scene->Snapshot().Bodies();
          for (const BodyDesc<D>& body : now) {
            if (body.id == live[k]) found = &body;
          }
          // Keep every group alive (a part is removed only if it has a
          // sibling), so that Groups() lists each group updated above.
          std::size_t siblings = 0;
          for (const BodyDesc<D>& body : now) {
            siblings += found != nullptr && found->group_id != 0 &&
                        body.group_id == found->group_id;
          }
          if (found != nullptr && (found->group_id == 0 || siblings > 1)) {
            ASSERT_TRUE(scene->RemoveBodies({{live[k]}}).ok());
            live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
          }
        }
        if (rng.Chance(0.3f)) {
          // A new body, or an earlier id back (an anchor may return).
          BodyDesc<D> body;
          body.id = rng.Chance(0.5f) ? next_id++
                                     : static_cast<std::uint64_t>(rng.Int(
                                           1, static_cast<int>(kLoose)));
          if (std::find(live.begin(), live.end(), body.id) == live.end()) {
            body.shape = Dim<D>::RandomShape(rng, false);
            body.pose = Dim<D>::RandomPose(rng, kHalf);
            ASSERT_TRUE(scene->UpsertBodies({{body}}).ok());
            live.push_back(body.id);
          }
        }
      }
      const SceneSnapshot<D> snapshot = scene->Snapshot();
      absl::StatusOr<ProximityTick> result = state->Evaluate(snapshot);
      ASSERT_TRUE(result.ok()) << result.status();
      const std::vector<ProximityEvent> expected = reference.Evaluate(snapshot);
      wide_body_visits += result->stats.tree.node_visits;
      ASSERT_EQ(result->events, expected)
          << "seed " << seed << " tick " << tick << ": "
          << result->events.size() << " events, expected " << expected.size();
      for (const ProximityEvent& event : expected) ++totals[event.kind];

      // World zones reporting per body hold what Overlap finds.
      for (const ProximitySet& set : state->CurrentSets()) {
        const auto zone = world_zones.find(set.source_id);
        if (set.source != ProximitySource::kZone || zone == world_zones.end()) {
          continue;
        }
        QueryOptions query;
        query.filter = zone->second.filter;
        query.max_hits = 4096;
        absl::StatusOr<QueryResult<D>> overlap =
            snapshot.Overlap(*zone->second.shape, zone->second.pose, query);
        ASSERT_TRUE(overlap.ok());
        std::vector<ProximityObject> hits;
        for (const QueryHit<D>& hit : overlap->hits) {
          hits.push_back({hit.body_id, hit.group_id});
        }
        std::sort(hits.begin(), hits.end());
        EXPECT_EQ(set.objects, hits) << "zone " << set.source_id;
      }
    }
  }
  EXPECT_GT(wide_body_visits, 0) << "no body was too wide for the grid";
  // The scenes are busy enough to exercise every kind (at the full counts;
  // a sanitizer's tenth of the ticks is there for memory faults).
  if (sator::testing::kUnderSanitizer) return;
  EXPECT_GT(totals[ProximityEventKind::kEnter], 200);
  EXPECT_GT(totals[ProximityEventKind::kExit], 200);
  EXPECT_GT(totals[ProximityEventKind::kInside], 50);
}

}  // namespace
}  // namespace sator::scene
