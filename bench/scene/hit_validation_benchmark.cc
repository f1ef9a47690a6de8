// Hit validation in process: what scene::ValidateShots costs over the
// rewound ray batch it is built on, and what a player's hitbox count costs a
// ray.
//
// Players are hitbox groups of a 3D scene with 64 ticks of history at 60 Hz.
// 64 players stand on an 8 x 8 grid 6 m apart (x and z in [-21, 21]), each
// walking at a constant velocity of up to 0.05 m a tick, turned by a fixed
// yaw; only the group poses move (rigid hitbox sets), so a pose at any
// rewound time is the linear motion's, known here without the scene. 100
// shots from a fixed seed: shooter k % 64 fires from its eye (1.6 m up) at
// the torso centre (1.2 m up) of another random player, both as they were
// 100 ms (6 ticks) before the current tick, 200 m of range.
//
// Cases (`<case>/<variant>`):
//   Shots100/validate_shots  the 100 shots through scene::ValidateShots
//                            (each claims its target; view delay 100 ms);
//                            players of 3 parts (head, torso, legs) over a
//                            level mesh: a 120 x 120 m floor of 3,200
//                            triangles and 24 walls 4 m wide and 3 m high
//                            (48 triangles), so some shots are blocked
//   Shots100/validate_shots_untargeted  the same shots claiming no target
//                            (no target parts to rewind, no miss distance)
//   Shots100/ray_batch       the same 100 rays as one rewound batch through
//                            RunQueryBatch (1 thread; closest hit, each ray
//                            skipping its shooter's group)
//   Rays100/capsule_players  the 100 rays, closest hit, rewound, in a scene
//                            of the 64 players with one capsule each and no
//                            level
//   Rays100/hitbox20_players the same with 20 hitboxes a player
// Each iteration answers all 100 shots or rays. The ratios that matter:
// validate_shots / ray_batch and hitbox20_players / capsule_players.
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/core/scene/query_batch.h"
#include "sator/core/scene/scene.h"
#include "sator/core/scene/shot_validation.h"

