// MakeConnection against an in-process fake of the sator.v1 services on
// 127.0.0.1 (port 0): that every call naming a scene carries `x-scene-id`
// metadata, that requests arrive with every field the client types carry,
// that answers come back into the client types (hits, batch statuses,
// snapshots with hulls and meshes), and that the channel retries as its
// service config says: UNAVAILABLE and RESOURCE_EXHAUSTED of idempotent
// calls, after the server's `grpc-retry-pushback-ms`, never after a negative
// one, never a mutation.
#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpc_channel.h"
#include "grpcpp/channel.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/server_context.h"
#include "gtest/gtest.h"
#include "proto/convert/geometry_convert.h"
#include "retry_service_config.h"
#include "sator/client/client.h"
#include "sator/client/connection.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/v1/body_service.grpc.pb.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "sator/v1/scene_service.grpc.pb.h"

namespace sator {
namespace {

using ::testing::ElementsAre;

// Every x-scene-id value the fake services saw, by method.
class SeenMetadata {
 public:
  void Record(const grpc::ServerContext& context, const std::string& method) {
    std::string value = "<none>";
    const auto& metadata = context.client_metadata();
    if (auto it = metadata.find("x-scene-id"); it != metadata.end()) {
      value = std::string(it->second.data(), it->second.size());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    seen_.push_back(absl::StrCat(method, "=", value));
  }
  std::vector<std::string> Get() {
    std::lock_guard<std::mutex> lock(mutex_);
    return seen_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> seen_;
};

class FakeQueryService final : public sator::v1::QueryService::Service {
 public:
  explicit FakeQueryService(SeenMetadata& seen) : seen_(seen) {}

  // By payload: "shed-once" is refused once with a 5 ms pushback, "down-once"
  // is UNAVAILABLE once, "always-down..." always, "hard-limit" is always
  // refused with pushback -1, "bare-limit" always without any; then (or else)
  // the payload is echoed.
  grpc::Status Ping(grpc::ServerContext* context,
                    const sator::v1::PingRequest* request,
                    sator::v1::PingResponse* response) override {
    const std::string& payload = request->payload();
    const int attempt = CountAttempt(payload);
    if (payload == "shed-once" && attempt == 1) {
      context->AddTrailingMetadata("grpc-retry-pushback-ms", "5");
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, "shed"};
    }
    if (payload == "down-once" && attempt == 1) {
      return {grpc::StatusCode::UNAVAILABLE, "restarting"};
    }
    if (payload == "hard-limit") {
      context->AddTrailingMetadata("grpc-retry-pushback-ms", "-1");
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, "batch too large"};
    }
    if (absl::StartsWith(payload, "always-down")) {
      return {grpc::StatusCode::UNAVAILABLE, "restarting"};
    }
    if (payload == "bare-limit") {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, "no hint"};
    }
    response->set_payload(payload);
    response->set_server_version("fake");
    return grpc::Status::OK;
  }

  // How many times Ping was called with `payload`.
  int attempts(const std::string& payload) {
    std::lock_guard<std::mutex> lock(mutex_);
    return attempts_[payload];
  }

  // Echoes the request into the result so the test can check each field.
  grpc::Status Raycast(grpc::ServerContext* context,
                       const sator::v1::RaycastRequest* request,
                       sator::v1::QueryResult* response) override {
    seen_.Record(*context, "Raycast");
    const sator::v1::QueryOptions& options = request->options();
    response->set_tick(options.rewind().tick());
    sator::v1::Hit* hit = response->add_hits();
    hit->set_body_id(options.filter().exclude_body_ids_size() > 0
                         ? options.filter().exclude_body_ids(0)
                         : 0);
    hit->set_user_data(options.max_hits());
    *hit->mutable_point() = request->query().origin();
    *hit->mutable_normal() = request->query().direction();
    hit->set_distance(request->query().max_distance() +
                      options.rewind().fraction());
    hit->set_feature(static_cast<int>(options.mode()));
    hit->set_started_inside(options.filter().has_layer());
    response->mutable_depenetration()->set_z(
        static_cast<float>(options.filter().mask()));
    response->mutable_stats()->set_node_visits(7);
    response->mutable_stats()->set_leaf_visits(3);
    return grpc::Status::OK;
  }

