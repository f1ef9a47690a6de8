// End to end: satord over TLS and mutual TLS, with certificates made at test
// time by openssl, through the generated stubs with grpc::SslCredentials;
// clear start-up errors for missing, unreadable and mismatched files.
#include <signal.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "support/satord_process.h"
#include "support/test_certificates.h"

namespace sator {
namespace {

using ::sator::testing::MakeTempDir;
using ::sator::testing::MakeTestCertificates;
using ::sator::testing::ReadTextFile;
using ::sator::testing::SatordProcess;
using ::sator::testing::TestCertificates;
using ::testing::HasSubstr;

constexpr absl::Duration kStartTimeout = absl::Seconds(20);
constexpr absl::Duration kExitTimeout = absl::Seconds(15);
constexpr absl::Duration kCallDeadline = absl::Seconds(5);

// A TLS channel trusting the CA in `root_cert`, presenting `client_cert`
// (with `client_key`) unless it is empty.
std::shared_ptr<grpc::Channel> TlsChannel(const std::string& target,
                                          const std::string& root_cert,
                                          const std::string& client_cert = "",
                                          const std::string& client_key = "") {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = ReadTextFile(root_cert);
  if (!client_cert.empty()) {
    options.pem_cert_chain = ReadTextFile(client_cert);
    options.pem_private_key = ReadTextFile(client_key);
  }
  // A connection of its own, not one shared with an earlier channel.
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(target, grpc::SslCredentials(options),
                                   arguments);
}

grpc::Status Ping(grpc::Channel& channel, const std::string& authorization) {
  auto stub = sator::v1::QueryService::NewStub(
      std::shared_ptr<grpc::Channel>(&channel, [](grpc::Channel*) {}));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
  if (!authorization.empty())
    context.AddMetadata("authorization", authorization);
  sator::v1::PingRequest request;
  request.set_payload("over tls");
  sator::v1::PingResponse response;
  grpc::Status status = stub->Ping(&context, request, &response);
  if (status.ok() && response.payload() != "over tls") {
    return grpc::Status(grpc::StatusCode::INTERNAL, "payload not echoed");
  }
  return status;
}

class TlsEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<TestCertificates> files =
        MakeTestCertificates(MakeTempDir("tls-e2e"));
    ASSERT_TRUE(files.ok()) << files.status();
    certs_ = new TestCertificates(*std::move(files));
  }
  static void TearDownTestSuite() { delete certs_; }

  static std::vector<std::string> TlsFlags() {
    return {"--tls_cert_file=" + certs_->server_cert,
            "--tls_key_file=" + certs_->server_key};
  }

  // Starts satord with `args`, expects exit 1 and returns its log.
  static std::string FailedStartLog(const std::vector<std::string>& args) {
    SatordProcess satord;
    std::vector<std::string> full = {"--grpc_address=127.0.0.1:0",
                                     "--metrics_address="};
    full.insert(full.end(), args.begin(), args.end());
    EXPECT_TRUE(satord.Spawn(full).ok());
    absl::StatusOr<int> exit_code = satord.WaitForExit(kExitTimeout);
    EXPECT_TRUE(exit_code.ok()) << exit_code.status();
    EXPECT_EQ(exit_code.value_or(-1), 1);
    return satord.ReadLog();
  }

  static TestCertificates* certs_;
};

TestCertificates* TlsEndToEnd::certs_ = nullptr;

TEST_F(TlsEndToEnd, TlsCallSucceedsAndPlaintextCallFails) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start(TlsFlags(), kStartTimeout).ok()) << satord.ReadLog();
  // The server certificate names 127.0.0.1, so the address itself verifies.
  auto tls = TlsChannel(satord.grpc_target(), certs_->ca_cert);
  const grpc::Status over_tls = Ping(*tls, "");
  EXPECT_TRUE(over_tls.ok()) << over_tls.error_message();

  auto plaintext = grpc::CreateChannel(satord.grpc_target(),
                                       grpc::InsecureChannelCredentials());
  EXPECT_EQ(Ping(*plaintext, "").error_code(), grpc::StatusCode::UNAVAILABLE);

  // A client that trusts another CA refuses the server.
  auto distrustful = TlsChannel(satord.grpc_target(), certs_->other_ca_cert);
  EXPECT_EQ(Ping(*distrustful, "").error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(satord.ReadLog(), HasSubstr("\"tls\":true"));
}

