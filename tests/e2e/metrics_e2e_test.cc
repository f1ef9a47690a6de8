// satord's /metrics after known traffic: the gRPC counters count exactly the
// calls made, histograms are cumulative and end in +Inf, and the exposition
// passes `promtool check metrics` (Debian package prometheus).
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/client/session.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using ::sator::testing::HttpGet;
using ::sator::testing::SatordProcess;

constexpr int kPings = 37;
constexpr int kBadPairQueries = 5;

// The samples of the exposition: "name{labels}" -> value.
std::map<std::string, double> ParseSamples(const std::string& text) {
  std::map<std::string, double> samples;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line.front() == '#') continue;
    const size_t space = line.rfind(' ');
    if (space == absl::string_view::npos) continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(space + 1), &value)) {
      samples[std::string(line.substr(0, space))] = value;
    }
  }
  return samples;
}

class MetricsEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    // With a data directory, so the durability series are exposed (and
    // checked by the structure and promtool tests below).
    ASSERT_TRUE(
        satord_.Start({"--data_dir=" + testing::MakeTempDir("metrics-data")})
            .ok())
        << satord_.ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = satord_.grpc_target()});
    ASSERT_TRUE(client.ok());
    for (int i = 0; i < kPings; ++i) {
      ASSERT_TRUE(client->Ping("metrics").ok());
    }
    for (int i = 0; i < kBadPairQueries; ++i) {
      EXPECT_EQ(client->Overlap(Circle{-1.0f}, Pose2{}, Circle{1.0f}, Pose2{})
                    .status()
                    .code(),
                absl::StatusCode::kInvalidArgument);
    }
    // A scene with two static and one dynamic body, and one pose batch of
    // two poses (the second refused: a tick older than the current one).
    ASSERT_TRUE(client
                    ->CallJson("sator.v1.SceneService/CreateScene",
                               R"({"scene_id":"arena","settings":{"dimension":)"
                               R"("DIMENSION_2D"}})")
                    .ok());
    ASSERT_TRUE(
        client
            ->CallJson(
                "sator.v1.BodyService/UpsertBodies",
                R"({"scene_id":"arena","bodies":[)"
                R"({"body_id":1,"motion_type":"MOTION_TYPE_STATIC","shape":)"
                R"({"circle":{"radius":1}}},)"
                R"({"body_id":2,"motion_type":"MOTION_TYPE_STATIC","shape":)"
                R"({"circle":{"radius":1}}},)"
                R"({"body_id":3,"motion_type":"MOTION_TYPE_DYNAMIC","shape":)"
                R"({"circle":{"radius":1}}}]})")
            .ok());
    const std::string poses =
        R"({"body_ids":[3,3],"positions":[1,1,2,2],"rotations":[0,0]})";
    ASSERT_TRUE(client
                    ->CallJson("sator.v1.BodyService/UpdatePoses",
                               absl::StrCat(R"({"scene_id":"arena","tick":5,)",
                                            R"("poses":)", poses, "}"))
                    .ok());
    EXPECT_FALSE(client
                     ->CallJson("sator.v1.BodyService/UpdatePoses",
                                absl::StrCat(R"({"scene_id":"arena","tick":4,)",
                                             R"("poses":)", poses, "}"))
                     .ok());
    // Failures of each way in (sator_errors_total): a unary raycast on a
    // scene that does not exist, a QueryBatch whose second entry rewinds
    // past the history, a Session query that does the same and a Session
    // pose update with a stale tick.
    EXPECT_EQ(client
                  ->CallJson("sator.v1.QueryService/Raycast",
                             R"({"scene_id":"nosuch","query":{"direction":)"
                             R"({"x":1},"max_distance":10}})")
                  .status()
                  .code(),
              absl::StatusCode::kNotFound);
    absl::StatusOr<std::string> batch = client->CallJson(
        "sator.v1.QueryService/QueryBatch",
        R"({"scene_id":"arena","queries":[)"
        R"({"raycast":{"direction":{"x":1},"max_distance":10}},)"
        R"({"raycast":{"direction":{"x":1},"max_distance":10},)"
        R"("options":{"rewind":{"tick":1000}}}]})");
    ASSERT_TRUE(batch.ok()) << batch.status();
    // OUT_OF_RANGE is code 11.
    ASSERT_THAT(*batch, ::testing::HasSubstr(R"({"status":{"code":11,)"));
    absl::StatusOr<std::unique_ptr<client::Session>> session =
        client->OpenSession("arena");
    ASSERT_TRUE(session.ok()) << session.status();
    EXPECT_EQ(
        (*session)
            ->SubmitQuery({.kind = client::RaycastQuery{.origin = Vec2{},
                                                        .direction = Vec2{1, 0},
                                                        .max_distance = 10.0f},
                           .options = {.rewind = client::Rewind{.tick = 1000}}})
            .get()
            .status()
            .code(),
        absl::StatusCode::kOutOfRange);
    client::PoseBatch stale;
    stale.Add(3, Pose2{});
    EXPECT_EQ(
        (*session)->SubmitPoses(2, std::move(stale)).get().status().code(),
        absl::StatusCode::kFailedPrecondition);
    EXPECT_TRUE((*session)->Close().ok());
    // The server counts the session closed when gRPC is done with the
    // stream, which may come just after the client saw its end: scrape until
    // it has (at most 200 scrapes, 10 s).
    const absl::Time give_up = absl::Now() + absl::Seconds(10);
    for (int scrape = 0; scrape < 200; ++scrape) {
      absl::StatusOr<std::string> response =
          HttpGet(satord_.metrics_port(), "/metrics");
      ASSERT_TRUE(response.ok()) << response.status();
      const size_t body = response->find("\r\n\r\n");
      ASSERT_NE(body, std::string::npos);
      exposition_ = response->substr(body + 4);
      if (absl::StrContains(exposition_, "\nsator_sessions_active 0\n") ||
          absl::Now() > give_up) {
        break;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
  }

  SatordProcess satord_;
  std::string exposition_;
};

