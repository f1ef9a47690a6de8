// The scene viewer's pages in-process (server/debug): the list, projection
// onto each plane (orientation, y up), the body cap and the mesh triangle
// cap, recent queries drawn over the bodies, escaping, and the 400 and 404
// answers. viewer_e2e_test.sh checks the same pages in Chromium.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/v1/shot.pb.h"
#include "server/audit/shot_audit.h"
#include "server/debug/recent_queries.h"
#include "server/debug/scene_pages.h"
#include "server/debug/scene_svg.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// The value of attribute `name` in `svg` at or after `from`.
double AttributeAfter(const std::string& svg, size_t from,
                      const std::string& name) {
  const std::string key = name + "=\"";
  const size_t at = svg.find(key, from);
  if (at == std::string::npos) return -1;
  const size_t start = at + key.size();
  double value = -1;
  EXPECT_TRUE(absl::SimpleAtod(svg.substr(start, svg.find('"', start) - start),
                               &value));
  return value;
}

// The cx and cy of the circle drawn for body `id`.
std::pair<double, double> CircleCentre(const std::string& svg, int id) {
  const size_t body = svg.find(absl::StrCat("id=\"body-", id, "\""));
  if (body == std::string::npos) return {-1, -1};
  const size_t circle = svg.find("<circle class=\"shape\"", body);
  if (circle == std::string::npos) return {-1, -1};
  return {AttributeAfter(svg, circle, "cx"), AttributeAfter(svg, circle, "cy")};
}

class ViewerTest : public ::testing::Test {
 protected:
  std::shared_ptr<HostedScene> Make(const std::string& id, int dimension) {
    absl::StatusOr<std::shared_ptr<HostedScene>> scene =
        scenes_.Create(id, {.dimension = dimension});
    EXPECT_TRUE(scene.ok()) << scene.status();
    return scene.ok() ? *scene : nullptr;
  }

  HttpResponse Get(const std::string& path,
                   std::map<std::string, std::string> params = {}) {
    return ServeScenePage({.path = path, .params = std::move(params)}, scenes_,
                          &recent_, &audit_);
  }

  SceneRegistry scenes_{SceneLimits{}};
  RecentQueries recent_;
  ShotAudit audit_{ShotAuditOptions{}};
};

TEST_F(ViewerTest, ListShowsEveryScene) {
  std::shared_ptr<HostedScene> flat = Make("flat", 2);
  Make("deep", 3);
  const std::vector<scene::BodyDesc<2>> bodies = {
      {.id = 1,
       .shape = std::make_shared<const Shape2>(Circle{1.0f}),
       .motion = scene::MotionType::kStatic},
      {.id = 2, .shape = std::make_shared<const Shape2>(Circle{1.0f})}};
  ASSERT_TRUE(flat->scene2()->UpsertBodies(bodies).ok());
  ASSERT_TRUE(flat->scene2()->UpdatePoses(4, {}).ok());
  const HttpResponse list = Get("/debug/scenes/");
  EXPECT_EQ(list.status, 200);
  EXPECT_THAT(list.body, HasSubstr("2 scenes hosted."));
  EXPECT_THAT(list.body,
              HasSubstr("<a href=\"/debug/scenes/flat\">flat</a></td><td>2D"
                        "</td><td>4</td><td>1</td><td>1</td>"));
  EXPECT_THAT(list.body, HasSubstr("<a href=\"/debug/scenes/deep\">deep</a>"));
}