TEST_F(TlsEndToEnd, MutualTlsRequiresAClientCertificateFromTheCa) {
  std::vector<std::string> flags = TlsFlags();
  flags.push_back("--tls_client_ca_file=" + certs_->ca_cert);
  SatordProcess satord;
  ASSERT_TRUE(satord.Start(flags, kStartTimeout).ok()) << satord.ReadLog();

  auto without_cert = TlsChannel(satord.grpc_target(), certs_->ca_cert);
  EXPECT_EQ(Ping(*without_cert, "").error_code(),
            grpc::StatusCode::UNAVAILABLE);

  auto foreign_cert =
      TlsChannel(satord.grpc_target(), certs_->ca_cert,
                 certs_->other_client_cert, certs_->other_client_key);
  EXPECT_EQ(Ping(*foreign_cert, "").error_code(),
            grpc::StatusCode::UNAVAILABLE);

  auto with_cert = TlsChannel(satord.grpc_target(), certs_->ca_cert,
                              certs_->client_cert, certs_->client_key);
  const grpc::Status ok = Ping(*with_cert, "");
  EXPECT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_THAT(satord.ReadLog(), HasSubstr("\"mutual_tls\":true"));
}

TEST_F(TlsEndToEnd, TokensOverTlsAndHealthWithoutOne) {
  std::random_device random;
  std::string token;
  for (int i = 0; i < 64; ++i)
    token.push_back("0123456789abcdef"[random() % 16]);
  const std::string token_file = certs_->dir + "/tokens";
  std::ofstream(token_file) << "read " << token << "\n";
  std::vector<std::string> flags = TlsFlags();
  flags.push_back("--auth_token_file=" + token_file);
  SatordProcess satord;
  ASSERT_TRUE(satord.Start(flags, kStartTimeout).ok()) << satord.ReadLog();
  auto tls = TlsChannel(satord.grpc_target(), certs_->ca_cert);
  EXPECT_TRUE(Ping(*tls, "Bearer " + token).ok());
  EXPECT_EQ(Ping(*tls, "").error_code(), grpc::StatusCode::UNAUTHENTICATED);

  auto health = grpc::health::v1::Health::NewStub(tls);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
  grpc::health::v1::HealthCheckResponse response;
  ASSERT_TRUE(health->Check(&context, {}, &response).ok());
  EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  // With TLS, no clear-text warning.
  EXPECT_THAT(satord.ReadLog(), ::testing::Not(HasSubstr("auth_without_tls")));
}

TEST_F(TlsEndToEnd, PlaintextHealthPortServesHealthOnly) {
  std::vector<std::string> flags = TlsFlags();
  flags.push_back("--tls_client_ca_file=" + certs_->ca_cert);
  flags.push_back("--health_address=127.0.0.1:0");
  SatordProcess satord;
  ASSERT_TRUE(satord.Start(flags, kStartTimeout).ok()) << satord.ReadLog();
  ASSERT_GT(satord.health_port(), 0);
  ASSERT_NE(satord.health_port(), satord.grpc_port());
  // What a kubelet gRPC probe does: plaintext, no certificate, no token.
  auto probe =
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", satord.health_port()),
                          grpc::InsecureChannelCredentials());
  auto health = grpc::health::v1::Health::NewStub(probe);
  for (const std::string service : {"sator.liveness", "sator.readiness"}) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(service);
    grpc::health::v1::HealthCheckResponse response;
    const grpc::Status status = health->Check(&context, request, &response);
    ASSERT_TRUE(status.ok()) << service << ": " << status.error_message();
    EXPECT_EQ(response.status(),
              grpc::health::v1::HealthCheckResponse::SERVING);
  }
  // Nothing else goes through it.
  const grpc::Status ping = Ping(*probe, "");
  EXPECT_EQ(ping.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(ping.error_message(), HasSubstr("grpc.health.v1 only"));
}

// Copies `from` over `to` the way a Secret update does: write aside, then
// rename into place.
void ReplaceFile(const std::string& from, const std::string& to) {
  const std::string aside = to + ".new";
  std::ofstream(aside, std::ios::trunc) << ReadTextFile(from);
  ASSERT_EQ(std::rename(aside.c_str(), to.c_str()), 0);
}

// Polls with new connections until `channel_for()`'s Ping has `code`, for at
// most `timeout`.
bool EventuallyPings(
    const std::function<std::shared_ptr<grpc::Channel>()>& channel_for,
    grpc::StatusCode code, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (Ping(*channel_for(), "").error_code() == code) return true;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return false;
}