  grpc::Status QueryBatch(grpc::ServerContext* context,
                          const sator::v1::QueryBatchRequest* request,
                          sator::v1::QueryBatchResponse* response) override {
    seen_.Record(*context, "QueryBatch");
    for (int i = 0; i < request->queries_size(); ++i) {
      sator::v1::QueryBatchResponse::Entry* entry = response->add_entries();
      if (request->queries(i).has_point()) {
        // The tick echoes the rewind; the stats say which option messages
        // arrived (node_visits: options, leaf_visits: options.filter).
        const sator::v1::Query& query = request->queries(i);
        entry->mutable_result()->set_tick(query.options().rewind().tick());
        entry->mutable_result()->mutable_stats()->set_node_visits(
            query.has_options() ? 1 : 0);
        entry->mutable_result()->mutable_stats()->set_leaf_visits(
            query.options().has_filter() ? 1 : 0);
      } else {
        entry->mutable_status()->set_code(3);
        entry->mutable_status()->set_message(
            absl::StrCat("queries[", i, "]: only point queries here"));
      }
    }
    return grpc::Status::OK;
  }

  // One hit per ray echoing what arrived: body_id the ray's index, user_data
  // how many max_distances were sent, distance the ray's max distance,
  // point its origin and normal its direction; tick the rewind's tick.
  grpc::Status RaycastBatch(
      grpc::ServerContext* context,
      const sator::v1::RaycastBatchRequest* request,
      sator::v1::RaycastBatchResponse* response) override {
    seen_.Record(*context, "RaycastBatch");
    const int d = request->dimension() == sator::v1::DIMENSION_2D ? 2 : 3;
    const int rays = request->origins_size() / d;
    response->set_tick(request->options().rewind().tick());
    for (int i = 0; i < rays; ++i) {
      response->add_hit_counts(1);
      response->add_body_ids(static_cast<std::uint64_t>(i));
      response->add_user_data(
          static_cast<std::uint64_t>(request->max_distances_size()));
      response->add_distances(
          request->max_distances(request->max_distances_size() == 1 ? 0 : i));
      for (int k = 0; k < d; ++k) {
        response->add_points(request->origins(d * i + k));
        response->add_normals(request->directions(d * i + k));
      }
      response->add_features(-1);
      response->add_started_inside(i % 2 == 1);
    }
    return grpc::Status::OK;
  }

 private:
  int CountAttempt(const std::string& payload) {
    std::lock_guard<std::mutex> lock(mutex_);
    return ++attempts_[payload];
  }

  SeenMetadata& seen_;
  std::mutex mutex_;
  std::map<std::string, int> attempts_;
};

class FakeSceneService final : public sator::v1::SceneService::Service {
 public:
  explicit FakeSceneService(SeenMetadata& seen) : seen_(seen) {}

  grpc::Status GetScene(grpc::ServerContext* context,
                        const sator::v1::GetSceneRequest* request,
                        sator::v1::SceneInfo* response) override {
    seen_.Record(*context, "GetScene");
    response->set_scene_id(request->scene_id());
    response->mutable_settings()->set_dimension(sator::v1::DIMENSION_3D);
    response->mutable_settings()->set_history_ticks(32);
    response->mutable_stats()->set_body_count(5);
    response->mutable_stats()->set_current_tick(99);
    return grpc::Status::OK;
  }

  grpc::Status ListScenes(grpc::ServerContext* context,
                          const sator::v1::ListScenesRequest*,
                          sator::v1::ListScenesResponse* response) override {
    seen_.Record(*context, "ListScenes");
    response->add_scenes()->set_scene_id("a");
    return grpc::Status::OK;
  }

