// Proximity (zones and areas of interest) on scenes worked out by hand:
// enter, stay, exit; the hysteresis band; anchors that are bodies or groups;
// removed and teleported bodies; bad input.
#include "sator/core/scene/proximity.h"

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/core/field_status.h"
#include "sator/core/scene/scene.h"

namespace sator::scene {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ShapePtr<2> CircleShape(float radius) {
  return std::make_shared<const Shape2>(Circle{radius});
}

BodyDesc<2> Ball(std::uint64_t id, Vec2 at, float radius = 0.5f) {
  BodyDesc<2> body;
  body.id = id;
  body.shape = CircleShape(radius);
  body.pose = Pose2::FromAngle(at, 0.0f);
  return body;
}

ProximityEvent Event(std::int64_t tick, ProximityEventKind kind,
                     ProximitySource source, std::uint64_t source_id,
                     std::uint64_t body_id, std::uint64_t group_id = 0) {
  return {tick, kind, source, source_id, {body_id, group_id}};
}
constexpr auto kEnter = ProximityEventKind::kEnter;
constexpr auto kExit = ProximityEventKind::kExit;
constexpr auto kInside = ProximityEventKind::kInside;
constexpr auto kZone = ProximitySource::kZone;
constexpr auto kObserver = ProximitySource::kObserver;

class ProximityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scene_ = Scene2::Create().value();
    state_ = ProximityState2::Create().value();
  }
  // Moves body `id` to `at` at the next tick and evaluates it.
  std::vector<ProximityEvent> MoveAndEvaluate(std::uint64_t id, Vec2 at,
                                              bool teleported = false) {
    ++tick_;
    EXPECT_TRUE(
        scene_
            ->UpdatePoses(tick_, {{PoseUpdate<2>{id, Pose2::FromAngle(at, 0.0f),
                                                 teleported}}})
            .ok());
    return Evaluate();
  }
  std::vector<ProximityEvent> Evaluate() {
    absl::StatusOr<ProximityTick> result = state_->Evaluate(scene_->Snapshot());
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) return {};
    EXPECT_EQ(result->tick, tick_);
    return result->events;
  }
  ZoneDesc<2> WorldZone(std::uint64_t id, Vec2 at, float radius) {
    ZoneDesc<2> zone;
    zone.id = id;
    zone.shape = CircleShape(radius);
    zone.pose = Pose2::FromAngle(at, 0.0f);
    return zone;
  }

  std::unique_ptr<Scene2> scene_;
  std::unique_ptr<ProximityState2> state_;
  std::int64_t tick_ = 0;
};

TEST_F(ProximityTest, ZoneReportsEnterStayAndExit) {
  ASSERT_TRUE(scene_->UpsertBodies({{Ball(1, {10, 0})}}).ok());
  ASSERT_TRUE(
      state_->AddZone(WorldZone(7, {0, 0}, 2.0f), scene_->Snapshot()).ok());
  EXPECT_THAT(Evaluate(), IsEmpty());
  // Centre 2.4 from the zone's: the circles (2 + 0.5) overlap.
  EXPECT_THAT(MoveAndEvaluate(1, {2.4f, 0}),
              ElementsAre(Event(1, kEnter, kZone, 7, 1)));
  EXPECT_THAT(MoveAndEvaluate(1, {1.0f, 0}), IsEmpty());
  EXPECT_THAT(MoveAndEvaluate(1, {-2.4f, 0}), IsEmpty());
  EXPECT_THAT(MoveAndEvaluate(1, {-2.6f, 0}),
              ElementsAre(Event(4, kExit, kZone, 7, 1)));
  EXPECT_THAT(MoveAndEvaluate(1, {-5.0f, 0}), IsEmpty());
}

TEST_F(ProximityTest, InsideIsReportedEveryTickWhenAskedFor) {
  ASSERT_TRUE(scene_->UpsertBodies({{Ball(1, {0, 0}), Ball(2, {9, 0})}}).ok());
  ZoneDesc<2> zone = WorldZone(3, {0, 0}, 1.0f);
  zone.report_inside = true;
  ASSERT_TRUE(state_->AddZone(zone, scene_->Snapshot()).ok());
  EXPECT_THAT(Evaluate(), ElementsAre(Event(0, kEnter, kZone, 3, 1)));
  EXPECT_THAT(MoveAndEvaluate(2, {0.5f, 0}),
              ElementsAre(Event(1, kInside, kZone, 3, 1),
                          Event(1, kEnter, kZone, 3, 2)));
  EXPECT_THAT(MoveAndEvaluate(1, {5.0f, 0}),
              ElementsAre(Event(2, kExit, kZone, 3, 1),
                          Event(2, kInside, kZone, 3, 2)));
}

