// The client's TLS and bearer-token options against the real satord started
// with --tls_cert_file/--tls_key_file and --auth_token_file: unary calls,
// roles, and a Session (a stream) all carry the token; a client without TLS
// or without a token is refused.
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/client/session.h"
#include "support/satord_process.h"
#include "support/test_certificates.h"

namespace sator {
namespace {

using ::sator::testing::MakeTempDir;
using ::sator::testing::MakeTestCertificates;
using ::sator::testing::ReadTextFile;
using ::sator::testing::SatordProcess;

// 40 characters from the token alphabet with many distinct ones.
std::string Token(char tag) {
  return absl::StrCat("sator-test-", std::string(1, tag),
                      "-0123456789abcdefghijklmnopqrs");
}

class ClientSecurityEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = MakeTempDir("client-security");
    absl::StatusOr<testing::TestCertificates> certificates =
        MakeTestCertificates(dir);
    ASSERT_TRUE(certificates.ok()) << certificates.status();
    certificates_ = *certificates;
    const std::string tokens = dir + "/tokens";
    std::ofstream(tokens) << "read " << Token('r') << " reader\nadmin "
                          << Token('a') << " admin\n";
    ASSERT_TRUE(satord_
                    .Start({"--tls_cert_file=" + certificates_.server_cert,
                            "--tls_key_file=" + certificates_.server_key,
                            "--auth_token_file=" + tokens})
                    .ok())
        << satord_.ReadLog();
  }

  std::unique_ptr<Client> Connect(bool tls, const std::string& token) {
    ClientOptions options;
    options.target = satord_.grpc_target();
    options.tls.enabled = tls;
    options.tls.root_certificates_pem = ReadTextFile(certificates_.ca_cert);
    options.bearer_token = token;
    options.retry.max_attempts = 1;
    auto client = Client::Make(options);
    return client.ok() ? std::make_unique<Client>(*std::move(client)) : nullptr;
  }

  testing::TestCertificates certificates_;
  SatordProcess satord_;
};

TEST_F(ClientSecurityEndToEnd, TlsAndTokenReachEveryKindOfCall) {
  std::unique_ptr<Client> admin = Connect(true, Token('a'));
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(admin->Ping("x").ok());
  client::SceneSettings settings;
  settings.dimension = client::Dimension::k2D;
  ASSERT_TRUE(admin->CreateScene("secure", settings).ok());
  client::Body wall;
  wall.id = 1;
  wall.shape = Shape2{Circle{1.0f}};
  wall.pose = Pose2{{0.0f, 0.0f}, {}};
  wall.motion = client::MotionType::kStatic;
  ASSERT_TRUE(admin->UpsertBodies("secure", {wall}).ok());

  // A stream carries the token too.
  absl::StatusOr<std::unique_ptr<client::Session>> session =
      admin->OpenSession("secure");
  ASSERT_TRUE(session.ok()) << session.status();
  client::Query query;
  query.kind = client::PointQuery{Vec2{0.5f, 0.0f}};
  absl::StatusOr<client::QueryResult> hit =
      (*session)->SubmitQuery(query).get();
  ASSERT_TRUE(hit.ok()) << hit.status();
  ASSERT_EQ(hit->hits.size(), 1u);
  EXPECT_EQ(hit->hits[0].body_id, 1u);
}

TEST_F(ClientSecurityEndToEnd, RolesAndMissingCredentialsAreRefused) {
  std::unique_ptr<Client> reader = Connect(true, Token('r'));
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->Ping("x").ok());
  client::SceneSettings settings;
  settings.dimension = client::Dimension::k3D;
  EXPECT_EQ(reader->CreateScene("nope", settings).status().code(),
            absl::StatusCode::kPermissionDenied);

  std::unique_ptr<Client> anonymous = Connect(true, "");
  ASSERT_NE(anonymous, nullptr);
  EXPECT_EQ(anonymous->Ping("x").status().code(),
            absl::StatusCode::kUnauthenticated);

  std::unique_ptr<Client> plaintext = Connect(false, Token('a'));
  ASSERT_NE(plaintext, nullptr);
  EXPECT_EQ(plaintext->Ping("x").status().code(),
            absl::StatusCode::kUnavailable);
}

TEST(ClientSecurityOptions, RefusesHalfAClientCertificate) {
  ClientOptions options;
  options.tls.enabled = true;
  options.tls.certificate_chain_pem = "-----BEGIN CERTIFICATE-----";
  EXPECT_EQ(Client::Make(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sator
