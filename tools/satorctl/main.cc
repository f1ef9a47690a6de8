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
//
// Each command or command group lives in a file of its own (commands.h);
// adding one is a function there and a line in kCommands below.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "tools/satorctl/commands.h"
#include "tools/satorctl/common.h"

namespace sator::satorctl {
namespace {

struct Command {
  const char* name;
  CommandGroup run;
  const char* usage;
};

constexpr char kPingUsage[] =
    "  ping             call Ping; prints {\"payload\":...,\"server_version\":"
    "...}\n";
constexpr char kHealthUsage[] =
    "  health           call grpc.health.v1 Check; prints {\"status\":...}\n";
constexpr char kPairUsage[] =
    "  pair             a PairQuery (--json or --file); --local needs no "
    "server\n";

const Command kCommands[] = {
    {"ping", RunPing, kPingUsage},    {"health", RunHealth, kHealthUsage},
    {"call", RunCall, kCallUsage},    {"pair", RunPair, kPairUsage},
    {"scene", RunScene, kSceneUsage}, {"bodies", RunBodies, kBodiesUsage},
    {"query", RunQuery, kQueryUsage},
};

std::string Usage() {
  std::string usage = "satorctl COMMAND [ARGS] [--flags]\nCommands:\n";
  for (const Command& command : kCommands) {
    absl::StrAppend(&usage, command.usage);
  }
  return usage;
}

}  // namespace
}  // namespace sator::satorctl

int main(int argc, char** argv) {
  using sator::satorctl::kCommands;
  const std::string usage = sator::satorctl::Usage();
  absl::SetProgramUsageMessage(usage);
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() < 2) {
    std::fprintf(stderr, "%s", usage.c_str());
    return sator::satorctl::kExitUsage;
  }
  const std::string name = positional[1];
  const sator::satorctl::Args args(positional.begin() + 2, positional.end());
  for (const auto& command : kCommands) {
    if (name == command.name) return command.run(args);
  }
  std::fprintf(stderr, "satorctl: unknown command '%s'\n%s", name.c_str(),
               usage.c_str());
  return sator::satorctl::kExitUsage;
}
