// Broad phase side by side with Box2D 2.4's b2DynamicTree on the same boxes.
//
// Scene: N small boxes (half extents in [0.1, 1]) in a 1000 x 1000 world,
// from a fixed seed. Our DynamicTree uses Box2D's fattening (margin 0.1,
// displacement multiplier 4); the Bvh stores tight boxes.
//
// Cases (each `<case>/<library>`; `_Tree` is sator::broadphase::DynamicTree
// with branch-and-bound insertion, `_TreeGreedy` with greedy insertion, `_Bvh`
// the binned-SAH Bvh rebuilt each tick, `_Lbvh` the Morton-code Bvh rebuilt
// each tick, `_BvhRefit` the binned-SAH Bvh refitted; the box2d twin of each
// runs b2DynamicTree on the same input):
//   Build<N>_*            insert every box (Bvh: one Build call)
//   AabbQuery<N>_*        one 10 x 10 query box, exact overlap test per hit
//   Raycast<N>_*          one closest-hit ray of length 100, exact ray-box
//                         test per candidate, clipping to the nearest hit
//   Update<N>_Static90_*  one tick: 10% of the bodies move a little
//   Update<N>_Dynamic_*   one tick: every body moves a little
// For the Bvh in the mostly-static scene the dynamic bodies are in a Bvh of
// their own (the static ones would sit in a structure that never changes).
//
// 1M-body cases are registered only when --benchmark_filter names "1M":
//   broadphase_benchmark --benchmark_filter=1M
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#if SATOR_BENCH_3D
#include "broadphase3d_cases.h"
#endif
#include "box2d/b2_dynamic_tree.h"
#include "sator/core/aabb.h"
#include "sator/core/broadphase/bvh.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/broadphase/dynamic_tree.h"

