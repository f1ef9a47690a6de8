// Scene queries end to end: the real satord, scenes made through
// SceneService and BodyService, every query RPC answered with values worked
// out by hand, and a table of bad inputs, each of which must give its code
// and field path and leave the scene as it was. Calls go through the client
// library's CallJson (the client has no typed scene calls yet).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/v1/query_service.pb.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using ::sator::testing::SatordProcess;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kQueryService[] = "sator.v1.QueryService/";

class QueryEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    satord_ = new SatordProcess();
    ASSERT_TRUE(satord_
                    ->Start({"--max_batch_queries=50", "--max_hits=100",
                             "--log_level=warning"})
                    .ok())
        << satord_->ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = satord_->grpc_target(),
                      .default_deadline = absl::Seconds(20)});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = new Client(*std::move(client));
    // "arena" (2D, 4 ticks of history): a static box of half extents 1 at
    // (5, 0), x in [4, 6]; a dynamic circle of radius 1 at (10, 0).
    // "space" (3D): a sphere of radius 1 at (0, 0, 5).
    for (
        const auto& [method, json] :
        std::vector<std::pair<const char*, const char*>>{
            {"sator.v1.SceneService/CreateScene",
             R"({"scene_id": "arena", "settings": {"dimension": "DIMENSION_2D",
                  "history_ticks": 4}})"},
            {"sator.v1.BodyService/UpsertBodies",
             R"({"scene_id": "arena", "bodies": [
                 {"body_id": 1, "shape": {"box2d": {"half_extents": {"x": 1, "y": 1}}},
                  "pose": {"position": {"x": 5}}, "motion_type": "MOTION_TYPE_STATIC",
                  "user_data": 10},
                 {"body_id": 2, "shape": {"circle": {"radius": 1}},
                  "pose": {"position": {"x": 10}}, "motion_type": "MOTION_TYPE_DYNAMIC",
                  "user_data": 20}]})"},
            {"sator.v1.SceneService/CreateScene",
             R"({"scene_id": "space", "settings": {"dimension": "DIMENSION_3D"}})"},
            {"sator.v1.BodyService/UpsertBodies",
             R"({"scene_id": "space", "bodies": [
                 {"body_id": 1, "shape": {"sphere": {"radius": 1}},
                  "pose": {"position": {"z": 5}}, "motion_type": "MOTION_TYPE_DYNAMIC"}]})"},
        }) {
      absl::StatusOr<std::string> made = client_->CallJson(method, json);
      ASSERT_TRUE(made.ok()) << method << ": " << made.status();
    }
  }

  static void TearDownTestSuite() {
    delete client_;
    client_ = nullptr;
    delete satord_;
    satord_ = nullptr;
  }

  template <typename Response>
  static absl::StatusOr<Response> Call(const std::string& method,
                                       const std::string& json) {
    absl::StatusOr<std::string> answer =
        client_->CallJson(kQueryService + method, json);
    if (!answer.ok()) return answer.status();
    Response response;
    EXPECT_TRUE(
        google::protobuf::util::JsonStringToMessage(*answer, &response).ok())
        << *answer;
    return response;
  }

  static absl::StatusOr<sator::v1::QueryResult> Query(const std::string& rpc,
                                                      const std::string& json) {
    return Call<sator::v1::QueryResult>(rpc, json);
  }

  static SatordProcess* satord_;
  static Client* client_;
};

SatordProcess* QueryEndToEnd::satord_ = nullptr;
Client* QueryEndToEnd::client_ = nullptr;

