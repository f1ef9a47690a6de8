// Many clients query a scene through gRPC while one client moves its bodies
// through a Session: every answer must describe exactly one tick (each
// unary answer, and every entry of a batch, consistent with the tick it
// reports; tick_race.h). The same scenario without gRPC is
// session_concurrency_test.
#include <chrono>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "server/logging.h"
#include "server/server.h"
#include "server/tick_race.h"

namespace sator::server {
namespace {

using testing::ConsistentWithItsTick;
using testing::RaceRay;
using testing::TickRace;

std::chrono::system_clock::time_point Deadline() {
  return std::chrono::system_clock::now() + std::chrono::seconds(60);
}

TEST(QueryConcurrencyTest, EveryAnswerDescribesOneTick) {
  SetMinLogLevel(LogLevel::kWarning);
  ServerOptions options;
  options.grpc_address = "127.0.0.1:0";
  options.metrics_address = "";
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  HostedSceneSettings settings;
  settings.dimension = 2;
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      (*server)->scenes().Create("race", settings);
  ASSERT_TRUE(scene.ok());
  ASSERT_TRUE(testing::AddRaceBodies(**scene).ok());

  const std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*server)->grpc_port()),
                          grpc::InsecureChannelCredentials());
  std::unique_ptr<sator::v1::QueryService::Stub> updater_stub =
      sator::v1::QueryService::NewStub(channel);
  grpc::ClientContext updater_context;
  updater_context.set_deadline(Deadline());
  std::unique_ptr<grpc::ClientReaderWriter<sator::v1::SessionRequest,
                                           sator::v1::SessionResponse>>
      stream;
  TickRace::Updater updater{
      .open =
          [&] {
            stream = updater_stub->Session(&updater_context);
            sator::v1::SessionRequest open;
            open.mutable_open()->set_scene_id("race");
            sator::v1::SessionResponse reply;
            return stream->Write(open) && stream->Read(&reply) &&
                   reply.status().code() == 0;
          },
      .update =
          [&](int tick) {
            sator::v1::SessionResponse reply;
            if (!stream->Write(testing::RacePoseUpdate(tick)) ||
                !stream->Read(&reply) || reply.status().code() != 0 ||
                reply.poses().current_tick() != tick) {
              ADD_FAILURE()
                  << "update " << tick << ": " << reply.status().message();
              return false;
            }
            return true;
          },
      .close =
          [&] {
            stream->WritesDone();
            return stream->Finish().ok();
          },
  };

  TickRace::Run(
      updater,
      [&](int) -> TickRace::ReaderRound {
        std::shared_ptr<sator::v1::QueryService::Stub> stub =
            sator::v1::QueryService::NewStub(channel);
        return [stub](int round) -> std::optional<std::int64_t> {
          if (round % 2 == 0) {
            sator::v1::RaycastRequest request;
            request.set_scene_id("race");
            *request.mutable_query() = RaceRay(round % testing::kRaceBodies);
            sator::v1::QueryResult result;
            grpc::ClientContext context;
            context.set_deadline(Deadline());
            const grpc::Status status =
                stub->Raycast(&context, request, &result);
            if (!status.ok() || !ConsistentWithItsTick(result)) {
              ADD_FAILURE() << "raycast: " << status.error_message() << " "
                            << result.ShortDebugString();
              return std::nullopt;
            }
            return result.tick();
          }
          sator::v1::QueryBatchRequest request;
          request.set_scene_id("race");
          for (int k = 0; k < testing::kRaceBodies; ++k) {
            *request.add_queries()->mutable_raycast() = RaceRay(k);
          }
          sator::v1::QueryBatchResponse response;
          grpc::ClientContext context;
          context.set_deadline(Deadline());
          const grpc::Status status =
              stub->QueryBatch(&context, request, &response);
          if (!status.ok() || response.entries_size() != testing::kRaceBodies) {
            ADD_FAILURE() << "batch: " << status.error_message();
            return std::nullopt;
          }
          const std::int64_t tick = response.entries(0).result().tick();
          for (const auto& entry : response.entries()) {
            if (entry.status().code() != 0 || entry.result().tick() != tick ||
                !ConsistentWithItsTick(entry.result())) {
              ADD_FAILURE() << "batch entry: " << entry.ShortDebugString()
                            << " in a batch at tick " << tick;
              return std::nullopt;
            }
          }
          return tick;
        };
      },
      /*max_rounds=*/100000, std::chrono::seconds(60));
}

}  // namespace
}  // namespace sator::server
