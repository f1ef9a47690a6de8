// QueryMetrics and the /metrics exposition it joins: exact counts and bucket
// placement for known observations, the structure Prometheus requires of
// every family (cumulative buckets ending in +Inf equal to _count, _sum
// present, base-unit names, _total counters, no id labels), counts that add
// up under concurrent recording (also run under TSan), scene and body gauges
// read from the registry at scrape time, and the slow-query log.
#include "server/metrics/query_metrics.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/debug/recent_queries.h"
#include "server/logging.h"
#include "server/metrics/grpc_metrics.h"
#include "server/metrics/registry.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {
namespace {

using scene::QueryKind;
using ::testing::HasSubstr;
using ::testing::Not;

// "name{labels}" -> value, for every sample line of an exposition.
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

// "# TYPE name type" lines: name -> type.
std::map<std::string, std::string> ParseTypes(const std::string& text) {
  std::map<std::string, std::string> types;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, "# TYPE ")) continue;
    std::vector<std::string> parts = absl::StrSplit(line, ' ');
    if (parts.size() == 4) types[parts[2]] = parts[3];
  }
  return types;
}

struct Exposition {
  std::string text;
  std::map<std::string, double> samples;
  std::map<std::string, std::string> types;
};

class QueryMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Metrics>> made = Metrics::Start("");
    ASSERT_TRUE(made.ok()) << made.status();
    metrics_ = *std::move(made);
  }

  std::shared_ptr<QueryMetrics> Add(const SceneRegistry* scenes,
                                    absl::Duration threshold) {
    auto query_metrics = std::make_shared<QueryMetrics>(scenes, threshold);
    metrics_->AddCollectable(query_metrics);
    return query_metrics;
  }

  Exposition Scrape() const {
    Exposition exposition;
    exposition.text = metrics_->Serialize();
    exposition.samples = ParseSamples(exposition.text);
    exposition.types = ParseTypes(exposition.text);
    return exposition;
  }

  std::unique_ptr<Metrics> metrics_;
};

TEST_F(QueryMetricsTest, FailuresAreCountedByViaKindAndCode) {
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(nullptr, absl::ZeroDuration());
  query_metrics->OnFailure(FailureVia::kSessionMessage, FailureKind::kPoses,
                           absl::StatusCode::kFailedPrecondition);
  query_metrics->OnFailure(FailureVia::kSessionMessage, FailureKind::kPoses,
                           absl::StatusCode::kFailedPrecondition);
  query_metrics->OnFailure(FailureVia::kBatchEntry, FailureKind::kUnset,
                           absl::StatusCode::kInvalidArgument);
  query_metrics->OnFailure(FailureVia::kUnary, FailureKindOf(QueryKind::kPoint),
                           absl::StatusCode::kNotFound);
  // OK is no failure.
  query_metrics->OnFailure(FailureVia::kUnary, FailureKind::kRaycast,
                           absl::StatusCode::kOk);
  const Exposition scraped = Scrape();
  const auto& s = scraped.samples;
  EXPECT_EQ(s.at("sator_errors_total{code=\"FAILED_PRECONDITION\","
                 "kind=\"poses\",via=\"session_message\"}"),
            2);
  EXPECT_EQ(s.at("sator_errors_total{code=\"INVALID_ARGUMENT\",kind="
                 "\"unset\",via=\"batch_entry\"}"),
            1);
  EXPECT_EQ(s.at("sator_errors_total{code=\"NOT_FOUND\",kind=\"point\","
                 "via=\"unary\"}"),
            1);
  int series = 0;
  for (const auto& [name, value] : s) {
    if (absl::StartsWith(name, "sator_errors_total")) ++series;
  }
  EXPECT_EQ(series, 3);
  EXPECT_EQ(scraped.types.at("sator_errors_total"), "counter");
}

