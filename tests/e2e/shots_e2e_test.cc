// ValidateShots against the real satord, through sator::Client: a 3D arena
// built so that each of the 13 reasons has a shot that provokes it, with the
// outcome, reason, hit group and part, tick and fraction checked; every new
// request field refused with INVALID_ARGUMENT naming it; NOT_FOUND and
// RESOURCE_EXHAUSTED; the Session path; a 2D scene; the verdict and rewind
// metrics.
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/client/mocks/mock_connection.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using ::sator::testing::HttpGet;
using ::sator::testing::SatordProcess;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr float kTolerance = 1e-3f;
// The fixture's --max_batch_queries.
constexpr int kMaxShots = 16;

// Groups of the arena (each a player with a torso, part 1, and a head, part
// 2, a sphere of radius 0.25 one unit above the torso's centre).
constexpr std::uint64_t kShooter = 1;
constexpr std::uint64_t kTarget = 2;
constexpr std::uint64_t kBystander = 3;
constexpr std::uint64_t kBehindWall = 4;
constexpr std::uint64_t kRespawner = 5;
constexpr std::int32_t kTorso = 1;
constexpr std::int32_t kHead = 2;
constexpr std::uint64_t kWall = 100;
// The scene's current tick after SetUp; at 100 ticks per second, 10 ms each.
constexpr std::int64_t kCurrentTick = 10;

// The shooter's eye (its head's centre): every shot starts here unless it
// tests the origin.
const Vec3 kEye{0, 1, 0};

// A 3D scene "arena" at tick 10, 100 ticks per second, at most 50 ms (5
// ticks) of rewind, clamped. The shooter stands at the origin; the target
// at (10, 0, 0); a bystander at (5, 0, 3); a player behind a wall (a static
// box at (5, 1, -5)) at (10, 0, -10); a respawner at (20, 0, 20) up to
// tick 9 that teleports to (10, 0, 20) at tick 10. Every group stands still
// from tick 1 on (tick 0 has them all at the origin, where they start).
class ShotsEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        satord_.Start({absl::StrCat("--max_batch_queries=", kMaxShots)}).ok())
        << satord_.ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = satord_.grpc_target()});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    ASSERT_TRUE(
        client_
            ->CreateScene(
                "arena",
                {.dimension = Dimension::k3D,
                 .history_ticks = 32,
                 .tick_rate = 100.0f,
                 .hit_policy = HitPolicy{.max_rewind_ms = 50.0f,
                                         .on_too_old = RewindLimit::kClamp}})
            .ok());
    std::vector<Body> bodies;
    for (const std::uint64_t group :
         {kShooter, kTarget, kBystander, kBehindWall, kRespawner}) {
      bodies.push_back({.id = group * 10 + 1,
                        .shape = Sphere{0.5f},
                        .group_id = group,
                        .part = kTorso});
      bodies.push_back({.id = group * 10 + 2,
                        .shape = Sphere{0.25f},
                        .pose = Pose3{{0, 1, 0}, {}},
                        .group_id = group,
                        .part = kHead});
    }
    bodies.push_back({.id = kWall,
                      .shape = Box3{{0.1f, 1.0f, 1.0f}},
                      .pose = Pose3{{5, 1, -5}, {}},
                      .motion = MotionType::kStatic});
    ASSERT_TRUE(client_->UpsertBodies("arena", bodies).ok());
    for (std::int64_t tick = 1; tick <= kCurrentTick; ++tick) {
      PoseBatch poses;
      poses.AddGroup(kShooter, Pose3{{0, 0, 0}, {}});
      poses.AddGroup(kTarget, Pose3{{10, 0, 0}, {}});
      poses.AddGroup(kBystander, Pose3{{5, 0, 3}, {}});
      poses.AddGroup(kBehindWall, Pose3{{10, 0, -10}, {}});
      if (tick < kCurrentTick) {
        poses.AddGroup(kRespawner, Pose3{{20, 0, 20}, {}});
      } else {
        poses.AddGroup(kRespawner, Pose3{{10, 0, 20}, {}});
        poses.teleported_group_ids.push_back(kRespawner);
      }
      absl::StatusOr<std::int64_t> applied =
          client_->UpdatePoses("arena", tick, poses);
      ASSERT_TRUE(applied.ok()) << applied.status();
    }
  }

  // A ray shot from the shooter's eye towards `direction`, 100 long.
  static Shot ShotAt(std::uint64_t id, Vec3 direction) {
    return {.shot_id = id,
            .shooter_group_id = kShooter,
            .origin = kEye,
            .direction = direction,
            .range = 100.0f};
  }

  absl::StatusCode CodeOf(const std::vector<Shot>& shots,
                          const HitPolicy& policy = {},
                          std::string* message = nullptr) {
    absl::StatusOr<ValidateShotsResult> result =
        client_->ValidateShots("arena", shots, policy);
    if (message != nullptr) *message = std::string(result.status().message());
    return result.status().code();
  }

  // The sator_* samples of /metrics: "name{labels}" -> value.
  std::map<std::string, double> Scrape() {
    std::map<std::string, double> samples;
    absl::StatusOr<std::string> response =
        HttpGet(satord_.metrics_port(), "/metrics");
    EXPECT_TRUE(response.ok()) << response.status();
    if (!response.ok()) return samples;
    for (absl::string_view line : absl::StrSplit(*response, '\n')) {
      if (line.empty() || line.front() == '#') continue;
      const size_t space = line.rfind(' ');
      double value = 0;
      if (space != absl::string_view::npos &&
          absl::SimpleAtod(line.substr(space + 1), &value)) {
        samples[std::string(line.substr(0, space))] = value;
      }
    }
    return samples;
  }

  SatordProcess satord_;
  std::optional<Client> client_;
};

