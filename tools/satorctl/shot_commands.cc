// satorctl shots validate: QueryService.ValidateShots from the command line.
// The request is a ValidateShotsRequest in protobuf's JSON mapping (its
// scene_id from --scene or the word after `validate`); the verdicts are
// printed the same way:
//
//   satorctl shots validate arena -f shots.json
//   # shots.json: {"shots": [{"shot_id": "1", "shooter_group_id": "1",
//   #   "origin": {...}, "direction": {"x": 1}, "range": 100,
//   #   "view_delay_ms": 50}], "policy": {"max_rewind_ms": 200}}
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "sator/v1/shot.pb.h"
#include "tools/satorctl/commands.h"
#include "tools/satorctl/common.h"

ABSL_DECLARE_FLAG(std::string, scene);

namespace sator::satorctl {

const char kShotsUsage[] =
    "  shots validate --scene=SCENE -f shots.json  the file (or --json) "
    "holds a\n"
    "                   ValidateShotsRequest without scene_id: {\"shots\": "
    "[Shot, ...],\n"
    "                   \"policy\": {...}}; prints the verdicts\n";

int RunShots(const Args& args) {
  if (args.empty() || args[0] != "validate" || args.size() > 2) {
    return UsageError(
        "shots needs 'validate' (and the scene, by --scene or after it)",
        kShotsUsage);
  }
  std::string scene_id = absl::GetFlag(FLAGS_scene);
  if (args.size() == 2) {
    if (!scene_id.empty() && scene_id != args[1]) {
      return UsageError("give the scene once: --scene or after 'validate'",
                        kShotsUsage);
    }
    scene_id = args[1];
  }
  if (scene_id.empty()) return UsageError("shots needs --scene", kShotsUsage);
  sator::v1::ValidateShotsRequest request;
  if (absl::Status s = ReadRequest(&request); !s.ok()) return Fail(s);
  request.set_scene_id(scene_id);
  return CallAndPrint("sator.v1.QueryService/ValidateShots", request);
}

}  // namespace sator::satorctl