TEST_F(QueryMetricsTest, SessionMessagesUseTheRpcBuckets) {
  EXPECT_EQ(SessionMessageBuckets(), LatencyBucketsSeconds());
  EXPECT_EQ(LatencyBucketsSeconds().front(), 1e-5);
  EXPECT_EQ(LatencyBucketsSeconds().back(), 10.0);
  EXPECT_EQ(QuerySecondsBuckets().front(), 2.5e-7);
  EXPECT_EQ(QuerySecondsBuckets().back(), 2.5);
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(nullptr, absl::ZeroDuration());
  query_metrics->RecordSessionMessage(SessionMessageKind::kQuery, 30e-6);
  query_metrics->RecordSessionMessage(SessionMessageKind::kQuery, 20.0);
  query_metrics->RecordSessionMessage(SessionMessageKind::kPoses, 5e-6);
  const Exposition scraped = Scrape();
  const auto& s = scraped.samples;
  const std::string query =
      "sator_session_message_seconds_bucket{kind=\"query\",";
  EXPECT_EQ(s.at(query + "le=\"2.5e-05\"}"), 0);
  EXPECT_EQ(s.at(query + "le=\"5e-05\"}"), 1);
  EXPECT_EQ(s.at(query + "le=\"10\"}"), 1);
  EXPECT_EQ(s.at(query + "le=\"+Inf\"}"), 2);
  EXPECT_NEAR(s.at("sator_session_message_seconds_sum{kind=\"query\"}"),
              20.0 + 30e-6, 1e-9);
  EXPECT_EQ(s.at("sator_session_message_seconds_bucket{kind=\"poses\","
                 "le=\"1e-05\"}"),
            1);
  EXPECT_EQ(s.at("sator_session_message_seconds_count{kind=\"open\"}"), 0);
}

TEST_F(QueryMetricsTest, ObservationsLandInTheirBuckets) {
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(nullptr, absl::ZeroDuration());
  for (int i = 0; i < 7; ++i) {
    query_metrics->Record(QueryKind::kRaycast, QueryModeLabel::kClosest, 30e-6,
                          /*hits=*/3, /*node_visits=*/40,
                          /*rewound=*/i < 2);
  }
  query_metrics->Record(QueryKind::kRaycast, QueryModeLabel::kClosest, 5.0,
                        /*hits=*/0, /*node_visits=*/2'000'000, false);
  // A raycast on a small scene: 300 ns, between the first two bounds.
  query_metrics->Record(QueryKind::kOverlap, QueryModeLabel::kAny, 300e-9,
                        /*hits=*/1, /*node_visits=*/3, false);
  query_metrics->AddPoseUpdates(250);
  query_metrics->AddPoseUpdates(0);
  query_metrics->SessionOpened();
  query_metrics->SessionOpened();
  query_metrics->SessionClosed();
  const Exposition scraped = Scrape();
  const auto& s = scraped.samples;
  const std::string ray = "kind=\"raycast\",mode=\"closest\"";
  // 30 us is above 25 us and at most 50 us; 5 s is above every bound (the
  // last is 2.5 s).
  EXPECT_EQ(s.at("sator_query_seconds_bucket{" + ray + ",le=\"2.5e-05\"}"), 0);
  EXPECT_EQ(s.at("sator_query_seconds_bucket{" + ray + ",le=\"5e-05\"}"), 7);
  EXPECT_EQ(s.at("sator_query_seconds_bucket{" + ray + ",le=\"0.1\"}"), 7);
  EXPECT_EQ(s.at("sator_query_seconds_bucket{" + ray + ",le=\"+Inf\"}"), 8);
  EXPECT_EQ(s.at("sator_query_seconds_bucket{" + ray + ",le=\"2.5\"}"), 7);
  EXPECT_EQ(s.at("sator_query_seconds_count{" + ray + "}"), 8);
  EXPECT_NEAR(s.at("sator_query_seconds_sum{" + ray + "}"), 7 * 30e-6 + 5.0,
              1e-9);
  const std::string any_overlap = "kind=\"overlap\",mode=\"any\"";
  EXPECT_EQ(
      s.at("sator_query_seconds_bucket{" + any_overlap + ",le=\"2.5e-07\"}"),
      0);
  EXPECT_EQ(
      s.at("sator_query_seconds_bucket{" + any_overlap + ",le=\"5e-07\"}"), 1);
  // Hits 3 fall in le=5 (above 2); visits 40 in le=50; 2e6 past 1e6.
  EXPECT_EQ(s.at("sator_query_hits_bucket{kind=\"raycast\",le=\"2\"}"), 1);
  EXPECT_EQ(s.at("sator_query_hits_bucket{kind=\"raycast\",le=\"0\"}"), 1);
  EXPECT_EQ(s.at("sator_query_hits_bucket{kind=\"raycast\",le=\"5\"}"), 8);
  EXPECT_EQ(s.at("sator_query_hits_sum{kind=\"raycast\"}"), 21);
  EXPECT_EQ(
      s.at("sator_broadphase_node_visits_bucket{kind=\"raycast\",le=\"20\"}"),
      0);
  EXPECT_EQ(
      s.at("sator_broadphase_node_visits_bucket{kind=\"raycast\",le=\"50\"}"),
      7);
  EXPECT_EQ(s.at("sator_broadphase_node_visits_bucket{kind=\"raycast\",le="
                 "\"1000000\"}"),
            7);
  EXPECT_EQ(s.at("sator_broadphase_node_visits_count{kind=\"raycast\"}"), 8);
  EXPECT_EQ(s.at("sator_rewound_queries_total{kind=\"raycast\"}"), 2);
  EXPECT_EQ(s.at("sator_rewound_queries_total{kind=\"overlap\"}"), 0);
  EXPECT_EQ(s.at("sator_pose_updates_total"), 250);
  EXPECT_EQ(s.at("sator_sessions_active"), 1);
  // Every (kind, mode) has its series from the start.
  EXPECT_EQ(s.at("sator_query_seconds_count{kind=\"sweep\",mode=\"any\"}"), 0);
  EXPECT_EQ(s.at("sator_query_seconds_count{kind=\"point\",mode=\""
                 "closest_per_body\"}"),
            0);
}