TEST_F(ViewerTest, ProjectsOntoTheChosenPlaneWithYUp) {
  std::shared_ptr<HostedScene> deep = Make("deep", 3);
  const auto sphere = std::make_shared<const Shape3>(Sphere{1.0f});
  const std::vector<scene::BodyDesc<3>> bodies = {
      {.id = 1, .shape = sphere, .pose = {{0, 0, 0}, {}}},
      {.id = 2, .shape = sphere, .pose = {{10, 0, 5}, {}}}};
  ASSERT_TRUE(deep->scene3()->UpsertBodies(bodies).ok());
  const std::string xy = Get("/debug/scenes/deep").body;
  const std::string xz = Get("/debug/scenes/deep", {{"plane", "xz"}}).body;
  const std::string yz = Get("/debug/scenes/deep", {{"plane", "yz"}}).body;
  EXPECT_THAT(xz, HasSubstr("data-plane=\"xz\""));
  // xy: both at y = 0, body 2 to the right.
  EXPECT_GT(CircleCentre(xy, 2).first, CircleCentre(xy, 1).first);
  EXPECT_DOUBLE_EQ(CircleCentre(xy, 2).second, CircleCentre(xy, 1).second);
  // xz: body 2 right and higher (z up, so a smaller SVG y).
  EXPECT_GT(CircleCentre(xz, 2).first, CircleCentre(xz, 1).first);
  EXPECT_LT(CircleCentre(xz, 2).second, CircleCentre(xz, 1).second);
  // yz: same y, so the same column; body 2 higher.
  EXPECT_DOUBLE_EQ(CircleCentre(yz, 2).first, CircleCentre(yz, 1).first);
  EXPECT_LT(CircleCentre(yz, 2).second, CircleCentre(yz, 1).second);
}

TEST_F(ViewerTest, CapsBodiesAndMeshTriangles) {
  std::shared_ptr<HostedScene> flat = Make("many", 2);
  std::vector<scene::BodyDesc<2>> bodies;
  for (std::uint64_t id = 1; id <= 10; ++id) {
    bodies.push_back(
        {.id = id,
         .shape = std::make_shared<const Shape2>(Box2{{1.0f, 1.0f}}),
         .pose = {{static_cast<float>(3 * id), 0.0f}, {}}});
  }
  ASSERT_TRUE(flat->scene2()->UpsertBodies(bodies).ok());
  const std::string page =
      Get("/debug/scenes/many", {{"max_bodies", "3"}}).body;
  EXPECT_EQ(Count(page, "<g class=\"body "), 3);
  EXPECT_THAT(page, HasSubstr("10 bodies, 3 drawn"));

  // A 100-triangle fan drawn with a budget of 40.
  std::vector<Vec3> vertices = {{0, 0, 0}};
  std::vector<std::uint32_t> indices;
  for (std::uint32_t i = 0; i <= 100; ++i) {
    const float angle = 0.06f * static_cast<float>(i);
    vertices.push_back({10 * std::cos(angle), 10 * std::sin(angle), 0});
    if (i > 0) indices.insert(indices.end(), {0, i, i + 1});
  }
  absl::StatusOr<std::shared_ptr<const TriangleMesh>> mesh =
      MakeTriangleMesh(vertices, indices);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  std::shared_ptr<HostedScene> deep = Make("meshy", 3);
  const std::vector<scene::BodyDesc<3>> mesh_body = {
      {.id = 1,
       .shape = std::make_shared<const Shape3>(*mesh),
       .motion = scene::MotionType::kStatic}};
  ASSERT_TRUE(deep->scene3()->UpsertBodies(mesh_body).ok());
  SvgOptions options;
  options.max_mesh_triangles = 40;
  SvgStats stats;
  const std::string svg =
      RenderSceneSvg(*deep, options, {}, nullptr, stats).value();
  EXPECT_TRUE(stats.triangles_capped);
  EXPECT_EQ(stats.triangles_drawn, 40u);
  EXPECT_EQ(Count(svg, "Z"), 40);
  options.max_mesh_triangles = 1000;
  ASSERT_TRUE(RenderSceneSvg(*deep, options, {}, nullptr, stats).ok());
  EXPECT_FALSE(stats.triangles_capped);
  EXPECT_EQ(stats.triangles_drawn, 100u);
}

