// Reading and checking satord's TLS files: the certificate chain, its private
// key and the optional client CA bundle (see server_credentials.h).
#ifndef SATOR_SERVER_AUTH_TLS_FILES_H_
#define SATOR_SERVER_AUTH_TLS_FILES_H_

#include <string>

#include "absl/status/statusor.h"

namespace sator::server::auth {

struct SecurityOptions;

// The PEM contents of the TLS files.
struct TlsMaterial {
  std::string cert_pem;
  std::string key_pem;
  std::string client_ca_pem;  // Empty without --tls_client_ca_file.
};

// Reads the files named by `options` (which must name a certificate and a
// key) and checks them with OpenSSL: FAILED_PRECONDITION for an unreadable
// file, INVALID_ARGUMENT for a file without the expected PEM content or a key
// that does not match the certificate; messages name the flag and the file.
// Logs a warning for an expired certificate.
absl::StatusOr<TlsMaterial> LoadTlsMaterial(const SecurityOptions& options);

}  // namespace sator::server::auth

#endif  // SATOR_SERVER_AUTH_TLS_FILES_H_