// Shot ids, one per reason provoked in EveryReason.
enum ShotId : std::uint64_t {
  kHitShot = 1,
  kClampedShot,
  kOtherTargetShot,
  kBlockedShot,
  kSkyShot,
  kMissedShot,
  kShortShot,
  kTeleportShot,
  kFutureShot,
  kUnknownShooterShot,
  kFarOriginShot,
  kUnknownTargetShot,
};

TEST_F(ShotsEndToEnd, EveryReason) {
  std::vector<Shot> shots;
  // Through the target's head, 25 ms ago: 2.5 ticks before tick 10.
  Shot hit = ShotAt(kHitShot, {1, 0, 0});
  hit.target = ShotTarget{.group_id = kTarget, .part = kHead};
  hit.view_time = ViewDelay{25.0};
  shots.push_back(hit);
  // The same a second ago: clamped to 50 ms (tick 5).
  Shot clamped = hit;
  clamped.shot_id = kClampedShot;
  clamped.view_time = ViewDelay{1000.0};
  shots.push_back(clamped);
  // At the target, but the bystander's head is on the line first.
  Shot other = ShotAt(kOtherTargetShot, {10, 0, 6});
  other.target = ShotTarget{.group_id = kTarget};
  shots.push_back(other);
  // Through the wall to the player behind it.
  Shot blocked = ShotAt(kBlockedShot, {1, 0, -1});
  blocked.target = ShotTarget{.group_id = kBehindWall};
  shots.push_back(blocked);
  // At the sky.
  shots.push_back(ShotAt(kSkyShot, {0, 1, 0}));
  // 0.25 over the target's head (origin half a unit above the eye).
  Shot missed = ShotAt(kMissedShot, {1, 0, 0});
  missed.origin = Vec3{0, 1.5f, 0};
  missed.target = ShotTarget{.group_id = kTarget};
  shots.push_back(missed);
  // At the target's head with a range of 5.
  Shot short_shot = hit;
  short_shot.shot_id = kShortShot;
  short_shot.range = 5.0f;
  short_shot.view_time = std::monostate{};
  shots.push_back(short_shot);
  // Where interpolation between ticks 9 and 10 would put the respawner's
  // head; a teleport cuts that interval, so it is still at (20, 1, 20).
  Shot teleport = ShotAt(kTeleportShot, {15, 0, 20});
  teleport.target = ShotTarget{.group_id = kRespawner};
  teleport.view_time = Rewind{.tick = 9, .fraction = 0.5f};
  shots.push_back(teleport);
  // 20 ms in the future.
  Shot future = hit;
  future.shot_id = kFutureShot;
  future.view_time = ViewDelay{-20.0};
  shots.push_back(future);
  // A shooter group that does not exist.
  Shot unknown_shooter = hit;
  unknown_shooter.shot_id = kUnknownShooterShot;
  unknown_shooter.shooter_group_id = 77;
  shots.push_back(unknown_shooter);
  // From 30 units to the side of the shooter.
  Shot far = hit;
  far.shot_id = kFarOriginShot;
  far.origin = Vec3{0, 1, 30};
  shots.push_back(far);
  // A claimed target group that does not exist.
  Shot unknown_target = hit;
  unknown_target.shot_id = kUnknownTargetShot;
  unknown_target.target = ShotTarget{.group_id = 99};
  shots.push_back(unknown_target);

  absl::StatusOr<ValidateShotsResult> result =
      client_->ValidateShots("arena", shots);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->current_tick, kCurrentTick);
  ASSERT_EQ(result->verdicts.size(), shots.size());
  for (std::size_t i = 0; i < shots.size(); ++i) {
    EXPECT_EQ(result->verdicts[i].shot_id, shots[i].shot_id);
  }
  const auto verdict = [&](ShotId id) -> const ShotVerdict& {
    return result->verdicts[static_cast<std::size_t>(id) - 1];
  };

  const ShotVerdict& hit_verdict = verdict(kHitShot);
  EXPECT_EQ(hit_verdict.outcome, ShotOutcome::kHit);
  EXPECT_EQ(hit_verdict.reason, ShotReason::kHit);
  ASSERT_TRUE(hit_verdict.hit.has_value());
  EXPECT_EQ(hit_verdict.hit->body_id, kTarget * 10 + 2);
  EXPECT_EQ(hit_verdict.hit->group_id, kTarget);
  EXPECT_EQ(hit_verdict.hit->part, kHead);
  EXPECT_NEAR(hit_verdict.hit->distance, 9.75f, kTolerance);
  EXPECT_NEAR(hit_verdict.hit->point.x, 9.75f, kTolerance);
  EXPECT_EQ(hit_verdict.tick, 7);
  EXPECT_NEAR(hit_verdict.fraction, 0.5f, kTolerance);
  EXPECT_NEAR(hit_verdict.rewind_ticks, 2.5, kTolerance);
  EXPECT_FALSE(hit_verdict.clamped);
  EXPECT_FALSE(hit_verdict.target_miss_distance.has_value());

  const ShotVerdict& clamped_verdict = verdict(kClampedShot);
  EXPECT_EQ(clamped_verdict.outcome, ShotOutcome::kHit);
  EXPECT_EQ(clamped_verdict.reason, ShotReason::kClamped);
  EXPECT_TRUE(clamped_verdict.clamped);
  EXPECT_EQ(clamped_verdict.tick, 5);
  EXPECT_EQ(clamped_verdict.fraction, 0.0f);
  EXPECT_NEAR(clamped_verdict.rewind_ticks, 5.0, kTolerance);
  ASSERT_TRUE(clamped_verdict.hit.has_value());
  EXPECT_EQ(clamped_verdict.hit->part, kHead);

  const ShotVerdict& other_verdict = verdict(kOtherTargetShot);
  EXPECT_EQ(other_verdict.outcome, ShotOutcome::kHit);
  EXPECT_EQ(other_verdict.reason, ShotReason::kOtherTargetHit);
  ASSERT_TRUE(other_verdict.hit.has_value());
  EXPECT_EQ(other_verdict.hit->group_id, kBystander);
  EXPECT_EQ(other_verdict.hit->part, kHead);
  EXPECT_EQ(other_verdict.tick, kCurrentTick);

  const ShotVerdict& blocked_verdict = verdict(kBlockedShot);
  EXPECT_EQ(blocked_verdict.outcome, ShotOutcome::kMiss);
  EXPECT_EQ(blocked_verdict.reason, ShotReason::kBlockedByWorld);
  ASSERT_TRUE(blocked_verdict.hit.has_value());
  EXPECT_EQ(blocked_verdict.hit->body_id, kWall);
  EXPECT_EQ(blocked_verdict.hit->group_id, 0u);
  // The line runs through the hidden player's head: no gap.
  ASSERT_TRUE(blocked_verdict.target_miss_distance.has_value());
  EXPECT_NEAR(*blocked_verdict.target_miss_distance, 0.0f, kTolerance);

  const ShotVerdict& sky_verdict = verdict(kSkyShot);
  EXPECT_EQ(sky_verdict.outcome, ShotOutcome::kMiss);
  EXPECT_EQ(sky_verdict.reason, ShotReason::kNothingHit);
  EXPECT_FALSE(sky_verdict.hit.has_value());

  const ShotVerdict& missed_verdict = verdict(kMissedShot);
  EXPECT_EQ(missed_verdict.outcome, ShotOutcome::kMiss);
  EXPECT_EQ(missed_verdict.reason, ShotReason::kTargetMissed);
  EXPECT_FALSE(missed_verdict.hit.has_value());
  ASSERT_TRUE(missed_verdict.target_miss_distance.has_value());
  EXPECT_NEAR(*missed_verdict.target_miss_distance, 0.25f, 1e-2f);

  const ShotVerdict& short_verdict = verdict(kShortShot);
  EXPECT_EQ(short_verdict.outcome, ShotOutcome::kMiss);
  EXPECT_EQ(short_verdict.reason, ShotReason::kOutOfRange);
  // The shot ends at (5, 1, 0); the target's nearest part there is its
  // torso: sqrt(26) - 0.5 (the head is 4.75 away).
  ASSERT_TRUE(short_verdict.target_miss_distance.has_value());
  EXPECT_NEAR(*short_verdict.target_miss_distance, std::sqrt(26.0f) - 0.5f,
              1e-2f);
  EXPECT_EQ(short_verdict.tick, kCurrentTick);
  EXPECT_EQ(short_verdict.rewind_ticks, 0.0);

  const ShotVerdict& teleport_verdict = verdict(kTeleportShot);
  EXPECT_EQ(teleport_verdict.outcome, ShotOutcome::kMiss);
  EXPECT_EQ(teleport_verdict.reason, ShotReason::kTargetTeleported);
  EXPECT_EQ(teleport_verdict.tick, 9);
  EXPECT_NEAR(teleport_verdict.fraction, 0.5f, kTolerance);

  for (const auto& [id, reason] : std::vector<std::pair<ShotId, ShotReason>>{
           {kFutureShot, ShotReason::kInFuture},
           {kUnknownShooterShot, ShotReason::kUnknownShooter},
           {kFarOriginShot, ShotReason::kOriginTooFar},
           {kUnknownTargetShot, ShotReason::kUnknownTarget}}) {
    EXPECT_EQ(verdict(id).outcome, ShotOutcome::kRejected) << id;
    EXPECT_EQ(verdict(id).reason, reason) << id;
    EXPECT_FALSE(verdict(id).hit.has_value()) << id;
  }

  // The 13th reason needs the other policy: a call that rejects what is
  // older than the limit (the scene's clamp is overridden for this call
  // only).
  absl::StatusOr<ValidateShotsResult> rejected = client_->ValidateShots(
      "arena", {clamped}, {.on_too_old = RewindLimit::kReject});
  ASSERT_TRUE(rejected.ok()) << rejected.status();
  ASSERT_EQ(rejected->verdicts.size(), 1u);
  EXPECT_EQ(rejected->verdicts[0].outcome, ShotOutcome::kRejected);
  EXPECT_EQ(rejected->verdicts[0].reason, ShotReason::kTooOld);
  // A tighter limit for this call (10 ms, one tick) rejects the 25 ms shot
  // the scene's own limit takes.
  absl::StatusOr<ValidateShotsResult> tighter = client_->ValidateShots(
      "arena", {hit},
      {.max_rewind_ms = 10.0f, .on_too_old = RewindLimit::kReject});
  ASSERT_TRUE(tighter.ok()) << tighter.status();
  EXPECT_EQ(tighter->verdicts[0].reason, ShotReason::kTooOld);
  // The scene's policy is unchanged by either call.
  absl::StatusOr<ValidateShotsResult> again =
      client_->ValidateShots("arena", {clamped});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->verdicts[0].reason, ShotReason::kClamped);
}

