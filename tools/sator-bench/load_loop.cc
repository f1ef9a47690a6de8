#include "tools/sator-bench/load_loop.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "tools/sator-bench/process_cpu.h"

namespace sator::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct WorkerTally {
  LatencyHistogram latency;
  std::int64_t errors = 0;
  std::string first_error;
};

}  // namespace

LoadResult RunLoad(const LoadOptions& options, const Operation& operation) {
  const int workers = std::max(1, options.concurrency);
  const Clock::time_point start = Clock::now();
  const Clock::time_point measure_from =
      start + absl::ToChronoNanoseconds(options.warmup);
  const Clock::time_point stop_at =
      measure_from + absl::ToChronoNanoseconds(options.duration);
  const double rate = std::max(options.rate, 1e-3);
  const auto interval = std::chrono::duration<double>(1.0 / rate);

  std::atomic<std::int64_t> next_due{0};
  std::atomic<std::int64_t> recorded{0};
  std::atomic<bool> enough{false};
  std::vector<WorkerTally> tallies(static_cast<std::size_t>(workers));

  auto work = [&](int worker) {
    WorkerTally& tally = tallies[static_cast<std::size_t>(worker)];
    while (!enough.load(std::memory_order_relaxed)) {
      Clock::time_point due = Clock::now();
      if (options.open_loop) {
        const std::int64_t index = next_due.fetch_add(1);
        due = start + std::chrono::duration_cast<Clock::duration>(
                          interval * static_cast<double>(index));
        if (due >= stop_at) break;
        // Scheduling, not a timing assertion: wait for the operation's due
        // time.
        std::this_thread::sleep_until(due);
      } else if (due >= stop_at) {
        break;
      }
      const absl::Status status = operation(worker);
      const Clock::time_point done = Clock::now();
      if (due < measure_from) continue;
      if (!status.ok()) {
        if (tally.errors++ == 0) tally.first_error = status.ToString();
        continue;
      }
      tally.latency.Record(
          std::chrono::duration_cast<std::chrono::nanoseconds>(done - due)
              .count());
      if (options.max_operations > 0 &&
          recorded.fetch_add(1) + 1 >= options.max_operations) {
        enough.store(true);
      }
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(workers));
  for (int worker = 0; worker < workers; ++worker) {
    threads.emplace_back(work, worker);
  }
  // The observed process's CPU time is read when the warm-up ends (this
  // thread waits for that moment while the workers run: scheduling, not a
  // timing assertion) and when the last worker has returned.
  std::optional<double> cpu_at_window_start;
  if (options.cpu_pid > 0) {
    std::this_thread::sleep_until(measure_from);
    cpu_at_window_start = ProcessCpuSeconds(options.cpu_pid);
  }
  for (std::thread& thread : threads) thread.join();
  const Clock::time_point finished = Clock::now();
  LoadResult result;
  if (cpu_at_window_start.has_value()) {
    const std::optional<double> cpu_at_end = ProcessCpuSeconds(options.cpu_pid);
    if (cpu_at_end.has_value()) {
      result.cpu_seconds = std::max(0.0, *cpu_at_end - *cpu_at_window_start);
    }
  }

  for (const WorkerTally& tally : tallies) {
    result.latency.Merge(tally.latency);
    result.errors += tally.errors;
    if (result.first_error.empty()) result.first_error = tally.first_error;
  }
  const Clock::time_point window_end = std::min(finished, stop_at);
  result.seconds = std::chrono::duration<double>(
                       std::max(window_end, measure_from) - measure_from)
                       .count();
  if (result.seconds > 0.0) {
    result.ops_per_second =
        static_cast<double>(result.latency.count()) / result.seconds;
  }
  return result;
}

}  // namespace sator::bench