  // A 3D scene with a box, a hull and a mesh.
  grpc::Status ExportScene(grpc::ServerContext* context,
                           const sator::v1::ExportSceneRequest* request,
                           sator::v1::SceneSnapshot* response) override {
    seen_.Record(*context, "ExportScene");
    response->set_scene_id(request->scene_id());
    response->mutable_settings()->set_dimension(sator::v1::DIMENSION_3D);
    response->set_current_tick(12);
    sator::v1::Body* box = response->add_bodies();
    box->set_body_id(1);
    convert::FromShape3(Box3{{1, 2, 3}}, box->mutable_shape());
    convert::FromPose3(Pose3{{4, 5, 6}, {}}, box->mutable_pose());
    box->set_motion_type(sator::v1::MOTION_TYPE_DYNAMIC);
    box->set_layer(2);
    box->set_user_data(77);
    sator::v1::Body* hull = response->add_bodies();
    hull->set_body_id(2);
    for (Vec3 p :
         {Vec3{0, 0, 0}, Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}}) {
      convert::FromVec3(p, hull->mutable_shape()->mutable_hull()->add_points());
    }
    hull->set_motion_type(sator::v1::MOTION_TYPE_STATIC);
    sator::v1::Body* mesh = response->add_bodies();
    mesh->set_body_id(3);
    sator::v1::TriangleMesh* triangles = mesh->mutable_shape()->mutable_mesh();
    for (Vec3 p : {Vec3{0, 0, 0}, Vec3{1, 0, 0}, Vec3{0, 0, 1}}) {
      convert::FromVec3(p, triangles->add_vertices());
    }
    for (std::uint32_t index : {0u, 2u, 1u}) triangles->add_indices(index);
    mesh->set_motion_type(sator::v1::MOTION_TYPE_STATIC);
    return grpc::Status::OK;
  }

 private:
  SeenMetadata& seen_;
};

class FakeBodyService final : public sator::v1::BodyService::Service {
 public:
  explicit FakeBodyService(SeenMetadata& seen) : seen_(seen) {}

  grpc::Status UpsertBodies(
      grpc::ServerContext* context,
      const sator::v1::UpsertBodiesRequest* request,
      sator::v1::UpsertBodiesResponse* response) override {
    seen_.Record(*context, "UpsertBodies");
    std::lock_guard<std::mutex> lock(mutex_);
    last_upsert_ = *request;
    response->set_created(static_cast<std::uint32_t>(request->bodies_size()));
    return grpc::Status::OK;
  }

  // Always UNAVAILABLE: a mutation that must not be retried.
  grpc::Status RemoveBodies(grpc::ServerContext*,
                            const sator::v1::RemoveBodiesRequest*,
                            sator::v1::RemoveBodiesResponse*) override {
    ++remove_attempts_;
    return {grpc::StatusCode::UNAVAILABLE, "restarting"};
  }
  int remove_attempts() const { return remove_attempts_.load(); }

  grpc::Status UpdatePoses(grpc::ServerContext* context,
                           const sator::v1::UpdatePosesRequest* request,
                           sator::v1::UpdatePosesResponse* response) override {
    seen_.Record(*context, "UpdatePoses");
    std::lock_guard<std::mutex> lock(mutex_);
    last_poses_ = *request;
    response->set_current_tick(request->tick());
    return grpc::Status::OK;
  }

  sator::v1::UpsertBodiesRequest last_upsert() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_upsert_;
  }
  sator::v1::UpdatePosesRequest last_poses() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_poses_;
  }

 private:
  SeenMetadata& seen_;
  std::mutex mutex_;
  sator::v1::UpsertBodiesRequest last_upsert_;
  sator::v1::UpdatePosesRequest last_poses_;
  std::atomic<int> remove_attempts_{0};
};

class GrpcConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(&query_);
    builder.RegisterService(&scenes_);
    builder.RegisterService(&bodies_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_GT(port, 0);
    options_.target = absl::StrCat("127.0.0.1:", port);
    options_.retry = {.max_attempts = 4,
                      .initial_backoff = absl::Milliseconds(1),
                      .max_backoff = absl::Milliseconds(5)};
    absl::StatusOr<Client> client = Client::Make(options_);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  void TearDown() override {
    client_.reset();
    if (server_ != nullptr) server_->Shutdown(absl::ToChronoTime(absl::Now()));
  }

  SeenMetadata seen_;
  FakeQueryService query_{seen_};
  FakeSceneService scenes_{seen_};
  FakeBodyService bodies_{seen_};
  std::unique_ptr<grpc::Server> server_;
  ClientOptions options_;
  std::optional<Client> client_;
};

TEST_F(GrpcConnectionTest, SceneCallsCarryTheSceneIdMetadata) {
  ASSERT_TRUE(client_->GetScene("arena-7").ok());
  ASSERT_TRUE(client_->ExportScene("arena-8").ok());
  ASSERT_TRUE(client_->ListScenes().ok());
  ASSERT_TRUE(client_->UpsertBodies("arena-9", {}).ok());
  ASSERT_TRUE(client_->UpdatePoses("arena-9", 4, {}).ok());
  ASSERT_TRUE(client_
                  ->Raycast("arena-10", {.origin = Vec3{},
                                         .direction = Vec3{1, 0, 0},
                                         .max_distance = 1})
                  .ok());
  ASSERT_TRUE(client_->QueryBatch("arena-11", {}).ok());
  ASSERT_TRUE(client_
                  ->RaycastBatch("arena-13", {{.origin = Vec3{},
                                               .direction = Vec3{1, 0, 0},
                                               .max_distance = 1}})
                  .ok());
  // CallJson finds the scene in the request.
  ASSERT_TRUE(client_
                  ->CallJson("sator.v1.SceneService/GetScene",
                             R"({"scene_id": "arena-12"})")
                  .ok());
  EXPECT_THAT(seen_.Get(),
              ElementsAre("GetScene=arena-7", "ExportScene=arena-8",
                          "ListScenes=<none>", "UpsertBodies=arena-9",
                          "UpdatePoses=arena-9", "Raycast=arena-10",
                          "QueryBatch=arena-11", "RaycastBatch=arena-13",
                          "GetScene=arena-12"));
}

// The packed form: rays written as flat arrays (one max distance when all
// agree, one per ray otherwise), answers read back ray by ray.
TEST_F(GrpcConnectionTest, RaycastBatchPacksAndUnpacks) {
  const std::vector<client::RaycastQuery> same = {
      {.origin = Vec3{1, 2, 3}, .direction = Vec3{0, 0, 1}, .max_distance = 5},
      {.origin = Vec3{4, 5, 6}, .direction = Vec3{0, 1, 0}, .max_distance = 5}};
  absl::StatusOr<client::RaycastBatchResult> result = client_->RaycastBatch(
      "s", same, {}, {.rewind = client::Rewind{.tick = 9}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->tick, 9);
  ASSERT_EQ(result->ray_count(), 2u);
  EXPECT_THAT(result->offsets, ElementsAre(0u, 1u, 2u));
  const client::Hit& second = result->HitsOf(1)[0];
  EXPECT_EQ(second.body_id, 1u);
  EXPECT_EQ(second.user_data, 1u);  // One max distance sent for both.
  EXPECT_EQ(second.distance, 5.0f);
  EXPECT_EQ(second.point.x, 4.0f);
  EXPECT_EQ(second.point.z, 6.0f);
  EXPECT_EQ(second.normal.y, 1.0f);
  EXPECT_TRUE(second.started_inside);
  EXPECT_EQ(second.feature, -1);

  const std::vector<client::RaycastQuery> flat = {
      {.origin = Vec2{1, 2}, .direction = Vec2{1, 0}, .max_distance = 5},
      {.origin = Vec2{3, 4}, .direction = Vec2{0, 1}, .max_distance = 7}};
  result = client_->RaycastBatch("s", flat);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->ray_count(), 2u);
  EXPECT_EQ(result->HitsOf(1)[0].user_data, 2u);  // One per ray.
  EXPECT_EQ(result->HitsOf(1)[0].distance, 7.0f);
  EXPECT_EQ(result->HitsOf(1)[0].point.y, 4.0f);
  EXPECT_EQ(result->HitsOf(1)[0].point.z, 0.0f);
}

