// SceneQueries: every query kind against small scenes whose answers are
// worked out by hand, rewind, filters, errors with field paths, batches
// (order, one snapshot, per-entry status, limit, interruption) and the
// QueryRecord each query reports.
#include "server/scene_queries.h"

#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"
#include "support/batch_threads.h"
#include "support/text_proto.h"

namespace sator::server {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

template <typename Message>
Message Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<Message>(text);
}

template <int D>
scene::BodyDesc<D> Body(std::uint64_t id, scene::SceneShape<D> shape,
                        Vec<D> position, scene::MotionType motion) {
  scene::BodyDesc<D> body;
  body.id = id;
  body.shape = std::make_shared<const scene::SceneShape<D>>(std::move(shape));
  body.pose.position = position;
  body.motion = motion;
  body.user_data = id * 10;
  return body;
}

// The 2D scene "flat":
//   body 1: static box, half extents (1, 1), centred at (5, 0): x in [4, 6];
//   body 2: dynamic circle of radius 1 at (10, 0): x in [9, 11];
//   body 3: dynamic circle of radius 0.5 at (0, 5), layer 2.
// The 3D scene "space": body 1, a sphere of radius 1 at (0, 0, 5).
class SceneQueriesTest : public ::testing::Test {
 protected:
  SceneQueriesTest() : registry_(Limits()), queries_(registry_, {}) {}

  static SceneLimits Limits() {
    SceneLimits limits;
    limits.max_hits = 100;
    return limits;
  }

  void SetUp() override {
    HostedSceneSettings flat_settings;
    flat_settings.dimension = 2;
    flat_settings.history_ticks = 4;
    absl::StatusOr<std::shared_ptr<HostedScene>> flat =
        registry_.Create("flat", flat_settings);
    ASSERT_TRUE(flat.ok()) << flat.status();
    flat_ = *flat;
    scene::BodyDesc<2> small =
        Body<2>(3, Circle{0.5f}, {0, 5}, scene::MotionType::kDynamic);
    small.layer = 2;
    ASSERT_TRUE(
        flat_->scene2()
            ->UpsertBodies(
                {Body<2>(1, Box2{{1, 1}}, {5, 0}, scene::MotionType::kStatic),
                 Body<2>(2, Circle{1.0f}, {10, 0}, scene::MotionType::kDynamic),
                 small})
            .ok());

    HostedSceneSettings space_settings;
    space_settings.dimension = 3;
    absl::StatusOr<std::shared_ptr<HostedScene>> space =
        registry_.Create("space", space_settings);
    ASSERT_TRUE(space.ok()) << space.status();
    ASSERT_TRUE((*space)
                    ->scene3()
                    ->UpsertBodies({Body<3>(1, Sphere{1.0f}, {0, 0, 5},
                                            scene::MotionType::kDynamic)})
                    .ok());
  }

  // Moves body 2 of "flat" to (x, 0) at `tick`.
  void MoveCircle(std::int64_t tick, float x) {
    scene::PoseUpdate<2> update;
    update.id = 2;
    update.pose.position = {x, 0};
    ASSERT_TRUE(flat_->scene2()->UpdatePoses(tick, {update}).ok());
  }

  SceneRegistry registry_;
  SceneQueries queries_;
  std::shared_ptr<HostedScene> flat_;
};

