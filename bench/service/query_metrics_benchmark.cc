// What recording one scene query's metrics costs (QueryMetrics::Record: the
// sator_query_seconds, sator_query_hits and sator_broadphase_node_visits
// histograms and the rewound counter), next to the same three observations
// through prometheus-cpp histograms with references kept (whose Observe
// takes a mutex per series). With ->Threads(2) every thread records into the
// same (kind, mode) series: the sharded cells do not contend, the mutexes do.
// Compare the per-call time with BM_PingUnary's p50 for the share of an RPC.
// QueryMetrics16: a QueryBatch chunk of 16 queries reported one at a time
// against all at once (OnQueries: one atomic add per cell touched).
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "server/metrics/query_metrics.h"
#include "server/scenes/scene_registry.h"

namespace {

using sator::scene::QueryKind;
using sator::server::QueryMetrics;
using sator::server::QueryModeLabel;

void BM_QueryMetricsRecord(benchmark::State& state) {
  static QueryMetrics* metrics =
      new QueryMetrics(nullptr, absl::ZeroDuration());
  double seconds = 20e-6;
  for (auto _ : state) {
    metrics->Record(QueryKind::kRaycast, QueryModeLabel::kClosest, seconds,
                    /*hits=*/1, /*node_visits=*/37, /*rewound=*/false);
    seconds += 1e-9;
  }
  benchmark::DoNotOptimize(seconds);
}
BENCHMARK(BM_QueryMetricsRecord)->Name("QueryMetricsRecord/sator")->Threads(1);
BENCHMARK(BM_QueryMetricsRecord)->Name("QueryMetricsRecord/sator")->Threads(2);

// A chunk of 16 answered raycasts, as a QueryBatch reports them: each
// through OnQuery, against all of them through one OnQueries.
std::vector<sator::server::QueryObservation> SixteenQueries() {
  std::vector<sator::server::QueryObservation> queries;
  for (int i = 0; i < 16; ++i) {
    queries.push_back({.scene_id = "bench",
                       .kind = QueryKind::kRaycast,
                       .mode = QueryModeLabel::kClosest,
                       .duration = absl::Nanoseconds(600 + 37 * i),
                       .hits = i % 2,
                       .node_visits = 60 + i});
  }
  return queries;
}

void BM_QueryMetricsOnQueryEach(benchmark::State& state) {
  static QueryMetrics* metrics =
      new QueryMetrics(nullptr, absl::ZeroDuration());
  const std::vector<sator::server::QueryObservation> queries = SixteenQueries();
  for (auto _ : state) {
    for (const auto& query : queries) metrics->OnQuery(query);
  }
  state.SetItemsProcessed(state.iterations() * 16);
}
BENCHMARK(BM_QueryMetricsOnQueryEach)->Name("QueryMetrics16/each");

void BM_QueryMetricsOnQueries(benchmark::State& state) {
  static QueryMetrics* metrics =
      new QueryMetrics(nullptr, absl::ZeroDuration());
  const std::vector<sator::server::QueryObservation> queries = SixteenQueries();
  for (auto _ : state) metrics->OnQueries(queries);
  state.SetItemsProcessed(state.iterations() * 16);
}
BENCHMARK(BM_QueryMetricsOnQueries)->Name("QueryMetrics16/chunk");

struct PrometheusHistograms {
  prometheus::Registry registry;
  prometheus::Histogram* seconds;
  prometheus::Histogram* hits;
  prometheus::Histogram* visits;
  PrometheusHistograms() {
    seconds = &prometheus::BuildHistogram()
                   .Name("q_seconds")
                   .Register(registry)
                   .Add({}, sator::server::QuerySecondsBuckets());
    hits = &prometheus::BuildHistogram().Name("q_hits").Register(registry).Add(
        {}, sator::server::QueryHitsBuckets());
    visits = &prometheus::BuildHistogram()
                  .Name("q_visits")
                  .Register(registry)
                  .Add({}, sator::server::NodeVisitsBuckets());
  }
};

void BM_PrometheusHistogramsObserve(benchmark::State& state) {
  static PrometheusHistograms* histograms = new PrometheusHistograms();
  double seconds = 20e-6;
  for (auto _ : state) {
    histograms->seconds->Observe(seconds);
    histograms->hits->Observe(1);
    histograms->visits->Observe(37);
    seconds += 1e-9;
  }
  benchmark::DoNotOptimize(seconds);
}
BENCHMARK(BM_PrometheusHistogramsObserve)
    ->Name("QueryMetricsRecord/prometheus-cpp")
    ->Threads(1);
BENCHMARK(BM_PrometheusHistogramsObserve)
    ->Name("QueryMetricsRecord/prometheus-cpp")
    ->Threads(2);

// A scrape's cost for the scene gauges (sator_scenes, sator_bodies): one
// pass over every body of every scene.
void BM_QueryMetricsCollect(benchmark::State& state) {
  sator::server::SceneRegistry scenes{sator::server::SceneLimits{}};
  auto scene = scenes.Create("bench", {.dimension = 3});
  if (!scene.ok()) {
    state.SkipWithError("cannot create the scene");
    return;
  }
  const auto sphere = std::make_shared<const sator::Shape3>(sator::Sphere{1});
  std::vector<sator::scene::BodyDesc<3>> bodies;
  for (std::int64_t i = 0; i < state.range(0); ++i) {
    bodies.push_back({.id = static_cast<std::uint64_t>(i + 1),
                      .shape = sphere,
                      .pose = {{static_cast<float>(i % 1000) * 3.0f,
                                static_cast<float>(i / 1000) * 3.0f, 0.0f},
                               {}}});
  }
  if (!(*scene)->scene3()->UpsertBodies(bodies).ok()) {
    state.SkipWithError("cannot add the bodies");
    return;
  }
  QueryMetrics metrics(&scenes, absl::ZeroDuration());
  for (auto _ : state) {
    const auto families = metrics.Collect();
    benchmark::DoNotOptimize(families.size());
  }
}
BENCHMARK(BM_QueryMetricsCollect)
    ->Name("QueryMetricsCollect/sator")
    ->ArgName("bodies")
    ->Arg(0)
    ->Arg(100000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
