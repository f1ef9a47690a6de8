// Hitbox groups, teleport cuts and rewind clamping in Scene<D>: analytic
// cases with hand-computed answers.
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "sator/core/scene/scene.h"

namespace sator::scene {
namespace {

constexpr float kPi = 3.14159265358979f;

ShapePtr<3> Ball(float radius) {
  return std::make_shared<const Shape3>(Sphere{radius});
}

Pose3 At(float x, float y, float z) {
  Pose3 pose;
  pose.position = {x, y, z};
  return pose;
}

Pose3 TurnedZ(Vec3 position, float radians) {
  Pose3 pose;
  pose.position = position;
  pose.rotation = Quat::FromAxisAngle({0, 0, 1}, radians);
  return pose;
}

BodyDesc<3> Part(std::uint64_t id, std::uint64_t group, std::int32_t part,
                 ShapePtr<3> shape, Pose3 local) {
  BodyDesc<3> body;
  body.id = id;
  body.group_id = group;
  body.part = part;
  body.shape = std::move(shape);
  body.pose = local;
  return body;
}

QueryOptions Closest() {
  QueryOptions options;
  options.mode = ResultMode::kClosest;
  options.max_hits = 1;
  return options;
}

TEST(HitboxGroupTest, PartsArePlacedByTheGroupPoseAndReportGroupAndPart) {
  auto scene = Scene3::Create().value();
  ASSERT_TRUE(scene
                  ->UpsertBodies({Part(1, 7, 3, Ball(0.25f), At(1, 0, 0)),
                                  Part(2, 7, 4, Ball(0.25f), At(0, 0, 1))})
                  .ok());
  // The group at (10, 0, 0) turned a quarter about z: local (1, 0, 0) is
  // world (10, 1, 0).
  const GroupPoseUpdate<3> group{7, TurnedZ({10, 0, 0}, kPi / 2), false};
  ASSERT_TRUE(scene->UpdatePoses(1, {}, {group}).ok());
  const auto result =
      scene->Snapshot().RayCast({10, 5, 0}, {0, -1, 0}, 10.0f, Closest());
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->hits.size(), 1u);
  EXPECT_EQ(result->hits[0].body_id, 1u);
  EXPECT_EQ(result->hits[0].group_id, 7u);
  EXPECT_EQ(result->hits[0].part, 3);
  EXPECT_NEAR(result->hits[0].distance, 5.0f - 1.0f - 0.25f, 1e-4f);
  const std::vector<GroupDesc<3>> groups = scene->Snapshot().Groups();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].group_id, 7u);
  EXPECT_EQ(groups[0].part_count, 2u);
  EXPECT_FLOAT_EQ(groups[0].pose.position.x, 10.0f);
}

TEST(HitboxGroupTest, RewindComposesInterpolatedGroupAndLocalPoses) {
  auto scene = Scene3::Create().value();
  ASSERT_TRUE(
      scene->UpsertBodies({Part(1, 7, 0, Ball(0.1f), At(2, 0, 0))}).ok());
  ASSERT_TRUE(
      scene->UpdatePoses(0, {}, {{7, TurnedZ({0, 0, 0}, 0), false}}).ok());
  ASSERT_TRUE(
      scene->UpdatePoses(1, {}, {{7, TurnedZ({0, 0, 0}, kPi / 2), false}})
          .ok());
  // Halfway, the group has turned 45 degrees: the part is on the arc at
  // (sqrt 2, sqrt 2, 0), 2 from the origin, not at the chord's midpoint
  // (1, 1, 0), sqrt 2 from it.
  QueryOptions options = Closest();
  options.rewind = Rewind{0, 0.5f};
  const Vec3 diagonal{1, 1, 0};
  const auto result =
      scene->Snapshot().RayCast({0, 0, 0}, diagonal, 5.0f, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->hits.size(), 1u);
  EXPECT_NEAR(result->hits[0].distance, 1.9f, 1e-3f);
  // A local pose update moves one part within its group: local (3, 0, 0)
  // at tick 2, so halfway from tick 1 the part is at local (2.5, 0, 0),
  // world (0, 2.5, 0).
  ASSERT_TRUE(scene->UpdatePoses(2, {{1, At(3, 0, 0), false}}, {}).ok());
  options.rewind = Rewind{1, 0.5f};
  const auto local =
      scene->Snapshot().RayCast({0, 0, 0}, {0, 1, 0}, 5.0f, options);
  ASSERT_TRUE(local.ok()) << local.status();
  ASSERT_EQ(local->hits.size(), 1u);
  EXPECT_NEAR(local->hits[0].distance, 2.4f, 1e-3f);
}

