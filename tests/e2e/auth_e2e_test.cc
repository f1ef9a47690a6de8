// End to end: bearer tokens and roles on the real satord (plaintext; TLS is
// in tls_e2e_test.cc), health open to probes, reflection switched off, the
// metrics port on localhost by default, a bad token file refused at start-up,
// and no token in satord's log.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "support/satord_process.h"
#include "support/test_certificates.h"

namespace sator {
namespace {

using ::sator::testing::MakeTempDir;
using ::sator::testing::ReadTextFile;
using ::sator::testing::SatordProcess;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr absl::Duration kStartTimeout = absl::Seconds(20);
constexpr absl::Duration kExitTimeout = absl::Seconds(15);
constexpr absl::Duration kCallDeadline = absl::Seconds(5);

// 64 random hex characters, like `openssl rand -hex 32`.
std::string RandomToken() {
  std::random_device random;
  std::string token;
  for (int i = 0; i < 64; ++i)
    token.push_back("0123456789abcdef"[random() % 16]);
  return token;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

// What each sator.v1 method requires, written from OPERATIONS.md (not read from
// the server's table): read for queries, Ping, PairQuery and reading scenes;
// write for body mutations, pose updates and sessions; admin for creating,
// deleting, exporting and importing scenes.
const std::map<std::string, int>& ExpectedRoles() {
  static const auto* const roles = new std::map<std::string, int>{
      {"/sator.v1.QueryService/Ping", 1},
      {"/sator.v1.QueryService/Overlap", 1},
      {"/sator.v1.QueryService/Contacts", 1},
      {"/sator.v1.QueryService/Sweep", 1},
      {"/sator.v1.QueryService/Raycast", 1},
      {"/sator.v1.QueryService/PointQuery", 1},
      {"/sator.v1.QueryService/QueryBatch", 1},
      {"/sator.v1.QueryService/RaycastBatch", 1},
      {"/sator.v1.QueryService/PairQuery", 1},
      {"/sator.v1.QueryService/ValidateShots", 1},
      {"/sator.v1.QueryService/ListShotVerdicts", 1},
      {"/sator.v1.QueryService/WatchShotVerdicts", 1},
      {"/sator.v1.QueryService/Session", 2},
      {"/sator.v1.SceneService/ListScenes", 1},
      {"/sator.v1.SceneService/GetScene", 1},
      {"/sator.v1.SceneService/CreateScene", 3},
      {"/sator.v1.SceneService/DeleteScene", 3},
      {"/sator.v1.SceneService/ExportScene", 3},
      {"/sator.v1.SceneService/ImportScene", 3},
      {"/sator.v1.BodyService/UpsertBodies", 2},
      {"/sator.v1.BodyService/RemoveBodies", 2},
      {"/sator.v1.BodyService/UpdatePoses", 2},
  };
  return *roles;
}

// One call of `method` with an empty request message, as raw bytes, so every
// method (unary or streaming) can be called the same way.
grpc::Status CallWithEmptyRequest(grpc::Channel& channel,
                                  const std::string& method,
                                  const std::string& authorization) {
  grpc::GenericStub stub(
      std::shared_ptr<grpc::Channel>(&channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
  if (!authorization.empty())
    context.AddMetadata("authorization", authorization);
  // An empty message (a ByteBuffer with no slice at all is not a message).
  grpc::Slice empty(std::string{});
  const grpc::ByteBuffer request(&empty, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status status) { done.set_value(status); });
  return done.get_future().get();
}

grpc::Status Ping(grpc::Channel& channel, const std::string& authorization,
                  const std::string& payload) {
  auto stub = sator::v1::QueryService::NewStub(
      std::shared_ptr<grpc::Channel>(&channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
  if (!authorization.empty())
    context.AddMetadata("authorization", authorization);
  sator::v1::PingRequest request;
  request.set_payload(payload);
  sator::v1::PingResponse response;
  grpc::Status status = stub->Ping(&context, request, &response);
  if (status.ok() && response.payload() != payload) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "payload not echoed");
  }
  return status;
}

class AuthEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(MakeTempDir("auth-e2e"));
    tokens_ = new std::vector<std::string>{RandomToken(), RandomToken(),
                                           RandomToken()};
    WriteFile(*dir_ + "/tokens",
              absl::StrCat("# test tokens\nread ", (*tokens_)[0],
                           " reader\nwrite ", (*tokens_)[1],
                           " writer\n\nadmin ", (*tokens_)[2], " admin\n"));
    satord_ = new SatordProcess();
    const absl::Status started = satord_->Start(
        {"--auth_token_file=" + *dir_ + "/tokens", "--log_level=debug"},
        kStartTimeout);
    ASSERT_TRUE(started.ok()) << started;
    channel_ = new std::shared_ptr<grpc::Channel>(grpc::CreateChannel(
        satord_->grpc_target(), grpc::InsecureChannelCredentials()));
  }
  static void TearDownTestSuite() {
    delete channel_;
    delete satord_;
    delete tokens_;
    delete dir_;
  }

  static std::string Bearer(int role) {
    return absl::StrCat("Bearer ", (*tokens_)[role - 1]);
  }

  static std::string* dir_;
  static std::vector<std::string>* tokens_;
  static SatordProcess* satord_;
  static std::shared_ptr<grpc::Channel>* channel_;
};

std::string* AuthEndToEnd::dir_ = nullptr;
std::vector<std::string>* AuthEndToEnd::tokens_ = nullptr;
SatordProcess* AuthEndToEnd::satord_ = nullptr;
std::shared_ptr<grpc::Channel>* AuthEndToEnd::channel_ = nullptr;

TEST_F(AuthEndToEnd, PingWithATokenSucceedsAndWithoutOneIsUnauthenticated) {
  EXPECT_TRUE(Ping(**channel_, Bearer(1), "hello").ok());
  const grpc::Status no_token = Ping(**channel_, "", "hello");
  EXPECT_EQ(no_token.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(no_token.error_message(), HasSubstr("authorization"));
  EXPECT_EQ(Ping(**channel_, "Bearer " + RandomToken(), "x").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Ping(**channel_, "Basic " + (*tokens_)[2], "x").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Ping(**channel_, (*tokens_)[2], "x").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(AuthEndToEnd, EachRoleAgainstEveryMethod) {
  for (const auto& [method, required] : ExpectedRoles()) {
    SCOPED_TRACE(method);
    EXPECT_EQ(CallWithEmptyRequest(**channel_, method, "").error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(
        CallWithEmptyRequest(**channel_, method, "Bearer " + RandomToken())
            .error_code(),
        grpc::StatusCode::UNAUTHENTICATED);
    for (int role = 1; role <= 3; ++role) {
      SCOPED_TRACE(absl::StrCat("role ", role));
      const grpc::Status status =
          CallWithEmptyRequest(**channel_, method, Bearer(role));
      if (role < required) {
        EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
      } else {
        // Past authorization: whatever the handler says of an empty
        // request (OK, INVALID_ARGUMENT, UNIMPLEMENTED until written...).
        EXPECT_NE(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
        EXPECT_NE(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
        EXPECT_NE(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
      }
    }
  }
}

TEST_F(AuthEndToEnd, HealthNeedsNoToken) {
  auto stub = grpc::health::v1::Health::NewStub(*channel_);
  for (const std::string service :
       {"", "sator.readiness", "sator.liveness", "sator.v1.QueryService"}) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(service);
    grpc::health::v1::HealthCheckResponse response;
    const grpc::Status status = stub->Check(&context, request, &response);
    ASSERT_TRUE(status.ok()) << service << ": " << status.error_message();
    EXPECT_EQ(response.status(),
              grpc::health::v1::HealthCheckResponse::SERVING);
  }
}

TEST_F(AuthEndToEnd, ReflectionNeedsAToken) {
  const std::string method =
      "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";
  EXPECT_EQ(CallWithEmptyRequest(**channel_, method, "").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(CallWithEmptyRequest(**channel_, method, Bearer(1)).error_code(),
            grpc::StatusCode::OK);
}

// The value of the sample `series` (name and labels) in /metrics; -1 if
// absent.
double Sample(int metrics_port, const std::string& series) {
  absl::StatusOr<std::string> page =
      sator::testing::HttpGet(metrics_port, "/metrics");
  if (!page.ok()) return -1;
  for (absl::string_view line : absl::StrSplit(*page, '\n')) {
    if (absl::ConsumePrefix(&line, series + " ")) {
      double value = 0;
      if (absl::SimpleAtod(line, &value)) return value;
    }
  }
  return -1;
}

TEST_F(AuthEndToEnd, RefusalsAreCountedOnMetrics) {
  const std::string unauthenticated =
      "sator_auth_denied_total{code=\"UNAUTHENTICATED\"}";
  const std::string denied =
      "sator_auth_denied_total{code=\"PERMISSION_DENIED\"}";
  const double unauthenticated_before =
      Sample(satord_->metrics_port(), unauthenticated);
  const double denied_before = Sample(satord_->metrics_port(), denied);
  ASSERT_GE(unauthenticated_before, 0);
  ASSERT_GE(denied_before, 0);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(Ping(**channel_, "", "x").ok());
  EXPECT_FALSE(CallWithEmptyRequest(
                   **channel_, "/sator.v1.SceneService/CreateScene", Bearer(2))
                   .ok());
  EXPECT_TRUE(Ping(**channel_, Bearer(1), "x").ok());  // Not counted.
  EXPECT_EQ(Sample(satord_->metrics_port(), unauthenticated),
            unauthenticated_before + 3);
  EXPECT_EQ(Sample(satord_->metrics_port(), denied), denied_before + 1);
}

TEST_F(AuthEndToEnd, WarnsThatTokensTravelInClearTextWithoutTls) {
  EXPECT_THAT(satord_->ReadLog(), HasSubstr("\"event\":\"auth_without_tls\""));
}

// Defined last: it stops satord to read its whole log (gtest runs a suite's
// tests in order; ctest runs each in a process of its own).
TEST_F(AuthEndToEnd, TokensNeverAppearInTheLog) {
  // Calls of every outcome, at debug level.
  EXPECT_TRUE(Ping(**channel_, Bearer(3), "x").ok());
  const std::string stranger = RandomToken();
  EXPECT_FALSE(Ping(**channel_, "Bearer " + stranger, "x").ok());
  EXPECT_FALSE(CallWithEmptyRequest(
                   **channel_, "/sator.v1.SceneService/CreateScene", Bearer(1))
                   .ok());
  ASSERT_TRUE(satord_->Signal(SIGTERM).ok());
  absl::StatusOr<int> exit_code = satord_->WaitForExit(kExitTimeout);
  ASSERT_TRUE(exit_code.ok());
  EXPECT_EQ(*exit_code, 0);
  const std::string log = satord_->ReadLog();
  EXPECT_THAT(log, HasSubstr("auth_denied"));  // Denials were logged...
  EXPECT_THAT(log, HasSubstr("\"token_name\":\"reader\""));
  std::vector<std::string> secrets = *tokens_;
  secrets.push_back(stranger);
  for (const std::string& secret : secrets) {  // ...but never a token.
    for (size_t at = 0; at + 16 <= secret.size(); at += 8) {
      EXPECT_THAT(log, Not(HasSubstr(secret.substr(at, 16))));
    }
  }
}

TEST(AuthStartUp, BadTokenFileFailsNamingTheLineButNotTheToken) {
  const std::string dir = MakeTempDir("auth-bad");
  const std::string good = RandomToken();
  const std::string weak = "short-token-12345";
  struct Case {
    std::string contents;
    std::string message;
  };
  for (const Case& bad :
       {Case{absl::StrCat("read ", good, "\n# fine so far\nwrite ", weak, "\n"),
             "line 3: token too short"},
        Case{absl::StrCat("\n", good, " admin\n"),
             "line 2: the first field must be read, write or admin"},
        Case{"# none\n", "no tokens"}}) {
    WriteFile(dir + "/tokens", bad.contents);
    SatordProcess satord;
    ASSERT_TRUE(satord
                    .Spawn({"--grpc_address=127.0.0.1:0", "--metrics_address=",
                            "--auth_token_file=" + dir + "/tokens"})
                    .ok());
    absl::StatusOr<int> exit_code = satord.WaitForExit(kExitTimeout);
    ASSERT_TRUE(exit_code.ok());
    EXPECT_EQ(*exit_code, 1);
    const std::string log = satord.ReadLog();
    EXPECT_THAT(log, HasSubstr(bad.message));
    EXPECT_THAT(log, HasSubstr(dir + "/tokens"));
    EXPECT_THAT(log, Not(HasSubstr(good)));
    EXPECT_THAT(log, Not(HasSubstr(weak)));
  }
}

TEST(AuthStartUp, WarnsWhenTheTokenFileIsWorldReadable) {
  const std::string dir = MakeTempDir("auth-mode");
  const std::string path = dir + "/tokens";
  WriteFile(path, absl::StrCat("read ", RandomToken(), "\n"));
  for (const mode_t mode : {mode_t{0644}, mode_t{0600}}) {
    ASSERT_EQ(chmod(path.c_str(), mode), 0);
    SatordProcess satord;
    ASSERT_TRUE(satord.Start({"--auth_token_file=" + path}, kStartTimeout).ok())
        << satord.ReadLog();
    const bool warned =
        absl::StrContains(satord.ReadLog(), "auth_token_file_world_readable");
    EXPECT_EQ(warned, mode == 0644) << std::oct << mode;
  }
}

TEST(AuthStartUp, MissingTokenFileFailsNamingIt) {
  SatordProcess satord;
  ASSERT_TRUE(satord
                  .Spawn({"--grpc_address=127.0.0.1:0", "--metrics_address=",
                          "--auth_token_file=/nonexistent/sator-tokens"})
                  .ok());
  absl::StatusOr<int> exit_code = satord.WaitForExit(kExitTimeout);
  ASSERT_TRUE(exit_code.ok());
  EXPECT_EQ(*exit_code, 1);
  EXPECT_THAT(satord.ReadLog(), HasSubstr("/nonexistent/sator-tokens"));
}

TEST(Reflection, SwitchedOffByFlag) {
  const std::string method =
      "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";
  for (const bool enabled : {true, false}) {
    SatordProcess satord;
    ASSERT_TRUE(
        satord
            .Start({absl::StrCat("--reflection=", enabled ? "true" : "false")},
                   kStartTimeout)
            .ok());
    auto channel = grpc::CreateChannel(satord.grpc_target(),
                                       grpc::InsecureChannelCredentials());
    EXPECT_EQ(CallWithEmptyRequest(*channel, method, "").error_code(),
              enabled ? grpc::StatusCode::OK : grpc::StatusCode::UNIMPLEMENTED)
        << "reflection=" << enabled;
    // Ping still works either way.
    EXPECT_TRUE(Ping(*channel, "", "x").ok());
  }
}

// The listening sockets of /proc/net/tcp{,6} on `port`, as "address:port" in
// the kernel's hex notation, e.g. "0100007F:24F8".
std::vector<std::string> ListeningSockets(int port) {
  std::vector<std::string> found;
  const std::string port_hex = absl::StrCat(absl::Hex(port, absl::kZeroPad4));
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    for (absl::string_view line : absl::StrSplit(ReadTextFile(table), '\n')) {
      const std::vector<absl::string_view> fields =
          absl::StrSplit(line, ' ', absl::SkipEmpty());
      // sl local_address rem_address st ...; st 0A is LISTEN.
      if (fields.size() < 4 || fields[3] != "0A") continue;
      if (absl::EndsWithIgnoreCase(fields[1], absl::StrCat(":", port_hex))) {
        found.emplace_back(fields[1]);
      }
    }
  }
  return found;
}

TEST(MetricsAddress, DefaultsToLocalhostOnly) {
  const std::string dir = MakeTempDir("metrics-default");
  const std::string port_file = dir + "/ports.json";
  SatordProcess satord;
  // No --metrics_address: the default.
  ASSERT_TRUE(
      satord.Spawn({"--grpc_address=127.0.0.1:0", "--port_file=" + port_file})
          .ok());
  const absl::Time deadline = absl::Now() + kStartTimeout;
  std::string ports;
  while (absl::Now() < deadline && satord.running()) {
    ports = ReadTextFile(port_file);
    if (absl::StrContains(ports, "metrics_port")) break;
    absl::StatusOr<int> exited = satord.WaitForExit(absl::Milliseconds(20));
    if (exited.ok()) {
      // Only another program holding the default port may stop it here.
      ASSERT_THAT(satord.ReadLog(), HasSubstr("9464"));
      GTEST_SKIP() << "127.0.0.1:9464 is in use by another program";
    }
  }
  ASSERT_THAT(ports, HasSubstr("\"metrics_port\":9464"));
  // 0100007F is 127.0.0.1 in /proc/net/tcp's little-endian hex.
  EXPECT_THAT(ListeningSockets(9464),
              ::testing::ElementsAre(::testing::StrCaseEq("0100007F:24F8")));
}

}  // namespace
}  // namespace sator
