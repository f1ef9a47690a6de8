// The broad phase of hitbox groups against a scan of every part: random 2D
// and 3D scenes of groups whose poses wander, turn and teleport, whose parts
// are animated, added, removed and moved between groups, queried at random
// rewinds (with fractions) by every query kind, with and without excluded
// groups.
//
// The reference takes each group's parts as SceneSnapshot::GroupParts gives
// them (their poses at the query's time, without the tree, the group's
// coarse bound or the parts' local boxes) and runs the cores' pair query on
// every one, so the set of bodies hit must be the scene's exactly.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/scene/scene_test_util.h"
#include "gtest/gtest.h"
#include "sator/core/scene/scene.h"
#include "support/test_scale.h"

namespace sator::scene {
namespace {

using testing_util::Dim;
using testing_util::Rng;
using testing_util::RunOnScene;

constexpr int kGroups = 6;
constexpr int kMaxHits = 256;

using Kind = testing_util::QueryKind;
template <int D>
using Query = testing_util::QueryCase<D>;

// Whether the reference's pair query finds `part`.
template <int D>
bool ReferenceHits(const Query<D>& q, const SceneShape<D>& part,
                   const Pose<D>& at) {
  switch (q.kind) {
    case Kind::kOverlap:
      return Dim<D>::Overlap(*q.shape, q.pose, part, at);
    case Kind::kContacts:
      return Dim<D>::Contact(*q.shape, q.pose, part, at).overlapping;
    case Kind::kSweep:
      return Dim<D>::Sweep(*q.shape, q.pose, q.vector, part, at).outcome !=
             SweepOutcome::kMiss;
    case Kind::kRay:
      return Dim<D>::RayCast(part, at,
                             Ray<D>{q.pose.position, q.vector, q.max_distance})
          .hit;
    case Kind::kPoint: {
      Vec<D> direction{};
      direction[0] = 1.0f;
      float scale = 0.0f;
      for (int i = 0; i < D; ++i) {
        scale = std::max(scale, std::fabs(q.pose.position[i]));
      }
      const RayResult<D> r = Dim<D>::RayCast(
          part, at, Ray<D>{q.pose.position, direction, 1e-6f * (1.0f + scale)});
      return r.hit && r.started_inside;
    }
  }
  return false;
}

// The writer's side of the test: which part is in which group, and its
// local pose.
template <int D>
struct PartModel {
  std::uint64_t id = 0;
  std::uint64_t group = 0;
  ShapePtr<D> shape;
  Pose<D> local{};
};

template <int D>
BodyDesc<D> Desc(const PartModel<D>& part) {
  BodyDesc<D> body;
  body.id = part.id;
  body.group_id = part.group;
  body.part = static_cast<std::int32_t>(part.id % 7);
  body.shape = part.shape;
  body.pose = part.local;
  body.motion = MotionType::kDynamic;
  return body;
}

template <int D>
Query<D> RandomQuery(Rng& rng, std::int64_t oldest, std::int64_t newest) {
  constexpr float kWorld = D == 2 ? 8.0f : 5.0f;
  Query<D> q;
  q.kind = static_cast<Kind>(rng.Int(0, 4));
  q.shape = Dim<D>::RandomQueryShape(rng);
  q.pose = Dim<D>::RandomPose(rng, kWorld);
  q.options.mode = ResultMode::kAllUpToN;
  q.options.max_hits = kMaxHits;
  if (q.kind == Kind::kSweep) {
    q.vector = Dim<D>::RandomUnit(rng) * rng.Uniform(0.5f, 2.0f * kWorld);
  } else if (q.kind == Kind::kRay) {
    q.vector = Dim<D>::RandomUnit(rng);
    q.max_distance = rng.Uniform(1.0f, 4.0f * kWorld);
  }
  if (rng.Chance(0.7f)) {
    const std::int64_t tick =
        oldest + rng.Int(0, static_cast<int>(newest - oldest));
    const float fraction =
        tick < newest && rng.Chance(0.7f) ? rng.Uniform(0.0f, 0.999f) : 0.0f;
    q.options.rewind = Rewind{tick, fraction};
  }
  if (rng.Chance(0.3f)) {
    std::vector<std::uint64_t> excluded;
    for (std::uint64_t g = 1; g <= kGroups; ++g) {
      if (rng.Chance(0.3f)) excluded.push_back(g);
    }
    q.options.filter.excluded_groups = ExcludedIds(excluded);
  }
  return q;
}

// A ray's or sweep's closest hit (which clips the parts it tests at its
// best hit so far) is the nearest part a scan finds: the smallest distance
// (a ray) or fraction (a sweep), within the round-off between the scene's
// and the reference's conversions, the body id breaking ties.
template <int D>
void ExpectClosestIsAScansNearest(const SceneSnapshot<D>& snapshot,
                                  Query<D> q) {
  q.options.mode = ResultMode::kClosest;
  q.options.max_hits = 1;
  const bool ray = q.kind == Kind::kRay;
  float nearest = std::numeric_limits<float>::infinity();
  std::vector<std::pair<float, std::uint64_t>> keys;
  for (std::uint64_t g = 1; g <= kGroups; ++g) {
    if (q.options.filter.excluded_groups.Contains(g)) continue;
    auto group_parts = snapshot.GroupParts(g, q.options.rewind);
    ASSERT_TRUE(group_parts.ok()) << group_parts.status();
    for (const auto& part : *group_parts) {
      float key = 0.0f;
      if (ray) {
        const RayResult<D> r =
            Dim<D>::RayCast(*part.shape, part.pose,
                            Ray<D>{q.pose.position, q.vector, q.max_distance});
        if (!r.hit) continue;
        key = r.distance;
      } else {
        const SweepResult<D> r =
            Dim<D>::Sweep(*q.shape, q.pose, q.vector, *part.shape, part.pose);
        if (r.outcome == SweepOutcome::kMiss) continue;
        // A sweep that starts inside a part hits it at 0.
        key = r.outcome == SweepOutcome::kHit ? r.fraction : 0.0f;
      }
      keys.emplace_back(key, part.body_id);
      nearest = std::min(nearest, key);
    }
  }
  absl::StatusOr<QueryResult<D>> got = RunOnScene(snapshot, q);
  ASSERT_TRUE(got.ok()) << got.status();
  if (keys.empty()) {
    EXPECT_TRUE(got->hits.empty());
    return;
  }
  ASSERT_EQ(got->hits.size(), 1u);
  const QueryHit<D>& hit = got->hits[0];
  const float tolerance = 1e-5f * (1.0f + std::fabs(nearest));
  EXPECT_NEAR(ray ? hit.distance : hit.fraction, nearest, tolerance)
      << (ray ? "ray" : "sweep");
  const auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& key) {
    return key.second == hit.body_id;
  });
  ASSERT_NE(it, keys.end()) << "body " << hit.body_id << " is no part's hit";
  EXPECT_LE(it->first, nearest + tolerance) << "body " << hit.body_id;
}

