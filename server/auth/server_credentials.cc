// TLS and token credentials for satord's listening port (see
// server_credentials.h).
#include "server/auth/server_credentials.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpc/grpc.h"
#include "grpc/grpc_security.h"
#include "grpc/slice.h"
#include "server/auth/authorizer.h"
#include "server/auth/roles.h"
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

// Decides a call from its method and authorization header.
using CallCheck = std::function<absl::Status(
    absl::string_view method, std::optional<absl::string_view> authorization)>;

// gRPC core's auth metadata processor interface, over a CallCheck.
void ProcessAuthMetadata(void* state, grpc_auth_context* /*context*/,
                         const grpc_metadata* metadata, size_t count,
                         grpc_process_auth_metadata_done_cb done,
                         void* user_data) {
  const CallCheck& check = *static_cast<const CallCheck*>(state);
  absl::string_view method;
  std::optional<absl::string_view> authorization;
  const grpc_metadata* authorization_entry = nullptr;
  const auto view = [](const grpc_slice& slice) {
    return absl::string_view(
        reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(slice)),
        GRPC_SLICE_LENGTH(slice));
  };
  for (size_t i = 0; i < count; ++i) {
    const absl::string_view key = view(metadata[i].key);
    if (key == ":path") {
      method = view(metadata[i].value);
    } else if (key == "authorization" && authorization_entry == nullptr) {
      authorization = view(metadata[i].value);
      authorization_entry = &metadata[i];
    }
  }
  const absl::Status status = check(method, authorization);
  if (status.ok()) {
    // Consumed: gRPC removes the header before any handler sees the call.
    done(user_data, authorization_entry, authorization_entry != nullptr ? 1 : 0,
         nullptr, 0, GRPC_STATUS_OK, nullptr);
    return;
  }
  const std::string message(status.message());
  done(user_data, nullptr, 0, nullptr, 0,
       static_cast<grpc_status_code>(status.code()), message.c_str());
}

void DestroyCallCheck(void* state) { delete static_cast<CallCheck*>(state); }

// gRPC core credentials: TLS when `cert_pem` is not empty (requiring a client
// certificate signed by `client_ca_pem` when that is not empty), plaintext
// otherwise. nullptr if gRPC refuses them.
grpc_server_credentials* MakeCoreCredentials(const std::string& cert_pem,
                                             const std::string& key_pem,
                                             const std::string& client_ca_pem) {
  if (cert_pem.empty()) return grpc_insecure_server_credentials_create();
  grpc_ssl_pem_key_cert_pair pair{key_pem.c_str(), cert_pem.c_str()};
  // Copies the strings.
  grpc_ssl_server_certificate_config* config =
      grpc_ssl_server_certificate_config_create(
          client_ca_pem.empty() ? nullptr : client_ca_pem.c_str(), &pair, 1);
  // Takes ownership of config.
  grpc_ssl_server_credentials_options* options =
      grpc_ssl_server_credentials_create_options_using_config(
          client_ca_pem.empty()
              ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
              : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY,
          config);
  // Takes ownership of options.
  return grpc_ssl_server_credentials_create_with_options(options);
}

// grpc::ServerCredentials over gRPC core credentials that this object owns.
// The base class initializes gRPC before the core credentials are made.
class CoreServerCredentials final : public grpc::ServerCredentials {
 public:
  CoreServerCredentials(const std::string& cert_pem, const std::string& key_pem,
                        const std::string& client_ca_pem)
      : credentials_(MakeCoreCredentials(cert_pem, key_pem, client_ca_pem)) {}
  ~CoreServerCredentials() override {
    if (credentials_ != nullptr) grpc_server_credentials_release(credentials_);
  }
  CoreServerCredentials(const CoreServerCredentials&) = delete;
  CoreServerCredentials& operator=(const CoreServerCredentials&) = delete;

  bool ok() const { return credentials_ != nullptr; }

  // `check` decides every call that arrives through these credentials.
  void SetCallCheck(CallCheck check) {
    grpc_server_credentials_set_auth_metadata_processor(
        credentials_,
        grpc_auth_metadata_processor{&ProcessAuthMetadata, &DestroyCallCheck,
                                     new CallCheck(std::move(check))});
  }

  // satord sets its processor on the core credentials (see the file comment).
  void SetAuthMetadataProcessor(
      const std::shared_ptr<grpc::AuthMetadataProcessor>& /*processor*/)
      override {}

 private:
  int AddPortToServer(const std::string& address,
                      grpc_server* server) override {
    return grpc_server_add_http2_port(server, address.c_str(), credentials_);
  }

  grpc_server_credentials* credentials_;
};

}  // namespace

absl::StatusOr<ListeningCredentials> MakeListeningCredentials(
    const SecurityOptions& options) {
  ListeningCredentials result;
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls_cert_file and --tls_key_file must be given together");
  }
  if (!options.tls_client_ca_file.empty() && options.tls_cert_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls_client_ca_file needs --tls_cert_file and --tls_key_file");
  }

  std::string cert_pem;
  std::string key_pem;
  std::string client_ca_pem;
  if (!options.tls_cert_file.empty()) {
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
    cert_pem = *std::move(cert);
    key_pem = *std::move(key);
    result.tls = true;
  }
  if (!options.tls_client_ca_file.empty()) {
    absl::StatusOr<std::string> ca =
        ReadFile("tls_client_ca_file", options.tls_client_ca_file);
    if (!ca.ok()) return ca.status();
    if (FirstCertificate(*ca) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("--tls_client_ca_file ", options.tls_client_ca_file,
                       ": no PEM certificate in the file"));
    }
    client_ca_pem = *std::move(ca);
    result.mutual_tls = true;
  }
  std::unique_ptr<Authorizer> authorizer;
  if (!options.auth_token_file.empty()) {
    absl::StatusOr<TokenStore> tokens =
        TokenStore::Load(options.auth_token_file);
    if (!tokens.ok()) return tokens.status();
    result.tokens = static_cast<int>(tokens->entries().size());
    authorizer = std::make_unique<Authorizer>(*std::move(tokens));
  }

  auto credentials =
      std::make_shared<CoreServerCredentials>(cert_pem, key_pem, client_ca_pem);
  if (!credentials->ok()) {
    return absl::InvalidArgumentError(
        "gRPC refused the TLS certificate, key or client CA");
  }
  if (authorizer != nullptr) {
    credentials->SetCallCheck(
        [authorizer = std::shared_ptr<const Authorizer>(std::move(authorizer))](
            absl::string_view method,
            std::optional<absl::string_view> authorization) {
          return authorizer->Check(method, authorization);
        });
  }
  result.credentials = std::move(credentials);
  return result;
}

std::shared_ptr<grpc::ServerCredentials> MakeHealthOnlyCredentials() {
  auto credentials = std::make_shared<CoreServerCredentials>("", "", "");
  credentials->SetCallCheck([](absl::string_view method,
                               std::optional<absl::string_view>) {
    if (!RequiredRole(method).has_value()) return absl::OkStatus();
    return absl::PermissionDeniedError("this port serves grpc.health.v1 only");
  });
  return credentials;
}

}  // namespace sator::server::auth