// A RaycastBatch reports its rays at once: each ray's hits and visits land
// in their own buckets; the time is the batch's, each ray counted at the
// mean, with the exact total in _sum.
TEST_F(QueryMetricsTest, ABatchCountsEveryQueryOnce) {
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(nullptr, absl::ZeroDuration());
  const std::vector<std::uint32_t> hits = {0, 1, 0, 3};
  const std::vector<std::uint32_t> visits = {4, 40, 400, 4000};
  query_metrics->OnQuery({.scene_id = "arena",
                          .kind = QueryKind::kRaycast,
                          .mode = QueryModeLabel::kAny,
                          .duration = absl::Microseconds(120),
                          .hits = 4,
                          .node_visits = 4444,
                          .rewound = true,
                          .tick = 3,
                          .count = 4,
                          .hits_per_query = hits,
                          .node_visits_per_query = visits});
  const auto s = Scrape().samples;
  const std::string ray = "kind=\"raycast\",mode=\"any\"";
  // 120 us over 4 rays: 30 us each, in le=5e-05 (not le=2.5e-05, and not
  // le=0.00025 alone as the batch's total would be).
  EXPECT_EQ(s.at("sator_query_seconds_bucket{" + ray + ",le=\"2.5e-05\"}"), 0);
  EXPECT_EQ(s.at("sator_query_seconds_bucket{" + ray + ",le=\"5e-05\"}"), 4);
  EXPECT_EQ(s.at("sator_query_seconds_count{" + ray + "}"), 4);
  EXPECT_NEAR(s.at("sator_query_seconds_sum{" + ray + "}"), 120e-6, 1e-12);
  EXPECT_EQ(s.at("sator_query_hits_bucket{kind=\"raycast\",le=\"0\"}"), 2);
  EXPECT_EQ(s.at("sator_query_hits_bucket{kind=\"raycast\",le=\"1\"}"), 3);
  EXPECT_EQ(s.at("sator_query_hits_bucket{kind=\"raycast\",le=\"2\"}"), 3);
  EXPECT_EQ(s.at("sator_query_hits_bucket{kind=\"raycast\",le=\"5\"}"), 4);
  EXPECT_EQ(s.at("sator_query_hits_sum{kind=\"raycast\"}"), 4);
  EXPECT_EQ(s.at("sator_query_hits_count{kind=\"raycast\"}"), 4);
  EXPECT_EQ(
      s.at("sator_broadphase_node_visits_bucket{kind=\"raycast\",le=\"5\"}"),
      1);
  EXPECT_EQ(
      s.at("sator_broadphase_node_visits_bucket{kind=\"raycast\",le=\"50\"}"),
      2);
  EXPECT_EQ(s.at("sator_broadphase_node_visits_bucket{kind=\"raycast\",le="
                 "\"500\"}"),
            3);
  EXPECT_EQ(s.at("sator_broadphase_node_visits_bucket{kind=\"raycast\",le="
                 "\"5000\"}"),
            4);
  EXPECT_EQ(s.at("sator_broadphase_node_visits_sum{kind=\"raycast\"}"), 4444);
  EXPECT_EQ(s.at("sator_rewound_queries_total{kind=\"raycast\"}"), 4);
}

