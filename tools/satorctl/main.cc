// satorctl: talk to satord from the command line. Answers are JSON on stdout;
// errors go to stderr as "satorctl: CODE: message" with exit status 1.
//
//   satorctl ping [--payload=TEXT]
//   satorctl health [--service=NAME]
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sator/client/client.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "satord's gRPC address.");
ABSL_FLAG(absl::Duration, deadline, absl::Seconds(5), "Deadline of each call.");
ABSL_FLAG(std::string, payload, "", "ping: the payload to echo.");
ABSL_FLAG(std::string, service, "", "health: the service name to check.");

namespace {

constexpr char kUsage[] =
    "satorctl COMMAND [--flags]\n"
    "Commands:\n"
    "  ping     call Ping; prints {\"payload\":...,\"server_version\":...}\n"
    "  health   call grpc.health.v1 Check; prints {\"status\":...}\n";

std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, "\\u00", absl::Hex(c, absl::kZeroPad2));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "satorctl: %s: %s\n",
               absl::StatusCodeToString(status.code()).c_str(),
               std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() != 2) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  const std::string command = positional[1];

  absl::StatusOr<std::unique_ptr<sator::Client>> client = sator::Client::Create(
      {.target = absl::GetFlag(FLAGS_target),
       .default_deadline = absl::GetFlag(FLAGS_deadline)});
  if (!client.ok()) return Fail(client.status());

  if (command == "ping") {
    absl::StatusOr<sator::PingResult> result =
        (*client)->Ping(absl::GetFlag(FLAGS_payload));
    if (!result.ok()) return Fail(result.status());
    std::printf("{\"payload\":%s,\"server_version\":%s}\n",
                JsonString(result->payload).c_str(),
                JsonString(result->server_version).c_str());
    return 0;
  }
  if (command == "health") {
    absl::StatusOr<sator::HealthStatus> result =
        (*client)->CheckHealth(absl::GetFlag(FLAGS_service));
    if (!result.ok()) return Fail(result.status());
    const char* name = *result == sator::HealthStatus::kServing ? "SERVING"
                       : *result == sator::HealthStatus::kNotServing
                           ? "NOT_SERVING"
                           : "UNKNOWN";
    std::printf("{\"status\":\"%s\"}\n", name);
    return 0;
  }
  std::fprintf(stderr, "satorctl: unknown command '%s'\n%s", command.c_str(),
               kUsage);
  return 2;
}