TEST_F(ViewerTest, DrawsTheRecentQueriesOfTheScene) {
  std::shared_ptr<HostedScene> flat = Make("arena", 2);
  Make("other", 2);
  const std::vector<scene::BodyDesc<2>> bodies = {
      {.id = 1, .shape = std::make_shared<const Shape2>(Circle{1.0f})}};
  ASSERT_TRUE(flat->scene2()->UpsertBodies(bodies).ok());
  scene::RayRequest<2> ray_request;
  ray_request.origin = {-5, 0};
  ray_request.direction = {1, 0};
  ray_request.max_distance = 10;
  const scene::SceneQuery<2> ray = ray_request;
  scene::QueryResult<2> hit;
  hit.hits.push_back({.point = {-1, 0}, .normal = {-1, 0}});
  recent_.Add<2>("arena", ray, hit);
  scene::SweepRequest<2> sweep_request;
  sweep_request.displacement = {0, 3};
  const scene::SceneQuery<2> sweep = sweep_request;
  recent_.Add<2>("arena", sweep, scene::QueryResult<2>());
  recent_.Add<2>("other", ray, hit);
  const std::string page = Get("/debug/scenes/arena").body;
  EXPECT_EQ(Count(page, "<g class=\"query raycast\""), 1);
  EXPECT_EQ(Count(page, "<g class=\"query sweep\""), 1);
  EXPECT_EQ(Count(page, "<line class=\"path\""), 2);
  EXPECT_EQ(Count(page, "<circle class=\"hit\""), 1);
  EXPECT_EQ(Count(page, "<line class=\"normal\""), 1);
  EXPECT_THAT(page, HasSubstr("2 recent queries"));
  const std::string none = Get("/debug/scenes/arena", {{"queries", "0"}}).body;
  EXPECT_EQ(Count(none, "<g class=\"query "), 0);
  const std::string last = Get("/debug/scenes/arena", {{"queries", "1"}}).body;
  EXPECT_EQ(Count(last, "<g class=\"query sweep\""), 1);
  EXPECT_EQ(Count(last, "<g class=\"query raycast\""), 0);
}

// The attribute `name` of the element with id `element_id`, as text.
std::string AttributeOf(const std::string& svg, const std::string& element_id,
                        const std::string& name) {
  const size_t element = svg.find(absl::StrCat("id=\"", element_id, "\""));
  if (element == std::string::npos) return "(no element)";
  const std::string key = absl::StrCat(" ", name, "=\"");
  const size_t at = svg.find(key, element);
  if (at == std::string::npos || at > svg.find('>', element)) {
    return "(no attribute)";
  }
  const size_t start = at + key.size();
  return svg.substr(start, svg.find('"', start) - start);
}

// Body 1 moves from x = 0 at tick 0 to x = 8 at tick 1; group 7 (one part,
// body 2, one unit ahead of it along x) from x = 20 to x = 28, and group 4
// (body 3) stays at (0, 5). No move reaches the teleport distance.
class PastTickViewerTest : public ViewerTest {
 protected:
  void SetUp() override {
    arena_ = Make("arena", 2);
    const auto ball = std::make_shared<const Shape2>(Circle{0.5f});
    const std::vector<scene::BodyDesc<2>> bodies = {
        {.id = 1, .shape = ball},
        {.id = 2,
         .shape = ball,
         .pose = {{1, 0}, {}},
         .group_id = 7,
         .part = 3},
        {.id = 3, .shape = ball, .group_id = 4, .part = 1}};
    ASSERT_TRUE(arena_->scene2()->UpsertBodies(bodies).ok());
    ASSERT_TRUE(
        arena_->scene2()
            ->UpdatePoses(0, {{1, {{0, 0}, {}}, false}},
                          {{7, {{20, 0}, {}}, false}, {4, {{0, 5}, {}}, false}})
            .ok());
    ASSERT_TRUE(arena_->scene2()
                    ->UpdatePoses(1, {{1, {{8, 0}, {}}, false}},
                                  {{7, {{28, 0}, {}}, false}})
                    .ok());
  }

  std::shared_ptr<HostedScene> arena_;
};

