// End to end: the real satord binary on loopback ports, driven through the
// client library.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using ::sator::testing::HttpGet;
using ::sator::testing::SatordProcess;
using ::testing::HasSubstr;

constexpr absl::Duration kStartTimeout = absl::Seconds(20);
constexpr absl::Duration kExitTimeout = absl::Seconds(15);

std::unique_ptr<Client> Connect(const SatordProcess& satord) {
  absl::StatusOr<Client> client =
      Client::Make({.target = satord.grpc_target()});
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? std::make_unique<Client>(*std::move(client)) : nullptr;
}

// Polls health until SERVING, for at most `timeout`.
absl::Status WaitUntilServing(Client& client, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Status last = absl::DeadlineExceededError("never checked");
  while (absl::Now() < deadline) {
    absl::StatusOr<HealthStatus> health =
        client.CheckHealth("", {.deadline = absl::Seconds(1)});
    if (health.ok() && *health == HealthStatus::kServing) {
      return absl::OkStatus();
    }
    last =
        health.ok() ? absl::UnavailableError("NOT_SERVING") : health.status();
    absl::SleepFor(absl::Milliseconds(10));
  }
  return last;
}

TEST(SatordEndToEnd, ServesPingAndHealthThenDrainsOnSigterm) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({}, kStartTimeout).ok());
  std::unique_ptr<Client> client = Connect(satord);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(WaitUntilServing(*client, kStartTimeout).ok())
      << satord.ReadLog();

  const std::string payload = std::string("ping \0 payload", 14);
  absl::StatusOr<PingResult> pong = client->Ping(payload);
  ASSERT_TRUE(pong.ok()) << pong.status();
  EXPECT_EQ(pong->payload, payload);
  EXPECT_FALSE(pong->server_version.empty());

  for (const char* service :
       {"sator.v1.QueryService", "sator.readiness", "sator.liveness"}) {
    absl::StatusOr<HealthStatus> health = client->CheckHealth(service);
    ASSERT_TRUE(health.ok()) << service << ": " << health.status();
    EXPECT_EQ(*health, HealthStatus::kServing) << service;
  }
  absl::StatusOr<HealthStatus> unknown = client->CheckHealth("no.such.Service");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);

  const absl::Time signalled = absl::Now();
  ASSERT_TRUE(satord.Signal(SIGTERM).ok());
  absl::StatusOr<int> exit_code = satord.WaitForExit(kExitTimeout);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status() << satord.ReadLog();
  EXPECT_EQ(*exit_code, 0) << satord.ReadLog();
  // With nothing in flight, the drain must not wait for its deadline (10 s),
  // even though this client still holds its connection open.
  EXPECT_LT(absl::Now() - signalled, absl::Seconds(5));
  const std::string log = satord.ReadLog();
  EXPECT_THAT(log, HasSubstr("\"event\":\"signal\",\"signal\":\"SIGTERM\""));
  EXPECT_THAT(log, HasSubstr("\"event\":\"stopped\""));

  // The server is gone: a call now fails instead of hanging.
  absl::StatusOr<PingResult> after =
      client->Ping("x", {.deadline = absl::Seconds(2)});
  EXPECT_FALSE(after.ok());
}

