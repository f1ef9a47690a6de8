// Test certificates made at test time with /usr/bin/openssl: a CA, a server
// certificate for localhost / 127.0.0.1 / ::1 signed by it, a client
// certificate signed by it, and a second, unrelated CA with its own server
// and client certificates (for "signed by someone else" and renewal cases).
#ifndef SATOR_TESTS_SUPPORT_TEST_CERTIFICATES_H_
#define SATOR_TESTS_SUPPORT_TEST_CERTIFICATES_H_

#include <string>

#include "absl/status/statusor.h"

namespace sator::testing {

struct TestCertificates {
  std::string dir;
  // Paths of PEM files.
  std::string ca_cert;
  std::string server_cert;
  std::string server_key;
  std::string client_cert;
  std::string client_key;
  std::string other_ca_cert;
  std::string other_server_cert;
  std::string other_server_key;
  std::string other_client_cert;
  std::string other_client_key;
};

// Makes the files in a new directory under `dir` (EC P-256 keys, valid for a
// day). Fails if openssl is missing or fails, with its output.
absl::StatusOr<TestCertificates> MakeTestCertificates(const std::string& dir);

// The whole contents of a file ("" if unreadable).
std::string ReadTextFile(const std::string& path);

}  // namespace sator::testing

#endif  // SATOR_TESTS_SUPPORT_TEST_CERTIFICATES_H_