namespace sator::broadphase {
namespace {

// benchmark::DoNotOptimize through a const reference: the non-const overload
// miscompiles with GCC 12 (google/benchmark#903).
template <typename T>
void Keep(const T& value) {
  benchmark::DoNotOptimize(value);
}

constexpr float kWorld = 1000.0f;
constexpr float kMargin = b2_aabbExtension;
constexpr float kMultiplier = b2_aabbMultiplier;
constexpr int kQueryCount = 1024;
constexpr float kQueryHalf = 5.0f;
constexpr float kRayLength = 100.0f;
constexpr float kMaxSpeed = 0.1f;  // Per tick.
// Ticks run before timing an update case, so fat boxes reach their steady
// state (a fresh proxy's fat box has no displacement stretch yet).
constexpr int kWarmUpTicks = 8;

struct Scene {
  std::vector<Aabb2> boxes;
  std::vector<Vec2> velocities;
  std::vector<Aabb2> queries;
  std::vector<std::pair<Vec2, Vec2>> rays;  // Origin, translation.
};

b2AABB ToB2(const Aabb2& box) {
  b2AABB out;
  out.lowerBound.Set(box.min.x, box.min.y);
  out.upperBound.Set(box.max.x, box.max.y);
  return out;
}

const Scene& GetScene(int n) {
  static std::map<int, std::unique_ptr<Scene>> cache;
  std::unique_ptr<Scene>& slot = cache[n];
  if (slot) return *slot;
  slot = std::make_unique<Scene>();
  std::mt19937 rng(static_cast<std::uint32_t>(n));
  std::uniform_real_distribution<float> position(1.0f, kWorld - 1.0f);
  std::uniform_real_distribution<float> half(0.1f, 1.0f);
  std::uniform_real_distribution<float> speed(-kMaxSpeed, kMaxSpeed);
  std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
  for (int i = 0; i < n; ++i) {
    const Vec2 c{position(rng), position(rng)};
    const Vec2 h{half(rng), half(rng)};
    slot->boxes.push_back({c - h, c + h});
    slot->velocities.push_back({speed(rng), speed(rng)});
  }
  for (int i = 0; i < kQueryCount; ++i) {
    const Vec2 c{position(rng), position(rng)};
    slot->queries.push_back(
        {c - Vec2{kQueryHalf, kQueryHalf}, c + Vec2{kQueryHalf, kQueryHalf}});
    const float a = angle(rng);
    slot->rays.push_back(
        {Vec2{position(rng), position(rng)},
         Vec2{kRayLength * std::cos(a), kRayLength * std::sin(a)}});
  }
  return *slot;
}

// Prebuilt structures for the query cases.
struct Built {
  std::unique_ptr<DynamicTree2> tree;
  std::vector<std::uint32_t> tree_body;  // Proxy -> body.
  std::unique_ptr<Bvh2> bvh;
  std::unique_ptr<Bvh2> lbvh;
  std::unique_ptr<b2DynamicTree> b2tree;
  std::vector<std::int32_t> b2_body;  // Proxy -> body.
};

const Built& GetBuilt(int n) {
  static std::map<int, std::unique_ptr<Built>> cache;
  std::unique_ptr<Built>& slot = cache[n];
  if (slot) return *slot;
  const Scene& scene = GetScene(n);
  slot = std::make_unique<Built>();
  slot->tree = std::make_unique<DynamicTree2>(
      *DynamicTree2::Create({kMargin, kMultiplier}));
  slot->bvh = std::make_unique<Bvh2>(*Bvh2::Create());
  slot->lbvh = std::make_unique<Bvh2>(
      *Bvh2::Create({.method = BvhBuildMethod::kMorton}));
  slot->b2tree = std::make_unique<b2DynamicTree>();
  slot->tree_body.resize(2 * static_cast<std::size_t>(n));
  slot->b2_body.resize(2 * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const std::uint32_t proxy = *slot->tree->CreateProxy(scene.boxes[i]);
    slot->tree_body[proxy] = static_cast<std::uint32_t>(i);
    const std::int32_t b2proxy =
        slot->b2tree->CreateProxy(ToB2(scene.boxes[i]), nullptr);
    slot->b2_body[static_cast<std::size_t>(b2proxy)] = i;
  }
  (void)slot->bvh->Build(scene.boxes);
  (void)slot->lbvh->Build(scene.boxes);
  return *slot;
}

// ---- Build -----------------------------------------------------------------

DynamicTreeOptions TreeOptions(SiblingSearch search) {
  return {.margin = kMargin,
          .displacement_multiplier = kMultiplier,
          .sibling_search = search};
}

void BuildTreeSator(benchmark::State& state, int n, SiblingSearch search) {
  const Scene& scene = GetScene(n);
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto tree = *DynamicTree2::Create(TreeOptions(search));
    for (const Aabb2& box : scene.boxes) {
      const auto proxy = tree.CreateProxy(box);
      Keep(*proxy);
    }
    bytes = tree.MemoryBytes();
    const int height = tree.Height();
    Keep(height);
  }
  state.counters["bytes_per_proxy"] = static_cast<double>(bytes) / n;
}

void BuildBvhSator(benchmark::State& state, int n, BvhBuildMethod method) {
  const Scene& scene = GetScene(n);
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto bvh = *Bvh2::Create({.method = method});
    const absl::Status status = bvh.Build(scene.boxes);
    if (!status.ok()) state.SkipWithError("build failed");
    bytes = bvh.MemoryBytes();
    const int count = bvh.NodeCount();
    Keep(count);
  }
  state.counters["bytes_per_proxy"] = static_cast<double>(bytes) / n;
}

void BuildBox2d(benchmark::State& state, int n) {
  const Scene& scene = GetScene(n);
  for (auto _ : state) {
    b2DynamicTree tree;
    for (const Aabb2& box : scene.boxes) {
      const std::int32_t proxy = tree.CreateProxy(ToB2(box), nullptr);
      Keep(proxy);
    }
    const int height = tree.GetHeight();
    Keep(height);
  }
  // b2DynamicTree's pool starts at 16 nodes and doubles: its capacity for
  // 2n - 1 nodes of sizeof(b2TreeNode) bytes.
  std::size_t capacity = 16;
  while (capacity < 2 * static_cast<std::size_t>(n) - 1) capacity *= 2;
  state.counters["bytes_per_proxy"] =
      static_cast<double>(capacity * sizeof(b2TreeNode)) / n;
}

// ---- AABB query
// --------------------------------------------------------------

