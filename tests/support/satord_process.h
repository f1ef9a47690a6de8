// Runs the real satord binary for end-to-end tests: on free loopback ports,
// with its log captured to a file, and never left running after the test.
#ifndef SATOR_TESTS_SUPPORT_SATORD_PROCESS_H_
#define SATOR_TESTS_SUPPORT_SATORD_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sator::testing {

// The path of the satord binary under test (set by CMake).
std::string SatordPath();

// A fresh, empty directory under the test's temporary directory.
std::string MakeTempDir(const std::string& prefix);

class SatordProcess {
 public:
  SatordProcess() = default;
  ~SatordProcess();  // SIGKILLs a satord still running.
  SatordProcess(const SatordProcess&) = delete;
  SatordProcess& operator=(const SatordProcess&) = delete;

  // Starts satord with --grpc_address=127.0.0.1:0, --metrics_address=
  // 127.0.0.1:0 and a port file (unless `args` name their own addresses), plus
  // `args`, and waits up to `timeout` for the port file. Fails if satord exits
  // first or the time runs out.
  absl::Status Start(const std::vector<std::string>& args,
                     absl::Duration timeout = absl::Seconds(20));

  // Starts satord with exactly `args` and does not wait for anything.
  absl::Status Spawn(const std::vector<std::string>& args);

  absl::Status Signal(int signal_number);
  // Sends SIGSTOP and waits until the process is stopped (so that nothing
  // it was about to do can still happen), up to `timeout`.
  absl::Status Stop(absl::Duration timeout = absl::Seconds(5));

  // Waits up to `timeout` for satord to exit; returns its exit code, or
  // 128 + signal number if a signal ended it. DEADLINE_EXCEEDED on time-out.
  absl::StatusOr<int> WaitForExit(absl::Duration timeout);

  bool running() const { return pid_ > 0; }
  // The process id (-1 before Start or after the process was reaped).
  pid_t pid() const { return pid_; }
  int grpc_port() const { return grpc_port_; }
  int metrics_port() const { return metrics_port_; }
  // The --health_address port; 0 without one.
  int health_port() const { return health_port_; }
  std::string grpc_target() const;
  // Everything satord wrote to stdout and stderr so far.
  std::string ReadLog() const;

 private:
  pid_t pid_ = -1;
  std::string dir_;
  std::string log_path_;
  std::string port_file_;
  int grpc_port_ = 0;
  int metrics_port_ = 0;
  int health_port_ = 0;
};

// Sends "GET path" to 127.0.0.1:port and returns the whole response (status
// line, headers and body). For the metrics endpoint.
absl::StatusOr<std::string> HttpGet(int port, const std::string& path,
                                    absl::Duration timeout = absl::Seconds(5));

}  // namespace sator::testing

#endif  // SATOR_TESTS_SUPPORT_SATORD_PROCESS_H_