TEST(HitboxGroupTest, BodiesAtPlacesEveryBodyInTheWorldAtTheRewoundTime) {
  auto scene = Scene3::Create().value();
  BodyDesc<3> loose;
  loose.id = 1;
  loose.shape = Ball(0.5f);
  loose.pose = At(0, 0, 0);
  BodyDesc<3> wall;
  wall.id = 3;
  wall.shape = Ball(2.0f);
  wall.motion = MotionType::kStatic;
  wall.pose = At(0, -20, 0);
  ASSERT_TRUE(
      scene
          ->UpsertBodies({loose, Part(2, 9, 5, Ball(0.25f), At(1, 0, 0)), wall})
          .ok());
  ASSERT_TRUE(scene->UpdatePoses(0, {}, {{9, At(0, 10, 0), false}}).ok());
  ASSERT_TRUE(scene
                  ->UpdatePoses(1, {{1, At(4, 0, 0), false}},
                                {{9, At(4, 10, 0), false}})
                  .ok());
  const SceneSnapshot<3> snapshot = scene->Snapshot();
  // A quarter of the way from tick 0 to tick 1: the loose body at x = 1,
  // the group at (1, 10, 0) and its part one further along x, in the world.
  const auto quarter = snapshot.BodiesAt(Rewind{0, 0.25f});
  ASSERT_TRUE(quarter.ok()) << quarter.status();
  ASSERT_EQ(quarter->size(), 3u);
  EXPECT_EQ((*quarter)[0].id, 1u);
  EXPECT_NEAR((*quarter)[0].pose.position.x, 1.0f, 1e-6f);
  EXPECT_EQ((*quarter)[1].id, 2u);
  EXPECT_EQ((*quarter)[1].group_id, 9u);
  EXPECT_EQ((*quarter)[1].part, 5);
  EXPECT_NEAR((*quarter)[1].pose.position.x, 2.0f, 1e-6f);
  EXPECT_NEAR((*quarter)[1].pose.position.y, 10.0f, 1e-6f);
  EXPECT_FALSE((*quarter)[1].teleported);
  EXPECT_EQ((*quarter)[2].id, 3u);
  EXPECT_EQ((*quarter)[2].motion, MotionType::kStatic);
  EXPECT_NEAR((*quarter)[2].pose.position.y, -20.0f, 1e-6f);
  // Without a rewind: the newest tick, the part still in world coordinates
  // (Bodies() lists its local pose).
  const auto newest = snapshot.BodiesAt(std::nullopt);
  ASSERT_TRUE(newest.ok());
  EXPECT_NEAR((*newest)[1].pose.position.x, 5.0f, 1e-6f);
  // Outside the history: the queries' error.
  EXPECT_EQ(snapshot.BodiesAt(Rewind{5, 0.0f}).status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST(HitboxGroupTest, TeleportFlagCutsInterpolationOfABodyAndOfAGroup) {
  SceneOptions options;
  options.teleport_distance = std::numeric_limits<float>::infinity();
  auto scene = Scene3::Create(options).value();
  BodyDesc<3> loose;
  loose.id = 1;
  loose.shape = Ball(0.5f);
  loose.pose = At(0, 0, 0);
  ASSERT_TRUE(
      scene->UpsertBodies({loose, Part(2, 9, 0, Ball(0.5f), At(0, 0, 0))})
          .ok());
  ASSERT_TRUE(scene->UpdatePoses(0, {}, {{9, At(0, 10, 0), false}}).ok());
  ASSERT_TRUE(
      scene->UpdatePoses(1, {{1, At(4, 0, 0), true}}, {{9, At(4, 10, 0), true}})
          .ok());
  QueryOptions query = Closest();
  query.rewind = Rewind{0, 0.5f};
  const SceneSnapshot<3> snapshot = scene->Snapshot();
  // Interpolated, both would be at x = 2; cut, both stay at x = 0.
  for (const float y : {0.0f, 10.0f}) {
    const auto at_two = snapshot.RayCast({2, y, -5}, {0, 0, 1}, 10.0f, query);
    ASSERT_TRUE(at_two.ok());
    EXPECT_TRUE(at_two->hits.empty()) << "y " << y;
    const auto at_zero = snapshot.RayCast({0, y, -5}, {0, 0, 1}, 10.0f, query);
    ASSERT_TRUE(at_zero.ok());
    EXPECT_EQ(at_zero->hits.size(), 1u) << "y " << y;
  }
  const auto parts = snapshot.GroupParts(9, Rewind{0, 0.5f});
  ASSERT_TRUE(parts.ok());
  ASSERT_EQ(parts->size(), 1u);
  EXPECT_TRUE((*parts)[0].teleported);
  EXPECT_FLOAT_EQ((*parts)[0].pose.position.x, 0.0f);
}

TEST(HitboxGroupTest,
     DefaultTeleportDistanceLeavesNoPhantomAtARespawnMidpoint) {
  auto scene = Scene3::Create().value();
  BodyDesc<3> body;
  body.id = 1;
  body.shape = Ball(0.5f);
  body.pose = At(0, 0, 0);
  ASSERT_TRUE(scene->UpsertBodies({body}).ok());
  ASSERT_TRUE(scene->UpdatePoses(1, {{1, At(100, 0, 0), false}}).ok());
  QueryOptions query = Closest();
  query.rewind = Rewind{0, 0.5f};
  const auto phantom =
      scene->Snapshot().RayCast({50, 0, -5}, {0, 0, 1}, 10.0f, query);
  ASSERT_TRUE(phantom.ok());
  EXPECT_TRUE(phantom->hits.empty());
  // A walk (0.1 per tick) still interpolates.
  ASSERT_TRUE(scene->UpdatePoses(2, {{1, At(100.1f, 0, 0), false}}).ok());
  query.rewind = Rewind{1, 0.5f};
  const auto walk =
      scene->Snapshot().RayCast({100.05f, 0, -5}, {0, 0, 1}, 10.0f, query);
  ASSERT_TRUE(walk.ok());
  ASSERT_EQ(walk->hits.size(), 1u);
  EXPECT_NEAR(walk->hits[0].distance, 4.5f, 1e-3f);
}

TEST(HitboxGroupTest, FilterExcludesWholeGroupsAndClosestPerGroupKeepsOne) {
  auto scene = Scene3::Create().value();
  // Two groups along +x, two parts each, and a loose body behind them.
  BodyDesc<3> loose;
  loose.id = 100;
  loose.shape = Ball(0.5f);
  loose.pose = At(30, 0, 0);
  ASSERT_TRUE(
      scene
          ->UpsertBodies({Part(1, 5, 0, Ball(0.5f), At(0, 0, 0)),
                          Part(2, 5, 1, Ball(0.5f), At(2, 0, 0)),
                          Part(3, 6, 0, Ball(0.5f), At(0, 0, 0)),
                          Part(4, 6, 1, Ball(0.5f), At(2, 0, 0)), loose})
          .ok());
  ASSERT_TRUE(
      scene
          ->UpdatePoses(1, {},
                        {{5, At(10, 0, 0), false}, {6, At(20, 0, 0), false}})
          .ok());
  const SceneSnapshot<3> snapshot = scene->Snapshot();
  QueryOptions per_group;
  per_group.mode = ResultMode::kClosestPerGroup;
  const auto all = snapshot.RayCast({0, 0, 0}, {1, 0, 0}, 100.0f, per_group);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->hits.size(), 3u);
  EXPECT_EQ(all->hits[0].body_id, 1u);
  EXPECT_EQ(all->hits[1].body_id, 3u);
  EXPECT_EQ(all->hits[2].body_id, 100u);
  per_group.filter.excluded_groups = ExcludedIds({5});
  const auto without =
      snapshot.RayCast({0, 0, 0}, {1, 0, 0}, 100.0f, per_group);
  ASSERT_TRUE(without.ok());
  ASSERT_EQ(without->hits.size(), 2u);
  EXPECT_EQ(without->hits[0].group_id, 6u);
  EXPECT_EQ(without->hits[0].part, 0);
}

TEST(HitboxGroupTest, RewindPastTheHistoryClampsOrRejectsAsAsked) {
  SceneOptions options;
  options.history_ticks = 4;
  auto scene = Scene3::Create(options).value();
  BodyDesc<3> body;
  body.id = 1;
  body.shape = Ball(0.5f);
  ASSERT_TRUE(scene->UpsertBodies({body}).ok());
  ASSERT_TRUE(scene->UpdatePoses(10, {{1, At(0, 0, 0), false}}).ok());
  const SceneSnapshot<3> snapshot = scene->Snapshot();
  ASSERT_EQ(snapshot.oldest_tick(), 7);
  QueryOptions query = Closest();
  query.rewind = Rewind{2, 0.25f, RewindLimit::kReject};
  const auto rejected = snapshot.RayCast({0, 0, -5}, {0, 0, 1}, 10.0f, query);
  EXPECT_EQ(rejected.status().code(), absl::StatusCode::kOutOfRange);
  query.rewind = Rewind{2, 0.25f, RewindLimit::kClamp};
  const auto clamped = snapshot.RayCast({0, 0, -5}, {0, 0, 1}, 10.0f, query);
  ASSERT_TRUE(clamped.ok()) << clamped.status();
  EXPECT_TRUE(clamped->clamped);
  EXPECT_EQ(clamped->tick, 7);
  EXPECT_EQ(clamped->fraction, 0.0f);
  query.rewind = Rewind{8, 0.0f, RewindLimit::kClamp};
  const auto inside = snapshot.RayCast({0, 0, -5}, {0, 0, 1}, 10.0f, query);
  ASSERT_TRUE(inside.ok());
  EXPECT_FALSE(inside->clamped);
}

TEST(HitboxGroupTest, ListingGivesLocalPosesAndGroupsRebuildTheSameScene) {
  auto scene = Scene3::Create().value();
  ASSERT_TRUE(scene
                  ->UpsertBodies({Part(1, 3, 2, Ball(0.3f), At(0, 1.6f, 0)),
                                  Part(2, 3, 1, Ball(0.4f), At(0, 1, 0))})
                  .ok());
  ASSERT_TRUE(
      scene->UpdatePoses(5, {}, {{3, TurnedZ({4, 0, 0}, 0.3f), false}}).ok());
  const SceneSnapshot<3> snapshot = scene->Snapshot();
  const std::vector<BodyDesc<3>> bodies = snapshot.Bodies();
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_EQ(bodies[0].group_id, 3u);
  EXPECT_EQ(bodies[0].part, 2);
  EXPECT_FLOAT_EQ(bodies[0].pose.position.y, 1.6f);
  // Rebuilt from the listing (as Import does): the same ray answers.
  auto copy = Scene3::Create().value();
  ASSERT_TRUE(copy->UpsertBodies(bodies).ok());
  std::vector<GroupPoseUpdate<3>> groups;
  for (const GroupDesc<3>& group : snapshot.Groups()) {
    groups.push_back({group.group_id, group.pose, false});
  }
  ASSERT_TRUE(copy->UpdatePoses(5, {}, groups).ok());
  const auto a = snapshot.RayCast({-5, 1.2f, 0}, {1, 0, 0}, 20.0f, Closest());
  const auto b =
      copy->Snapshot().RayCast({-5, 1.2f, 0}, {1, 0, 0}, 20.0f, Closest());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->hits.size(), 1u);
  ASSERT_EQ(b->hits.size(), 1u);
  EXPECT_EQ(a->hits[0].body_id, b->hits[0].body_id);
  EXPECT_FLOAT_EQ(a->hits[0].distance, b->hits[0].distance);
}

