// The scene viewer's pages (see scene_pages.h).
#include "server/debug/scene_pages.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/debug/scene_svg.h"

namespace sator::server {
namespace {

constexpr char kScenesPath[] = "/debug/scenes";
constexpr std::size_t kMaxListed = 1000;
constexpr std::size_t kMaxQueriesShown = 256;
constexpr std::size_t kMaxBodiesDrawn = 100000;

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

HttpResponse ScenePage(const std::string& id, const HttpRequest& request,
                       const SceneRegistry& scenes,
                       const RecentQueries* recent) {
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
  std::vector<RecentQuery> queries;
  if (recent != nullptr && query_count > 0) {
    queries = recent->ForScene((*scene)->id(), query_count);
  }
  SvgStats stats;
  const std::string svg = RenderSceneSvg(**scene, options, queries, stats);
  const std::string escaped = HtmlEscape((*scene)->id());
  std::string body = absl::StrCat(
      "<p><a href=\"", kScenesPath, "\">all scenes</a></p><h1>Scene ", escaped,
      "</h1><p id=\"summary\">", (*scene)->dimension(), "D, tick ", stats.tick,
      ", ", stats.bodies, " bodies, ", stats.bodies_drawn, " drawn",
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
  body += svg;
  return Page(200, absl::StrCat("satord: scene ", (*scene)->id()), body);
}

}  // namespace

HttpResponse ServeScenePage(const HttpRequest& request,
                            const SceneRegistry& scenes,
                            const RecentQueries* recent) {
  std::string path = request.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path == kScenesPath) return ListPage(scenes);
  const std::string prefix = absl::StrCat(kScenesPath, "/");
  if (absl::StartsWith(path, prefix) && path.size() > prefix.size() &&
      path.find('/', prefix.size()) == std::string::npos) {
    return ScenePage(path.substr(prefix.size()), request, scenes, recent);
  }
  return Error(404, absl::StrCat("no page ", path));
}

void AddScenePages(Metrics& metrics, const SceneRegistry& scenes,
                   const RecentQueries* recent) {
  metrics.AddPage(kScenesPath, [&scenes, recent](const HttpRequest& request) {
    return ServeScenePage(request, scenes, recent);
  });
}

}  // namespace sator::server
