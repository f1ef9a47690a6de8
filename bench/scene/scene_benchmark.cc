// The scene end to end (validation, broad phase, history, narrow phase,
// collector), side by side with Box2D 2.4's b2DynamicTree on the same boxes.
//
// Scene: N axis-aligned boxes (half extents in [0.1, 1]) in a 1000 x 1000
// world from a fixed seed, all dynamic, each moving up to 0.1 per tick; the
// sator scene has H = 64 ticks of history filled before timing. Box2D's tree
// holds the same boxes at their newest positions with its own fattening.
// The box2d twin of each query runs b2DynamicTree and the exact test on
// each candidate (box overlap, ray-box slab): both sides answer the same
// question about the same boxes.
//
// Cases (`<case>/<library>`):
//   Build<N>              insert every body (sator: one UpsertBodies batch)
//   AabbQuery<N>          a 10 x 10 box: every body it overlaps (kAllUpToN)
//   Raycast<N>            closest hit of a ray of length 100
//   RaycastRewound<N>     the same rays at a random past tick, fraction 0.5
//   PoseUpdate<N>         one tick: every body moves (box2d: MoveProxy each)
//   Batch<N>_Threads<T>   1024 rays through RunQueryBatch on T threads
//   Raycast3D100k/sator   closest-hit rays in a 100k-box 3D scene
//   Contacts3D100k/sator  every contact of a sphere of radius 3 there
//   BoxContacts3D100k/sator  every contact of a rotated box of half size 2
//   Overlaps3D100k/sator, BoxOverlaps3D100k/sator  every body they overlap
//   RaycastService3D100k/sator  the same on sator-bench's scene and rays
// 1M-body cases are registered only when --benchmark_filter names "1M".
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "benchmark/benchmark.h"
#include "box2d/b2_dynamic_tree.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/scene/query_batch.h"
#include "sator/core/scene/scene.h"