TEST_F(QueryMetricsTest, OnQueryRecordsKindModeRewindHitsAndVisits) {
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(nullptr, absl::ZeroDuration());
  query_metrics->OnQuery({.scene_id = "arena",
                          .kind = QueryKind::kSweep,
                          .mode = ModeLabel(scene::ResultMode::kAllUpToN),
                          .duration = absl::Microseconds(200),
                          .hits = 2,
                          .node_visits = 9,
                          .rewound = true,
                          .tick = 3});
  query_metrics->OnQuery({.scene_id = "arena",
                          .kind = QueryKind::kPoint,
                          .mode = ModeLabel(scene::ResultMode::kClosestPerBody),
                          .duration = absl::Microseconds(1)});
  const auto s = Scrape().samples;
  EXPECT_EQ(s.at("sator_query_seconds_bucket{kind=\"sweep\",mode=\"all\","
                 "le=\"0.00025\"}"),
            1);
  EXPECT_EQ(s.at("sator_query_seconds_bucket{kind=\"sweep\",mode=\"all\","
                 "le=\"0.0001\"}"),
            0);
  EXPECT_EQ(s.at("sator_query_hits_sum{kind=\"sweep\"}"), 2);
  EXPECT_EQ(s.at("sator_broadphase_node_visits_sum{kind=\"sweep\"}"), 9);
  EXPECT_EQ(s.at("sator_rewound_queries_total{kind=\"sweep\"}"), 1);
  EXPECT_EQ(s.at("sator_query_seconds_count{kind=\"point\",mode=\""
                 "closest_per_body\"}"),
            1);
  double all_queries = 0;
  for (const auto& [key, value] : s) {
    if (absl::StartsWith(key, "sator_query_seconds_count{")) {
      all_queries += value;
    }
  }
  EXPECT_EQ(all_queries, 2);
  EXPECT_EQ(ModeLabel(scene::ResultMode::kAny), QueryModeLabel::kAny);
  EXPECT_EQ(ModeLabel(scene::ResultMode::kClosest), QueryModeLabel::kClosest);
}

