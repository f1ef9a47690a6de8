// The credentials satord listens with: TLS from --tls_cert_file and
// --tls_key_file, mutual TLS when --tls_client_ca_file is also given, and
// bearer-token authorization from --auth_token_file. Renewed TLS files are
// picked up without a restart (certificate_reloader.h); tokens are read once.
//
// Token checks run in an auth metadata processor attached to the listening
// credentials, not in a server interceptor: gRPC C++ server interceptors
// cannot fail a call before its handler runs, while the processor runs in the
// server's auth filter, before any handler and before the call is counted,
// and fails the call with the status it is given (UNAUTHENTICATED or
// PERMISSION_DENIED). It runs inline (no thread hop) and removes the
// authorization metadata from the call, so no handler can log the token. The
// processor is set on gRPC core's server credentials directly, because the
// C++ InsecureServerCredentials refuses a processor and tokens must work
// without TLS too (behind a TLS-terminating proxy, or in tests).
#ifndef SATOR_SERVER_AUTH_SERVER_CREDENTIALS_H_
#define SATOR_SERVER_AUTH_SERVER_CREDENTIALS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/security/server_credentials.h"

namespace sator::server::auth {

class AuthDenials;  // auth_metrics.h

struct SecurityOptions {
  // PEM certificate chain and private key; both or neither (plaintext).
  std::string tls_cert_file;
  std::string tls_key_file;
  // PEM CA certificates; if set, clients must present a certificate that one
  // of them signed (mutual TLS).
  std::string tls_client_ca_file;
  // The token file (token_store.h); empty: no token checks.
  std::string auth_token_file;
};

struct ListeningCredentials {
  std::shared_ptr<grpc::ServerCredentials> credentials;
  bool tls = false;
  bool mutual_tls = false;
  // How many tokens were loaded; 0 if token checks are off.
  int tokens = 0;
  // State gRPC uses for as long as the server runs (the TLS file reloader):
  // keep it until the server has shut down.
  std::shared_ptr<void> keep_alive;
  // Counts of refused calls for /metrics; null if token checks are off.
  std::shared_ptr<AuthDenials> denials;
};

// Reads and checks every file named in `options` and builds the credentials.
// A missing flag partner, an unreadable file, a file without the expected PEM
// content or a key that does not match the certificate is an
// INVALID_ARGUMENT or FAILED_PRECONDITION error naming the flag and file; a
// bad token file names the line.
absl::StatusOr<ListeningCredentials> MakeListeningCredentials(
    const SecurityOptions& options);

// Plaintext credentials that let through grpc.health.v1 calls only (any
// other call is PERMISSION_DENIED), for --health_address: Kubernetes' gRPC
// probes speak neither TLS nor tokens.
std::shared_ptr<grpc::ServerCredentials> MakeHealthOnlyCredentials();

}  // namespace sator::server::auth

#endif  // SATOR_SERVER_AUTH_SERVER_CREDENTIALS_H_
