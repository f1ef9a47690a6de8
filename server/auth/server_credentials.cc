// TLS and token credentials for satord's listening ports (see
// server_credentials.h).
#include "server/auth/server_credentials.h"

#include <sys/stat.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpc/grpc.h"
#include "grpc/grpc_security.h"
#include "grpc/slice.h"
#include "server/auth/auth_metrics.h"
#include "server/auth/authorizer.h"
#include "server/auth/certificate_reloader.h"
#include "server/auth/roles.h"
#include "server/logging.h"

namespace sator::server::auth {
namespace {

// How often, at most, satord looks for renewed TLS files.
constexpr absl::Duration kCertificateCheckInterval = absl::Seconds(1);

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
    // Consumed: gRPC's auth filter drops the header from the call.
    done(user_data, authorization_entry, authorization_entry != nullptr ? 1 : 0,
         nullptr, 0, GRPC_STATUS_OK, nullptr);
    return;
  }
  const std::string message(status.message());
  done(user_data, nullptr, 0, nullptr, 0,
       static_cast<grpc_status_code>(status.code()), message.c_str());
}

void DestroyCallCheck(void* state) { delete static_cast<CallCheck*>(state); }

// gRPC core credentials: TLS from `reloader` (requiring a client certificate
// when there is a client CA), plaintext when it is null. nullptr if gRPC
// refuses them.
grpc_server_credentials* MakeCoreCredentials(CertificateReloader* reloader,
                                             bool mutual_tls) {
  if (reloader == nullptr) return grpc_insecure_server_credentials_create();
  grpc_ssl_server_credentials_options* options =
      grpc_ssl_server_credentials_create_options_using_config_fetcher(
          mutual_tls
              ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
              : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
          &CertificateReloader::FetchCallback, reloader);
  // Takes ownership of options.
  return grpc_ssl_server_credentials_create_with_options(options);
}

// grpc::ServerCredentials over gRPC core credentials that this object owns.
// The base class initializes gRPC before the core credentials are made.
class CoreServerCredentials final : public grpc::ServerCredentials {
 public:
  CoreServerCredentials(CertificateReloader* reloader, bool mutual_tls)
      : credentials_(MakeCoreCredentials(reloader, mutual_tls)) {}
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

  std::shared_ptr<CertificateReloader> reloader;
  if (!options.tls_cert_file.empty()) {
    absl::StatusOr<std::unique_ptr<CertificateReloader>> made =
        CertificateReloader::Create(options, kCertificateCheckInterval);
    if (!made.ok()) return made.status();
    reloader = *std::move(made);
    result.tls = true;
    result.mutual_tls = !options.tls_client_ca_file.empty();
  }
  std::unique_ptr<Authorizer> authorizer;
  if (!options.auth_token_file.empty()) {
    absl::StatusOr<TokenStore> tokens =
        TokenStore::Load(options.auth_token_file);
    if (!tokens.ok()) return tokens.status();
    struct stat file_status {};
    if (stat(options.auth_token_file.c_str(), &file_status) == 0 &&
        (file_status.st_mode & S_IROTH) != 0) {
      Log(LogLevel::kWarning, "auth_token_file_world_readable",
          {{"path", options.auth_token_file},
           {"message", "any local user can read the tokens: chmod o-r"}});
    }
    result.tokens = static_cast<int>(tokens->entries().size());
    authorizer = std::make_unique<Authorizer>(*std::move(tokens));
  }

  auto credentials = std::make_shared<CoreServerCredentials>(reloader.get(),
                                                             result.mutual_tls);
  if (!credentials->ok()) {
    return absl::InvalidArgumentError(
        "gRPC refused the TLS certificate, key or client CA");
  }
  if (authorizer != nullptr) {
    result.denials = std::make_shared<AuthDenials>();
    credentials->SetCallCheck(
        [authorizer = std::shared_ptr<const Authorizer>(std::move(authorizer)),
         denials = result.denials](
            absl::string_view method,
            std::optional<absl::string_view> authorization) {
          absl::Status status = authorizer->Check(method, authorization);
          if (!status.ok()) denials->Count(status.code());
          return status;
        });
  }
  result.credentials = std::move(credentials);
  result.keep_alive = std::move(reloader);
  return result;
}

std::shared_ptr<grpc::ServerCredentials> MakeHealthOnlyCredentials() {
  auto credentials = std::make_shared<CoreServerCredentials>(nullptr, false);
  credentials->SetCallCheck([](absl::string_view method,
                               std::optional<absl::string_view>) {
    if (!RequiredRole(method).has_value()) return absl::OkStatus();
    return absl::PermissionDeniedError("this port serves grpc.health.v1 only");
  });
  return credentials;
}

}  // namespace sator::server::auth