// Many queries at once count each query: its kind, mode, bucket, sums,
// rewind and rewind depth.
TEST_F(QueryMetricsTest, OnQueriesCountsEveryQueryByKindModeAndRewind) {
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(nullptr, absl::ZeroDuration());
  std::vector<QueryObservation> queries;
  for (int i = 0; i < 40; ++i) {
    queries.push_back(
        {.scene_id = "arena",
         .kind = i % 4 == 0 ? QueryKind::kOverlap : QueryKind::kRaycast,
         .mode = QueryModeLabel::kClosest,
         .duration = absl::Nanoseconds(i % 2 == 0 ? 200 : 700),
         .hits = i % 3,
         .node_visits = 4,
         .rewound = i == 7,
         .rewind_ticks = 3.0,
         .tick = 9});
  }
  query_metrics->OnQueries(queries);
  const auto s = Scrape().samples;
  EXPECT_EQ(
      s.at("sator_query_seconds_count{kind=\"overlap\",mode=\"closest\"}"), 10);
  EXPECT_EQ(
      s.at("sator_query_seconds_count{kind=\"raycast\",mode=\"closest\"}"), 30);
  // Overlaps are the even queries (200 ns each); raycasts 10 of 200 ns and
  // 20 of 700 ns.
  EXPECT_EQ(s.at("sator_query_seconds_bucket{kind=\"raycast\",mode=\"closest\","
                 "le=\"2.5e-07\"}"),
            10);
  EXPECT_EQ(s.at("sator_query_seconds_bucket{kind=\"raycast\",mode=\"closest\","
                 "le=\"1e-06\"}"),
            30);
  EXPECT_NEAR(
      s.at("sator_query_seconds_sum{kind=\"raycast\",mode=\"closest\"}"),
      10 * 200e-9 + 20 * 700e-9, 1e-12);
  EXPECT_NEAR(
      s.at("sator_query_seconds_sum{kind=\"overlap\",mode=\"closest\"}"),
      10 * 200e-9, 1e-12);
  int raycast_hits = 0;
  for (int i = 0; i < 40; ++i) raycast_hits += i % 4 == 0 ? 0 : i % 3;
  EXPECT_EQ(s.at("sator_query_hits_sum{kind=\"raycast\"}"), raycast_hits);
  EXPECT_EQ(s.at("sator_broadphase_node_visits_sum{kind=\"raycast\"}"), 120);
  EXPECT_EQ(s.at("sator_rewound_queries_total{kind=\"raycast\"}"), 1);
  EXPECT_EQ(s.at("sator_rewound_queries_total{kind=\"overlap\"}"), 0);
  EXPECT_EQ(s.at("sator_rewind_depth_ticks_count"), 1);
  EXPECT_NEAR(s.at("sator_rewind_depth_ticks_sum"), 3.0, 1e-9);
}

TEST_F(QueryMetricsTest, EveryFamilyIsWellFormed) {
  SceneRegistry scenes{SceneLimits{}};
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(&scenes, absl::ZeroDuration());
  query_metrics->Record(QueryKind::kOverlap, QueryModeLabel::kAny, 1e-3, 1, 5,
                        false);
  // Every verdict series, so that their labels are checked too.
  for (int reason = 0; reason < scene::kShotReasonCount; ++reason) {
    query_metrics->OnShot(scene::ShotOutcome::kMiss,
                          static_cast<scene::ShotReason>(reason), 1.0);
  }
  const Exposition scraped = Scrape();
  ASSERT_FALSE(scraped.types.empty());
  // Histograms: per series (labels without le), buckets in increasing le
  // never decrease, the last is +Inf and equals _count; _sum exists.
  std::map<std::string, std::vector<std::pair<double, double>>> buckets;
  // Every label name is one of a fixed set whose values come from fixed
  // lists (bounded cardinality): none can carry a scene or body id.
  const std::set<std::string> allowed = {
      "grpc_service", "grpc_method", "grpc_type", "grpc_code",
      "kind",         "mode",        "motion",    "le",
      "version",      "revision",    "outcome",   "reason"};
  for (const auto& [key, value] : scraped.samples) {
    const size_t brace = key.find('{');
    if (brace == std::string::npos) continue;
    for (absl::string_view pair : absl::StrSplit(
             absl::string_view(key).substr(brace + 1, key.size() - brace - 2),
             ',')) {
      const std::string name(pair.substr(0, pair.find('=')));
      EXPECT_EQ(allowed.count(name), 1u) << name << " in " << key;
    }
  }
}

