// sator::Client's scene queries against the real satord: each kind (overlap,
// contacts, sweep, raycast, point) on a small 2D scene whose answers are known
// by hand, filters and result modes, rewinding to past ticks (through
// QueryOptions and through CallOptions), QueryBatch with a bad entry, async
// calls, a 3D raycast onto a mesh, the packed RaycastBatch (answers, the
// same hits as one Raycast per ray, every refusal) and the documented
// errors.
#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using client::Dimension;
using client::MotionType;
using client::QueryOptions;
using client::QueryResult;
using client::ResultMode;
using ::sator::testing::SatordProcess;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

auto Violation(const std::string& field, const std::string& description) {
  return AllOf(Field(&FieldViolation::field, field),
               Field(&FieldViolation::description, description));
}

constexpr float kTolerance = 1e-4f;

std::vector<std::uint64_t> Ids(const QueryResult& result) {
  std::vector<std::uint64_t> ids;
  for (const client::Hit& hit : result.hits) ids.push_back(hit.body_id);
  return ids;
}

// A 2D scene "s" at tick 0: a static floor (box) under y = 0 and two dynamic
// discs of radius 0.5 centred at (0, 1) (id 10) and (3, 1) (id 11, user data
// 7). Ticks 1 and 2 lift disc 10 to (0, 5) and (0, 9).
class ClientQueryEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(satord_.Start({}).ok()) << satord_.ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = satord_.grpc_target()});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    ASSERT_TRUE(client_
                    ->CreateScene(
                        "s", {.dimension = Dimension::k2D, .history_ticks = 8})
                    .ok());
    ASSERT_TRUE(client_
                    ->UpsertBodies("s", {{.id = 1,
                                          .shape = Box2{{10, 1}},
                                          .pose = Pose2{{0, -1}, {}},
                                          .motion = MotionType::kStatic},
                                         {.id = 10,
                                          .shape = Circle{0.5f},
                                          .pose = Pose2{{0, 1}, {}}},
                                         {.id = 11,
                                          .shape = Circle{0.5f},
                                          .pose = Pose2{{3, 1}, {}},
                                          .user_data = 7}})
                    .ok());
  }

  void Lift() {
    for (std::int64_t tick : {1, 2}) {
      client::PoseBatch poses;
      poses.Add(10, Pose2{{0, 1.0f + 4.0f * static_cast<float>(tick)}, {}});
      poses.Add(11, Pose2{{3, 1}, {}});
      ASSERT_TRUE(client_->UpdatePoses("s", tick, poses).ok());
    }
  }

  SatordProcess satord_;
  std::optional<Client> client_;
};

TEST_F(ClientQueryEndToEnd, RaycastFindsBothDiscsInOrderAndHonoursExclusions) {
  const client::RaycastQuery ray{
      .origin = Vec2{-5, 1}, .direction = Vec2{1, 0}, .max_distance = 20};
  QueryOptions all;
  all.mode = ResultMode::kAll;
  absl::StatusOr<QueryResult> result = client_->Raycast("s", ray, all);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->tick, 0);
  ASSERT_THAT(Ids(*result), ::testing::ElementsAre(10u, 11u));
  EXPECT_NEAR(result->hits[0].distance, 4.5f, kTolerance);
  EXPECT_NEAR(result->hits[0].normal.x, -1.0f, kTolerance);
  EXPECT_NEAR(result->hits[0].point.x, -0.5f, kTolerance);
  EXPECT_NEAR(result->hits[1].distance, 7.5f, kTolerance);
  EXPECT_EQ(result->hits[1].user_data, 7u);
  EXPECT_GT(result->stats.node_visits, 0u);

  QueryOptions closest;
  closest.filter.exclude_body_ids = {10};
  result = client_->Raycast("s", ray, closest);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ids(*result), ::testing::ElementsAre(11u));

  QueryOptions static_only;
  static_only.filter.motion = client::MotionFilter::kStaticOnly;
  result = client_->Raycast(
      "s", {.origin = Vec2{3, 5}, .direction = Vec2{0, -1}, .max_distance = 10},
      static_only);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ids(*result), ::testing::ElementsAre(1u));
  EXPECT_NEAR(result->hits[0].distance, 5.0f, kTolerance);
}