TEST_F(MetricsEndToEnd, ErrorsAreCountedByWayInKindAndCode) {
  const std::map<std::string, double> samples = ParseSamples(exposition_);
  EXPECT_EQ(samples.at("sator_errors_total{code=\"NOT_FOUND\",kind="
                       "\"raycast\",via=\"unary\"}"),
            1);
  EXPECT_EQ(samples.at("sator_errors_total{code=\"OUT_OF_RANGE\",kind="
                       "\"raycast\",via=\"batch_entry\"}"),
            1);
  EXPECT_EQ(samples.at("sator_errors_total{code=\"OUT_OF_RANGE\",kind="
                       "\"raycast\",via=\"session_message\"}"),
            1);
  EXPECT_EQ(samples.at("sator_errors_total{code=\"FAILED_PRECONDITION\","
                       "kind=\"poses\",via=\"session_message\"}"),
            1);
  // The batch itself answered OK, and the answered queries are no errors.
  EXPECT_EQ(samples.count("sator_errors_total{code=\"OUT_OF_RANGE\",kind="
                          "\"query_batch\",via=\"unary\"}"),
            0u);
  int series = 0;
  for (const auto& [name, value] : samples) {
    if (absl::StartsWith(name, "sator_errors_total{")) ++series;
  }
  EXPECT_EQ(series, 4);
  // Each Session message answered is timed: the open, the query and the
  // pose update.
  for (const char* kind : {"open", "query", "poses"}) {
    EXPECT_EQ(samples.at(absl::StrCat(
                  "sator_session_message_seconds_count{kind=\"", kind, "\"}")),
              1)
        << kind;
  }
}

TEST_F(MetricsEndToEnd, CountersCountTheCallsMade) {
  const std::map<std::string, double> samples = ParseSamples(exposition_);
  const std::string ping =
      "grpc_method=\"Ping\",grpc_service=\"sator.v1.QueryService\","
      "grpc_type=\"unary\"";
  const std::string pair =
      "grpc_method=\"PairQuery\",grpc_service=\"sator.v1.QueryService\","
      "grpc_type=\"unary\"";
  EXPECT_EQ(samples.at("grpc_server_started_total{" + ping + "}"), kPings);
  EXPECT_EQ(
      samples.at("grpc_server_handled_total{grpc_code=\"OK\"," + ping + "}"),
      kPings);
  EXPECT_EQ(samples.at("grpc_server_handled_total{grpc_code="
                       "\"INVALID_ARGUMENT\"," +
                       pair + "}"),
            kBadPairQueries);
  EXPECT_EQ(samples.at("grpc_server_handling_seconds_count{" + ping + "}"),
            kPings);
  EXPECT_EQ(
      samples.count("grpc_server_handled_total{grpc_code=\"OK\"," + pair + "}"),
      0u);
  // Every method of every served service has its series from the start, so
  // dashboards see zeros rather than gaps; reflection included.
  EXPECT_EQ(samples.at("grpc_server_started_total{grpc_method="
                       "\"ServerReflectionInfo\",grpc_service=\"grpc."
                       "reflection.v1alpha.ServerReflection\",grpc_type="
                       "\"bidi_stream\"}"),
            0);
  EXPECT_EQ(samples.at("grpc_server_started_total{grpc_method=\"Sweep\","
                       "grpc_service=\"sator.v1.QueryService\",grpc_type="
                       "\"unary\"}"),
            0);
  EXPECT_EQ(samples.at("sator_scenes"), 1);
  EXPECT_EQ(samples.at("sator_bodies{motion=\"static\"}"), 2);
  EXPECT_EQ(samples.at("sator_bodies{motion=\"dynamic\"}"), 1);
  EXPECT_EQ(samples.at("sator_pose_updates_total"), 2);
  EXPECT_EQ(samples.at("sator_sessions_active"), 0);
  EXPECT_GT(samples.at("process_resident_memory_bytes"), 0);
  EXPECT_GT(samples.at("process_open_fds"), 0);
  int build_info_series = 0;
  for (const auto& [key, value] : samples) {
    if (absl::StartsWith(key, "sator_build_info{")) {
      ++build_info_series;
      EXPECT_EQ(value, 1.0) << key;
    }
  }
  EXPECT_EQ(build_info_series, 1);
}

