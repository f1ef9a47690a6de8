// Scene API: analytic cases with hand-derived answers, every error code,
// all-or-nothing batches, tick rules, rewind rules, filters, modes, memory.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/core/field_status.h"
#include "sator/core/scene/pose_interpolation.h"
#include "sator/core/scene/scene.h"

namespace sator::scene {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Scene2> MakeScene(SceneOptions options = {}) {
  return Scene2::Create(options).value();
}

ShapePtr<2> CircleShape(float r) {
  return std::make_shared<const Shape2>(Circle{r});
}

BodyDesc<2> CircleBody(std::uint64_t id, Vec2 at, float r = 1.0f,
                       MotionType motion = MotionType::kDynamic) {
  BodyDesc<2> body;
  body.id = id;
  body.shape = CircleShape(r);
  body.pose = {at, {}};
  body.motion = motion;
  body.user_data = 100 + id;
  return body;
}

template <int D>
std::vector<std::uint64_t> Ids(const QueryResult<D>& result) {
  std::vector<std::uint64_t> ids;
  for (const auto& hit : result.hits) ids.push_back(hit.body_id);
  return ids;
}

// ---- Factory ---------------------------------------------------------------

TEST(SceneFactoryTest, RefusesBadOptions) {
  SceneOptions options;
  options.history_ticks = 0;
  EXPECT_THAT(Scene2::Create(options).status().message(),
              HasSubstr("history_ticks"));
  options = {};
  options.teleport_distance = 0.0f;
  EXPECT_EQ(Scene3::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options.teleport_distance = std::nanf("");
  EXPECT_THAT(Scene2::Create(options).status().message(),
              HasSubstr("teleport_distance"));
  options = {};
  options.max_bodies = 0;
  EXPECT_THAT(Scene2::Create(options).status().message(),
              HasSubstr("max_bodies"));
  EXPECT_TRUE(Scene2::Create({}).ok());
}

// ---- Upserts and removals ---------------------------------------------------

TEST(SceneBodiesTest, UpsertErrorsNameTheElementAndChangeNothing) {
  auto scene = MakeScene();
  ASSERT_TRUE(scene->UpsertBodies(std::vector{CircleBody(1, {0, 0})}).ok());

  std::vector<BodyDesc<2>> batch{CircleBody(2, {5, 0}), CircleBody(3, {9, 0}),
                                 CircleBody(4, {12, 0})};
  batch[2].shape = CircleShape(-1.0f);
  absl::Status status = scene->UpsertBodies(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FieldPathOf(status), "bodies[2].shape");
  EXPECT_THAT(status.message(), HasSubstr("bodies[2].shape: "));
  EXPECT_EQ(scene->Snapshot().body_count(), 1u);

  batch[2] = CircleBody(4, {12, 0});
  batch[1].shape = nullptr;
  status = scene->UpsertBodies(batch);
  EXPECT_EQ(status.message(), "bodies[1].shape: is null");
  EXPECT_EQ(FieldPathOf(status), "bodies[1].shape");
  batch[1] = CircleBody(2, {9, 0});  // Same id as batch[0].
  status = scene->UpsertBodies(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FieldPathOf(status), "bodies[1].id");
  batch[1] = CircleBody(3, {9, 0});
  batch[0].pose.rotation = {2.0f, 0.0f};
  EXPECT_EQ(FieldPathOf(scene->UpsertBodies(batch)), "bodies[0].pose");
  EXPECT_EQ(scene->Snapshot().body_count(), 1u);
}

// Duplicate ids are found whether the batch ascends (no set is built until
// an id does not ascend) or not, and the message names both elements.
TEST(SceneBodiesTest, DuplicateIdsNamedInAnyOrder) {
  struct Case {
    std::vector<std::uint64_t> ids;
    const char* message;  // Empty: accepted.
  };
  const std::vector<Case> cases = {
      {{1, 2, 3, 4}, ""},
      {{4, 3, 2, 1}, ""},
      {{1, 5, 2, 7, 3}, ""},
      {{1, 1}, "bodies[1].id: body 1 is also bodies[0]"},
      {{10, 20, 30, 40, 20}, "bodies[4].id: body 20 is also bodies[1]"},
      {{10, 20, 30, 5, 6, 30}, "bodies[5].id: body 30 is also bodies[2]"},
      {{9, 3, 7, 3}, "bodies[3].id: body 3 is also bodies[1]"},
      {{0, UINT64_MAX, 0}, "bodies[2].id: body 0 is also bodies[0]"},
  };
  for (const Case& c : cases) {
    auto scene = MakeScene();
    std::vector<BodyDesc<2>> batch;
    for (std::size_t i = 0; i < c.ids.size(); ++i) {
      batch.push_back(CircleBody(c.ids[i], {3.0f * static_cast<float>(i), 0}));
    }
    const absl::Status status = scene->UpsertBodies(batch);
    if (std::string(c.message).empty()) {
      EXPECT_TRUE(status.ok()) << status;
      EXPECT_EQ(scene->Snapshot().body_count(), c.ids.size());
    } else {
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(status.message(), c.message);
      EXPECT_EQ(scene->Snapshot().body_count(), 0u);
    }
  }
}

TEST(SceneBodiesTest, BodyLimitIsResourceExhausted) {
  SceneOptions options;
  options.max_bodies = 3;
  auto scene = MakeScene(options);
  ASSERT_TRUE(scene
                  ->UpsertBodies(
                      std::vector{CircleBody(1, {0, 0}), CircleBody(2, {3, 0})})
                  .ok());
  // Replacing existing bodies does not count against the limit.
  ASSERT_TRUE(scene
                  ->UpsertBodies(std::vector{CircleBody(1, {0, 1}),
                                             CircleBody(2, {3, 1}),
                                             CircleBody(3, {6, 1})})
                  .ok());
  const absl::Status status =
      scene->UpsertBodies(std::vector{CircleBody(4, {9, 0})});
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(scene->Snapshot().body_count(), 3u);
}

TEST(SceneBodiesTest, RemoveIsAllOrNothing) {
  auto scene = MakeScene();
  ASSERT_TRUE(scene
                  ->UpsertBodies(
                      std::vector{CircleBody(1, {0, 0}), CircleBody(2, {5, 0})})
                  .ok());
  std::vector<std::uint64_t> ids{1, 7};
  absl::Status status = scene->RemoveBodies(ids);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("ids[1]"));
  EXPECT_EQ(scene->Snapshot().body_count(), 2u);
  ids = {2, 2};
  EXPECT_EQ(scene->RemoveBodies(ids).code(),
            absl::StatusCode::kInvalidArgument);
  ids = {2};
  ASSERT_TRUE(scene->RemoveBodies(ids).ok());
  EXPECT_EQ(scene->Snapshot().body_count(), 1u);
}

TEST(SceneBodiesTest, BodiesListsTheNewestTickInIdOrder) {
  auto scene = MakeScene();
  BodyDesc<2> wall = CircleBody(9, {1, 2}, 3.0f, MotionType::kStatic);
  wall.layer = 4;
  wall.mask = 6;
  ASSERT_TRUE(scene
                  ->UpsertBodies(std::vector{CircleBody(5, {0, 0}), wall,
                                             CircleBody(2, {5, 0})})
                  .ok());
  std::vector<PoseUpdate<2>> moves{{5, {{7, 8}, {}}}};
  ASSERT_TRUE(scene->UpdatePoses(3, moves).ok());
  std::vector<std::uint64_t> removed{2};
  ASSERT_TRUE(scene->RemoveBodies(removed).ok());

  const SceneSnapshot<2> snapshot = scene->Snapshot();
  const std::vector<BodyDesc<2>> bodies = snapshot.Bodies();
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_EQ(bodies[0].id, 5u);
  EXPECT_EQ(bodies[0].pose.position.x, 7.0f);
  EXPECT_EQ(bodies[0].pose.position.y, 8.0f);
  EXPECT_EQ(bodies[0].motion, MotionType::kDynamic);
  EXPECT_EQ(bodies[0].user_data, 105u);
  EXPECT_EQ(bodies[1].id, 9u);
  EXPECT_EQ(bodies[1].layer, 4u);
  EXPECT_EQ(bodies[1].mask, 6u);
  EXPECT_EQ(bodies[1].motion, MotionType::kStatic);
  EXPECT_EQ(std::get<Circle>(*bodies[1].shape).radius, 3.0f);
  const BodyCounts counts = snapshot.CountBodies();
  EXPECT_EQ(counts.static_bodies, 1u);
  EXPECT_EQ(counts.dynamic_bodies, 1u);
}

TEST(SceneBodiesTest, MeshesOnlyStatic) {
  auto scene = Scene3::Create({}).value();
  auto mesh = MakeTriangleMesh({{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}, {0, 1, 2});
  ASSERT_TRUE(mesh.ok());
  BodyDesc<3> body;
  body.id = 1;
  body.shape = std::make_shared<const Shape3>(*mesh);
  body.motion = MotionType::kDynamic;
  const absl::Status status = scene->UpsertBodies({&body, 1});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("bodies[0].shape"));
  body.motion = MotionType::kStatic;
  EXPECT_TRUE(scene->UpsertBodies({&body, 1}).ok());
  // A mesh is not a query shape.
  EXPECT_EQ(scene->Snapshot()
                .Overlap(*body.shape, Pose3{}, QueryOptions{})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// ---- Ticks -----------------------------------------------------------------

TEST(SceneTicksTest, UpdateErrors) {
  auto scene = MakeScene();
  ASSERT_TRUE(scene
                  ->UpsertBodies(std::vector{
                      CircleBody(1, {0, 0}),
                      CircleBody(2, {5, 0}, 1.0f, MotionType::kStatic)})
                  .ok());
  std::vector<PoseUpdate<2>> updates{{1, {{1, 0}, {}}}};
  ASSERT_TRUE(scene->UpdatePoses(3, updates).ok());
  EXPECT_EQ(scene->Snapshot().tick(), 3);
  // The current tick may be amended; an older one is refused.
  EXPECT_TRUE(scene->UpdatePoses(3, updates).ok());
  absl::Status status = scene->UpdatePoses(2, updates);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("older"));
  EXPECT_EQ(FieldPathOf(status), "tick");
  updates.push_back({9, {}});
  status = scene->UpdatePoses(4, updates);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(FieldPathOf(status), "updates[1].id");
  EXPECT_EQ(scene->Snapshot().tick(), 3);  // Nothing applied.
  updates[1] = {2, {}};
  status = scene->UpdatePoses(4, updates);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(FieldPathOf(status), "updates[1].id");  // A static body.
  updates[1] = {1, {{0, 0}, {0.0f, 0.0f}}};
  EXPECT_EQ(FieldPathOf(scene->UpdatePoses(4, updates)), "updates[1].pose");
}

TEST(SceneTicksTest, HistoryWindowAndRewindErrors) {
  SceneOptions options;
  options.history_ticks = 4;
  auto scene = MakeScene(options);
  ASSERT_TRUE(scene->UpsertBodies(std::vector{CircleBody(1, {0, 0})}).ok());
  for (int t = 1; t <= 10; ++t) {
    ASSERT_TRUE(
        scene->UpdatePoses(t, std::vector<PoseUpdate<2>>{{1, {{0, 0}, {}}}})
            .ok());
  }
  const SceneSnapshot<2> snapshot = scene->Snapshot();
  EXPECT_EQ(snapshot.tick(), 10);
  EXPECT_EQ(snapshot.oldest_tick(), 7);
  QueryOptions query;
  query.rewind = Rewind{6, 0.0f};
  EXPECT_EQ(snapshot.PointQuery({0, 0}, query).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(FieldPathOf(snapshot.PointQuery({0, 0}, query).status()),
            "rewind.tick");
  query.rewind = Rewind{11, 0.0f};
  EXPECT_EQ(snapshot.PointQuery({0, 0}, query).status().code(),
            absl::StatusCode::kOutOfRange);
  query.rewind = Rewind{10, 0.5f};
  EXPECT_EQ(snapshot.PointQuery({0, 0}, query).status().code(),
            absl::StatusCode::kOutOfRange);
  query.rewind = Rewind{9, 1.0f};
  EXPECT_EQ(snapshot.PointQuery({0, 0}, query).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FieldPathOf(snapshot.PointQuery({0, 0}, query).status()),
            "rewind.fraction");
  query.rewind = Rewind{7, 0.25f};
  const auto result = snapshot.PointQuery({0, 0}, query);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->tick, 7);
  EXPECT_EQ(result->fraction, 0.25f);
  EXPECT_EQ(Ids(*result), std::vector<std::uint64_t>{1});
}

// ---- Rewind ----------------------------------------------------------------

// A unit circle moves from x = 0 (tick 1) to x = 10 (tick 2). A ray from
// (5, -5) going up meets it at tick 1.5 (centre (5, 0)) at distance 4.
TEST(SceneRewindTest, InterpolatesAndRefusesTeleports) {
  for (const float teleport : {100.0f, 5.0f}) {
    SceneOptions options;
    options.teleport_distance = teleport;
    auto scene = MakeScene(options);
    ASSERT_TRUE(scene->UpsertBodies(std::vector{CircleBody(1, {0, 0})}).ok());
    ASSERT_TRUE(
        scene->UpdatePoses(1, std::vector<PoseUpdate<2>>{{1, {{0, 0}, {}}}})
            .ok());
    ASSERT_TRUE(
        scene->UpdatePoses(2, std::vector<PoseUpdate<2>>{{1, {{10, 0}, {}}}})
            .ok());
    QueryOptions query;
    query.rewind = Rewind{1, 0.5f};
    const auto result =
        scene->Snapshot().RayCast({5, -5}, {0, 1}, 20.0f, query);
    ASSERT_TRUE(result.ok());
    if (teleport == 100.0f) {
      ASSERT_EQ(result->hits.size(), 1u);
      EXPECT_NEAR(result->hits[0].distance, 4.0f, 1e-5f);
      EXPECT_NEAR(result->hits[0].normal.y, -1.0f, 1e-5f);
      EXPECT_EQ(result->hits[0].user_data, 101u);
    } else {
      // A jump of 10 > 5 is a teleport: the body stays at x = 0 until 2.
      EXPECT_TRUE(result->hits.empty());
    }
    // The current tick: centre (10, 0), missed by the ray at x = 5.
    EXPECT_TRUE(
        scene->Snapshot().RayCast({5, -5}, {0, 1}, 20.0f, {})->hits.empty());
  }
}

TEST(SceneRewindTest, CreationAndRemovalAreNotInterpolated) {
  auto scene = MakeScene();
  ASSERT_TRUE(scene->UpsertBodies(std::vector{CircleBody(1, {0, 0})}).ok());
  ASSERT_TRUE(scene->UpdatePoses(1, std::vector<PoseUpdate<2>>{}).ok());
  // Body 2 is created at tick 1; body 1 is removed at tick 2.
  ASSERT_TRUE(scene->UpsertBodies(std::vector{CircleBody(2, {20, 0})}).ok());
  ASSERT_TRUE(scene->UpdatePoses(2, std::vector<PoseUpdate<2>>{}).ok());
  const std::vector<std::uint64_t> remove{1};
  ASSERT_TRUE(scene->RemoveBodies(remove).ok());
  const SceneSnapshot<2> snapshot = scene->Snapshot();
  QueryOptions query;
  query.rewind = Rewind{0, 0.5f};
  EXPECT_TRUE(snapshot.PointQuery({20, 0}, query)->hits.empty());
  EXPECT_EQ(Ids(*snapshot.PointQuery({0, 0}, query)),
            std::vector<std::uint64_t>{1});
  query.rewind = Rewind{1, 0.5f};
  // Body 1 exists at tick 1 but not at 2: it keeps its tick-1 pose.
  EXPECT_EQ(Ids(*snapshot.PointQuery({0, 0}, query)),
            std::vector<std::uint64_t>{1});
  EXPECT_TRUE(snapshot.PointQuery({0, 0}, {})->hits.empty());
}

// A body whose shape changes: a 10 x 1 box at x = 0 (tick 1) is replaced at
// tick 2 by a small circle at x = 10. At tick 1.9 the body is still the box
// (shapes come from tick T), centred at x = 9, so it covers x in [4, 14]:
// the point (13, 0) is inside although it lies outside both ticks' boxes
// ([-5, 5] and [9.5, 10.5]).
TEST(SceneRewindTest, ShapeChangeKeepsTheEarlierShapeBetweenTicks) {
  auto scene = MakeScene();
  BodyDesc<2> body = CircleBody(1, {0, 0});
  body.shape = std::make_shared<const Shape2>(Box2{{5.0f, 0.5f}});
  ASSERT_TRUE(scene->UpsertBodies({&body, 1}).ok());
  ASSERT_TRUE(scene->UpdatePoses(1, std::vector<PoseUpdate<2>>{}).ok());
  ASSERT_TRUE(scene->UpdatePoses(2, std::vector<PoseUpdate<2>>{}).ok());
  body = CircleBody(1, {10, 0}, 0.5f);
  ASSERT_TRUE(scene->UpsertBodies({&body, 1}).ok());
  QueryOptions query;
  query.rewind = Rewind{1, 0.9f};
  EXPECT_EQ(Ids(*scene->Snapshot().PointQuery({13, 0}, query)),
            std::vector<std::uint64_t>{1});
  EXPECT_TRUE(scene->Snapshot().PointQuery({13, 0}, {})->hits.empty());
}

TEST(PoseInterpolationTest, HandDerivedValues) {
  const Pose2 a = Pose2::FromAngle({0, 0}, 0.0f);
  const Pose2 b = Pose2::FromAngle({2, 4}, 1.5707964f);
  const Pose2 mid = InterpolatePose(a, b, 0.5f);
  EXPECT_NEAR(mid.position.x, 1.0f, 1e-6f);
  EXPECT_NEAR(mid.position.y, 2.0f, 1e-6f);
  // nlerp halfway between 0 and 90 degrees is 45 degrees.
  EXPECT_NEAR(mid.rotation.Angle(), 0.7853982f, 1e-6f);
  // 3D: the shorter arc even when the quaternions have opposite signs.
  const Quat q = Quat::FromAxisAngle({0, 0, 1}, 1.0f);
  const Pose3 c{{0, 0, 0}, {}};
  const Pose3 d{{0, 0, 0}, {-q.x, -q.y, -q.z, -q.w}};
  const Pose3 half = InterpolatePose(c, d, 0.5f);
  const Quat expected = Quat::FromAxisAngle({0, 0, 1}, 0.5f);
  EXPECT_NEAR(std::fabs(Dot(half.rotation, expected)), 1.0f, 1e-6f);
}

// ---- Queries, filters and modes --------------------------------------------

// Circles of radius 1 at x = 4, 8, 12 on the x axis: a ray along +x hits
// them at 3, 7, 11.
class SceneQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scene_ = MakeScene();
    std::vector<BodyDesc<2>> bodies{
        CircleBody(1, {4, 0}), CircleBody(2, {8, 0}), CircleBody(3, {12, 0})};
    bodies[0].layer = 0b01;
    bodies[0].mask = 0b10;
    bodies[1].layer = 0b10;
    bodies[1].mask = 0b01;
    bodies[2].motion = MotionType::kStatic;
    ASSERT_TRUE(scene_->UpsertBodies(bodies).ok());
  }
  std::unique_ptr<Scene2> scene_;
};