TEST_F(ClientQueryEndToEnd, OverlapContactsSweepAndPoint) {
  absl::StatusOr<QueryResult> overlap = client_->Overlap(
      "s", {.shape = Circle{0.6f}, .pose = Pose2{{0, 1.2f}, {}}});
  ASSERT_TRUE(overlap.ok()) << overlap.status();
  EXPECT_THAT(Ids(*overlap), ::testing::ElementsAre(10u));

  absl::StatusOr<QueryResult> contacts = client_->Contacts(
      "s", {.shape = Circle{0.5f}, .pose = Pose2{{0.8f, 1}, {}}});
  ASSERT_TRUE(contacts.ok()) << contacts.status();
  ASSERT_THAT(Ids(*contacts), ::testing::ElementsAre(10u));
  EXPECT_NEAR(contacts->hits[0].distance, 0.2f, kTolerance);
  EXPECT_NEAR(contacts->hits[0].normal.x, 1.0f, kTolerance);
  EXPECT_NEAR(contacts->depenetration.x, 0.2f, kTolerance);

  absl::StatusOr<QueryResult> sweep =
      client_->Sweep("s", {.shape = Circle{0.5f},
                           .pose = Pose2{{-5, 1}, {}},
                           .displacement = Vec2{10, 0}});
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  ASSERT_THAT(Ids(*sweep), ::testing::ElementsAre(10u));
  EXPECT_NEAR(sweep->hits[0].distance, 0.4f, kTolerance);

  absl::StatusOr<QueryResult> point =
      client_->AsyncPointQuery("s", {.point = Vec2{3, 1.2f}}).get();
  ASSERT_TRUE(point.ok()) << point.status();
  ASSERT_THAT(Ids(*point), ::testing::ElementsAre(11u));
  EXPECT_EQ(point->hits[0].user_data, 7u);
}