TEST_F(GrpcConnectionTest, QueryRequestAndResultKeepEveryField) {
  client::QueryOptions options;
  options.filter.layer = 4;
  options.filter.mask = 6;
  options.filter.exclude_body_ids = {41};
  options.mode = client::ResultMode::kClosestPerBody;
  options.max_hits = 9;
  absl::StatusOr<client::QueryResult> result = client_->Raycast(
      "s",
      {.origin = Vec3{1, 2, 3},
       .direction = Vec3{0, 0, -1},
       .max_distance = 50},
      options, {.rewind = client::Rewind{.tick = 33, .fraction = 0.5f}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->tick, 33);
  ASSERT_EQ(result->hits.size(), 1u);
  const client::Hit& hit = result->hits[0];
  EXPECT_EQ(hit.body_id, 41u);
  EXPECT_EQ(hit.user_data, 9u);
  EXPECT_EQ(hit.point, (Vec3{1, 2, 3}));
  EXPECT_EQ(hit.normal, (Vec3{0, 0, -1}));
  EXPECT_EQ(hit.distance, 50.5f);
  EXPECT_EQ(hit.feature, 4);
  EXPECT_TRUE(hit.started_inside);
  EXPECT_EQ(result->depenetration.z, 6.0f);
  EXPECT_EQ(result->stats.node_visits, 7u);
  EXPECT_EQ(result->stats.leaf_visits, 3u);
}

TEST_F(GrpcConnectionTest, BatchEntriesKeepTheirOwnStatus) {
  absl::StatusOr<std::vector<client::BatchEntry>> entries = client_->QueryBatch(
      "s",
      {{.kind = client::PointQuery{.point = Vec2{1, 1}},
        .options = {.rewind = client::Rewind{.tick = 5}}},
       {.kind = client::OverlapQuery{.shape = Circle{1}, .pose = Pose2{}}}});
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 2u);
  ASSERT_TRUE((*entries)[0].ok());
  EXPECT_EQ((*entries)[0]->tick, 5);
  EXPECT_EQ((*entries)[1].status(),
            absl::InvalidArgumentError("queries[1]: only point queries here"));
}

// Options and filters left at their defaults are not sent (the server reads
// an absent message as its defaults); any option set sends them.
TEST_F(GrpcConnectionTest, DefaultQueryOptionsAreNotSent) {
  const client::PointQuery point{.point = Vec2{1, 1}};
  absl::StatusOr<std::vector<client::BatchEntry>> entries = client_->QueryBatch(
      "s",
      {{.kind = point},
       {.kind = point, .options = {.rewind = client::Rewind{.tick = 2}}},
       {.kind = point, .options = {.filter = {.layer = 4}}},
       {.kind = point, .options = {.filter = {.exclude_body_ids = {9}}}},
       {.kind = point, .options = {.max_hits = 3}},
       {.kind = point, .options = {.filter = {.mask = 0}}},
       {.kind = point,
        .options = {.filter = {.motion = client::MotionFilter::kStaticOnly}}},
       {.kind = point, .options = {.mode = client::ResultMode::kClosest}}});
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 8u);
  for (const client::BatchEntry& entry : *entries) {
    ASSERT_TRUE(entry.ok()) << entry.status();
  }
  // Per query: were options sent, was a filter sent.
  constexpr std::array<std::array<std::uint64_t, 2>, 8> kSent = {
      {{0, 0}, {1, 0}, {1, 1}, {1, 1}, {1, 0}, {1, 1}, {1, 1}, {1, 0}}};
  for (std::size_t i = 0; i < kSent.size(); ++i) {
    EXPECT_EQ((*entries)[i]->stats.node_visits, kSent[i][0]) << i;
    EXPECT_EQ((*entries)[i]->stats.leaf_visits, kSent[i][1]) << i;
  }
  EXPECT_EQ((*entries)[1]->tick, 2);
}

