// satorctl: talk to satord from the command line. Answers are JSON on stdout
// (protobuf's JSON mapping); errors go to stderr as "satorctl: CODE:
// message" with exit status 1, usage errors with exit status 2.
//
//   satorctl ping [--payload=TEXT]
//   satorctl health [--service=NAME]
//   satorctl call sator.v1.SceneService/GetScene --json='{"scene_id":"arena"}'
//   satorctl pair --file=pair.json [--local]
//   satorctl scene create arena --dimension=2
//   satorctl bodies upsert arena -f bodies.json
//   satorctl shots validate arena -f shots.json
//   satorctl help [COMMAND]
//
// Each command or command group lives in a file of its own (commands.h);
// adding one is a function there and a line in kCommands below.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "tools/satorctl/commands.h"
#include "tools/satorctl/common.h"

namespace sator::satorctl {
namespace {

struct Command {
  const char* name;
  CommandGroup run;
  const char* summary;  // one line for --help
  const char* usage;    // the arguments, printed on a usage error
};

constexpr char kPingUsage[] =
    "  ping [--payload=TEXT]  prints {\"payload\":...,\"server_version\":"
    "...}\n";
constexpr char kHealthUsage[] =
    "  health [--service=NAME]  prints {\"status\":...}\n";
constexpr char kPairUsage[] =
    "  pair --json=J | --file=F [--local]  J is a PairQueryRequest; --local "
    "needs no server\n";

const Command kCommands[] = {
    {"ping", RunPing, "call Ping (the latency floor)", kPingUsage},
    {"health", RunHealth, "call grpc.health.v1.Health/Check", kHealthUsage},
    {"call", RunCall, "call any unary RPC, JSON in and out", kCallUsage},
    {"pair", RunPair, "a PairQuery between two shapes, no scene", kPairUsage},
    {"scene", RunScene, "create, delete, list, get, export, import scenes",
     kSceneUsage},
    {"bodies", RunBodies, "upsert and remove bodies, update poses",
     kBodiesUsage},
    {"query", RunQuery, "a scene query, a QueryBatch or a RaycastBatch",
     kQueryUsage},
    {"shots", RunShots, "judge shots (ValidateShots), JSON in and out",
     kShotsUsage},
    {"proximity", RunProximity,
     "zones, observers and their events (ProximityService)", kProximityUsage},
    {"help", nullptr, "print the arguments of COMMAND (or of every command)",
     "  help [COMMAND]\n"},
};

// What --help and a missing command print: every command on one line.
std::string Summary() {
  std::string usage =
      "satorctl COMMAND [ARGS] [--flags]\n"
      "Talks to satord; answers are JSON on stdout.\n"
      "Commands:\n";
  for (const Command& command : kCommands) {
    absl::StrAppendFormat(&usage, "  %-8s %s\n", command.name, command.summary);
  }
  absl::StrAppend(&usage,
                  "'satorctl help COMMAND' prints its arguments; the flags "
                  "follow.");
  return usage;
}

int RunHelp(const Args& args) {
  for (const Command& command : kCommands) {
    if (args.empty() || args[0] == command.name) {
      std::fprintf(stdout, "%s", command.usage);
      if (!args.empty()) return 0;
    }
  }
  if (args.empty()) return 0;
  return UsageError(absl::StrCat("help: unknown command '", args[0], "'"),
                    Summary());
}

// --help lists the flags defined in satorctl's own files (absl's default
// lists only those of the file that holds main()).
bool IsSatorctlFlagFile(absl::string_view file) {
  return absl::StrContains(file, "tools/satorctl/");
}

}  // namespace
}  // namespace sator::satorctl

int main(int argc, char** argv) {
  using sator::satorctl::kCommands;
  const std::string summary = sator::satorctl::Summary();
  absl::FlagsUsageConfig config;
  config.contains_help_flags = sator::satorctl::IsSatorctlFlagFile;
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(summary);
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() < 2) {
    std::fprintf(stderr, "%s\n", summary.c_str());
    return sator::satorctl::kExitUsage;
  }
  const std::string name = positional[1];
  const sator::satorctl::Args args(positional.begin() + 2, positional.end());
  if (name == "help") return sator::satorctl::RunHelp(args);
  for (const auto& command : kCommands) {
    if (name == command.name && command.run != nullptr) {
      return command.run(args);
    }
  }
  std::fprintf(stderr, "satorctl: unknown command '%s'\n%s\n", name.c_str(),
               summary.c_str());
  return sator::satorctl::kExitUsage;
}