TEST(HitboxGroupTest, RefusesBadPartsAndUnknownGroups) {
  auto scene = Scene3::Create().value();
  BodyDesc<3> fixed = Part(1, 3, 0, Ball(0.3f), At(0, 0, 0));
  fixed.motion = MotionType::kStatic;
  absl::Status status = scene->UpsertBodies({fixed});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("bodies[0].group_id"), std::string::npos)
      << status;
  status = scene->UpsertBodies({Part(1, 3, 40000, Ball(0.3f), At(0, 0, 0))});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("bodies[0].part"), std::string::npos);
  status = scene->UpdatePoses(1, {}, {{3, At(0, 0, 0), false}});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(status.message().find("group_updates[0].group_id"),
            std::string::npos);
  // A group is forgotten with its last part.
  ASSERT_TRUE(
      scene->UpsertBodies({Part(1, 3, 0, Ball(0.3f), At(0, 0, 0))}).ok());
  ASSERT_TRUE(scene->UpdatePoses(1, {}, {{3, At(1, 0, 0), false}}).ok());
  ASSERT_TRUE(scene->RemoveBodies({1}).ok());
  EXPECT_TRUE(scene->Snapshot().Groups().empty());
  status = scene->UpdatePoses(2, {}, {{3, At(0, 0, 0), false}});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  Pose3 bad = At(0, 0, 0);
  bad.position.x = std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(
      scene->UpsertBodies({Part(2, 4, 0, Ball(0.3f), At(0, 0, 0))}).ok());
  status = scene->UpdatePoses(3, {}, {{4, bad, false}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("group_updates[0].pose"), std::string::npos);
}

TEST(HitboxGroupTest, TwoDimensionalGroupsRotateTheirParts) {
  auto scene = Scene2::Create().value();
  BodyDesc<2> part;
  part.id = 1;
  part.group_id = 2;
  part.part = 5;
  part.shape = std::make_shared<const Shape2>(Circle{0.25f});
  part.pose = Pose2::FromAngle({1, 0}, 0.0f);
  ASSERT_TRUE(scene->UpsertBodies({part}).ok());
  ASSERT_TRUE(
      scene->UpdatePoses(1, {}, {{2, Pose2::FromAngle({3, 0}, kPi / 2), false}})
          .ok());
  QueryOptions options = Closest();
  const auto result =
      scene->Snapshot().RayCast({3, 5}, {0, -1}, 10.0f, options);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->hits.size(), 1u);
  EXPECT_EQ(result->hits[0].part, 5);
  EXPECT_NEAR(result->hits[0].distance, 5.0f - 1.0f - 0.25f, 1e-4f);
}

}  // namespace
}  // namespace sator::scene