TEST_F(GrpcConnectionTest, BodiesAndPosesArriveAsSent) {
  std::vector<client::Body> bodies = {{.id = 1,
                                       .shape = Circle{0.5f},
                                       .pose = Pose2::FromAngle({1, 2}, 0.5f),
                                       .motion = client::MotionType::kDynamic,
                                       .layer = 3,
                                       .user_data = 8},
                                      {.id = 2,
                                       .shape = Box2{{1, 1}},
                                       .pose = Pose2{},
                                       .motion = client::MotionType::kStatic,
                                       .mask = 0}};
  absl::StatusOr<client::UpsertBodiesResult> upserted =
      client_->UpsertBodies("s", bodies);
  ASSERT_TRUE(upserted.ok()) << upserted.status();
  EXPECT_EQ(upserted->created, 2u);
  const sator::v1::UpsertBodiesRequest request = bodies_.last_upsert();
  ASSERT_EQ(request.bodies_size(), 2);
  EXPECT_EQ(request.scene_id(), "s");
  EXPECT_EQ(request.bodies(0).body_id(), 1u);
  EXPECT_EQ(request.bodies(0).shape().circle().radius(), 0.5f);
  EXPECT_EQ(request.bodies(0).pose().position().y(), 2.0f);
  EXPECT_NEAR(request.bodies(0).pose().angle(), 0.5f, 1e-6f);
  EXPECT_EQ(request.bodies(0).motion_type(), sator::v1::MOTION_TYPE_DYNAMIC);
  EXPECT_TRUE(request.bodies(0).has_layer());
  EXPECT_EQ(request.bodies(0).layer(), 3u);
  EXPECT_FALSE(request.bodies(0).has_mask());
  EXPECT_EQ(request.bodies(0).user_data(), 8u);
  EXPECT_EQ(request.bodies(1).motion_type(), sator::v1::MOTION_TYPE_STATIC);
  EXPECT_FALSE(request.bodies(1).has_layer());
  EXPECT_TRUE(request.bodies(1).has_mask());
  EXPECT_EQ(request.bodies(1).mask(), 0u);

  client::PoseBatch poses;
  poses.Add(7, Pose3{{1, 2, 3}, Quat{0, 0, 0, 1}});
  poses.Add(8, Pose3{{4, 5, 6}, Quat{0, 1, 0, 0}});
  absl::StatusOr<std::int64_t> tick = client_->UpdatePoses("s", 21, poses);
  ASSERT_TRUE(tick.ok()) << tick.status();
  EXPECT_EQ(*tick, 21);
  const sator::v1::UpdatePosesRequest sent = bodies_.last_poses();
  EXPECT_EQ(sent.tick(), 21);
  EXPECT_THAT(sent.poses().body_ids(), ElementsAre(7u, 8u));
  EXPECT_THAT(sent.poses().positions(), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(sent.poses().rotations(), ElementsAre(0, 0, 0, 1, 0, 1, 0, 0));
}

TEST_F(GrpcConnectionTest,
       ABodyWithoutAPoseGetsTheIdentityOfItsShapesDimension) {
  const std::vector<Body> bodies = {{.id = 1, .shape = Shape3(Sphere{1.0f})},
                                    {.id = 2, .shape = Circle{1.0f}}};
  ASSERT_TRUE(client_->UpsertBodies("s", bodies).ok());
  const sator::v1::UpsertBodiesRequest request = bodies_.last_upsert();
  ASSERT_EQ(request.bodies_size(), 2);
  EXPECT_TRUE(request.bodies(0).pose().has_orientation());
  EXPECT_EQ(request.bodies(0).pose().orientation().w(), 1.0f);
  EXPECT_TRUE(request.bodies(1).pose().has_angle());
}

TEST_F(GrpcConnectionTest, SceneInfoAndSnapshotsComeBackWithHullsAndMeshes) {
  absl::StatusOr<client::SceneInfo> info = client_->GetScene("s");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->settings.dimension, client::Dimension::k3D);
  EXPECT_EQ(info->settings.history_ticks, 32u);
  EXPECT_EQ(info->stats.body_count, 5u);
  EXPECT_EQ(info->stats.current_tick, 99);

  absl::StatusOr<client::SceneSnapshot> snapshot = client_->ExportScene("s");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->current_tick, 12);
  ASSERT_EQ(snapshot->bodies.size(), 3u);
  const client::Body& box = snapshot->bodies[0];
  ASSERT_TRUE(std::holds_alternative<Shape3>(box.shape));
  const auto* box3 = std::get_if<Box3>(&std::get<Shape3>(box.shape));
  ASSERT_NE(box3, nullptr);
  EXPECT_EQ(box3->half_extents, (Vec3{1, 2, 3}));
  EXPECT_EQ(std::get<Pose3>(*box.pose).position, (Vec3{4, 5, 6}));
  EXPECT_EQ(box.layer, 2u);
  EXPECT_EQ(box.mask, std::nullopt);
  EXPECT_EQ(box.user_data, 77u);
  const Shape3& hull = std::get<Shape3>(snapshot->bodies[1].shape);
  ASSERT_TRUE(std::holds_alternative<std::shared_ptr<const ConvexHull>>(hull));
  EXPECT_EQ(std::get<std::shared_ptr<const ConvexHull>>(hull)->vertices.size(),
            4u);
  EXPECT_EQ(snapshot->bodies[1].motion, client::MotionType::kStatic);
  const Shape3& mesh = std::get<Shape3>(snapshot->bodies[2].shape);
  EXPECT_TRUE(
      std::holds_alternative<std::shared_ptr<const TriangleMesh>>(mesh));
}

