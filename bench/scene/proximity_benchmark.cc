// One tick of proximity evaluation (sator/core/scene/proximity.h) and the
// same answers from one overlap query per observer and per zone.
//
// Scene (2D, fixed seed): 10,000 dynamic bodies (circles of radius 0.3 to 1
// and boxes of half extent 0.3 to 1) in a 2000 x 2000 world, each moving up
// to 1.5 per tick, history of 8 ticks. 2,000 of the bodies are observers
// with r = 50 and h = 5; 200 zones: 100 fixed (circles of radius 10 to 40
// and boxes up to 30 x 30) and 100 auras of radius 15 carried by bodies.
// Every iteration moves every body (untimed) and times one tick's answers:
//
//   Tick/proximity     ProximityState::Evaluate: every zone and observer,
//                      one pass over the broad phase, events out.
//   Tick/per_query     what a caller without it does: SceneSnapshot::Overlap
//                      per zone and per observer (a circle of r + h; hits not
//                      visible before are tested against r with the core's
//                      pair query), each set sorted and diffed against the
//                      previous one into the same events.
//
// Both keep their own sets across iterations; setup checks that they give
// the same sets on the first ticks. Counters per tick: events, candidate
// pairs, narrow-phase tests, and the probe tree's node visits (for bodies
// too wide for the pass's grid: none here).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "sator/core/collide2d/queries2d.h"
#include "sator/core/scene/proximity.h"
#include "sator/core/scene/scene.h"

namespace sator::scene {
namespace {

constexpr int kBodies = 10000;
constexpr int kObservers = 2000;
constexpr int kFixedZones = 100;
constexpr int kAuras = 100;
constexpr float kWorld = 2000.0f;
constexpr float kMaxStep = 1.5f;
constexpr float kRadius = 50.0f;
constexpr float kHysteresis = 5.0f;
constexpr float kAuraRadius = 15.0f;

// The bodies and their motion, shared by both cases.
class Crowd {
 public:
  Crowd() : rng_(20261202) {
    std::uniform_real_distribution<float> coordinate(0.0f, kWorld);
    std::uniform_real_distribution<float> size(0.3f, 1.0f);
    SceneOptions options;
    options.history_ticks = 8;
    scene_ = Scene2::Create(options).value();
    std::vector<BodyDesc<2>> bodies;
    for (int i = 0; i < kBodies; ++i) {
      BodyDesc<2> body;
      body.id = static_cast<std::uint64_t>(i + 1);
      body.shape =
          i % 2 == 0
              ? std::make_shared<const Shape2>(Circle{size(rng_)})
              : std::make_shared<const Shape2>(Box2{{size(rng_), size(rng_)}});
      body.pose = Pose2::FromAngle({coordinate(rng_), coordinate(rng_)}, 0.0f);
      shapes_.push_back(body.shape);
      positions_.push_back(body.pose.position);
      bodies.push_back(body);
    }
    (void)scene_->UpsertBodies(bodies);
  }

  // Moves every body (bounded to the world) to the next tick.
  void Step() {
    std::uniform_real_distribution<float> step(-kMaxStep, kMaxStep);
    std::vector<PoseUpdate<2>> updates(positions_.size());
    for (std::size_t i = 0; i < positions_.size(); ++i) {
      Vec2& p = positions_[i];
      p = {std::clamp(p.x + step(rng_), 0.0f, kWorld),
           std::clamp(p.y + step(rng_), 0.0f, kWorld)};
      updates[i] = {static_cast<std::uint64_t>(i + 1),
                    Pose2::FromAngle(p, 0.0f), false};
    }
    (void)scene_->UpdatePoses(++tick_, updates);
  }

  Scene2& scene() { return *scene_; }
  const ShapePtr<2>& shape(std::uint64_t id) const { return shapes_[id - 1]; }
  Vec2 position(std::uint64_t id) const { return positions_[id - 1]; }