TEST_F(ProximityTest, ObserverHysteresisDoesNotFlickerInTheBand) {
  // Observer body 100 at the origin, r = 10, h = 2; body 1 is a circle of
  // radius 0.5, so it is within r while its centre is within 10.5 and
  // beyond r + h once its centre is farther than 12.5.
  ASSERT_TRUE(
      scene_->UpsertBodies({{Ball(100, {0, 0}), Ball(1, {11, 0})}}).ok());
  ObserverDesc<2> observer;
  observer.id = 5;
  observer.anchor = {AnchorKind::kBody, 100};
  observer.radius = 10.0f;
  observer.hysteresis = 2.0f;
  ASSERT_TRUE(state_->AddObserver(observer, scene_->Snapshot()).ok());
  // In the band but never within r: not visible.
  EXPECT_THAT(Evaluate(), IsEmpty());
  EXPECT_THAT(MoveAndEvaluate(1, {12.0f, 0}), IsEmpty());
  EXPECT_THAT(MoveAndEvaluate(1, {10.4f, 0}),
              ElementsAre(Event(2, kEnter, kObserver, 5, 1)));
  // Oscillating within [r, r + h]: no events.
  for (const float x : {12.0f, 10.8f, 12.4f, 10.6f, 11.5f, 12.45f}) {
    EXPECT_THAT(MoveAndEvaluate(1, {0, x}), IsEmpty()) << x;
  }
  EXPECT_THAT(MoveAndEvaluate(1, {0, 12.6f}),
              ElementsAre(Event(9, kExit, kObserver, 5, 1)));
  EXPECT_THAT(MoveAndEvaluate(1, {0, 12.0f}), IsEmpty());
  EXPECT_THAT(MoveAndEvaluate(1, {-10.4f, 0}),
              ElementsAre(Event(11, kEnter, kObserver, 5, 1)));
  // The observer never sees itself.
  EXPECT_THAT(state_->CurrentSets()[0].objects,
              ElementsAre(ProximityObject{1, 0}));
}

TEST_F(ProximityTest, ZoneFollowsAGroupAndReportsGroups) {
  // Group 50 (parts 51, 52) carries a zone 5 ahead of it; group 60 (parts
  // 61, 62) is the object, reported once per group.
  std::vector<BodyDesc<2>> bodies;
  for (const auto& [id, group, x] :
       {std::tuple{51, 50, 0.0f}, std::tuple{52, 50, 1.0f},
        std::tuple{61, 60, 0.0f}, std::tuple{62, 60, 3.0f}}) {
    BodyDesc<2> body = Ball(static_cast<std::uint64_t>(id), {x, 0});
    body.group_id = static_cast<std::uint64_t>(group);
    bodies.push_back(body);
  }
  ASSERT_TRUE(scene_->UpsertBodies(bodies).ok());
  auto move_groups = [&](Vec2 at50, Vec2 at60) {
    ++tick_;
    EXPECT_TRUE(
        scene_
            ->UpdatePoses(
                tick_, {},
                {{GroupPoseUpdate<2>{50, Pose2::FromAngle(at50, 0.0f)},
                  GroupPoseUpdate<2>{60, Pose2::FromAngle(at60, 0.0f)}}})
            .ok());
    return Evaluate();
  };
  ZoneDesc<2> zone;
  zone.id = 9;
  zone.shape = std::make_shared<const Shape2>(Box2{{2.0f, 2.0f}});
  zone.pose = Pose2::FromAngle({5, 0}, 0.0f);
  zone.anchor = {AnchorKind::kGroup, 50};
  zone.report = ProximityReport::kPerGroup;
  ASSERT_TRUE(state_->AddZone(zone, scene_->Snapshot()).ok());
  // The zone spans x in [3, 7] around group 50's pose.
  EXPECT_THAT(move_groups({0, 0}, {100, 0}), IsEmpty());
  // Part 61 at 2.4 (reaches 2.9) is out, part 62 at 5.4 is in.
  EXPECT_THAT(move_groups({0, 0}, {2.4f, 0}),
              ElementsAre(Event(2, kEnter, kZone, 9, 0, 60)));
  // Part 61 at 4 joins: the group is already in.
  EXPECT_THAT(move_groups({0, 0}, {4.0f, 0}), IsEmpty());
  // The zone moves with group 50 (now [103, 107]); group 60 stays at 4.
  EXPECT_THAT(move_groups({100, 0}, {4.0f, 0}),
              ElementsAre(Event(4, kExit, kZone, 9, 0, 60)));
  EXPECT_THAT(move_groups({100, 0}, {104.0f, 0}),
              ElementsAre(Event(5, kEnter, kZone, 9, 0, 60)));
  EXPECT_THAT(state_->CurrentSets()[0].objects,
              ElementsAre(ProximityObject{0, 60}));
}

