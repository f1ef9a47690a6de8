// sator::Client's scene and body calls against the real satord: create, get,
// list (paged, and the ListAllScenes range), export, delete, import, upsert,
// remove and pose updates, with the error codes the service documents and
// the server's messages passed through unchanged.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/client/retry.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using client::Body;
using client::Dimension;
using client::MotionType;
using client::SceneInfo;
using ::sator::testing::SatordProcess;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ClientSceneEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(satord_.Start({}).ok()) << satord_.ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = satord_.grpc_target()});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  std::vector<Body> Bodies2D() {
    absl::StatusOr<ConvexPolygon> triangle =
        MakeConvexPolygon(std::vector<Vec2>{{0, 0}, {1, 0}, {0, 1}});
    EXPECT_TRUE(triangle.ok());
    return {
        {.id = 1, .shape = Circle{0.5f}, .pose = Pose2{{1, 1}, {}}},
        {.id = 2,
         .shape = Box2{{2, 0.5f}},
         .pose = Pose2{},
         .motion = MotionType::kStatic,
         .layer = 2,
         .user_data = 42},
        {.id = 3, .shape = *triangle, .pose = Pose2::FromAngle({5, 5}, 0.25f)}};
  }

  SatordProcess satord_;
  std::optional<Client> client_;
};

TEST_F(ClientSceneEndToEnd, CreateGetDeleteWithTheirErrors) {
  absl::StatusOr<SceneInfo> created = client_->CreateScene(
      "arena", {.dimension = Dimension::k2D, .history_ticks = 16});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->scene_id, "arena");
  EXPECT_EQ(created->settings.dimension, Dimension::k2D);
  EXPECT_EQ(created->settings.history_ticks, 16u);

  EXPECT_EQ(client_->CreateScene("arena", {.dimension = Dimension::k2D})
                .status()
                .code(),
            absl::StatusCode::kAlreadyExists);
  absl::StatusOr<SceneInfo> assigned =
      client_->CreateScene("", {.dimension = Dimension::k3D});
  ASSERT_TRUE(assigned.ok()) << assigned.status();
  EXPECT_FALSE(assigned->scene_id.empty());
  absl::StatusOr<SceneInfo> bad =
      client_->CreateScene("bad id!", {.dimension = Dimension::k2D});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("scene_id"));
  // A setting above the server's limit (--max_history_ticks, 1024 by
  // default): RESOURCE_EXHAUSTED with the server's message, and not worth a
  // retry (no retry-after).
  absl::StatusOr<SceneInfo> too_deep = client_->CreateScene(
      "deep", {.dimension = Dimension::k3D, .history_ticks = 2000});
  EXPECT_EQ(too_deep.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(too_deep.status().message(),
            "settings.history_ticks: 2000 above the server limit 1024 "
            "(--max_history_ticks)");
  EXPECT_FALSE(client::IsRetryable(too_deep.status()));
  EXPECT_EQ(client_->GetScene("deep").status().code(),
            absl::StatusCode::kNotFound);

  absl::StatusOr<SceneInfo> got = client_->AsyncGetScene("arena").get();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->settings.history_ticks, 16u);
  EXPECT_EQ(got->stats.body_count, 0u);

  EXPECT_TRUE(client_->DeleteScene("arena").ok());
  EXPECT_EQ(client_->GetScene("arena").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(client_->DeleteScene("arena").code(), absl::StatusCode::kNotFound);
}