TEST_F(MetricsEndToEnd, HistogramBucketsAreCumulativeAndEndInInf) {
  // For each series of every histogram (its labels without `le`), bucket
  // counts in increasing `le` order never decrease, the last bucket is +Inf,
  // it equals the series' _count, and a _sum exists.
  std::map<std::string, std::vector<std::pair<double, double>>> buckets;
  const std::map<std::string, double> samples = ParseSamples(exposition_);
  for (const auto& [key, value] : samples) {
    const size_t bucket = key.find("_bucket{");
    if (bucket == std::string::npos) continue;
    // Labels are sorted by name, so `le` comes last: `...le="X"}`.
    const size_t le = key.rfind("le=\"");
    ASSERT_NE(le, std::string::npos) << key;
    const std::string bound = key.substr(le + 4, key.size() - (le + 4) - 2);
    double upper = 0;
    if (bound == "+Inf") {
      upper = std::numeric_limits<double>::infinity();
    } else {
      ASSERT_TRUE(absl::SimpleAtod(bound, &upper)) << bound;
    }
    // "name_bucket{a="1",le="X"}" -> "name{a="1"}".
    std::string labels = key.substr(bucket + 7, le - (bucket + 7));
    if (absl::EndsWith(labels, ",")) labels.pop_back();
    labels = labels == "{" ? "" : labels + "}";
    buckets[key.substr(0, bucket) + labels].emplace_back(upper, value);
  }
  std::set<std::string> histograms;
  for (auto& [series, points] : buckets) {
    std::sort(points.begin(), points.end());
    ASSERT_EQ(points.back().first, std::numeric_limits<double>::infinity())
        << series;
    for (size_t i = 1; i < points.size(); ++i) {
      EXPECT_LE(points[i - 1].second, points[i].second) << series;
    }
    const size_t brace = series.find('{');
    const std::string name = series.substr(0, brace);
    const std::string labels =
        brace == std::string::npos ? "" : series.substr(brace);
    histograms.insert(name);
    ASSERT_EQ(samples.count(name + "_count" + labels), 1u) << series;
    EXPECT_EQ(points.back().second, samples.at(name + "_count" + labels))
        << series;
    EXPECT_EQ(samples.count(name + "_sum" + labels), 1u) << series;
    if (name == "grpc_server_handling_seconds" ||
        name == "sator_session_message_seconds") {
      // 10 us to 10 s: 19 bounds and +Inf.
      EXPECT_EQ(points.size(), 20u) << series;
      EXPECT_EQ(points.front().first, 1e-5) << series;
    }
    if (name == "sator_query_seconds") {
      // 250 ns to 2.5 s: 22 bounds and +Inf.
      EXPECT_EQ(points.size(), 23u) << series;
      EXPECT_EQ(points.front().first, 2.5e-7) << series;
    }
    if (name == "sator_rewind_depth_ticks") {
      // 0 to 5000 ticks: 14 bounds and +Inf.
      EXPECT_EQ(points.size(), 15u) << series;
      EXPECT_EQ(points.front().first, 0.0) << series;
    }
  }
  EXPECT_EQ(histograms,
            (std::set<std::string>{
                "grpc_server_handling_seconds", "sator_query_seconds",
                "sator_query_hits", "sator_broadphase_node_visits",
                "sator_rewind_depth_ticks", "sator_session_message_seconds",
                "sator_wal_sync_seconds", "sator_snapshot_seconds"}));
  const std::string ping =
      "grpc_server_handling_seconds{grpc_method=\"Ping\",grpc_service=\"sator."
      "v1.QueryService\",grpc_type=\"unary\"}";
  EXPECT_EQ(buckets.at(ping).back().second, kPings);
}