TEST_F(GrpcConnectionTest, TheChannelRetriesAShedCallAfterItsPushback) {
  absl::StatusOr<PingResult> pong = client_->Ping("shed-once");
  ASSERT_TRUE(pong.ok()) << pong.status();
  EXPECT_EQ(pong->payload, "shed-once");
  EXPECT_EQ(query_.attempts("shed-once"), 2);
}

TEST_F(GrpcConnectionTest, TheChannelRetriesUnavailable) {
  absl::StatusOr<PingResult> pong = client_->Ping("down-once");
  ASSERT_TRUE(pong.ok()) << pong.status();
  EXPECT_EQ(query_.attempts("down-once"), 2);
}

TEST_F(GrpcConnectionTest, ANegativePushbackIsFinal) {
  absl::StatusOr<PingResult> refused = client_->Ping("hard-limit");
  EXPECT_EQ(refused.status(), absl::ResourceExhaustedError("batch too large"));
  EXPECT_EQ(client::RetryAfter(refused.status()), std::nullopt);
  EXPECT_EQ(query_.attempts("hard-limit"), 1);
}

// gRPC retries a RESOURCE_EXHAUSTED without pushback like any retryable
// code (satord sends none such: a shed has a delay, a hard limit -1).
TEST_F(GrpcConnectionTest, ResourceExhaustedWithoutPushbackUsesEveryAttempt) {
  absl::StatusOr<PingResult> refused = client_->Ping("bare-limit");
  EXPECT_EQ(refused.status(), absl::ResourceExhaustedError("no hint"));
  EXPECT_EQ(query_.attempts("bare-limit"), options_.retry.max_attempts);
}