// A capsule (radius 0.5, its bottom on the floor's top face) in a corner,
// pressed 0.1 into each of two walls: the default (closest contact only)
// pushes it out of one wall and leaves it 0.1 inside the other; all
// contacts resolve both, with the floor's round-off contact among them;
// min_depth leaves the floor out (docs/QUERIES.md).
TEST_F(QueryEndToEnd, ContactsInACornerWithAndWithoutMinDepth) {
  for (
      const auto& [method, json] :
      std::vector<std::pair<const char*, const char*>>{
          {"sator.v1.SceneService/CreateScene",
           R"({"scene_id": "corner", "settings": {"dimension": "DIMENSION_3D"}})"},
          {"sator.v1.BodyService/UpsertBodies",
           R"({"scene_id": "corner", "bodies": [
                {"body_id": 1, "motion_type": "MOTION_TYPE_STATIC",
                 "shape": {"box3d": {"half_extents": {"x": 10, "y": 0.5, "z": 10}}},
                 "pose": {"position": {"y": -0.5}}},
                {"body_id": 2, "motion_type": "MOTION_TYPE_STATIC",
                 "shape": {"box3d": {"half_extents": {"x": 0.5, "y": 10, "z": 10}}},
                 "pose": {"position": {"x": 0.9}}},
                {"body_id": 3, "motion_type": "MOTION_TYPE_STATIC",
                 "shape": {"box3d": {"half_extents": {"x": 10, "y": 10, "z": 0.5}}},
                 "pose": {"position": {"z": 0.9}}}]})"},
      }) {
    absl::StatusOr<std::string> made = client_->CallJson(method, json);
    ASSERT_TRUE(made.ok()) << method << ": " << made.status();
  }
  const std::string capsule =
      R"("shape": {"capsule3d": {"a": {"y": 0.5}, "b": {"y": 1.5}, "radius": 0.5}})";

  absl::StatusOr<sator::v1::QueryResult> closest = Query(
      "Contacts",
      absl::StrCat(R"({"scene_id": "corner", "query": {)", capsule, "}}"));
  ASSERT_TRUE(closest.ok()) << closest.status();
  ASSERT_EQ(closest->hits_size(), 1);
  EXPECT_NEAR(closest->hits(0).distance(), 0.1f, 1e-5f);
  // Out of one wall only: 0.1 along x or along z, not both.
  EXPECT_NEAR(std::abs(closest->depenetration().x()) +
                  std::abs(closest->depenetration().z()),
              0.1f, 1e-5f);

  absl::StatusOr<sator::v1::QueryResult> all =
      Query("Contacts",
            absl::StrCat(R"({"scene_id": "corner", "query": {)", capsule,
                         R"(}, "options": {"mode": "RESULT_MODE_ALL"}})"));
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->hits_size(), 3);
  EXPECT_EQ(all->hits(2).body_id(), 1u);  // The floor, shallowest.
  EXPECT_LT(all->hits(2).distance(), 1e-5f);
  EXPECT_NEAR(all->depenetration().x(), -0.1f, 1e-5f);
  EXPECT_NEAR(all->depenetration().z(), -0.1f, 1e-5f);

  absl::StatusOr<sator::v1::QueryResult> tolerant = Query(
      "Contacts", absl::StrCat(R"({"scene_id": "corner", "query": {)", capsule,
                               R"(, "min_depth": 0.0001},)",
                               R"( "options": {"mode": "RESULT_MODE_ALL"}})"));
  ASSERT_TRUE(tolerant.ok()) << tolerant.status();
  ASSERT_EQ(tolerant->hits_size(), 2);
  EXPECT_NE(tolerant->hits(0).body_id(), 1u);
  EXPECT_NE(tolerant->hits(1).body_id(), 1u);
  EXPECT_NEAR(tolerant->depenetration().x(), -0.1f, 1e-5f);
  EXPECT_EQ(tolerant->depenetration().y(), 0.0f);
  EXPECT_NEAR(tolerant->depenetration().z(), -0.1f, 1e-5f);

  absl::StatusOr<sator::v1::QueryResult> negative =
      Query("Contacts", absl::StrCat(R"({"scene_id": "corner", "query": {)",
                                     capsule, R"(, "min_depth": -1}})"));
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(negative.status().message(),
            "query.min_depth: must be >= 0, got -1");
}