TEST_F(SceneQueriesTest, RaycastHitsInDistanceOrder) {
  // Along +x from the origin: the box's face at x = 4, then the circle's
  // leftmost point at x = 9. The direction need not be unit length.
  absl::StatusOr<sator::v1::QueryResult> all =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
        scene_id: "flat"
        query {
          direction { x: 2 }
          max_distance: 100
        }
        options { mode: RESULT_MODE_ALL }
      )pb"));
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->hits_size(), 2);
  EXPECT_EQ(all->tick(), 0);
  EXPECT_EQ(all->hits(0).body_id(), 1u);
  EXPECT_EQ(all->hits(0).user_data(), 10u);
  EXPECT_NEAR(all->hits(0).distance(), 4.0f, 1e-5f);
  EXPECT_NEAR(all->hits(0).point().x(), 4.0f, 1e-5f);
  EXPECT_NEAR(all->hits(0).normal().x(), -1.0f, 1e-5f);
  EXPECT_FALSE(all->hits(0).started_inside());
  EXPECT_EQ(all->hits(1).body_id(), 2u);
  EXPECT_NEAR(all->hits(1).distance(), 9.0f, 1e-5f);
  EXPECT_GT(all->stats().node_visits(), 0u);

  // The default mode is the closest hit; excluding body 1 leaves body 2; a
  // ray too short for the box misses.
  absl::StatusOr<sator::v1::QueryResult> closest =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
        scene_id: "flat"
        query {
          direction { x: 1 }
          max_distance: 100
        }
      )pb"));
  ASSERT_TRUE(closest.ok());
  ASSERT_EQ(closest->hits_size(), 1);
  EXPECT_EQ(closest->hits(0).body_id(), 1u);
  absl::StatusOr<sator::v1::QueryResult> excluded =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
        scene_id: "flat"
        query {
          direction { x: 1 }
          max_distance: 100
        }
        options { filter { exclude_body_ids: 1 } }
      )pb"));
  ASSERT_EQ(excluded->hits_size(), 1);
  EXPECT_EQ(excluded->hits(0).body_id(), 2u);
  absl::StatusOr<sator::v1::QueryResult> short_ray =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
        scene_id: "flat"
        query {
          direction { x: 1 }
          max_distance: 3.9
        }
      )pb"));
  EXPECT_EQ(short_ray->hits_size(), 0);
}

TEST_F(SceneQueriesTest, FiltersSelectByLayerAndMotion) {
  // Up +y: only body 3 (layer 2) lies there; its bottom is at y = 4.5. A
  // query mask without bit 2 does not see it.
  absl::StatusOr<sator::v1::QueryResult> layered =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
        scene_id: "flat"
        query {
          direction { y: 1 }
          max_distance: 100
        }
        options { filter { mask: 2 } }
      )pb"));
  ASSERT_EQ(layered->hits_size(), 1);
  EXPECT_NEAR(layered->hits(0).distance(), 4.5f, 1e-5f);
  absl::StatusOr<sator::v1::QueryResult> masked =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
        scene_id: "flat"
        query {
          direction { y: 1 }
          max_distance: 100
        }
        options { filter { mask: 1 } }
      )pb"));
  EXPECT_EQ(masked->hits_size(), 0);

  absl::StatusOr<sator::v1::QueryResult> dynamic_only =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
        scene_id: "flat"
        query {
          direction { x: 1 }
          max_distance: 100
        }
        options {
          mode: RESULT_MODE_ALL
          filter { motion: MOTION_FILTER_DYNAMIC_ONLY }
        }
      )pb"));
  ASSERT_EQ(dynamic_only->hits_size(), 1);
  EXPECT_EQ(dynamic_only->hits(0).body_id(), 2u);
}

