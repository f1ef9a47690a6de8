// The gRPC-free query and session code under concurrency, for
// ThreadSanitizer: reader threads run unary queries, batches and session
// queries (SceneQueries, SessionHandler) while one session applies pose
// updates (SessionHandler -> scene_ops UpdatePoses). Every answer must
// describe exactly one tick (tick_race.h).
//
// The same scenario through a real in-process gRPC server is
// query_concurrency_test.
#include <memory>
#include <optional>

#include "gtest/gtest.h"
#include "server/scene_queries.h"
#include "server/scenes/scene_ops.h"
#include "server/session.h"
#include "server/tick_race.h"

namespace sator::server {
namespace {

// The shots one Session message may carry (satord's --max_batch_queries).
constexpr int kMaxShots = 10000;

using testing::ConsistentWithItsTick;
using testing::RaceRay;
using testing::TickRace;

TEST(SessionConcurrencyTest, EveryAnswerDescribesOneTick) {
  SceneRegistry registry{SceneLimits{}};
  const SceneQueries queries(registry, {});
  const SceneOpsOptions ops;
  HostedSceneSettings settings;
  settings.dimension = 2;
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      registry.Create("race", settings);
  ASSERT_TRUE(scene.ok());
  ASSERT_TRUE(testing::AddRaceBodies(**scene).ok());

  sator::v1::SessionRequest open;
  open.mutable_open()->set_scene_id("race");
  std::optional<SessionHandler> updater_session;
  TickRace::Updater updater{
      .open =
          [&] {
            updater_session.emplace(queries, ops, kMaxShots);
            return !updater_session->Handle(open).end_stream.has_value();
          },
      .update =
          [&](int tick) {
            const SessionHandler::Outcome outcome =
                updater_session->Handle(testing::RacePoseUpdate(tick));
            if (outcome.reply.status().code() != 0 ||
                outcome.reply.poses().current_tick() != tick) {
              ADD_FAILURE() << "update " << tick << ": "
                            << outcome.reply.ShortDebugString();
              return false;
            }
            return true;
          },
  };

  TickRace::Run(
      updater,
      [&](int) -> TickRace::ReaderRound {
        auto session =
            std::make_shared<SessionHandler>(queries, ops, kMaxShots);
        if (session->Handle(open).end_stream.has_value()) {
          ADD_FAILURE() << "session open failed";
        }
        return [&queries, session](int round) -> std::optional<std::int64_t> {
          const int body = round % testing::kRaceBodies;
          switch (round % 3) {
            case 0: {
              sator::v1::RaycastRequest request;
              request.set_scene_id("race");
              *request.mutable_query() = RaceRay(body);
              absl::StatusOr<sator::v1::QueryResult> result =
                  queries.Raycast(request);
              if (!result.ok() || !ConsistentWithItsTick(*result)) {
                ADD_FAILURE() << "raycast: " << result.status();
                return std::nullopt;
              }
              return result->tick();
            }
            case 1: {
              sator::v1::QueryBatchRequest request;
              request.set_scene_id("race");
              for (int k = 0; k < testing::kRaceBodies; ++k) {
                *request.add_queries()->mutable_raycast() = RaceRay(k);
              }
              sator::v1::QueryBatchResponse response;
              if (!queries.QueryBatch(request, 100, nullptr, &response).ok()) {
                ADD_FAILURE() << "batch failed";
                return std::nullopt;
              }
              const std::int64_t tick = response.entries(0).result().tick();
              for (const auto& entry : response.entries()) {
                if (entry.status().code() != 0 ||
                    entry.result().tick() != tick ||
                    !ConsistentWithItsTick(entry.result())) {
                  ADD_FAILURE() << "batch entry " << entry.ShortDebugString()
                                << " in a batch at tick " << tick;
                  return std::nullopt;
                }
              }
              return tick;
            }
            default: {
              sator::v1::SessionRequest request;
              request.set_sequence(static_cast<std::uint64_t>(round));
              *request.mutable_query()->mutable_raycast() = RaceRay(body);
              const SessionHandler::Outcome outcome = session->Handle(request);
              if (outcome.reply.sequence() !=
                      static_cast<std::uint64_t>(round) ||
                  outcome.reply.status().code() != 0 ||
                  !ConsistentWithItsTick(outcome.reply.query())) {
                ADD_FAILURE()
                    << "session query: " << outcome.reply.ShortDebugString();
                return std::nullopt;
              }
              return outcome.reply.query().tick();
            }
          }
        };
      },
      /*max_rounds=*/1000000, std::chrono::seconds(120));
}

}  // namespace
}  // namespace sator::server
