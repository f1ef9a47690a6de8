// satorctl query overlap|contacts|sweep|raycast|point|batch: the scene
// queries of sator.v1.QueryService from the command line. The request is
// JSON in protobuf's JSON mapping (the RPC's request message; its scene_id
// comes from --scene or the word after the kind), and the answer is printed
// the same way:
//
//   satorctl query raycast --scene=arena --json='{"query": {"direction":
//       {"x": 1}, "max_distance": 100}, "options": {"mode":
//       "RESULT_MODE_ALL"}}'
//   satorctl query batch arena -f queries.json   # {"queries": [Query, ...]}
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/message.h"
#include "sator/v1/query_service.pb.h"
#include "tools/satorctl/commands.h"
#include "tools/satorctl/common.h"

ABSL_FLAG(std::string, scene, "", "query, shots: the scene to query.");

namespace sator::satorctl {
namespace {

struct QueryKind {
  const char* name;
  const char* method;
  // A new, empty request message of the RPC.
  std::unique_ptr<google::protobuf::Message> (*make)();
};

template <typename Request>
std::unique_ptr<google::protobuf::Message> Make() {
  return std::make_unique<Request>();
}

const QueryKind kKinds[] = {
    {"overlap", "sator.v1.QueryService/Overlap",
     Make<sator::v1::OverlapRequest>},
    {"contacts", "sator.v1.QueryService/Contacts",
     Make<sator::v1::ContactsRequest>},
    {"sweep", "sator.v1.QueryService/Sweep", Make<sator::v1::SweepRequest>},
    {"raycast", "sator.v1.QueryService/Raycast",
     Make<sator::v1::RaycastRequest>},
    {"point", "sator.v1.QueryService/PointQuery",
     Make<sator::v1::PointQueryRequest>},
    {"batch", "sator.v1.QueryService/QueryBatch",
     Make<sator::v1::QueryBatchRequest>},
    {"raybatch", "sator.v1.QueryService/RaycastBatch",
     Make<sator::v1::RaycastBatchRequest>},
};

}  // namespace

const char kQueryUsage[] =
    "  query KIND --scene=SCENE --json='{\"query\": {...}, \"options\": "
    "{...}}'\n"
    "                   KIND: overlap, contacts, sweep, raycast, point; the "
    "JSON is\n"
    "                   the RPC's request (e.g. RaycastRequest) without "
    "scene_id;\n"
    "                   contacts take \"min_depth\" in the query (a contact "
    "tolerance)\n"
    "  query batch --scene=SCENE -f queries.json  the file holds "
    "{\"queries\": [Query, ...]}\n"
    "  query raybatch --scene=SCENE --json='{\"dimension\": \"DIMENSION_3D\", "
    "\"origins\": [...],\n"
    "                   \"directions\": [...], \"max_distances\": [...]}'  "
    "packed rays (RaycastBatch)\n";

int RunQuery(const Args& args) {
  if (args.empty() || args.size() > 2) {
    return UsageError(
        "query needs a kind (and the scene, by --scene or "
        "after the kind)",
        kQueryUsage);
  }
  std::string scene_id = absl::GetFlag(FLAGS_scene);
  if (args.size() == 2) {
    if (!scene_id.empty() && scene_id != args[1]) {
      return UsageError("give the scene once: --scene or after the kind",
                        kQueryUsage);
    }
    scene_id = args[1];
  }
  if (scene_id.empty()) return UsageError("query needs --scene", kQueryUsage);
  for (const QueryKind& kind : kKinds) {
    if (args[0] != kind.name) continue;
    std::unique_ptr<google::protobuf::Message> request = kind.make();
    if (absl::Status s = ReadRequest(request.get()); !s.ok()) return Fail(s);
    // Every request of these RPCs has scene_id as field 1.
    const google::protobuf::FieldDescriptor* field =
        request->GetDescriptor()->FindFieldByName("scene_id");
    request->GetReflection()->SetString(request.get(), field, scene_id);
    return CallAndPrint(kind.method, *request);
  }
  return UsageError(absl::StrCat("query: unknown kind '", args[0], "'"),
                    kQueryUsage);
}

}  // namespace sator::satorctl
