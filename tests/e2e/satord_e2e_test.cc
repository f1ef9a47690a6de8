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
#include "grpc/grpc.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/channel_arguments.h"
#include "grpcpp/support/client_callback.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/v1/query_service.grpc.pb.h"
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

// A RaycastBatch whose answer is not read until Read() is called: sent as a
// stream of one message each way (what a unary call is on the wire), so the
// client library starts no read of its own. gRPC's callback threads drive
// it; the answer waits on HTTP/2 flow control meanwhile.
class HeldRaycastBatch final
    : public grpc::ClientBidiReactor<sator::v1::RaycastBatchRequest,
                                     sator::v1::RaycastBatchResponse> {
 public:
  HeldRaycastBatch(std::shared_ptr<grpc::Channel> channel,
                   sator::v1::RaycastBatchRequest request)
      : stub_(std::move(channel)), request_(std::move(request)) {
    context_.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(120)));
    stub_.PrepareBidiStreamingCall(&context_,
                                   "/sator.v1.QueryService/RaycastBatch",
                                   grpc::StubOptions(), this);
    StartWriteLast(&request_, grpc::WriteOptions());
    StartCall();
  }

  // Reads the answer; returns the call's status and fills `answer`, or
  // DEADLINE_EXCEEDED after `timeout`.
  grpc::Status Read(absl::Duration timeout,
                    sator::v1::RaycastBatchResponse* answer) {
    StartRead(&response_);
    if (done_future_.wait_for(absl::ToChronoSeconds(timeout)) !=
        std::future_status::ready) {
      return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                          "the held call did not finish");
    }
    *answer = response_;
    return done_future_.get();
  }

  // Waits for the call to end (after Read, or after a failure).
  void OnDone(const grpc::Status& status) override { done_.set_value(status); }

  ~HeldRaycastBatch() override {
    context_.TryCancel();
    if (done_future_.valid()) done_future_.wait_for(std::chrono::seconds(60));
  }

 private:
  grpc::TemplatedGenericStub<sator::v1::RaycastBatchRequest,
                             sator::v1::RaycastBatchResponse>
      stub_;
  grpc::ClientContext context_;
  sator::v1::RaycastBatchRequest request_;
  sator::v1::RaycastBatchResponse response_;
  std::promise<grpc::Status> done_;
  std::future<grpc::Status> done_future_ = done_.get_future();
};