TEST_F(SceneQueriesTest, OverlapContactsSweepAndPoint) {
  // A circle of radius 1 at (3.5, 0) reaches x = 4.5: 0.5 into the box.
  absl::StatusOr<sator::v1::QueryResult> overlap =
      queries_.Overlap(Parse<sator::v1::OverlapRequest>(R"pb(
        scene_id: "flat"
        query {
          shape { circle { radius: 1 } }
          pose { position { x: 3.5 } }
        }
        options { mode: RESULT_MODE_ALL }
      )pb"));
  ASSERT_TRUE(overlap.ok()) << overlap.status();
  ASSERT_EQ(overlap->hits_size(), 1);
  EXPECT_EQ(overlap->hits(0).body_id(), 1u);

  // Its MTV: depth 0.5, normal out of the box towards the query (-x); the
  // depenetration of a single contact is normal * depth.
  absl::StatusOr<sator::v1::QueryResult> contacts =
      queries_.Contacts(Parse<sator::v1::ContactsRequest>(R"pb(
        scene_id: "flat"
        query {
          shape { circle { radius: 1 } }
          pose { position { x: 3.5 } }
        }
        options { mode: RESULT_MODE_ALL }
      )pb"));
  ASSERT_TRUE(contacts.ok()) << contacts.status();
  ASSERT_EQ(contacts->hits_size(), 1);
  EXPECT_NEAR(contacts->hits(0).distance(), 0.5f, 1e-5f);
  EXPECT_NEAR(contacts->hits(0).normal().x(), -1.0f, 1e-5f);
  EXPECT_NEAR(contacts->depenetration().x(), -0.5f, 1e-5f);
  EXPECT_NEAR(contacts->depenetration().y(), 0.0f, 1e-5f);

  // A circle of radius 0.5 from the origin moving 10 along +x touches the
  // box face x = 4 when its centre is at 3.5: fraction 0.35, at (4, 0).
  absl::StatusOr<sator::v1::QueryResult> sweep =
      queries_.Sweep(Parse<sator::v1::SweepRequest>(R"pb(
        scene_id: "flat"
        query {
          shape { circle { radius: 0.5 } }
          displacement { x: 10 }
        }
      )pb"));
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  ASSERT_EQ(sweep->hits_size(), 1);
  EXPECT_EQ(sweep->hits(0).body_id(), 1u);
  EXPECT_NEAR(sweep->hits(0).distance(), 0.35f, 1e-5f);
  EXPECT_NEAR(sweep->hits(0).point().x(), 4.0f, 1e-4f);
  EXPECT_NEAR(sweep->hits(0).normal().x(), -1.0f, 1e-5f);

  // A sweep starting inside the box says so, with the initial depth.
  absl::StatusOr<sator::v1::QueryResult> inside =
      queries_.Sweep(Parse<sator::v1::SweepRequest>(R"pb(
        scene_id: "flat"
        query {
          shape { circle { radius: 0.5 } }
          pose { position { x: 3.75 } }
          displacement { x: -1 }
        }
      )pb"));
  ASSERT_EQ(inside->hits_size(), 1);
  EXPECT_TRUE(inside->hits(0).started_inside());
  EXPECT_NEAR(inside->hits(0).distance(), 0.25f, 1e-5f);

  absl::StatusOr<sator::v1::QueryResult> point =
      queries_.PointQuery(Parse<sator::v1::PointQueryRequest>(R"pb(
        scene_id: "flat"
        query { point { x: 5 y: 0.5 } }
      )pb"));
  ASSERT_EQ(point->hits_size(), 1);
  EXPECT_EQ(point->hits(0).body_id(), 1u);
  absl::StatusOr<sator::v1::QueryResult> empty =
      queries_.PointQuery(Parse<sator::v1::PointQueryRequest>(R"pb(
        scene_id: "flat"
        query { point { x: 7 } }
      )pb"));
  EXPECT_EQ(empty->hits_size(), 0);
}

TEST_F(SceneQueriesTest, ThreeDimensionalRaycast) {
  absl::StatusOr<sator::v1::QueryResult> ray =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
        scene_id: "space"
        query {
          direction { z: 1 }
          max_distance: 10
        }
      )pb"));
  ASSERT_TRUE(ray.ok()) << ray.status();
  ASSERT_EQ(ray->hits_size(), 1);
  EXPECT_NEAR(ray->hits(0).distance(), 4.0f, 1e-5f);
  EXPECT_NEAR(ray->hits(0).normal().z(), -1.0f, 1e-5f);
  EXPECT_NEAR(ray->hits(0).point().z(), 4.0f, 1e-5f);
}

// The service writes answers straight into arena-allocated responses
// (arena_message_allocator.h): the same answers, and nothing written on
// error.
TEST_F(SceneQueriesTest, WritesAnswersIntoArenaMessages) {
  google::protobuf::Arena arena;
  auto* ray =
      google::protobuf::Arena::CreateMessage<sator::v1::QueryResult>(&arena);
  ASSERT_TRUE(queries_
                  .Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
                             scene_id: "space"
                             query {
                               direction { z: 1 }
                               max_distance: 10
                             }
                           )pb"),
                           ray)
                  .ok());
  ASSERT_EQ(ray->hits_size(), 1);
  EXPECT_EQ(ray->hits(0).GetArena(), &arena);
  EXPECT_NEAR(ray->hits(0).distance(), 4.0f, 1e-5f);
  EXPECT_NEAR(ray->hits(0).normal().z(), -1.0f, 1e-5f);

  auto* untouched =
      google::protobuf::Arena::CreateMessage<sator::v1::QueryResult>(&arena);
  const absl::Status bad =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
                         scene_id: "space"
                         query { max_distance: 10 }
                       )pb"),
                       untouched);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(untouched->ByteSizeLong(), 0u);

  const auto request = Parse<sator::v1::QueryBatchRequest>(R"pb(
    scene_id: "flat"
    queries {
      raycast {
        direction { x: 1 }
        max_distance: 100
      }
    }
    queries { raycast { max_distance: 100 } }
    queries { point { point { x: 10 } } }
  )pb");
  auto* batch =
      google::protobuf::Arena::CreateMessage<sator::v1::QueryBatchResponse>(
          &arena);
  ASSERT_TRUE(queries_.QueryBatch(request, 10, nullptr, batch).ok());
  ASSERT_EQ(batch->entries_size(), 3);
  EXPECT_EQ(batch->entries(0).result().hits(0).body_id(), 1u);
  EXPECT_NEAR(batch->entries(0).result().hits(0).distance(), 4.0f, 1e-5f);
  EXPECT_FALSE(batch->entries(1).has_result());
  EXPECT_EQ(batch->entries(1).status().message(),
            "queries[1].raycast.direction: zero length");
  EXPECT_EQ(batch->entries(2).result().hits(0).body_id(), 2u);
}

TEST_F(SceneQueriesTest, RewindAnswersFromThePast) {
  // Tick 0: circle at x = 10; tick 1: x = 20.
  MoveCircle(1, 20.0f);
  const auto ray = [&](const std::string& options) {
    return queries_.Raycast(Parse<sator::v1::RaycastRequest>(
        "scene_id: 'flat' query { origin { y: 0.0 x: 7 } direction { x: 1 } "
        "max_distance: 100 } " +
        options));
  };
  absl::StatusOr<sator::v1::QueryResult> now = ray("");
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(now->tick(), 1);
  EXPECT_NEAR(now->hits(0).distance(), 12.0f, 1e-4f);  // 19 - 7.

  absl::StatusOr<sator::v1::QueryResult> then =
      ray("options { rewind { tick: 0 } }");
  ASSERT_TRUE(then.ok()) << then.status();
  EXPECT_EQ(then->tick(), 0);
  EXPECT_NEAR(then->hits(0).distance(), 2.0f, 1e-4f);  // 9 - 7.

  // Halfway between the ticks the centre is at 15: the edge at 14.
  absl::StatusOr<sator::v1::QueryResult> halfway =
      ray("options { rewind { tick: 0 fraction: 0.5 } }");
  ASSERT_TRUE(halfway.ok()) << halfway.status();
  EXPECT_EQ(halfway->tick(), 0);
  EXPECT_NEAR(halfway->hits(0).distance(), 7.0f, 1e-4f);

  // The scene keeps 4 ticks: after tick 5, tick 1 is gone.
  MoveCircle(5, 20.0f);
  absl::StatusOr<sator::v1::QueryResult> too_old =
      ray("options { rewind { tick: 1 } }");
  EXPECT_EQ(too_old.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(too_old.status().message()),
              StartsWith("options.rewind.tick: 1 is older than the history"));
  absl::StatusOr<sator::v1::QueryResult> future =
      ray("options { rewind { tick: 6 } }");
  EXPECT_EQ(future.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(future.status().message()),
              StartsWith("options.rewind.tick"));
}

TEST_F(SceneQueriesTest, UnaryErrorsNameTheRequestsFields) {
  absl::StatusOr<sator::v1::QueryResult> unknown =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
        scene_id: "nope"
        query {
          direction { x: 1 }
          max_distance: 1
        }
      )pb"));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("scene_id"));

  absl::StatusOr<sator::v1::QueryResult> zero =
      queries_.Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
        scene_id: "flat"
        query { max_distance: 1 }
      )pb"));
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(zero.status().message(), "query.direction: zero length");

  absl::StatusOr<sator::v1::QueryResult> mesh =
      queries_.Overlap(Parse<sator::v1::OverlapRequest>(R"pb(
        scene_id: "space"
        query {
          shape {
            mesh {
              vertices {}
              vertices { x: 1 }
              vertices { y: 1 }
              indices: [ 0, 1, 2 ]
            }
          }
        }
      )pb"));
  EXPECT_EQ(mesh.status().message(),
            "query.shape.mesh: a mesh cannot be a query shape");

  absl::StatusOr<sator::v1::QueryResult> hits =
      queries_.PointQuery(Parse<sator::v1::PointQueryRequest>(R"pb(
        scene_id: "flat"
        options { max_hits: 101 }
      )pb"));
  EXPECT_EQ(hits.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(hits.status().message()),
              StartsWith("options.max_hits"));

  // A 3D shape against the 2D scene.
  absl::StatusOr<sator::v1::QueryResult> wrong_dimension =
      queries_.Contacts(Parse<sator::v1::ContactsRequest>(R"pb(
        scene_id: "flat"
        query { shape { sphere { radius: 1 } } }
      )pb"));
  EXPECT_EQ(wrong_dimension.status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong_dimension.status().message()),
              StartsWith("query.shape"));
}

TEST_F(SceneQueriesTest, BatchAnswersInOrderOnOneSnapshot) {
  MoveCircle(3, 10.0f);
  const auto request = Parse<sator::v1::QueryBatchRequest>(R"pb(
    scene_id: "flat"
    queries {
      raycast {
        direction { x: 1 }
        max_distance: 100
      }
    }
    queries { raycast { max_distance: 100 } }
    queries { point { point { x: 10 } } }
    queries {
      options { rewind { tick: 0 } }
      sweep {
        shape { circle { radius: 0.5 } }
        displacement { x: 10 }
      }
    }
    queries {}
  )pb");
  sator::v1::QueryBatchResponse response;
  ASSERT_TRUE(queries_.QueryBatch(request, 10, nullptr, &response).ok());
  ASSERT_EQ(response.entries_size(), 5);
  EXPECT_EQ(response.entries(0).status().code(), 0);
  EXPECT_EQ(response.entries(0).result().hits(0).body_id(), 1u);
  EXPECT_EQ(response.entries(0).result().tick(), 3);
  EXPECT_EQ(response.entries(1).status().code(),
            static_cast<int>(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(response.entries(1).status().message(),
            "queries[1].raycast.direction: zero length");
  EXPECT_FALSE(response.entries(1).has_result());
  EXPECT_EQ(response.entries(2).result().hits(0).body_id(), 2u);
  EXPECT_EQ(response.entries(2).result().tick(), 3);
  EXPECT_EQ(response.entries(3).result().tick(), 0);
  EXPECT_NEAR(response.entries(3).result().hits(0).distance(), 0.35f, 1e-5f);
  EXPECT_EQ(response.entries(4).status().message(),
            "queries[4].kind: no query kind is set");
}

TEST_F(SceneQueriesTest, BatchLimitsAndInterruption) {
  sator::v1::QueryBatchRequest request;
  request.set_scene_id("flat");
  for (int i = 0; i < 5; ++i) {
    request.add_queries()->mutable_point()->mutable_point()->set_x(5);
  }
  sator::v1::QueryBatchResponse response;
  const absl::Status too_many =
      queries_.QueryBatch(request, 4, nullptr, &response);
  EXPECT_EQ(too_many.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(too_many.message(), HasSubstr("at most 4"));
  EXPECT_THAT(too_many.message(), HasSubstr("got 5"));

  request.set_scene_id("gone");
  EXPECT_EQ(queries_.QueryBatch(request, 5, nullptr, &response).code(),
            absl::StatusCode::kNotFound);

  // Asked before every chunk of kBatchChunk queries: stopping at the third
  // question leaves two chunks answered.
  request.set_scene_id("flat");
  while (request.queries_size() < 5 * SceneQueries::kBatchChunk) {
    request.add_queries()->mutable_point()->mutable_point()->set_x(5);
  }
  int asked = 0;
  response.Clear();
  const absl::Status stopped = queries_.QueryBatch(
      request, 1000,
      [&asked]() -> absl::Status {
        return ++asked > 2 ? absl::DeadlineExceededError("deadline")
                           : absl::OkStatus();
      },
      &response);
  EXPECT_EQ(stopped.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(response.entries_size(), 2 * SceneQueries::kBatchChunk);
}

// Each failure answered reaches the failure observer once: a batch's
// failed entries when the batch is answered (on one thread and on two), and
// none of them when the batch fails as a whole (its caller counts that one
// failure), however many entries had failed before it stopped.
TEST_F(SceneQueriesTest, BatchEntryFailuresAreReportedOnlyWhenTheBatchIsSent) {
  struct Failure {
    FailureVia via;
    FailureKind kind;
    absl::StatusCode code;
  };
  std::mutex mutex;
  std::vector<Failure> failures;
  queries_.set_failure_observer(
      [&](FailureVia via, FailureKind kind, absl::StatusCode code) {
        const std::lock_guard<std::mutex> lock(mutex);
        failures.push_back({via, kind, code});
      });
  // Every other query is a raycast with no direction: 4 chunks of
  // kBatchChunk, half of them failing.
  sator::v1::QueryBatchRequest request;
  request.set_scene_id("flat");
  const int count = 4 * SceneQueries::kBatchChunk;
  for (int i = 0; i < count; ++i) {
    sator::v1::RaycastQuery* ray = request.add_queries()->mutable_raycast();
    ray->set_max_distance(10);
    if (i % 2 == 0) ray->mutable_direction()->set_x(1);
  }
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    queries_.set_batch_parallelism(BatchThreads(threads, 1));

    failures.clear();
    sator::v1::QueryBatchResponse answered;
    ASSERT_TRUE(queries_.QueryBatch(request, count, nullptr, &answered).ok());
    ASSERT_EQ(static_cast<int>(failures.size()), count / 2);
    for (const Failure& failure : failures) {
      EXPECT_EQ(failure.via, FailureVia::kBatchEntry);
      EXPECT_EQ(failure.kind, FailureKind::kRaycast);
      EXPECT_EQ(failure.code, absl::StatusCode::kInvalidArgument);
    }

    // Stopped at the third question to the interrupt: two chunks were
    // answered (with kBatchChunk failed entries among them) and are not
    // sent.
    failures.clear();
    std::atomic<int> asked{0};
    sator::v1::QueryBatchResponse stopped;
    const absl::Status status = queries_.QueryBatch(
        request, count,
        [&asked]() -> absl::Status {
          return ++asked > 2 ? absl::DeadlineExceededError("deadline")
                             : absl::OkStatus();
        },
        &stopped);
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_TRUE(failures.empty()) << failures.size() << " entries reported";

    // Refused before any query ran (over the batch limit): nothing either.
    failures.clear();
    sator::v1::QueryBatchResponse refused;
    EXPECT_EQ(queries_.QueryBatch(request, count - 1, nullptr, &refused).code(),
              absl::StatusCode::kResourceExhausted);
    EXPECT_TRUE(failures.empty());
  }
}

// Rays straight up from (x, y, 0) against the sphere of radius 1 at
// (0, 0, 5): those with x^2 + y^2 < 1 hit at distance
// 5 - sqrt(1 - x^2 - y^2), the others miss. Checked on one thread and on
// two, which must also agree entry for entry.
TEST_F(SceneQueriesTest, ParallelBatchAnswersLikeTheSequentialOne) {
  constexpr int kRays = 1000;
  sator::v1::QueryBatchRequest request;
  request.set_scene_id("space");
  std::vector<float> expected(kRays, -1.0f);
  for (int i = 0; i < kRays; ++i) {
    const float x = -1.5f + 3.0f * static_cast<float>(i % 37) / 36.0f;
    const float y = -1.5f + 3.0f * static_cast<float>(i % 23) / 22.0f;
    sator::v1::RaycastQuery* ray = request.add_queries()->mutable_raycast();
    ray->mutable_origin()->set_x(x);
    ray->mutable_origin()->set_y(y);
    ray->mutable_direction()->set_z(1.0f);
    ray->set_max_distance(100.0f);
    const float r2 = x * x + y * y;
    if (r2 < 0.98f) expected[i] = 5.0f - std::sqrt(1.0f - r2);
    if (r2 > 1.02f) expected[i] = 0.0f;  // A miss; near the rim: either.
  }
  // A broken query in the middle keeps its own status.
  request.mutable_queries(500)->mutable_raycast()->clear_direction();

  auto answer = [&](SceneQueries::BatchParallelism parallelism) {
    queries_.set_batch_parallelism(parallelism);
    google::protobuf::Arena arena;
    auto* response =
        google::protobuf::Arena::CreateMessage<sator::v1::QueryBatchResponse>(
            &arena);
    int asked = 0;
    std::mutex asked_mutex;
    EXPECT_TRUE(queries_
                    .QueryBatch(
                        request, kRays,
                        [&]() -> absl::Status {
                          const std::lock_guard<std::mutex> lock(asked_mutex);
                          ++asked;
                          return absl::OkStatus();
                        },
                        response)
                    .ok());
    EXPECT_EQ(asked, kRays / SceneQueries::kBatchChunk + 1);
    sator::v1::QueryBatchResponse copy = *response;
    return copy;
  };
  const sator::v1::QueryBatchResponse one = answer(BatchThreads(1, 1));
  const sator::v1::QueryBatchResponse two = answer(BatchThreads(2, 1));
  ASSERT_EQ(one.entries_size(), kRays);
  ASSERT_EQ(two.entries_size(), kRays);
  for (int i = 0; i < kRays; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(one.entries(i).SerializeAsString(),
              two.entries(i).SerializeAsString());
    if (i == 500) {
      EXPECT_EQ(two.entries(i).status().message(),
                "queries[500].raycast.direction: zero length");
      continue;
    }
    ASSERT_EQ(two.entries(i).status().code(), 0);
    if (expected[i] > 0.0f) {
      ASSERT_EQ(two.entries(i).result().hits_size(), 1);
      EXPECT_NEAR(two.entries(i).result().hits(0).distance(), expected[i],
                  1e-4f);
    } else if (expected[i] == 0.0f) {
      EXPECT_EQ(two.entries(i).result().hits_size(), 0);
    }
  }

  // Stopped from the second thread's first chunk on: an error, whatever
  // the first thread had done.
  queries_.set_batch_parallelism(BatchThreads(2, 1));
  sator::v1::QueryBatchResponse stopped;
  std::atomic<int> asked{0};
  EXPECT_EQ(queries_
                .QueryBatch(
                    request, kRays,
                    [&]() -> absl::Status {
                      return asked.fetch_add(1) >= 1
                                 ? absl::CancelledError("cancelled")
                                 : absl::OkStatus();
                    },
                    &stopped)
                .code(),
            absl::StatusCode::kCancelled);
}

TEST_F(SceneQueriesTest, ObserverSeesEveryQuery) {
  std::vector<QueryRecord> records;
  std::vector<std::string> scene_ids;
  queries_.set_observer([&](absl::Span<const QueryRecord> reported) {
    ASSERT_EQ(reported.size(), 1u);
    records.push_back(reported[0]);
    scene_ids.emplace_back(reported[0].scene_id);
  });
  MoveCircle(1, 20.0f);
  ASSERT_TRUE(queries_
                  .Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
                    scene_id: "flat"
                    query {
                      direction { x: 1 }
                      max_distance: 100
                    }
                    options {
                      mode: RESULT_MODE_ALL
                      rewind { tick: 0 }
                    }
                  )pb"))
                  .ok());
  ASSERT_FALSE(queries_
                   .PointQuery(Parse<sator::v1::PointQueryRequest>(R"pb(
                     scene_id: "space"
                     options { rewind { tick: 9 } }
                   )pb"))
                   .ok());
  // Refused by validation before reaching the scene: not a query.
  ASSERT_FALSE(queries_
                   .Raycast(Parse<sator::v1::RaycastRequest>(R"pb(
                     scene_id: "flat"
                   )pb"))
                   .ok());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(scene_ids[0], "flat");
  EXPECT_EQ(records[0].dimension, 2);
  EXPECT_EQ(records[0].kind, scene::QueryKind::kRaycast);
  EXPECT_EQ(records[0].mode, scene::ResultMode::kAllUpToN);
  EXPECT_EQ(records[0].code, absl::StatusCode::kOk);
  EXPECT_EQ(records[0].hits, 2);
  EXPECT_TRUE(records[0].rewound);
  EXPECT_EQ(records[0].tick, 0);
  EXPECT_GT(records[0].node_visits, 0);
  EXPECT_GE(records[0].duration, absl::ZeroDuration());
  EXPECT_EQ(scene_ids[1], "space");
  EXPECT_EQ(records[1].kind, scene::QueryKind::kPoint);
  EXPECT_EQ(records[1].code, absl::StatusCode::kOutOfRange);
  EXPECT_EQ(records[1].hits, 0);
}

// A batch reports every query that reached the scene once, in request
// order, a chunk of at most kBatchChunk records at a time.
TEST_F(SceneQueriesTest, ObserverHearsOfABatchInChunks) {
  std::vector<QueryRecord> records;
  std::vector<std::size_t> chunk_sizes;
  queries_.set_observer([&](absl::Span<const QueryRecord> reported) {
    chunk_sizes.push_back(reported.size());
    records.insert(records.end(), reported.begin(), reported.end());
  });
  constexpr int kQueries = 2 * SceneQueries::kBatchChunk + 3;
  sator::v1::QueryBatchRequest request;
  request.set_scene_id("flat");
  for (int i = 0; i < kQueries; ++i) {
    sator::v1::Query* query = request.add_queries();
    if (i == 5) continue;  // No kind: refused before the scene.
    if (i % 2 == 0) {
      query->mutable_point()->mutable_point()->set_x(static_cast<float>(i));
    } else {
      query->mutable_raycast()->mutable_direction()->set_x(1.0f);
      query->mutable_raycast()->set_max_distance(100.0f);
    }
  }
  sator::v1::QueryBatchResponse response;
  ASSERT_TRUE(queries_.QueryBatch(request, kQueries, nullptr, &response).ok());
  ASSERT_EQ(records.size(), static_cast<std::size_t>(kQueries - 1));
  for (const std::size_t size : chunk_sizes) {
    EXPECT_GE(size, 1u);
    EXPECT_LE(size, static_cast<std::size_t>(SceneQueries::kBatchChunk));
  }
  std::size_t next = 0;
  for (int i = 0; i < kQueries; ++i) {
    if (i == 5) continue;
    const QueryRecord& record = records[next++];
    EXPECT_EQ(record.kind, i % 2 == 0 ? scene::QueryKind::kPoint
                                      : scene::QueryKind::kRaycast)
        << i;
    EXPECT_EQ(record.code, absl::StatusCode::kOk) << i;
    EXPECT_EQ(record.count, 1) << i;
    EXPECT_EQ(record.hits, response.entries(i).result().hits_size()) << i;
  }
}

}  // namespace
}  // namespace sator::server
