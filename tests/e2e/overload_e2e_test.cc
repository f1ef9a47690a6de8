// Load shedding against the real satord: a flood of costly calls beyond
// --max_inflight_requests is refused at once with RESOURCE_EXHAUSTED, the
// limit named in the message and a retry-after-ms trailer; nothing fails
// otherwise; a Ping (through the client library, which retries on that
// trailer) succeeds during the flood; afterwards every call succeeds again;
// sator_requests_shed_total counts the refusals. The flood is bounded in
// calls and time and stays on 127.0.0.1.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using ::sator::testing::HttpGet;
using ::sator::testing::SatordProcess;
using ::testing::HasSubstr;

// One: a slot covers only the handler's work (not the request's parse or the
// response's send), so a second handler running at the same time is shed.
constexpr int kMaxInflight = 1;
constexpr int kFloodThreads = 12;
constexpr int kCallsPerThread = 30;
constexpr absl::Duration kFloodTimeLimit = absl::Seconds(60);

// A costly stateless call: a sphere against a mesh of 2 * n * n triangles
// (the server validates the mesh and builds its BVH for every call).
sator::v1::PairQueryRequest CostlyRequest(int n) {
  sator::v1::PairQueryRequest request;
  auto* mesh = request.mutable_shape_a()->mutable_mesh();
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; j <= n; ++j) {
      sator::v1::Vector* v = mesh->add_vertices();
      v->set_x(static_cast<float>(i));
      v->set_z(static_cast<float>(j));
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const auto corner = static_cast<std::uint32_t>(i * (n + 1) + j);
      const std::uint32_t right = corner + static_cast<std::uint32_t>(n + 1);
      for (std::uint32_t index :
           {corner, corner + 1, right, right, corner + 1, right + 1}) {
        mesh->add_indices(index);
      }
    }
  }
  request.mutable_shape_b()->mutable_sphere()->set_radius(1.0f);
  request.mutable_pose_b()->mutable_position()->set_y(0.5f);
  request.mutable_overlap();
  return request;
}

struct Outcome {
  grpc::StatusCode code;
  std::string message;
  std::string retry_after;  // The trailer, "" when absent.
};

Outcome Call(sator::v1::QueryService::Stub& stub,
             const sator::v1::PairQueryRequest& request) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  sator::v1::PairQueryResponse response;
  const grpc::Status status = stub.PairQuery(&context, request, &response);
  Outcome outcome{status.error_code(), status.error_message(), ""};
  const auto& trailers = context.GetServerTrailingMetadata();
  if (auto it = trailers.find("retry-after-ms"); it != trailers.end()) {
    outcome.retry_after = std::string(it->second.data(), it->second.size());
  }
  if (status.ok()) {
    EXPECT_TRUE(response.overlap().overlapping());
  }
  return outcome;
}