TEST_F(QueryEndToEnd, EveryQueryRpcAnswers) {
  // Along +x from the origin: the box face at 4, then the circle at 9.
  absl::StatusOr<sator::v1::QueryResult> ray = Query("Raycast", R"({
      "scene_id": "arena",
      "query": {"direction": {"x": 1}, "max_distance": 100},
      "options": {"mode": "RESULT_MODE_ALL"}})");
  ASSERT_TRUE(ray.ok()) << ray.status();
  ASSERT_EQ(ray->hits_size(), 2);
  EXPECT_EQ(ray->hits(0).body_id(), 1u);
  EXPECT_EQ(ray->hits(0).user_data(), 10u);
  EXPECT_NEAR(ray->hits(0).distance(), 4.0f, 1e-5f);
  EXPECT_NEAR(ray->hits(0).normal().x(), -1.0f, 1e-5f);
  EXPECT_EQ(ray->hits(1).body_id(), 2u);
  EXPECT_NEAR(ray->hits(1).distance(), 9.0f, 1e-5f);

  // A circle of radius 1 at (3.5, 0) is 0.5 into the box.
  const std::string placed = R"("scene_id": "arena", "query": {
      "shape": {"circle": {"radius": 1}}, "pose": {"position": {"x": 3.5}}})";
  absl::StatusOr<sator::v1::QueryResult> overlap =
      Query("Overlap", "{" + placed + "}");
  ASSERT_TRUE(overlap.ok()) << overlap.status();
  ASSERT_EQ(overlap->hits_size(), 1);
  EXPECT_EQ(overlap->hits(0).body_id(), 1u);
  absl::StatusOr<sator::v1::QueryResult> contacts =
      Query("Contacts", "{" + placed + "}");
  ASSERT_TRUE(contacts.ok()) << contacts.status();
  ASSERT_EQ(contacts->hits_size(), 1);
  EXPECT_NEAR(contacts->hits(0).distance(), 0.5f, 1e-5f);
  EXPECT_NEAR(contacts->hits(0).normal().x(), -1.0f, 1e-5f);
  EXPECT_NEAR(contacts->depenetration().x(), -0.5f, 1e-5f);

  // Radius 0.5 from the origin moving 10 along +x: touches x = 4 at 0.35.
  absl::StatusOr<sator::v1::QueryResult> sweep = Query("Sweep", R"({
      "scene_id": "arena", "query": {"shape": {"circle": {"radius": 0.5}},
      "displacement": {"x": 10}}})");
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  ASSERT_EQ(sweep->hits_size(), 1);
  EXPECT_NEAR(sweep->hits(0).distance(), 0.35f, 1e-5f);

  absl::StatusOr<sator::v1::QueryResult> point = Query("PointQuery", R"({
      "scene_id": "arena", "query": {"point": {"x": 10, "y": 0.5}}})");
  ASSERT_TRUE(point.ok()) << point.status();
  ASSERT_EQ(point->hits_size(), 1);
  EXPECT_EQ(point->hits(0).body_id(), 2u);
  // As docs/QUERIES.md's table says: the query point, started_inside, no
  // normal, distance 0.
  EXPECT_TRUE(point->hits(0).started_inside());
  ASSERT_TRUE(point->hits(0).has_point());
  EXPECT_EQ(point->hits(0).point().x(), 10.0f);
  EXPECT_EQ(point->hits(0).point().y(), 0.5f);
  EXPECT_FALSE(point->hits(0).has_normal());
  EXPECT_EQ(point->hits(0).distance(), 0.0f);

  absl::StatusOr<sator::v1::QueryResult> ray3 = Query("Raycast", R"({
      "scene_id": "space",
      "query": {"direction": {"z": 2}, "max_distance": 10}})");
  ASSERT_TRUE(ray3.ok()) << ray3.status();
  ASSERT_EQ(ray3->hits_size(), 1);
  EXPECT_NEAR(ray3->hits(0).distance(), 4.0f, 1e-5f);

  absl::StatusOr<sator::v1::QueryBatchResponse> batch =
      Call<sator::v1::QueryBatchResponse>("QueryBatch", R"({
      "scene_id": "arena", "queries": [
        {"raycast": {"direction": {"x": 1}, "max_distance": 100}},
        {"raycast": {"max_distance": 100}},
        {"point": {"point": {"x": 5}}}]})");
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_EQ(batch->entries_size(), 3);
  EXPECT_EQ(batch->entries(0).status().code(), 0);
  EXPECT_NEAR(batch->entries(0).result().hits(0).distance(), 4.0f, 1e-5f);
  EXPECT_EQ(batch->entries(1).status().code(), 3);
  EXPECT_EQ(batch->entries(1).status().message(),
            "queries[1].raycast.direction: zero length");
  EXPECT_EQ(batch->entries(2).result().hits(0).body_id(), 1u);
}