// sator.liveness answers SERVING through a whole drain, the final snapshot
// included, while a slow call finishes: every probe reads SERVING until the
// probes find the port closed, and by then satord is exiting (the kernel
// closes the port while the process ends, a moment before it can be
// reaped). The slow call is a RaycastBatch of 1,000 rays, each through a
// row of 1,000 of the scene's 20,000 bodies; SIGTERM comes once the metrics
// show it admitted, so the drain must wait for it, and the final snapshot
// holds the 20,000 bodies.
TEST(SatordEndToEnd, LivenessStaysServingThroughADrainUntilExit) {
  constexpr int kMessageBytes = 64 << 20;
  const std::string data_dir = testing::MakeTempDir("liveness-drain");
  SatordProcess satord;
  ASSERT_TRUE(satord
                  .Start({"--data_dir=" + data_dir, "--drain_deadline=30s",
                          "--snapshot_interval=0",
                          absl::StrCat("--max_message_bytes=", kMessageBytes)},
                         kStartTimeout)
                  .ok())
      << satord.ReadLog();
  // No retries: each probe below is one attempt.
  auto connect = [&]() -> std::unique_ptr<Client> {
    absl::StatusOr<Client> client =
        Client::Make({.target = satord.grpc_target(),
                      .retry = {.max_attempts = 1},
                      .max_message_bytes = kMessageBytes});
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::make_unique<Client>(*std::move(client)) : nullptr;
  };
  std::unique_ptr<Client> client = connect();
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client
                  ->CallJson("sator.v1.SceneService/CreateScene",
                             R"({"scene_id": "field", "settings":
                                 {"dimension": "DIMENSION_2D"}})")
                  .ok());
  constexpr int kRow = 1000;
  constexpr int kBodies = 20 * kRow;
  std::string bodies = R"({"scene_id": "field", "bodies": [)";
  for (int i = 0; i < kBodies; ++i) {
    absl::StrAppend(&bodies, i == 0 ? "" : ",", R"({"body_id": )", i + 1,
                    R"(, "shape": {"circle": {"radius": 0.4}}, )",
                    R"("pose": {"position": {"x": )", i % kRow, R"(, "y": )",
                    i / kRow, R"(}}, "motion_type": "MOTION_TYPE_STATIC"})");
  }
  bodies += "]}";
  absl::StatusOr<std::string> upserted =
      client->CallJson("sator.v1.BodyService/UpsertBodies", bodies);
  ASSERT_TRUE(upserted.ok()) << upserted.status();
  constexpr int kRays = 1000;
  std::string origins;
  std::string directions;
  for (int i = 0; i < kRays; ++i) {
    absl::StrAppend(&origins, i == 0 ? "" : ",", "-1,", i % 20);
    absl::StrAppend(&directions, i == 0 ? "" : ",", "1,0");
  }
  const std::string rays = absl::StrCat(
      R"({"scene_id": "field", "dimension": "DIMENSION_2D", "origins": [)",
      origins, R"(], "directions": [)", directions,
      R"(], "max_distances": [10000],)",
      R"( "options": {"mode": "RESULT_MODE_ALL", "max_hits": 1}})");

  std::unique_ptr<Client> slow_client = connect();
  ASSERT_NE(slow_client, nullptr);
  absl::StatusOr<std::string> slow_answer;
  std::thread slow([&] {
    slow_answer = slow_client->CallJson("sator.v1.QueryService/RaycastBatch",
                                        rays, {.deadline = absl::Seconds(60)});
  });
  absl::Cleanup join = [&slow] { slow.join(); };
  // Until the slow call is admitted (at most 5,000 scrapes and 20 s).
  bool admitted = false;
  const absl::Time admit_by = absl::Now() + absl::Seconds(20);
  for (int scrape = 0; scrape < 5000 && !admitted && absl::Now() < admit_by;
       ++scrape) {
    absl::StatusOr<std::string> metrics =
        HttpGet(satord.metrics_port(), "/metrics");
    admitted = metrics.ok() &&
               absl::StrContains(*metrics, "\nsator_inflight_requests 1\n");
  }
  ASSERT_TRUE(admitted) << "the slow call never showed in flight";
  ASSERT_TRUE(satord.Signal(SIGTERM).ok());

  // Bounded: at most 1,000,000 probes and 60 s.
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  int serving = 0;
  absl::Status refused;
  for (int probe = 0; probe < 1000000 && absl::Now() < give_up; ++probe) {
    absl::StatusOr<HealthStatus> health =
        client->CheckHealth("sator.liveness", {.deadline = absl::Seconds(2)});
    // A probe that ran out of time on a loaded machine says nothing: only a
    // refusal ends the loop.
    if (health.status().code() == absl::StatusCode::kDeadlineExceeded) {
      continue;
    }
    if (!health.ok()) {
      refused = health.status();
      break;
    }
    ASSERT_EQ(*health, HealthStatus::kServing) << "probe " << probe;
    ++serving;
  }
  ASSERT_FALSE(refused.ok()) << "satord still answering after 60 s";
  // The probe failed because satord is gone, not because a live satord
  // refused it.
  // The port closes as the process exits, a moment before it can be reaped.
  absl::StatusOr<int> exit_code = satord.WaitForExit(absl::Seconds(1));
  ASSERT_TRUE(exit_code.ok())
      << "liveness failed (" << refused << ") after " << serving
      << " SERVING probes while satord was still running\n"
      << satord.ReadLog();
  EXPECT_EQ(*exit_code, 0);
  EXPECT_GT(serving, 0);
  std::move(join).Invoke();
  // Admitted before SIGTERM, so the drain let it finish.
  EXPECT_TRUE(slow_answer.ok()) << slow_answer.status();
  const std::string log = satord.ReadLog();
  EXPECT_THAT(log, HasSubstr("\"event\":\"stopped\",\"drained\":true"));
  EXPECT_THAT(log, HasSubstr("\"event\":\"snapshot_written\""));
  EXPECT_THAT(log, ::testing::Not(HasSubstr("final_snapshot_failed")));
  std::filesystem::remove_all(data_dir);
}