TEST_F(QueryMetricsTest, ShotVerdictsAndRewindDepths) {
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(nullptr, absl::ZeroDuration());
  query_metrics->OnShot(scene::ShotOutcome::kHit, scene::ShotReason::kHit, 2.5);
  query_metrics->OnShot(scene::ShotOutcome::kHit, scene::ShotReason::kHit, 0.0);
  query_metrics->OnShot(scene::ShotOutcome::kRejected,
                        scene::ShotReason::kTooOld, std::nullopt);
  // A rewound RaycastBatch of 3 rays, 7.25 ticks back, and a query at the
  // current tick (not rewound: not observed).
  query_metrics->OnQuery({.scene_id = "arena",
                          .kind = QueryKind::kRaycast,
                          .duration = absl::Microseconds(3),
                          .rewound = true,
                          .rewind_ticks = 7.25,
                          .count = 3,
                          .hits_per_query = {},
                          .node_visits_per_query = {}});
  query_metrics->OnQuery({.scene_id = "arena",
                          .kind = QueryKind::kRaycast,
                          .duration = absl::Microseconds(1)});
  const auto s = Scrape().samples;
  EXPECT_EQ(s.at(R"(sator_shot_verdicts_total{outcome="hit",reason="hit"})"),
            2);
  EXPECT_EQ(
      s.at(R"(sator_shot_verdicts_total{outcome="rejected",reason="too_old"})"),
      1);
  EXPECT_EQ(s.count(R"(sator_shot_verdicts_total{outcome="miss",)"
                    R"(reason="nothing_hit"})"),
            0u);
  EXPECT_EQ(s.at("sator_rewind_depth_ticks_count"), 5);
  EXPECT_NEAR(s.at("sator_rewind_depth_ticks_sum"), 2.5 + 0 + 3 * 7.25, 1e-6);
  EXPECT_EQ(s.at(R"(sator_rewind_depth_ticks_bucket{le="0"})"), 1);
  EXPECT_EQ(s.at(R"(sator_rewind_depth_ticks_bucket{le="2"})"), 1);
  EXPECT_EQ(s.at(R"(sator_rewind_depth_ticks_bucket{le="5"})"), 2);
  EXPECT_EQ(s.at(R"(sator_rewind_depth_ticks_bucket{le="10"})"), 5);
  EXPECT_EQ(s.at(R"(sator_rewind_depth_ticks_bucket{le="+Inf"})"), 5);
}

TEST_F(QueryMetricsTest, ScenesAndBodiesAreCountedAtScrapeTime) {
  SceneRegistry scenes{SceneLimits{}};
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(&scenes, absl::ZeroDuration());
  EXPECT_EQ(Scrape().samples.at("sator_scenes"), 0);
  absl::StatusOr<std::shared_ptr<HostedScene>> flat =
      scenes.Create("flat", {.dimension = 2});
  absl::StatusOr<std::shared_ptr<HostedScene>> deep =
      scenes.Create("deep", {.dimension = 3});
  ASSERT_TRUE(flat.ok() && deep.ok());
  std::vector<scene::BodyDesc<2>> flat_bodies;
  for (std::uint64_t id = 1; id <= 5; ++id) {
    flat_bodies.push_back(
        {.id = id,
         .shape = std::make_shared<const Shape2>(Circle{1.0f}),
         .pose = {},
         .motion = id <= 2 ? scene::MotionType::kStatic
                           : scene::MotionType::kDynamic});
  }
  ASSERT_TRUE((*flat)->scene2()->UpsertBodies(flat_bodies).ok());
  const std::vector<scene::BodyDesc<3>> deep_bodies = {
      {.id = 9,
       .shape = std::make_shared<const Shape3>(Sphere{1.0f}),
       .pose = {},
       .motion = scene::MotionType::kStatic}};
  ASSERT_TRUE((*deep)->scene3()->UpsertBodies(deep_bodies).ok());
  auto s = Scrape().samples;
  EXPECT_EQ(s.at("sator_scenes"), 2);
  EXPECT_EQ(s.at("sator_bodies{motion=\"static\"}"), 3);
  EXPECT_EQ(s.at("sator_bodies{motion=\"dynamic\"}"), 3);
  ASSERT_TRUE(scenes.Delete("flat").ok());
  s = Scrape().samples;
  EXPECT_EQ(s.at("sator_scenes"), 1);
  EXPECT_EQ(s.at("sator_bodies{motion=\"static\"}"), 1);
  EXPECT_EQ(s.at("sator_bodies{motion=\"dynamic\"}"), 0);
}

