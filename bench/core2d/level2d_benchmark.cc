// A 100k-edge 2D level against Box2D 2.4.1's world over the same chains.
//
// The level: 100 closed one-sided loops of 1000 points (star-shaped, about
// 40 m across, on a 10 x 10 grid of 100 m cells), as Sator chains and as
// Box2D chain fixtures of one static body. Both sides answer through their
// world-level entry points:
//  - LevelRayCast: the nearest hit of a 60 m ray (Box2D: b2World::RayCast
//    with the closest-hit callback);
//  - LevelBoxContacts: every edge contact of a 1 m box near a loop's
//    surface (Sator: ContactAll; Box2D: the broad phase's AABB query, then
//    b2CollideEdgeAndPolygon on each child edge it reports).
// LevelBuild100k reports the build of the same level, LevelDecompose the
// convex decomposition per vertex and its piece count, and
// LevelDecomposeBayazit the pieces Bayazit's decomposition cuts the same
// polygons into.
//
//   level2d_benchmark --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
#include <box2d/box2d.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "core2d/bayazit_decomposition.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide2d/queries2d.h"

namespace sator {
namespace {

constexpr int kLoops = 100;
constexpr int kLoopPoints = 1000;
constexpr int kQueries = 4096;

std::vector<std::vector<Vec2>> Loops() {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> radius(15.0f, 20.0f);
  std::vector<std::vector<Vec2>> loops;
  for (int cell = 0; cell < kLoops; ++cell) {
    const Vec2 centre{100.0f * static_cast<float>(cell % 10),
                      100.0f * static_cast<float>(cell / 10)};
    std::vector<Vec2> loop;
    for (int i = 0; i < kLoopPoints; ++i) {
      const float angle = 2.0f * std::numbers::pi_v<float> *
                          static_cast<float>(i) / kLoopPoints;
      const float r = radius(rng);
      loop.push_back(
          {centre.x + r * std::cos(angle), centre.y + r * std::sin(angle)});
    }
    loops.push_back(std::move(loop));
  }
  return loops;
}

LevelDesc2 Desc() {
  LevelDesc2 desc;
  for (std::vector<Vec2>& loop : Loops()) {
    desc.chains.push_back({std::move(loop), true, true});
  }
  return desc;
}

const std::shared_ptr<const Level2>& SatorLevel() {
  static const std::shared_ptr<const Level2> level = *MakeLevel2(Desc());
  return level;
}

struct Box2dLevel {
  b2World world{b2Vec2(0.0f, 0.0f)};
  Box2dLevel() {
    b2BodyDef def;
    b2Body* body = world.CreateBody(&def);
    for (const std::vector<Vec2>& loop : Loops()) {
      std::vector<b2Vec2> points;
      for (Vec2 v : loop) points.emplace_back(v.x, v.y);
      b2ChainShape chain;
      chain.CreateLoop(points.data(), static_cast<int32>(points.size()));
      body->CreateFixture(&chain, 0.0f);
    }
  }
};
Box2dLevel& B2Level() {
  static Box2dLevel level;
  return level;
}

// Rays from around a loop towards its centre and past it (most hit).
std::vector<Ray<2>> Rays() {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> cell(0, kLoops - 1);
  std::uniform_real_distribution<float> angle(0.0f,
                                              2.0f * std::numbers::pi_v<float>);
  std::uniform_real_distribution<float> aim(-0.6f, 0.6f);
  std::vector<Ray<2>> rays;
  for (int i = 0; i < kQueries; ++i) {
    const int c = cell(rng);
    const Vec2 centre{100.0f * static_cast<float>(c % 10),
                      100.0f * static_cast<float>(c / 10)};
    const float a = angle(rng);
    const Vec2 from = centre + 35.0f * Vec2{std::cos(a), std::sin(a)};
    const float toward = a + std::numbers::pi_v<float> + aim(rng);
    rays.push_back({from, Vec2{std::cos(toward), std::sin(toward)}, 60.0f});
  }
  return rays;
}

// Boxes straddling a loop's surface.
std::vector<Pose2> Boxes() {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> cell(0, kLoops - 1);
  std::uniform_real_distribution<float> angle(0.0f,
                                              2.0f * std::numbers::pi_v<float>);
  std::uniform_real_distribution<float> radius(14.5f, 20.5f);
  std::vector<Pose2> poses;
  for (int i = 0; i < kQueries; ++i) {
    const int c = cell(rng);
    const Vec2 centre{100.0f * static_cast<float>(c % 10),
                      100.0f * static_cast<float>(c / 10)};
    const float a = angle(rng);
    poses.push_back(Pose2::FromAngle(
        centre + radius(rng) * Vec2{std::cos(a), std::sin(a)}, angle(rng)));
  }
  return poses;
}

void LevelRayCastSator(benchmark::State& state) {
  const Shape2 level = SatorLevel();
  const std::vector<Ray<2>> rays = Rays();
  std::size_t i = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const RayResult<2> r = RayCast(level, Pose2{}, rays[i]);
    hits += r.hit ? 1 : 0;
    benchmark::DoNotOptimize(r);
    i = (i + 1) % rays.size();
  }
  state.counters["hit_fraction"] =
      static_cast<double>(hits) / static_cast<double>(state.iterations());
}

class ClosestHit : public b2RayCastCallback {
 public:
  float ReportFixture(b2Fixture* /*fixture*/, const b2Vec2& /*point*/,
                      const b2Vec2& /*normal*/, float fraction) override {
    hit = true;
    closest = fraction;
    return fraction;
  }
  bool hit = false;
  float closest = 1.0f;
};

void LevelRayCastBox2d(benchmark::State& state) {
  Box2dLevel& level = B2Level();
  const std::vector<Ray<2>> rays = Rays();
  std::size_t i = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const Ray<2>& r = rays[i];
    ClosestHit callback;
    level.world.RayCast(&callback, b2Vec2(r.origin.x, r.origin.y),
                        b2Vec2(r.origin.x + r.max_distance * r.direction.x,
                               r.origin.y + r.max_distance * r.direction.y));
    hits += callback.hit ? 1 : 0;
    benchmark::DoNotOptimize(callback.closest);
    i = (i + 1) % rays.size();
  }
  state.counters["hit_fraction"] =
      static_cast<double>(hits) / static_cast<double>(state.iterations());
}

