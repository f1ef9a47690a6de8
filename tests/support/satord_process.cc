#include "support/satord_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sator::testing {
namespace {

// Polling interval while waiting for a bounded condition (not a timing
// assumption: every wait also has a deadline).
constexpr absl::Duration kPollInterval = absl::Milliseconds(5);

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Extracts the integer after "key": in a flat JSON object.
int JsonInt(const std::string& json, const std::string& key) {
  const std::string needle = absl::StrCat("\"", key, "\":");
  const size_t at = json.find(needle);
  if (at == std::string::npos) return 0;
  const size_t start = at + needle.size();
  size_t end = start;
  while (end < json.size() && (std::isdigit(json[end]) != 0)) ++end;
  int value = 0;
  if (!absl::SimpleAtoi(json.substr(start, end - start), &value)) return 0;
  return value;
}

}  // namespace

std::string SatordPath() { return SATORD_PATH; }

std::string MakeTempDir(const std::string& prefix) {
  static std::atomic<int> counter{0};
  const char* base = std::getenv("TEST_TMPDIR");
  const std::filesystem::path root =
      base != nullptr ? base : std::filesystem::temp_directory_path();
  const std::filesystem::path dir =
      root / absl::StrCat(prefix, "-", getpid(), "-", counter.fetch_add(1));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

SatordProcess::~SatordProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

absl::Status SatordProcess::Spawn(const std::vector<std::string>& args) {
  if (pid_ > 0) return absl::FailedPreconditionError("already running");
  if (dir_.empty()) dir_ = MakeTempDir("satord");
  log_path_ = dir_ + "/satord.log";
  std::vector<std::string> argv_storage = {SatordPath()};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", errno));
  if (pid == 0) {
    // Only async-signal-safe calls from here to execv. If the test process
    // dies (an ASan abort, a crash), satord is killed with it instead of
    // waiting for a SIGTERM that never comes.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int log_fd =
        open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log_fd >= 0) {
      dup2(log_fd, STDOUT_FILENO);
      dup2(log_fd, STDERR_FILENO);
    }
    // Leave the test's own sockets and files behind.
    close_range(3, ~0U, 0);
    execv(argv[0], argv.data());
    _exit(127);
  }
  pid_ = pid;
  return absl::OkStatus();
}

absl::Status SatordProcess::Start(const std::vector<std::string>& args,
                                  absl::Duration timeout) {
  if (dir_.empty()) dir_ = MakeTempDir("satord");
  port_file_ = dir_ + "/ports.json";
  std::filesystem::remove(port_file_);
  std::vector<std::string> full_args;
  bool has_grpc_address = false;
  bool has_metrics_address = false;
  for (const std::string& arg : args) {
    has_grpc_address |= absl::StartsWith(arg, "--grpc_address");
    has_metrics_address |= absl::StartsWith(arg, "--metrics_address");
  }
  if (!has_grpc_address) full_args.push_back("--grpc_address=127.0.0.1:0");
  if (!has_metrics_address) {
    full_args.push_back("--metrics_address=127.0.0.1:0");
  }
  full_args.push_back("--port_file=" + port_file_);
  full_args.insert(full_args.end(), args.begin(), args.end());
  if (absl::Status spawned = Spawn(full_args); !spawned.ok()) return spawned;

  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::UnavailableError(
          absl::StrCat("satord exited before serving; log:\n", ReadLog()));
    }
    if (std::filesystem::exists(port_file_)) {
      const std::string ports = ReadFile(port_file_);
      grpc_port_ = JsonInt(ports, "grpc_port");
      metrics_port_ = JsonInt(ports, "metrics_port");
      health_port_ = JsonInt(ports, "health_port");
      if (grpc_port_ > 0) return absl::OkStatus();
    }
    absl::SleepFor(kPollInterval);
  }
  return absl::DeadlineExceededError(
      absl::StrCat("satord did not write its port file; log:\n", ReadLog()));
}

absl::Status SatordProcess::Signal(int signal_number) {
  if (pid_ <= 0) return absl::FailedPreconditionError("not running");
  if (kill(pid_, signal_number) != 0) {
    return absl::InternalError(absl::StrCat("kill: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status SatordProcess::Stop(absl::Duration timeout) {
  if (absl::Status sent = Signal(SIGSTOP); !sent.ok()) return sent;
  // kill() returns once the signal is queued; the process may still run
  // for a moment. Wait until the kernel reports it stopped ('T' in the
  // third field of /proc/PID/stat).
  const std::string stat_path = absl::StrCat("/proc/", pid_, "/stat");
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    std::ifstream stat(stat_path);
    std::string line;
    std::getline(stat, line);
    const std::size_t close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() &&
        line[close + 2] == 'T') {
      return absl::OkStatus();
    }
    absl::SleepFor(absl::Milliseconds(1));
  }
  return absl::DeadlineExceededError("satord did not stop after SIGSTOP");
}

absl::StatusOr<int> SatordProcess::WaitForExit(absl::Duration timeout) {
  if (pid_ <= 0) return absl::FailedPreconditionError("not running");
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    int status = 0;
    const pid_t result = waitpid(pid_, &status, WNOHANG);
    if (result == pid_) {
      pid_ = -1;
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
      return absl::InternalError("unexpected wait status");
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError("satord did not exit in time");
    }
    absl::SleepFor(kPollInterval);
  }
}

std::string SatordProcess::grpc_target() const {
  return absl::StrCat("127.0.0.1:", grpc_port_);
}

std::string SatordProcess::ReadLog() const {
  return log_path_.empty() ? std::string() : ReadFile(log_path_);
}

absl::StatusOr<std::string> HttpGet(int port, const std::string& path,
                                    absl::Duration timeout) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::InternalError("socket");
  timeval tv{};
  const absl::Duration whole_seconds = absl::Trunc(timeout, absl::Seconds(1));
  tv.tv_sec = static_cast<time_t>(absl::ToInt64Seconds(whole_seconds));
  tv.tv_usec = static_cast<suseconds_t>(
      absl::ToInt64Microseconds(timeout - whole_seconds));
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
      0) {
    close(fd);
    return absl::UnavailableError(absl::StrCat("connect to port ", port));
  }
  const std::string request =
      absl::StrCat("GET ", path,
                   " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  if (send(fd, request.data(), request.size(), 0) !=
      static_cast<ssize_t>(request.size())) {
    close(fd);
    return absl::UnavailableError("send");
  }
  std::string response;
  char buffer[4096];
  while (true) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    response.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return response;
}

}  // namespace sator::testing