// sator.liveness answers SERVING through a whole drain, the final snapshot
// included, while an admitted call is still unfinished, on the gRPC port and
// on the --health_address port the manifests' probes use: every probe of the
// health port reads SERVING until it finds the port closed, and by then
// satord is exiting (the health server stops last; the kernel closes the
// port while the process ends, a moment before it can be reaped).
//
// The unfinished call is held open by its client, not by timing: a
// RaycastBatch whose answer (200 rays of 1,000 hits each, about 5 MB) the
// client does not read until told, on a channel without BDP probing, so the
// answer waits on HTTP/2 flow control and gRPC cannot finish the call.
// SIGTERM comes once the metrics show the batch's rays answered; the drain
// must then wait for the call (readiness NOT_SERVING, liveness SERVING, the
// call unfinished), and ends only after the client reads the answer. The
// final snapshot holds the scene's 20,000 bodies.
TEST(SatordEndToEnd, LivenessStaysServingThroughADrainUntilExit) {
  constexpr int kMessageBytes = 64 << 20;
  const std::string data_dir = testing::MakeTempDir("liveness-drain");
  SatordProcess satord;
  ASSERT_TRUE(
      satord
          .Start({"--data_dir=" + data_dir, "--drain_deadline=60s",
                  "--snapshot_interval=0", "--health_address=127.0.0.1:0",
                  absl::StrCat("--max_message_bytes=", kMessageBytes)},
                 kStartTimeout)
          .ok())
      << satord.ReadLog();
  // No retries: each probe below is one attempt.
  absl::StatusOr<Client> made =
      Client::Make({.target = satord.grpc_target(),
                    .retry = {.max_attempts = 1},
                    .max_message_bytes = kMessageBytes});
  ASSERT_TRUE(made.ok()) << made.status();
  std::unique_ptr<Client> client = std::make_unique<Client>(*std::move(made));
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

  // Each ray runs along one row of 1,000 bodies and returns every hit.
  constexpr int kRays = 200;
  sator::v1::RaycastBatchRequest rays;
  rays.set_scene_id("field");
  rays.set_dimension(sator::v1::DIMENSION_2D);
  for (int i = 0; i < kRays; ++i) {
    rays.add_origins(-1.0f);
    rays.add_origins(static_cast<float>(i % 20));
    rays.add_directions(1.0f);
    rays.add_directions(0.0f);
  }
  rays.add_max_distances(10000.0f);
  rays.mutable_options()->set_mode(sator::v1::RESULT_MODE_ALL);
  rays.mutable_options()->set_max_hits(kRow);

  grpc::ChannelArguments held_args;
  held_args.SetMaxReceiveMessageSize(kMessageBytes);
  // No BDP probing: the stream's window stays at HTTP/2's initial 64 KiB.
  held_args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  // Sent now; its answer is read only once the drain is seen.
  auto held = std::make_unique<HeldRaycastBatch>(
      grpc::CreateCustomChannel(satord.grpc_target(),
                                grpc::InsecureChannelCredentials(), held_args),
      rays);

  // Until the batch's rays are answered (at most 100,000 scrapes and 60 s).
  const std::string answered = absl::StrCat(
      "\nsator_query_seconds_count{kind=\"raycast\",mode=\"all\"} ", kRays,
      "\n");
  bool handled = false;
  const absl::Time handled_by = absl::Now() + absl::Seconds(60);
  for (int scrape = 0; scrape < 100000 && !handled && absl::Now() < handled_by;
       ++scrape) {
    absl::StatusOr<std::string> metrics =
        HttpGet(satord.metrics_port(), "/metrics");
    handled = metrics.ok() && absl::StrContains(*metrics, answered);
  }
  if (!handled) {
    sator::v1::RaycastBatchResponse answer;
    const grpc::Status status = held->Read(absl::Seconds(10), &answer);
    FAIL() << "the batch was never counted answered; the call ended with "
           << status.error_code() << " " << status.error_message() << ", "
           << answer.hit_counts_size() << " rays";
  }
  ASSERT_TRUE(satord.Signal(SIGTERM).ok());

  absl::StatusOr<Client> health_client =
      Client::Make({.target = absl::StrCat("127.0.0.1:", satord.health_port()),
                    .retry = {.max_attempts = 1}});
  ASSERT_TRUE(health_client.ok()) << health_client.status();
  const auto probe = [&](const std::string& service) {
    return client->CheckHealth(service, {.deadline = absl::Seconds(2)});
  };
  const auto probe_health_port = [&](const std::string& service) {
    return health_client->CheckHealth(service, {.deadline = absl::Seconds(2)});
  };
  // The drain has begun (readiness NOT_SERVING) and waits for the held call:
  // liveness SERVING meanwhile. Bounded: 10,000 probes and 30 s.
  int serving = 0;
  bool draining = false;
  const absl::Time drain_by = absl::Now() + absl::Seconds(30);
  for (int i = 0; i < 10000 && !draining && absl::Now() < drain_by; ++i) {
    absl::StatusOr<HealthStatus> ready = probe("sator.readiness");
    draining = ready.ok() && *ready == HealthStatus::kNotServing;
    for (const absl::StatusOr<HealthStatus>& live :
         {probe("sator.liveness"), probe_health_port("sator.liveness")}) {
      ASSERT_TRUE(live.ok() ||
                  live.status().code() == absl::StatusCode::kDeadlineExceeded)
          << "liveness failed while the drain waited: " << live.status();
      if (live.ok()) {
        ASSERT_EQ(*live, HealthStatus::kServing);
        ++serving;
      }
    }
  }
  ASSERT_TRUE(draining) << "readiness never turned NOT_SERVING";
  EXPECT_GT(serving, 0);
  EXPECT_THAT(satord.ReadLog(), ::testing::Not(HasSubstr("\"stopped\"")));

  // Now the answer is read, the call finishes and the drain can end.
  sator::v1::RaycastBatchResponse held_answer;
  const grpc::Status held_status = held->Read(absl::Seconds(60), &held_answer);
  // Admitted before SIGTERM, so the drain let it finish.
  ASSERT_TRUE(held_status.ok()) << held_status.error_message();
  EXPECT_EQ(held_answer.hit_counts_size(), kRays);
  EXPECT_EQ(held_answer.body_ids_size(), kRays * kRow);

  // Liveness SERVING on the health port until the probes find satord gone.
  // Bounded: at most 1,000,000 probes and 60 s.
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  absl::Status refused;
  for (int i = 0; i < 1000000 && absl::Now() < give_up; ++i) {
    absl::StatusOr<HealthStatus> health = probe_health_port("sator.liveness");
    // A probe that ran out of time on a loaded machine says nothing: only a
    // refusal ends the loop.
    if (health.status().code() == absl::StatusCode::kDeadlineExceeded) {
      continue;
    }
    if (!health.ok()) {
      refused = health.status();
      break;
    }
    ASSERT_EQ(*health, HealthStatus::kServing) << "probe " << i;
    ++serving;
  }
  ASSERT_FALSE(refused.ok()) << "satord still answering after 60 s";
  // The probe failed because satord is gone, not because a live satord
  // refused it: the port closes as the process exits, a moment before it
  // can be reaped.
  absl::StatusOr<int> exit_code = satord.WaitForExit(absl::Seconds(1));
  ASSERT_TRUE(exit_code.ok())
      << "liveness failed (" << refused << ") after " << serving
      << " SERVING probes while satord was still running\n"
      << satord.ReadLog();
  EXPECT_EQ(*exit_code, 0);
  const std::string log = satord.ReadLog();
  // The drain began with the held call in flight, and waited for it.
  EXPECT_THAT(log, HasSubstr("\"event\":\"draining\",\"in_flight\":1,"));
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