// A scene kept on restart with a setting above a lowered limit flag
// (ScenePersistence's replay) is counted until it is deleted.
TEST_F(QueryMetricsTest, ScenesOverTheLimitFlagsAreCounted) {
  SceneLimits limits;
  limits.max_bodies_per_scene = 100;
  limits.max_history_ticks = 32;
  SceneRegistry scenes{limits};
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(&scenes, absl::ZeroDuration());
  EXPECT_EQ(Scrape().samples.at("sator_scenes_over_limit"), 0);
  ASSERT_TRUE(
      scenes
          .Create("within",
                  {.dimension = 2, .history_ticks = 32, .max_bodies = 100})
          .ok());
  EXPECT_EQ(Scrape().samples.at("sator_scenes_over_limit"), 0);
  ASSERT_TRUE(
      scenes
          .Create("bodies",
                  {.dimension = 2, .history_ticks = 16, .max_bodies = 101})
          .ok());
  ASSERT_TRUE(
      scenes
          .Create("history",
                  {.dimension = 3, .history_ticks = 33, .max_bodies = 50})
          .ok());
  EXPECT_EQ(Scrape().samples.at("sator_scenes_over_limit"), 2);
  ASSERT_TRUE(scenes.Delete("bodies").ok());
  EXPECT_EQ(Scrape().samples.at("sator_scenes_over_limit"), 1);
}

TEST_F(QueryMetricsTest, ConcurrentRecordingAddsUp) {
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(nullptr, absl::ZeroDuration());
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&query_metrics, t] {
      for (int i = 0; i < kPerThread; ++i) {
        query_metrics->Record(QueryKind::kContacts, QueryModeLabel::kAll,
                              t * 1e-4, 1, 1, i % 2 == 0);
        query_metrics->AddPoseUpdates(2);
      }
    });
  }
  // Scrapes while the threads record: +Inf always equals _count.
  for (int i = 0; i < 20; ++i) {
    const auto s = Scrape().samples;
    EXPECT_EQ(s.at("sator_query_seconds_bucket{kind=\"contacts\",mode="
                   "\"all\",le=\"+Inf\"}"),
              s.at("sator_query_seconds_count{kind=\"contacts\",mode="
                   "\"all\"}"));
  }
  for (std::thread& thread : threads) thread.join();
  const auto s = Scrape().samples;
  EXPECT_EQ(s.at("sator_query_seconds_count{kind=\"contacts\",mode=\"all\"}"),
            kThreads * kPerThread);
  EXPECT_EQ(s.at("sator_rewound_queries_total{kind=\"contacts\"}"),
            kThreads * kPerThread / 2);
  EXPECT_EQ(s.at("sator_pose_updates_total"), 2 * kThreads * kPerThread);
}

// Captures what the process writes to stderr (where Log writes) while alive.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    path_ = ::testing::TempDir() + "/stderr_capture.txt";
    const int file = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    saved_ = dup(STDERR_FILENO);
    dup2(file, STDERR_FILENO);
    close(file);
  }
  ~StderrCapture() { Restore(); }
  std::string Finish() {
    Restore();
    std::string text;
    if (FILE* file = std::fopen(path_.c_str(), "r")) {
      char buffer[4096];
      size_t read = 0;
      while ((read = std::fread(buffer, 1, sizeof(buffer), file)) > 0) {
        text.append(buffer, read);
      }
      std::fclose(file);
    }
    return text;
  }

 private:
  void Restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    saved_ = -1;
  }
  std::string path_;
  int saved_ = -1;
};

TEST_F(QueryMetricsTest, SlowQueriesAreLoggedAtWarningWithKindSceneTick) {
  SetMinLogLevel(LogLevel::kDebug);
  std::shared_ptr<QueryMetrics> query_metrics =
      Add(nullptr, absl::Milliseconds(2));
  std::shared_ptr<QueryMetrics> no_log = Add(nullptr, absl::ZeroDuration());
  const QueryObservation slow = {.scene_id = "arena-7",
                                 .kind = QueryKind::kRaycast,
                                 .duration = absl::Milliseconds(5),
                                 .tick = 41};
  QueryObservation fast = slow;
  fast.duration = absl::Milliseconds(1);
  QueryObservation slower = slow;
  slower.duration = absl::Seconds(3);
  StderrCapture capture;
  query_metrics->OnQuery(slow);
  query_metrics->OnQuery(fast);
  no_log->OnQuery(slower);
  const std::string logged = capture.Finish();
  SetMinLogLevel(LogLevel::kInfo);
  const std::vector<std::string> lines =
      absl::StrSplit(logged, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u) << logged;
  EXPECT_THAT(lines[0], HasSubstr("\"level\":\"warning\""));
  EXPECT_THAT(lines[0], HasSubstr("\"event\":\"slow_query\""));
  EXPECT_THAT(lines[0], HasSubstr("\"kind\":\"raycast\""));
  EXPECT_THAT(lines[0], HasSubstr("\"scene\":\"arena-7\""));
  EXPECT_THAT(lines[0], HasSubstr("\"tick\":41"));
  EXPECT_THAT(lines[0], HasSubstr("\"duration_ms\":5,"));
}

