// sator-bench against the real satord: every mode and both loops run without
// errors and print the JSON fields PERFORMANCE.md reads, with percentiles in
// order and the Ping comparison from the same run.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "support/satord_process.h"

namespace sator::testing {
namespace {

struct Output {
  int exit_code = -1;
  std::string text;
};

Output RunBench(const std::string& target, const std::string& args) {
  const std::string command =
      std::string(SATOR_BENCH_PATH) + " --target=" + target +
      " --json --warmup=0s --duration=1s " + args + " 2>&1";
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

class SatorBenchTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(satord_.Start({}).ok()); }

  void ExpectGoodRun(const std::string& args, const std::string& mode,
                     double items_per_op) {
    const Output output = RunBench(satord_.grpc_target(), args);
    ASSERT_EQ(output.exit_code, 0) << output.text;
    ASSERT_NE(output.text.find("\"mode\":\"" + mode + "\""), std::string::npos)
        << output.text;
    std::map<std::string, double> n = Numbers(output.text);
    for (const char* key :
         {"concurrency", "qps", "p50_us", "p99_us", "p999_us", "ping_p50_us",
          "ping_qps", "errors", "ops", "items_per_second"}) {
      ASSERT_TRUE(n.contains(key)) << key << " in " << output.text;
    }
    EXPECT_EQ(n["errors"], 0.0);
    EXPECT_GT(n["ops"], 0.0);
    EXPECT_GT(n["qps"], 0.0);
    EXPECT_GT(n["ping_qps"], 0.0);
    EXPECT_GT(n["p50_us"], 0.0);
    EXPECT_LE(n["p50_us"], n["p99_us"]);
    EXPECT_LE(n["p99_us"], n["p999_us"]);
    // Both printed with 6 significant digits.
    EXPECT_NEAR(n["items_per_second"], n["qps"] * items_per_op,
                2e-5 * n["items_per_second"] + 1e-6);
  }

  SatordProcess satord_;
};

TEST_F(SatorBenchTest, UnaryMixClosedLoop) {
  ExpectGoodRun(
      "--mode=unary --queries=raycast,overlap,sweep,contacts "
      "--bodies=2000 --concurrency=2",
      "unary", 1.0);
}

TEST_F(SatorBenchTest, BatchOpenLoop) {
  ExpectGoodRun(
      "--mode=batch --batch_size=50 --bodies=2000 --loop=open "
      "--rate=50 --concurrency=2 --core_rays=0",
      "batch", 50.0);
}

TEST_F(SatorBenchTest, RayBatchClosedLoop) {
  ExpectGoodRun(
      "--mode=raybatch --batch_size=64 --bodies=2000 --concurrency=2 "
      "--core_rays=0",
      "raybatch", 64.0);
}

// With --satord_pid and --core_rays, the run also reports satord's CPU over
// the window and the same rays answered in process, and their ratio.
TEST_F(SatorBenchTest, RayBatchReportsServerCpuAndTheInProcessRays) {
  const Output output =
      RunBench(satord_.grpc_target(),
               "--mode=raybatch --batch_size=64 --bodies=2000 --concurrency=2 "
               "--ping=false --core_rays=5000 --satord_pid=" +
                   std::to_string(satord_.pid()));
  ASSERT_EQ(output.exit_code, 0) << output.text;
  std::map<std::string, double> n = Numbers(output.text);
  for (const char* key :
       {"satord_cpu_cores", "core_rays", "core_rays_per_cpu_second"}) {
    ASSERT_TRUE(n.contains(key)) << key << " in " << output.text;
  }
  // satord's process has at most this machine's cores busy, and the
  // service's rays per server core lie below twice the core's own.
  EXPECT_GT(n["satord_cpu_cores"], 0.0);
  EXPECT_LE(n["satord_cpu_cores"],
            static_cast<double>(std::thread::hardware_concurrency()) + 0.5);
  EXPECT_EQ(n["core_rays"], 5000.0);
  EXPECT_GT(n["core_rays_per_cpu_second"], 0.0);
  ASSERT_TRUE(n.contains("share_of_core")) << output.text;
  EXPECT_GT(n["share_of_core"], 0.0);
  EXPECT_LT(n["share_of_core"], 2.0);
  EXPECT_GE(n["core_spread"], 0.0);
}

// A --satord_pid that names no process is refused before any load.
TEST_F(SatorBenchTest, RefusesAPidWithNoProcess) {
  const Output output = RunBench(
      satord_.grpc_target(),
      "--mode=raybatch --batch_size=16 --bodies=500 --satord_pid=1073741824");
  EXPECT_EQ(output.exit_code, 2) << output.text;
  EXPECT_NE(output.text.find("--satord_pid"), std::string::npos) << output.text;
}

// Without --satord_pid nothing about satord's CPU is printed.
TEST_F(SatorBenchTest, RayBatchWithoutThePidReportsNoServerCpu) {
  const Output output =
      RunBench(satord_.grpc_target(),
               "--mode=raybatch --batch_size=16 --bodies=500 --ping=false "
               "--core_rays=0");
  ASSERT_EQ(output.exit_code, 0) << output.text;
  EXPECT_EQ(output.text.find("satord_cpu_cores"), std::string::npos);
  EXPECT_EQ(output.text.find("core_rays"), std::string::npos);
}

TEST_F(SatorBenchTest, SessionPoseIngest) {
  ExpectGoodRun(
      "--mode=session --poses_per_update=100 --pipeline=4 "
      "--concurrency=2",
      "session", 400.0);
}

// --rounds alternates the mode and Ping; each measures duration/rounds, so
// the windows add up to the duration, and the sessions live through every
// round.
TEST_F(SatorBenchTest, RoundsAlternateWithPing) {
  for (const std::string args :
       {"--mode=session --poses_per_update=50 --pipeline=2 --rounds=3",
        "--mode=unary --bodies=1000 --rounds=2"}) {
    SCOPED_TRACE(args);
    const Output output = RunBench(satord_.grpc_target(), args);
    ASSERT_EQ(output.exit_code, 0) << output.text;
    std::map<std::string, double> n = Numbers(output.text);
    EXPECT_EQ(n["errors"], 0.0);
    EXPECT_GT(n["ops"], 0.0);
    EXPECT_GT(n["ping_qps"], 0.0);
    EXPECT_NEAR(n["seconds"], 1.0, 0.05);
  }
}

TEST_F(SatorBenchTest, RefusesAnUnknownMode) {
  const Output output = RunBench(satord_.grpc_target(), "--mode=nope");
  EXPECT_EQ(output.exit_code, 2);
  EXPECT_NE(output.text.find("--mode"), std::string::npos);
}

}  // namespace
}  // namespace sator::testing
