// satorctl shots: hit validation and its audit trail from the command line.
//
//   satorctl shots validate arena -f shots.json
//   # shots.json: {"shots": [{"shot_id": "1", "shooter_group_id": "1",
//   #   "origin": {...}, "direction": {"x": 1}, "range": 100,
//   #   "view_delay_ms": 50}], "policy": {"max_rewind_ms": 200}}
//   satorctl shots list arena --json='{"filter": {"outcome":
//   "SHOT_OUTCOME_HIT"}}' satorctl shots watch arena --from_sequence=1
//   --count=10
//
// validate and list take their request (a ValidateShotsRequest or a
// ListShotVerdictsRequest, scene_id apart) in protobuf's JSON mapping and
// print the response the same way. watch prints one JSON object per line
// per event: a verdict record, or {"gap": {...}} when it missed some.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sator/v1/shot.pb.h"
#include "sator/v1/shot_audit.pb.h"
#include "tools/satorctl/commands.h"
#include "tools/satorctl/common.h"

ABSL_DECLARE_FLAG(std::string, scene);
ABSL_FLAG(int64_t, from_sequence, 0,
          "shots watch, proximity watch: start from this sequence, if still "
          "kept (0: only what is recorded from now on).");
ABSL_FLAG(int64_t, count, 0,
          "shots watch, proximity watch: stop after this many messages (0: "
          "until the server "
          "ends the watch or satorctl is interrupted).");

namespace sator::satorctl {
namespace {

std::string VerdictLine(const ShotVerdictRecord& record) {
  const ShotVerdict& verdict = record.verdict;
  std::string line = absl::StrFormat(
      "{\"sequence\": %d, \"scene_id\": %s, \"shot_id\": %d, "
      "\"shooter_group_id\": %d, \"outcome\": \"%s\", \"reason\": \"%s\", "
      "\"tick\": %d, \"fraction\": %.9g, \"rewind_ticks\": %.17g, "
      "\"clamped\": %s, \"current_tick\": %d, \"recorded_unix_micros\": %d",
      record.sequence, JsonString(record.scene_id), record.shot.shot_id,
      record.shot.shooter_group_id,
      sator::v1::ShotOutcome_Name(
          static_cast<sator::v1::ShotOutcome>(verdict.outcome)),
      sator::v1::ShotReason_Name(
          static_cast<sator::v1::ShotReason>(verdict.reason)),
      verdict.tick, verdict.fraction, verdict.rewind_ticks,
      verdict.clamped ? "true" : "false", record.current_tick,
      record.recorded_unix_micros);
  if (record.shot.target.has_value()) {
    absl::StrAppend(&line,
                    ", \"target_group_id\": ", record.shot.target->group_id);
  }
  if (verdict.hit.has_value()) {
    absl::StrAppendFormat(
        &line,
        ", \"hit\": {\"body_id\": %d, \"group_id\": %d, \"part\": %d, "
        "\"distance\": %.9g}",
        verdict.hit->body_id, verdict.hit->group_id, verdict.hit->part,
        verdict.hit->distance);
  }
  if (verdict.target_miss_distance.has_value()) {
    absl::StrAppendFormat(&line, ", \"target_miss_distance\": %.9g",
                          *verdict.target_miss_distance);
  }
  line += "}";
  return line;
}

int Watch(const std::string& scene_id) {
  absl::StatusOr<Client> client = Connect();
  if (!client.ok()) return Fail(client.status());
  const std::int64_t from = absl::GetFlag(FLAGS_from_sequence);
  const std::int64_t count = absl::GetFlag(FLAGS_count);
  if (from < 0 || count < 0) {
    return UsageError("--from_sequence and --count must be >= 0", kShotsUsage);
  }
  absl::StatusOr<std::unique_ptr<ShotVerdictStream>> stream =
      client->WatchShotVerdicts(
          scene_id,
          from > 0 ? std::optional<std::uint64_t>(from) : std::nullopt);
  if (!stream.ok()) return Fail(stream.status());
  return PrintStream(**stream, count, [](const ShotVerdictEvent& event) {
    if (const auto* gap = std::get_if<ShotVerdictGap>(&event)) {
      return absl::StrFormat(
          "{\"gap\": {\"first_sequence\": %d, \"dropped\": %d}}",
          gap->first_sequence, gap->dropped);
    }
    return VerdictLine(std::get<ShotVerdictRecord>(event));
  });
}

}  // namespace

const char kShotsUsage[] =
    "  shots validate --scene=SCENE -f shots.json  the file (or --json) "
    "holds a\n"
    "                   ValidateShotsRequest without scene_id: {\"shots\": "
    "[Shot, ...],\n"
    "                   \"policy\": {...}}; prints the verdicts\n"
    "  shots list SCENE [--json='{\"filter\": {...}, \"page_size\": N,\n"
    "                   \"page_token\": \"...\"}']  a page of the audit "
    "trail\n"
    "  shots watch SCENE [--from_sequence=N] [--count=N]  verdicts as they "
    "are\n"
    "                   recorded, one JSON object per line\n";

int RunShots(const Args& args) {
  if (args.empty() ||
      (args[0] != "validate" && args[0] != "list" && args[0] != "watch") ||
      args.size() > 2) {
    return UsageError(
        "shots needs 'validate', 'list' or 'watch' (and the scene, by --scene "
        "or after it)",
        kShotsUsage);
  }
  std::string scene_id = absl::GetFlag(FLAGS_scene);
  if (args.size() == 2) {
    if (!scene_id.empty() && scene_id != args[1]) {
      return UsageError(
          absl::StrCat("give the scene once: --scene or after '", args[0], "'"),
          kShotsUsage);
    }
    scene_id = args[1];
  }
  if (scene_id.empty()) return UsageError("shots needs --scene", kShotsUsage);
  if (args[0] == "watch") return Watch(scene_id);
  if (args[0] == "list") {
    sator::v1::ListShotVerdictsRequest request;
    if (absl::Status s = ReadRequest(&request); !s.ok()) return Fail(s);
    request.set_scene_id(scene_id);
    return CallAndPrint("sator.v1.QueryService/ListShotVerdicts", request);
  }
  sator::v1::ValidateShotsRequest request;
  if (absl::Status s = ReadRequest(&request); !s.ok()) return Fail(s);
  request.set_scene_id(scene_id);
  return CallAndPrint("sator.v1.QueryService/ValidateShots", request);
}

}  // namespace sator::satorctl