TEST_F(PastTickViewerTest, DrawsAPastTickAsARewoundQuerySeesIt) {
  const HttpResponse past =
      Get("/debug/scenes/arena", {{"tick", "0"}, {"fraction", "0.5"}});
  ASSERT_EQ(past.status, 200) << past.body;
  EXPECT_EQ(AttributeOf(past.body, "body-1", "data-x"), "4.00");
  // A part is drawn in the world: its group halfway, plus its local offset.
  EXPECT_EQ(AttributeOf(past.body, "body-2", "data-x"), "25.00");
  EXPECT_EQ(AttributeOf(past.body, "body-2", "data-group"), "7");
  EXPECT_EQ(AttributeOf(past.body, "body-2", "data-part"), "3");
  EXPECT_EQ(AttributeOf(past.body, "scene", "data-tick"), "0");
  EXPECT_EQ(AttributeOf(past.body, "scene", "data-fraction"), "0.5");
  EXPECT_THAT(past.body, HasSubstr("tick 0 + 0.5 (a past tick)"));
  EXPECT_EQ(Count(past.body, "class=\"body dynamic ghost"), 0);

  const std::string newest = Get("/debug/scenes/arena").body;
  EXPECT_EQ(AttributeOf(newest, "body-1", "data-x"), "8.00");
  EXPECT_EQ(AttributeOf(newest, "body-2", "data-x"), "29.00");

  // Ghosts: the dynamic bodies again where they are now, under the past.
  const std::string ghosted =
      Get("/debug/scenes/arena", {{"tick", "0"}, {"ghost", "1"}}).body;
  EXPECT_EQ(AttributeOf(ghosted, "body-1", "data-x"), "0.00");
  EXPECT_EQ(AttributeOf(ghosted, "ghost-1", "data-x"), "8.00");
  EXPECT_EQ(Count(ghosted, "class=\"body dynamic ghost"), 3);

  // Times the history does not hold, and bad parameters.
  const HttpResponse future = Get("/debug/scenes/arena", {{"tick", "9"}});
  EXPECT_EQ(future.status, 400);
  EXPECT_THAT(future.body, HasSubstr("is newer than the current tick 1"));
  EXPECT_EQ(
      Get("/debug/scenes/arena", {{"tick", "1"}, {"fraction", "0.5"}}).status,
      400);
  EXPECT_EQ(Get("/debug/scenes/arena", {{"tick", "-5"}}).status, 400);
  const HttpResponse clamped =
      Get("/debug/scenes/arena", {{"tick", "-5"}, {"clamp", "1"}});
  EXPECT_EQ(clamped.status, 200);
  EXPECT_THAT(clamped.body, HasSubstr("(clamped to the oldest tick kept)"));
  EXPECT_EQ(Get("/debug/scenes/arena", {{"fraction", "0.5"}}).status, 400);
  EXPECT_EQ(Get("/debug/scenes/arena", {{"tick", "x"}}).status, 400);
  EXPECT_EQ(
      Get("/debug/scenes/arena", {{"tick", "0"}, {"fraction", "1"}}).status,
      400);
}

TEST_F(PastTickViewerTest, RewoundQueriesLinkToTheirOwnTime) {
  scene::RayRequest<2> ray_request;
  ray_request.origin = {-5, 0};
  ray_request.direction = {1, 0};
  ray_request.max_distance = 10;
  ray_request.options.rewind = scene::Rewind{.tick = 0, .fraction = 0.25f};
  scene::QueryResult<2> result;
  result.tick = 0;
  result.fraction = 0.25f;
  recent_.Add<2>("arena", scene::SceneQuery<2>(ray_request), result);
  const std::string page = Get("/debug/scenes/arena").body;
  EXPECT_THAT(page, HasSubstr("<ul id=\"rewound\"><li>raycast at <a "
                              "class=\"at-tick\" href=\"/debug/scenes/arena?"
                              "tick=0&amp;fraction=0.25\">tick 0 + 0.25</a>"));
}