TEST_F(SceneQueryTest, RayModes) {
  QueryOptions query;
  auto result = scene_->Snapshot().RayCast({0, 0}, {2, 0}, 100.0f, query);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(Ids(*result), (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_NEAR(result->hits[1].distance, 7.0f, 1e-5f);
  EXPECT_NEAR(result->hits[2].point.x, 11.0f, 1e-5f);
  EXPECT_TRUE(result->hits[0].flags & kHitDistance);
  EXPECT_GT(result->stats.node_visits, 0);
  query.max_hits = 2;
  EXPECT_EQ(Ids(*scene_->Snapshot().RayCast({0, 0}, {1, 0}, 100.0f, query)),
            (std::vector<std::uint64_t>{1, 2}));
  query.mode = ResultMode::kClosest;
  EXPECT_EQ(Ids(*scene_->Snapshot().RayCast({0, 0}, {1, 0}, 100.0f, query)),
            (std::vector<std::uint64_t>{1}));
  query.mode = ResultMode::kAny;
  EXPECT_EQ(
      scene_->Snapshot().RayCast({0, 0}, {1, 0}, 100.0f, query)->hits.size(),
      1u);
  // Too short to reach anything.
  EXPECT_TRUE(
      scene_->Snapshot().RayCast({0, 0}, {1, 0}, 2.5f, query)->hits.empty());
  // Errors.
  EXPECT_EQ(
      scene_->Snapshot().RayCast({0, 0}, {0, 0}, 1.0f, {}).status().code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      scene_->Snapshot().RayCast({0, 0}, {1, 0}, -1.0f, {}).status().code(),
      absl::StatusCode::kInvalidArgument);
  query.max_hits = 0;
  EXPECT_THAT(scene_->Snapshot()
                  .RayCast({0, 0}, {1, 0}, 1.0f, query)
                  .status()
                  .message(),
              HasSubstr("max_hits"));
}

TEST_F(SceneQueryTest, Filters) {
  const auto ray = [&](const QueryFilter& filter) {
    QueryOptions query;
    query.filter = filter;
    return Ids(*scene_->Snapshot().RayCast({0, 0}, {1, 0}, 100.0f, query));
  };
  QueryFilter filter;
  // Query layer 0b01 colliding with 0b11. Body 1 (layer 01, mask 10) does not
  // want layer 01; body 2 (layer 10, mask 01) does; body 3 takes everything.
  filter.layer = 0b01;
  filter.mask = 0b11;
  EXPECT_EQ(ray(filter), (std::vector<std::uint64_t>{2, 3}));
  filter.two_way = false;  // Only the query's mask counts.
  EXPECT_EQ(ray(filter), (std::vector<std::uint64_t>{1, 2, 3}));
  filter.mask = 0b01;
  EXPECT_EQ(ray(filter), (std::vector<std::uint64_t>{1, 3}));
  filter = {};
  filter.excluded_ids = {2, 99};
  EXPECT_EQ(ray(filter), (std::vector<std::uint64_t>{1, 3}));
  filter = {};
  filter.motion = MotionSelection::kStaticOnly;
  EXPECT_EQ(ray(filter), (std::vector<std::uint64_t>{3}));
  filter.motion = MotionSelection::kDynamicOnly;
  EXPECT_EQ(ray(filter), (std::vector<std::uint64_t>{1, 2}));
}

// ExcludedIds sorts and deduplicates once, when made; its copies (one per
// query of a batch sharing the options) share the sorted ids.
TEST(ExcludedIdsTest, SortedOnceAndSharedByCopies) {
  const ExcludedIds none;
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.Contains(0));
  const ExcludedIds ids = {9, 2, 9, 5};
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(
      std::vector<std::uint64_t>(ids.sorted().begin(), ids.sorted().end()),
      (std::vector<std::uint64_t>{2, 5, 9}));
  EXPECT_TRUE(ids.Contains(5));
  EXPECT_FALSE(ids.Contains(4));
  QueryOptions options;
  options.filter.excluded_ids = ids;
  const QueryOptions copy = options;
  EXPECT_EQ(copy.filter.excluded_ids.sorted().data(), ids.sorted().data());
}

// A single id is held in place and answers as a set of one, also when
// copied, and a query honours it as it honours a sorted set.
TEST(ExcludedIdsTest, SingleIsASetOfOne) {
  const ExcludedIds one = ExcludedIds::Single(7);
  EXPECT_FALSE(one.empty());
  EXPECT_EQ(one.size(), 1u);
  EXPECT_TRUE(one.Contains(7));
  EXPECT_FALSE(one.Contains(0));
  EXPECT_FALSE(one.Contains(8));
  const ExcludedIds copy = one;
  ASSERT_EQ(copy.sorted().size(), 1u);
  EXPECT_EQ(copy.sorted()[0], 7u);
  EXPECT_TRUE(copy.Contains(7));
}

TEST_F(SceneQueryTest, OverlapSweepPoint) {
  const Shape2 box = Box2{{0.5f, 0.5f}};
  // A unit box at (6, 0): 1.5 from circles 1 and 2, both at distance 0.5.
  EXPECT_TRUE(scene_->Snapshot().Overlap(box, {{6, 0}, {}}, {})->hits.empty());
  EXPECT_EQ(Ids(*scene_->Snapshot().Overlap(box, {{6.6f, 0}, {}}, {})),
            (std::vector<std::uint64_t>{2}));
  // Sweeping the box from (0, 0) by (+10, 0): it touches circle 1 when its
  // right face reaches x = 3, after 2.5 of 10 (fraction 0.25), circle 2
  // after 6.5 (0.65); circle 3 (face at 11) is beyond 10.5.
  const auto sweep = scene_->Snapshot().Sweep(box, {{0, 0}, {}}, {10, 0}, {});
  ASSERT_TRUE(sweep.ok());
  ASSERT_EQ(Ids(*sweep), (std::vector<std::uint64_t>{1, 2}));
  EXPECT_NEAR(sweep->hits[0].fraction, 0.25f, 1e-5f);
  EXPECT_NEAR(sweep->hits[1].fraction, 0.65f, 1e-5f);
  EXPECT_NEAR(sweep->hits[0].normal.x, -1.0f, 1e-5f);  // Out of the body.
  // Starting inside circle 1.
  const auto inside = scene_->Snapshot().Sweep(box, {{4, 0}, {}}, {0, 1}, {});
  ASSERT_EQ(Ids(*inside), (std::vector<std::uint64_t>{1}));
  EXPECT_TRUE(inside->hits[0].flags & kHitStartedInside);
  EXPECT_EQ(inside->hits[0].fraction, 0.0f);
  // Points.
  EXPECT_EQ(Ids(*scene_->Snapshot().PointQuery({8.5f, 0.5f}, {})),
            (std::vector<std::uint64_t>{2}));
  EXPECT_TRUE(scene_->Snapshot().PointQuery({6, 0}, {})->hits.empty());
}

// A box of half extent 1 at the origin pressed 0.25 into a floor (top face
// at y = -0.75) and 0.5 into a wall (left face at x = 0.5): the MTVs are
// (0, 0.25) and (-0.5, 0); they are orthogonal, so the combined vector is
// their sum.
TEST(SceneContactsTest, DepenetrationOfFloorAndWall) {
  auto scene = MakeScene();
  BodyDesc<2> floor;
  floor.id = 1;
  floor.shape = std::make_shared<const Shape2>(Box2{{10, 1}});
  floor.pose = {{0, -1.75f}, {}};
  floor.motion = MotionType::kStatic;
  BodyDesc<2> wall = floor;
  wall.id = 2;
  wall.shape = std::make_shared<const Shape2>(Box2{{1, 10}});
  wall.pose = {{1.5f, 5}, {}};
  ASSERT_TRUE(scene->UpsertBodies(std::vector{floor, wall}).ok());
  const Shape2 box = Box2{{1, 1}};
  const auto result = scene->Snapshot().Contacts(box, {{0, 0}, {}}, {});
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(Ids(*result), (std::vector<std::uint64_t>{2, 1}));  // Deepest 1st.
  EXPECT_NEAR(result->hits[0].depth, 0.5f, 1e-5f);
  EXPECT_NEAR(result->hits[0].normal.x, -1.0f, 1e-5f);
  EXPECT_NEAR(result->hits[1].depth, 0.25f, 1e-5f);
  EXPECT_NEAR(result->hits[1].normal.y, 1.0f, 1e-5f);
  EXPECT_NEAR(result->depenetration.x, -0.5f, 1e-5f);
  EXPECT_NEAR(result->depenetration.y, 0.25f, 1e-5f);
}

// The same floor and wall as one level body, a polygon whose outline has a
// concave corner at (0.5, -0.75): the box gets one hit per edge it presses
// (feature: the outline edge), and the combined vector leaves both walls.
// CLOSEST_PER_BODY keeps the deepest, ANY one.
TEST(SceneContactsTest, ALevelGivesEveryEdgeOfAConcaveCorner) {
  auto scene = MakeScene();
  LevelDesc2 desc;
  // Edge k joins outline[k] and outline[k + 1]: edge 3 is the wall's face
  // (x = 0.5) and edge 4 the floor's top (y = -0.75).
  desc.polygons.push_back({{{-10, -2.75f},
                            {10, -2.75f},
                            {10, 15},
                            {0.5f, 15},
                            {0.5f, -0.75f},
                            {-10, -0.75f}},
                           {}});
  absl::StatusOr<std::shared_ptr<const Level2>> level = MakeLevel2(desc);
  ASSERT_TRUE(level.ok()) << level.status();
  BodyDesc<2> body;
  body.id = 7;
  body.shape = std::make_shared<const Shape2>(*level);
  body.motion = MotionType::kStatic;
  ASSERT_TRUE(scene->UpsertBodies(std::vector{body}).ok());
  const Shape2 box = Box2{{1, 1}};
  const SceneSnapshot<2> snapshot = scene->Snapshot();

  const auto every = snapshot.Contacts(box, {{0, 0}, {}}, {});
  ASSERT_TRUE(every.ok()) << every.status();
  ASSERT_EQ(Ids(*every), (std::vector<std::uint64_t>{7, 7}));
  EXPECT_EQ(every->hits[0].feature, 3);  // The wall, deepest first.
  EXPECT_TRUE(every->hits[0].flags & kHitFeature);
  EXPECT_NEAR(every->hits[0].depth, 0.5f, 1e-5f);
  EXPECT_NEAR(every->hits[0].normal.x, -1.0f, 1e-5f);
  EXPECT_EQ(every->hits[1].feature, 4);
  EXPECT_NEAR(every->hits[1].depth, 0.25f, 1e-5f);
  EXPECT_NEAR(every->hits[1].normal.y, 1.0f, 1e-5f);
  EXPECT_NEAR(every->depenetration.x, -0.5f, 1e-5f);
  EXPECT_NEAR(every->depenetration.y, 0.25f, 1e-5f);

  QueryOptions per_body;
  per_body.mode = ResultMode::kClosestPerBody;
  const auto deepest = snapshot.Contacts(box, {{0, 0}, {}}, per_body);
  ASSERT_TRUE(deepest.ok()) << deepest.status();
  ASSERT_EQ(deepest->hits.size(), 1u);
  EXPECT_EQ(deepest->hits[0].feature, 3);
  QueryOptions any;
  any.mode = ResultMode::kAny;
  EXPECT_EQ(snapshot.Contacts(box, {{0, 0}, {}}, any)->hits.size(), 1u);
}

// Two walls meeting at 90 degrees are resolved by the sum; two contacts
// with the same normal are not pushed twice: a box of half extent 1 pressed
// 0.5 into two floor boxes side by side moves up by 0.5, not 1.
TEST(SceneContactsTest, SharedNormalIsNotPushedTwice) {
  auto scene = MakeScene();
  BodyDesc<2> left;
  left.id = 1;
  left.shape = std::make_shared<const Shape2>(Box2{{1, 1}});
  left.pose = {{-1, -1.5f}, {}};
  left.motion = MotionType::kStatic;
  BodyDesc<2> right = left;
  right.id = 2;
  right.pose = {{1, -1.5f}, {}};
  ASSERT_TRUE(scene->UpsertBodies(std::vector{left, right}).ok());
  const Shape2 box = Box2{{0.9f, 1}};
  const auto result = scene->Snapshot().Contacts(box, {{0, 0}, {}}, {});
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->hits.size(), 2u);
  EXPECT_NEAR(result->depenetration.x, 0.0f, 1e-5f);
  EXPECT_NEAR(result->depenetration.y, 0.5f, 1e-5f);
}

