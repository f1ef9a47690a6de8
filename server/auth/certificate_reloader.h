// Picks up renewed TLS files without a restart.
//
// gRPC asks the reloader for the server's certificate configuration before
// every TLS handshake (grpc_ssl_server_certificate_config_callback). At most
// once per check interval, the reloader looks at the files' versions (inode,
// size, modification time: a Kubernetes Secret update swaps a symlink, so all
// three change); if any file changed, it reads and checks them all again
// (tls_files.h) and hands gRPC the new configuration. New connections then
// use it; open connections keep theirs. A changed set of files that fails the
// checks (for example a certificate renewed before its key) is logged once
// and ignored: satord keeps serving the last good files and tries again when
// the files change again.
#ifndef SATOR_SERVER_AUTH_CERTIFICATE_RELOADER_H_
#define SATOR_SERVER_AUTH_CERTIFICATE_RELOADER_H_

#include <sys/types.h>

#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpc/grpc_security.h"
#include "server/auth/server_credentials.h"
#include "server/auth/tls_files.h"

namespace sator::server::auth {

class CertificateReloader {
 public:
  // Loads and checks the files named by `options` (see LoadTlsMaterial).
  static absl::StatusOr<std::unique_ptr<CertificateReloader>> Create(
      const SecurityOptions& options, absl::Duration check_interval);

  // gRPC's certificate config callback: the first call returns the files
  // loaded by Create, later calls a new configuration only when the files
  // changed and pass the checks. Thread-safe.
  grpc_ssl_certificate_config_reload_status Fetch(
      grpc_ssl_server_certificate_config** config);

  // For grpc_ssl_server_credentials_create_options_using_config_fetcher;
  // `user_data` is a CertificateReloader.
  static grpc_ssl_certificate_config_reload_status FetchCallback(
      void* user_data, grpc_ssl_server_certificate_config** config);

 private:
  // What identifies one version of a file.
  struct FileVersion {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    timespec modified{};
    bool operator==(const FileVersion& other) const;
  };
  using Versions = std::vector<std::optional<FileVersion>>;

  CertificateReloader(SecurityOptions options, absl::Duration check_interval)
      : options_(std::move(options)), check_interval_(check_interval) {}

  Versions CurrentVersions() const;
  grpc_ssl_server_certificate_config* MakeConfig() const;

  const SecurityOptions options_;
  const absl::Duration check_interval_;
  std::mutex mutex_;
  TlsMaterial material_;  // The files in use.
  Versions loaded_;       // Their versions.
  Versions rejected_;     // The last versions that failed the checks.
  bool served_ = false;
  absl::Time next_check_ = absl::InfinitePast();
};

}  // namespace sator::server::auth

#endif  // SATOR_SERVER_AUTH_CERTIFICATE_RELOADER_H_