struct BadCall {
  const char* rpc;
  const char* json;
  absl::StatusCode code;
  const char* message_prefix;
};

TEST_F(QueryEndToEnd, BadInputsGiveTheirCodeAndField) {
  const std::vector<BadCall> cases = {
      {"Raycast", R"({"scene_id": "nowhere", "query": {"direction": {"x": 1},
         "max_distance": 1}})",
       absl::StatusCode::kNotFound, "scene_id: no scene 'nowhere'"},
      {"Raycast", R"({"scene_id": "arena", "query": {"max_distance": 1}})",
       absl::StatusCode::kInvalidArgument, "query.direction: zero length"},
      {"Raycast", R"({"scene_id": "arena", "query": {"direction": {"x": 1},
         "max_distance": "Infinity"}})",
       absl::StatusCode::kInvalidArgument, "query.max_distance: not finite"},
      {"Raycast", R"({"scene_id": "arena", "query": {"direction": {"x": 1,
         "z": 1}, "max_distance": 1}})",
       absl::StatusCode::kInvalidArgument,
       "query.direction.z: must be 0 in 2D"},
      {"Overlap", R"({"scene_id": "arena", "query": {"shape": {"circle":
         {"radius": "NaN"}}}})",
       absl::StatusCode::kInvalidArgument, "query.shape.circle.radius"},
      {"Overlap", R"({"scene_id": "arena", "query": {}})",
       absl::StatusCode::kInvalidArgument, "query.shape.kind"},
      {"Overlap", R"({"scene_id": "space", "query": {"shape": {"mesh": {
         "vertices": [{}, {"x": 1}, {"y": 1}], "indices": [0, 1, 2]}}}})",
       absl::StatusCode::kInvalidArgument,
       "query.shape.mesh: a mesh cannot be a query shape"},
      {"Contacts", R"({"scene_id": "arena", "query": {"shape": {"sphere":
         {"radius": 1}}}})",
       absl::StatusCode::kInvalidArgument, "query.shape"},
      {"Contacts", R"({"scene_id": "space", "query": {"shape": {"sphere":
         {"radius": 1}}, "pose": {"orientation": {"w": 2}}}})",
       absl::StatusCode::kInvalidArgument, "query.pose.orientation"},
      {"Sweep", R"({"scene_id": "arena", "query": {"shape": {"circle":
         {"radius": 1}}, "displacement": {"x": 2e6}}})",
       absl::StatusCode::kInvalidArgument,
       "query.displacement.x: out of range"},
      {"PointQuery", R"({"scene_id": "arena", "query": {},
         "options": {"max_hits": 101}})",
       absl::StatusCode::kResourceExhausted, "options.max_hits: at most 100"},
      {"PointQuery", R"({"scene_id": "arena", "query": {},
         "options": {"rewind": {"tick": 0, "fraction": 1}}})",
       absl::StatusCode::kInvalidArgument,
       "options.rewind.fraction: must be in [0, 1)"},
      {"PointQuery", R"({"scene_id": "arena", "query": {},
         "options": {"rewind": {"tick": -1}}})",
       absl::StatusCode::kInvalidArgument, "options.rewind.tick: must be >= 0"},
      {"PointQuery", R"({"scene_id": "arena", "query": {},
         "options": {"rewind": {"tick": 1000}}})",
       absl::StatusCode::kOutOfRange, "options.rewind.tick: 1000 is newer"},
      {"QueryBatch", R"({"scene_id": "nowhere", "queries": [{"point": {}}]})",
       absl::StatusCode::kNotFound, "scene_id: no scene 'nowhere'"},
  };
  const std::string reference_json = R"({"scene_id": "arena", "query": {
      "direction": {"x": 1}, "max_distance": 100}, "options": {"mode":
      "RESULT_MODE_ALL"}})";
  absl::StatusOr<std::string> before =
      client_->CallJson(absl::StrCat(kQueryService, "Raycast"), reference_json);
  ASSERT_TRUE(before.ok()) << before.status();
  for (const BadCall& bad : cases) {
    absl::StatusOr<std::string> answer =
        client_->CallJson(absl::StrCat(kQueryService, bad.rpc), bad.json);
    EXPECT_EQ(answer.status().code(), bad.code) << bad.json << "\n"
                                                << answer.status();
    EXPECT_THAT(std::string(answer.status().message()),
                StartsWith(bad.message_prefix))
        << bad.json;
  }
  // Nothing changed, and satord still answers the same.
  absl::StatusOr<std::string> after =
      client_->CallJson(absl::StrCat(kQueryService, "Raycast"), reference_json);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(*after, *before);
}

