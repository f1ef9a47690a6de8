// satorctl scene create|delete|list|get|export|import: sator.v1.SceneService
// from the command line, requests built from arguments and flags (or given
// whole with --json / --file), answers printed in protobuf's JSON mapping.
#include <cstdint>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "sator/v1/scene_service.pb.h"
#include "tools/satorctl/commands.h"
#include "tools/satorctl/common.h"

ABSL_FLAG(int, dimension, 3, "scene create: 2 or 3.");
ABSL_FLAG(uint32_t, history_ticks, 0,
          "scene create: ticks of history (0: the server's default).");
ABSL_FLAG(float, teleport_distance, 0.0f,
          "scene create: the teleport threshold (0: the default, 10).");
ABSL_FLAG(uint32_t, max_bodies, 0,
          "scene create: the scene's body limit (0: the server's).");
ABSL_FLAG(uint32_t, page_size, 0, "scene list: scenes per page (0: 100).");
ABSL_FLAG(std::string, page_token, "",
          "scene list: next_page_token of the previous page.");

namespace sator::satorctl {

const char kSceneUsage[] =
    "  scene create [ID] [--dimension=2|3] [--history_ticks=N]\n"
    "               [--teleport_distance=D] [--max_bodies=N]\n"
    "               (or the whole CreateSceneRequest with --json/--file)\n"
    "  scene delete ID\n"
    "  scene list [--page_size=N] [--page_token=T]\n"
    "  scene get ID\n"
    "  scene export ID              prints the SceneSnapshot\n"
    "  scene import [ID] --file=F   F holds a SceneSnapshot (as export "
    "prints);\n"
    "                               ID, if given, replaces its scene_id\n";

namespace {

// Whether --json or --file/-f gives the request.
bool RequestGiven() {
  return !absl::GetFlag(FLAGS_json).empty() ||
         !absl::GetFlag(FLAGS_file).empty() || !absl::GetFlag(FLAGS_f).empty();
}

int Create(const Args& args) {
  sator::v1::CreateSceneRequest request;
  if (RequestGiven()) {
    if (absl::Status s = ReadRequest(&request); !s.ok()) return Fail(s);
  } else {
    const int dimension = absl::GetFlag(FLAGS_dimension);
    if (dimension != 2 && dimension != 3) {
      return UsageError("--dimension must be 2 or 3", kSceneUsage);
    }
    sator::v1::SceneSettings& settings = *request.mutable_settings();
    settings.set_dimension(dimension == 2 ? sator::v1::DIMENSION_2D
                                          : sator::v1::DIMENSION_3D);
    settings.set_history_ticks(absl::GetFlag(FLAGS_history_ticks));
    settings.set_teleport_distance(absl::GetFlag(FLAGS_teleport_distance));
    settings.set_max_bodies(absl::GetFlag(FLAGS_max_bodies));
  }
  if (args.size() == 2) request.set_scene_id(args[1]);
  return CallAndPrint("sator.v1.SceneService/CreateScene", request);
}

int List() {
  sator::v1::ListScenesRequest request;
  request.set_page_size(absl::GetFlag(FLAGS_page_size));
  request.set_page_token(absl::GetFlag(FLAGS_page_token));
  return CallAndPrint("sator.v1.SceneService/ListScenes", request);
}

int Import(const Args& args) {
  sator::v1::ImportSceneRequest request;
  if (absl::Status s = ReadRequest(request.mutable_snapshot()); !s.ok()) {
    return Fail(s);
  }
  if (args.size() == 2) request.mutable_snapshot()->set_scene_id(args[1]);
  return CallAndPrint("sator.v1.SceneService/ImportScene", request);
}

}  // namespace

int RunScene(const Args& args) {
  if (args.empty()) return UsageError("scene needs a subcommand", kSceneUsage);
  const std::string& verb = args[0];
  if (verb == "create" && args.size() <= 2) return Create(args);
  if (verb == "list" && args.size() == 1) return List();
  if (verb == "import" && args.size() <= 2) return Import(args);
  if (args.size() == 2) {
    // The commands that take exactly a scene id.
    if (verb == "delete") {
      sator::v1::DeleteSceneRequest request;
      request.set_scene_id(args[1]);
      return CallAndPrint("sator.v1.SceneService/DeleteScene", request);
    }
    if (verb == "get") {
      sator::v1::GetSceneRequest request;
      request.set_scene_id(args[1]);
      return CallAndPrint("sator.v1.SceneService/GetScene", request);
    }
    if (verb == "export") {
      sator::v1::ExportSceneRequest request;
      request.set_scene_id(args[1]);
      return CallAndPrint("sator.v1.SceneService/ExportScene", request);
    }
  }
  return UsageError(absl::StrCat("scene: bad arguments for '", verb, "'"),
                    kSceneUsage);
}

}  // namespace sator::satorctl
