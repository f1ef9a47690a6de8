// The in-process twin of a served game room: the same scene content and the
// same ticks (game_room.h) run directly on a core scene::Scene3, for the CPU
// time the core itself spends on a tick, with none of the service around it.
//
// A tick is what satord does for it, in the core's own calls:
// Scene3::UpdatePoses with the 64 group poses, a Snapshot, 64
// SceneSnapshot::Contacts and 64 SceneSnapshot::Sweep of the character
// capsule (static bodies only, the options satord derives from the client's
// queries), and scene::ValidateShots of the 20 shots with their view delay
// (the scene's hit policy, as satord uses it). The requests are built in the
// timed part (an in-process game server builds them too); the tick's content
// is generated outside it.
#ifndef SATOR_TOOLS_SATOR_BENCH_GAME_CORE_ROOM_H_
#define SATOR_TOOLS_SATOR_BENCH_GAME_CORE_ROOM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sator/core/scene/scene.h"
#include "sator/core/scene/shot_validation.h"
#include "tools/sator-bench/game_room.h"
#include "tools/sator-bench/latency_histogram.h"

namespace sator::bench {

// The thread CPU time of one tick's parts, in nanoseconds.
struct CoreTickCpu {
  std::int64_t poses = 0;  // UpdatePoses and Snapshot.
  std::int64_t contacts = 0;
  std::int64_t sweeps = 0;
  std::int64_t shots = 0;  // Building the shots and ValidateShots.
  std::int64_t total() const { return poses + contacts + sweeps + shots; }
};

class CoreRoom {
 public:
  static absl::StatusOr<std::unique_ptr<CoreRoom>> Create(std::uint64_t seed);

  // Generates the next tick and runs it; the thread CPU time of running it,
  // or the first error of its calls.
  absl::StatusOr<CoreTickCpu> RunNextTick();

  // Shots judged so far that hit (a sanity figure for the report).
  std::int64_t shot_hits() const { return shot_hits_; }

 private:
  explicit CoreRoom(std::uint64_t seed) : room_(seed) {}
  absl::Status Run(const GameTick& tick, CoreTickCpu* cpu);

  GameRoom room_;
  std::unique_ptr<scene::Scene3> scene_;
  Shape3 capsule_;
  scene::QueryOptions contact_options_;
  scene::QueryOptions sweep_options_;
  std::vector<scene::GroupPoseUpdate<3>> groups_;
  std::vector<scene::Shot<3>> shots_;
  std::int64_t shot_hits_ = 0;
};

struct CoreTiming {
  int rooms = 0;
  bool paced = false;
  std::int64_t ticks = 0;
  // Thread CPU time of each tick, and its parts summed over the ticks.
  LatencyHistogram cpu;
  CoreTickCpu parts;
  std::int64_t errors = 0;
  std::string first_error;
  std::int64_t shots = 0;
  std::int64_t shot_hits = 0;
};

// Runs `ticks` ticks in all on `rooms` core rooms (seeded as the served
// rooms are: RoomSeed(seed, r)), taking the rooms in turn, on this thread.
// Paced: tick i is run at start + i / (60 * rooms) s, the schedule of the
// served rooms (each room at 60 Hz, the rooms spread over the period), so
// each tick meets the caches as the service's ticks do, after the other
// rooms' work or idle time. Not paced: back to back (hot caches).
CoreTiming RunCoreTicks(int rooms, std::int64_t ticks, std::uint64_t seed,
                        bool paced);

}  // namespace sator::bench

#endif  // SATOR_TOOLS_SATOR_BENCH_GAME_CORE_ROOM_H_
