// End-to-end: examples/character against the real satord. The example checks
// its own outcome (exit 0: outside every body, stopped by the wall, slid
// along it); the test also reads what it printed.
#include <string>

#include "e2e/example_program.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/satord_process.h"

namespace sator::testing {
namespace {

using ::testing::HasSubstr;

TEST(ExampleCharacter, DepenetratesAndSlidesAlongTheWall) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({}).ok()) << satord.ReadLog();
  absl::StatusOr<ProgramResult> run =
      RunProgram(EXAMPLE_CHARACTER_PATH, {satord.grpc_target()});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, 0) << run->output;
  // It spawned inside the crate and was pushed out along +x.
  EXPECT_THAT(run->output, HasSubstr("depenetrated by (0.7"));
  EXPECT_THAT(run->output, HasSubstr("outside every body, stopped by the "
                                     "wall, slid along it"));
}

}  // namespace
}  // namespace sator::testing