template <typename Structure, typename ToBody>
void AabbQuerySator(benchmark::State& state, int n, const Structure& structure,
                    ToBody to_body) {
  const Scene& scene = GetScene(n);
  std::size_t q = 0;
  std::int64_t nodes = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const Aabb2& query = scene.queries[q++ % kQueryCount];
    int count = 0;
    const TreeStats stats = structure.Query(query, [&](std::uint32_t proxy) {
      count += Overlaps(scene.boxes[to_body(proxy)], query) ? 1 : 0;
      return true;
    });
    Keep(count);
    nodes += stats.node_visits;
    hits += count;
  }
  state.counters["node_visits"] = benchmark::Counter(
      static_cast<double>(nodes), benchmark::Counter::kAvgIterations);
  state.counters["hits"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

struct Box2dQuery {
  const Scene* scene;
  const std::vector<std::int32_t>* body;
  const Aabb2* query;
  int count = 0;
  bool QueryCallback(std::int32_t proxy) {
    const Aabb2& box = scene->boxes[static_cast<std::size_t>((*body)[proxy])];
    count += Overlaps(box, *query) ? 1 : 0;
    return true;
  }
};

void AabbQueryBox2d(benchmark::State& state, int n) {
  const Scene& scene = GetScene(n);
  const Built& built = GetBuilt(n);
  std::size_t q = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const Aabb2& query = scene.queries[q++ % kQueryCount];
    Box2dQuery callback{&scene, &built.b2_body, &query};
    built.b2tree->Query(&callback, ToB2(query));
    Keep(callback.count);
    hits += callback.count;
  }
  state.counters["hits"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

// ---- Closest-hit raycast
// -----------------------------------------------------

template <typename Structure, typename ToBody>
void RaycastSator(benchmark::State& state, int n, const Structure& structure,
                  ToBody to_body) {
  const Scene& scene = GetScene(n);
  std::size_t q = 0;
  std::int64_t nodes = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const auto& [origin, translation] = scene.rays[q++ % kQueryCount];
    const Segment<2> segment(origin, translation);
    float best = 1.0f;
    bool hit = false;
    const TreeStats stats = structure.RayCast(
        {origin, translation, 1.0f},
        [&](std::uint32_t proxy, const RayCastInput<2>& clipped) -> float {
          float entry = 0.0f;
          if (!segment.Hits(scene.boxes[to_body(proxy)], Vec2{},
                            clipped.max_fraction, &entry)) {
            return -1.0f;
          }
          hit = true;
          best = entry;
          return entry;
        });
    Keep(best);
    nodes += stats.node_visits;
    hits += hit ? 1 : 0;
  }
  state.counters["node_visits"] = benchmark::Counter(
      static_cast<double>(nodes), benchmark::Counter::kAvgIterations);
  state.counters["hit_rate"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

struct Box2dRay {
  const Scene* scene;
  const std::vector<std::int32_t>* body;
  const Segment<2>* segment;
  float best = 1.0f;
  bool hit = false;
  float RayCastCallback(const b2RayCastInput& input, std::int32_t proxy) {
    float entry = 0.0f;
    const Aabb2& box = scene->boxes[static_cast<std::size_t>((*body)[proxy])];
    if (!segment->Hits(box, Vec2{}, input.maxFraction, &entry)) return -1.0f;
    hit = true;
    best = entry;
    return entry;
  }
};

void RaycastBox2d(benchmark::State& state, int n) {
  const Scene& scene = GetScene(n);
  const Built& built = GetBuilt(n);
  std::size_t q = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const auto& [origin, translation] = scene.rays[q++ % kQueryCount];
    const Segment<2> segment(origin, translation);
    Box2dRay callback{&scene, &built.b2_body, &segment};
    b2RayCastInput input;
    input.p1.Set(origin.x, origin.y);
    input.p2.Set(origin.x + translation.x, origin.y + translation.y);
    input.maxFraction = 1.0f;
    built.b2tree->RayCast(&callback, input);
    Keep(callback.best);
    hits += callback.hit ? 1 : 0;
  }
  state.counters["hit_rate"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

// ---- Update
// ------------------------------------------------------------------

// The moving part of a scene: every `stride`-th body moves.
struct Motion {
  std::vector<std::uint32_t> bodies;
  std::vector<Aabb2> boxes;  // Indexed by body.
  std::vector<Vec2> velocities;

  Motion(const Scene& scene, int stride) : boxes(scene.boxes) {
    velocities = scene.velocities;
    for (std::size_t i = 0; i < boxes.size();
         i += static_cast<std::size_t>(stride)) {
      bodies.push_back(static_cast<std::uint32_t>(i));
    }
  }
  // Moves body i one tick, bouncing off the world's walls.
  Vec2 Step(std::uint32_t i) {
    Aabb2& box = boxes[i];
    Vec2& v = velocities[i];
    if (box.min.x + v.x < 0.0f || box.max.x + v.x > kWorld) v.x = -v.x;
    if (box.min.y + v.y < 0.0f || box.max.y + v.y > kWorld) v.y = -v.y;
    box = {box.min + v, box.max + v};
    return v;
  }
};

void UpdateTreeSator(benchmark::State& state, int n, int stride,
                     SiblingSearch search) {
  const Scene& scene = GetScene(n);
  Motion motion(scene, stride);
  auto tree = *DynamicTree2::Create(TreeOptions(search));
  std::vector<std::uint32_t> proxy(scene.boxes.size());
  for (std::size_t i = 0; i < scene.boxes.size(); ++i) {
    proxy[i] = *tree.CreateProxy(scene.boxes[i]);
  }
  std::int64_t reinserted = 0;
  auto tick = [&] {
    for (const std::uint32_t body : motion.bodies) {
      const Vec2 d = motion.Step(body);
      const auto moved = tree.MoveProxy(proxy[body], motion.boxes[body], d);
      reinserted += *moved ? 1 : 0;
    }
  };
  for (int i = 0; i < kWarmUpTicks; ++i) tick();
  reinserted = 0;
  for (auto _ : state) tick();
  state.counters["reinserted"] = benchmark::Counter(
      static_cast<double>(reinserted), benchmark::Counter::kAvgIterations);
}

void UpdateBvhSator(benchmark::State& state, int n, int stride, bool refit,
                    BvhBuildMethod method) {
  const Scene& scene = GetScene(n);
  Motion motion(scene, stride);
  // The moving bodies' boxes, contiguous: the Bvh's input.
  std::vector<Aabb2> moving(motion.bodies.size());
  for (std::size_t k = 0; k < moving.size(); ++k) {
    moving[k] = motion.boxes[motion.bodies[k]];
  }
  auto bvh = *Bvh2::Create({.method = method});
  if (!bvh.Build(moving).ok()) state.SkipWithError("build failed");
  auto tick = [&] {
    for (std::size_t k = 0; k < moving.size(); ++k) {
      motion.Step(motion.bodies[k]);
      moving[k] = motion.boxes[motion.bodies[k]];
    }
    return refit ? bvh.Refit(moving) : bvh.Build(moving);
  };
  for (int i = 0; i < kWarmUpTicks; ++i) (void)tick();
  for (auto _ : state) {
    if (!tick().ok()) state.SkipWithError("update failed");
  }
}

void UpdateBox2d(benchmark::State& state, int n, int stride) {
  const Scene& scene = GetScene(n);
  Motion motion(scene, stride);
  b2DynamicTree tree;
  std::vector<std::int32_t> proxy(scene.boxes.size());
  for (std::size_t i = 0; i < scene.boxes.size(); ++i) {
    proxy[i] = tree.CreateProxy(ToB2(scene.boxes[i]), nullptr);
  }
  std::int64_t reinserted = 0;
  auto tick = [&] {
    for (const std::uint32_t body : motion.bodies) {
      const Vec2 d = motion.Step(body);
      reinserted += tree.MoveProxy(proxy[body], ToB2(motion.boxes[body]),
                                   b2Vec2(d.x, d.y))
                        ? 1
                        : 0;
    }
  };
  for (int i = 0; i < kWarmUpTicks; ++i) tick();
  reinserted = 0;
  for (auto _ : state) tick();
  state.counters["reinserted"] = benchmark::Counter(
      static_cast<double>(reinserted), benchmark::Counter::kAvgIterations);
}

// ---- Registration
// ------------------------------------------------------------

// The structures our side is measured with; each gets a box2d twin under
// the same case name.
enum class Kind { kTree, kTreeGreedy, kBvh, kLbvh, kBvhRefit };

std::string KindName(Kind kind) {
  switch (kind) {
    case Kind::kTree:
      return "_Tree";
    case Kind::kTreeGreedy:
      return "_TreeGreedy";
    case Kind::kBvh:
      return "_Bvh";
    case Kind::kLbvh:
      return "_Lbvh";
    case Kind::kBvhRefit:
      return "_BvhRefit";
  }
  return "";
}

void Add(const std::string& name,
         std::function<void(benchmark::State&)> function) {
  benchmark::RegisterBenchmark(name.c_str(), std::move(function))
      ->Unit(benchmark::kMicrosecond);
}

void RegisterSize(int n, const std::string& tag) {
  for (const Kind kind :
       {Kind::kTree, Kind::kTreeGreedy, Kind::kBvh, Kind::kLbvh}) {
    const std::string suffix = KindName(kind);
    Add("Build" + tag + suffix + "/sator", [n, kind](benchmark::State& s) {
      switch (kind) {
        case Kind::kTree:
          return BuildTreeSator(s, n, SiblingSearch::kBranchAndBound);
        case Kind::kTreeGreedy:
          return BuildTreeSator(s, n, SiblingSearch::kGreedy);
        case Kind::kLbvh:
          return BuildBvhSator(s, n, BvhBuildMethod::kMorton);
        default:
          return BuildBvhSator(s, n, BvhBuildMethod::kBinnedSah);
      }
    });
    Add("Build" + tag + suffix + "/box2d",
        [n](benchmark::State& s) { BuildBox2d(s, n); });
  }
  for (const Kind kind : {Kind::kTree, Kind::kBvh, Kind::kLbvh}) {
    const std::string suffix = KindName(kind);
    Add("AabbQuery" + tag + suffix + "/sator", [n, kind](benchmark::State& s) {
      const Built& built = GetBuilt(n);
      if (kind == Kind::kTree) {
        AabbQuerySator(s, n, *built.tree, [&](std::uint32_t proxy) {
          return built.tree_body[proxy];
        });
      } else {
        AabbQuerySator(s, n, kind == Kind::kBvh ? *built.bvh : *built.lbvh,
                       [](std::uint32_t proxy) { return proxy; });
      }
    });
    Add("AabbQuery" + tag + suffix + "/box2d",
        [n](benchmark::State& s) { AabbQueryBox2d(s, n); });
    Add("Raycast" + tag + suffix + "/sator", [n, kind](benchmark::State& s) {
      const Built& built = GetBuilt(n);
      if (kind == Kind::kTree) {
        RaycastSator(s, n, *built.tree, [&](std::uint32_t proxy) {
          return built.tree_body[proxy];
        });
      } else {
        RaycastSator(s, n, kind == Kind::kBvh ? *built.bvh : *built.lbvh,
                     [](std::uint32_t proxy) { return proxy; });
      }
    });
    Add("Raycast" + tag + suffix + "/box2d",
        [n](benchmark::State& s) { RaycastBox2d(s, n); });
  }
  for (const auto& [scene_kind, stride] :
       {std::pair<std::string, int>{"_Static90", 10}, {"_Dynamic", 1}}) {
    const std::string prefix = "Update" + tag + scene_kind;
    for (const Kind kind : {Kind::kTree, Kind::kTreeGreedy, Kind::kBvh,
                            Kind::kLbvh, Kind::kBvhRefit}) {
      Add(prefix + KindName(kind) + "/sator",
          [n, stride = stride, kind](benchmark::State& s) {
            switch (kind) {
              case Kind::kTree:
                return UpdateTreeSator(s, n, stride,
                                       SiblingSearch::kBranchAndBound);
              case Kind::kTreeGreedy:
                return UpdateTreeSator(s, n, stride, SiblingSearch::kGreedy);
              case Kind::kBvh:
                return UpdateBvhSator(s, n, stride, /*refit=*/false,
                                      BvhBuildMethod::kBinnedSah);
              case Kind::kLbvh:
                return UpdateBvhSator(s, n, stride, /*refit=*/false,
                                      BvhBuildMethod::kMorton);
              case Kind::kBvhRefit:
                return UpdateBvhSator(s, n, stride, /*refit=*/true,
                                      BvhBuildMethod::kBinnedSah);
            }
          });
      Add(prefix + KindName(kind) + "/box2d",
          [n, stride = stride](benchmark::State& s) {
            UpdateBox2d(s, n, stride);
          });
    }
  }
}

}  // namespace
}  // namespace sator::broadphase

int main(int argc, char** argv) {
  // Without an explicit --benchmark_min_time each case runs for 0.1 s, so
  // the quick run (`make bench`: 10k and 100k) stays under a minute; pass
  // e.g. --benchmark_min_time=0.5 --benchmark_repetitions=5 to measure.
  std::string quick = "--benchmark_min_time=0.1";
  bool min_time_given = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind("--benchmark_min_time", 0) == 0) {
      min_time_given = true;
    }
  }
  std::vector<char*> args;
  args.reserve(static_cast<std::size_t>(argc) + 1);
  for (int i = 0; i < argc; ++i) {
    args.push_back(argv[i]);
    if (i == 0 && !min_time_given) args.push_back(quick.data());
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  sator::broadphase::RegisterSize(10000, "10k");
  sator::broadphase::RegisterSize(100000, "100k");
#if SATOR_BENCH_3D
  sator::broadphase::Register3d(100000, "100k");
#endif
  if (benchmark::GetBenchmarkFilter().find("1M") != std::string::npos) {
    sator::broadphase::RegisterSize(1000000, "1M");
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