TEST_F(ShotsEndToEnd, RaycastBatchNamesTheGroupAndPartOfEachHit) {
  // Ray 0 meets the wall (in no group), then the bystander's head; ray 1
  // the target's head.
  const std::vector<RaycastQuery> rays = {{.origin = Vec3{5, 1, -8},
                                           .direction = Vec3{0, 0, 1},
                                           .max_distance = 100},
                                          {.origin = Vec3{2, 1, 0},
                                           .direction = Vec3{1, 0, 0},
                                           .max_distance = 100}};
  absl::StatusOr<RaycastBatchResult> result =
      client_->RaycastBatch("arena", rays, {.mode = ResultMode::kAll});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->HitsOf(0).size(), 2u);
  EXPECT_EQ(result->HitsOf(0)[0].body_id, kWall);
  EXPECT_EQ(result->HitsOf(0)[0].group_id, 0u);
  EXPECT_EQ(result->HitsOf(0)[0].part, 0);
  EXPECT_EQ(result->HitsOf(0)[1].group_id, kBystander);
  EXPECT_EQ(result->HitsOf(0)[1].part, kHead);
  ASSERT_EQ(result->HitsOf(1).size(), 1u);
  EXPECT_EQ(result->HitsOf(1)[0].body_id, kTarget * 10 + 2);
  EXPECT_EQ(result->HitsOf(1)[0].group_id, kTarget);
  EXPECT_EQ(result->HitsOf(1)[0].part, kHead);
  // A batch whose first hit is on a group.
  absl::StatusOr<RaycastBatchResult> head_first =
      client_->RaycastBatch("arena", {rays[1], rays[0]});
  ASSERT_TRUE(head_first.ok()) << head_first.status();
  ASSERT_EQ(head_first->hits.size(), 2u);
  EXPECT_EQ(head_first->hits[0].group_id, kTarget);
  EXPECT_EQ(head_first->hits[0].part, kHead);
  EXPECT_EQ(head_first->hits[1].group_id, 0u);
  // A batch that meets no group: every hit in no group.
  absl::StatusOr<RaycastBatchResult> wall_only =
      client_->RaycastBatch("arena", {{.origin = Vec3{5, 1, -8},
                                       .direction = Vec3{0, 0, 1},
                                       .max_distance = 3}});
  ASSERT_TRUE(wall_only.ok()) << wall_only.status();
  ASSERT_EQ(wall_only->hits.size(), 1u);
  EXPECT_EQ(wall_only->hits[0].group_id, 0u);
}