// Every RPC that names a scene checks its id the same way: empty, over 128
// characters, or with a character outside [A-Za-z0-9._-] is
// INVALID_ARGUMENT "scene_id: ...", and the answer never carries the id
// back (a 20,000-character id would not fit gRPC's metadata limit).
TEST_F(QueryEndToEnd, MalformedSceneIdsAreInvalidArgumentInEveryRpc) {
  const std::string over_long(129, 'a');
  const std::string huge(20000, 'b');
  struct Id {
    std::string id;
    std::string message_prefix;
  };
  const std::vector<Id> ids = {
      {"", "scene_id: must be 1 to 128 characters, got 0"},
      {over_long, "scene_id: must be 1 to 128 characters, got 129"},
      {huge, "scene_id: must be 1 to 128 characters, got 20000"},
      {"a b", "scene_id: character 1 is not one of [A-Za-z0-9._-]"},
  };
  // Each method with the JSON of a request that is valid but for its id
  // (`%` stands for the id); CreateScene and ImportScene take an empty id
  // as a request for a server-assigned one, so they are tried with the
  // others only.
  struct Rpc {
    std::string method;
    std::string json;
    bool empty_id_assigns;
  };
  const std::vector<Rpc> rpcs = {
      {"sator.v1.SceneService/CreateScene",
       R"({"scene_id": "%", "settings": {"dimension": "DIMENSION_2D"}})", true},
      {"sator.v1.SceneService/ImportScene",
       R"({"snapshot": {"scene_id": "%", "settings": {"dimension":
           "DIMENSION_2D"}}})",
       true},
      {"sator.v1.SceneService/GetScene", R"({"scene_id": "%"})", false},
      {"sator.v1.SceneService/ExportScene", R"({"scene_id": "%"})", false},
      {"sator.v1.SceneService/DeleteScene", R"({"scene_id": "%"})", false},
      {"sator.v1.BodyService/UpsertBodies", R"({"scene_id": "%", "bodies": [
           {"body_id": 9, "shape": {"circle": {"radius": 1}},
            "motion_type": "MOTION_TYPE_STATIC"}]})",
       false},
      {"sator.v1.BodyService/RemoveBodies",
       R"({"scene_id": "%", "body_ids": [1]})", false},
      {"sator.v1.BodyService/UpdatePoses", R"({"scene_id": "%", "tick": 1,
           "poses": {"body_ids": [2], "positions": [0, 0], "rotations": [0]}})",
       false},
      {"sator.v1.QueryService/Overlap", R"({"scene_id": "%", "query":
           {"shape": {"circle": {"radius": 1}}}})",
       false},
      {"sator.v1.QueryService/Contacts", R"({"scene_id": "%", "query":
           {"shape": {"circle": {"radius": 1}}}})",
       false},
      {"sator.v1.QueryService/Sweep", R"({"scene_id": "%", "query":
           {"shape": {"circle": {"radius": 1}}, "displacement": {"x": 1}}})",
       false},
      {"sator.v1.QueryService/Raycast", R"({"scene_id": "%", "query":
           {"direction": {"x": 1}, "max_distance": 1}})",
       false},
      {"sator.v1.QueryService/PointQuery", R"({"scene_id": "%", "query": {}})",
       false},
      {"sator.v1.QueryService/QueryBatch",
       R"({"scene_id": "%", "queries": [{"point": {}}]})", false},
      {"sator.v1.QueryService/RaycastBatch", R"({"scene_id": "%",
           "dimension": "DIMENSION_2D", "origins": [0, 0], "directions": [1, 0], "max_distances": [1]})",
       false},
  };
  for (const Rpc& rpc : rpcs) {
    for (const Id& id : ids) {
      if (id.id.empty() && rpc.empty_id_assigns) continue;
      SCOPED_TRACE(absl::StrCat(rpc.method, " with an id of ", id.id.size(),
                                " characters"));
      std::string json = rpc.json;
      json.replace(json.find('%'), 1, id.id);
      absl::StatusOr<std::string> answer = client_->CallJson(rpc.method, json);
      EXPECT_EQ(answer.status().code(), absl::StatusCode::kInvalidArgument)
          << answer.status().ToString().substr(0, 300);
      const std::string message(answer.status().message());
      // ImportScene names the id inside its snapshot.
      EXPECT_THAT(message, StartsWith(absl::StrCat(
                               rpc.method == "sator.v1.SceneService/ImportScene"
                                   ? "snapshot."
                                   : "",
                               id.message_prefix)));
      EXPECT_LT(message.size(), 200u);
    }
  }
  // The connection is still good, and nothing was created.
  absl::StatusOr<std::string> listed =
      client_->CallJson("sator.v1.SceneService/ListScenes", "{}");
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_THAT(*listed, HasSubstr("arena"));
  EXPECT_THAT(*listed, ::testing::Not(HasSubstr("scene-")));
}

