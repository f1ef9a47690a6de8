// What security costs per call.
//
// BM_AuthorizerCheck/<tokens>: the token check satord runs on every sator.v1
// call when --auth_token_file is set (SHA-256 of the presented token, then a
// CRYPTO_memcmp against every stored digest), for files of 1 to 1000 tokens;
// the presented token is the last one in the file.
//
// BM_Ping/<security>: Ping through the generated stub to an in-process
// server on loopback, one call at a time, with security 0 = plaintext,
// 1 = plaintext with a bearer token, 2 = TLS, 3 = TLS with a bearer token.
// The ratios against security 0 are the costs of tokens and of TLS (after
// the handshake: the connection is warmed up first).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "server/auth/authorizer.h"
#include "server/logging.h"
#include "server/server.h"

namespace {

// A token of 64 hex characters, different for each `i`.
std::string Token(int i) {
  return absl::StrCat("0123456789abcdef", absl::Hex(i, absl::kZeroPad16),
                      "fedcba9876543210", "a1b2c3d4e5f60718");
}

void BM_AuthorizerCheck(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  std::string file;
  for (int i = 0; i < count; ++i)
    absl::StrAppend(&file, "read ", Token(i), "\n");
  absl::StatusOr<sator::server::auth::TokenStore> tokens =
      sator::server::auth::TokenStore::Parse(file, "benchmark");
  if (!tokens.ok()) {
    state.SkipWithError(std::string(tokens.status().message()).c_str());
    return;
  }
  const sator::server::auth::Authorizer authorizer(*std::move(tokens));
  const std::string header = absl::StrCat("Bearer ", Token(count - 1));
  for (auto _ : state) {
    const absl::Status status =
        authorizer.Check("/sator.v1.QueryService/Ping", header);
    benchmark::DoNotOptimize(status.ok());
  }
}
BENCHMARK(BM_AuthorizerCheck)->Arg(1)->Arg(10)->Arg(1000);

// Test certificates from /usr/bin/openssl, made once per run.
struct Certificates {
  std::string dir;
  std::string ca;
  std::string cert;
  std::string key;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

const Certificates* MakeCertificates() {
  char dir_template[] = "/tmp/sator-auth-bench-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return nullptr;
  auto* made = new Certificates{dir_template, "", "", ""};
  made->ca = made->dir + "/ca.pem";
  made->cert = made->dir + "/server.pem";
  made->key = made->dir + "/server.key";
  const std::string d = made->dir;
  const std::string script = absl::StrCat(
      "cd '", d, "' && ",
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
      "-days 1 -subj /CN=ca -keyout ca.key -out ca.pem && ",
      "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
      "-subj /CN=server -keyout server.key -out server.csr && ",
      "printf 'subjectAltName=IP:127.0.0.1\\n' > server.ext && ",
      "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key "
      "-CAcreateserial -days 1 -extfile server.ext -out server.pem",
      " >/dev/null 2>&1");
  if (std::system(script.c_str()) != 0) return nullptr;
  std::ofstream(d + "/tokens") << "read " << Token(0) << "\n";
  return made;
}

struct PingFixture {
  std::unique_ptr<sator::server::Server> server;
  std::unique_ptr<sator::v1::QueryService::Stub> stub;
  std::string authorization;
};

PingFixture* MakePingFixture(int security) {
  static const Certificates* certificates = MakeCertificates();
  if (certificates == nullptr) return nullptr;
  const bool tls = security >= 2;
  const bool tokens = security % 2 == 1;
  sator::server::SetMinLogLevel(sator::server::LogLevel::kError);
  sator::server::ServerOptions options;
  options.grpc_address = "127.0.0.1:0";
  options.metrics_address = "";
  if (tls) {
    options.security.tls_cert_file = certificates->cert;
    options.security.tls_key_file = certificates->key;
  }
  if (tokens) options.security.auth_token_file = certificates->dir + "/tokens";
  absl::StatusOr<std::unique_ptr<sator::server::Server>> server =
      sator::server::Server::Start(options);
  if (!server.ok()) return nullptr;
  auto* made = new PingFixture();
  made->server = *std::move(server);
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      grpc::InsecureChannelCredentials();
  if (tls) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = ReadFile(certificates->ca);
    credentials = grpc::SslCredentials(ssl);
  }
  made->stub = sator::v1::QueryService::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", made->server->grpc_port()), credentials));
  if (tokens) made->authorization = absl::StrCat("Bearer ", Token(0));
  return made;
}

bool Ping(PingFixture& fixture) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  if (!fixture.authorization.empty()) {
    context.AddMetadata("authorization", fixture.authorization);
  }
  sator::v1::PingRequest request;
  request.set_payload("x");
  sator::v1::PingResponse response;
  return fixture.stub->Ping(&context, request, &response).ok();
}

void BM_Ping(benchmark::State& state) {
  static PingFixture* fixtures[4] = {MakePingFixture(0), MakePingFixture(1),
                                     MakePingFixture(2), MakePingFixture(3)};
  PingFixture* fixture = fixtures[state.range(0)];
  if (fixture == nullptr) {
    state.SkipWithError("could not start the server (is openssl installed?)");
    return;
  }
  for (int i = 0; i < 50; ++i) {  // Connect, handshake, warm up.
    if (!Ping(*fixture)) {
      state.SkipWithError("Ping failed");
      return;
    }
  }
  for (auto _ : state) {
    if (!Ping(*fixture)) {
      state.SkipWithError("Ping failed");
      return;
    }
  }
}
BENCHMARK(BM_Ping)->ArgName("security")->DenseRange(0, 3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