 private:
  std::mt19937 rng_;
  std::unique_ptr<Scene2> scene_;
  std::vector<ShapePtr<2>> shapes_;
  std::vector<Vec2> positions_;
  std::int64_t tick_ = 0;
};

// The zones and observers, as descriptors both cases use.
struct Probes {
  std::vector<ZoneDesc<2>> zones;
  std::vector<ObserverDesc<2>> observers;
};

Probes MakeProbes() {
  Probes probes;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coordinate(0.0f, kWorld);
  std::uniform_real_distribution<float> size(10.0f, 40.0f);
  for (int i = 0; i < kFixedZones + kAuras; ++i) {
    ZoneDesc<2> zone;
    zone.id = static_cast<std::uint64_t>(i + 1);
    if (i < kFixedZones) {
      zone.shape = i % 2 == 0
                       ? std::make_shared<const Shape2>(Circle{size(rng)})
                       : std::make_shared<const Shape2>(
                             Box2{{size(rng) / 1.3f, size(rng) / 1.3f}});
      zone.pose = Pose2::FromAngle({coordinate(rng), coordinate(rng)}, 0.3f);
    } else {
      zone.shape = std::make_shared<const Shape2>(Circle{kAuraRadius});
      // Carried by bodies after the observers.
      zone.anchor = {AnchorKind::kBody,
                     static_cast<std::uint64_t>(kObservers + i + 1)};
    }
    probes.zones.push_back(zone);
  }
  for (int i = 0; i < kObservers; ++i) {
    ObserverDesc<2> observer;
    observer.id = static_cast<std::uint64_t>(i + 1);
    observer.anchor = {AnchorKind::kBody, static_cast<std::uint64_t>(i + 1)};
    observer.radius = kRadius;
    observer.hysteresis = kHysteresis;
    probes.observers.push_back(observer);
  }
  return probes;
}

// The per-query caller: its own sets, one Overlap per zone and observer.
class PerQueryCaller {
 public:
  explicit PerQueryCaller(const Probes& probes) : probes_(probes) {
    outer_ = std::make_shared<const Shape2>(Circle{kRadius + kHysteresis});
    inner_ = std::make_shared<const Shape2>(Circle{kRadius});
    for (const ZoneDesc<2>& zone : probes.zones) {
      QueryOptions options;
      options.max_hits = 4096;
      if (zone.anchor.kind == AnchorKind::kBody) {
        options.filter.excluded_ids =
            std::vector<std::uint64_t>(1, zone.anchor.id);
      }
      zone_options_.push_back(options);
    }
    for (const ObserverDesc<2>& observer : probes.observers) {
      QueryOptions options;
      options.max_hits = 4096;
      options.filter.excluded_ids =
          std::vector<std::uint64_t>(1, observer.anchor.id);
      observer_options_.push_back(options);
    }
    zone_sets_.resize(probes.zones.size());
    observer_sets_.resize(probes.observers.size());
  }

  // One tick; returns the number of events.
  std::int64_t Tick(const Crowd& crowd, const SceneSnapshot<2>& snapshot) {
    std::int64_t events = 0;
    std::vector<std::uint64_t> next;
    auto diff = [&](std::vector<std::uint64_t>& set) {
      std::sort(next.begin(), next.end());
      std::size_t i = 0;
      std::size_t j = 0;
      while (i < set.size() || j < next.size()) {
        if (j == next.size() || (i < set.size() && set[i] < next[j])) {
          ++events, ++i;
        } else if (i == set.size() || next[j] < set[i]) {
          ++events, ++j;
        } else {
          ++i, ++j;
        }
      }
      set.swap(next);
    };
    for (std::size_t z = 0; z < probes_.zones.size(); ++z) {
      const ZoneDesc<2>& zone = probes_.zones[z];
      Pose2 pose = zone.pose;
      if (zone.anchor.kind == AnchorKind::kBody) {
        pose = Mul(Pose2::FromAngle(crowd.position(zone.anchor.id), 0.0f),
                   zone.pose);
      }
      absl::StatusOr<QueryResult<2>> result =
          snapshot.Overlap(*zone.shape, pose, zone_options_[z]);
      next.clear();
      for (const QueryHit<2>& hit : result->hits) next.push_back(hit.body_id);
      diff(zone_sets_[z]);
    }
    for (std::size_t o = 0; o < probes_.observers.size(); ++o) {
      const Pose2 at = Pose2::FromAngle(
          crowd.position(probes_.observers[o].anchor.id), 0.0f);
      absl::StatusOr<QueryResult<2>> result =
          snapshot.Overlap(*outer_, at, observer_options_[o]);
      std::vector<std::uint64_t>& set = observer_sets_[o];
      next.clear();
      for (const QueryHit<2>& hit : result->hits) {
        // Not visible yet: it must come within r.
        if (!std::binary_search(set.begin(), set.end(), hit.body_id) &&
            !sator::Overlap(
                *inner_, at, *crowd.shape(hit.body_id),
                Pose2::FromAngle(crowd.position(hit.body_id), 0.0f))) {
          continue;
        }
        next.push_back(hit.body_id);
      }
      diff(set);
    }
    return events;
  }