TEST(RecentQueriesTest, KeepsTheLastQueriesOfEachSceneWithinCapacity) {
  RecentQueries recent(/*per_scene=*/2, /*max_scenes=*/3);
  scene::RayRequest<3> ray_request;
  ray_request.origin = {1, 0, 0};
  ray_request.direction = {2, 0, 0};
  ray_request.max_distance = 10;
  ray_request.options.rewind = scene::Rewind{.tick = 1, .fraction = 0.0f};
  const scene::SceneQuery<3> ray = ray_request;
  scene::QueryResult<3> result;
  for (int i = 0; i < 20; ++i) {
    result.hits.push_back({.point = {0, 1, 0}, .normal = {0, 0, 1}});
  }
  result.tick = 1;
  recent.Add<3>("quiet", ray, result);
  // A busy scene keeps its own last two and pushes none of the quiet one's
  // out.
  for (int tick = 2; tick <= 6; ++tick) {
    result.tick = tick;
    result.fraction = 0.25f;
    recent.Add<3>("even", ray, result);
  }
  const std::vector<RecentQuery> even = recent.ForScene("even", 10);
  ASSERT_EQ(even.size(), 2u);
  EXPECT_EQ(even[0].tick, 5);
  EXPECT_EQ(even[1].tick, 6);
  EXPECT_FLOAT_EQ(even[1].fraction, 0.25f);
  ASSERT_EQ(recent.ForScene("quiet", 10).size(), 1u);
  EXPECT_EQ(recent.ForScene("quiet", 10)[0].tick, 1);
  EXPECT_EQ(even[1].kind, "raycast");
  EXPECT_TRUE(even[1].rewound);
  EXPECT_TRUE(even[1].has_path);
  // From (1,0,0) along the unit x direction (2/|2|) for 10.
  EXPECT_FLOAT_EQ(even[1].to[0], 11.0f);
  EXPECT_EQ(even[1].hits.size(), RecentQueries::kMaxHitsKept);
  EXPECT_FLOAT_EQ(even[1].hits[0].normal[2], 1.0f);
  EXPECT_EQ(recent.ForScene("even", 1).size(), 1u);
  EXPECT_EQ(recent.ForScene("even", 1)[0].tick, 6);
  EXPECT_TRUE(recent.ForScene("none", 10).empty());
  // A fourth scene forgets the one queried least recently ("quiet").
  recent.Add<3>("third", ray, result);
  recent.Add<3>("fourth", ray, result);
  EXPECT_TRUE(recent.ForScene("quiet", 10).empty());
  EXPECT_EQ(recent.ForScene("even", 10).size(), 2u);
  EXPECT_EQ(recent.ForScene("fourth", 10).size(), 1u);

  // A 2D sweep: from its pose's position by its displacement.
  scene::SweepRequest<2> sweep_request;
  sweep_request.pose.position = {1, 2};
  sweep_request.displacement = {3, 4};
  const scene::SceneQuery<2> sweep = sweep_request;
  recent.Add<2>("flat", sweep, scene::QueryResult<2>());
  const std::vector<RecentQuery> flat = recent.ForScene("flat", 1);
  ASSERT_EQ(flat.size(), 1u);
  EXPECT_EQ(flat[0].kind, "sweep");
  EXPECT_FALSE(flat[0].rewound);
  EXPECT_FLOAT_EQ(flat[0].from[1], 2.0f);
  EXPECT_FLOAT_EQ(flat[0].to[0], 4.0f);
  EXPECT_FLOAT_EQ(flat[0].to[1], 6.0f);
  EXPECT_FLOAT_EQ(flat[0].to[2], 0.0f);
}

}  // namespace
}  // namespace sator::server