// A capsule standing on a floor (its bottom exactly on the floor's top
// face) and pressed 0.1 into a wall: the floor contact has a depth of
// round-off, which min_depth leaves out, of the hits, of the collector and
// of the depenetration; the wall's is kept.
TEST(SceneContactsTest, MinDepthLeavesOutRestingContacts) {
  auto scene = Scene3::Create({}).value();
  BodyDesc<3> floor;
  floor.id = 1;
  floor.shape = std::make_shared<const Shape3>(Box3{{10, 0.5f, 10}});
  floor.pose = {{0, -0.5f, 0}, {}};
  floor.motion = MotionType::kStatic;
  BodyDesc<3> wall = floor;
  wall.id = 2;
  wall.shape = std::make_shared<const Shape3>(Box3{{0.5f, 10, 10}});
  wall.pose = {{0.9f, 0, 0}, {}};
  ASSERT_TRUE(scene->UpsertBodies(std::vector{floor, wall}).ok());
  const Shape3 capsule = Capsule3{{0, 0.5f, 0}, {0, 1.5f, 0}, 0.5f};
  const Pose3 standing{{0, 0, 0}, {}};
  const SceneSnapshot<3> snapshot = scene->Snapshot();

  const auto every = snapshot.Contacts(capsule, standing, {});
  ASSERT_TRUE(every.ok()) << every.status();
  ASSERT_EQ(Ids(*every), (std::vector<std::uint64_t>{2, 1}));
  EXPECT_NEAR(every->hits[0].depth, 0.1f, 1e-5f);
  EXPECT_LT(every->hits[1].depth, 1e-5f);  // Resting: round-off deep.

  const auto tolerant = snapshot.Contacts(capsule, standing, {}, 1e-4f);
  ASSERT_TRUE(tolerant.ok()) << tolerant.status();
  ASSERT_EQ(Ids(*tolerant), (std::vector<std::uint64_t>{2}));
  EXPECT_NEAR(tolerant->depenetration.x, -0.1f, 1e-5f);
  EXPECT_EQ(tolerant->depenetration.y, 0.0f);
  EXPECT_EQ(tolerant->depenetration.z, 0.0f);

  // ANY keeps the first contact it finds: never the one left out.
  QueryOptions any;
  any.mode = ResultMode::kAny;
  const auto first = snapshot.Contacts(capsule, standing, any, 1e-4f);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(Ids(*first), (std::vector<std::uint64_t>{2}));
  // Deeper than the wall's 0.1: nothing at all.
  EXPECT_TRUE(snapshot.Contacts(capsule, standing, {}, 0.2f)->hits.empty());

  // Through the SceneQuery form, as the service sends it.
  const auto run = snapshot.Run(ContactsRequest<3>{
      std::make_shared<const Shape3>(capsule), standing, {}, 1e-4f});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(Ids(*run), (std::vector<std::uint64_t>{2}));

  const absl::Status negative =
      snapshot.Contacts(capsule, standing, {}, -1.0f).status();
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.message(), HasSubstr("min_depth: must be >= 0"));
  const absl::Status nan =
      snapshot
          .Contacts(capsule, standing, {},
                    std::numeric_limits<float>::quiet_NaN())
          .status();
  EXPECT_EQ(nan.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(nan.message(), HasSubstr("min_depth: not finite"));
}

