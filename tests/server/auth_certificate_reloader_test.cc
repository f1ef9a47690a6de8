// CertificateReloader: serves the loaded files first, a renewal that passes
// the checks next, never a bad one, and stays consistent when many
// handshakes ask at once (run under ThreadSanitizer too).
#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/auth/certificate_reloader.h"
#include "support/satord_process.h"
#include "support/test_certificates.h"

namespace sator::server::auth {
namespace {

using ::sator::testing::MakeTempDir;
using ::sator::testing::MakeTestCertificates;
using ::sator::testing::ReadTextFile;
using ::sator::testing::TestCertificates;

// Copies `from` over `to`: write aside, then rename into place.
void ReplaceFile(const std::string& from, const std::string& to) {
  const std::string aside = to + ".new";
  std::ofstream(aside, std::ios::trunc) << ReadTextFile(from);
  ASSERT_EQ(std::rename(aside.c_str(), to.c_str()), 0);
}

class CertificateReloaderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<TestCertificates> files =
        MakeTestCertificates(MakeTempDir("reloader"));
    ASSERT_TRUE(files.ok()) << files.status();
    certs_ = new TestCertificates(*std::move(files));
  }
  static void TearDownTestSuite() { delete certs_; }

  void SetUp() override {
    live_ = MakeTempDir("reloader-live");
    ReplaceFile(certs_->server_cert, live_ + "/tls.crt");
    ReplaceFile(certs_->server_key, live_ + "/tls.key");
    options_.tls_cert_file = live_ + "/tls.crt";
    options_.tls_key_file = live_ + "/tls.key";
  }

  // Fetches once; destroys any configuration handed out.
  static grpc_ssl_certificate_config_reload_status Fetch(
      CertificateReloader& reloader) {
    grpc_ssl_server_certificate_config* config = nullptr;
    const grpc_ssl_certificate_config_reload_status status =
        reloader.Fetch(&config);
    EXPECT_EQ(config != nullptr,
              status == GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW);
    if (config != nullptr) grpc_ssl_server_certificate_config_destroy(config);
    return status;
  }

  static TestCertificates* certs_;
  std::string live_;
  SecurityOptions options_;
};

TestCertificates* CertificateReloaderTest::certs_ = nullptr;

TEST_F(CertificateReloaderTest, ServesTheFilesThenOnlyGoodRenewals) {
  absl::StatusOr<std::unique_ptr<CertificateReloader>> reloader =
      CertificateReloader::Create(options_, absl::ZeroDuration());
  ASSERT_TRUE(reloader.ok()) << reloader.status();
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW);
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED);

  // Half a renewal (the certificate, not yet its key) is not served.
  ReplaceFile(certs_->other_server_cert, live_ + "/tls.crt");
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED);
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED);
  // The whole renewal is, once.
  ReplaceFile(certs_->other_server_key, live_ + "/tls.key");
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW);
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED);

  // A file that disappears keeps the last good configuration.
  ASSERT_EQ(std::remove((live_ + "/tls.key").c_str()), 0);
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED);
}

TEST_F(CertificateReloaderTest, LooksAtTheFilesAtMostOncePerInterval) {
  absl::StatusOr<std::unique_ptr<CertificateReloader>> reloader =
      CertificateReloader::Create(options_, absl::Hours(1));
  ASSERT_TRUE(reloader.ok()) << reloader.status();
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW);
  // The first check after the initial configuration happens at once...
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED);
  ReplaceFile(certs_->other_server_cert, live_ + "/tls.crt");
  ReplaceFile(certs_->other_server_key, live_ + "/tls.key");
  // ...the next one only an hour later.
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED);
}

TEST_F(CertificateReloaderTest, CreateRefusesBadFiles) {
  options_.tls_key_file = certs_->client_key;
  absl::StatusOr<std::unique_ptr<CertificateReloader>> reloader =
      CertificateReloader::Create(options_, absl::ZeroDuration());
  EXPECT_EQ(reloader.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(reloader.status().message(),
              ::testing::HasSubstr("does not match the certificate"));
}

TEST_F(CertificateReloaderTest, ConcurrentHandshakesSeeEachRenewalOnce) {
  absl::StatusOr<std::unique_ptr<CertificateReloader>> reloader =
      CertificateReloader::Create(options_, absl::ZeroDuration());
  ASSERT_TRUE(reloader.ok()) << reloader.status();
  std::atomic<int> new_configs{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> handshakes;
  for (int t = 0; t < 4; ++t) {
    handshakes.emplace_back([&] {
      // Bounded: at most 2000 fetches per thread.
      for (int i = 0; i < 2000 && !stop.load(); ++i) {
        if (Fetch(**reloader) == GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW) {
          new_configs.fetch_add(1);
        }
      }
    });
  }
  // Two whole renewals while the threads fetch.
  ReplaceFile(certs_->other_server_cert, live_ + "/tls.crt");
  ReplaceFile(certs_->other_server_key, live_ + "/tls.key");
  ReplaceFile(certs_->server_cert, live_ + "/tls.crt");
  ReplaceFile(certs_->server_key, live_ + "/tls.key");
  stop.store(true);
  for (std::thread& thread : handshakes) thread.join();
  // The initial configuration once, then at most one per whole set of files
  // seen (the renewals may be seen whole, in halves, which are refused, or
  // not at all before the threads stop).
  EXPECT_GE(new_configs.load(), 1);
  EXPECT_LE(new_configs.load(), 3);
  Fetch(**reloader);  // Catches up with the final files if no thread did...
  // ...and then stays put.
  EXPECT_EQ(Fetch(**reloader), GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED);
}

}  // namespace
}  // namespace sator::server::auth