TEST_F(ClientQueryEndToEnd, RewindSeesThePastThroughEitherOption) {
  Lift();
  const client::RaycastQuery low{
      .origin = Vec2{-5, 1}, .direction = Vec2{1, 0}, .max_distance = 4.9f};
  absl::StatusOr<QueryResult> now = client_->Raycast("s", low);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(now->tick, 2);
  EXPECT_TRUE(now->hits.empty());

  QueryOptions at_zero;
  at_zero.rewind = client::Rewind{.tick = 0};
  absl::StatusOr<QueryResult> then = client_->Raycast("s", low, at_zero);
  ASSERT_TRUE(then.ok()) << then.status();
  EXPECT_EQ(then->tick, 0);
  EXPECT_THAT(Ids(*then), ::testing::ElementsAre(10u));

  // Halfway between ticks 0 and 1 disc 10 is at (0, 3); CallOptions::rewind
  // overrides the query's own.
  absl::StatusOr<QueryResult> halfway = client_->Raycast(
      "s", {.origin = Vec2{-5, 3}, .direction = Vec2{1, 0}, .max_distance = 10},
      at_zero, {.rewind = client::Rewind{.tick = 0, .fraction = 0.5f}});
  ASSERT_TRUE(halfway.ok()) << halfway.status();
  EXPECT_THAT(Ids(*halfway), ::testing::ElementsAre(10u));

  QueryOptions future;
  future.rewind = client::Rewind{.tick = 5};
  EXPECT_EQ(client_->Raycast("s", low, future).status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST_F(ClientQueryEndToEnd, BatchAnswersEachQueryWithItsOwnStatus) {
  Lift();
  absl::StatusOr<std::vector<client::BatchEntry>> entries = client_->QueryBatch(
      "s",
      {{.kind = client::PointQuery{.point = Vec2{3, 1}}},
       {.kind = client::RaycastQuery{.origin = Vec2{0, 0},
                                     .direction = Vec2{0, 0},
                                     .max_distance = 1}},
       {.kind = client::OverlapQuery{.shape = Circle{0.5f},
                                     .pose = Pose2{{0, 1}, {}}}}},
      {.rewind = client::Rewind{.tick = 0}});
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 3u);
  ASSERT_TRUE((*entries)[0].ok()) << (*entries)[0].status();
  EXPECT_THAT(Ids(*(*entries)[0]), ::testing::ElementsAre(11u));
  EXPECT_EQ((*entries)[1].status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string((*entries)[1].status().message()),
              HasSubstr("queries[1]"));
  EXPECT_TRUE((*entries)[1]
                  .status()
                  .GetPayload("type.googleapis.com/google.rpc.BadRequest")
                  .has_value());
  EXPECT_THAT(
      FieldViolations((*entries)[1].status()),
      ElementsAre(Violation("queries[1].raycast.direction", "zero length")));
  ASSERT_TRUE((*entries)[2].ok()) << (*entries)[2].status();
  EXPECT_EQ((*entries)[2]->tick, 0);
  EXPECT_THAT(Ids(*(*entries)[2]), ::testing::ElementsAre(10u));

  EXPECT_EQ(client_->QueryBatch("nowhere", {}).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ClientQueryEndToEnd, RaycastBatchAnswersEveryRayInOrder) {
  Lift();
  // Ray 0 along y = 1 meets disc 11 only at tick 2 (disc 10 was lifted);
  // ray 1 straight down onto the floor; ray 2 into empty sky.
  const std::vector<client::RaycastQuery> rays = {
      {.origin = Vec2{-5, 1}, .direction = Vec2{1, 0}, .max_distance = 20},
      {.origin = Vec2{6, 5}, .direction = Vec2{0, -2}, .max_distance = 10},
      {.origin = Vec2{-5, 30}, .direction = Vec2{1, 0}, .max_distance = 20}};
  QueryOptions all;
  all.mode = ResultMode::kAll;
  absl::StatusOr<client::RaycastBatchResult> batch =
      client_->RaycastBatch("s", rays, all);
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_EQ(batch->tick, 2);
  ASSERT_EQ(batch->ray_count(), 3u);
  ASSERT_EQ(batch->HitsOf(0).size(), 1u);
  EXPECT_EQ(batch->HitsOf(0)[0].body_id, 11u);
  EXPECT_EQ(batch->HitsOf(0)[0].user_data, 7u);
  EXPECT_NEAR(batch->HitsOf(0)[0].distance, 7.5f, kTolerance);
  EXPECT_NEAR(batch->HitsOf(0)[0].point.x, 2.5f, kTolerance);
  EXPECT_NEAR(batch->HitsOf(0)[0].normal.x, -1.0f, kTolerance);
  ASSERT_EQ(batch->HitsOf(1).size(), 1u);
  EXPECT_EQ(batch->HitsOf(1)[0].body_id, 1u);
  EXPECT_NEAR(batch->HitsOf(1)[0].distance, 5.0f, kTolerance);
  EXPECT_NEAR(batch->HitsOf(1)[0].normal.y, 1.0f, kTolerance);
  EXPECT_TRUE(batch->HitsOf(2).empty());

  // Rewound through CallOptions to tick 0, where disc 10 still stands in
  // front of disc 11; the options' filter applies to every ray.
  absl::StatusOr<client::RaycastBatchResult> past = client_->RaycastBatch(
      "s", rays, all, {.rewind = client::Rewind{.tick = 0}});
  ASSERT_TRUE(past.ok()) << past.status();
  EXPECT_EQ(past->tick, 0);
  ASSERT_EQ(past->HitsOf(0).size(), 2u);
  EXPECT_EQ(past->HitsOf(0)[0].body_id, 10u);
  EXPECT_EQ(past->HitsOf(0)[1].body_id, 11u);
  QueryOptions no_floor = all;
  no_floor.filter.motion = client::MotionFilter::kDynamicOnly;
  past = client_->RaycastBatch("s", rays, no_floor,
                               {.rewind = client::Rewind{.tick = 0}});
  ASSERT_TRUE(past.ok()) << past.status();
  EXPECT_EQ(past->HitsOf(0).size(), 2u);
  EXPECT_TRUE(past->HitsOf(1).empty());

  // Async, the same answer.
  std::future<absl::StatusOr<client::RaycastBatchResult>> later =
      client_->AsyncRaycastBatch("s", rays, all);
  absl::StatusOr<client::RaycastBatchResult> async = later.get();
  ASSERT_TRUE(async.ok()) << async.status();
  EXPECT_EQ(async->offsets, batch->offsets);
}

// The callback form over gRPC's callback API: each completion runs once
// with its call's answer (or error), and destroying the client waits for
// the calls still in flight.
TEST_F(ClientQueryEndToEnd, CallbacksRunOnceEachAndTheClientWaitsForThem) {
  struct Answers {
    std::mutex mutex;
    std::vector<float> distances;
    std::vector<absl::Status> errors;
    int completions = 0;
  } answers;
  constexpr int kRays = 64;
  {
    std::optional<Client> client;
    client.emplace(ClientOptions{.target = satord_.grpc_target()});
    ASSERT_TRUE(client->connection()->HasAsyncCalls());
    for (int i = 0; i < kRays; ++i) {
      client->AsyncRaycast(
          "s",
          {.origin = Vec2{-5.0f - static_cast<float>(i), 1},
           .direction = Vec2{1, 0},
           .max_distance = 100},
          {.mode = ResultMode::kClosest}, {},
          [&answers](absl::StatusOr<QueryResult> result) {
            const std::lock_guard<std::mutex> lock(answers.mutex);
            ++answers.completions;
            if (!result.ok() || result->hits.size() != 1 ||
                result->hits[0].body_id != 10) {
              answers.errors.push_back(result.status());
              return;
            }
            answers.distances.push_back(result->hits[0].distance);
          });
    }
    client->AsyncGetScene(
        "nowhere", {}, [&answers](absl::StatusOr<client::SceneInfo> info) {
          const std::lock_guard<std::mutex> lock(answers.mutex);
          ++answers.completions;
          answers.errors.push_back(info.status());
        });
    // Refused before anything is sent, through the same callback.
    client->AsyncRaycast(
        "s", {.origin = Vec2{0, 0}, .direction = Vec2{0, 0}}, {}, {},
        [&answers](absl::StatusOr<QueryResult> result) {
          const std::lock_guard<std::mutex> lock(answers.mutex);
          ++answers.completions;
          answers.errors.push_back(result.status());
        });
  }  // The client is destroyed here, with calls possibly in flight.
  const std::lock_guard<std::mutex> lock(answers.mutex);
  EXPECT_EQ(answers.completions, kRays + 2);
  ASSERT_EQ(answers.distances.size(), static_cast<std::size_t>(kRays));
  std::sort(answers.distances.begin(), answers.distances.end());
  for (int i = 0; i < kRays; ++i) {
    EXPECT_NEAR(answers.distances[static_cast<std::size_t>(i)],
                4.5f + static_cast<float>(i), kTolerance);
  }
  ASSERT_EQ(answers.errors.size(), 2u);
  std::vector<absl::StatusCode> codes = {answers.errors[0].code(),
                                         answers.errors[1].code()};
  std::sort(codes.begin(), codes.end());
  EXPECT_EQ(codes[0], absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(codes[1], absl::StatusCode::kNotFound);
}

// A connection's destructor waits for its async calls: the last reference
// to a channel is then never dropped on one of gRPC's callback threads.
TEST_F(ClientQueryEndToEnd, DroppingAConnectionWaitsForItsCallsInFlight) {
  constexpr int kCalls = 32;
  std::mutex mutex;
  int answered = 0;
  {
    absl::StatusOr<std::shared_ptr<client::Connection>> connection =
        client::MakeConnection({.target = satord_.grpc_target()});
    ASSERT_TRUE(connection.ok()) << connection.status();
    ASSERT_TRUE((*connection)->HasAsyncCalls());
    for (int i = 0; i < kCalls; ++i) {
      (*connection)
          ->AsyncGetScene("s", {}, [&](absl::StatusOr<client::SceneInfo> info) {
            const std::lock_guard<std::mutex> lock(mutex);
            if (info.ok()) ++answered;
          });
    }
  }  // The only reference is dropped here, with the calls in flight.
  const std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(answered, kCalls);
}

// Through the real server and back, each ray of a RaycastBatch gives what
// a Raycast of its own gives, on a 3D scene of random boxes.
TEST_F(ClientQueryEndToEnd, RaycastBatchMatchesOneRaycastPerRay) {
  ASSERT_TRUE(
      client_->CreateScene("boxes", {.dimension = Dimension::k3D}).ok());
  std::mt19937_64 random(5);
  std::uniform_real_distribution<float> coord(0.0f, 50.0f);
  std::uniform_real_distribution<float> half(0.3f, 2.0f);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<client::Body> bodies;
  for (std::uint64_t id = 1; id <= 400; ++id) {
    bodies.push_back(
        {.id = id,
         .shape = Box3{{half(random), half(random), half(random)}},
         .pose = Pose3{{coord(random), coord(random), coord(random)}, {}},
         .motion = MotionType::kStatic,
         .user_data = id + 1000});
  }
  ASSERT_TRUE(client_->UpsertBodies("boxes", bodies).ok());
  std::vector<client::RaycastQuery> rays;
  for (int i = 0; i < 300; ++i) {
    rays.push_back(
        {.origin = Vec3{coord(random), coord(random), coord(random)},
         .direction = Vec3{unit(random), unit(random), unit(random) + 0.01f},
         .max_distance = 40.0f});
  }
  QueryOptions options;
  options.mode = ResultMode::kAll;
  options.max_hits = 4;
  absl::StatusOr<client::RaycastBatchResult> batch =
      client_->RaycastBatch("boxes", rays, options);
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_EQ(batch->ray_count(), rays.size());
  std::size_t hits = 0;
  for (std::size_t i = 0; i < rays.size(); ++i) {
    SCOPED_TRACE(i);
    absl::StatusOr<QueryResult> one =
        client_->Raycast("boxes", rays[i], options);
    ASSERT_TRUE(one.ok()) << one.status();
    const absl::Span<const client::Hit> packed = batch->HitsOf(i);
    ASSERT_EQ(packed.size(), one->hits.size());
    for (std::size_t h = 0; h < packed.size(); ++h) {
      EXPECT_EQ(packed[h].body_id, one->hits[h].body_id);
      EXPECT_EQ(packed[h].user_data, one->hits[h].user_data);
      EXPECT_EQ(packed[h].distance, one->hits[h].distance);
      EXPECT_EQ(packed[h].point.x, one->hits[h].point.x);
      EXPECT_EQ(packed[h].point.y, one->hits[h].point.y);
      EXPECT_EQ(packed[h].point.z, one->hits[h].point.z);
      EXPECT_EQ(packed[h].normal.x, one->hits[h].normal.x);
      EXPECT_EQ(packed[h].normal.y, one->hits[h].normal.y);
      EXPECT_EQ(packed[h].normal.z, one->hits[h].normal.z);
      EXPECT_EQ(packed[h].feature, one->hits[h].feature);
      EXPECT_EQ(packed[h].started_inside, one->hits[h].started_inside);
    }
    hits += packed.size();
  }
  EXPECT_GT(hits, rays.size() / 10);
}

TEST_F(ClientQueryEndToEnd, RaycastBatchRefusals) {
  const client::RaycastQuery good{
      .origin = Vec2{0, 5}, .direction = Vec2{0, -1}, .max_distance = 10};
  // The server names the array element of the bad ray.
  absl::StatusOr<client::RaycastBatchResult> bad = client_->RaycastBatch(
      "s",
      {good,
       {.origin = Vec2{0, 5}, .direction = Vec2{0, 0}, .max_distance = 1}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("directions[2..3]: zero length"));
  EXPECT_TRUE(bad.status()
                  .GetPayload("type.googleapis.com/google.rpc.BadRequest")
                  .has_value());
  EXPECT_THAT(FieldViolations(bad.status()),
              ElementsAre(Violation("directions[2..3]", "zero length")));
  bad = client_->RaycastBatch(
      "s",
      {good,
       {.origin = Vec2{0, 5}, .direction = Vec2{1, 0}, .max_distance = -2}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("max_distances[1]: must be in (0"));
  // 3D rays to the 2D scene.
  bad = client_->RaycastBatch("s", {{.origin = Vec3{0, 5, 0},
                                     .direction = Vec3{0, -1, 0},
                                     .max_distance = 10}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("dimension: the rays are 3D but scene s is 2D"));
  // Mixed dimensions and an empty batch are refused before sending.
  bad = client_->RaycastBatch("s", {good,
                                    {.origin = Vec3{0, 5, 0},
                                     .direction = Vec3{0, -1, 0},
                                     .max_distance = 10}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("rays[1].origin: a 3D vector among 2D rays"));
  EXPECT_EQ(client_->RaycastBatch("s", {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(client_->RaycastBatch("nowhere", {good}).status().code(),
            absl::StatusCode::kNotFound);
  QueryOptions future;
  future.rewind = client::Rewind{.tick = 5};
  bad = client_->RaycastBatch("s", {good}, future);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("options.rewind"));
}

TEST(ClientQueryLimits, RaycastBatchOverTheLimitIsResourceExhausted) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({"--max_batch_queries=3"}).ok()) << satord.ReadLog();
  absl::StatusOr<Client> client = Client::Make(
      {.target = satord.grpc_target(), .retry = {.max_attempts = 1}});
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(client->CreateScene("s", {.dimension = Dimension::k2D}).ok());
  const client::RaycastQuery ray{
      .origin = Vec2{0, 5}, .direction = Vec2{0, -1}, .max_distance = 10};
  EXPECT_TRUE(client->RaycastBatch("s", {ray, ray, ray}).ok());
  absl::StatusOr<client::RaycastBatchResult> over =
      client->RaycastBatch("s", {ray, ray, ray, ray});
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(
      std::string(over.status().message()),
      HasSubstr("at most 3 rays per batch (--max_batch_queries), got 4"));
}

TEST_F(ClientQueryEndToEnd, ErrorsKeepTheServersCodeAndFieldPath) {
  EXPECT_EQ(
      client_->PointQuery("nowhere", {.point = Vec2{0, 0}}).status().code(),
      absl::StatusCode::kNotFound);
  absl::StatusOr<QueryResult> zero = client_->Raycast(
      "s", {.origin = Vec2{0, 0}, .direction = Vec2{0, 0}, .max_distance = 1});
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(zero.status().message()), HasSubstr("direction"));
  // The server's google.rpc.BadRequest detail, kept as the status's payload.
  EXPECT_TRUE(zero.status()
                  .GetPayload("type.googleapis.com/google.rpc.BadRequest")
                  .has_value());
  EXPECT_THAT(FieldViolations(zero.status()),
              ElementsAre(Violation("query.direction", "zero length")));
  EXPECT_THAT(FieldViolations(client_->PointQuery("nowhere", {}).status()),
              IsEmpty());
  // A 3D shape in a 2D scene.
  EXPECT_EQ(client_->Overlap("s", {.shape = Sphere{1}, .pose = Pose3{}})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ClientQueryEndToEnd, RaycastOntoAMeshIn3D) {
  ASSERT_TRUE(
      client_->CreateScene("level", {.dimension = Dimension::k3D}).ok());
  absl::StatusOr<std::shared_ptr<const TriangleMesh>> floor =
      MakeTriangleMesh({{-10, 0, -10}, {10, 0, -10}, {10, 0, 10}, {-10, 0, 10}},
                       {0, 2, 1, 0, 3, 2});
  ASSERT_TRUE(floor.ok()) << floor.status();
  ASSERT_TRUE(client_
                  ->UpsertBodies("level", {{.id = 1,
                                            .shape = Shape3(*floor),
                                            .pose = Pose3{},
                                            .motion = MotionType::kStatic}})
                  .ok());
  absl::StatusOr<QueryResult> hit =
      client_->Raycast("level", {.origin = Vec3{1, 5, 2},
                                 .direction = Vec3{0, -1, 0},
                                 .max_distance = 10});
  ASSERT_TRUE(hit.ok()) << hit.status();
  ASSERT_THAT(Ids(*hit), ::testing::ElementsAre(1u));
  EXPECT_NEAR(hit->hits[0].distance, 5.0f, kTolerance);
  EXPECT_NEAR(hit->hits[0].point.x, 1.0f, kTolerance);
  EXPECT_NEAR(hit->hits[0].point.z, 2.0f, kTolerance);
  EXPECT_NEAR(hit->hits[0].normal.y, 1.0f, kTolerance);
}

TEST_F(ClientQueryEndToEnd, ALevelIn2DAnswersForItsOutline) {
  ASSERT_TRUE(
      client_->CreateScene("level2d", {.dimension = Dimension::k2D}).ok());
  // An L: the ground's top at y = 0 from x = 0 to 8, a wall up to y = 5.
  LevelDesc2 desc;
  desc.polygons.push_back(
      {{{0, -2}, {10, -2}, {10, 5}, {8, 5}, {8, 0}, {0, 0}}, {}});
  absl::StatusOr<std::shared_ptr<const Level2>> level = MakeLevel2(desc);
  ASSERT_TRUE(level.ok()) << level.status();
  ASSERT_TRUE(client_
                  ->UpsertBodies("level2d", {{.id = 1,
                                              .shape = Shape2(*level),
                                              .pose = Pose2{},
                                              .motion = MotionType::kStatic}})
                  .ok());
  absl::StatusOr<QueryResult> hit = client_->Raycast(
      "level2d",
      {.origin = Vec2{4, 3}, .direction = Vec2{0, -1}, .max_distance = 10});
  ASSERT_TRUE(hit.ok()) << hit.status();
  ASSERT_THAT(Ids(*hit), ::testing::ElementsAre(1u));
  EXPECT_NEAR(hit->hits[0].distance, 3.0f, kTolerance);
  EXPECT_EQ(hit->hits[0].feature, 4);  // The edge from outline[4] to [5].
  EXPECT_NEAR(hit->hits[0].normal.y, 1.0f, kTolerance);

  // A box sunk 0.1 into the ground is pushed up, wherever the pieces meet.
  absl::StatusOr<QueryResult> contacts = client_->Contacts(
      "level2d",
      {.shape = Box2{{0.5f, 0.5f}}, .pose = Pose2{{7.0f, 0.4f}, {}}});
  ASSERT_TRUE(contacts.ok()) << contacts.status();
  ASSERT_THAT(Ids(*contacts), ::testing::ElementsAre(1u));
  EXPECT_NEAR(contacts->hits[0].normal.y, 1.0f, kTolerance);
  EXPECT_NEAR(contacts->depenetration.y, 0.1f, kTolerance);

  // In the concave corner at (8, 0), 0.1 into the wall and the ground: with
  // every hit asked for, one per edge (the wall is edge 3, the ground edge
  // 4), and a push out of both.
  absl::StatusOr<QueryResult> corner = client_->Contacts(
      "level2d", {.shape = Box2{{0.5f, 0.5f}}, .pose = Pose2{{7.6f, 0.4f}, {}}},
      {.mode = ResultMode::kAll});
  ASSERT_TRUE(corner.ok()) << corner.status();
  ASSERT_THAT(Ids(*corner), ::testing::ElementsAre(1u, 1u));
  EXPECT_THAT((std::vector{corner->hits[0].feature, corner->hits[1].feature}),
              ::testing::UnorderedElementsAre(3, 4));
  EXPECT_NEAR(corner->depenetration.x, -0.1f, kTolerance);
  EXPECT_NEAR(corner->depenetration.y, 0.1f, kTolerance);

  absl::StatusOr<QueryResult> inside =
      client_->AsyncPointQuery("level2d", {.point = Vec2{9, 3}}).get();
  ASSERT_TRUE(inside.ok()) << inside.status();
  EXPECT_THAT(Ids(*inside), ::testing::ElementsAre(1u));
  absl::StatusOr<QueryResult> outside =
      client_->AsyncPointQuery("level2d", {.point = Vec2{4, 3}}).get();
  ASSERT_TRUE(outside.ok()) << outside.status();
  EXPECT_TRUE(outside->hits.empty());

  // Only a static body may be a level, and a level is no query shape.
  const absl::Status dynamic =
      client_
          ->UpsertBodies("level2d",
                         {{.id = 2, .shape = Shape2(*level), .pose = Pose2{}}})
          .status();
  EXPECT_EQ(dynamic.code(), absl::StatusCode::kInvalidArgument) << dynamic;
  absl::StatusOr<QueryResult> as_query =
      client_->Overlap("level2d", {.shape = Shape2(*level), .pose = Pose2{}});
  EXPECT_EQ(as_query.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sator
