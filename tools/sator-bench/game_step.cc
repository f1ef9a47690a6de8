#include "tools/sator-bench/game_step.h"

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tools/sator-bench/process_cpu.h"

namespace sator::bench {
namespace {

using Clock = std::chrono::steady_clock;

// How long after the window a room may still send late ticks.
constexpr auto kOverrun = std::chrono::seconds(1);

struct RoomTally {
  LatencyHistogram latency;
  std::int64_t errors = 0;
  std::string first_error;
  std::int64_t sent = 0;
  bool overran = false;
};

double SelfCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) +
           static_cast<double>(t.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

GameStepResult RunGameStep(
    const std::vector<std::unique_ptr<ServedRoom>>& rooms, int count,
    absl::Duration warmup, absl::Duration duration, int satord_pid) {
  GameStepResult result;
  result.rooms = count;
  const auto period = std::chrono::duration<double>(1.0 / kGameTickRate);
  // A little ahead, so that every thread is waiting when the first tick is
  // due.
  const Clock::time_point start = Clock::now() + std::chrono::milliseconds(20);
  const Clock::time_point measure_from =
      start + absl::ToChronoNanoseconds(warmup);
  const Clock::time_point stop_at =
      measure_from + absl::ToChronoNanoseconds(duration);
  std::vector<RoomTally> tallies(static_cast<std::size_t>(count));

  auto drive = [&](int r) {
    ServedRoom& room = *rooms[static_cast<std::size_t>(r)];
    RoomTally& tally = tallies[static_cast<std::size_t>(r)];
    const double offset = static_cast<double>(r) / count;
    for (std::int64_t k = 0;; ++k) {
      const Clock::time_point due =
          start + std::chrono::duration_cast<Clock::duration>(
                      period * (static_cast<double>(k) + offset));
      if (due >= stop_at) break;
      if (Clock::now() > stop_at + kOverrun) {
        tally.overran = true;
        break;
      }
      const GameTick& tick = room.Generate();
      // Scheduling, not a timing assertion: wait for the tick's due time.
      std::this_thread::sleep_until(due);
      const absl::Status status = room.Send(tick);
      const Clock::time_point done = Clock::now();
      ++tally.sent;
      if (due < measure_from) continue;
      if (!status.ok()) {
        if (tally.errors++ == 0) tally.first_error = status.ToString();
        continue;
      }
      tally.latency.Record(
          std::chrono::duration_cast<std::chrono::nanoseconds>(done - due)
              .count());
    }
  };

  const std::optional<double> server_before = ProcessCpuSeconds(satord_pid);
  const double bench_before = SelfCpuSeconds();
  const Clock::time_point wall_before = Clock::now();
  {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(count));
    for (int r = 0; r < count; ++r) threads.emplace_back(drive, r);
    for (std::thread& thread : threads) thread.join();
  }
  const Clock::time_point finished = Clock::now();
  const std::optional<double> server_after = ProcessCpuSeconds(satord_pid);
  result.bench_cpu_seconds = SelfCpuSeconds() - bench_before;
  result.wall_seconds =
      std::chrono::duration<double>(finished - wall_before).count();
  if (server_before.has_value() && server_after.has_value()) {
    result.server_cpu_seconds = *server_after - *server_before;
  }
  for (const RoomTally& tally : tallies) {
    result.latency.Merge(tally.latency);
    result.errors += tally.errors;
    if (result.first_error.empty()) result.first_error = tally.first_error;
    result.ticks_sent += tally.sent;
    result.overran = result.overran || tally.overran;
  }
  result.seconds = absl::ToDoubleSeconds(duration);
  return result;
}

}  // namespace sator::bench
