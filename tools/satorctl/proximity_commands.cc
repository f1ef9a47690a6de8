// satorctl proximity: zones, observers and their events from the command
// line (docs/PROXIMITY.md).
//
//   satorctl proximity add-zone arena --json='{"zone": {"id": "1",
//     "shape": {"sphere": {"radius": 5}}}}'
//   satorctl proximity add-observer arena -f observer.json
//   satorctl proximity remove-zone arena --json='{"zone_id": "1"}'
//   satorctl proximity get arena
//   satorctl proximity watch arena --from_tick=120 --count=10
//   satorctl proximity watch arena --from_sequence=42
//
// add-zone, add-observer, remove-zone and remove-observer take their
// request (scene_id apart) in protobuf's JSON mapping; they and get print
// the response the same way. watch prints one JSON object per line: an
// evaluation's events, or {"resync": {...}} where the watch missed some.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sator/v1/proximity.pb.h"
#include "tools/satorctl/commands.h"
#include "tools/satorctl/common.h"

ABSL_DECLARE_FLAG(std::string, scene);
ABSL_DECLARE_FLAG(int64_t, count);
ABSL_DECLARE_FLAG(int64_t, from_sequence);
ABSL_FLAG(int64_t, from_tick, -1,
          "proximity watch: start from the first evaluation at or after this "
          "tick still kept (-1: only evaluations from now on).");

