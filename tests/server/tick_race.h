// The scenario both concurrency tests share (session_concurrency_test
// without gRPC, query_concurrency_test through a real gRPC server): one
// updater moves kRaceBodies circles tick by tick while kRaceReaders threads
// query them; every answer must describe exactly one tick.
//
// At tick t body k is a circle of radius kRaceRadius at (10 + t, 3k): the ray
// from (0, 3k) along +x meets it at distance 9.5 + t, so an answer's hit
// distance says which tick it saw.
#ifndef SATOR_TESTS_SERVER_TICK_RACE_H_
#define SATOR_TESTS_SERVER_TICK_RACE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "sator/v1/query_service.pb.h"
#include "server/scenes/scene_registry.h"

namespace sator::server::testing {

inline constexpr int kRaceBodies = 8;
inline constexpr int kRaceTicks = 200;
inline constexpr int kRaceReaders = 3;
inline constexpr float kRaceRadius = 0.5f;

// The ray from (0, 3 body) along +x.
sator::v1::RaycastQuery RaceRay(int body);

// True when `result` holds one hit at the distance its tick implies.
bool ConsistentWithItsTick(const sator::v1::QueryResult& result);

// Adds the kRaceBodies circles at their tick-0 places to the 2D `scene`.
absl::Status AddRaceBodies(HostedScene& scene);

// The session message moving every body to its place at `tick`.
sator::v1::SessionRequest RacePoseUpdate(int tick);

class TickRace {
 public:
  struct Updater {
    // Opens the updater's channel (on the updater thread); false: failed.
    std::function<bool()> open;
    // Moves the bodies to `tick`; false: failed (after ADD_FAILURE).
    std::function<bool(int tick)> update;
    // Closes the channel after the last update; false: failed.
    std::function<bool()> close = [] { return true; };
  };
  // One query by one reader in round `round`: the tick it saw, or nullopt
  // after ADD_FAILURE.
  using ReaderRound = std::function<std::optional<std::int64_t>(int round)>;
  // Called on each reader's thread with its index; returns its round
  // function (which may own the reader's stub or session).
  using MakeReader = std::function<ReaderRound(int reader)>;

  // Runs ticks 1..kRaceTicks once every reader has answered once, while the
  // readers query until one round after the last update (bounded in rounds
  // and by `give_up_after`); then expects no failure and that every reader
  // saw tick 0 and tick kRaceTicks.
  static void Run(Updater updater, const MakeReader& make_reader,
                  int max_rounds, std::chrono::seconds give_up_after);
};

}  // namespace sator::server::testing

#endif  // SATOR_TESTS_SERVER_TICK_RACE_H_