// The log got the scene creation and the body batch (each acknowledged only
// once on disk), every sync was timed, and nothing failed or was recovered.
TEST_F(MetricsEndToEnd, DurabilitySeriesDescribeTheLog) {
  const std::map<std::string, double> samples = ParseSamples(exposition_);
  const double records = samples.at("sator_wal_records_total");
  const double syncs = samples.at("sator_wal_syncs_total");
  EXPECT_GE(records, 2);
  EXPECT_GE(syncs, 1);
  EXPECT_LE(syncs, records);  // A sync covers at least one record.
  EXPECT_EQ(samples.at("sator_wal_sync_seconds_count"), syncs);
  EXPECT_GT(samples.at("sator_wal_bytes_total"), 0);
  EXPECT_EQ(samples.at("sator_wal_failed"), 0);
  EXPECT_EQ(samples.at("sator_snapshots_total{result=\"failed\"}"), 0);
  EXPECT_EQ(samples.at("sator_recovery_records{outcome=\"replayed\"}"), 0);
  EXPECT_EQ(samples.at("sator_recovery_damaged_bytes"), 0);
}

// After a kill -9, the restarted satord reports the records it replayed,
// and its own counters start from zero.
TEST(MetricsDurability, RestartReportsReplayedRecords) {
  const std::string data_dir = testing::MakeTempDir("metrics-restart");
  const std::vector<std::string> args = {"--data_dir=" + data_dir,
                                         "--snapshot_interval=0s"};
  int written = 0;
  {
    SatordProcess first;
    ASSERT_TRUE(first.Start(args).ok()) << first.ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = first.grpc_target()});
    ASSERT_TRUE(client.ok());
    ASSERT_TRUE(client
                    ->CallJson("sator.v1.SceneService/CreateScene",
                               R"({"scene_id":"kept","settings":)"
                               R"({"dimension":"DIMENSION_2D"}})")
                    .ok());
    for (int i = 1; i <= 3; ++i) {
      ASSERT_TRUE(
          client
              ->CallJson("sator.v1.BodyService/UpsertBodies",
                         absl::StrCat(R"({"scene_id":"kept","bodies":[)",
                                      R"({"body_id":)", i,
                                      R"(,"motion_type":"MOTION_TYPE_STATIC",)",
                                      R"("shape":{"circle":{"radius":1}}}]})"))
              .ok());
    }
    absl::StatusOr<std::string> scraped =
        HttpGet(first.metrics_port(), "/metrics");
    ASSERT_TRUE(scraped.ok()) << scraped.status();
    written = static_cast<int>(
        ParseSamples(scraped->substr(scraped->find("\r\n\r\n") + 4))
            .at("sator_wal_records_total"));
    EXPECT_EQ(written, 4);  // One record per acknowledged mutation.
    ASSERT_TRUE(first.Signal(SIGKILL).ok());
    ASSERT_TRUE(first.WaitForExit(absl::Seconds(10)).ok());
  }
  SatordProcess second;
  ASSERT_TRUE(second.Start(args).ok()) << second.ReadLog();
  absl::StatusOr<std::string> scraped =
      HttpGet(second.metrics_port(), "/metrics");
  ASSERT_TRUE(scraped.ok()) << scraped.status();
  std::map<std::string, double> samples =
      ParseSamples(scraped->substr(scraped->find("\r\n\r\n") + 4));
  EXPECT_EQ(samples.at("sator_recovery_records{outcome=\"replayed\"}"),
            written);
  EXPECT_EQ(samples.at("sator_recovery_records{outcome=\"failed\"}"), 0);
  EXPECT_EQ(samples.at("sator_wal_records_total"), 0);
  EXPECT_EQ(samples.at("sator_snapshots_total{result=\"written\"}"), 0);
  EXPECT_EQ(samples.at("sator_snapshot_last_success_timestamp_seconds"), 0);
}

TEST_F(MetricsEndToEnd, ExpositionPassesPromtool) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool not installed (Debian package prometheus)";
  }
  const std::string dir = testing::MakeTempDir("metrics");
  const std::string path = dir + "/metrics.txt";
  std::ofstream(path) << exposition_;
  const std::string command = absl::StrCat("promtool check metrics < ", path,
                                           " > ", dir, "/promtool.txt 2>&1");
  const int status = std::system(command.c_str());
  std::ifstream findings(dir + "/promtool.txt");
  std::stringstream text;
  text << findings.rdbuf();
  EXPECT_EQ(status, 0) << text.str();
  EXPECT_EQ(text.str(), "") << "promtool findings";
}

}  // namespace
}  // namespace sator
