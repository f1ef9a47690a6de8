// The shared tick race of the concurrency tests (see tick_race.h).
#include "server/tick_race.h"

#include <atomic>
#include <cmath>
#include <latch>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace sator::server::testing {
namespace {

float ExpectedDistance(std::int64_t tick) {
  return 10.0f + static_cast<float>(tick) - kRaceRadius;
}

}  // namespace

sator::v1::RaycastQuery RaceRay(int body) {
  sator::v1::RaycastQuery ray;
  ray.mutable_origin()->set_y(3.0f * static_cast<float>(body));
  ray.mutable_direction()->set_x(1.0f);
  ray.set_max_distance(1000.0f);
  return ray;
}

bool ConsistentWithItsTick(const sator::v1::QueryResult& result) {
  return result.hits_size() == 1 &&
         std::fabs(result.hits(0).distance() -
                   ExpectedDistance(result.tick())) <= 1e-3f;
}

absl::Status AddRaceBodies(HostedScene& scene) {
  std::vector<scene::BodyDesc<2>> bodies;
  for (int k = 0; k < kRaceBodies; ++k) {
    scene::BodyDesc<2> body;
    body.id = static_cast<std::uint64_t>(k + 1);
    body.shape = std::make_shared<const Shape2>(Circle{kRaceRadius});
    body.pose.position = {10.0f, 3.0f * static_cast<float>(k)};
    bodies.push_back(body);
  }
  return scene.scene2()->UpsertBodies(bodies);
}

sator::v1::SessionRequest RacePoseUpdate(int tick) {
  sator::v1::SessionRequest update;
  update.set_sequence(static_cast<std::uint64_t>(tick));
  update.mutable_poses()->set_tick(tick);
  sator::v1::PoseBatch* poses = update.mutable_poses()->mutable_poses();
  for (int k = 0; k < kRaceBodies; ++k) {
    poses->add_body_ids(static_cast<std::uint64_t>(k + 1));
    poses->add_positions(10.0f + static_cast<float>(tick));
    poses->add_positions(3.0f * static_cast<float>(k));
    poses->add_rotations(0.0f);
  }
  return update;
}

void TickRace::Run(Updater updater, const MakeReader& make_reader,
                   int max_rounds, std::chrono::seconds give_up_after) {
  std::latch readers_ready(kRaceReaders);
  std::atomic<bool> updates_done{false};
  std::atomic<int> failures{0};

  std::thread updater_thread([&] {
    if (!updater.open()) ++failures;
    readers_ready.wait();
    for (int tick = 1; tick <= kRaceTicks && failures == 0; ++tick) {
      if (!updater.update(tick)) ++failures;
    }
    if (!updater.close()) ++failures;
    updates_done = true;
  });

  std::vector<std::set<std::int64_t>> ticks_seen(kRaceReaders);
  std::vector<std::thread> readers;
  for (int r = 0; r < kRaceReaders; ++r) {
    readers.emplace_back([&, r] {
      const ReaderRound round_once = make_reader(r);
      const auto give_up = std::chrono::steady_clock::now() + give_up_after;
      bool signalled = false;
      for (int round = 0; round < max_rounds && failures == 0; ++round) {
        if (std::chrono::steady_clock::now() > give_up) {
          ADD_FAILURE() << "reader " << r << " ran out of time";
          ++failures;
          break;
        }
        // One more round once the updates are done, so the last tick is
        // seen too.
        const bool last_round = updates_done.load();
        const std::optional<std::int64_t> tick = round_once(round);
        if (tick.has_value()) {
          ticks_seen[r].insert(*tick);
        } else {
          ++failures;
        }
        if (!signalled) {
          signalled = true;
          readers_ready.count_down();
        }
        if (last_round) break;
      }
      if (!signalled) readers_ready.count_down();
    });
  }
  updater_thread.join();
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(failures, 0);
  for (int r = 0; r < kRaceReaders; ++r) {
    // Each reader answered before the first update and after the last.
    EXPECT_TRUE(ticks_seen[r].contains(0)) << r;
    EXPECT_TRUE(ticks_seen[r].contains(kRaceTicks)) << r;
  }
}

}  // namespace sator::server::testing