TEST_F(ShotsEndToEnd, SweptSphereAndFriendlyFilter) {
  // A sphere of radius 0.3 swept 0.5 over the head (gap 0.25) touches it.
  Shot thick = ShotAt(1, {1, 0, 0});
  thick.origin = Vec3{0, 1.5f, 0};
  thick.shape = AnyShape(Shape3(Sphere{0.3f}));
  thick.target = ShotTarget{.group_id = kTarget};
  // The same ray, but the shot's mask leaves out every layer: the target is
  // friendly and the shot passes through it.
  Shot friendly = ShotAt(2, {1, 0, 0});
  friendly.mask = 0;
  absl::StatusOr<ValidateShotsResult> result =
      client_->ValidateShots("arena", {thick, friendly});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->verdicts[0].reason, ShotReason::kHit);
  ASSERT_TRUE(result->verdicts[0].hit.has_value());
  EXPECT_EQ(result->verdicts[0].hit->part, kHead);
  EXPECT_EQ(result->verdicts[1].reason, ShotReason::kNothingHit);
}

TEST_F(ShotsEndToEnd, BadInputNamesTheField) {
  const Shot good = ShotAt(1, {1, 0, 0});
  struct Case {
    const char* field;
    Shot shot;
    int index;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<Case> cases;
  Shot zero = good;
  zero.direction = Vec3{0, 0, 0};
  cases.push_back({"shots[1].direction: ", zero, 1});
  Shot origin = good;
  origin.origin = Vec3{nan, 0, 0};
  cases.push_back({"shots[1].origin.x: ", origin, 1});
  Shot range = good;
  range.range = 0.0f;
  cases.push_back({"shots[1].range: ", range, 1});
  Shot infinite_range = good;
  infinite_range.range = std::numeric_limits<float>::infinity();
  cases.push_back({"shots[1].range: ", infinite_range, 1});
  Shot box = good;
  box.shape = AnyShape(Shape3(Box3{{1, 1, 1}}));
  cases.push_back({"shots[2].shape: ", box, 2});
  Shot bad_sphere = good;
  bad_sphere.shape = AnyShape(Shape3(Sphere{-1.0f}));
  cases.push_back({"shots[1].shape.sphere.radius: ", bad_sphere, 1});
  Shot pose = good;
  pose.shape = AnyShape(Shape3(Sphere{0.1f}));
  pose.shape_pose = AnyPose(Pose3{{}, Quat{0, 0, 0, 0}});
  cases.push_back({"shots[1].shape_pose.orientation", pose, 1});
  Shot fraction = good;
  fraction.view_time = Rewind{.tick = 9, .fraction = 1.5f};
  cases.push_back({"shots[0].view_tick.fraction: ", fraction, 0});
  Shot tick = good;
  tick.view_time = Rewind{.tick = -1};
  cases.push_back({"shots[0].view_tick.tick: ", tick, 0});
  Shot delay = good;
  delay.view_time = ViewDelay{std::numeric_limits<double>::infinity()};
  cases.push_back({"shots[0].view_delay_ms: ", delay, 0});
  for (const Case& c : cases) {
    std::vector<Shot> shots(static_cast<std::size_t>(c.index), good);
    shots.push_back(c.shot);
    std::string message;
    EXPECT_EQ(CodeOf(shots, {}, &message), absl::StatusCode::kInvalidArgument)
        << c.field;
    EXPECT_THAT(message, StartsWith(c.field));
  }

  for (const auto& [field, policy] :
       std::vector<std::pair<const char*, HitPolicy>>{
           {"policy.max_rewind_ms: ", {.max_rewind_ms = -1.0f}},
           {"policy.max_rewind_ms: ", {.max_rewind_ms = nan}},
           {"policy.max_origin_distance: ", {.max_origin_distance = nan}},
           {"policy.on_too_old: ",
            {.on_too_old = static_cast<RewindLimit>(7)}}}) {
    std::string message;
    EXPECT_EQ(CodeOf({good}, policy, &message),
              absl::StatusCode::kInvalidArgument)
        << field;
    EXPECT_THAT(message, StartsWith(field));
  }

  // No shots: the policy is still checked.
  std::string message;
  EXPECT_EQ(CodeOf({}, {.max_rewind_ms = -1.0f}, &message),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(message, StartsWith("policy.max_rewind_ms: "));
  EXPECT_EQ(CodeOf(std::vector<Shot>(kMaxShots + 1, good), {}, &message),
            absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(message, StartsWith("shots: at most 16"));
  // The limit is inclusive.
  EXPECT_EQ(CodeOf(std::vector<Shot>(kMaxShots, good)), absl::StatusCode::kOk);

  absl::StatusOr<ValidateShotsResult> missing =
      client_->ValidateShots("nosuch", {good});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              StartsWith("scene_id: "));
}

TEST_F(ShotsEndToEnd, NoShotsAnswerTheCurrentTick) {
  absl::StatusOr<ValidateShotsResult> unary =
      client_->ValidateShots("arena", {});
  ASSERT_TRUE(unary.ok()) << unary.status();
  EXPECT_TRUE(unary->verdicts.empty());
  EXPECT_EQ(unary->current_tick, kCurrentTick);

  absl::StatusOr<std::unique_ptr<Session>> session =
      client_->OpenSession("arena");
  ASSERT_TRUE(session.ok()) << session.status();
  absl::StatusOr<ValidateShotsResult> streamed =
      (*session)->SubmitShots({}).get();
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  EXPECT_TRUE(streamed->verdicts.empty());
  EXPECT_EQ(streamed->current_tick, kCurrentTick);
  EXPECT_TRUE((*session)->Close().ok());
}

TEST_F(ShotsEndToEnd, TwoDimensionalScene) {
  ASSERT_TRUE(client_
                  ->CreateScene(
                      "flat", {.dimension = Dimension::k2D, .tick_rate = 50.0f})
                  .ok());
  ASSERT_TRUE(
      client_
          ->UpsertBodies(
              "flat",
              {{.id = 1, .shape = Circle{0.5f}, .group_id = 1, .part = kTorso},
               {.id = 2, .shape = Circle{0.5f}, .group_id = 2, .part = kHead}})
          .ok());
  PoseBatch poses;
  poses.AddGroup(1, Pose2{{0, 0}, {}});
  poses.AddGroup(2, Pose2{{6, 0}, {}});
  ASSERT_TRUE(client_->UpdatePoses("flat", 1, poses).ok());
  ASSERT_TRUE(client_->UpdatePoses("flat", 2, PoseBatch{}).ok());
  Shot shot{.shot_id = 9,
            .shooter_group_id = 1,
            .origin = Vec2{0, 0},
            .direction = Vec2{1, 0},
            .range = 20.0f,
            .shape = AnyShape(Shape2(Circle{0.1f})),
            .target = ShotTarget{.group_id = 2},
            // 20 ms at 50 ticks per second: one tick back.
            .view_time = ViewDelay{20.0}};
  absl::StatusOr<ValidateShotsResult> result =
      client_->ValidateShots("flat", {shot});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->verdicts.size(), 1u);
  EXPECT_EQ(result->verdicts[0].reason, ShotReason::kHit);
  EXPECT_EQ(result->verdicts[0].tick, 1);
  ASSERT_TRUE(result->verdicts[0].hit.has_value());
  EXPECT_EQ(result->verdicts[0].hit->group_id, 2u);
  EXPECT_EQ(result->verdicts[0].hit->part, kHead);
  // The swept circle touches at 6 - 0.5 - 0.1.
  EXPECT_NEAR(result->verdicts[0].hit->distance, 5.4f, kTolerance);

  shot.shape = AnyShape(Shape3(Sphere{0.1f}));
  absl::StatusOr<ValidateShotsResult> sphere =
      client_->ValidateShots("flat", {shot});
  EXPECT_EQ(sphere.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(sphere.status().message()),
              StartsWith("shots[0].shape: must be a circle or a capsule2d"));
}

TEST_F(ShotsEndToEnd, SessionShots) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      client_->OpenSession("arena");
  ASSERT_TRUE(session.ok()) << session.status();
  Shot hit = ShotAt(5, {1, 0, 0});
  hit.target = ShotTarget{.group_id = kTarget};
  hit.view_time = ViewDelay{25.0};
  absl::StatusOr<ValidateShotsResult> judged =
      (*session)->SubmitShots({hit}).get();
  ASSERT_TRUE(judged.ok()) << judged.status();
  ASSERT_EQ(judged->verdicts.size(), 1u);
  EXPECT_EQ(judged->verdicts[0].shot_id, 5u);
  EXPECT_EQ(judged->verdicts[0].reason, ShotReason::kHit);
  EXPECT_EQ(judged->verdicts[0].tick, 7);
  ASSERT_TRUE(judged->verdicts[0].hit.has_value());
  EXPECT_EQ(judged->verdicts[0].hit->part, kHead);
  // The call's policy applies in a session too.
  absl::StatusOr<ValidateShotsResult> rejected =
      (*session)
          ->SubmitShots({hit}, {.max_rewind_ms = 1.0f,
                                .on_too_old = RewindLimit::kReject})
          .get();
  ASSERT_TRUE(rejected.ok()) << rejected.status();
  EXPECT_EQ(rejected->verdicts[0].reason, ShotReason::kTooOld);
  // A bad shot fails its own message, named in the message's terms; the
  // stream goes on.
  Shot zero = hit;
  zero.direction = Vec3{0, 0, 0};
  absl::StatusOr<ValidateShotsResult> bad =
      (*session)->SubmitShots({hit, zero}).get();
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              StartsWith("shots.shots[1].direction: "));
  absl::StatusOr<ValidateShotsResult> too_many =
      (*session)->SubmitShots(std::vector<Shot>(kMaxShots + 1, hit)).get();
  EXPECT_EQ(too_many.status().code(), absl::StatusCode::kResourceExhausted);
  absl::StatusOr<ValidateShotsResult> after =
      (*session)->SubmitShots({hit}).get();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->verdicts[0].reason, ShotReason::kHit);
  EXPECT_TRUE((*session)->Close().ok());
}

