// The sator_* series: what the scene queries cost and what satord hosts.
//
//   sator_query_seconds{kind,mode}         histogram, core work of one query
//   sator_query_hits{kind}                 histogram, hits one query returned
//   sator_broadphase_node_visits{kind}     histogram, broad-phase boxes tested
//   sator_rewound_queries_total{kind}      counter, queries run at a past tick
//   sator_rewind_depth_ticks               histogram, ticks a rewound query or
//                                          a judged shot went back
//   sator_shot_verdicts_total{outcome,reason}
//                                          counter, ValidateShots verdicts
//   sator_pose_updates_total               counter, body poses applied
//   sator_errors_total{via,kind,code}      counter, failed calls, batch
//                                          entries and Session messages
//   sator_session_message_seconds{kind}    histogram, a Session message's
//                                          arrival to its reply written
//   sator_sessions_active                  gauge, open Session streams
//   sator_scenes                           gauge, hosted scenes (at scrape)
//   sator_bodies{motion}                   gauge, bodies by motion (at scrape)
//
// No label ever names a scene or a body: every label value comes from a
// fixed list, so the number of series is fixed at startup.
//
// The hot path looks nothing up and takes no lock. prometheus-cpp's
// Histogram::Observe takes a mutex, which every query thread would contend
// on; instead, each thread adds to one of kShards shards of relaxed atomic
// cells (bucket counts and sums, non-cumulative), picked once per thread, and
// Collect() merges the shards into cumulative histograms at scrape time. A
// histogram's _count is the sum of its buckets as read, so the +Inf bucket
// always equals _count even while queries run during a scrape.
//
// The same object writes the slow-query log: one JSON line at warning level
// per query slower than a threshold (docs/METRICS.md).
#ifndef SATOR_SERVER_METRICS_QUERY_METRICS_H_
#define SATOR_SERVER_METRICS_QUERY_METRICS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "sator/core/scene/query_kind.h"
#include "sator/core/scene/scene_types.h"
#include "sator/core/scene/shot_validation.h"
#include "server/metrics/failure_labels.h"

namespace sator::server {

class SceneRegistry;

// The result modes, as the `mode` label says them (any, closest, all,
// closest_per_body).
enum class QueryModeLabel : std::uint8_t {
  kAny = 0,
  kClosest,
  kAll,
  kClosestPerBody,
};
inline constexpr int kQueryModes = 4;

// The gRPC status codes, OK (never counted) to UNAUTHENTICATED.
inline constexpr int kStatusCodes = 17;

absl::string_view FailureViaName(FailureVia via);
absl::string_view FailureKindName(FailureKind kind);
// The failure kind of a query kind.
FailureKind FailureKindOf(scene::QueryKind kind);
absl::string_view QueryModeName(QueryModeLabel mode);

// The `mode` label of a core result mode.
QueryModeLabel ModeLabel(scene::ResultMode mode);

// One scene query that ran and answered.
struct QueryObservation {
  absl::string_view scene_id;
  scene::QueryKind kind = scene::QueryKind::kOverlap;
  QueryModeLabel mode = QueryModeLabel::kClosest;
  // The core work (the scene query on its snapshot).
  absl::Duration duration;
  std::int64_t hits = 0;
  std::int64_t node_visits = 0;
  bool rewound = false;
  // For a rewound query: how far before the scene's current tick its time
  // was, in ticks (tick + fraction counted).
  double rewind_ticks = 0.0;
  // The tick the answer describes.
  std::int64_t tick = 0;
  // A RaycastBatch reports its rays at once: `count` queries, `duration`
  // and `hits` / `node_visits` their totals, and each ray's hits and node
  // visits in the spans (`count` values each; empty when count is 1).
  int count = 1;
  absl::Span<const std::uint32_t> hits_per_query{};
  absl::Span<const std::uint32_t> node_visits_per_query{};
};

// Bucket upper bounds (the +Inf bucket is implied).
// Seconds: 250 ns to 2.5 s in a 1-2.5-5 series.
std::vector<double> QuerySecondsBuckets();
// Hits: 0, 1, 2, 5, 10, ... 5000.
std::vector<double> QueryHitsBuckets();
// Broad-phase node visits: 1, 2, 5, 10, ... 1e6.
std::vector<double> NodeVisitsBuckets();
// Rewind depth in ticks: 0, 0.5, 1, 2, 5, ... 5000.
std::vector<double> RewindDepthBuckets();
// Session message seconds: those of RPCs (LatencyBucketsSeconds, 10 us to
// 10 s).
std::vector<double> SessionMessageBuckets();

class QueryMetrics final : public prometheus::Collectable {
 public:
  // `scenes` (may be null) is read at scrape time for sator_scenes and
  // sator_bodies. `slow_query_threshold` <= 0 turns the slow-query log off.
  QueryMetrics(const SceneRegistry* scenes,
               absl::Duration slow_query_threshold);
  ~QueryMetrics() override;
  QueryMetrics(const QueryMetrics&) = delete;
  QueryMetrics& operator=(const QueryMetrics&) = delete;

