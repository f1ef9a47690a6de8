// Many clients query a scene through gRPC while one client moves its bodies
// through a Session: every answer must describe exactly one tick (each
// unary answer, and every entry of a batch, consistent with the tick it
// reports). Runs under ThreadSanitizer (label tsan).
#include <atomic>
#include <chrono>
#include <cmath>
#include <latch>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "server/logging.h"
#include "server/server.h"

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
  std::vector<scene::BodyDesc<2>> bodies;
  for (int k = 0; k < kBodies; ++k) {
    scene::BodyDesc<2> body;
    body.id = static_cast<std::uint64_t>(k + 1);
    body.shape = std::make_shared<const Shape2>(Circle{kRadius});
    body.pose.position = {10.0f, 3.0f * static_cast<float>(k)};
    bodies.push_back(body);
  }
  ASSERT_TRUE((*scene)->scene2()->UpsertBodies(bodies).ok());

  const std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*server)->grpc_port()),
                          grpc::InsecureChannelCredentials());
  std::latch readers_ready(kReaders);
  std::atomic<bool> updates_done{false};
  std::atomic<int> failures{0};

  std::thread updater([&] {
    auto stub = sator::v1::QueryService::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(Deadline());
    auto stream = stub->Session(&context);
    sator::v1::SessionRequest open;
    open.mutable_open()->set_scene_id("race");
    sator::v1::SessionResponse reply;
    if (!stream->Write(open) || !stream->Read(&reply) ||
        reply.status().code() != 0) {
      ++failures;
    }
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
      if (!stream->Write(update) || !stream->Read(&reply) ||
          reply.status().code() != 0 || reply.poses().current_tick() != tick) {
        ADD_FAILURE() << "update " << tick << ": " << reply.status().message();
        ++failures;
      }
    }
    stream->WritesDone();
    if (!stream->Finish().ok()) ++failures;
    updates_done = true;
  });

  std::vector<std::set<std::int64_t>> ticks_seen(kReaders);
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&, r] {
      auto stub = sator::v1::QueryService::NewStub(channel);
      const auto give_up =
          std::chrono::steady_clock::now() + std::chrono::seconds(60);
      bool signalled = false;
      bool last_round = false;
      for (int round = 0; round < 100000 && failures == 0; ++round) {
        if (std::chrono::steady_clock::now() > give_up) {
          ADD_FAILURE() << "reader " << r << " ran out of time";
          ++failures;
          break;
        }
        // One more round once the updates are done, so the last tick is
        // seen too.
        last_round = updates_done.load();
        const int body = round % kBodies;
        if (round % 2 == 0) {
          sator::v1::RaycastRequest request;
          request.set_scene_id("race");
          *request.mutable_query() = Ray(body);
          sator::v1::QueryResult result;
          grpc::ClientContext context;
          context.set_deadline(Deadline());
          const grpc::Status status = stub->Raycast(&context, request, &result);
          if (!status.ok() || result.hits_size() != 1 ||
              std::fabs(result.hits(0).distance() -
                        ExpectedDistance(result.tick())) > 1e-3f) {
            ADD_FAILURE() << "raycast: " << status.error_message() << " "
                          << result.ShortDebugString();
            ++failures;
          }
          ticks_seen[r].insert(result.tick());
        } else {
          sator::v1::QueryBatchRequest request;
          request.set_scene_id("race");
          for (int k = 0; k < kBodies; ++k) {
            *request.add_queries()->mutable_raycast() = Ray(k);
          }
          sator::v1::QueryBatchResponse response;
          grpc::ClientContext context;
          context.set_deadline(Deadline());
          const grpc::Status status =
              stub->QueryBatch(&context, request, &response);
          if (!status.ok() || response.entries_size() != kBodies) {
            ADD_FAILURE() << "batch: " << status.error_message();
            ++failures;
            break;
          }
          const std::int64_t tick = response.entries(0).result().tick();
          for (const auto& entry : response.entries()) {
            if (entry.status().code() != 0 || entry.result().tick() != tick ||
                entry.result().hits_size() != 1 ||
                std::fabs(entry.result().hits(0).distance() -
                          ExpectedDistance(tick)) > 1e-3f) {
              ADD_FAILURE() << "batch entry: " << entry.ShortDebugString()
                            << " in a batch at tick " << tick;
              ++failures;
            }
          }
          ticks_seen[r].insert(tick);
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
    // Each reader queried before the first update and after the last.
    EXPECT_TRUE(ticks_seen[r].contains(0)) << r;
    EXPECT_TRUE(ticks_seen[r].contains(kTicks)) << r;
  }
}

}  // namespace
}  // namespace sator::server
