// satorctl bodies upsert|remove|poses: sator.v1.BodyService from the command
// line, with bodies and poses as JSON in protobuf's JSON mapping.
#include <cstdint>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "sator/v1/body_service.pb.h"
#include "tools/satorctl/commands.h"
#include "tools/satorctl/common.h"

ABSL_FLAG(int64_t, tick, 0, "bodies poses: the tick the poses belong to.");

namespace sator::satorctl {

const char kBodiesUsage[] =
    "  bodies upsert SCENE -f bodies.json  the file holds {\"bodies\": "
    "[Body, ...]}\n"
    "  bodies remove SCENE ID...\n"
    "  bodies poses SCENE --tick=T --json='{\"body_ids\": [...], "
    "\"positions\": [...],\n"
    "                                      \"rotations\": [...]}'  (a "
    "PoseBatch)\n";

int RunBodies(const Args& args) {
  if (args.size() < 2) {
    return UsageError("bodies needs a subcommand and a scene id", kBodiesUsage);
  }
  const std::string& verb = args[0];
  const std::string& scene_id = args[1];
  if (verb == "upsert" && args.size() == 2) {
    sator::v1::UpsertBodiesRequest request;
    if (absl::Status s = ReadRequest(&request); !s.ok()) return Fail(s);
    request.set_scene_id(scene_id);
    return CallAndPrint("sator.v1.BodyService/UpsertBodies", request);
  }
  if (verb == "remove" && args.size() > 2) {
    sator::v1::RemoveBodiesRequest request;
    request.set_scene_id(scene_id);
    for (std::size_t i = 2; i < args.size(); ++i) {
      std::uint64_t id = 0;
      if (!absl::SimpleAtoi(args[i], &id)) {
        return UsageError(absl::StrCat("not a body id: '", args[i], "'"),
                          kBodiesUsage);
      }
      request.add_body_ids(id);
    }
    return CallAndPrint("sator.v1.BodyService/RemoveBodies", request);
  }
  if (verb == "poses" && args.size() == 2) {
    sator::v1::UpdatePosesRequest request;
    if (absl::Status s = ReadRequest(request.mutable_poses()); !s.ok()) {
      return Fail(s);
    }
    request.set_scene_id(scene_id);
    request.set_tick(absl::GetFlag(FLAGS_tick));
    return CallAndPrint("sator.v1.BodyService/UpdatePoses", request);
  }
  return UsageError(absl::StrCat("bodies: bad arguments for '", verb, "'"),
                    kBodiesUsage);
}

}  // namespace sator::satorctl
