// End-to-end: examples/hitscan against the real satord, on one server and
// sharded over two. The example checks its own verdicts (exit 0); the test
// reads every verdict it printed and compares it with the one the scenario
// implies, worked out by hand below.
//
// The scenario at tick 30, 60 ticks a second: player 1's eye at (0, 1.6, 0);
// shots claim their target and carry a 100 ms view delay (tick 24) unless
// said otherwise. Player 2's feet are at (-6 + 0.25 t, 0, 20), player 3's at
// (8, 0, 20); a torso is a capsule of radius 0.3 from 1.0 to 1.4 up, a head
// a sphere of radius 0.2 at 1.75 up; the wall spans x in [4, 8], y in
// [0, 3], z in [11.75, 12.25].
#include <string>

#include "e2e/example_program.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/satord_process.h"

namespace sator::testing {
namespace {

using ::testing::HasSubstr;

void ExpectVerdicts(const ProgramResult& run) {
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("tick 30: 6 shots judged"));
  // At tick 24 player 2's torso axis is at x = 0, z = 20: the ray aimed at
  // its centre meets the capsule at z = 19.7, 19.7 * |(0, -0.4, 20)| / 20 =
  // 19.70 along the shot.
  EXPECT_THAT(run.output,
              HasSubstr("shot 1 (at player 2's torso, seen 100 ms ago): hit "
                        "(hit) at tick 24: player 2's torso at 19.70\n"));
  // At tick 30 player 2 is at x = 1.5: the ray (all at x = 0) passes 1.5
  // from the torso axis, 1.5 - 0.3 = 1.20 from its surface.
  EXPECT_THAT(run.output,
              HasSubstr("shot 2 (the same, judged at the current tick): miss "
                        "(target_missed) at tick 30, 1.20 from the target\n"));
  // The ray to player 3's torso, (8, -0.4, 20) long 21.544, reaches the
  // wall's face z = 11.75 at x = 4.7, y = 1.365: 11.75 / 20 * 21.544 = 12.66.
  // Past the wall it would go through the torso's centre: 0 from it.
  EXPECT_THAT(run.output,
              HasSubstr("shot 3 (at player 3, behind the wall): miss "
                        "(blocked_by_world) at tick 24: level body 2 at "
                        "12.66, 0.00 from the target\n"));
  // 500 ms is 30 ticks; the policy allows 250 ms (15 ticks), so the shot is
  // judged at tick 15, where player 2's head is at (-2.25, 1.75, 20):
  // |(-2.25, 0.15, 20)| - 0.2 = 19.93.
  EXPECT_THAT(run.output,
              HasSubstr("shot 4 (at player 2's head, seen 500 ms ago): hit "
                        "(clamped) at tick 15: player 2's head at 19.93\n"));
  // 30 units from the shooter's hitboxes, beyond the default 2.
  EXPECT_THAT(run.output, HasSubstr("shot 5 (from 30 units away): rejected "
                                    "(origin_too_far)\n"));
  // A negative delay is a view time after tick 30.
  EXPECT_THAT(run.output,
              HasSubstr("shot 6 (seen 50 ms in the future): rejected "
                        "(in_future)\n"));
}

TEST(ExampleHitscan, JudgesShotsAsTheShooterSawThem) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({}).ok()) << satord.ReadLog();
  absl::StatusOr<ProgramResult> run =
      RunProgram(EXAMPLE_HITSCAN_PATH, {satord.grpc_target()});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectVerdicts(*run);
}

TEST(ExampleHitscan, WorksShardedOverTwoServers) {
  SatordProcess first;
  SatordProcess second;
  ASSERT_TRUE(first.Start({}).ok()) << first.ReadLog();
  ASSERT_TRUE(second.Start({}).ok()) << second.ReadLog();
  absl::StatusOr<ProgramResult> run = RunProgram(
      EXAMPLE_HITSCAN_PATH, {first.grpc_target() + "," + second.grpc_target()});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectVerdicts(*run);
}

}  // namespace
}  // namespace sator::testing