TEST_F(PastTickViewerTest, VerdictPageDrawsTheShotAtTheTimeItWasJudged) {
  sator::v1::Shot shot;
  shot.set_shot_id(42);
  shot.set_shooter_group_id(4);
  shot.mutable_origin()->set_y(5);
  shot.mutable_direction()->set_x(5);
  shot.mutable_direction()->set_y(-1);
  shot.set_range(100);
  shot.mutable_target()->set_group_id(7);
  sator::v1::ShotVerdict verdict;
  verdict.set_shot_id(42);
  verdict.set_outcome(sator::v1::SHOT_OUTCOME_HIT);
  verdict.set_reason(sator::v1::SHOT_REASON_HIT);
  verdict.set_tick(0);
  verdict.set_fraction(0.5f);
  verdict.set_rewind_ticks(0.5);
  verdict.mutable_hit()->set_body_id(2);
  verdict.mutable_hit()->set_group_id(7);
  verdict.mutable_hit()->set_part(3);
  verdict.mutable_hit()->set_distance(24.0f);
  verdict.mutable_hit()->mutable_point()->set_x(24.5f);
  verdict.mutable_hit()->mutable_normal()->set_x(-1);
  audit_.Record("arena", shot, verdict, /*current_tick=*/1, /*dimension=*/2);

  const HttpResponse page = Get("/debug/scenes/arena/verdicts/1");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_THAT(page.body, HasSubstr("<td id=\"outcome\">hit</td>"));
  EXPECT_THAT(page.body, HasSubstr("<td id=\"reason\">hit</td>"));
  EXPECT_THAT(page.body, HasSubstr("body 2, group 7, part 3, at distance 24"));
  // The bodies at tick 0 + 0.5, the target's and the shooter's parts
  // marked, and every dynamic body ghosted where it is now.
  EXPECT_EQ(AttributeOf(page.body, "body-2", "data-x"), "25.00");
  EXPECT_THAT(page.body,
              HasSubstr("class=\"body dynamic target\" id=\"body-2\""));
  EXPECT_THAT(page.body,
              HasSubstr("class=\"body dynamic shooter\" id=\"body-3\""));
  EXPECT_EQ(AttributeOf(page.body, "ghost-2", "data-x"), "29.00");
  EXPECT_EQ(Count(page.body, "<g id=\"shot\" class=\"shot\">"), 1);
  EXPECT_EQ(Count(page.body, "<circle class=\"hit\""), 1);
  EXPECT_THAT(page.body, HasSubstr("Drawn at tick 0 + 0.5"));
  // The scene page lists it.
  EXPECT_THAT(Get("/debug/scenes/arena").body,
              HasSubstr("<a href=\"/debug/scenes/arena/verdicts/1\">1</a>"));

  EXPECT_EQ(Get("/debug/scenes/arena/verdicts/2").status, 404);
  EXPECT_EQ(Get("/debug/scenes/arena/verdicts/x").status, 400);
  EXPECT_EQ(Get("/debug/scenes/arena/verdicts/0").status, 400);
  EXPECT_EQ(Get("/debug/scenes/nowhere/verdicts/1").status, 404);
  EXPECT_EQ(Get("/debug/scenes/arena/shots/1").status, 404);
}

TEST_F(PastTickViewerTest, VerdictOlderThanTheHistoryIsDescribedNotDrawn) {
  sator::v1::ShotVerdict verdict;
  verdict.set_outcome(sator::v1::SHOT_OUTCOME_MISS);
  verdict.set_reason(sator::v1::SHOT_REASON_NOTHING_HIT);
  verdict.set_tick(-3);
  audit_.Record("arena", sator::v1::Shot(), verdict, 1, 2);
  const HttpResponse page = Get("/debug/scenes/arena/verdicts/1");
  EXPECT_EQ(page.status, 200);
  EXPECT_THAT(page.body, HasSubstr("<td id=\"reason\">nothing_hit</td>"));
  EXPECT_THAT(page.body, HasSubstr("Not drawn: rewind.tick: -3 is older"));
  EXPECT_EQ(Count(page.body, "<svg"), 0);
}

TEST_F(ViewerTest, EscapesAndRefusesBadRequests) {
  Make("deep", 3);
  const HttpResponse missing = Get("/debug/scenes/<img src=x onerror=1>");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.body, HasSubstr("&lt;img src=x onerror=1&gt;"));
  EXPECT_THAT(missing.body, Not(HasSubstr("<img")));
  EXPECT_EQ(Get("/debug/scenes/deep", {{"plane", "up"}}).status, 400);
  EXPECT_EQ(Get("/debug/scenes/deep", {{"queries", "-1"}}).status, 400);
  EXPECT_EQ(Get("/debug/scenes/deep", {{"max_bodies", "x"}}).status, 400);
  EXPECT_EQ(Get("/debug/scenes/deep/more").status, 404);
  EXPECT_EQ(Get("/debug/scenes/deep").status, 200);
  EXPECT_EQ(HtmlEscape("a&b<c>\"d'"), "a&amp;b&lt;c&gt;&quot;d&#39;");
}

}  // namespace
}  // namespace sator::server
