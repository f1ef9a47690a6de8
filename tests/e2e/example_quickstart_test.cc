// End-to-end: examples/quickstart against the real satord.
#include <string>

#include "e2e/example_program.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/satord_process.h"

namespace sator::testing {
namespace {

using ::testing::HasSubstr;

TEST(ExampleQuickstart, PingsAndGetsTheExpectedContact) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({}).ok());
  absl::StatusOr<ProgramResult> run =
      RunProgram(EXAMPLE_QUICKSTART_PATH, {satord.grpc_target()});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, 0) << run->output;
  EXPECT_THAT(run->output,
              HasSubstr("satord 0.1.0 at " + satord.grpc_target()));
  EXPECT_THAT(run->output, HasSubstr("overlapping=1 normal=(1, 0) depth=0.2"));
}

TEST(ExampleQuickstart, SaysSoWhenNoServerAnswers) {
  // Port 1 on loopback: nothing listens there.
  absl::StatusOr<ProgramResult> run =
      RunProgram(EXAMPLE_QUICKSTART_PATH, {"127.0.0.1:1"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, 1);
  EXPECT_THAT(run->output, HasSubstr("does not answer"));
}

}  // namespace
}  // namespace sator::testing