TEST_F(ProximityTest, AnAuraNeverReportsItsOwnBody) {
  ASSERT_TRUE(scene_
                  ->UpsertBodies(
                      {{Ball(100, {0, 0}), Ball(1, {1, 0}), Ball(2, {9, 0})}})
                  .ok());
  ZoneDesc<2> aura = WorldZone(4, {0, 0}, 3.0f);
  aura.anchor = {AnchorKind::kBody, 100};
  ASSERT_TRUE(state_->AddZone(aura, scene_->Snapshot()).ok());
  EXPECT_THAT(Evaluate(), ElementsAre(Event(0, kEnter, kZone, 4, 1)));
  // The aura follows body 100 to x = 8: body 1 leaves, body 2 comes in.
  EXPECT_THAT(
      MoveAndEvaluate(100, {8, 0}),
      ElementsAre(Event(1, kExit, kZone, 4, 1), Event(1, kEnter, kZone, 4, 2)));
}

TEST_F(ProximityTest, RemovedBodyExitsAndAnAbsentAnchorHoldsNothing) {
  ASSERT_TRUE(scene_
                  ->UpsertBodies(
                      {{Ball(100, {0, 0}), Ball(1, {1, 0}), Ball(2, {-1, 0})}})
                  .ok());
  ASSERT_TRUE(
      state_->AddZone(WorldZone(1, {0, 0}, 2.0f), scene_->Snapshot()).ok());
  ZoneDesc<2> aura = WorldZone(2, {0, 0}, 2.0f);
  aura.anchor = {AnchorKind::kBody, 100};
  ASSERT_TRUE(state_->AddZone(aura, scene_->Snapshot()).ok());
  EXPECT_THAT(Evaluate(), ElementsAre(Event(0, kEnter, kZone, 1, 1),
                                      Event(0, kEnter, kZone, 1, 2),
                                      Event(0, kEnter, kZone, 1, 100),
                                      Event(0, kEnter, kZone, 2, 1),
                                      Event(0, kEnter, kZone, 2, 2)));
  ASSERT_TRUE(scene_->RemoveBodies({{1}}).ok());
  ++tick_;
  ASSERT_TRUE(scene_->UpdatePoses(tick_, {}).ok());
  EXPECT_THAT(Evaluate(), ElementsAre(Event(1, kExit, kZone, 1, 1),
                                      Event(1, kExit, kZone, 2, 1)));
  // The aura's anchor goes: it holds nothing until the body is back.
  ASSERT_TRUE(scene_->RemoveBodies({{100}}).ok());
  ++tick_;
  ASSERT_TRUE(scene_->UpdatePoses(tick_, {}).ok());
  EXPECT_THAT(Evaluate(), ElementsAre(Event(2, kExit, kZone, 1, 100),
                                      Event(2, kExit, kZone, 2, 2)));
  ASSERT_TRUE(scene_->UpsertBodies({{Ball(100, {-1.5f, 0})}}).ok());
  EXPECT_THAT(Evaluate(), ElementsAre(Event(2, kEnter, kZone, 1, 100),
                                      Event(2, kEnter, kZone, 2, 2)));
}