TEST_F(TlsEndToEnd, RenewedCertificateIsServedWithoutARestart) {
  const std::string live = MakeTempDir("tls-live");
  ReplaceFile(certs_->server_cert, live + "/tls.crt");
  ReplaceFile(certs_->server_key, live + "/tls.key");
  SatordProcess satord;
  ASSERT_TRUE(satord
                  .Start({"--tls_cert_file=" + live + "/tls.crt",
                          "--tls_key_file=" + live + "/tls.key"},
                         kStartTimeout)
                  .ok())
      << satord.ReadLog();
  auto old_ca = [&] {
    return TlsChannel(satord.grpc_target(), certs_->ca_cert);
  };
  auto new_ca = [&] {
    return TlsChannel(satord.grpc_target(), certs_->other_ca_cert);
  };
  ASSERT_TRUE(Ping(*old_ca(), "").ok());

  // Renewed by another CA, certificate first, then key.
  ReplaceFile(certs_->other_server_cert, live + "/tls.crt");
  ReplaceFile(certs_->other_server_key, live + "/tls.key");
  EXPECT_TRUE(EventuallyPings(new_ca, grpc::StatusCode::OK, kStartTimeout))
      << satord.ReadLog();
  EXPECT_EQ(Ping(*old_ca(), "").error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(satord.ReadLog(), HasSubstr("\"event\":\"tls_reloaded\""));
}

TEST_F(TlsEndToEnd, BadRenewalKeepsTheLastGoodCertificate) {
  const std::string live = MakeTempDir("tls-live");
  ReplaceFile(certs_->server_cert, live + "/tls.crt");
  ReplaceFile(certs_->server_key, live + "/tls.key");
  SatordProcess satord;
  ASSERT_TRUE(satord
                  .Start({"--tls_cert_file=" + live + "/tls.crt",
                          "--tls_key_file=" + live + "/tls.key"},
                         kStartTimeout)
                  .ok())
      << satord.ReadLog();
  auto channel = [&] {
    return TlsChannel(satord.grpc_target(), certs_->ca_cert);
  };
  ASSERT_TRUE(Ping(*channel(), "").ok());

  // A key that does not match the certificate.
  ReplaceFile(certs_->client_key, live + "/tls.key");
  const absl::Time deadline = absl::Now() + kStartTimeout;
  while (absl::Now() < deadline &&
         !absl::StrContains(satord.ReadLog(), "tls_reload_failed")) {
    // Each new connection's handshake lets satord look at the files.
    EXPECT_TRUE(Ping(*channel(), "").ok());
    absl::SleepFor(absl::Milliseconds(100));
  }
  const std::string log = satord.ReadLog();
  EXPECT_THAT(log, HasSubstr("tls_reload_failed"));
  EXPECT_THAT(log, HasSubstr("does not match the certificate"));
  EXPECT_TRUE(Ping(*channel(), "").ok());
}

TEST_F(TlsEndToEnd, KeyThatDoesNotMatchTheCertificateIsAClearError) {
  const std::string log =
      FailedStartLog({"--tls_cert_file=" + certs_->server_cert,
                      "--tls_key_file=" + certs_->client_key});
  EXPECT_THAT(log, HasSubstr("does not match the certificate"));
  EXPECT_THAT(log, HasSubstr(certs_->client_key));
}

TEST_F(TlsEndToEnd, UnreadableOrMalformedFilesAreClearErrors) {
  EXPECT_THAT(FailedStartLog({"--tls_cert_file=/nonexistent/cert.pem",
                              "--tls_key_file=" + certs_->server_key}),
              HasSubstr("cannot read --tls_cert_file /nonexistent/cert.pem"));
  EXPECT_THAT(FailedStartLog({"--tls_cert_file=" + certs_->server_cert,
                              "--tls_key_file=" + certs_->server_cert}),
              HasSubstr("no unencrypted PEM private key"));
  EXPECT_THAT(FailedStartLog({"--tls_cert_file=" + certs_->server_key,
                              "--tls_key_file=" + certs_->server_key}),
              HasSubstr("no PEM certificate"));
  std::vector<std::string> bad_ca = TlsFlags();
  bad_ca.push_back("--tls_client_ca_file=" + certs_->server_key);
  EXPECT_THAT(FailedStartLog(bad_ca),
              HasSubstr("--tls_client_ca_file " + certs_->server_key));
  EXPECT_THAT(FailedStartLog({"--tls_cert_file=" + certs_->server_cert}),
              HasSubstr("must be given together"));
  EXPECT_THAT(FailedStartLog({"--tls_client_ca_file=" + certs_->ca_cert}),
              HasSubstr("--tls_client_ca_file needs"));
}

}  // namespace
}  // namespace sator