TEST(OverloadEndToEnd, ShedsBeyondTheInflightLimitWithRetryAfterAndRecovers) {
  SatordProcess satord;
  ASSERT_TRUE(
      satord
          .Start({absl::StrCat("--max_inflight_requests=", kMaxInflight),
                  "--overload_retry_after=25ms", "--max_mesh_triangles=200000",
                  "--max_mesh_vertices=200000"})
          .ok())
      << satord.ReadLog();
  const sator::v1::PairQueryRequest request = CostlyRequest(100);

  // Every flood thread has its own channel (its own connection), as many
  // game servers would.
  std::mutex mutex;
  std::map<grpc::StatusCode, int> codes;
  std::vector<Outcome> refusals;
  std::vector<Outcome> failures;
  const absl::Time flood_deadline = absl::Now() + kFloodTimeLimit;
  std::vector<std::thread> threads;
  for (int t = 0; t < kFloodThreads; ++t) {
    threads.emplace_back([&] {
      auto channel = grpc::CreateCustomChannel(
          satord.grpc_target(), grpc::InsecureChannelCredentials(), [] {
            grpc::ChannelArguments args;
            args.SetMaxSendMessageSize(16 << 20);
            return args;
          }());
      auto stub = sator::v1::QueryService::NewStub(channel);
      for (int i = 0; i < kCallsPerThread && absl::Now() < flood_deadline;
           ++i) {
        Outcome outcome = Call(*stub, request);
        const std::lock_guard<std::mutex> lock(mutex);
        ++codes[outcome.code];
        if (outcome.code == grpc::StatusCode::RESOURCE_EXHAUSTED) {
          refusals.push_back(std::move(outcome));
        } else if (outcome.code != grpc::StatusCode::OK) {
          failures.push_back(std::move(outcome));
        }
      }
    });
  }

  // During the flood (limit 1, so the flood holds the slot nearly always; up
  // to 400 attempts), a Ping through the client library: its retry
  // policy honours the retry-after trailer, so it gets through.
  absl::StatusOr<Client> client =
      Client::Make({.target = satord.grpc_target(),
                    .default_deadline = absl::Seconds(10),
                    .retry = {.max_attempts = 400,
                              .initial_backoff = absl::Milliseconds(5),
                              .max_backoff = absl::Milliseconds(50)}});
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<PingResult> pong = client->Ping("during the flood");
  EXPECT_TRUE(pong.ok()) << pong.status();
  for (std::thread& thread : threads) thread.join();

  EXPECT_TRUE(failures.empty())
      << failures.size()
      << " calls failed otherwise, first: " << failures.front().code << " "
      << failures.front().message;
  EXPECT_GT(codes[grpc::StatusCode::OK], 0);
  ASSERT_FALSE(refusals.empty())
      << "no call was shed: the flood never exceeded " << kMaxInflight
      << " calls in flight";
  for (const Outcome& refusal : refusals) {
    EXPECT_THAT(refusal.message, HasSubstr("--max_inflight_requests"));
    EXPECT_THAT(refusal.message,
                HasSubstr(absl::StrCat("limit of ", kMaxInflight)));
    EXPECT_EQ(refusal.retry_after, "25");
  }

  // After the flood, one call at a time: every one succeeds.
  auto channel = grpc::CreateCustomChannel(
      satord.grpc_target(), grpc::InsecureChannelCredentials(), [] {
        grpc::ChannelArguments args;
        args.SetMaxSendMessageSize(16 << 20);
        return args;
      }());
  auto stub = sator::v1::QueryService::NewStub(channel);
  // A call's slot is freed when gRPC is done with it, just after its client
  // has the reply, so the flood's last calls may still hold theirs for a
  // moment: a refusal then must carry the hint, and honouring it (a bounded
  // number of times) gets through.
  for (int i = 0; i < 5; ++i) {
    Outcome outcome = Call(*stub, request);
    for (int attempt = 0;
         attempt < 20 && outcome.code == grpc::StatusCode::RESOURCE_EXHAUSTED;
         ++attempt) {
      ASSERT_EQ(outcome.retry_after, "25");
      absl::SleepFor(absl::Milliseconds(25));
      outcome = Call(*stub, request);
    }
    EXPECT_EQ(outcome.code, grpc::StatusCode::OK) << outcome.message;
  }

  // The refusals are counted.
  absl::StatusOr<std::string> metrics =
      HttpGet(satord.metrics_port(), "/metrics");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_THAT(*metrics, HasSubstr("sator_max_inflight_requests " +
                                  std::to_string(kMaxInflight)));
  const std::string series =
      "sator_requests_shed_total{reason=\"inflight_requests\"} ";
  const std::size_t at = metrics->find(series);
  ASSERT_NE(at, std::string::npos) << *metrics;
  double shed = 0;
  const std::size_t end = metrics->find('\n', at);
  ASSERT_TRUE(absl::SimpleAtod(
      metrics->substr(at + series.size(), end - at - series.size()), &shed));
  // At least the flood's refusals (the Ping's retried attempts add theirs).
  EXPECT_GE(shed, static_cast<double>(refusals.size()));
}

TEST(OverloadEndToEnd, SessionsBeyondTheLimitGetTheRetryAfterTrailer) {
  SatordProcess satord;
  ASSERT_TRUE(
      satord.Start({"--max_sessions=1", "--overload_retry_after=40ms"}).ok())
      << satord.ReadLog();
  absl::StatusOr<Client> client =
      Client::Make({.target = satord.grpc_target()});
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(
      client->CreateScene("arena", {.dimension = client::Dimension::k2D}).ok());
  auto channel = grpc::CreateChannel(satord.grpc_target(),
                                     grpc::InsecureChannelCredentials());
  auto stub = sator::v1::QueryService::NewStub(channel);

  grpc::ClientContext first_context;
  auto first = stub->Session(&first_context);
  // A message and its reply prove the first session is open.
  sator::v1::SessionRequest hello;
  hello.mutable_open()->set_scene_id("arena");
  ASSERT_TRUE(first->Write(hello));
  sator::v1::SessionResponse reply;
  ASSERT_TRUE(first->Read(&reply));

  grpc::ClientContext second_context;
  second_context.set_deadline(
      absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  auto second = stub->Session(&second_context);
  second->WritesDone();
  while (second->Read(&reply)) {
  }
  const grpc::Status refused = second->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("--max_sessions"));
  const auto& trailers = second_context.GetServerTrailingMetadata();
  auto it = trailers.find("retry-after-ms");
  ASSERT_NE(it, trailers.end());
  EXPECT_EQ(std::string(it->second.data(), it->second.size()), "40");

  first->WritesDone();
  while (first->Read(&reply)) {
  }
  EXPECT_TRUE(first->Finish().ok());

  absl::StatusOr<std::string> metrics =
      HttpGet(satord.metrics_port(), "/metrics");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_THAT(*metrics,
              HasSubstr("sator_requests_shed_total{reason=\"sessions\"} 1"));
}

}  // namespace
}  // namespace sator