  // One answered scene query (or a batch of `count`): records its metrics
  // and logs it if slow. Thread-safe; lock-free unless the query is slow.
  //
  // A batch is recorded with one atomic add per touched cell, not per query:
  // hits and node visits go to the buckets of each query's own value; the
  // batch is timed once, so sator_query_seconds counts each of its queries
  // in the bucket of the batch's mean time per query, with the exact total
  // in _sum (docs/METRICS.md). A batch is logged as slow when its mean time
  // per query reaches the threshold.
  void OnQuery(const QueryObservation& query);
  // Many answered queries at once (a QueryBatch's entries), as OnQuery each,
  // with one atomic add per cell touched for all of them.
  void OnQueries(absl::Span<const QueryObservation> queries);

  // One shot's verdict (sator_shot_verdicts_total), and for a shot judged
  // at a view time (every verdict but in_future and too_old) its rewind
  // depth (sator_rewind_depth_ticks). Sharded like the query series.
  void OnShot(scene::ShotOutcome outcome, scene::ShotReason reason,
              std::optional<double> rewind_ticks);

  // The metrics part of OnQuery alone (for the benchmark).
  void Record(scene::QueryKind kind, QueryModeLabel mode, double seconds,
              std::int64_t hits, std::int64_t node_visits, bool rewound);

  // A Session message of `kind` was answered `seconds` after it arrived
  // (sharded like the query series: lock-free).
  void RecordSessionMessage(SessionMessageKind kind, double seconds);

  // `count` body poses were applied (one per PoseUpdate in an accepted
  // batch).
  void AddPoseUpdates(std::int64_t count);

  // One failure answered with `code` (OK is ignored). Thread-safe: one
  // relaxed atomic add, no lookup.
  void OnFailure(FailureVia via, FailureKind kind, absl::StatusCode code);

  void SessionOpened() { sessions_active_.fetch_add(1); }
  void SessionClosed() { sessions_active_.fetch_sub(1); }

  absl::Duration slow_query_threshold() const { return slow_query_threshold_; }

  std::vector<prometheus::MetricFamily> Collect() const override;

  // Threads share kShards shards (a thread keeps the one it first got).
  static constexpr int kShards = 16;

 private:
  // The cells of every shard, and the additions of many queries summed
  // before they are added to a shard (query_metrics.cc).
  struct Shards;
  class CellTally;

  void RecordBatch(const QueryObservation& batch, double seconds);
  // One query's cells (sator_query_seconds, _hits, node visits, rewound).
  static void TallyQuery(scene::QueryKind kind, QueryModeLabel mode,
                         double seconds, std::int64_t hits,
                         std::int64_t node_visits, bool rewound,
                         CellTally& tally);
  // `count` observations of `ticks` in sator_rewind_depth_ticks.
  void RecordRewindDepth(double ticks, std::uint64_t count);
  static void TallyRewindDepth(double ticks, std::uint64_t count,
                               CellTally& tally);

  const SceneRegistry* scenes_;
  const absl::Duration slow_query_threshold_;
  const double slow_query_seconds_;
  std::unique_ptr<Shards> shards_;
  std::atomic<std::int64_t> sessions_active_{0};
  // sator_errors_total by (via, kind, code). Failures are rare next to
  // queries, so they share one set of cells instead of shards.
  std::array<std::atomic<std::uint64_t>,
             static_cast<size_t>(kFailureVias* kFailureKinds* kStatusCodes)>
      failures_{};
};

}  // namespace sator::server

#endif  // SATOR_SERVER_METRICS_QUERY_METRICS_H_
