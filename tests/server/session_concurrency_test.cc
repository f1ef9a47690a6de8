// The gRPC-free query and session code under concurrency, for
// ThreadSanitizer: reader threads run unary queries, batches and session
// queries (SceneQueries, SessionHandler) while one session applies pose
// updates (SessionHandler -> scene_ops UpdatePoses). Every answer must
// describe exactly one tick.
//
// The same scenario through a real in-process gRPC server is
// query_concurrency_test; it is not run under TSan because Debian's gRPC is
// not instrumented, and TSan then reports races inside gRPC's own inline
// callback code between its threads (see docs/DESIGN.md).
#include <atomic>
#include <chrono>
#include <cmath>
#include <latch>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "server/scene_queries.h"
#include "server/scenes/scene_ops.h"
#include "server/session.h"

namespace sator::server {
namespace {

constexpr int kBodies = 8;
constexpr int kTicks = 200;
constexpr int kReaders = 3;
constexpr float kRadius = 0.5f;

// At tick t body k is a circle at (10 + t, 3k): the ray from (0, 3k) along
// +x meets it at distance 9.5 + t.
float ExpectedDistance(std::int64_t tick) {
  return 10.0f + static_cast<float>(tick) - kRadius;
}

sator::v1::RaycastQuery Ray(int body) {
  sator::v1::RaycastQuery ray;
  ray.mutable_origin()->set_y(3.0f * static_cast<float>(body));
  ray.mutable_direction()->set_x(1.0f);
  ray.set_max_distance(1000.0f);
  return ray;
}

bool Consistent(const sator::v1::QueryResult& result) {
  return result.hits_size() == 1 &&
         std::fabs(result.hits(0).distance() -
                   ExpectedDistance(result.tick())) <= 1e-3f;
}

TEST(SessionConcurrencyTest, EveryAnswerDescribesOneTick) {
  SceneRegistry registry{SceneLimits{}};
  const SceneQueries queries(registry, {});
  const SceneOpsOptions ops;
  HostedSceneSettings settings;
  settings.dimension = 2;
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      registry.Create("race", settings);
  ASSERT_TRUE(scene.ok());
  std::vector<scene::BodyDesc<2>> bodies;
  for (int k = 0; k < kBodies; ++k) {
    scene::BodyDesc<2> body;
    body.id = static_cast<std::uint64_t>(k + 1);
    body.shape = std::make_shared<const Shape2>(Circle{kRadius});
    body.pose.position = {10.0f, 3.0f * static_cast<float>(k)};
    bodies.push_back(body);
  }
  ASSERT_TRUE((*scene)->scene2()->UpsertBodies(bodies).ok());

  sator::v1::SessionRequest open;
  open.mutable_open()->set_scene_id("race");
  std::latch readers_ready(kReaders);
  std::atomic<bool> updates_done{false};
  std::atomic<int> failures{0};

  std::thread updater([&] {
    SessionHandler session(queries, ops);
    if (session.Handle(open).end_stream.has_value()) ++failures;
    readers_ready.wait();
    for (int tick = 1; tick <= kTicks && failures == 0; ++tick) {
      sator::v1::SessionRequest update;
      update.set_sequence(static_cast<std::uint64_t>(tick));
      update.mutable_poses()->set_tick(tick);
      sator::v1::PoseBatch* poses = update.mutable_poses()->mutable_poses();
      for (int k = 0; k < kBodies; ++k) {
        poses->add_body_ids(static_cast<std::uint64_t>(k + 1));
        poses->add_positions(10.0f + static_cast<float>(tick));
        poses->add_positions(3.0f * static_cast<float>(k));
        poses->add_rotations(0.0f);
      }
      const SessionHandler::Outcome outcome = session.Handle(update);
      if (outcome.reply.status().code() != 0 ||
          outcome.reply.poses().current_tick() != tick) {
        ADD_FAILURE() << "update " << tick << ": "
                      << outcome.reply.ShortDebugString();
        ++failures;
      }
    }
    updates_done = true;
  });

  std::vector<std::set<std::int64_t>> ticks_seen(kReaders);
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&, r] {
      SessionHandler session(queries, ops);
      if (session.Handle(open).end_stream.has_value()) ++failures;
      const auto give_up =
          std::chrono::steady_clock::now() + std::chrono::seconds(120);
      bool signalled = false;
      for (int round = 0; round < 1000000 && failures == 0; ++round) {
        if (std::chrono::steady_clock::now() > give_up) {
          ADD_FAILURE() << "reader " << r << " ran out of time";
          ++failures;
          break;
        }
        const bool last_round = updates_done.load();
        const int body = round % kBodies;
        switch (round % 3) {
          case 0: {
            sator::v1::RaycastRequest request;
            request.set_scene_id("race");
            *request.mutable_query() = Ray(body);
            absl::StatusOr<sator::v1::QueryResult> result =
                queries.Raycast(request);
            if (!result.ok() || !Consistent(*result)) {
              ADD_FAILURE() << "raycast: " << result.status();
              ++failures;
            } else {
              ticks_seen[r].insert(result->tick());
            }
            break;
          }
          case 1: {
            sator::v1::QueryBatchRequest request;
            request.set_scene_id("race");
            for (int k = 0; k < kBodies; ++k) {
              *request.add_queries()->mutable_raycast() = Ray(k);
            }
            sator::v1::QueryBatchResponse response;
            if (!queries.QueryBatch(request, 100, nullptr, &response).ok()) {
              ++failures;
              break;
            }
            const std::int64_t tick = response.entries(0).result().tick();
            for (const auto& entry : response.entries()) {
              if (entry.status().code() != 0 || entry.result().tick() != tick ||
                  !Consistent(entry.result())) {
                ADD_FAILURE() << "batch entry " << entry.ShortDebugString()
                              << " in a batch at tick " << tick;
                ++failures;
              }
            }
            ticks_seen[r].insert(tick);
            break;
          }
          default: {
            sator::v1::SessionRequest request;
            request.set_sequence(static_cast<std::uint64_t>(round));
            *request.mutable_query()->mutable_raycast() = Ray(body);
            const SessionHandler::Outcome outcome = session.Handle(request);
            if (outcome.reply.sequence() != static_cast<std::uint64_t>(round) ||
                outcome.reply.status().code() != 0 ||
                !Consistent(outcome.reply.query())) {
              ADD_FAILURE()
                  << "session query: " << outcome.reply.ShortDebugString();
              ++failures;
            } else {
              ticks_seen[r].insert(outcome.reply.query().tick());
            }
            break;
          }
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
  updater.join();
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(failures, 0);
  for (int r = 0; r < kReaders; ++r) {
    // Each reader answered before the first update and after the last.
    EXPECT_TRUE(ticks_seen[r].contains(0)) << r;
    EXPECT_TRUE(ticks_seen[r].contains(kTicks)) << r;
  }
}

}  // namespace
}  // namespace sator::server
