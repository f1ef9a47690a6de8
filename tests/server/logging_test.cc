#include "server/logging.h"

#include <cmath>

#include "gtest/gtest.h"

namespace sator::server {
namespace {

TEST(ParseLogLevel, AcceptsTheFourLevelsInAnyCase) {
  EXPECT_EQ(*ParseLogLevel("debug"), LogLevel::kDebug);
  EXPECT_EQ(*ParseLogLevel("INFO"), LogLevel::kInfo);
  EXPECT_EQ(*ParseLogLevel("warn"), LogLevel::kWarning);
  EXPECT_EQ(*ParseLogLevel("Warning"), LogLevel::kWarning);
  EXPECT_EQ(*ParseLogLevel("error"), LogLevel::kError);
}

TEST(ParseLogLevel, RefusesAnythingElseNamingTheValue) {
  absl::StatusOr<LogLevel> level = ParseLogLevel("loud");
  EXPECT_EQ(level.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(level.status().message().find("'loud'"), absl::string_view::npos);
}

TEST(FormatLogLine, WritesOneJsonObjectWithEscapedStrings) {
  const std::string line = FormatLogLine("2026-01-02T03:04:05.678Z",
                                         LogLevel::kWarning, "slow_query",
                                         {{"scene", "a\"b\\c\nd"},
                                          {"tick", std::int64_t{42}},
                                          {"ms", 1.5},
                                          {"rewound", true}});
  EXPECT_EQ(line,
            "{\"ts\":\"2026-01-02T03:04:05.678Z\",\"level\":\"warning\","
            "\"event\":\"slow_query\",\"scene\":\"a\\\"b\\\\c\\nd\","
            "\"tick\":42,\"ms\":1.5,\"rewound\":true}");
}

TEST(FormatLogLine, EscapesControlCharacters) {
  const std::string line =
      FormatLogLine("t", LogLevel::kInfo, "e", {{"k", "\x01"}});
  EXPECT_NE(line.find("\\u0001"), std::string::npos);
}

TEST(FormatLogLine, WritesNonFiniteNumbersAsNull) {
  const std::string line =
      FormatLogLine("t", LogLevel::kInfo, "e",
                    {{"nan", std::nan("")}, {"inf", HUGE_VAL}, {"ok", 2.0}});
  EXPECT_EQ(line,
            "{\"ts\":\"t\",\"level\":\"info\",\"event\":\"e\","
            "\"nan\":null,\"inf\":null,\"ok\":2}");
}

TEST(LogEnabled, FollowsTheMinimumLevel) {
  SetMinLogLevel(LogLevel::kWarning);
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo));
  EXPECT_TRUE(LogEnabled(LogLevel::kWarning));
  EXPECT_TRUE(LogEnabled(LogLevel::kError));
  SetMinLogLevel(LogLevel::kInfo);
  EXPECT_TRUE(LogEnabled(LogLevel::kInfo));
  EXPECT_FALSE(LogEnabled(LogLevel::kDebug));
}

}  // namespace
}  // namespace sator::server
