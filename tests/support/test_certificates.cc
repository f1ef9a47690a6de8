// Makes test certificates with the openssl command (see test_certificates.h).
#include "support/test_certificates.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sator::testing {
namespace {

constexpr char kOpenssl[] = "/usr/bin/openssl";

// Runs openssl with `args` (no shell), its output into `log`.
absl::Status RunOpenssl(const std::vector<std::string>& args,
                        const std::string& log) {
  std::string command = kOpenssl;
  for (const std::string& arg : args) {
    // Single-quote each argument for /bin/sh; test paths hold no quote.
    absl::StrAppend(&command, " '", arg, "'");
  }
  absl::StrAppend(&command, " >>'", log, "' 2>&1");
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat(
        "openssl ", absl::StrJoin(args, " "), " failed: ", ReadTextFile(log)));
  }
  return absl::OkStatus();
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// A self-signed CA certificate and key at <dir>/<name>.{pem,key}.
absl::Status MakeCa(const std::string& dir, const std::string& name,
                    const std::string& log) {
  return RunOpenssl(
      {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
       "-nodes", "-days", "1", "-subj", absl::StrCat("/CN=", name), "-keyout",
       absl::StrCat(dir, "/", name, ".key"), "-out",
       absl::StrCat(dir, "/", name, ".pem")},
      log);
}

// A key and a certificate signed by CA `ca`, with the extensions in
// `extensions` (an openssl extfile section body).
absl::Status MakeLeaf(const std::string& dir, const std::string& ca,
                      const std::string& name, const std::string& extensions,
                      const std::string& log) {
  const std::string key = absl::StrCat(dir, "/", name, ".key");
  const std::string csr = absl::StrCat(dir, "/", name, ".csr");
  const std::string ext = absl::StrCat(dir, "/", name, ".ext");
  if (absl::Status status = WriteFile(ext, extensions); !status.ok()) {
    return status;
  }
  if (absl::Status status =
          RunOpenssl({"req", "-newkey", "ec", "-pkeyopt",
                      "ec_paramgen_curve:P-256", "-nodes", "-subj",
                      absl::StrCat("/CN=", name), "-keyout", key, "-out", csr},
                     log);
      !status.ok()) {
    return status;
  }
  return RunOpenssl(
      {"x509", "-req", "-in", csr, "-CA", absl::StrCat(dir, "/", ca, ".pem"),
       "-CAkey", absl::StrCat(dir, "/", ca, ".key"), "-CAcreateserial", "-days",
       "1", "-extfile", ext, "-out", absl::StrCat(dir, "/", name, ".pem")},
      log);
}

}  // namespace

std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

absl::StatusOr<TestCertificates> MakeTestCertificates(const std::string& dir) {
  const std::string log = absl::StrCat(dir, "/openssl.log");
  if (absl::Status status = MakeCa(dir, "ca", log); !status.ok()) return status;
  if (absl::Status status = MakeCa(dir, "other-ca", log); !status.ok()) {
    return status;
  }
  if (absl::Status status =
          MakeLeaf(dir, "ca", "server",
                   "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n"
                   "extendedKeyUsage=serverAuth\n",
                   log);
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          MakeLeaf(dir, "ca", "client", "extendedKeyUsage=clientAuth\n", log);
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          MakeLeaf(dir, "other-ca", "other-server",
                   "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n"
                   "extendedKeyUsage=serverAuth\n",
                   log);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = MakeLeaf(dir, "other-ca", "other-client",
                                     "extendedKeyUsage=clientAuth\n", log);
      !status.ok()) {
    return status;
  }
  TestCertificates files;
  files.dir = dir;
  files.ca_cert = dir + "/ca.pem";
  files.server_cert = dir + "/server.pem";
  files.server_key = dir + "/server.key";
  files.client_cert = dir + "/client.pem";
  files.client_key = dir + "/client.key";
  files.other_ca_cert = dir + "/other-ca.pem";
  files.other_server_cert = dir + "/other-server.pem";
  files.other_server_key = dir + "/other-server.key";
  files.other_client_cert = dir + "/other-client.pem";
  files.other_client_key = dir + "/other-client.key";
  return files;
}

}  // namespace sator::testing
