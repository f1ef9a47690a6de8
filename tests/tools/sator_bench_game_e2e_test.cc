// sator-bench --mode=game against the real satord: a short run of one room
// answers every tick without errors, on both transports, and prints the
// JSON fields PERFORMANCE.md reads (the run's tick percentiles, satord's CPU
// per tick, the in-process core's and their ratio); the room-count search
// ends with a summary. No timing is asserted: only that the figures exist
// and are ordered.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "support/satord_process.h"

namespace sator::testing {
namespace {

struct Output {
  int exit_code = -1;
  std::string text;
};

Output RunBench(const std::string& args) {
  const std::string command =
      absl::StrCat(SATOR_BENCH_PATH, " --mode=game --json ", args, " 2>&1");
  Output output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) {
    output.text += buffer;
  }
  const int status = pclose(pipe);
  output.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

// The numeric fields of a flat JSON object: "name":number pairs.
std::map<std::string, double> Numbers(const std::string& json) {
  std::map<std::string, double> numbers;
  std::size_t at = 0;
  while ((at = json.find('"', at)) != std::string::npos) {
    const std::size_t name_end = json.find('"', at + 1);
    if (name_end == std::string::npos) break;
    const std::string name = json.substr(at + 1, name_end - at - 1);
    at = name_end + 1;
    if (at >= json.size() || json[at] != ':') continue;
    const char* start = json.c_str() + at + 1;
    char* end = nullptr;
    const double value = std::strtod(start, &end);
    if (end != start) numbers[name] = value;
  }
  return numbers;
}

// The output's line of `phase`, or "".
std::string PhaseLine(const std::string& text, const std::string& phase) {
  for (const absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.find("\"phase\":\"" + phase + "\"") != absl::string_view::npos) {
      return std::string(line);
    }
  }
  return "";
}

class SatorBenchGameTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(satord_.Start({}).ok()); }

  std::string Args(const std::string& extra) const {
    return absl::StrCat("--target=", satord_.grpc_target(),
                        " --satord_pid=", satord_.pid(), " --core_ticks=60 ",
                        extra);
  }

  // The summary line's numbers, after checking the run's own line.
  std::map<std::string, double> ExpectGoodRun(const std::string& args,
                                              const std::string& phase,
                                              const std::string& transport) {
    const Output output = RunBench(Args(args));
    EXPECT_EQ(output.exit_code, 0) << output.text;
    const std::string step = PhaseLine(output.text, phase);
    const std::string summary = PhaseLine(output.text, "summary");
    EXPECT_FALSE(step.empty()) << output.text;
    EXPECT_FALSE(summary.empty()) << output.text;
    for (const std::string& line : {step, summary}) {
      EXPECT_NE(line.find("\"mode\":\"game\""), std::string::npos) << line;
      EXPECT_NE(line.find("\"transport\":\"" + transport + "\""),
                std::string::npos)
          << line;
    }
    std::map<std::string, double> n = Numbers(step);
    for (const char* key :
         {"rooms", "rate", "seconds", "ops", "errors", "qps", "p50_us",
          "p90_us", "p99_us", "p999_us", "max_us", "tick_budget_us",
          "ticks_sent", "bench_cpu_cores", "server_cpu_us_per_tick"}) {
      EXPECT_TRUE(n.contains(key)) << key << " in " << step;
    }
    EXPECT_EQ(n["errors"], 0.0) << step;
    EXPECT_GT(n["ops"], 0.0) << step;
    EXPECT_GE(n["ticks_sent"], n["ops"]) << step;
    EXPECT_GT(n["p50_us"], 0.0) << step;
    EXPECT_LE(n["p50_us"], n["p99_us"]) << step;
    EXPECT_LE(n["p99_us"], n["max_us"]) << step;
    std::map<std::string, double> s = Numbers(summary);
    for (const char* key :
         {"rooms", "errors", "p50_us", "p99_us", "max_us", "core_ticks",
          "core_cpu_us_per_tick", "core_contacts_us_per_tick",
          "core_sweeps_us_per_tick", "core_shots_us_per_tick",
          "server_cpu_us_per_tick", "server_to_core_cpu_ratio"}) {
      EXPECT_TRUE(s.contains(key)) << key << " in " << summary;
    }
    EXPECT_EQ(s["errors"], 0.0) << summary;
    EXPECT_EQ(s["core_ticks"], 60.0) << summary;
    EXPECT_GT(s["core_cpu_us_per_tick"], 0.0) << summary;
    EXPECT_GT(s["server_cpu_us_per_tick"], 0.0) << summary;
    return s;
  }

  SatordProcess satord_;
};

TEST_F(SatorBenchGameTest, OneRoomOnTheSession) {
  const auto s =
      ExpectGoodRun("--rooms=1 --duration=2s --warmup=0s", "fixed", "session");
  EXPECT_EQ(s.at("rooms"), 1.0);
}

TEST_F(SatorBenchGameTest, OneRoomWithAQueryBatch) {
  ExpectGoodRun("--rooms=1 --duration=1s --warmup=0s --game_transport=batch",
                "fixed", "batch");
}

// Whatever count the search finds on this machine, it ends with a run at
// that count (at least 1) and says what it found.
TEST_F(SatorBenchGameTest, SearchEndsWithASummary) {
  const auto s = ExpectGoodRun(
      "--rooms=max --max_rooms=2 --step_duration=0.5s --step_warmup=0s "
      "--duration=0.5s --warmup=0s --game_transport=batch",
      "confirm", "batch");
  ASSERT_TRUE(s.contains("max_rooms"));
  EXPECT_GE(s.at("max_rooms"), 0.0);
  EXPECT_LE(s.at("max_rooms"), 2.0);
  EXPECT_GE(s.at("rooms"), 1.0);
}

TEST_F(SatorBenchGameTest, RefusesBadFlags) {
  for (const std::string args :
       {"--rooms=0", "--rooms=many", "--game_transport=carrier-pigeon"}) {
    SCOPED_TRACE(args);
    const Output output = RunBench(Args(args));
    EXPECT_EQ(output.exit_code, 2) << output.text;
  }
}

}  // namespace
}  // namespace sator::testing