namespace sator::scene {
namespace {

constexpr float kWorld = 1000.0f;
constexpr float kMaxSpeed = 0.1f;
constexpr int kHistory = 64;
constexpr int kQueryCount = 1024;
constexpr float kQueryHalf = 5.0f;
constexpr float kRayLength = 100.0f;

template <typename T>
void Keep(const T& value) {
  benchmark::DoNotOptimize(value);
}

struct World {
  std::vector<Vec2> half;
  std::vector<Vec2> position;  // Newest.
  std::vector<Vec2> velocity;
  std::vector<Aabb2> queries;
  std::vector<std::pair<Vec2, Vec2>> rays;  // Origin, unit direction.
};

const World& GetWorld(int n) {
  static std::map<int, World> worlds;
  auto it = worlds.find(n);
  if (it != worlds.end()) return it->second;
  World& world = worlds[n];
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> coord(0.0f, kWorld);
  std::uniform_real_distribution<float> size(0.1f, 1.0f);
  std::uniform_real_distribution<float> speed(-kMaxSpeed, kMaxSpeed);
  std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
  for (int i = 0; i < n; ++i) {
    world.half.push_back({size(rng), size(rng)});
    world.position.push_back({coord(rng), coord(rng)});
    world.velocity.push_back({speed(rng), speed(rng)});
  }
  for (int i = 0; i < kQueryCount; ++i) {
    const Vec2 c{coord(rng), coord(rng)};
    world.queries.push_back(
        {c - Vec2{kQueryHalf, kQueryHalf}, c + Vec2{kQueryHalf, kQueryHalf}});
    const float a = angle(rng);
    world.rays.push_back(
        {{coord(rng), coord(rng)}, {std::cos(a), std::sin(a)}});
  }
  return world;
}

std::vector<BodyDesc<2>> Bodies(const World& world) {
  std::vector<BodyDesc<2>> bodies(world.half.size());
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    bodies[i].id = i;
    bodies[i].shape = std::make_shared<const Shape2>(Box2{world.half[i]});
    bodies[i].pose = {world.position[i], {}};
  }
  return bodies;
}

// A scene with H ticks of history; the world's positions are its newest.
struct SatorScene {
  std::unique_ptr<Scene2> scene;
  std::int64_t tick = 0;
  std::vector<PoseUpdate<2>> updates;
};

SatorScene MakeSatorScene(int n) {
  World& world = const_cast<World&>(GetWorld(n));
  SatorScene out;
  SceneOptions options;
  options.history_ticks = kHistory;
  options.max_bodies = n;
  out.scene = Scene2::Create(options).value();
  (void)out.scene->UpsertBodies(Bodies(world));
  out.updates.resize(world.half.size());
  for (int t = 0; t < kHistory; ++t) {
    for (std::size_t i = 0; i < world.half.size(); ++i) {
      world.position[i] += world.velocity[i];
      out.updates[i] = {i, {world.position[i], {}}};
    }
    (void)out.scene->UpdatePoses(++out.tick, out.updates);
  }
  return out;
}

SatorScene& GetSatorScene(int n) {
  static std::map<int, SatorScene> scenes;
  auto it = scenes.find(n);
  if (it == scenes.end()) it = scenes.emplace(n, MakeSatorScene(n)).first;
  return it->second;
}

b2AABB ToB2(const Aabb2& box) {
  b2AABB out;
  out.lowerBound.Set(box.min.x, box.min.y);
  out.upperBound.Set(box.max.x, box.max.y);
  return out;
}

Aabb2 BoxOf(const World& world, std::size_t i) {
  return {world.position[i] - world.half[i], world.position[i] + world.half[i]};
}

struct Box2dScene {
  std::unique_ptr<b2DynamicTree> tree;
  std::vector<std::int32_t> proxy;
  std::vector<std::int32_t> body;  // Proxy -> body.
};

Box2dScene& GetBox2dScene(int n) {
  static std::map<int, Box2dScene> scenes;
  auto it = scenes.find(n);
  if (it != scenes.end()) return it->second;
  GetSatorScene(n);  // Moves the world to its newest positions first.
  const World& world = GetWorld(n);
  Box2dScene& out = scenes[n];
  out.tree = std::make_unique<b2DynamicTree>();
  out.body.resize(2 * world.half.size());
  for (std::size_t i = 0; i < world.half.size(); ++i) {
    const std::int32_t p =
        out.tree->CreateProxy(ToB2(BoxOf(world, i)), nullptr);
    out.proxy.push_back(p);
    out.body[static_cast<std::size_t>(p)] = static_cast<std::int32_t>(i);
  }
  return out;
}

// ---- Build -----------------------------------------------------------------

void BuildSator(benchmark::State& state, int n) {
  const World& world = GetWorld(n);
  const std::vector<BodyDesc<2>> bodies = Bodies(world);
  for (auto _ : state) {
    SceneOptions options;
    options.max_bodies = n;
    auto scene = Scene2::Create(options).value();
    Keep(scene->UpsertBodies(bodies).ok());
  }
}

void BuildBox2d(benchmark::State& state, int n) {
  const World& world = GetWorld(n);
  for (auto _ : state) {
    b2DynamicTree tree;
    for (std::size_t i = 0; i < world.half.size(); ++i) {
      Keep(tree.CreateProxy(ToB2(BoxOf(world, i)), nullptr));
    }
  }
}

// ---- AABB overlap
// ------------------------------------------------------------

void AabbQuerySator(benchmark::State& state, int n) {
  const World& world = GetWorld(n);
  const SceneSnapshot<2> snapshot = GetSatorScene(n).scene->Snapshot();
  QueryOptions options;
  options.max_hits = 4096;
  std::size_t q = 0;
  std::int64_t hits = 0;
  std::int64_t nodes = 0;
  std::int64_t leaves = 0;
  for (auto _ : state) {
    const Aabb2& box = world.queries[q++ % kQueryCount];
    const Shape2 shape = Box2{HalfExtents(box)};
    const auto result = snapshot.Overlap(shape, {Center(box), {}}, options);
    hits += static_cast<std::int64_t>(result->hits.size());
    nodes += result->stats.node_visits;
    leaves += result->stats.leaf_visits;
    Keep(result->hits.size());
  }
  state.counters["leaf_visits"] = benchmark::Counter(
      static_cast<double>(leaves), benchmark::Counter::kAvgIterations);
  state.counters["hits"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
  state.counters["node_visits"] = benchmark::Counter(
      static_cast<double>(nodes), benchmark::Counter::kAvgIterations);
}

struct Box2dQuery {
  const World* world;
  const std::vector<std::int32_t>* body;
  const Aabb2* query;
  std::vector<std::int32_t>* hits;
  bool QueryCallback(std::int32_t proxy) {
    const std::size_t i = static_cast<std::size_t>((*body)[proxy]);
    if (Overlaps(BoxOf(*world, i), *query)) hits->push_back((*body)[proxy]);
    return true;
  }
};

void AabbQueryBox2d(benchmark::State& state, int n) {
  const World& world = GetWorld(n);
  Box2dScene& b2 = GetBox2dScene(n);
  std::size_t q = 0;
  std::int64_t count = 0;
  std::vector<std::int32_t> hits;
  for (auto _ : state) {
    const Aabb2& query = world.queries[q++ % kQueryCount];
    hits.clear();
    Box2dQuery callback{&world, &b2.body, &query, &hits};
    b2.tree->Query(&callback, ToB2(query));
    count += static_cast<std::int64_t>(hits.size());
    Keep(hits.size());
  }
  state.counters["hits"] = benchmark::Counter(
      static_cast<double>(count), benchmark::Counter::kAvgIterations);
}

// ---- Raycast
// ------------------------------------------------------------------

void RaycastSator(benchmark::State& state, int n, bool rewound) {
  const World& world = GetWorld(n);
  const SatorScene& scene = GetSatorScene(n);
  const SceneSnapshot<2> snapshot = scene.scene->Snapshot();
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int64_t> tick(snapshot.oldest_tick(),
                                                   snapshot.tick() - 1);
  std::vector<QueryOptions> options(kQueryCount);
  for (auto& o : options) {
    o.mode = ResultMode::kClosest;
    if (rewound) o.rewind = Rewind{tick(rng), 0.5f};
  }
  std::size_t q = 0;
  std::int64_t hits = 0;
  std::int64_t nodes = 0;
  for (auto _ : state) {
    const std::size_t i = q++ % kQueryCount;
    const auto& [origin, direction] = world.rays[i];
    const auto result =
        snapshot.RayCast(origin, direction, kRayLength, options[i]);
    hits += static_cast<std::int64_t>(result->hits.size());
    nodes += result->stats.node_visits;
    Keep(result->hits.size());
  }
  state.counters["hit_rate"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
  state.counters["node_visits"] = benchmark::Counter(
      static_cast<double>(nodes), benchmark::Counter::kAvgIterations);
}

struct Box2dRay {
  const World* world;
  const std::vector<std::int32_t>* body;
  const broadphase::Segment<2>* segment;
  float best = 1.0f;
  bool hit = false;
  float RayCastCallback(const b2RayCastInput& input, std::int32_t proxy) {
    const std::size_t i = static_cast<std::size_t>((*body)[proxy]);
    float entry = 0.0f;
    if (!segment->Hits(BoxOf(*world, i), Vec2{}, input.maxFraction, &entry)) {
      return -1.0f;
    }
    hit = true;
    best = entry;
    return entry;
  }
};

void RaycastBox2d(benchmark::State& state, int n) {
  const World& world = GetWorld(n);
  Box2dScene& b2 = GetBox2dScene(n);
  std::size_t q = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const auto& [origin, direction] = world.rays[q++ % kQueryCount];
    const Vec2 translation = direction * kRayLength;
    const broadphase::Segment<2> segment(origin, translation);
    Box2dRay callback{&world, &b2.body, &segment};
    b2RayCastInput input;
    input.p1.Set(origin.x, origin.y);
    input.p2.Set(origin.x + translation.x, origin.y + translation.y);
    input.maxFraction = 1.0f;
    b2.tree->RayCast(&callback, input);
    hits += callback.hit ? 1 : 0;
    Keep(callback.best);
  }
  state.counters["hit_rate"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

// ---- Pose update
// ---------------------------------------------------------------

void PoseUpdateSator(benchmark::State& state, int n) {
  // A scene of its own: the query scenes stay at their tick.
  static std::map<int, SatorScene> scenes;
  auto it = scenes.find(n);
  if (it == scenes.end()) it = scenes.emplace(n, MakeSatorScene(n)).first;
  SatorScene& scene = it->second;
  const World& world = GetWorld(n);
  for (auto _ : state) {
    state.PauseTiming();
    for (std::size_t i = 0; i < scene.updates.size(); ++i) {
      scene.updates[i].pose.position += world.velocity[i];
    }
    state.ResumeTiming();
    Keep(scene.scene->UpdatePoses(++scene.tick, scene.updates).ok());
  }
}

void PoseUpdateBox2d(benchmark::State& state, int n) {
  GetSatorScene(n);  // The world at its newest positions.
  const World& world = GetWorld(n);
  // A tree of its own: the query trees stay where they are.
  Box2dScene b2;
  b2.tree = std::make_unique<b2DynamicTree>();
  for (std::size_t i = 0; i < world.half.size(); ++i) {
    b2.proxy.push_back(b2.tree->CreateProxy(ToB2(BoxOf(world, i)), nullptr));
  }
  std::vector<Vec2> position = world.position;
  for (auto _ : state) {
    for (std::size_t i = 0; i < position.size(); ++i) {
      position[i] += world.velocity[i];
      const Aabb2 box{position[i] - world.half[i], position[i] + world.half[i]};
      b2.tree->MoveProxy(b2.proxy[i], ToB2(box),
                         b2Vec2(world.velocity[i].x, world.velocity[i].y));
    }
  }
}

// ---- Parallel batch
// ------------------------------------------------------------

void BatchSator(benchmark::State& state, int n, int threads) {
  const World& world = GetWorld(n);
  const SceneSnapshot<2> snapshot = GetSatorScene(n).scene->Snapshot();
  std::vector<SceneQuery<2>> queries;
  QueryOptions options;
  options.mode = ResultMode::kClosest;
  for (const auto& [origin, direction] : world.rays) {
    queries.push_back(RayRequest<2>{origin, direction, kRayLength, options});
  }
  BatchWorkers workers(threads - 1);
  for (auto _ : state) {
    auto results = RunQueryBatch<2>(snapshot, queries, &workers);
    Keep(results.size());
  }
  state.SetItemsProcessed(state.iterations() * kQueryCount);
}

// ---- 3D raycasts per second
// -------------------------------------------------------

// 100k rotated boxes (half extents in [0.1, 1]) in a 200 m cube.
const Scene3& RotatedBoxScene3D() {
  static const auto* scene = [] {
    constexpr int kBodies = 100000;
    constexpr float kWorld3 = 200.0f;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> coord(0.0f, kWorld3);
    std::uniform_real_distribution<float> size(0.1f, 1.0f);
    SceneOptions options;
    options.max_bodies = kBodies;
    auto* out = Scene3::Create(options).value().release();
    std::vector<BodyDesc<3>> bodies(kBodies);
    for (int i = 0; i < kBodies; ++i) {
      auto& body = bodies[static_cast<std::size_t>(i)];
      body.id = static_cast<std::uint64_t>(i);
      body.shape = std::make_shared<const Shape3>(
          Box3{{size(rng), size(rng), size(rng)}});
      body.pose = {
          {coord(rng), coord(rng), coord(rng)},
          Quat::FromAxisAngle({coord(rng), coord(rng), 1.0f}, coord(rng))};
    }
    (void)out->UpsertBodies(bodies);
    return out;
  }();
  return *scene;
}

void Raycast3DSator(benchmark::State& state) {
  const SceneSnapshot<3> snapshot = RotatedBoxScene3D().Snapshot();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> coord(0.0f, 200.0f);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<std::pair<Vec3, Vec3>> rays;
  for (int i = 0; i < kQueryCount; ++i) {
    rays.push_back({{coord(rng), coord(rng), coord(rng)},
                    {unit(rng), unit(rng), unit(rng) + 0.01f}});
  }
  QueryOptions options;
  options.mode = ResultMode::kClosest;
  std::size_t q = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const auto& [origin, direction] = rays[q++ % kQueryCount];
    const auto result = snapshot.RayCast(origin, direction, 50.0f, options);
    hits += static_cast<std::int64_t>(result->hits.size());
    Keep(result->hits.size());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_rate"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

// Every contact (or, with `overlap`, every overlapping body) of `shape` at
// random points (and, for a box, random rotations) in the same scene: the
// narrow phase on each candidate, as a character's depenetration or a
// trigger check asks it. A sphere's queries run the round-box pair, a box's
// the box-box pair.
void Query3DSator(benchmark::State& state, const Shape3& shape, bool overlap) {
  const SceneSnapshot<3> snapshot = RotatedBoxScene3D().Snapshot();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coord(0.0f, 200.0f);
  std::vector<Pose3> poses;
  for (int i = 0; i < kQueryCount; ++i) {
    // One draw a statement: the order of a call's arguments is unspecified.
    Pose3 pose;
    pose.position.x = coord(rng);
    pose.position.y = coord(rng);
    pose.position.z = coord(rng);
    if (std::holds_alternative<Box3>(shape)) {
      const float axis_x = coord(rng);
      const float axis_y = coord(rng);
      const float angle = coord(rng);
      pose.rotation = Quat::FromAxisAngle({axis_x, axis_y, 1.0f}, angle);
    }
    poses.push_back(pose);
  }
  QueryOptions options;
  options.mode = ResultMode::kAllUpToN;
  std::size_t q = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const Pose3& pose = poses[q++ % kQueryCount];
    const auto result = overlap ? snapshot.Overlap(shape, pose, options)
                                : snapshot.Contacts(shape, pose, options);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      break;
    }
    hits += static_cast<std::int64_t>(result->hits.size());
    Keep(result->hits.size());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hits"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

// A sphere of radius 3 (about 3 contacts a query) and a box of half size 2.
void SphereContacts3DSator(benchmark::State& state) {
  Query3DSator(state, Sphere{3.0f}, /*overlap=*/false);
}
void BoxContacts3DSator(benchmark::State& state) {
  Query3DSator(state, Box3{{2.0f, 2.0f, 2.0f}}, /*overlap=*/false);
}
void SphereOverlaps3DSator(benchmark::State& state) {
  Query3DSator(state, Sphere{3.0f}, /*overlap=*/true);
}
void BoxOverlaps3DSator(benchmark::State& state) {
  Query3DSator(state, Box3{{2.0f, 2.0f, 2.0f}}, /*overlap=*/true);
}

// The scene of tools/sator-bench ("Service end to end" in
// docs/PERFORMANCE.md), generated exactly as its BuildScene and QueryMaker
// do with the default flags (--seed=1, --bodies=100000, --world_size=1000):
// 100k static axis-aligned boxes, half extents in [0.25, 2], positions in a
// 1000 m cube; rays from random points of the cube in random directions
// (z + 0.01), 100 m, closest hit. The rays are those of worker 0.
const SceneSnapshot<3>& ServiceSnapshot() {
  static const SceneSnapshot<3>* snapshot = [] {
    constexpr int kBodies = 100000;
    constexpr std::uint64_t kSeed = 1;
    std::mt19937_64 random(kSeed);
    std::uniform_real_distribution<float> coord(0.0f, 1000.0f);
    std::uniform_real_distribution<float> half(0.25f, 2.0f);
    SceneOptions options;
    options.max_bodies = kBodies;
    auto* scene = Scene3::Create(options).value().release();
    std::vector<BodyDesc<3>> bodies(kBodies);
    for (int id = 0; id < kBodies; ++id) {
      auto& body = bodies[static_cast<std::size_t>(id)];
      body.id = static_cast<std::uint64_t>(id) + 1;
      // Braced lists evaluate left to right, as in sator-bench.
      body.shape = std::make_shared<const Shape3>(
          Box3{{half(random), half(random), half(random)}});
      body.pose = Pose3{{coord(random), coord(random), coord(random)}, {}};
      body.motion = MotionType::kStatic;
    }
    (void)scene->UpsertBodies(bodies);
    return new SceneSnapshot<3>(scene->Snapshot());
  }();
  return *snapshot;
}

struct ServiceRay {
  Vec3 origin;
  Vec3 direction;
};

// As many distinct rays as sator-bench sends satord in about a second: a
// stream that repeats a thousand rays keeps the tree nodes they visit in
// cache and runs about 1.4x faster than the service's stream can.
constexpr int kServiceRayCount = 1 << 20;

std::vector<ServiceRay> ServiceRays() {
  std::mt19937_64 random(1 * 7919 + 0);  // sator-bench's worker 0.
  std::uniform_real_distribution<float> coord(0.0f, 1000.0f);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<ServiceRay> rays;
  rays.reserve(kServiceRayCount);
  for (int i = 0; i < kServiceRayCount; ++i) {
    ServiceRay ray;
    ray.origin = Vec3{coord(random), coord(random), coord(random)};
    ray.direction = Vec3{unit(random), unit(random), unit(random) + 0.01f};
    rays.push_back(ray);
  }
  return rays;
}

void RaycastService3DSator(benchmark::State& state) {
  const SceneSnapshot<3>& snapshot = ServiceSnapshot();
  const std::vector<ServiceRay> rays = ServiceRays();
  QueryOptions options;
  options.mode = ResultMode::kClosest;
  std::size_t q = 0;
  std::int64_t hits = 0;
  std::int64_t nodes = 0;
  for (auto _ : state) {
    const ServiceRay& ray = rays[q++ % kServiceRayCount];
    const auto result =
        snapshot.RayCast(ray.origin, ray.direction, 100.0f, options);
    hits += static_cast<std::int64_t>(result->hits.size());
    nodes += result->stats.node_visits;
    Keep(result->hits.size());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_rate"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
  state.counters["node_visits"] = benchmark::Counter(
      static_cast<double>(nodes), benchmark::Counter::kAvgIterations);
}

void RegisterSize(int n, const std::string& label) {
  auto add = [](const std::string& name, auto function) {
    benchmark::RegisterBenchmark(name.c_str(), function)
        ->Unit(benchmark::kMicrosecond);
  };
  add("Build" + label + "/sator",
      [n](benchmark::State& s) { BuildSator(s, n); });
  add("Build" + label + "/box2d",
      [n](benchmark::State& s) { BuildBox2d(s, n); });
  add("AabbQuery" + label + "/sator",
      [n](benchmark::State& s) { AabbQuerySator(s, n); });
  add("AabbQuery" + label + "/box2d",
      [n](benchmark::State& s) { AabbQueryBox2d(s, n); });
  add("Raycast" + label + "/sator",
      [n](benchmark::State& s) { RaycastSator(s, n, false); });
  add("Raycast" + label + "/box2d",
      [n](benchmark::State& s) { RaycastBox2d(s, n); });
  add("RaycastRewound" + label + "/sator",
      [n](benchmark::State& s) { RaycastSator(s, n, true); });
  add("PoseUpdate" + label + "/sator",
      [n](benchmark::State& s) { PoseUpdateSator(s, n); });
  add("PoseUpdate" + label + "/box2d",
      [n](benchmark::State& s) { PoseUpdateBox2d(s, n); });
  add("Batch" + label + "_Threads1/sator",
      [n](benchmark::State& s) { BatchSator(s, n, 1); });
  add("Batch" + label + "_Threads2/sator",
      [n](benchmark::State& s) { BatchSator(s, n, 2); });
}

}  // namespace
}  // namespace sator::scene

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  sator::scene::RegisterSize(10000, "10k");
  sator::scene::RegisterSize(100000, "100k");
  benchmark::RegisterBenchmark("Raycast3D100k/sator",
                               sator::scene::Raycast3DSator)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("Contacts3D100k/sator",
                               sator::scene::SphereContacts3DSator)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BoxContacts3D100k/sator",
                               sator::scene::BoxContacts3DSator)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("Overlaps3D100k/sator",
                               sator::scene::SphereOverlaps3DSator)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BoxOverlaps3D100k/sator",
                               sator::scene::BoxOverlaps3DSator)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("RaycastService3D100k/sator",
                               sator::scene::RaycastService3DSator)
      ->Unit(benchmark::kMicrosecond);
  if (benchmark::GetBenchmarkFilter().find("1M") != std::string::npos) {
    sator::scene::RegisterSize(1000000, "1M");
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
