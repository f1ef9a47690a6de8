// End-to-end: examples/hitscan against the real satord, on one server and
// sharded over two. The example checks its own outcome (exit 0); the test
// also reads what it printed.
#include <string>

#include "e2e/example_program.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/satord_process.h"

namespace sator::testing {
namespace {

using ::testing::HasSubstr;

void ExpectLagCompensatedShots(const ProgramResult& run) {
  EXPECT_EQ(run.exit_code, 0) << run.output;
  // Rewound to the shooter's view tick, the shot hits player 2's capsule.
  EXPECT_THAT(run.output, HasSubstr("shot at player 2 seen at tick 24: hit "
                                    "player 2 (body 200)"));
  // At the current tick the same ray misses: player 2 has moved on.
  EXPECT_THAT(run.output, HasSubstr("(no lag compensation): miss"));
  // Player 3 is behind the crate (level body 2).
  EXPECT_THAT(run.output,
              HasSubstr("shot at player 3 seen at tick 24: hit level body 2"));
}

TEST(ExampleHitscan, ValidatesShotsAtTheShootersViewTick) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({}).ok()) << satord.ReadLog();
  absl::StatusOr<ProgramResult> run =
      RunProgram(EXAMPLE_HITSCAN_PATH, {satord.grpc_target()});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectLagCompensatedShots(*run);
}

TEST(ExampleHitscan, WorksShardedOverTwoServers) {
  SatordProcess first;
  SatordProcess second;
  ASSERT_TRUE(first.Start({}).ok()) << first.ReadLog();
  ASSERT_TRUE(second.Start({}).ok()) << second.ReadLog();
  absl::StatusOr<ProgramResult> run = RunProgram(
      EXAMPLE_HITSCAN_PATH, {first.grpc_target() + "," + second.grpc_target()});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectLagCompensatedShots(*run);
}

}  // namespace
}  // namespace sator::testing