// ---- Snapshots
// ---------------------------------------------------------------

TEST(SceneSnapshotTest, OldSnapshotsDoNotChange) {
  auto scene = MakeScene();
  ASSERT_TRUE(scene->UpsertBodies(std::vector{CircleBody(1, {0, 0})}).ok());
  const SceneSnapshot<2> before = scene->Snapshot();
  ASSERT_TRUE(
      scene->UpdatePoses(1, std::vector<PoseUpdate<2>>{{1, {{50, 0}, {}}}})
          .ok());
  const std::vector<std::uint64_t> remove{1};
  ASSERT_TRUE(scene->RemoveBodies(remove).ok());
  EXPECT_EQ(before.tick(), 0);
  EXPECT_EQ(Ids(*before.PointQuery({0, 0}, {})), std::vector<std::uint64_t>{1});
  EXPECT_TRUE(scene->Snapshot().PointQuery({50, 0}, {})->hits.empty());
}

// ---- Memory ----------------------------------------------------------------

// Memory on 10k dynamic boxes sharing one shape after a full history
// window, every capacity counted (scratch and recycled buffers included).
// The bounds are 256 bytes per body (shapes aside) and 32 per body per tick
// (one pose per body per tick, plus one recycled array: 16 B in 2D, 28 B in
// 3D). docs/core/scene.md has the breakdown.
TEST(SceneMemoryTest, WithinTargets) {
  for (const int dim : {2, 3}) {
    SceneMemory memory;
    constexpr int kBodies = 10000;
    if (dim == 2) {
      auto scene = MakeScene();
      auto shape = std::make_shared<const Shape2>(Box2{{0.5f, 0.5f}});
      std::vector<BodyDesc<2>> bodies(kBodies);
      std::vector<PoseUpdate<2>> updates(kBodies);
      for (int i = 0; i < kBodies; ++i) {
        bodies[i].id = static_cast<std::uint64_t>(i);
        bodies[i].shape = shape;
        bodies[i].pose.position = {static_cast<float>(i % 100) * 3.0f,
                                   static_cast<float>(i / 100) * 3.0f};
        updates[i] = {bodies[i].id, bodies[i].pose};
      }
      ASSERT_TRUE(scene->UpsertBodies(bodies).ok());
      for (int t = 1; t <= 64; ++t) {
        for (auto& u : updates) u.pose.position.x += 0.01f;
        ASSERT_TRUE(scene->UpdatePoses(t, updates).ok());
      }
      memory = scene->Memory();
    } else {
      auto scene = Scene3::Create({}).value();
      auto shape = std::make_shared<const Shape3>(Box3{{0.5f, 0.5f, 0.5f}});
      std::vector<BodyDesc<3>> bodies(kBodies);
      std::vector<PoseUpdate<3>> updates(kBodies);
      for (int i = 0; i < kBodies; ++i) {
        bodies[i].id = static_cast<std::uint64_t>(i);
        bodies[i].shape = shape;
        bodies[i].pose.position = {static_cast<float>(i % 100) * 3.0f,
                                   static_cast<float>(i / 100) * 3.0f, 0.0f};
        updates[i] = {bodies[i].id, bodies[i].pose};
      }
      ASSERT_TRUE(scene->UpsertBodies(bodies).ok());
      for (int t = 1; t <= 64; ++t) {
        for (auto& u : updates) u.pose.position.x += 0.01f;
        ASSERT_TRUE(scene->UpdatePoses(t, updates).ok());
      }
      memory = scene->Memory();
    }
    ASSERT_EQ(memory.body_count, static_cast<std::size_t>(kBodies));
    ASSERT_EQ(memory.history_ticks, 64u);
    const double per_body =
        static_cast<double>(memory.body_bytes + memory.tree_bytes) / kBodies;
    const double per_body_tick =
        static_cast<double>(memory.history_bytes) / kBodies / 64.0;
    RecordProperty("bytes_per_body_" + std::to_string(dim),
                   std::to_string(per_body));
    RecordProperty("bytes_per_body_tick_" + std::to_string(dim),
                   std::to_string(per_body_tick));
    std::printf(
        "%dD: body %zu tree %zu; %.1f bytes per body, %.1f bytes per body per "
        "tick\n",
        dim, memory.body_bytes / kBodies, memory.tree_bytes / kBodies, per_body,
        per_body_tick);
    EXPECT_LE(per_body, 256.0);
    EXPECT_LE(per_body_tick, 32.0);
  }
}

