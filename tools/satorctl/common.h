// What every satorctl command group shares: the global flags, reading a
// request as JSON, connecting, and printing answers and errors.
//
// A command group is a function taking the words after its name (for
// `satorctl scene get arena`: {"get", "arena"}) and returning the exit
// status; main.cc's table maps group names to these functions.
#ifndef SATOR_TOOLS_SATORCTL_COMMON_H_
#define SATOR_TOOLS_SATORCTL_COMMON_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "sator/client/client.h"

ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(absl::Duration, deadline);
ABSL_DECLARE_FLAG(std::string, json);
ABSL_DECLARE_FLAG(std::string, file);
ABSL_DECLARE_FLAG(std::string, f);

namespace sator::satorctl {

using Args = std::vector<std::string>;
using CommandGroup = int (*)(const Args& args);

// Exit statuses: 0 success, 1 the call failed, 2 a usage error.
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// The request JSON from --json, or --file / -f (a path, or '-' for stdin);
// "{}" when none is given.
absl::StatusOr<std::string> ReadRequestJson();

// `message` from ReadRequestJson() in protobuf's JSON mapping
// (INVALID_ARGUMENT naming the message type when it does not parse).
absl::Status ReadRequest(google::protobuf::Message* message);

// A client for --target with --deadline.
absl::StatusOr<Client> Connect();

// Calls `method` with `request` as JSON and prints the response JSON.
int CallAndPrint(absl::string_view method,
                 const google::protobuf::Message& request);

// "text" as a JSON string literal.
std::string JsonString(absl::string_view text);

// Prints "satorctl: CODE: message" to stderr; returns kExitFailed.
int Fail(const absl::Status& status);
// Prints "satorctl: message" and `usage` to stderr; returns kExitUsage.
int UsageError(absl::string_view message, absl::string_view usage);

// Reads `stream` (a ShotVerdictStream or a ProximityStream) and prints each
// message as one line, `line(message)`, until the server ends it or, with
// `count` > 0, `count` messages were printed (then cancels it). 0 when it
// ended cleanly or reached the count; else Fail(how it ended).
template <typename Stream, typename Line>
int PrintStream(Stream& stream, std::int64_t count, Line line) {
  std::int64_t printed = 0;
  while (count == 0 || printed < count) {
    auto message = stream.Read();
    if (!message.has_value()) break;
    ++printed;
    std::printf("%s\n", line(*message).c_str());
    std::fflush(stdout);
  }
  if (count > 0 && printed >= count) {
    stream.Cancel();
    while (stream.Read().has_value()) {
    }
    (void)stream.Finish();
    return 0;
  }
  if (absl::Status finished = stream.Finish(); !finished.ok()) {
    return Fail(finished);
  }
  return 0;
}

}  // namespace sator::satorctl

#endif  // SATOR_TOOLS_SATORCTL_COMMON_H_
