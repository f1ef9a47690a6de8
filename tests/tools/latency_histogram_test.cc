// LatencyHistogram: bucket bounds, quantiles against exact order statistics,
// merging; RunLoad: counting, errors, bounds, the observed process's CPU;
// ProcessCpuSeconds.
#include "tools/sator-bench/latency_histogram.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tools/sator-bench/load_loop.h"
#include "tools/sator-bench/process_cpu.h"

namespace sator::bench {
namespace {

TEST(LatencyHistogramTest, EveryValueLiesInItsBucketWithinTheStatedError) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> log_value(0.0, 36.0);
  for (int i = 0; i < 100000; ++i) {
    const auto value = static_cast<std::int64_t>(std::exp2(log_value(random)));
    const int bucket = LatencyHistogram::BucketOf(value);
    const std::int64_t upper = LatencyHistogram::UpperEdge(bucket);
    const std::int64_t lower =
        bucket == 0 ? 0 : LatencyHistogram::UpperEdge(bucket - 1) + 1;
    ASSERT_LE(lower, value) << value;
    ASSERT_GE(upper, value) << value;
    // Width at most 1/64 of the value (values under 128 are exact).
    ASSERT_LE(static_cast<double>(upper - lower),
              std::max(0.0, static_cast<double>(value) / 64.0))
        << value;
  }
}

TEST(LatencyHistogramTest, QuantilesMatchExactOrderStatistics) {
  std::mt19937_64 random(11);
  std::lognormal_distribution<double> latency(12.0, 1.0);  // ~160 us median
  std::vector<std::int64_t> values;
  LatencyHistogram histogram;
  for (int i = 0; i < 50000; ++i) {
    const auto value = static_cast<std::int64_t>(latency(random));
    values.push_back(value);
    histogram.Record(value);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.0, 0.5, 0.9, 0.99, 0.999, 1.0}) {
    const std::size_t rank = std::max<std::size_t>(
        1, static_cast<std::size_t>(std::ceil(q * values.size())));
    const std::int64_t exact = values[rank - 1];
    const std::int64_t reported = histogram.ValueAtQuantile(q);
    EXPECT_GE(reported, exact) << q;
    EXPECT_LE(static_cast<double>(reported),
              static_cast<double>(exact) * (1.0 + 1.0 / 64.0) + 1.0)
        << q;
  }
  EXPECT_EQ(histogram.max(), values.back());
  EXPECT_EQ(histogram.count(), 50000);
}

TEST(LatencyHistogramTest, MergeEqualsRecordingEverything) {
  LatencyHistogram a;
  LatencyHistogram b;
  LatencyHistogram both;
  for (std::int64_t v = 1; v < 200000; v += 37) {
    (v % 3 == 0 ? a : b).Record(v);
    both.Record(v);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), both.count());
  EXPECT_EQ(a.max(), both.max());
  EXPECT_DOUBLE_EQ(a.mean(), both.mean());
  for (double q : {0.1, 0.5, 0.99}) {
    EXPECT_EQ(a.ValueAtQuantile(q), both.ValueAtQuantile(q));
  }
  EXPECT_EQ(LatencyHistogram().ValueAtQuantile(0.5), 0);
}

TEST(RunLoadTest, ClosedLoopStopsAtTheOperationBoundAndCountsErrors) {
  std::atomic<int> calls{0};
  LoadOptions options;
  options.concurrency = 3;
  options.warmup = absl::ZeroDuration();
  options.duration = absl::Seconds(30);  // The bound below ends it first.
  options.max_operations = 300;
  const LoadResult result = RunLoad(options, [&](int worker) {
    EXPECT_GE(worker, 0);
    EXPECT_LT(worker, 3);
    const int call = calls.fetch_add(1);
    return call % 4 == 3 ? absl::UnavailableError("every fourth fails")
                         : absl::OkStatus();
  });
  EXPECT_GE(result.latency.count(), 300);
  EXPECT_LT(result.latency.count(), 300 + 3);
  EXPECT_EQ(result.latency.count() + result.errors, calls.load());
  EXPECT_GT(result.errors, 0);
  EXPECT_NE(result.first_error.find("every fourth fails"), std::string::npos);
}

TEST(RunLoadTest, OpenLoopRunsOperationsOnlyUntilTheWindowCloses) {
  std::atomic<int> calls{0};
  LoadOptions options;
  options.open_loop = true;
  options.concurrency = 2;
  options.rate = 2000.0;
  options.warmup = absl::ZeroDuration();
  options.duration = absl::Milliseconds(100);
  const LoadResult result = RunLoad(options, [&](int) {
    calls.fetch_add(1);
    return absl::OkStatus();
  });
  // Operations are due at i / rate for due times inside the window: at most
  // rate * duration of them, whatever the machine's speed.
  EXPECT_LE(calls.load(), 200);
  EXPECT_EQ(result.latency.count(), calls.load());
  EXPECT_EQ(result.errors, 0);
}

// This process's CPU time reads, and grows with work done (bounded: the
// clock-tick resolution is 10 ms, the loop gives up after 20 s of work).
TEST(ProcessCpuSecondsTest, ReadsThisProcessAndGrowsWithWork) {
  const std::optional<double> before = ProcessCpuSeconds(getpid());
  ASSERT_TRUE(before.has_value());
  EXPECT_GE(*before, 0.0);
  std::optional<double> after = before;
  volatile std::uint64_t sink = 0;
  const std::int64_t started = ThreadCpuNanoseconds();
  while (after.has_value() && *after <= *before &&
         ThreadCpuNanoseconds() - started < 20'000'000'000) {
    for (int i = 0; i < 1'000'000; ++i) sink = sink + static_cast<unsigned>(i);
    after = ProcessCpuSeconds(getpid());
  }
  ASSERT_TRUE(after.has_value());
  EXPECT_GT(*after, *before);
}

TEST(ProcessCpuSecondsTest, UnsetForNoProcess) {
  EXPECT_FALSE(ProcessCpuSeconds(0).has_value());
  EXPECT_FALSE(ProcessCpuSeconds(-1).has_value());
  // Above any pid_max (4194304 at most on Linux).
  EXPECT_FALSE(ProcessCpuSeconds(1 << 30).has_value());
}

TEST(RunLoadTest, ReportsTheObservedProcessCpuOnlyWhenAsked) {
  LoadOptions options;
  options.warmup = absl::ZeroDuration();
  options.duration = absl::Seconds(30);
  options.max_operations = 50;
  const auto operation = [](int) { return absl::OkStatus(); };
  EXPECT_FALSE(RunLoad(options, operation).cpu_seconds.has_value());
  options.cpu_pid = getpid();
  const LoadResult observed = RunLoad(options, operation);
  ASSERT_TRUE(observed.cpu_seconds.has_value());
  EXPECT_GE(*observed.cpu_seconds, 0.0);
  options.cpu_pid = 1 << 30;
  EXPECT_FALSE(RunLoad(options, operation).cpu_seconds.has_value());
}

}  // namespace
}  // namespace sator::bench