TEST_F(QueryEndToEnd, RewindAndHistory) {
  // A private scene: its ticks are this test's own.
  ASSERT_TRUE(client_
                  ->CallJson("sator.v1.SceneService/CreateScene",
                             R"({"scene_id": "rewind", "settings": {
                                 "dimension": "DIMENSION_2D", "history_ticks": 4}})")
                  .ok());
  ASSERT_TRUE(client_
                  ->CallJson("sator.v1.BodyService/UpsertBodies",
                             R"({"scene_id": "rewind", "bodies": [
                                 {"body_id": 2, "shape": {"circle": {"radius": 1}},
                                  "pose": {"position": {"x": 10}},
                                  "motion_type": "MOTION_TYPE_DYNAMIC"}]})")
                  .ok());
  for (int tick = 1; tick <= 6; ++tick) {
    absl::StatusOr<std::string> moved = client_->CallJson(
        "sator.v1.BodyService/UpdatePoses",
        absl::StrCat(R"({"scene_id": "rewind", "tick": )", tick,
                     R"(, "poses": {"body_ids": [2], "positions": [)",
                     10 + tick, R"(, 0], "rotations": [0]}})"));
    ASSERT_TRUE(moved.ok()) << moved.status();
  }
  // History of 4 ticks: 3 to 6. At tick 4 + 0.5 the circle is at 14.5.
  absl::StatusOr<sator::v1::QueryResult> rewound = Query("Raycast", R"({
      "scene_id": "rewind", "query": {"direction": {"x": 1},
      "max_distance": 100}, "options": {"rewind": {"tick": 4,
      "fraction": 0.5}}})");
  ASSERT_TRUE(rewound.ok()) << rewound.status();
  EXPECT_EQ(rewound->tick(), 4);
  EXPECT_NEAR(rewound->hits(0).distance(), 13.5f, 1e-4f);
  absl::StatusOr<sator::v1::QueryResult> now = Query("Raycast", R"({
      "scene_id": "rewind", "query": {"direction": {"x": 1},
      "max_distance": 100}})");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->tick(), 6);
  EXPECT_NEAR(now->hits(0).distance(), 15.0f, 1e-4f);
  absl::StatusOr<sator::v1::QueryResult> too_old = Query("Raycast", R"({
      "scene_id": "rewind", "query": {"direction": {"x": 1},
      "max_distance": 100}, "options": {"rewind": {"tick": 2}}})");
  EXPECT_EQ(too_old.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(too_old.status().message()),
              StartsWith("options.rewind.tick: 2 is older than the history"));
}