// A grid mesh of 2 * n * n triangles over (n + 1)^2 vertices.
std::shared_ptr<const TriangleMesh> GridMesh(int n) {
  std::vector<Vec3> vertices;
  std::vector<std::uint32_t> indices;
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; j <= n; ++j) {
      vertices.push_back({static_cast<float>(i), 0.0f, static_cast<float>(j)});
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const auto corner = static_cast<std::uint32_t>(i * (n + 1) + j);
      const auto right = corner + static_cast<std::uint32_t>(n + 1);
      for (std::uint32_t index :
           {corner, corner + 1, right, right, corner + 1, right + 1}) {
        indices.push_back(index);
      }
    }
  }
  return MakeTriangleMesh(std::move(vertices), std::move(indices)).value();
}

// Hulls and meshes are in the scene's memory, each once however many bodies
// hold it, and leave it with the last body that held it.
TEST(SceneMemoryTest, CountsMeshesAndHullsOncePerShape) {
  auto scene = Scene3::Create({}).value();
  const SceneMemory empty = scene->Memory();
  EXPECT_EQ(empty.total_bytes(), empty.body_bytes + empty.tree_bytes +
                                     empty.history_bytes + empty.shape_bytes);

  const std::shared_ptr<const TriangleMesh> mesh = GridMesh(100);
  const std::size_t input_bytes =
      mesh->vertices().size() * sizeof(Vec3) +
      mesh->indices().size() * sizeof(std::uint32_t);
  auto mesh_shape = std::make_shared<const Shape3>(mesh);
  std::vector<BodyDesc<3>> bodies(2);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    bodies[i].id = i + 1;
    bodies[i].shape = mesh_shape;
    bodies[i].motion = MotionType::kStatic;
    bodies[i].pose.position = {0.0f, 10.0f * static_cast<float>(i), 0.0f};
  }
  ASSERT_TRUE(scene->UpsertBodies(bodies).ok());
  const SceneMemory with_mesh = scene->Memory();
  // The input, the BVH and the leaf-order triangles: once, not per body.
  const std::size_t tree_bytes =
      mesh->triangle_count() *
          (sizeof(Aabb3) + sizeof(std::uint32_t) + sizeof(MeshTriangle)) +
      mesh->bvh().NodeCount() * sizeof(Aabb3);
  EXPECT_GE(with_mesh.shape_bytes - empty.shape_bytes,
            input_bytes + tree_bytes);
  EXPECT_LT(with_mesh.shape_bytes - empty.shape_bytes,
            2 * (mesh->MemoryBytes() + sizeof(TriangleMesh)));
  EXPECT_GE(with_mesh.total_bytes() - empty.total_bytes(), input_bytes);

  // A cube's corners with a point beyond each face's centre.
  std::vector<Vec3> points;
  for (const float x : {-1.0f, 1.0f}) {
    for (const float y : {-1.0f, 1.0f}) {
      for (const float z : {-1.0f, 1.0f}) points.push_back({x, y, z});
    }
  }
  for (const float s : {-1.5f, 1.5f}) {
    points.push_back({s, 0.0f, 0.0f});
    points.push_back({0.0f, s, 0.0f});
    points.push_back({0.0f, 0.0f, s});
  }
  const std::shared_ptr<const ConvexHull> hull = MakeConvexHull(points).value();
  BodyDesc<3> rock;
  rock.id = 3;
  rock.shape = std::make_shared<const Shape3>(hull);
  rock.pose.position = {50.0f, 0.0f, 0.0f};
  ASSERT_TRUE(scene->UpsertBodies({rock}).ok());
  const SceneMemory with_hull = scene->Memory();
  EXPECT_GE(with_hull.shape_bytes - with_mesh.shape_bytes,
            hull->vertices.size() * sizeof(Vec3) +
                hull->faces.size() * sizeof(ConvexHull::Face));

  // One mesh body replaced by a box, then the other removed: the mesh is
  // gone, the hull stays.
  bodies[0].shape = std::make_shared<const Shape3>(Box3{{1.0f, 1.0f, 1.0f}});
  ASSERT_TRUE(scene->UpsertBodies({bodies[0]}).ok());
  EXPECT_EQ(scene->Memory().shape_bytes, with_hull.shape_bytes);
  ASSERT_TRUE(scene->RemoveBodies({2}).ok());
  const SceneMemory without_mesh = scene->Memory();
  EXPECT_LT(without_mesh.shape_bytes + input_bytes, with_hull.shape_bytes);
  EXPECT_GE(without_mesh.shape_bytes, hull->vertices.size() * sizeof(Vec3));
  ASSERT_TRUE(scene->RemoveBodies({3}).ok());
  EXPECT_LT(scene->Memory().shape_bytes, hull->vertices.size() * sizeof(Vec3));
}

