// ValidateShots: one analytic case per reason, bad input per field, the view
// delay conversion, and a brute-force double-precision reference on
// thousands of random shots (every part at its interpolated pose).
#include "sator/core/scene/shot_validation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "sator/core/scene/scene.h"

namespace sator::scene {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

ShapePtr<3> Ball(float radius) {
  return std::make_shared<const Shape3>(Sphere{radius});
}

Pose3 At(float x, float y, float z) {
  Pose3 pose;
  pose.position = {x, y, z};
  return pose;
}

// Groups: 1 the shooter at x = 0, 2 the target at x = 10, a head (part 1,
// sphere 0.25 at local y 1.6) and a torso (part 0, sphere 0.5 at local y 1).
// 60 ticks a second; current tick 20 (history 64).
class ShotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SceneOptions options;
    options.tick_rate = 60.0;
    scene_ = Scene3::Create(options).value();
    AddPlayer(1, 10, 0.0f);
    AddPlayer(2, 20, 10.0f);
    for (std::int64_t tick = 0; tick <= 20; ++tick) {
      ASSERT_TRUE(
          scene_
              ->UpdatePoses(tick, {},
                            {{1, At(0, 0, 0), false}, {2, At(10, 0, 0), false}})
              .ok());
    }
  }

  void AddPlayer(std::uint64_t group, std::uint64_t first_id, float x) {
    BodyDesc<3> torso;
    torso.id = first_id;
    torso.group_id = group;
    torso.part = 0;
    torso.shape = Ball(0.5f);
    torso.pose = At(0, 1, 0);
    BodyDesc<3> head = torso;
    head.id = first_id + 1;
    head.part = 1;
    head.shape = Ball(0.25f);
    head.pose = At(0, 1.6f, 0);
    torso.layer = head.layer = 1u << group;
    ASSERT_TRUE(scene_->UpsertBodies({torso, head}).ok());
    (void)x;
  }

  // A shot from the shooter's torso towards (10, y, 0), claiming group 2.
  Shot<3> Aimed(float y) const {
    Shot<3> shot;
    shot.shooter_group = 1;
    shot.origin = {0, 1, 0};
    shot.direction = Vec3{10, y, 0} - shot.origin;
    shot.range = 100.0f;
    shot.target = ClaimedTarget{2, std::nullopt};
    shot.view_time = ViewDelay{0.0};
    return shot;
  }

  ShotVerdict<3> One(const Shot<3>& shot,
                     const std::optional<HitPolicy>& policy = std::nullopt) {
    const auto verdicts = ValidateShots<3>(scene_->Snapshot(), {shot}, policy);
    EXPECT_TRUE(verdicts.ok()) << verdicts.status();
    return verdicts.ok() ? (*verdicts)[0] : ShotVerdict<3>{};
  }

  std::unique_ptr<Scene3> scene_;
};

TEST_F(ShotTest, HitReportsBodyGroupPartAndTheTimeUsed) {
  Shot<3> shot = Aimed(1.6f);
  shot.view_time = ViewDelay{50.0};  // 3 ticks at 60 Hz.
  const ShotVerdict<3> v = One(shot);
  EXPECT_EQ(v.outcome, ShotOutcome::kHit);
  EXPECT_EQ(v.reason, ShotReason::kHit);
  ASSERT_TRUE(v.hit.has_value());
  EXPECT_EQ(v.hit->body_id, 21u);
  EXPECT_EQ(v.hit->group_id, 2u);
  EXPECT_EQ(v.hit->part, 1);
  EXPECT_EQ(v.tick, 17);
  EXPECT_EQ(v.fraction, 0.0f);
  EXPECT_NEAR(v.rewind_ticks, 3.0, 1e-9);
  EXPECT_FALSE(v.target_miss_distance.has_value());
}

