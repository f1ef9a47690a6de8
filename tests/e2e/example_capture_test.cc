// End-to-end: examples/capture against the real satord. The example checks
// its own events (exit 0); the test reads the lines it printed and compares
// them with the walk worked out by hand below.
//
// Players 1 to 5 (circles of radius 0.5) walk on y = -4, -2, 0, 2, 4 at
// x = t - 11 at tick t; the zone is the circle of radius 5 at the origin, so
// a player is in while its centre is within 5.5 of the origin: on y = 0,
// |x| <= 5.5; on y = +-2, |x| <= sqrt(5.5^2 - 4) = 5.12; on y = +-4,
// |x| <= sqrt(5.5^2 - 16) = 3.77.
#include <string>

#include "e2e/example_program.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/satord_process.h"

namespace sator::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ExampleCapture, ReportsTheCrowdEnteringAndLeavingTheZone) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({}).ok()) << satord.ReadLog();
  absl::StatusOr<ProgramResult> run =
      RunProgram(EXAMPLE_CAPTURE_PATH, {satord.grpc_target()});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, 0) << run->output;
  // Tick 6, x = -5: in on y = 0 and y = +-2 (5 <= 5.12); on y = +-4 not
  // until tick 8, x = -3 (3 <= 3.77; at tick 7, 4 > 3.77).
  for (const char* line :
       {"tick 6: player 2 entered the capture zone\n",
        "tick 6: player 3 entered the capture zone\n",
        "tick 6: player 4 entered the capture zone\n",
        "tick 8: player 1 entered the capture zone\n",
        "tick 8: player 5 entered the capture zone\n",
        // Tick 15, x = 4 > 3.77; tick 17, x = 6 > 5.5.
        "tick 15: player 1 left the capture zone\n",
        "tick 15: player 5 left the capture zone\n",
        "tick 17: player 3 left the capture zone\n",
        // Neighbours' circles are 2 - 0.5 = 1.5 away, within
        // 3; the next line's 3.5 away, beyond 3: it never enters.
        "tick 1: player 1 now sees player 2\n",
        "tick 1: player 3 now sees player 2\n",
        "tick 1: player 3 now sees player 4\n"}) {
    EXPECT_THAT(run->output, HasSubstr(line));
  }
  EXPECT_THAT(run->output, Not(HasSubstr("player 1 now sees player 3")));
  EXPECT_THAT(run->output, Not(HasSubstr("no longer sees")));
  EXPECT_THAT(run->output,
              HasSubstr("after tick 20: the zone holds 0 players; 1 sees 2; "
                        "2 sees 1 3; 3 sees 2 4; 4 sees 3 5; 5 sees 4;"));
  EXPECT_THAT(run->output, HasSubstr("events as expected"));
}

}  // namespace
}  // namespace sator::testing