TEST_F(GrpcConnectionTest, AMutationIsAttemptedOnce) {
  EXPECT_EQ(client_->RemoveBodies("arena", {1}).status(),
            absl::UnavailableError("restarting"));
  EXPECT_EQ(bodies_.remove_attempts(), 1);
}

// Every attempt fits in the call's deadline: a backoff that would end past
// it ends the call with DEADLINE_EXCEEDED instead of another attempt.
TEST_F(GrpcConnectionTest, TheDeadlineBoundsEveryAttempt) {
  ClientOptions options = options_;
  options.retry = {.max_attempts = 5,
                   .initial_backoff = absl::Seconds(20),
                   .max_backoff = absl::Seconds(20)};
  absl::StatusOr<Client> client = Client::Make(options);
  ASSERT_TRUE(client.ok()) << client.status();
  const absl::Status status =
      client->Ping("always-down", {.deadline = absl::Milliseconds(500)})
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_EQ(query_.attempts("always-down"), 1);
}

// Against a server that fails every call, throttling leaves about one
// attempt per call once half the tokens are spent (gRFC A6): 10 calls of 4
// attempts each would be 40 attempts without it.
TEST_F(GrpcConnectionTest, RetryThrottlingStopsRetriesWhenEveryCallFails) {
  constexpr int kCalls = 10;
  const auto attempts_for = [&](int max_tokens, const std::string& payload) {
    ClientOptions options = options_;
    options.retry.throttle_max_tokens = max_tokens;
    absl::StatusOr<Client> client = Client::Make(options);
    EXPECT_TRUE(client.ok()) << client.status();
    for (int i = 0; i < kCalls && client.ok(); ++i) {
      EXPECT_EQ(client->Ping(payload).status().code(),
                absl::StatusCode::kUnavailable);
    }
    return query_.attempts(payload);
  };
  const int throttled = attempts_for(10, "always-down");
  EXPECT_GE(throttled, kCalls);
  EXPECT_LE(throttled, kCalls + options_.retry.max_attempts);
  EXPECT_EQ(attempts_for(0, "always-down-unthrottled"),
            kCalls * options_.retry.max_attempts);
}

TEST_F(GrpcConnectionTest, OneAttemptWhenRetriesAreOff) {
  ClientOptions options = options_;
  options.retry.max_attempts = 1;
  absl::StatusOr<Client> client = Client::Make(options);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(client->Ping("down-once").status(),
            absl::UnavailableError("restarting"));
  EXPECT_EQ(query_.attempts("down-once"), 1);
}

TEST_F(GrpcConnectionTest, TheChannelRunsTheRetryServiceConfig) {
  ConnectionOptions options{.target = options_.target, .retry = options_.retry};
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      client_internal::MakeGrpcChannel(options);
  ASSERT_TRUE(channel.ok()) << channel.status();
  ASSERT_TRUE((*channel)->WaitForConnected(
      absl::ToChronoTime(absl::Now() + absl::Seconds(10))));
  EXPECT_EQ((*channel)->GetServiceConfigJSON(),
            client_internal::RetryServiceConfigJson(options.retry));
}

TEST_F(GrpcConnectionTest, ARetryPolicyGrpcWouldClampIsRefused) {
  ClientOptions options = options_;
  options.retry.max_attempts = kMaxRetryAttempts + 1;
  EXPECT_EQ(Client::Make(options).status(),
            absl::InvalidArgumentError(
                "ClientOptions.retry.max_attempts: must be 1 to 5 (gRPC "
                "allows no more)"));
  EXPECT_EQ(
      MakeConnection({.target = options_.target, .retry = {.max_attempts = 6}})
          .status(),
      absl::InvalidArgumentError(
          "ConnectionOptions.retry.max_attempts: must be 1 to 5 (gRPC "
          "allows no more)"));
}

TEST_F(GrpcConnectionTest, UnimplementedCallsSayUnimplemented) {
  EXPECT_EQ(client_->DeleteScene("s").code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace sator
