// TLS file checks with OpenSSL (see tls_files.h). gRPC would only report a
// bad key or certificate as failed handshakes long after start-up.
#include "server/auth/tls_files.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "server/auth/server_credentials.h"
#include "server/logging.h"

namespace sator::server::auth {
namespace {

absl::StatusOr<std::string> ReadFile(absl::string_view flag,
                                     const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot read --", flag, " ", path, ": ", std::strerror(errno)));
  }
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Deleter {
  void operator()(X509* certificate) const { X509_free(certificate); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using UniqueBio = std::unique_ptr<BIO, BioDeleter>;
using UniqueX509 = std::unique_ptr<X509, X509Deleter>;
using UniqueKey = std::unique_ptr<EVP_PKEY, KeyDeleter>;

UniqueBio MemoryBio(const std::string& pem) {
  return UniqueBio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// The first certificate in `pem`, or nullptr.
UniqueX509 FirstCertificate(const std::string& pem) {
  UniqueBio bio = MemoryBio(pem);
  UniqueX509 certificate(
      PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  return certificate;
}

absl::Status CheckCertificateAndKey(const SecurityOptions& options,
                                    const std::string& cert_pem,
                                    const std::string& key_pem) {
  UniqueX509 certificate = FirstCertificate(cert_pem);
  if (certificate == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls_cert_file ", options.tls_cert_file,
                     ": no PEM certificate in the file"));
  }
  UniqueBio key_bio = MemoryBio(key_pem);
  UniqueKey key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  if (key == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls_key_file ", options.tls_key_file,
                     ": no unencrypted PEM private key in the file"));
  }
  if (X509_check_private_key(certificate.get(), key.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat("--tls_key_file ", options.tls_key_file,
                     " does not match the certificate in --tls_cert_file ",
                     options.tls_cert_file));
  }
  if (X509_cmp_current_time(X509_get0_notAfter(certificate.get())) < 0) {
    Log(LogLevel::kWarning, "tls_certificate_expired",
        {{"tls_cert_file", options.tls_cert_file}});
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TlsMaterial> LoadTlsMaterial(const SecurityOptions& options) {
  TlsMaterial material;
  absl::StatusOr<std::string> cert =
      ReadFile("tls_cert_file", options.tls_cert_file);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key =
      ReadFile("tls_key_file", options.tls_key_file);
  if (!key.ok()) return key.status();
  if (absl::Status pair = CheckCertificateAndKey(options, *cert, *key);
      !pair.ok()) {
    return pair;
  }
  material.cert_pem = *std::move(cert);
  material.key_pem = *std::move(key);
  if (!options.tls_client_ca_file.empty()) {
    absl::StatusOr<std::string> ca =
        ReadFile("tls_client_ca_file", options.tls_client_ca_file);
    if (!ca.ok()) return ca.status();
    if (FirstCertificate(*ca) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("--tls_client_ca_file ", options.tls_client_ca_file,
                       ": no PEM certificate in the file"));
    }
    material.client_ca_pem = *std::move(ca);
  }
  return material;
}

}  // namespace sator::server::auth