template <int D>
void RunGroupScenes(std::uint64_t seed, int scenes, int ticks) {
  Rng rng(seed);
  int queries = 0;
  int nonempty = 0;
  for (int s = 0; s < scenes; ++s) {
    SceneOptions options;
    options.history_ticks = rng.Int(2, 12);
    options.max_hits = kMaxHits;
    // Half the scenes cut interpolation at large jumps too.
    options.teleport_distance =
        rng.Chance(0.5f) ? 1.5f : std::numeric_limits<float>::infinity();
    auto scene = Scene<D>::Create(options).value();
    std::vector<PartModel<D>> parts;
    std::uint64_t next_id = 1;
    std::vector<Pose<D>> group_poses(kGroups + 1);
    auto add_part = [&]() {
      PartModel<D> part;
      part.id = next_id++;
      part.group = static_cast<std::uint64_t>(rng.Int(1, kGroups));
      part.shape = Dim<D>::RandomShape(rng, false);
      part.local = Dim<D>::RandomPose(rng, 1.5f);
      parts.push_back(part);
      return part;
    };
    std::vector<BodyDesc<D>> initial;
    for (int i = 0; i < 24; ++i) initial.push_back(Desc(add_part()));
    ASSERT_TRUE(scene->UpsertBodies(initial).ok());
    for (int t = 1; t <= ticks; ++t) {
      // Changes to the parts at this tick, then the poses.
      if (rng.Chance(0.2f)) {
        ASSERT_TRUE(scene->UpsertBodies({Desc(add_part())}).ok());
      }
      if (rng.Chance(0.15f) && parts.size() > 4) {
        const std::size_t k = static_cast<std::size_t>(
            rng.Int(0, static_cast<int>(parts.size()) - 1));
        ASSERT_TRUE(scene->RemoveBodies({parts[k].id}).ok());
        parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(k));
      }
      if (rng.Chance(0.2f)) {
        PartModel<D>& part = parts[static_cast<std::size_t>(
            rng.Int(0, static_cast<int>(parts.size()) - 1))];
        part.group = static_cast<std::uint64_t>(rng.Int(1, kGroups));
        if (rng.Chance(0.5f)) part.shape = Dim<D>::RandomShape(rng, false);
        ASSERT_TRUE(scene->UpsertBodies({Desc(part)}).ok());
      }
      std::vector<GroupPoseUpdate<D>> group_updates;
      for (std::uint64_t g = 1; g <= kGroups; ++g) {
        const bool jump = rng.Chance(0.08f);
        group_poses[g] = jump ? Dim<D>::RandomPose(rng, D == 2 ? 6.0f : 4.0f)
                              : Dim<D>::Nudge(rng, group_poses[g], 0.4f);
        group_updates.push_back({g, group_poses[g], jump && rng.Chance(0.5f)});
      }
      std::vector<PoseUpdate<D>> local_updates;
      for (PartModel<D>& part : parts) {
        if (!rng.Chance(0.25f)) continue;
        part.local = Dim<D>::Nudge(rng, part.local, 0.3f);
        local_updates.push_back({part.id, part.local, rng.Chance(0.05f)});
      }
      // Groups with no part left are unknown to the scene.
      std::vector<GroupPoseUpdate<D>> known;
      for (const GroupPoseUpdate<D>& update : group_updates) {
        if (std::any_of(parts.begin(), parts.end(), [&](const auto& part) {
              return part.group == update.group_id;
            })) {
          known.push_back(update);
        }
      }
      ASSERT_TRUE(scene->UpdatePoses(t, local_updates, known).ok());

      const SceneSnapshot<D> snapshot = scene->Snapshot();
      for (int k = 0; k < 12; ++k) {
        const Query<D> q =
            RandomQuery<D>(rng, snapshot.oldest_tick(), snapshot.tick());
        absl::StatusOr<QueryResult<D>> got = RunOnScene(snapshot, q);
        ASSERT_TRUE(got.ok()) << got.status();
        std::vector<std::uint64_t> got_ids;
        for (const QueryHit<D>& hit : got->hits) got_ids.push_back(hit.body_id);
        std::sort(got_ids.begin(), got_ids.end());
        std::vector<std::uint64_t> want_ids;
        for (std::uint64_t g = 1; g <= kGroups; ++g) {
          if (q.options.filter.excluded_groups.Contains(g)) continue;
          auto group_parts = snapshot.GroupParts(g, q.options.rewind);
          ASSERT_TRUE(group_parts.ok()) << group_parts.status();
          for (const auto& part : *group_parts) {
            if (ReferenceHits<D>(q, *part.shape, part.pose)) {
              want_ids.push_back(part.body_id);
            }
          }
        }
        std::sort(want_ids.begin(), want_ids.end());
        if (q.kind == Kind::kRay || q.kind == Kind::kSweep) {
          ExpectClosestIsAScansNearest(snapshot, q);
        }
        ASSERT_EQ(got_ids, want_ids)
            << "scene " << s << " tick " << t << " kind "
            << static_cast<int>(q.kind) << " rewind "
            << (q.options.rewind
                    ? std::to_string(q.options.rewind->tick) + "+" +
                          std::to_string(q.options.rewind->fraction)
                    : std::string("none"));
        ++queries;
        nonempty += want_ids.empty() ? 0 : 1;
      }
    }
  }
  // The scenes are dense enough that most queries find parts.
  EXPECT_GT(nonempty, queries / 8);
}

TEST(HitboxGroupBruteForceTest, EveryQueryFindsThePartsAScanFinds2D) {
  RunGroupScenes<2>(11, sator::testing::ScaledCount(40), 30);
}

TEST(HitboxGroupBruteForceTest, EveryQueryFindsThePartsAScanFinds3D) {
  RunGroupScenes<3>(12, sator::testing::ScaledCount(40), 30);
}

}  // namespace
}  // namespace sator::scene