void LevelBoxContactsSator(benchmark::State& state) {
  const Level2& level = *SatorLevel();
  const Shape2 box = Box2{{0.5f, 0.5f}};
  const std::vector<Pose2> poses = Boxes();
  std::size_t i = 0;
  std::int64_t contacts = 0;
  for (auto _ : state) {
    const std::vector<LevelContact2> all =
        ContactAll(box, poses[i], level, Pose2{});
    contacts += static_cast<std::int64_t>(all.size());
    benchmark::DoNotOptimize(all.data());
    i = (i + 1) % poses.size();
  }
  state.counters["contacts_per_query"] =
      static_cast<double>(contacts) / static_cast<double>(state.iterations());
}

struct EdgeCollector {
  const b2BroadPhase* broad_phase;
  const b2PolygonShape* box;
  b2Transform box_xf;
  int contacts = 0;
  bool QueryCallback(int32 proxy_id) {
    const auto* proxy =
        static_cast<const b2FixtureProxy*>(broad_phase->GetUserData(proxy_id));
    const auto* chain =
        static_cast<const b2ChainShape*>(proxy->fixture->GetShape());
    b2EdgeShape edge;
    chain->GetChildEdge(&edge, proxy->childIndex);
    b2Manifold manifold;
    b2Transform identity;
    identity.SetIdentity();
    b2CollideEdgeAndPolygon(&manifold, &edge, identity, box, box_xf);
    contacts += manifold.pointCount > 0 ? 1 : 0;
    return true;
  }
};

void LevelBoxContactsBox2d(benchmark::State& state) {
  Box2dLevel& level = B2Level();
  const b2BroadPhase& broad_phase =
      level.world.GetContactManager().m_broadPhase;
  b2PolygonShape box;
  box.SetAsBox(0.5f, 0.5f);
  const std::vector<Pose2> poses = Boxes();
  std::size_t i = 0;
  std::int64_t contacts = 0;
  for (auto _ : state) {
    EdgeCollector collector{&broad_phase, &box, {}};
    collector.box_xf.Set(b2Vec2(poses[i].position.x, poses[i].position.y),
                         0.0f);
    collector.box_xf.q.c = poses[i].rotation.c;
    collector.box_xf.q.s = poses[i].rotation.s;
    b2AABB aabb;
    box.ComputeAABB(&aabb, collector.box_xf, 0);
    broad_phase.Query(&collector, aabb);
    contacts += collector.contacts;
    benchmark::DoNotOptimize(collector.contacts);
    i = (i + 1) % poses.size();
  }
  state.counters["contacts_per_query"] =
      static_cast<double>(contacts) / static_cast<double>(state.iterations());
}

void LevelBuild100k(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<std::shared_ptr<const Level2>> level = MakeLevel2(Desc());
    benchmark::DoNotOptimize(level);
  }
  state.counters["edges"] = static_cast<double>(kLoops * kLoopPoints);
}