TEST_F(ClientSceneEndToEnd, ListsEveryScenePageByPage) {
  for (const char* id : {"c", "a", "e", "b", "d"}) {
    ASSERT_TRUE(client_->CreateScene(id, {.dimension = Dimension::k2D}).ok());
  }
  absl::StatusOr<client::ListScenesPage> first = client_->ListScenes(2);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->scenes.size(), 2u);
  EXPECT_EQ(first->scenes[0].scene_id, "a");
  EXPECT_FALSE(first->next_page_token.empty());

  std::vector<std::string> ids;
  for (const absl::StatusOr<SceneInfo>& scene : client_->ListAllScenes(2)) {
    ASSERT_TRUE(scene.ok()) << scene.status();
    ids.push_back(scene->scene_id);
  }
  EXPECT_THAT(ids, ElementsAre("a", "b", "c", "d", "e"));

  EXPECT_EQ(client_->ListScenes(2, "not a token").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ClientSceneEndToEnd, BodiesUpsertRemoveAndPoses) {
  ASSERT_TRUE(client_->CreateScene("s", {.dimension = Dimension::k2D}).ok());
  absl::StatusOr<client::UpsertBodiesResult> upserted =
      client_->UpsertBodies("s", Bodies2D());
  ASSERT_TRUE(upserted.ok()) << upserted.status();
  EXPECT_EQ(upserted->created, 3u);
  EXPECT_EQ(upserted->replaced, 0u);
  upserted = client_->UpsertBodies(
      "s", {{.id = 1, .shape = Circle{0.75f}, .pose = Pose2{}}});
  ASSERT_TRUE(upserted.ok()) << upserted.status();
  EXPECT_EQ(upserted->replaced, 1u);

  // A bad body refuses the whole batch, naming its field, and changes nothing.
  absl::StatusOr<client::UpsertBodiesResult> refused = client_->UpsertBodies(
      "s", {{.id = 9, .shape = Circle{0.5f}, .pose = Pose2{}},
            {.id = 10, .shape = Circle{-1.0f}, .pose = Pose2{}}});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("bodies[1].shape"));
  absl::StatusOr<SceneInfo> info = client_->GetScene("s");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->stats.body_count, 3u);
  EXPECT_EQ(info->stats.static_body_count, 1u);

  client::PoseBatch poses;
  poses.Add(1, Pose2{{2, 2}, {}});
  poses.Add(3, Pose2::FromAngle({6, 5}, 0.5f));
  absl::StatusOr<std::int64_t> tick = client_->UpdatePoses("s", 1, poses);
  ASSERT_TRUE(tick.ok()) << tick.status();
  EXPECT_EQ(*tick, 1);
  tick = client_->AsyncUpdatePoses("s", 4, poses).get();
  ASSERT_TRUE(tick.ok()) << tick.status();
  EXPECT_EQ(*tick, 4);
  EXPECT_EQ(client_->UpdatePoses("s", 2, poses).status().code(),
            absl::StatusCode::kFailedPrecondition);

  EXPECT_EQ(client_->RemoveBodies("s", {1, 99}).status().code(),
            absl::StatusCode::kNotFound);
  absl::StatusOr<std::uint32_t> removed = client_->RemoveBodies("s", {1, 2});
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(*removed, 2u);
  info = client_->GetScene("s");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->stats.body_count, 1u);
  EXPECT_EQ(info->stats.current_tick, 4);

  EXPECT_EQ(client_->UpsertBodies("nowhere", Bodies2D()).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ClientSceneEndToEnd, ExportDeleteImportRestoresTheScene) {
  ASSERT_TRUE(
      client_->CreateScene("level", {.dimension = Dimension::k3D}).ok());
  absl::StatusOr<std::shared_ptr<const ConvexHull>> hull = MakeConvexHull(
      std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
  ASSERT_TRUE(hull.ok()) << hull.status();
  absl::StatusOr<std::shared_ptr<const TriangleMesh>> mesh =
      MakeTriangleMesh({{-10, 0, -10}, {10, 0, -10}, {10, 0, 10}, {-10, 0, 10}},
                       {0, 2, 1, 0, 3, 2});
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  const std::vector<Body> bodies = {
      {.id = 1,
       .shape = Shape3(*mesh),
       .pose = Pose3{},
       .motion = MotionType::kStatic},
      {.id = 2,
       .shape = Shape3(*hull),
       .pose = Pose3{{0, 3, 0}, Quat::FromAxisAngle({0, 1, 0}, 0.5f)},
       .user_data = 5},
      {.id = 3,
       .shape = Capsule3{{0, 0, 0}, {0, 1, 0}, 0.25f},
       .pose = Pose3{{1, 1, 1}, {}},
       .mask = 4}};
  ASSERT_TRUE(client_->UpsertBodies("level", bodies).ok());
  client::PoseBatch poses;
  poses.Add(3, Pose3{{2, 1, 1}, {}});
  ASSERT_TRUE(client_->UpdatePoses("level", 7, poses).ok());

  absl::StatusOr<client::SceneSnapshot> snapshot =
      client_->ExportScene("level");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->scene_id, "level");
  EXPECT_EQ(snapshot->current_tick, 7);
  ASSERT_EQ(snapshot->bodies.size(), 3u);
  std::sort(snapshot->bodies.begin(), snapshot->bodies.end(),
            [](const Body& a, const Body& b) { return a.id < b.id; });
  EXPECT_TRUE(std::holds_alternative<std::shared_ptr<const TriangleMesh>>(
      std::get<Shape3>(snapshot->bodies[0].shape)));
  EXPECT_EQ(snapshot->bodies[0].motion, MotionType::kStatic);
  EXPECT_EQ(std::get<std::shared_ptr<const ConvexHull>>(
                std::get<Shape3>(snapshot->bodies[1].shape))
                ->vertices.size(),
            4u);
  EXPECT_EQ(snapshot->bodies[1].user_data, 5u);
  EXPECT_EQ(std::get<Pose3>(*snapshot->bodies[2].pose).position,
            (Vec3{2, 1, 1}));
  EXPECT_EQ(snapshot->bodies[2].mask, 4u);

  ASSERT_TRUE(client_->DeleteScene("level").ok());
  absl::StatusOr<SceneInfo> imported = client_->ImportScene(*snapshot);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->scene_id, "level");
  EXPECT_EQ(imported->stats.body_count, 3u);
  EXPECT_EQ(imported->stats.current_tick, 7);
  EXPECT_EQ(client_->ImportScene(*snapshot).status().code(),
            absl::StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace sator
