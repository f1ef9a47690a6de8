// Drives a synchronous operation from many threads, closed loop or open
// loop, and records every latency.
//
// Closed loop: `concurrency` workers, each issuing its next operation as soon
// as the previous one returns (throughput at a fixed number of callers).
// Open loop: operations are due at a fixed rate (operation i at start + i /
// rate); `concurrency` workers take them in order, and each latency is
// measured from the time the operation was DUE, not from when a worker got
// to it. A server that stalls therefore shows its stall in every operation
// that queued behind it, instead of hiding it by slowing the generator down
// ("coordinated omission", Gil Tene; the approach of wrk2).
#ifndef SATOR_TOOLS_SATOR_BENCH_LOAD_LOOP_H_
#define SATOR_TOOLS_SATOR_BENCH_LOAD_LOOP_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "tools/sator-bench/latency_histogram.h"

namespace sator::bench {

struct LoadOptions {
  bool open_loop = false;
  int concurrency = 1;
  // Open loop only: operations per second, over all workers.
  double rate = 1000.0;
  // Operations in the warm-up are run but not recorded.
  absl::Duration warmup = absl::Seconds(1);
  absl::Duration duration = absl::Seconds(5);
  // A bound on the operations recorded (0: no bound), so a run ends early
  // when it has enough.
  std::int64_t max_operations = 0;
  // A process (satord) whose CPU time over the measured window is reported
  // (0: none).
  int cpu_pid = 0;
};

struct LoadResult {
  LatencyHistogram latency;
  std::int64_t errors = 0;
  // The first error seen, for the report.
  std::string first_error;
  // Recorded operations per second of the measured window.
  double ops_per_second = 0.0;
  double seconds = 0.0;
  // The CPU seconds of LoadOptions::cpu_pid from the end of the warm-up to
  // the last operation's return, when it was asked for and could be read
  // (the window runs to the last return, a little past `seconds`' end).
  std::optional<double> cpu_seconds;
};

// One operation, run on worker `worker` (0 to concurrency - 1). It returns
// the operation's status; errors are counted, and their latency is not
// recorded.
using Operation = std::function<absl::Status(int worker)>;

LoadResult RunLoad(const LoadOptions& options, const Operation& operation);

}  // namespace sator::bench

#endif  // SATOR_TOOLS_SATOR_BENCH_LOAD_LOOP_H_