namespace sator::satorctl {
namespace {

const char* KindName(ProximityEventKind kind) {
  switch (kind) {
    case ProximityEventKind::kEnter:
      return "ENTER";
    case ProximityEventKind::kExit:
      return "EXIT";
    case ProximityEventKind::kInside:
      return "INSIDE";
  }
  return "UNKNOWN";
}

const char* SourceName(ProximitySource source) {
  return source == ProximitySource::kZone ? "zone" : "observer";
}

std::string ObjectJson(const ProximityObject& object) {
  return absl::StrFormat("{\"body_id\": %d, \"group_id\": %d}", object.body_id,
                         object.group_id);
}

std::string EventsLine(const ProximityTickEvents& events) {
  std::string line =
      absl::StrFormat("{\"sequence\": %d, \"tick\": %d, \"events\": [",
                      events.sequence, events.tick);
  for (std::size_t i = 0; i < events.events.size(); ++i) {
    const ProximityEvent& event = events.events[i];
    absl::StrAppendFormat(
        &line, "%s{\"kind\": \"%s\", \"%s_id\": %d, \"object\": %s}",
        i == 0 ? "" : ", ", KindName(event.kind), SourceName(event.source),
        event.source_id, ObjectJson(event.object));
  }
  return line + "]}";
}

std::string ResyncLine(const ProximityResync& resync) {
  std::string line = absl::StrFormat(
      "{\"resync\": {\"tick\": %d, \"dropped\": %d, \"next_sequence\": %d, "
      "\"sets\": [",
      resync.tick, resync.dropped, resync.next_sequence);
  for (std::size_t i = 0; i < resync.sets.size(); ++i) {
    const ProximitySet& set = resync.sets[i];
    absl::StrAppendFormat(&line, "%s{\"%s_id\": %d, \"objects\": [",
                          i == 0 ? "" : ", ", SourceName(set.source),
                          set.source_id);
    for (std::size_t j = 0; j < set.objects.size(); ++j) {
      absl::StrAppend(&line, j == 0 ? "" : ", ", ObjectJson(set.objects[j]));
    }
    line += "]}";
  }
  return line + "]}}";
}

int Watch(const std::string& scene_id) {
  absl::StatusOr<Client> client = Connect();
  if (!client.ok()) return Fail(client.status());
  const std::int64_t from = absl::GetFlag(FLAGS_from_tick);
  const std::int64_t from_sequence = absl::GetFlag(FLAGS_from_sequence);
  const std::int64_t count = absl::GetFlag(FLAGS_count);
  if (from < -1 || from_sequence < 0 || count < 0) {
    return UsageError(
        "--from_tick must be >= -1, --from_sequence and --count >= 0",
        kProximityUsage);
  }
  ProximityWatchStart start;
  if (from >= 0) start.tick = from;
  if (from_sequence > 0) {
    start.sequence = static_cast<std::uint64_t>(from_sequence);
  }
  absl::StatusOr<std::unique_ptr<ProximityStream>> stream =
      client->WatchProximity(scene_id, start);
  if (!stream.ok()) return Fail(stream.status());
  return PrintStream(**stream, count, [](const ProximityStreamEvent& message) {
    if (const auto* resync = std::get_if<ProximityResync>(&message)) {
      return ResyncLine(*resync);
    }
    return EventsLine(std::get<ProximityTickEvents>(message));
  });
}

// A request read from --json or -f, with the scene set, sent to `method`.
template <typename Request>
int SendRequest(const std::string& scene_id, absl::string_view method) {
  Request request;
  if (absl::Status s = ReadRequest(&request); !s.ok()) return Fail(s);
  request.set_scene_id(scene_id);
  return CallAndPrint(absl::StrCat("sator.v1.ProximityService/", method),
                      request);
}

}  // namespace

const char kProximityUsage[] =
    "  proximity add-zone SCENE --json='{\"zone\": {...}}'  an "
    "AddZoneRequest\n"
    "                   without scene_id (or -f FILE)\n"
    "  proximity add-observer SCENE --json='{\"observer\": {...}}'\n"
    "  proximity remove-zone SCENE --json='{\"zone_id\": \"N\"}'\n"
    "  proximity remove-observer SCENE --json='{\"observer_id\": \"N\"}'\n"
    "  proximity get SCENE  the zones, observers and current sets\n"
    "  proximity watch SCENE [--from_tick=N | --from_sequence=N] [--count=N]\n"
    "                   each evaluation's events, one JSON object per line\n";

int RunProximity(const Args& args) {
  static constexpr const char* kVerbs[] = {"add-zone",    "add-observer",
                                           "remove-zone", "remove-observer",
                                           "get",         "watch"};
  const bool known = !args.empty() &&
                     std::find(std::begin(kVerbs), std::end(kVerbs), args[0]) !=
                         std::end(kVerbs);
  if (!known || args.size() > 2) {
    return UsageError(
        "proximity needs add-zone, add-observer, remove-zone, "
        "remove-observer, get or watch (and the scene, by --scene or after "
        "it)",
        kProximityUsage);
  }
  std::string scene_id = absl::GetFlag(FLAGS_scene);
  if (args.size() == 2) {
    if (!scene_id.empty() && scene_id != args[1]) {
      return UsageError(
          absl::StrCat("give the scene once: --scene or after '", args[0], "'"),
          kProximityUsage);
    }
    scene_id = args[1];
  }
  if (scene_id.empty()) {
    return UsageError("proximity needs --scene", kProximityUsage);
  }
  const std::string& verb = args[0];
  if (verb == "watch") return Watch(scene_id);
  if (verb == "get") {
    sator::v1::GetProximityRequest request;
    request.set_scene_id(scene_id);
    return CallAndPrint("sator.v1.ProximityService/GetProximity", request);
  }
  if (verb == "add-zone") {
    return SendRequest<sator::v1::AddZoneRequest>(scene_id, "AddZone");
  }
  if (verb == "add-observer") {
    return SendRequest<sator::v1::AddObserverRequest>(scene_id, "AddObserver");
  }
  if (verb == "remove-zone") {
    return SendRequest<sator::v1::RemoveZoneRequest>(scene_id, "RemoveZone");
  }
  return SendRequest<sator::v1::RemoveObserverRequest>(scene_id,
                                                       "RemoveObserver");
}

}  // namespace sator::satorctl