// A zone restored from a snapshot may name an anchor removed since it was
// registered: with kMayBeAbsent it is kept and holds nothing until the
// anchor is back; an anchor of no kind or id 0 is still refused.
TEST_F(ProximityTest, AnchorMayBeAbsentWhenAsked) {
  ASSERT_TRUE(scene_->UpsertBodies({{Ball(1, {1, 0})}}).ok());
  ZoneDesc<2> aura = WorldZone(2, {0, 0}, 2.0f);
  aura.anchor = {AnchorKind::kBody, 100};
  EXPECT_EQ(state_->AddZone(aura, scene_->Snapshot()).code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(
      state_->AddZone(aura, scene_->Snapshot(), AnchorPresence::kMayBeAbsent)
          .ok());
  ObserverDesc<2> eyes;
  eyes.id = 3;
  eyes.anchor = {AnchorKind::kGroup, 7};
  eyes.radius = 5.0f;
  ASSERT_TRUE(
      state_
          ->AddObserver(eyes, scene_->Snapshot(), AnchorPresence::kMayBeAbsent)
          .ok());
  ObserverDesc<2> no_id = eyes;
  no_id.id = 4;
  no_id.anchor = {AnchorKind::kBody, 0};
  EXPECT_EQ(
      state_
          ->AddObserver(no_id, scene_->Snapshot(), AnchorPresence::kMayBeAbsent)
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Evaluate(), IsEmpty());
  ASSERT_TRUE(scene_->UpsertBodies({{Ball(100, {0, 0})}}).ok());
  EXPECT_THAT(Evaluate(), ElementsAre(Event(0, kEnter, kZone, 2, 1)));
}

TEST_F(ProximityTest, TeleportedBodyLeavesOneZoneAndEntersAnother) {
  ASSERT_TRUE(scene_->UpsertBodies({{Ball(1, {0, 0})}}).ok());
  ASSERT_TRUE(
      state_->AddZone(WorldZone(1, {0, 0}, 1.0f), scene_->Snapshot()).ok());
  ASSERT_TRUE(
      state_->AddZone(WorldZone(2, {500, 0}, 1.0f), scene_->Snapshot()).ok());
  ASSERT_TRUE(
      state_->AddZone(WorldZone(3, {250, 0}, 1.0f), scene_->Snapshot()).ok());
  EXPECT_THAT(Evaluate(), ElementsAre(Event(0, kEnter, kZone, 1, 1)));
  // Straight through zone 3's place, in one tick: judged where it landed.
  EXPECT_THAT(
      MoveAndEvaluate(1, {500, 0}, /*teleported=*/true),
      ElementsAre(Event(1, kExit, kZone, 1, 1), Event(1, kEnter, kZone, 2, 1)));
}

TEST_F(ProximityTest, FiltersChooseTheObjects) {
  BodyDesc<2> wall = Ball(1, {0, 0});
  wall.motion = MotionType::kStatic;
  BodyDesc<2> ghost = Ball(2, {0.5f, 0});
  ghost.layer = 4;
  ASSERT_TRUE(scene_
                  ->UpsertBodies(
                      {{wall, ghost, Ball(3, {-0.5f, 0}), Ball(4, {0, 0.5f})}})
                  .ok());
  ZoneDesc<2> zone = WorldZone(1, {0, 0}, 2.0f);
  zone.filter.mask = ~std::uint64_t{4};
  zone.filter.motion = MotionSelection::kDynamicOnly;
  zone.filter.excluded_ids = {4};
  ASSERT_TRUE(state_->AddZone(zone, scene_->Snapshot()).ok());
  EXPECT_THAT(Evaluate(), ElementsAre(Event(0, kEnter, kZone, 1, 3)));
}

TEST_F(ProximityTest, CurrentSetsAreTheSumOfTheEvents) {
  ASSERT_TRUE(
      scene_
          ->UpsertBodies({{Ball(1, {0, 0}), Ball(2, {3, 0}), Ball(3, {30, 0})}})
          .ok());
  ASSERT_TRUE(
      state_->AddZone(WorldZone(8, {0, 0}, 4.0f), scene_->Snapshot()).ok());
  ObserverDesc<2> observer;
  observer.id = 8;
  observer.anchor = {AnchorKind::kBody, 3};
  observer.radius = 5.0f;
  ASSERT_TRUE(state_->AddObserver(observer, scene_->Snapshot()).ok());
  EXPECT_THAT(state_->CurrentSets()[0].objects, IsEmpty());
  Evaluate();
  MoveAndEvaluate(3, {4, 0});
  const std::vector<ProximitySet> sets = state_->CurrentSets();
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].source, kZone);
  EXPECT_EQ(sets[0].source_id, 8u);
  EXPECT_THAT(sets[0].objects,
              ElementsAre(ProximityObject{1, 0}, ProximityObject{2, 0},
                          ProximityObject{3, 0}));
  EXPECT_EQ(sets[1].source, kObserver);
  // Bodies 2 and 1 at 1 and 4 from the observer (body 3 at x = 4).
  EXPECT_THAT(sets[1].objects,
              ElementsAre(ProximityObject{1, 0}, ProximityObject{2, 0}));
}