// Static bodies live in a tree that also keeps the wide ray nodes; the same
// bound holds for them (random positions, so the tree has its usual shape).
TEST(SceneMemoryTest, StaticBodiesWithinTargets) {
  constexpr int kBodies = 10000;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> coord(0.0f, 300.0f);
  for (const int dim : {2, 3}) {
    SceneMemory memory;
    if (dim == 2) {
      auto scene = MakeScene();
      auto shape = std::make_shared<const Shape2>(Box2{{0.5f, 0.5f}});
      std::vector<BodyDesc<2>> bodies(kBodies);
      for (int i = 0; i < kBodies; ++i) {
        bodies[i].id = static_cast<std::uint64_t>(i);
        bodies[i].shape = shape;
        bodies[i].pose.position = {coord(rng), coord(rng)};
        bodies[i].motion = MotionType::kStatic;
      }
      ASSERT_TRUE(scene->UpsertBodies(bodies).ok());
      memory = scene->Memory();
    } else {
      auto scene = Scene3::Create({}).value();
      auto shape = std::make_shared<const Shape3>(Box3{{0.5f, 0.5f, 0.5f}});
      std::vector<BodyDesc<3>> bodies(kBodies);
      for (int i = 0; i < kBodies; ++i) {
        bodies[i].id = static_cast<std::uint64_t>(i);
        bodies[i].shape = shape;
        bodies[i].pose.position = {coord(rng), coord(rng), coord(rng)};
        bodies[i].motion = MotionType::kStatic;
      }
      ASSERT_TRUE(scene->UpsertBodies(bodies).ok());
      memory = scene->Memory();
    }
    ASSERT_EQ(memory.body_count, static_cast<std::size_t>(kBodies));
    const double per_body =
        static_cast<double>(memory.body_bytes + memory.tree_bytes) / kBodies;
    std::printf("%dD static: body %zu tree %zu; %.1f bytes per body\n", dim,
                memory.body_bytes / kBodies, memory.tree_bytes / kBodies,
                per_body);
    RecordProperty("static_bytes_per_body_" + std::to_string(dim),
                   std::to_string(per_body));
    EXPECT_LE(per_body, 256.0);
  }
}

}  // namespace
}  // namespace sator::scene