  const std::vector<std::uint64_t>& zone_set(std::size_t z) const {
    return zone_sets_[z];
  }
  const std::vector<std::uint64_t>& observer_set(std::size_t o) const {
    return observer_sets_[o];
  }

 private:
  const Probes& probes_;
  ShapePtr<2> outer_;
  ShapePtr<2> inner_;
  std::vector<QueryOptions> zone_options_;
  std::vector<QueryOptions> observer_options_;
  std::vector<std::vector<std::uint64_t>> zone_sets_;
  std::vector<std::vector<std::uint64_t>> observer_sets_;
};

std::unique_ptr<ProximityState2> MakeState(const Probes& probes,
                                           const SceneSnapshot<2>& snapshot) {
  auto state = ProximityState2::Create().value();
  for (const ZoneDesc<2>& zone : probes.zones) {
    (void)state->AddZone(zone, snapshot);
  }
  for (const ObserverDesc<2>& observer : probes.observers) {
    (void)state->AddObserver(observer, snapshot);
  }
  return state;
}

// Both callers over the same ticks must hold the same sets.
bool SameAnswers(int ticks) {
  Crowd crowd;
  const Probes probes = MakeProbes();
  auto state = MakeState(probes, crowd.scene().Snapshot());
  PerQueryCaller caller(probes);
  for (int t = 0; t < ticks; ++t) {
    crowd.Step();
    const SceneSnapshot<2> snapshot = crowd.scene().Snapshot();
    if (!state->Evaluate(snapshot).ok()) return false;
    caller.Tick(crowd, snapshot);
    for (const ProximitySet& set : state->CurrentSets()) {
      std::vector<std::uint64_t> ids;
      for (const ProximityObject& object : set.objects) {
        ids.push_back(object.body_id);
      }
      const std::size_t index = static_cast<std::size_t>(set.source_id - 1);
      if (ids != (set.source == ProximitySource::kZone
                      ? caller.zone_set(index)
                      : caller.observer_set(index))) {
        return false;
      }
    }
  }
  return true;
}

void TickProximity(benchmark::State& state) {
  Crowd crowd;
  const Probes probes = MakeProbes();
  auto proximity = MakeState(probes, crowd.scene().Snapshot());
  crowd.Step();
  (void)proximity->Evaluate(crowd.scene().Snapshot());
  std::int64_t events = 0;
  std::int64_t candidates = 0;
  std::int64_t narrow = 0;
  std::int64_t node_visits = 0;
  for (auto _ : state) {
    state.PauseTiming();
    crowd.Step();
    const SceneSnapshot<2> snapshot = crowd.scene().Snapshot();
    state.ResumeTiming();
    absl::StatusOr<ProximityTick> tick = proximity->Evaluate(snapshot);
    benchmark::DoNotOptimize(tick);
    events += static_cast<std::int64_t>(tick->events.size());
    candidates += tick->stats.candidate_pairs;
    narrow += tick->stats.narrow_tests;
    node_visits += tick->stats.tree.node_visits;
  }
  state.counters["node_visits"] = benchmark::Counter(
      static_cast<double>(node_visits), benchmark::Counter::kAvgIterations);
  state.counters["events"] = benchmark::Counter(
      static_cast<double>(events), benchmark::Counter::kAvgIterations);
  state.counters["candidates"] = benchmark::Counter(
      static_cast<double>(candidates), benchmark::Counter::kAvgIterations);
  state.counters["narrow_tests"] = benchmark::Counter(
      static_cast<double>(narrow), benchmark::Counter::kAvgIterations);
}

void TickPerQuery(benchmark::State& state) {
  Crowd crowd;
  const Probes probes = MakeProbes();
  PerQueryCaller caller(probes);
  crowd.Step();
  caller.Tick(crowd, crowd.scene().Snapshot());
  std::int64_t events = 0;
  for (auto _ : state) {
    state.PauseTiming();
    crowd.Step();
    const SceneSnapshot<2> snapshot = crowd.scene().Snapshot();
    state.ResumeTiming();
    events += caller.Tick(crowd, snapshot);
  }
  state.counters["events"] = benchmark::Counter(
      static_cast<double>(events), benchmark::Counter::kAvgIterations);
}

}  // namespace
}  // namespace sator::scene

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (!sator::scene::SameAnswers(5)) {
    std::fprintf(stderr, "proximity and per-query answers differ\n");
    return 1;
  }
  benchmark::RegisterBenchmark("Tick/proximity", sator::scene::TickProximity)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Tick/per_query", sator::scene::TickPerQuery)
      ->Unit(benchmark::kMillisecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
