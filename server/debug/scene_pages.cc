// The scene viewer's pages (see scene_pages.h).
#include "server/debug/scene_pages.h"

#include <cctype>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "sator/v1/shot.pb.h"
#include "sator/v1/shot_audit.pb.h"
#include "server/debug/scene_svg.h"

namespace sator::server {
namespace {

constexpr char kScenesPath[] = "/debug/scenes";
constexpr std::size_t kMaxListed = 1000;
constexpr std::size_t kMaxQueriesShown = 256;
constexpr std::size_t kMaxBodiesDrawn = 100000;
constexpr std::size_t kVerdictsListed = 20;

constexpr char kPageStyle[] =
    "<style>body{font-family:sans-serif;margin:1.5em}"
    "table{border-collapse:collapse}td,th{padding:.2em .8em;"
    "border-bottom:1px solid #ddd;text-align:left}"
    "svg{border:1px solid #ccc}</style>";

HttpResponse Page(int status, const std::string& title,
                  const std::string& body) {
  return HttpResponse{
      .status = status,
      .body =
          absl::StrCat("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                       "<title>",
                       HtmlEscape(title), "</title>", kPageStyle,
                       "</head><body>\n", body, "</body></html>\n")};
}

HttpResponse Error(int status, const std::string& message) {
  return Page(status, "satord: error",
              absl::StrCat("<h1>", status, "</h1><p id=\"error\">",
                           HtmlEscape(message), "</p>"));
}

struct SceneRow {
  std::int64_t tick = 0;
  scene::BodyCounts counts;
};

SceneRow Describe(const HostedScene& scene) {
  SceneRow row;
  if (scene.scene2() != nullptr) {
    const scene::SceneSnapshot<2> snapshot = scene.scene2()->Snapshot();
    row.tick = snapshot.tick();
    row.counts = snapshot.CountBodies();
  } else if (scene.scene3() != nullptr) {
    const scene::SceneSnapshot<3> snapshot = scene.scene3()->Snapshot();
    row.tick = snapshot.tick();
    row.counts = snapshot.CountBodies();
  }
  return row;
}

HttpResponse ListPage(const SceneRegistry& scenes) {
  const std::vector<std::shared_ptr<HostedScene>> listed =
      scenes.List("", kMaxListed);
  std::string body = absl::StrCat(
      "<h1>Scenes</h1><p id=\"summary\">", scenes.size(), " scenes hosted",
      scenes.size() > listed.size() ? " (first " : "",
      scenes.size() > listed.size() ? absl::StrCat(listed.size(), " listed)")
                                    : "",
      ".</p>\n<table id=\"scenes\"><thead><tr><th>scene</th><th>dimension</th>"
      "<th>tick</th><th>static bodies</th><th>dynamic bodies</th></tr>"
      "</thead><tbody>\n");
  for (const std::shared_ptr<HostedScene>& scene : listed) {
    const SceneRow row = Describe(*scene);
    const std::string id = HtmlEscape(scene->id());
    absl::StrAppend(&body, "<tr class=\"scene\" data-id=\"", id,
                    "\"><td><a href=\"/debug/scenes/", id, "\">", id,
                    "</a></td><td>", scene->dimension(), "D</td><td>", row.tick,
                    "</td><td>", row.counts.static_bodies, "</td><td>",
                    row.counts.dynamic_bodies, "</td></tr>\n");
  }
  body += "</tbody></table>\n";
  return Page(200, "satord: scenes", body);
}

bool ParseCount(const std::map<std::string, std::string>& params,
                const std::string& name, std::size_t max, std::size_t& value) {
  const auto found = params.find(name);
  if (found == params.end()) return true;
  std::uint64_t parsed = 0;
  if (!absl::SimpleAtoi(found->second, &parsed)) return false;
  value = static_cast<std::size_t>(std::min<std::uint64_t>(parsed, max));
  return true;
}

// ?tick=T&fraction=F&clamp=1: the time to draw (absent: the newest tick).
// False with `error` set for a bad parameter.
bool ParseWhen(const std::map<std::string, std::string>& params,
               std::optional<scene::Rewind>& when, std::string& error) {
  const auto tick = params.find("tick");
  const auto fraction = params.find("fraction");
  if (tick == params.end()) {
    if (fraction != params.end()) {
      error = "fraction: needs a tick";
      return false;
    }
    return true;
  }
  scene::Rewind rewind;
  if (!absl::SimpleAtoi(tick->second, &rewind.tick)) {
    error = "tick: must be an integer";
    return false;
  }
  if (fraction != params.end() &&
      !absl::SimpleAtof(fraction->second, &rewind.fraction)) {
    error = "fraction: must be a number in [0, 1)";
    return false;
  }
  if (const auto clamp = params.find("clamp");
      clamp != params.end() && clamp->second == "1") {
    rewind.on_too_old = scene::RewindLimit::kClamp;
  }
  when = rewind;
  return true;
}

std::string TimeText(std::int64_t tick, float fraction) {
  return fraction > 0.0f ? absl::StrCat(tick, " + ", fraction)
                         : absl::StrCat(tick);
}

std::string TimeLink(const std::string& escaped_id, std::int64_t tick,
                     float fraction) {
  return absl::StrCat(
      "<a class=\"at-tick\" href=\"", kScenesPath, "/", escaped_id,
      "?tick=", tick,
      fraction > 0.0f ? absl::StrCat("&amp;fraction=", fraction) : "",
      "\">tick ", TimeText(tick, fraction), "</a>");
}

const char* OutcomeName(sator::v1::ShotOutcome outcome) {
  switch (outcome) {
    case sator::v1::SHOT_OUTCOME_HIT:
      return "hit";
    case sator::v1::SHOT_OUTCOME_MISS:
      return "miss";
    case sator::v1::SHOT_OUTCOME_REJECTED:
      return "rejected";
    default:
      return "unspecified";
  }
}

std::string ReasonName(sator::v1::ShotReason reason) {
  std::string name = sator::v1::ShotReason_Name(reason);
  if (absl::StartsWith(name, "SHOT_REASON_")) name = name.substr(12);
  for (char& c : name) c = static_cast<char>(std::tolower(c));
  return name;
}

HttpResponse ScenePage(const std::string& id, const HttpRequest& request,
                       const SceneRegistry& scenes, const RecentQueries* recent,
                       const ShotAudit* audit) {
  const absl::StatusOr<std::shared_ptr<HostedScene>> scene = scenes.Find(id);
  if (!scene.ok()) return Error(404, absl::StrCat("no scene '", id, "'"));
  SvgOptions options;
  if (const auto plane = request.params.find("plane");
      plane != request.params.end() &&
      !ParseViewPlane(plane->second, options.plane)) {
    return Error(400, "plane: must be xy, xz or yz");
  }
  std::size_t query_count = 20;
  if (!ParseCount(request.params, "queries", kMaxQueriesShown, query_count)) {
    return Error(400, "queries: must be a non-negative integer");
  }
  if (!ParseCount(request.params, "max_bodies", kMaxBodiesDrawn,
                  options.max_bodies)) {
    return Error(400, "max_bodies: must be a non-negative integer");
  }
  if (std::string error; !ParseWhen(request.params, options.when, error)) {
    return Error(400, error);
  }
  if (const auto ghost = request.params.find("ghost");
      ghost != request.params.end()) {
    options.ghost_newest = ghost->second == "1";
  }
  std::vector<RecentQuery> queries;
  if (recent != nullptr && query_count > 0) {
    queries = recent->ForScene((*scene)->id(), query_count);
  }
  SvgStats stats;
  const absl::StatusOr<std::string> svg =
      RenderSceneSvg(**scene, options, queries, nullptr, stats);
  if (!svg.ok()) return Error(400, std::string(svg.status().message()));
  const std::string escaped = HtmlEscape((*scene)->id());
  std::string body = absl::StrCat(
      "<p><a href=\"", kScenesPath, "\">all scenes</a></p><h1>Scene ", escaped,
      "</h1><p id=\"summary\">", (*scene)->dimension(), "D, tick ",
      TimeText(stats.tick, stats.fraction),
      stats.clamped ? " (clamped to the oldest tick kept)" : "",
      options.when.has_value() ? " (a past tick)" : "", ", ", stats.bodies,
      " bodies, ", stats.bodies_drawn, " drawn",
      stats.triangles_capped ? ", mesh triangles capped" : "", ", ",
      queries.size(), " recent queries",
      recent == nullptr ? " (recording is off)" : "", ".</p>\n");
  if ((*scene)->dimension() == 3) {
    body += "<p>plane:";
    for (const char* plane : {"xy", "xz", "yz"}) {
      absl::StrAppend(&body, " <a href=\"", kScenesPath, "/", escaped,
                      "?plane=", plane, "\">", plane, "</a>");
    }
    body += "</p>\n";
  }
  body += *svg;
  // Rewound queries drawn over the newest tick sit where the bodies were:
  // each links to the picture of its own time.
  std::string rewound;
  for (const RecentQuery& query : queries) {
    if (!query.rewound) continue;
    absl::StrAppend(&rewound, "<li>", HtmlEscape(query.kind), " at ",
                    TimeLink(escaped, query.tick, query.fraction), "</li>");
  }
  if (!rewound.empty()) {
    absl::StrAppend(&body, "<h2>Rewound queries</h2><ul id=\"rewound\">",
                    rewound, "</ul>\n");
  }
  const std::shared_ptr<ShotAuditRing> ring =
      audit == nullptr ? nullptr : audit->FindRing((*scene)->id());
  if (ring != nullptr && ring->next_sequence() > 1) {
    const std::uint64_t newest = ring->next_sequence() - 1;
    const std::uint64_t from = std::max<std::uint64_t>(
        ring->oldest_sequence(),
        newest >= kVerdictsListed ? newest - kVerdictsListed + 1 : 1);
    body +=
        "<h2>Recent verdicts</h2><table id=\"verdicts\"><thead><tr>"
        "<th>verdict</th><th>shot</th><th>shooter</th><th>outcome</th>"
        "<th>reason</th><th>judged at</th></tr></thead><tbody>\n";
    for (const ShotAuditRing::Record& record :
         ring->ReadFrom(from, kVerdictsListed)) {
      absl::StrAppend(
          &body, "<tr class=\"verdict\"><td><a href=\"", kScenesPath, "/",
          escaped, "/verdicts/", record->sequence(), "\">", record->sequence(),
          "</a></td><td>", record->shot().shot_id(), "</td><td>",
          record->shot().shooter_group_id(), "</td><td>",
          OutcomeName(record->verdict().outcome()), "</td><td>",
          ReasonName(record->verdict().reason()), "</td><td>",
          TimeText(record->verdict().tick(), record->verdict().fraction()),
          "</td></tr>\n");
    }
    body += "</tbody></table>\n";
  }
  return Page(200, absl::StrCat("satord: scene ", (*scene)->id()), body);
}

RecentQuery::Point ToPoint(const sator::v1::Vector& v) {
  return {v.x(), v.y(), v.z()};
}

// The picture of one recorded verdict: the bodies at the time it was judged
// at, the shooter's and the target's parts marked, the shot and its hit, and
// the dynamic bodies ghosted where they are now.
HttpResponse VerdictPage(const std::string& id,
                         const std::string& sequence_text,
                         const HttpRequest& request,
                         const SceneRegistry& scenes, const ShotAudit* audit) {
  const absl::StatusOr<std::shared_ptr<HostedScene>> scene = scenes.Find(id);
  if (!scene.ok()) return Error(404, absl::StrCat("no scene '", id, "'"));
  std::uint64_t sequence = 0;
  if (!absl::SimpleAtoi(sequence_text, &sequence) || sequence == 0) {
    return Error(400, "verdict: must be a sequence number from 1");
  }
  const std::shared_ptr<ShotAuditRing> ring =
      audit == nullptr ? nullptr : audit->FindRing((*scene)->id());
  if (ring == nullptr) {
    return Error(404, absl::StrCat("scene '", id,
                                   "' has recorded no verdict (or the audit "
                                   "trail is off)"));
  }
  const std::vector<ShotAuditRing::Record> found = ring->ReadFrom(sequence, 1);
  if (found.empty() || found[0]->sequence() != sequence) {
    return Error(
        404, absl::StrCat("no verdict ", sequence, " in scene '", id,
                          "': the ring keeps ", ring->oldest_sequence(), " to ",
                          ring->next_sequence() - 1));
  }
  const sator::v1::ShotVerdictRecord& record = *found[0];
  const sator::v1::Shot& shot = record.shot();
  const sator::v1::ShotVerdict& verdict = record.verdict();
  SvgOptions options;
  if (const auto plane = request.params.find("plane");
      plane != request.params.end() &&
      !ParseViewPlane(plane->second, options.plane)) {
    return Error(400, "plane: must be xy, xz or yz");
  }
  if (!ParseCount(request.params, "max_bodies", kMaxBodiesDrawn,
                  options.max_bodies)) {
    return Error(400, "max_bodies: must be a non-negative integer");
  }
  options.when = scene::Rewind{.tick = verdict.tick(),
                               .fraction = verdict.fraction(),
                               .on_too_old = scene::RewindLimit::kReject};
  options.ghost_newest = true;
  ShotDrawing drawing;
  drawing.origin = ToPoint(shot.origin());
  const RecentQuery::Point direction = ToPoint(shot.direction());
  const double length =
      std::sqrt(direction[0] * direction[0] + direction[1] * direction[1] +
                direction[2] * direction[2]);
  const bool has_hit = verdict.has_hit();
  const double reach = has_hit ? verdict.hit().distance() : shot.range();
  for (int axis = 0; axis < 3; ++axis) {
    drawing.end[axis] = static_cast<float>(
        drawing.origin[axis] +
        (length > 0.0 ? direction[axis] / length * reach : 0.0));
  }
  if (shot.shape().has_sphere()) {
    drawing.radius = shot.shape().sphere().radius();
  }
  if (shot.shape().has_circle()) {
    drawing.radius = shot.shape().circle().radius();
  }
  if (shot.shape().has_capsule3d()) {
    drawing.radius = shot.shape().capsule3d().radius();
  }
  if (shot.shape().has_capsule2d()) {
    drawing.radius = shot.shape().capsule2d().radius();
  }
  drawing.has_hit = has_hit;
  if (has_hit) {
    drawing.hit_point = ToPoint(verdict.hit().point());
    drawing.hit_normal = ToPoint(verdict.hit().normal());
  }
  drawing.shooter_group = shot.shooter_group_id();
  drawing.target_group = shot.has_target() ? shot.target().group_id() : 0;
  SvgStats stats;
  const absl::StatusOr<std::string> svg =
      RenderSceneSvg(**scene, options, {}, &drawing, stats);
  const std::string escaped = HtmlEscape((*scene)->id());
  std::string body = absl::StrCat(
      "<p><a href=\"", kScenesPath, "/", escaped, "\">scene ", escaped,
      "</a></p><h1>Verdict ", sequence,
      "</h1>\n<table id=\"verdict\">"
      "<tr><th>shot</th><td>",
      shot.shot_id(),
      "</td></tr>"
      "<tr><th>shooter group</th><td>",
      shot.shooter_group_id(), "</td></tr>",
      shot.has_target()
          ? absl::StrCat("<tr><th>claimed target</th><td>group ",
                         shot.target().group_id(),
                         shot.target().has_part()
                             ? absl::StrCat(" part ", shot.target().part())
                             : "",
                         "</td></tr>")
          : "",
      "<tr><th>outcome</th><td id=\"outcome\">", OutcomeName(verdict.outcome()),
      "</td></tr><tr><th>reason</th><td id=\"reason\">",
      ReasonName(verdict.reason()), "</td></tr><tr><th>judged at</th><td>tick ",
      TimeText(verdict.tick(), verdict.fraction()),
      verdict.clamped() ? " (clamped)" : "", ", ", verdict.rewind_ticks(),
      " ticks before the scene's tick ", record.current_tick(), "</td></tr>");
  if (has_hit) {
    absl::StrAppend(&body, "<tr><th>hit</th><td id=\"hit\">body ",
                    verdict.hit().body_id(), ", group ",
                    verdict.hit().group_id(), ", part ", verdict.hit().part(),
                    ", at distance ", verdict.hit().distance(), "</td></tr>");
  }
  if (verdict.has_target_miss_distance()) {
    absl::StrAppend(&body, "<tr><th>target missed by</th><td>",
                    verdict.target_miss_distance(), "</td></tr>");
  }
  body += "</table>\n";
  if (svg.ok()) {
    absl::StrAppend(&body, "<p id=\"summary\">Drawn at tick ",
                    TimeText(stats.tick, stats.fraction), ": ", stats.bodies,
                    " bodies; ghosted: the dynamic bodies now.</p>\n", *svg);
  } else {
    // The verdict outlived its tick in the scene's history.
    absl::StrAppend(&body, "<p id=\"summary\">Not drawn: ",
                    HtmlEscape(svg.status().message()), "</p>\n");
  }
  return Page(200, absl::StrCat("satord: verdict ", sequence), body);
}

}  // namespace

HttpResponse ServeScenePage(const HttpRequest& request,
                            const SceneRegistry& scenes,
                            const RecentQueries* recent,
                            const ShotAudit* audit) {
  std::string path = request.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path == kScenesPath) return ListPage(scenes);
  const std::string prefix = absl::StrCat(kScenesPath, "/");
  if (!absl::StartsWith(path, prefix) || path.size() == prefix.size()) {
    return Error(404, absl::StrCat("no page ", path));
  }
  const std::vector<std::string> parts =
      absl::StrSplit(path.substr(prefix.size()), '/');
  if (parts.size() == 1) {
    return ScenePage(parts[0], request, scenes, recent, audit);
  }
  if (parts.size() == 3 && parts[1] == "verdicts") {
    return VerdictPage(parts[0], parts[2], request, scenes, audit);
  }
  return Error(404, absl::StrCat("no page ", path));
}

void AddScenePages(Metrics& metrics, const SceneRegistry& scenes,
                   const RecentQueries* recent, const ShotAudit* audit) {
  metrics.AddPage(kScenesPath,
                  [&scenes, recent, audit](const HttpRequest& request) {
                    return ServeScenePage(request, scenes, recent, audit);
                  });
}

}  // namespace sator::server