TEST_F(QueryEndToEnd, BatchLimitAndDeadline) {
  std::string queries;
  for (int i = 0; i < 51; ++i) {
    absl::StrAppend(
        &queries, i == 0 ? "" : ",",
        R"({"raycast": {"direction": {"x": 1}, "max_distance": 100}})");
  }
  absl::StatusOr<std::string> too_many = client_->CallJson(
      absl::StrCat(kQueryService, "QueryBatch"),
      absl::StrCat(R"({"scene_id": "arena", "queries": [)", queries, "]}"));
  EXPECT_EQ(too_many.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(too_many.status().message(), HasSubstr("--max_batch_queries"));

  // A batch that cannot finish in 1 ms: 50 overlap queries, each touching
  // all 5000 bodies of a crowded scene.
  ASSERT_TRUE(client_
                  ->CallJson("sator.v1.SceneService/CreateScene",
                             R"({"scene_id": "crowd", "settings": {
                                 "dimension": "DIMENSION_2D"}})")
                  .ok());
  std::string crowd;
  for (int i = 0; i < 5000; ++i) {
    absl::StrAppend(&crowd, i == 0 ? "" : ",", R"({"body_id": )", i + 1,
                    R"(, "shape": {"circle": {"radius": 1}}, "pose":
                    {"position": {"x": )",
                    i % 100, R"(, "y": )", i / 100,
                    R"(}}, "motion_type": "MOTION_TYPE_STATIC"})");
  }
  ASSERT_TRUE(
      client_
          ->CallJson(
              "sator.v1.BodyService/UpsertBodies",
              absl::StrCat(R"({"scene_id": "crowd", "bodies": [)", crowd, "]}"))
          .ok());
  std::string wide;
  for (int i = 0; i < 50; ++i) {
    absl::StrAppend(&wide, i == 0 ? "" : ",",
                    R"({"options": {"mode": "RESULT_MODE_ALL", "max_hits": 100},
                        "overlap": {"shape": {"box2d": {"half_extents":
                        {"x": 60, "y": 60}}}, "pose": {"position": {"x": 50,
                        "y": 25}}}})");
  }
  absl::StatusOr<std::string> late = client_->CallJson(
      absl::StrCat(kQueryService, "QueryBatch"),
      absl::StrCat(R"({"scene_id": "crowd", "queries": [)", wide, "]}"),
      {.deadline = absl::Milliseconds(1)});
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  // The same batch with time to spare answers.
  absl::StatusOr<std::string> in_time = client_->CallJson(
      absl::StrCat(kQueryService, "QueryBatch"),
      absl::StrCat(R"({"scene_id": "crowd", "queries": [)", wide, "]}"));
  EXPECT_TRUE(in_time.ok()) << in_time.status();
}

TEST_F(QueryEndToEnd, QueriesAreCountedInTheMetrics) {
  ASSERT_TRUE(Query("PointQuery", R"({"scene_id": "space", "query": {},
      "options": {"mode": "RESULT_MODE_ANY"}})")
                  .ok());
  absl::StatusOr<std::string> scrape =
      ::sator::testing::HttpGet(satord_->metrics_port(), "/metrics");
  ASSERT_TRUE(scrape.ok()) << scrape.status();
  const std::string key =
      "\nsator_query_seconds_count{kind=\"point\",mode=\"any\"} ";
  const std::size_t at = scrape->find(key);
  ASSERT_NE(at, std::string::npos) << *scrape;
  EXPECT_GE(std::stoll(scrape->substr(at + key.size())), 1);
}

}  // namespace
}  // namespace sator