// The decomposition's inputs, counter-clockwise, of about n vertices:
// kind 0 a star of alternating radii (n / 2 reflex vertices in a ring),
// kind 1 a comb of bars of varying height on a base (n / 2 - 1 reflex
// vertices, each facing a neighbour bar's corner).
std::vector<Vec2> DecompositionInput(int n, int kind) {
  std::vector<Vec2> outline;
  if (kind == 0) {
    for (int i = 0; i < n; ++i) {
      const float angle = 2.0f * std::numbers::pi_v<float> *
                          static_cast<float>(i) / static_cast<float>(n);
      const float r = i % 2 == 0 ? 10.0f : 6.0f;
      outline.push_back({r * std::cos(angle), r * std::sin(angle)});
    }
    return outline;
  }
  const int bars = n / 2 - 1;
  outline = {{0.0f, 0.0f}, {static_cast<float>(bars), 0.0f}};
  for (int i = bars - 1; i >= 0; --i) {
    const auto height = static_cast<float>(2 + (i * 3) % 4);
    outline.push_back({static_cast<float>(i + 1), height});
    outline.push_back({static_cast<float>(i), height});
  }
  return outline;
}

// One concave polygon (DecompositionInput): the decomposition's cost per
// vertex and its piece count.
void LevelDecompose(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::vector<Vec2> outline =
      DecompositionInput(n, static_cast<int>(state.range(1)));
  LevelDesc2 desc;
  desc.polygons.push_back({outline, {}});
  std::size_t pieces = 0;
  for (auto _ : state) {
    absl::StatusOr<std::shared_ptr<const Level2>> level = MakeLevel2(desc);
    pieces = (*level)->pieces().size();
    benchmark::DoNotOptimize(level);
  }
  state.counters["pieces"] = static_cast<double>(pieces);
  state.counters["per_vertex"] =
      benchmark::Counter(static_cast<double>(outline.size()),
                         benchmark::Counter::kIsIterationInvariantRate |
                             benchmark::Counter::kInvert);
}

// Bayazit's decomposition of the same polygons (bayazit_decomposition.h),
// for its piece count. Its pieces are checked first: convex, and of the
// polygon's area in all.
void LevelDecomposeBayazit(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<bench::PointD> polygon;
  for (Vec2 v : DecompositionInput(n, static_cast<int>(state.range(1)))) {
    polygon.push_back({v.x, v.y});
  }
  auto twice_area = [](const std::vector<bench::PointD>& ring) {
    double sum = 0.0;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const bench::PointD a = ring[i];
      const bench::PointD b = ring[(i + 1) % ring.size()];
      sum += a.x * b.y - a.y * b.x;
    }
    return sum;
  };
  const std::vector<std::vector<bench::PointD>> check =
      bench::BayazitDecompose(polygon);
  double area = 0.0;
  for (const std::vector<bench::PointD>& piece : check) {
    area += twice_area(piece);
    for (std::size_t i = 0; i < piece.size(); ++i) {
      const bench::PointD a = piece[i];
      const bench::PointD b = piece[(i + 1) % piece.size()];
      const bench::PointD c = piece[(i + 2) % piece.size()];
      if ((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x) < -1e-9) {
        state.SkipWithError("a Bayazit piece is not convex");
        return;
      }
    }
  }
  if (std::fabs(area - twice_area(polygon)) > 1e-9 * twice_area(polygon)) {
    state.SkipWithError("the Bayazit pieces do not tile the polygon");
    return;
  }
  for (auto _ : state) {
    std::vector<std::vector<bench::PointD>> pieces =
        bench::BayazitDecompose(polygon);
    benchmark::DoNotOptimize(pieces.data());
  }
  state.counters["pieces"] = static_cast<double>(check.size());
  state.counters["per_vertex"] =
      benchmark::Counter(static_cast<double>(polygon.size()),
                         benchmark::Counter::kIsIterationInvariantRate |
                             benchmark::Counter::kInvert);
}

BENCHMARK(LevelRayCastSator)->Name("LevelRayCast100k/sator");
BENCHMARK(LevelRayCastBox2d)->Name("LevelRayCast100k/box2d");
BENCHMARK(LevelBoxContactsSator)->Name("LevelBoxContacts100k/sator");
BENCHMARK(LevelBoxContactsBox2d)->Name("LevelBoxContacts100k/box2d");
BENCHMARK(LevelBuild100k)->Unit(benchmark::kMillisecond);
BENCHMARK(LevelDecompose)
    ->ArgsProduct({{64, 256, 1024}, {0, 1}})
    ->ArgNames({"vertices", "comb"})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(LevelDecomposeBayazit)
    ->ArgsProduct({{64, 256, 1024}, {0, 1}})
    ->ArgNames({"vertices", "comb"})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sator

BENCHMARK_MAIN();
