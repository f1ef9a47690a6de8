// sator-bench --mode=game: game rooms at 60 Hz against satord, and the same
// ticks on the core in process.
//
// Each room (game_room.h) is a scene of its own with a Session
// (game_served_room.h). The load is open loop: room r's tick k is due at
// start + (k + r / rooms) / 60 s (rooms spread over the tick period, as the
// rooms of a game server fleet are), and a tick's latency runs from its due
// time to the last answer of the tick, so a stall counts against every tick
// it delays. A room sends tick k + 1 at its due time or, when tick k is
// late, as soon as tick k is answered.
//
// With a fixed room count it runs once. With rooms = 0 it searches for the
// most rooms whose p99 tick latency stays within the budget (and answers
// without errors): short steps at 1, 2, 4, ... rooms up to the first that
// fails, then bisection between the last good and the first bad count (a
// step fails when it and one retry both fail), then one run of `duration`
// at the count found.
//
// Then it runs the same ticks on core scenes in process (game_core_room.h),
// as many rooms as the reported run, once back to back and once paced on
// the served rooms' schedule, and reports the core's CPU time per tick
// beside satord's (the satord process's CPU time over the run, from
// /proc/<satord_pid>/stat, divided by the ticks sent): their ratio (to the
// paced run) is the service's overhead over the core. The load generator's own
// CPU use is reported too, to show it was not the limit.
#ifndef SATOR_TOOLS_SATOR_BENCH_GAME_MODE_H_
#define SATOR_TOOLS_SATOR_BENCH_GAME_MODE_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "sator/client/client.h"
#include "tools/sator-bench/game_served_room.h"

namespace sator::bench {

struct GameOptions {
  // Scenes are <scene_prefix>-game<r>.
  std::string scene_prefix = "sator-bench";
  std::uint64_t seed = 1;
  // Rooms of a fixed run; 0 searches for the most within tick_budget.
  int rooms = 1;
  // The search's upper bound.
  int max_rooms = 256;
  // A fixed run, and the run at the count a search found.
  absl::Duration duration = absl::Seconds(5);
  absl::Duration warmup = absl::Seconds(1);
  // Each step of a search.
  absl::Duration step_duration = absl::Seconds(3);
  absl::Duration step_warmup = absl::Seconds(1);
  absl::Duration tick_budget = absl::Milliseconds(4);
  GameTransport transport = GameTransport::kSession;
  // satord's process id, for its CPU time (0: not reported).
  int satord_pid = 0;
  // Ticks run in process (over as many rooms as the reported run), once
  // back to back and once paced.
  std::int64_t core_ticks = 600;
  bool json = false;
};

// Runs the mode and prints its report; the process exit code.
int RunGameMode(Client& client, const GameOptions& options);

}  // namespace sator::bench

#endif  // SATOR_TOOLS_SATOR_BENCH_GAME_MODE_H_