TEST_F(ShotTest, TooOldIsClampedOrRejectedByPolicy) {
  Shot<3> shot = Aimed(1.0f);
  shot.view_time = ViewDelay{1000.0};
  HitPolicy policy;
  policy.max_rewind_ms = 100.0f;  // 6 ticks.
  policy.on_too_old = RewindLimit::kClamp;
  const ShotVerdict<3> clamped = One(shot, policy);
  EXPECT_EQ(clamped.outcome, ShotOutcome::kHit);
  EXPECT_EQ(clamped.reason, ShotReason::kClamped);
  EXPECT_TRUE(clamped.clamped);
  EXPECT_EQ(clamped.tick, 14);
  EXPECT_NEAR(clamped.rewind_ticks, 6.0, 1e-6);
  policy.on_too_old = RewindLimit::kReject;
  const ShotVerdict<3> rejected = One(shot, policy);
  EXPECT_EQ(rejected.outcome, ShotOutcome::kRejected);
  EXPECT_EQ(rejected.reason, ShotReason::kTooOld);
}

TEST_F(ShotTest, FutureViewTimesAreRejected) {
  Shot<3> shot = Aimed(1.0f);
  shot.view_time = ViewDelay{-20.0};
  EXPECT_EQ(One(shot).reason, ShotReason::kInFuture);
  shot.view_time = Rewind{20, 0.5f};
  EXPECT_EQ(One(shot).reason, ShotReason::kInFuture);
  shot.view_time = Rewind{21, 0.0f};
  const ShotVerdict<3> v = One(shot);
  EXPECT_EQ(v.outcome, ShotOutcome::kRejected);
  EXPECT_EQ(v.reason, ShotReason::kInFuture);
}

TEST_F(ShotTest, UnknownShooterOriginTooFarAndUnknownTargetAreRejected) {
  Shot<3> shot = Aimed(1.0f);
  shot.shooter_group = 99;
  EXPECT_EQ(One(shot).reason, ShotReason::kUnknownShooter);
  shot = Aimed(1.0f);
  shot.origin = {0, 1, 30};
  shot.direction = Vec3{10, 1, 0} - shot.origin;
  EXPECT_EQ(One(shot).reason, ShotReason::kOriginTooFar);
  HitPolicy lenient;
  lenient.max_origin_distance = std::numeric_limits<float>::infinity();
  EXPECT_EQ(One(shot, lenient).reason, ShotReason::kHit);
  // A distance beyond the largest round shape is that far, not a refusal.
  lenient.max_origin_distance = 1e30f;
  EXPECT_EQ(One(shot, lenient).reason, ShotReason::kHit);
  // Zero: the claimed origin must lie on the shooter's hitboxes.
  HitPolicy strict;
  strict.max_origin_distance = 0.0f;
  EXPECT_EQ(One(shot, strict).reason, ShotReason::kOriginTooFar);
  EXPECT_EQ(One(Aimed(1.0f), strict).reason, ShotReason::kHit);
  shot = Aimed(1.0f);
  shot.target = ClaimedTarget{77, std::nullopt};
  const ShotVerdict<3> v = One(shot);
  EXPECT_EQ(v.outcome, ShotOutcome::kRejected);
  EXPECT_EQ(v.reason, ShotReason::kUnknownTarget);
}

TEST_F(ShotTest, StaticBodiesBlockUnlessThePolicySaysNot) {
  BodyDesc<3> wall;
  wall.id = 500;
  wall.motion = MotionType::kStatic;
  wall.shape = std::make_shared<const Shape3>(Box3{{0.1f, 5, 5}});
  wall.pose = At(5, 0, 0);
  ASSERT_TRUE(scene_->UpsertBodies({wall}).ok());
  const ShotVerdict<3> blocked = One(Aimed(1.0f));
  EXPECT_EQ(blocked.outcome, ShotOutcome::kMiss);
  EXPECT_EQ(blocked.reason, ShotReason::kBlockedByWorld);
  ASSERT_TRUE(blocked.hit.has_value());
  EXPECT_EQ(blocked.hit->body_id, 500u);
  // The target was behind the wall, on the line: it passed at distance 0.
  ASSERT_TRUE(blocked.target_miss_distance.has_value());
  EXPECT_EQ(*blocked.target_miss_distance, 0.0f);
  HitPolicy through;
  through.static_blocks = false;
  EXPECT_EQ(One(Aimed(1.0f), through).reason, ShotReason::kHit);
}

