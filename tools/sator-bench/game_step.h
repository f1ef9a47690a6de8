// One open-loop run of sator-bench's game mode over a given number of
// served rooms (the schedule is described in game_mode.h), with the CPU time
// satord and the load generator spent on it.
#ifndef SATOR_TOOLS_SATOR_BENCH_GAME_STEP_H_
#define SATOR_TOOLS_SATOR_BENCH_GAME_STEP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "tools/sator-bench/game_served_room.h"
#include "tools/sator-bench/latency_histogram.h"

namespace sator::bench {

struct GameStepResult {
  int rooms = 0;
  // Tick latency (due time to last answer) of the measured ticks answered
  // without error.
  LatencyHistogram latency;
  std::int64_t errors = 0;
  std::string first_error;
  // The measured window.
  double seconds = 0.0;
  // Every tick sent, warm-up included, and the wall time from the first to
  // the end of the run: what the CPU times below were spent on.
  std::int64_t ticks_sent = 0;
  double wall_seconds = 0.0;
  // Ticks were still being sent a second after the window ended (the rooms
  // fell that far behind); the rest were dropped.
  bool overran = false;
  // satord's CPU seconds over the run (unset without its pid).
  std::optional<double> server_cpu_seconds;
  // This process's CPU seconds over the run.
  double bench_cpu_seconds = 0.0;
};

// Runs rooms[0] to rooms[count - 1] for `warmup` (sent, not recorded) then
// `duration`, one thread per room. satord_pid 0: no server CPU time.
GameStepResult RunGameStep(
    const std::vector<std::unique_ptr<ServedRoom>>& rooms, int count,
    absl::Duration warmup, absl::Duration duration, int satord_pid);

}  // namespace sator::bench

#endif  // SATOR_TOOLS_SATOR_BENCH_GAME_STEP_H_