TEST(SatordEndToEnd, SigintAlsoExitsCleanly) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({}, kStartTimeout).ok());
  ASSERT_TRUE(satord.Signal(SIGINT).ok());
  absl::StatusOr<int> exit_code = satord.WaitForExit(kExitTimeout);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0) << satord.ReadLog();
}

TEST(SatordEndToEnd, PortInUseIsAClearErrorAndExitOne) {
  // Hold a loopback port with a listening socket (no SO_REUSEPORT).
  const int holder = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(holder, 0);
  absl::Cleanup close_holder = [holder] { close(holder); };
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  ASSERT_EQ(
      bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(holder, 1), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(getsockname(holder, reinterpret_cast<sockaddr*>(&address), &length),
            0);
  const int port = ntohs(address.sin_port);

  SatordProcess satord;
  ASSERT_TRUE(satord
                  .Spawn({absl::StrCat("--grpc_address=127.0.0.1:", port),
                          "--metrics_address="})
                  .ok());
  absl::StatusOr<int> exit_code = satord.WaitForExit(kExitTimeout);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 1);
  EXPECT_THAT(
      satord.ReadLog(),
      HasSubstr(absl::StrCat("cannot listen for gRPC on 127.0.0.1:", port)));
}

TEST(SatordEndToEnd, MetricsPortInUseIsAClearErrorAndExitOne) {
  SatordProcess first;
  ASSERT_TRUE(first.Start({}, kStartTimeout).ok());
  SatordProcess second;
  ASSERT_TRUE(second
                  .Spawn({"--grpc_address=127.0.0.1:0",
                          absl::StrCat("--metrics_address=127.0.0.1:",
                                       first.metrics_port())})
                  .ok());
  absl::StatusOr<int> exit_code = second.WaitForExit(kExitTimeout);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 1);
  EXPECT_THAT(second.ReadLog(), HasSubstr("cannot serve metrics"));
}

TEST(SatordEndToEnd, BadFlagIsAClearErrorAndExitOne) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Spawn({"--log_level=loud"}).ok());
  absl::StatusOr<int> exit_code = satord.WaitForExit(kExitTimeout);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 1);
  EXPECT_THAT(satord.ReadLog(), HasSubstr("--log_level"));
}

TEST(SatordEndToEnd, ServesBuildInfoOnTheMetricsPort) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({}, kStartTimeout).ok());
  ASSERT_GT(satord.metrics_port(), 0);
  absl::StatusOr<std::string> response =
      HttpGet(satord.metrics_port(), "/metrics");
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_THAT(*response, HasSubstr("200 OK"));
  EXPECT_THAT(*response, HasSubstr("sator_build_info{"));
}

TEST(SatordEndToEnd, PingDeadlineIsHonoured) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({}, kStartTimeout).ok());
  // Stop the process so a call can only time out, then check that the
  // client's deadline bounds the wait.
  ASSERT_TRUE(satord.Stop().ok());
  std::unique_ptr<Client> client = Connect(satord);
  ASSERT_NE(client, nullptr);
  const absl::Time start = absl::Now();
  absl::StatusOr<PingResult> pong =
      client->Ping("x", {.deadline = absl::Milliseconds(300)});
  const absl::Duration elapsed = absl::Now() - start;
  ASSERT_TRUE(satord.Signal(SIGCONT).ok());
  EXPECT_EQ(pong.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_LT(elapsed, absl::Seconds(5));
}

// A method satord does not serve (gRPC answers it through its own generic
// service, as it does a reflection v1 probe) is UNIMPLEMENTED, and satord
// goes on serving.
TEST(SatordEndToEnd, UnknownMethodIsUnimplementedAndSatordServesOn) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({}, kStartTimeout).ok());
  grpc::GenericStub stub(grpc::CreateChannel(
      satord.grpc_target(), grpc::InsecureChannelCredentials()));
  for (int i = 0; i < 3; ++i) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    const grpc::Slice empty(std::string{});
    const grpc::ByteBuffer request(&empty, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, "/sator.v1.QueryService/NoSuchMethod",
                   grpc::StubOptions(), &request, &response,
                   [&done](grpc::Status status) { done.set_value(status); });
    EXPECT_EQ(done.get_future().get().error_code(),
              grpc::StatusCode::UNIMPLEMENTED);
  }
  std::unique_ptr<Client> client = Connect(satord);
  ASSERT_NE(client, nullptr);
  EXPECT_TRUE(client->Ping("after").ok());
}

}  // namespace
}  // namespace sator