namespace sator::scene {
namespace {

constexpr int kPlayers = 64;
constexpr int kShots = 100;
constexpr int kHistory = 64;
constexpr double kTickRate = 60.0;
constexpr double kViewDelayMs = 100.0;  // 6 ticks at 60 Hz.
constexpr float kRange = 200.0f;
constexpr float kEyeHeight = 1.6f;
constexpr float kTorsoHeight = 1.2f;

template <typename T>
void Keep(const T& value) {
  benchmark::DoNotOptimize(value);
}

std::uint64_t GroupOf(int player) {
  return static_cast<std::uint64_t>(player) + 1;
}

Quat Yaw(float angle) {
  return {0.0f, std::sin(0.5f * angle), 0.0f, std::cos(0.5f * angle)};
}

Pose3 At(Vec3 position, Quat rotation = {}) {
  return {.position = position, .rotation = rotation};
}

struct Motion {
  Vec3 start{};  // Position at tick 0.
  Vec3 velocity{};
  Quat yaw{};
  Vec3 At(double tick) const {
    return start + velocity * static_cast<float>(tick);
  }
};

std::vector<Motion> PlayerMotions() {
  std::mt19937 rng(26);
  std::uniform_real_distribution<float> speed(-0.035f, 0.035f);
  std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
  std::vector<Motion> motions;
  for (int i = 0; i < kPlayers; ++i) {
    const float x = -21.0f + 6.0f * static_cast<float>(i % 8);
    const float z = -21.0f + 6.0f * static_cast<float>(i / 8);
    motions.push_back({.start = {x, 0.0f, z},
                       .velocity = {speed(rng), 0.0f, speed(rng)},
                       .yaw = Yaw(angle(rng))});
  }
  return motions;
}

using Parts = std::vector<std::pair<Shape3, Pose3>>;  // Shape, local pose.

Parts ThreeParts() {
  return {
      {Sphere{0.15f}, At({0, 1.7f, 0})},
      {Capsule3{.a = {0, 1.0f, 0}, .b = {0, 1.4f, 0}, .radius = 0.25f}, At({})},
      {Capsule3{.a = {0, 0.15f, 0}, .b = {0, 0.75f, 0}, .radius = 0.2f},
       At({})},
  };
}

// A skeleton's hitboxes: head, neck, upper and lower chest, abdomen, pelvis,
// shoulders, upper arms, forearms, hands, thighs, shins, feet.
Parts TwentyParts() {
  Parts parts = {
      {Sphere{0.12f}, At({0, 1.72f, 0})},
      {Capsule3{.a = {0, 1.5f, 0}, .b = {0, 1.58f, 0}, .radius = 0.06f},
       At({})},
      {Box3{{0.2f, 0.1f, 0.12f}}, At({0, 1.35f, 0})},
      {Box3{{0.18f, 0.08f, 0.11f}}, At({0, 1.17f, 0})},
      {Box3{{0.16f, 0.08f, 0.1f}}, At({0, 1.01f, 0})},
      {Box3{{0.18f, 0.08f, 0.11f}}, At({0, 0.87f, 0})},
  };
  for (const float side : {-1.0f, 1.0f}) {
    const float x = 0.26f * side;
    parts.push_back({Sphere{0.08f}, At({x, 1.43f, 0})});
    parts.push_back(
        {Capsule3{.a = {x, 1.15f, 0}, .b = {x, 1.38f, 0}, .radius = 0.05f},
         At({})});
    parts.push_back(
        {Capsule3{.a = {x, 0.9f, 0}, .b = {x, 1.1f, 0}, .radius = 0.045f},
         At({})});
    parts.push_back({Sphere{0.05f}, At({x, 0.8f, 0})});
    const float leg = 0.1f * side;
    parts.push_back(
        {Capsule3{.a = {leg, 0.5f, 0}, .b = {leg, 0.8f, 0}, .radius = 0.08f},
         At({})});
    parts.push_back(
        {Capsule3{.a = {leg, 0.12f, 0}, .b = {leg, 0.45f, 0}, .radius = 0.06f},
         At({})});
    parts.push_back({Box3{{0.05f, 0.04f, 0.12f}}, At({leg, 0.04f, 0.04f})});
  }
  return parts;  // 6 + 2 * 7 = 20.
}

Parts OneCapsule() {
  return {{Capsule3{.a = {0, 0.35f, 0}, .b = {0, 1.45f, 0}, .radius = 0.35f},
           At({})}};
}

// 40 x 40 quads over [-60, 60]^2 at y = 0, and 24 upright walls, 4 m wide,
// 3 m high, at random places and headings inside the players' area.
std::shared_ptr<const TriangleMesh> LevelMesh() {
  std::vector<Vec3> vertices;
  std::vector<std::uint32_t> indices;
  constexpr int kCells = 40;
  constexpr float kHalf = 60.0f;
  constexpr float kStep = 2.0f * kHalf / kCells;
  for (int z = 0; z <= kCells; ++z) {
    for (int x = 0; x <= kCells; ++x) {
      vertices.push_back({-kHalf + kStep * static_cast<float>(x), 0.0f,
                          -kHalf + kStep * static_cast<float>(z)});
    }
  }
  for (std::uint32_t z = 0; z < kCells; ++z) {
    for (std::uint32_t x = 0; x < kCells; ++x) {
      const std::uint32_t a = z * (kCells + 1) + x;
      const std::uint32_t b = a + 1;
      const std::uint32_t c = a + kCells + 1;
      const std::uint32_t d = c + 1;
      indices.insert(indices.end(), {a, c, b, b, c, d});
    }
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> place(-20.0f, 20.0f);
  std::uniform_real_distribution<float> heading(0.0f, 3.1415926f);
  for (int wall = 0; wall < 24; ++wall) {
    const Vec3 centre{place(rng), 0.0f, place(rng)};
    const float h = heading(rng);
    const Vec3 along{2.0f * std::cos(h), 0.0f, 2.0f * std::sin(h)};
    const auto base = static_cast<std::uint32_t>(vertices.size());
    vertices.push_back(centre - along);
    vertices.push_back(centre + along);
    vertices.push_back(centre + along + Vec3{0, 3.0f, 0});
    vertices.push_back(centre - along + Vec3{0, 3.0f, 0});
    indices.insert(indices.end(),
                   {base, base + 1, base + 2, base, base + 2, base + 3});
  }
  return MakeTriangleMesh(std::move(vertices), std::move(indices)).value();
}

struct Bench {
  std::unique_ptr<Scene3> scene;
  SceneSnapshot<3> snapshot;
  Rewind view;  // The shots' view time as tick + fraction.
  std::vector<Shot<3>> shots;
  std::vector<Shot<3>> untargeted_shots;  // The same, claiming no target.
  std::vector<SceneQuery<3>> rays;        // The same rays, rewound to `view`.
};

Bench MakeBench(const Parts& parts, bool with_level) {
  const std::vector<Motion> motions = PlayerMotions();
  Bench out;
  SceneOptions options;
  options.history_ticks = kHistory;
  options.tick_rate = kTickRate;
  out.scene = Scene3::Create(options).value();
  std::vector<BodyDesc<3>> bodies;
  std::uint64_t id = 1;
  if (with_level) {
    bodies.push_back({.id = id++,
                      .shape = std::make_shared<const Shape3>(LevelMesh()),
                      .motion = MotionType::kStatic});
  }
  for (int p = 0; p < kPlayers; ++p) {
    for (std::size_t k = 0; k < parts.size(); ++k) {
      bodies.push_back({.id = id++,
                        .shape = std::make_shared<const Shape3>(parts[k].first),
                        .pose = parts[k].second,
                        .group_id = GroupOf(p),
                        .part = static_cast<std::int32_t>(k)});
    }
  }
  (void)out.scene->UpsertBodies(bodies).IgnoreError();
  std::vector<GroupPoseUpdate<3>> groups(kPlayers);
  std::int64_t tick = 0;
  for (int t = 0; t < kHistory; ++t) {
    ++tick;
    for (int p = 0; p < kPlayers; ++p) {
      groups[static_cast<std::size_t>(p)] = {
          .group_id = GroupOf(p),
          .pose = At(motions[static_cast<std::size_t>(p)].At(
                         static_cast<double>(tick)),
                     motions[static_cast<std::size_t>(p)].yaw)};
    }
    (void)out.scene->UpdatePoses(tick, {}, groups).IgnoreError();
  }
  out.snapshot = out.scene->Snapshot();
  out.view = ViewDelayToRewind(tick, kTickRate, kViewDelayMs);
  const double when = static_cast<double>(out.view.tick) + out.view.fraction;

  std::mt19937 rng(99);
  std::uniform_int_distribution<int> other(1, kPlayers - 1);
  for (int k = 0; k < kShots; ++k) {
    const int shooter = k % kPlayers;
    const int target = (shooter + other(rng)) % kPlayers;
    const Vec3 eye = motions[static_cast<std::size_t>(shooter)].At(when) +
                     Vec3{0, kEyeHeight, 0};
    const Vec3 torso = motions[static_cast<std::size_t>(target)].At(when) +
                       Vec3{0, kTorsoHeight, 0};
    Shot<3> shot;
    shot.shooter_group = GroupOf(shooter);
    shot.origin = eye;
    shot.direction = torso - eye;
    shot.range = kRange;
    shot.target = ClaimedTarget{.group_id = GroupOf(target), .part = {}};
    shot.view_time = ViewDelay{kViewDelayMs};
    out.shots.push_back(shot);
    shot.target.reset();
    out.untargeted_shots.push_back(shot);

    RayRequest<3> ray;
    ray.origin = eye;
    ray.direction = torso - eye;
    ray.max_distance = kRange;
    ray.options.mode = ResultMode::kClosest;
    ray.options.max_hits = 1;
    ray.options.filter.excluded_groups =
        ExcludedIds(std::vector<std::uint64_t>(1, GroupOf(shooter)));
    ray.options.rewind = out.view;
    out.rays.emplace_back(std::move(ray));
  }
  return out;
}

const Bench& ShotsBench() {
  static const Bench bench = MakeBench(ThreeParts(), /*with_level=*/true);
  return bench;
}

void ValidateShotsCase(benchmark::State& state, bool claim_targets) {
  const Bench& bench = ShotsBench();
  const std::vector<Shot<3>>& shots =
      claim_targets ? bench.shots : bench.untargeted_shots;
  std::int64_t hits = 0;
  for (auto _ : state) {
    auto verdicts = ValidateShots<3>(bench.snapshot, shots);
    hits = 0;
    for (const ShotVerdict<3>& verdict : *verdicts) {
      hits += verdict.outcome == ShotOutcome::kHit ? 1 : 0;
    }
    Keep(verdicts);
  }
  state.counters["hits"] = static_cast<double>(hits);
}

void RayBatchCase(benchmark::State& state) {
  const Bench& bench = ShotsBench();
  std::int64_t hits = 0;
  for (auto _ : state) {
    auto results = RunQueryBatch<3>(bench.snapshot, bench.rays);
    hits = 0;
    for (const auto& result : results) {
      hits += !result->hits.empty() && result->hits.front().group_id != 0;
    }
    Keep(results);
  }
  state.counters["hits"] = static_cast<double>(hits);
}

void RaysCase(benchmark::State& state, const Bench& bench) {
  std::int64_t hits = 0;
  std::int64_t nodes = 0;
  for (auto _ : state) {
    hits = 0;
    nodes = 0;
    for (const SceneQuery<3>& query : bench.rays) {
      const RayRequest<3>& ray = std::get<RayRequest<3>>(query);
      auto result = bench.snapshot.RayCast(ray.origin, ray.direction,
                                           ray.max_distance, ray.options);
      hits += !result->hits.empty();
      nodes += result->stats.node_visits;
      Keep(result);
    }
  }
  state.counters["hits"] = static_cast<double>(hits);
  state.counters["node_visits"] = static_cast<double>(nodes);
}

}  // namespace
}  // namespace sator::scene

int main(int argc, char** argv) {
  using sator::scene::Bench;
  using sator::scene::MakeBench;
  benchmark::Initialize(&argc, argv);
  benchmark::RegisterBenchmark("Shots100/validate_shots",
                               [](benchmark::State& state) {
                                 sator::scene::ValidateShotsCase(state, true);
                               })
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("Shots100/validate_shots_untargeted",
                               [](benchmark::State& state) {
                                 sator::scene::ValidateShotsCase(state, false);
                               })
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("Shots100/ray_batch", sator::scene::RayBatchCase)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("Rays100/capsule_players", [](benchmark::State&
                                                                 state) {
    static const Bench bench =
        MakeBench(sator::scene::OneCapsule(), /*with_level=*/false);
    sator::scene::RaysCase(state, bench);
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("Rays100/hitbox20_players", [](benchmark::State&
                                                                  state) {
    static const Bench bench =
        MakeBench(sator::scene::TwentyParts(), /*with_level=*/false);
    sator::scene::RaysCase(state, bench);
  })->Unit(benchmark::kMicrosecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