TEST_F(ShotsEndToEnd, VerdictsAndRewindsAreCounted) {
  Shot hit = ShotAt(1, {1, 0, 0});
  hit.target = ShotTarget{.group_id = kTarget};
  hit.view_time = ViewDelay{25.0};
  Shot future = hit;
  future.view_time = ViewDelay{-20.0};
  Shot sky = ShotAt(2, {0, 1, 0});
  ASSERT_TRUE(client_->ValidateShots("arena", {hit, hit, future, sky}).ok());
  // A rewound scene query counts in the rewind depth too: 3 ticks back.
  ASSERT_TRUE(client_
                  ->Raycast("arena",
                            {.origin = Vec3{0, 1, 0},
                             .direction = Vec3{1, 0, 0},
                             .max_distance = 50.0f},
                            {.rewind = Rewind{.tick = 7}})
                  .ok());
  Shot zero = hit;
  zero.direction = Vec3{0, 0, 0};
  EXPECT_EQ(CodeOf({zero}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(client_->ValidateShots("nosuch", {hit}).status().code(),
            absl::StatusCode::kNotFound);

  const std::map<std::string, double> samples = Scrape();
  EXPECT_EQ(
      samples.at(R"(sator_shot_verdicts_total{outcome="hit",reason="hit"})"),
      2);
  EXPECT_EQ(
      samples.at(
          R"(sator_shot_verdicts_total{outcome="rejected",reason="in_future"})"),
      1);
  EXPECT_EQ(
      samples.at(
          R"(sator_shot_verdicts_total{outcome="miss",reason="nothing_hit"})"),
      1);
  EXPECT_EQ(
      samples.count(
          R"(sator_shot_verdicts_total{outcome="miss",reason="target_missed"})"),
      0u);
  // Judged at a view time: the two hits (2.5 ticks), the sky shot (0) and
  // the raycast (3 ticks); not the shot from the future.
  EXPECT_EQ(samples.at("sator_rewind_depth_ticks_count"), 4);
  EXPECT_NEAR(samples.at("sator_rewind_depth_ticks_sum"), 2.5 + 2.5 + 0 + 3,
              1e-3);
  EXPECT_EQ(samples.at(R"(sator_rewind_depth_ticks_bucket{le="0"})"), 1);
  EXPECT_EQ(samples.at(R"(sator_rewind_depth_ticks_bucket{le="2"})"), 1);
  EXPECT_EQ(samples.at(R"(sator_rewind_depth_ticks_bucket{le="5"})"), 4);
  EXPECT_EQ(
      samples.at(
          R"(sator_errors_total{code="INVALID_ARGUMENT",kind="shots",via="unary"})"),
      1);
  EXPECT_EQ(
      samples.at(
          R"(sator_errors_total{code="NOT_FOUND",kind="shots",via="unary"})"),
      1);
}

TEST(ViewDelayToRewind, SplitsTheDelayAndRefusesBadInput) {
  absl::StatusOr<Rewind> rewind = ViewDelayToRewind(10, 100.0, 25.0);
  ASSERT_TRUE(rewind.ok()) << rewind.status();
  EXPECT_EQ(rewind->tick, 7);
  EXPECT_NEAR(rewind->fraction, 0.5f, 1e-6f);
  // A fraction never reaches 1: just under a whole tick rounds up to it.
  absl::StatusOr<Rewind> whole = ViewDelayToRewind(10, 60.0, 1000.0 / 60.0);
  ASSERT_TRUE(whole.ok());
  EXPECT_LT(whole->fraction, 1.0f);
  EXPECT_EQ(ViewDelayToRewind(-1, 60.0, 0.0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ViewDelayToRewind(10, 0.0, 0.0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ViewDelayToRewind(10, 60.0, std::nan("")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ViewDelayToRewind(1, 60.0, 1000.0).status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST(MockConnection, ValidateShotsGoesThroughTheConnection) {
  auto connection = std::make_shared<::testing::StrictMock<MockConnection>>();
  ValidateShotsResult answer;
  answer.current_tick = 3;
  answer.verdicts.push_back({.shot_id = 4,
                             .outcome = ShotOutcome::kMiss,
                             .reason = ShotReason::kTargetMissed,
                             .target_miss_distance = 0.02f});
  EXPECT_CALL(*connection, ValidateShots("arena", ::testing::SizeIs(1),
                                         ::testing::_, ::testing::_))
      .WillOnce(::testing::Return(answer));
  Client client(connection);
  absl::StatusOr<ValidateShotsResult> result =
      client.ValidateShots("arena", {Shot{.shot_id = 4}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->verdicts[0].reason, ShotReason::kTargetMissed);
  EXPECT_EQ(*result->verdicts[0].target_miss_distance, 0.02f);
}

}  // namespace
}  // namespace sator
