// capture: a capture zone and per-player areas of interest over a moving
// crowd, evaluated by satord after every tick and streamed as events.
//
//   capture [target]      (default 127.0.0.1:50051)
//
// 1. Creates a 2D scene and five players, each a hitbox group of one
//    circle, walking side by side along +x, one unit a tick, on the lines
//    y = -4, -2, 0, 2, 4.
// 2. Registers a capture zone (a circle of radius 5 at the origin) that
//    counts each player once, and an area of interest on every player
//    (radius 3, hysteresis 1): who that player's client is sent.
// 3. Watches the scene from tick 1 and streams 20 ticks of poses. Each
//    evaluation's events are printed as they come.
// Exits 0 when the events are exactly the ones a double-precision check of
// the same walk gives, and each player's final visible set is its
// neighbours.
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <variant>
#include <vector>

#include "sator/client/client.h"

namespace {

constexpr int kPlayers = 5;
constexpr int kTicks = 20;
constexpr float kBodyRadius = 0.5f;
constexpr std::uint64_t kZoneId = 1;
constexpr double kZoneRadius = 5.0;
constexpr float kInterestRadius = 3.0f;
constexpr float kHysteresis = 1.0f;
const char* const kScene = "plaza";

// Player p (1 to 5) is hitbox group p, its body 10 p; its observer is
// 100 + p.
double LineOf(int player) { return 2.0 * (player - 3); }
double XAt(std::int64_t tick) { return -11.0 + static_cast<double>(tick); }
std::uint64_t ObserverOf(int player) { return 100u + player; }

// The capture zone's ENTER (true) and EXIT events of the walk, by tick, from
// the distances in double: a player is in while its circle reaches the
// zone's.
std::vector<std::tuple<std::int64_t, bool, int>> ExpectedZoneEvents() {
  std::vector<std::tuple<std::int64_t, bool, int>> events;
  std::vector<bool> inside(kPlayers + 1, false);
  for (std::int64_t tick = 1; tick <= kTicks; ++tick) {
    for (int p = 1; p <= kPlayers; ++p) {
      const bool now = std::hypot(XAt(tick), LineOf(p)) <=
                       kZoneRadius + static_cast<double>(kBodyRadius);
      if (now != inside[p]) events.emplace_back(tick, now, p);
      inside[p] = now;
    }
  }
  return events;
}

int Fail(const std::string& what, const absl::Status& status) {
  std::cerr << what << ": " << status << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string target = argc > 1 ? argv[1] : "127.0.0.1:50051";
  absl::StatusOr<sator::Client> client =
      sator::Client::Make({.target = target});
  if (!client.ok()) return Fail("client", client.status());
  // A scene of its own, made anew: a previous run's zones go with it.
  if (absl::Status s = client->DeleteScene(kScene);
      !s.ok() && s.code() != absl::StatusCode::kNotFound) {
    return Fail("DeleteScene", s);
  }
  if (absl::Status s =
          client->CreateScene(kScene, {.dimension = sator::Dimension::k2D})
              .status();
      !s.ok()) {
    return Fail("CreateScene", s);
  }

  std::vector<sator::Body> players;
  for (int p = 1; p <= kPlayers; ++p) {
    players.push_back({.id = 10u * p,
                       .shape = sator::Circle{kBodyRadius},
                       .group_id = static_cast<std::uint64_t>(p),
                       .part = 1});
  }
  if (absl::Status s = client->UpsertBodies(kScene, players).status();
      !s.ok()) {
    return Fail("UpsertBodies", s);
  }
  if (absl::Status s =
          client
              ->AddZone(
                  kScene,
                  {.id = kZoneId,
                   .shape = sator::Circle{static_cast<float>(kZoneRadius)},
                   .report = sator::ProximityReport::kPerGroup})
              .status();
      !s.ok()) {
    return Fail("AddZone", s);
  }
  for (int p = 1; p <= kPlayers; ++p) {
    if (absl::Status s =
            client
                ->AddObserver(
                    kScene,
                    {.id = ObserverOf(p),
                     .anchor = {.kind = sator::ProximityAnchor::Kind::kGroup,
                                .id = static_cast<std::uint64_t>(p)},
                     .radius = kInterestRadius,
                     .hysteresis = kHysteresis,
                     .report = sator::ProximityReport::kPerGroup})
                .status();
        !s.ok()) {
      return Fail("AddObserver", s);
    }
  }

  // From tick 1: every evaluation of the walk, however late the server
  // starts the stream.
  absl::StatusOr<std::unique_ptr<sator::ProximityStream>> watch =
      client->WatchProximity(kScene, {.tick = 1});
  if (!watch.ok()) return Fail("WatchProximity", watch.status());

  for (std::int64_t tick = 1; tick <= kTicks; ++tick) {
    sator::PoseBatch poses;
    for (int p = 1; p <= kPlayers; ++p) {
      poses.AddGroup(static_cast<std::uint64_t>(p),
                     sator::Pose2{{static_cast<float>(XAt(tick)),
                                   static_cast<float>(LineOf(p))},
                                  {}});
    }
    if (absl::Status s = client->UpdatePoses(kScene, tick, poses).status();
        !s.ok()) {
      return Fail("UpdatePoses", s);
    }
  }

  // Every player sees its neighbours from the first tick on (the lines are
  // 2 apart: 1.5 from a neighbour's circle, 3.5 from the next one's): 8
  // ENTER events, then the zone's.
  const std::vector<std::tuple<std::int64_t, bool, int>> expected_zone =
      ExpectedZoneEvents();
  const std::size_t expected_count = expected_zone.size() + 8;

  // The reads stop at the expected count; a watchdog ends a watch that
  // falls short.
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (!done_cv.wait_for(lock, std::chrono::seconds(20),
                          [&] { return done; })) {
      (*watch)->Cancel();
    }
  });
  std::vector<std::tuple<std::int64_t, bool, int>> zone_events;
  std::vector<std::tuple<std::int64_t, int, int>> seen;  // tick, who, whom
  std::size_t received = 0;
  bool unexpected = false;
  while (received < expected_count) {
    std::optional<sator::ProximityStreamEvent> message = (*watch)->Read();
    if (!message.has_value()) break;
    const auto* events = std::get_if<sator::ProximityTickEvents>(&*message);
    if (events == nullptr) {
      std::printf("a resync, which this walk should not need\n");
      unexpected = true;
      continue;
    }
    for (const sator::ProximityEvent& event : events->events) {
      ++received;
      const int player = static_cast<int>(event.object.group_id);
      const bool enter = event.kind == sator::ProximityEventKind::kEnter;
      if (event.source == sator::ProximitySource::kZone) {
        std::printf("tick %" PRId64 ": player %d %s the capture zone\n",
                    events->tick, player, enter ? "entered" : "left");
        zone_events.emplace_back(events->tick, enter, player);
      } else {
        const int observer = static_cast<int>(event.source_id - 100);
        std::printf("tick %" PRId64 ": player %d %s player %d\n", events->tick,
                    observer, enter ? "now sees" : "no longer sees", player);
        if (enter) seen.emplace_back(events->tick, observer, player);
        if (!enter) unexpected = true;
      }
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  done_cv.notify_all();
  watchdog.join();
  (*watch)->Cancel();
  while ((*watch)->Read().has_value()) {
  }
  (void)(*watch)->Finish();

  bool ok = !unexpected && zone_events == expected_zone && seen.size() == 8;
  for (const auto& [tick, observer, player] : seen) {
    ok = ok && tick == 1 && std::abs(observer - player) == 1;
  }
  absl::StatusOr<sator::ProximityState> state = client->GetProximity(kScene);
  if (!state.ok()) return Fail("GetProximity", state.status());
  std::printf("after tick %" PRId64 ":", state->tick);
  for (const sator::ProximitySet& set : state->sets) {
    if (set.source == sator::ProximitySource::kZone) {
      std::printf(" the zone holds %zu players;", set.objects.size());
      ok = ok && set.objects.empty();
      continue;
    }
    const int observer = static_cast<int>(set.source_id - 100);
    std::printf(" %d sees", observer);
    for (const sator::ProximityObject& object : set.objects) {
      std::printf(" %" PRIu64, object.group_id);
      ok = ok && std::abs(static_cast<int>(object.group_id) - observer) == 1;
    }
    std::printf(";");
  }
  std::printf("\n%s\n", ok ? "events as expected" : "UNEXPECTED EVENTS");
  if (absl::Status s = client->DeleteScene(kScene); !s.ok()) {
    return Fail("DeleteScene", s);
  }
  return ok ? 0 : 1;
}