TEST_F(ProximityTest, BadInputIsRefusedWithTheField) {
  ASSERT_TRUE(scene_->UpsertBodies({{Ball(1, {0, 0})}}).ok());
  const SceneSnapshot<2> snapshot = scene_->Snapshot();
  ObserverDesc<2> observer;
  observer.id = 1;
  observer.anchor = {AnchorKind::kBody, 1};
  observer.radius = 1.0f;
  for (const float radius : {std::numeric_limits<float>::quiet_NaN(), -1.0f,
                             0.0f, std::numeric_limits<float>::infinity()}) {
    ObserverDesc<2> bad = observer;
    bad.radius = radius;
    const absl::Status status = state_->AddObserver(bad, snapshot);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << radius;
    EXPECT_THAT(status.message(), HasSubstr("radius:")) << radius;
  }
  for (const float hysteresis :
       {std::numeric_limits<float>::quiet_NaN(), -0.5f}) {
    ObserverDesc<2> bad = observer;
    bad.hysteresis = hysteresis;
    const absl::Status status = state_->AddObserver(bad, snapshot);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr("hysteresis:"));
  }
  // An enter radius too small to be a shape, though the leave radius with
  // the hysteresis is one.
  ObserverDesc<2> speck = observer;
  speck.radius = 1e-7f;
  speck.hysteresis = 1.0f;
  const absl::Status speck_status = state_->AddObserver(speck, snapshot);
  EXPECT_EQ(speck_status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FieldPathOf(speck_status), "radius");
  ObserverDesc<2> unknown = observer;
  unknown.anchor = {AnchorKind::kGroup, 77};
  EXPECT_EQ(state_->AddObserver(unknown, snapshot).code(),
            absl::StatusCode::kNotFound);
  unknown.anchor = {AnchorKind::kBody, 77};
  EXPECT_EQ(state_->AddObserver(unknown, snapshot).code(),
            absl::StatusCode::kNotFound);
  ObserverDesc<2> fixed = observer;
  fixed.anchor = {};
  EXPECT_THAT(state_->AddObserver(fixed, snapshot).message(),
              HasSubstr("anchor.kind:"));
  ObserverDesc<2> no_id = observer;
  no_id.id = 0;
  EXPECT_THAT(state_->AddObserver(no_id, snapshot).message(), HasSubstr("id:"));
  ASSERT_TRUE(state_->AddObserver(observer, snapshot).ok());
  EXPECT_EQ(state_->AddObserver(observer, snapshot).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(state_->RemoveObserver(2).code(), absl::StatusCode::kNotFound);

  ZoneDesc<2> zone = WorldZone(1, {0, 0}, 1.0f);
  ZoneDesc<2> no_shape = zone;
  no_shape.shape = nullptr;
  EXPECT_THAT(state_->AddZone(no_shape, snapshot).message(),
              HasSubstr("shape:"));
  ZoneDesc<2> bad_shape = zone;
  bad_shape.shape = CircleShape(-1.0f);
  EXPECT_THAT(state_->AddZone(bad_shape, snapshot).message(),
              HasSubstr("shape:"));
  ZoneDesc<2> bad_pose = zone;
  bad_pose.pose.position = {std::numeric_limits<float>::quiet_NaN(), 0};
  EXPECT_THAT(state_->AddZone(bad_pose, snapshot).message(),
              HasSubstr("pose:"));
  EXPECT_EQ(state_->RemoveZone(1).code(), absl::StatusCode::kNotFound);

  EXPECT_THAT(ProximityState2::Create({.max_zones = 0}).status().message(),
              HasSubstr("max_zones:"));
  auto small =
      ProximityState2::Create({.max_zones = 2, .max_observers = 1}).value();
  ASSERT_TRUE(small->AddZone(WorldZone(1, {0, 0}, 1), snapshot).ok());
  ASSERT_TRUE(small->AddZone(WorldZone(2, {0, 0}, 1), snapshot).ok());
  const absl::Status full = small->AddZone(WorldZone(3, {0, 0}, 1), snapshot);
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(full.message(), HasSubstr("zones:"));
  ASSERT_TRUE(small->RemoveZone(2).ok());
  EXPECT_TRUE(small->AddZone(WorldZone(3, {0, 0}, 1), snapshot).ok());
  ASSERT_TRUE(small->AddObserver(observer, snapshot).ok());
  observer.id = 2;
  EXPECT_EQ(small->AddObserver(observer, snapshot).code(),
            absl::StatusCode::kResourceExhausted);

  EXPECT_EQ(state_->Evaluate(SceneSnapshot<2>()).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(scene_->UpdatePoses(5, {}).ok());
  ASSERT_TRUE(state_->Evaluate(scene_->Snapshot()).ok());
  EXPECT_EQ(state_->last_tick(), 5);
  const absl::Status old = state_->Evaluate(snapshot).status();
  EXPECT_EQ(old.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(old.message(), HasSubstr("tick:"));
}

}  // namespace
}  // namespace sator::scene