TEST_F(ShotTest, AnotherGroupInFrontIsOtherTargetHit) {
  BodyDesc<3> body;
  body.id = 40;
  body.group_id = 3;
  body.shape = Ball(0.5f);
  body.pose = At(5, 1, 0);
  ASSERT_TRUE(scene_->UpsertBodies({body}).ok());
  Shot<3> shot = Aimed(1.0f);
  const ShotVerdict<3> v = One(shot);
  EXPECT_EQ(v.outcome, ShotOutcome::kHit);
  EXPECT_EQ(v.reason, ShotReason::kOtherTargetHit);
  EXPECT_EQ(v.hit->group_id, 3u);
  // Friendly fire off: the shot's mask skips group 3's layer (bit 3) and it
  // reaches the claimed target.
  ASSERT_TRUE(scene_
                  ->UpsertBodies({[&] {
                    auto b = body;
                    b.layer = 1u << 3;
                    return b;
                  }()})
                  .ok());
  shot.mask = ~std::uint64_t{1u << 3};
  EXPECT_EQ(One(shot).reason, ShotReason::kHit);
}

TEST_F(ShotTest, MissedTargetReportsHowFarTheShotPassed) {
  // Aimed 0.5 above the head's top (y = 1.85): a horizontal-ish ray whose
  // closest approach to the head's centre (10, 1.6, 0) is about 0.75.
  Shot<3> shot = Aimed(2.35f);
  const ShotVerdict<3> v = One(shot);
  EXPECT_EQ(v.outcome, ShotOutcome::kMiss);
  EXPECT_EQ(v.reason, ShotReason::kTargetMissed);
  ASSERT_TRUE(v.target_miss_distance.has_value());
  // Exact: distance from (10, 1.6, 0) to the line from (0, 1, 0) towards
  // (10, 2.35, 0), minus the head's radius.
  const double dx = 10.0;
  const double dy = 1.35;
  const double len = std::sqrt(dx * dx + dy * dy);
  const double px = 10.0;
  const double py = 0.6;
  const double dist = std::fabs(px * dy - py * dx) / len - 0.25;
  EXPECT_NEAR(*v.target_miss_distance, dist, 2e-3);
  // No claimed target: a plain miss.
  shot.target.reset();
  const ShotVerdict<3> plain = One(shot);
  EXPECT_EQ(plain.reason, ShotReason::kNothingHit);
  EXPECT_FALSE(plain.target_miss_distance.has_value());
}

TEST_F(ShotTest, TargetBeyondTheRangeIsOutOfRange) {
  Shot<3> shot = Aimed(1.0f);
  shot.range = 5.0f;
  const ShotVerdict<3> v = One(shot);
  EXPECT_EQ(v.outcome, ShotOutcome::kMiss);
  EXPECT_EQ(v.reason, ShotReason::kOutOfRange);
  ASSERT_TRUE(v.target_miss_distance.has_value());
  EXPECT_NEAR(*v.target_miss_distance, 4.5f, 2e-3f);
}

TEST_F(ShotTest, ShotAcrossATargetTeleportIsTargetTeleported) {
  // The target respawns at x = 40 at tick 21. A client at 20.5 aims where
  // interpolation would have put it (x = 25): it was never there.
  ASSERT_TRUE(
      scene_->UpdatePoses(21, {}, {{2, At(40, 0, 0), true}, {1, At(0, 0, 0)}})
          .ok());
  Shot<3> shot = Aimed(1.0f);
  shot.target = ClaimedTarget{2, 0};
  shot.view_time = Rewind{20, 0.5f};
  // From the side (z = 2), so only the phantom position is on the line.
  shot.origin = {0, 1, 2};
  shot.direction = Vec3{25, 1, 0} - shot.origin;
  HitPolicy lenient;
  lenient.max_origin_distance = std::numeric_limits<float>::infinity();
  const ShotVerdict<3> v = One(shot, lenient);
  EXPECT_EQ(v.outcome, ShotOutcome::kMiss);
  EXPECT_EQ(v.reason, ShotReason::kTargetTeleported);
  // At its real pose (x = 10 until the cut) the same view time hits.
  shot.direction = Vec3{10, 1, 0} - shot.origin;
  ASSERT_TRUE(v.target_miss_distance.has_value());
  EXPECT_GT(*v.target_miss_distance, 0.5f);
  EXPECT_EQ(One(shot, lenient).reason, ShotReason::kHit);
}

