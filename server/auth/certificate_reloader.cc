// Reloading renewed TLS files (see certificate_reloader.h).
#include "server/auth/certificate_reloader.h"

#include <sys/stat.h>

#include <string>
#include <utility>

#include "absl/time/clock.h"
#include "server/logging.h"

namespace sator::server::auth {

bool CertificateReloader::FileVersion::operator==(
    const FileVersion& other) const {
  return device == other.device && inode == other.inode && size == other.size &&
         modified.tv_sec == other.modified.tv_sec &&
         modified.tv_nsec == other.modified.tv_nsec;
}

absl::StatusOr<std::unique_ptr<CertificateReloader>>
CertificateReloader::Create(const SecurityOptions& options,
                            absl::Duration check_interval) {
  std::unique_ptr<CertificateReloader> reloader(
      new CertificateReloader(options, check_interval));
  // Versions first: a file replaced while it is read is then seen as changed
  // at the next check and read again.
  reloader->loaded_ = reloader->CurrentVersions();
  absl::StatusOr<TlsMaterial> material = LoadTlsMaterial(options);
  if (!material.ok()) return material.status();
  reloader->material_ = *std::move(material);
  return reloader;
}

CertificateReloader::Versions CertificateReloader::CurrentVersions() const {
  Versions versions;
  for (const std::string* path :
       {&options_.tls_cert_file, &options_.tls_key_file,
        &options_.tls_client_ca_file}) {
    struct stat file_status {};
    if (path->empty() || stat(path->c_str(), &file_status) != 0) {
      versions.emplace_back(std::nullopt);
      continue;
    }
    versions.emplace_back(FileVersion{file_status.st_dev, file_status.st_ino,
                                      file_status.st_size,
                                      file_status.st_mtim});
  }
  return versions;
}

grpc_ssl_server_certificate_config* CertificateReloader::MakeConfig() const {
  grpc_ssl_pem_key_cert_pair pair{material_.key_pem.c_str(),
                                  material_.cert_pem.c_str()};
  // gRPC 1.51 asserts that a fetched configuration has root certificates
  // even when no client certificate is requested; the server's own chain
  // stands in then (it verifies nothing: no client is asked for a
  // certificate). Copies the strings.
  return grpc_ssl_server_certificate_config_create(
      material_.client_ca_pem.empty() ? material_.cert_pem.c_str()
                                      : material_.client_ca_pem.c_str(),
      &pair, 1);
}

grpc_ssl_certificate_config_reload_status CertificateReloader::Fetch(
    grpc_ssl_server_certificate_config** config) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!served_) {
    served_ = true;
    *config = MakeConfig();
    return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW;
  }
  const absl::Time now = absl::Now();
  if (now < next_check_) return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED;
  next_check_ = now + check_interval_;
  const Versions versions = CurrentVersions();
  if (versions == loaded_ || versions == rejected_) {
    return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED;
  }
  absl::StatusOr<TlsMaterial> material = LoadTlsMaterial(options_);
  if (!material.ok()) {
    rejected_ = versions;
    Log(LogLevel::kWarning, "tls_reload_failed",
        {{"error", material.status().message()},
         {"message", "still serving the previous certificate"}});
    return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED;
  }
  material_ = *std::move(material);
  loaded_ = versions;
  Log(LogLevel::kInfo, "tls_reloaded",
      {{"tls_cert_file", options_.tls_cert_file}});
  *config = MakeConfig();
  return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW;
}

grpc_ssl_certificate_config_reload_status CertificateReloader::FetchCallback(
    void* user_data, grpc_ssl_server_certificate_config** config) {
  return static_cast<CertificateReloader*>(user_data)->Fetch(config);
}

}  // namespace sator::server::auth
