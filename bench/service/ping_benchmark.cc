// The latency floor: Ping through the client library to an in-process satord
// server on loopback, one call at a time. Every query benchmark of the
// service compares against these figures.
//
// Besides Google Benchmark's mean time per call, each run reports the median
// (p50_us) and p99 (p99_us) of the individual call latencies.
//
// BM_PingUnary/<payload>/metrics:1 runs against a server recording the
// grpc_server_* metrics (satord's default), metrics:0 against one that does
// not, side by side in one binary: their ratio is the metrics' cost.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "sator/client/client.h"
#include "server/logging.h"
#include "server/server.h"

namespace {

struct Fixture {
  std::unique_ptr<sator::server::Server> server;
  std::optional<sator::Client> client;
};

Fixture* MakeFixture(bool grpc_metrics) {
  sator::server::SetMinLogLevel(sator::server::LogLevel::kWarning);
  auto* made = new Fixture();
  sator::server::ServerOptions options;
  options.grpc_address = "127.0.0.1:0";
  options.metrics_address = "";
  options.enable_grpc_metrics = grpc_metrics;
  made->server = *sator::server::Server::Start(options);
  made->client = *sator::Client::Make(
      {.target = absl::StrCat("127.0.0.1:", made->server->grpc_port())});
  return made;
}

Fixture& SharedFixture(bool grpc_metrics) {
  static Fixture* with_metrics = MakeFixture(true);
  static Fixture* without_metrics = MakeFixture(false);
  return grpc_metrics ? *with_metrics : *without_metrics;
}

double Percentile(std::vector<double>& values, double fraction) {
  if (values.empty()) return 0.0;
  const size_t index = static_cast<size_t>(
      fraction * static_cast<double>(values.size() - 1) + 0.5);
  std::nth_element(values.begin(), values.begin() + static_cast<long>(index),
                   values.end());
  return values[index];
}

void BM_PingUnary(benchmark::State& state) {
  Fixture& fixture = SharedFixture(state.range(1) != 0);
  const std::string payload(static_cast<size_t>(state.range(0)), 'x');
  // Warm the connection up before timing.
  for (int i = 0; i < 50; ++i) {
    if (!fixture.client->Ping(payload).ok()) {
      state.SkipWithError("Ping failed");
      return;
    }
  }
  std::vector<double> latencies_us;
  latencies_us.reserve(1 << 16);
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const absl::StatusOr<sator::PingResult> pong =
        fixture.client->Ping(payload);
    const auto end = std::chrono::steady_clock::now();
    if (!pong.ok()) {
      state.SkipWithError("Ping failed");
      return;
    }
    benchmark::DoNotOptimize(pong->payload.size());
    latencies_us.push_back(
        std::chrono::duration<double, std::micro>(end - start).count());
  }
  state.counters["p50_us"] = Percentile(latencies_us, 0.50);
  state.counters["p99_us"] = Percentile(latencies_us, 0.99);
  state.SetBytesProcessed(state.iterations() * state.range(0) * 2);
}
BENCHMARK(BM_PingUnary)
    ->ArgNames({"payload", "metrics"})
    ->ArgsProduct({{0, 64, 1024}, {0, 1}})
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