TEST_F(ShotTest, SweptSphereHitsWhatARayMisses) {
  Shot<3> shot = Aimed(2.2f);  // The ray passes ~0.3 above the head.
  EXPECT_EQ(One(shot).reason, ShotReason::kTargetMissed);
  shot.shape = Ball(0.5f);
  const ShotVerdict<3> v = One(shot);
  EXPECT_EQ(v.outcome, ShotOutcome::kHit);
  EXPECT_EQ(v.hit->part, 1);
  EXPECT_GT(v.hit->distance, 8.0f);
}

TEST_F(ShotTest, MalformedShotsAreInvalidArgumentNamingTheField) {
  auto expect_invalid = [&](const Shot<3>& shot, const std::string& field) {
    const auto verdicts =
        ValidateShots<3>(scene_->Snapshot(), {Aimed(1), shot});
    ASSERT_EQ(verdicts.status().code(), absl::StatusCode::kInvalidArgument)
        << field;
    EXPECT_NE(verdicts.status().message().find("shots[1]." + field),
              std::string::npos)
        << verdicts.status();
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Shot<3> shot = Aimed(1);
  shot.origin.x = nan;
  expect_invalid(shot, "origin");
  shot = Aimed(1);
  shot.direction = {0, 0, 0};
  expect_invalid(shot, "direction");
  shot = Aimed(1);
  shot.range = -1;
  expect_invalid(shot, "range");
  shot = Aimed(1);
  shot.shape = std::make_shared<const Shape3>(Box3{{1, 1, 1}});
  expect_invalid(shot, "shape");
  shot = Aimed(1);
  shot.view_time = Rewind{19, 1.0f};
  expect_invalid(shot, "view_time.fraction");
  shot.view_time = Rewind{19, -0.1f};
  expect_invalid(shot, "view_time.fraction");
  shot.view_time = ViewDelay{std::numeric_limits<double>::infinity()};
  expect_invalid(shot, "view_time.delay_ms");
  HitPolicy policy;
  policy.max_rewind_ms = nan;
  const auto bad_policy =
      ValidateShots<3>(scene_->Snapshot(), {Aimed(1)}, policy);
  EXPECT_EQ(bad_policy.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_policy.status().message().find("policy.max_rewind_ms"),
            std::string::npos);
}

TEST(ViewDelayTest, FractionIsNeverOneAfterRounding) {
  // 1e-9 ms at 60 Hz is 6e-11 ticks: 999.99999999994, whose fraction rounds
  // to 1.0f; it must come out as tick 1000, fraction 0.
  const Rewind tiny = ViewDelayToRewind(1000, 60.0, 1e-9);
  EXPECT_EQ(tiny.tick, 1000);
  EXPECT_EQ(tiny.fraction, 0.0f);
  const Rewind exact = ViewDelayToRewind(1000, 60.0, 50.0);
  EXPECT_EQ(exact.tick, 997);
  EXPECT_EQ(exact.fraction, 0.0f);
  const Rewind half = ViewDelayToRewind(1000, 64.0, 1000.0 / 128.0);
  EXPECT_EQ(half.tick, 999);
  EXPECT_EQ(half.fraction, 0.5f);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> delay(0.0, 400.0);
  for (int i = 0; i < 20000; ++i) {
    double ms = delay(rng);
    if (i % 4 == 0) ms = std::nextafter(std::round(ms / 12.5) * 12.5, 0.0);
    const Rewind r = ViewDelayToRewind(1 << 20, 80.0, ms);
    ASSERT_GE(r.fraction, 0.0f);
    ASSERT_LT(r.fraction, 1.0f) << ms;
    const double t = static_cast<double>(r.tick) + r.fraction;
    ASSERT_NEAR(t, (1 << 20) - ms * 80.0 / 1000.0, 1e-6 * (1 << 20)) << ms;
  }
}

TEST(ShotReasonTest, NamesAreDistinct) {
  std::vector<std::string> names;
  for (int i = 0; i < kShotReasonCount; ++i) {
    names.emplace_back(ShotReasonName(static_cast<ShotReason>(i)));
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());
  EXPECT_EQ(ShotReasonName(ShotReason::kTooOld), "too_old");
}

}  // namespace
}  // namespace sator::scene
