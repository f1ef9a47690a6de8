// satorctl's commands and command groups, each defined in a file of its own
// (basic_commands.cc, scene_commands.cc, ...) and listed in main.cc's table.
#ifndef SATOR_TOOLS_SATORCTL_COMMANDS_H_
#define SATOR_TOOLS_SATORCTL_COMMANDS_H_

#include "tools/satorctl/common.h"

namespace sator::satorctl {

inline constexpr char kCallUsage[] =
    "  call M           call the unary RPC M (e.g. sator.v1.SceneService/"
    "GetScene)\n"
    "                   with --json or --file; prints the response as JSON\n";

// basic_commands.cc
int RunPing(const Args& args);
int RunHealth(const Args& args);
int RunCall(const Args& args);
int RunPair(const Args& args);

// scene_commands.cc
extern const char kSceneUsage[];
int RunScene(const Args& args);
extern const char kBodiesUsage[];
int RunBodies(const Args& args);

// query_commands.cc
extern const char kQueryUsage[];
int RunQuery(const Args& args);

// shot_commands.cc
extern const char kShotsUsage[];
int RunShots(const Args& args);
extern const char kProximityUsage[];
int RunProximity(const Args& args);

}  // namespace sator::satorctl

#endif  // SATOR_TOOLS_SATORCTL_COMMANDS_H_
