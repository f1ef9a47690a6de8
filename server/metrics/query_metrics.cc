// The sator_* series (see query_metrics.h): sharded lock-free recording,
// merged into Prometheus families at scrape time.
#include "server/metrics/query_metrics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "server/logging.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {
namespace {

// 250 ns to 2.5 s in a 1-2.5-5 series: a raycast on a small scene takes
// a few hundred nanoseconds, so the first buckets must resolve those.
constexpr std::array<double, 22> kSecondsBounds = {
    2.5e-7, 5e-7,   1e-6, 2.5e-6, 5e-6,   1e-5, 2.5e-5, 5e-5,
    1e-4,   2.5e-4, 5e-4, 1e-3,   2.5e-3, 5e-3, 1e-2,   2.5e-2,
    5e-2,   0.1,    0.25, 0.5,    1.0,    2.5};
// The RPC buckets (grpc_metrics.cc): 10 us to 10 s.
constexpr std::array<double, 19> kSessionBounds = {
    1e-5,   2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2,
    2.5e-2, 5e-2,   0.1,  0.25, 0.5,    1.0,  2.5,  5.0,    10.0};
constexpr std::array<double, 13> kHitsBounds = {
    0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
// Ticks: a rewind within the current tick (fraction only) lands below 1;
// 5000 is above the longest history (kMaxHistoryTicks, 4096).
constexpr std::array<double, 14> kRewindBounds = {
    0, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
constexpr std::array<double, 19> kVisitsBounds = {
    1,    2,    5,     10,    20,    50,     100,    200,    500, 1000,
    2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1e6};

// One histogram's cells: a count per bucket (not cumulative), the +Inf
// bucket, then the sum (nanoseconds for seconds, plain for counts).
template <size_t kBounds>
constexpr int HistogramCells() {
  return static_cast<int>(kBounds) + 2;
}
constexpr int kSecondsCells = HistogramCells<kSecondsBounds.size()>();
constexpr int kHitsCells = HistogramCells<kHitsBounds.size()>();
constexpr int kVisitsCells = HistogramCells<kVisitsBounds.size()>();
constexpr int kSessionCells = HistogramCells<kSessionBounds.size()>();
constexpr int kRewindCells = HistogramCells<kRewindBounds.size()>();
constexpr int kShotOutcomes = 3;
constexpr int kShotReasons = scene::kShotReasonCount;
// The rewind depth's sum is kept in 1/kRewindSumScale ticks (cells are
// integers).
constexpr double kRewindSumScale = 1e-6;

// Cell offsets within a shard.
constexpr int kSecondsBase = 0;
constexpr int kHitsBase =
    kSecondsBase + scene::kQueryKinds * kQueryModes * kSecondsCells;
constexpr int kVisitsBase = kHitsBase + scene::kQueryKinds * kHitsCells;
constexpr int kRewoundBase = kVisitsBase + scene::kQueryKinds * kVisitsCells;
constexpr int kPoseUpdatesCell = kRewoundBase + scene::kQueryKinds;
constexpr int kSessionBase = kPoseUpdatesCell + 1;
constexpr int kRewindBase = kSessionBase + kSessionMessageKinds * kSessionCells;
constexpr int kShotsBase = kRewindBase + kRewindCells;
constexpr int kCellsPerShard = kShotsBase + kShotOutcomes * kShotReasons;

constexpr std::array<absl::string_view, kQueryModes> kModeNames = {
    "any", "closest", "all", "closest_per_body"};
constexpr std::array<absl::string_view, kFailureVias> kViaNames = {
    "unary", "batch_entry", "session_message"};
constexpr std::array<absl::string_view, kSessionMessageKinds>
    kSessionKindNames = {"open",  "poses",           "query", "unset",
                         "shots", "watch_proximity", "batch"};
constexpr std::array<absl::string_view, kFailureKinds> kFailureKindNames = {
    "overlap", "contacts",    "sweep",         "raycast",
    "point",   "query_batch", "raycast_batch", "poses",
    "open",    "unset",       "shots",         "watch_proximity"};
constexpr std::array<absl::string_view, kStatusCodes> kCodeNames = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};

int FailureCell(int via, int kind, int code) {
  return (via * kFailureKinds + kind) * kStatusCodes + code;
}

// The bucket of `value`: the first bound >= value (Prometheus' `le`), or
// the +Inf bucket.
template <size_t kBounds>
int BucketOf(const std::array<double, kBounds>& bounds, double value) {
  return static_cast<int>(
      std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin());
}

std::vector<double> ToVector(const double* first, size_t count) {
  return std::vector<double>(first, first + count);
}

// Which shard this thread adds to: handed out round robin on first use.
int ThisThreadShardIndex() {
  static std::atomic<int> next{0};
  thread_local const int index =
      next.fetch_add(1, std::memory_order_relaxed) % QueryMetrics::kShards;
  return index;
}

prometheus::ClientMetric::Label MakeLabel(absl::string_view name,
                                          absl::string_view value) {
  return {std::string(name), std::string(value)};
}
// For the core's names (std::string_view, which absl::string_view need not
// be).
prometheus::ClientMetric::Label MakeLabel(absl::string_view name,
                                          std::string_view value) {
  return {std::string(name), std::string(value)};
}

}  // namespace

struct QueryMetrics::Shards {
  struct alignas(64) Shard {
    std::array<std::atomic<std::uint64_t>, kCellsPerShard> cells{};
  };
  std::array<Shard, kShards> shard;

  std::atomic<std::uint64_t>& Cell(int shard_index, int cell) {
    return shard[static_cast<size_t>(shard_index)]
        .cells[static_cast<size_t>(cell)];
  }
  // The sum of one cell over the shards.
  std::uint64_t Total(int cell) const {
    std::uint64_t total = 0;
    for (const Shard& one : shard) {
      total +=
          one.cells[static_cast<size_t>(cell)].load(std::memory_order_relaxed);
    }
    return total;
  }
};

// The cell additions of many queries, summed in place and then added to a
// shard with one atomic add per cell touched (instead of several atomic adds
// per query).
class QueryMetrics::CellTally {
 public:
  void Add(int cell, std::uint64_t amount) {
    if (amount == 0) return;
    const auto index = static_cast<size_t>(cell);
    std::uint64_t& word = touched_bits_[index / 64];
    const std::uint64_t bit = std::uint64_t{1} << (index % 64);
    if ((word & bit) == 0) {
      // The first addition to this cell: its sum starts here (the sums are
      // not cleared beforehand, only the bits).
      word |= bit;
      touched_[static_cast<size_t>(touched_count_++)] = cell;
      sums_[index] = amount;
    } else {
      sums_[index] += amount;
    }
  }
  void AddTo(Shards& shards, int shard) const {
    for (int i = 0; i < touched_count_; ++i) {
      const int cell = touched_[static_cast<size_t>(i)];
      shards.Cell(shard, cell)
          .fetch_add(sums_[static_cast<size_t>(cell)],
                     std::memory_order_relaxed);
    }
  }

 private:
  std::array<std::uint64_t, (kCellsPerShard + 63) / 64> touched_bits_{};
  int touched_count_ = 0;
  // Read only where touched_bits_ is set (left uninitialised: a tally is
  // made per query on the unary path).
  std::array<int, kCellsPerShard> touched_;
  std::array<std::uint64_t, kCellsPerShard> sums_;
};

absl::string_view FailureViaName(FailureVia via) {
  return kViaNames[static_cast<size_t>(via)];
}

absl::string_view FailureKindName(FailureKind kind) {
  return kFailureKindNames[static_cast<size_t>(kind)];
}

static_assert(static_cast<int>(FailureKind::kOverlap) ==
                  static_cast<int>(scene::QueryKind::kOverlap) &&
              static_cast<int>(FailureKind::kPoint) ==
                  static_cast<int>(scene::QueryKind::kPoint));
FailureKind FailureKindOf(scene::QueryKind kind) {
  // The query kinds open the failure kinds, in the same order.
  return static_cast<FailureKind>(static_cast<std::uint8_t>(kind));
}

absl::string_view QueryModeName(QueryModeLabel mode) {
  return kModeNames[static_cast<size_t>(mode)];
}

QueryModeLabel ModeLabel(scene::ResultMode mode) {
  switch (mode) {
    case scene::ResultMode::kAny:
      return QueryModeLabel::kAny;
    case scene::ResultMode::kClosest:
      return QueryModeLabel::kClosest;
    case scene::ResultMode::kAllUpToN:
      return QueryModeLabel::kAll;
    case scene::ResultMode::kClosestPerBody:
    // The wire has no per-group mode (sator.v1.ResultMode): only
    // ValidateShots-style in-process callers use it, counted per body.
    case scene::ResultMode::kClosestPerGroup:
      return QueryModeLabel::kClosestPerBody;
  }
  return QueryModeLabel::kClosest;
}

std::vector<double> QuerySecondsBuckets() {
  return ToVector(kSecondsBounds.data(), kSecondsBounds.size());
}
std::vector<double> QueryHitsBuckets() {
  return ToVector(kHitsBounds.data(), kHitsBounds.size());
}
std::vector<double> NodeVisitsBuckets() {
  return ToVector(kVisitsBounds.data(), kVisitsBounds.size());
}
std::vector<double> RewindDepthBuckets() {
  return ToVector(kRewindBounds.data(), kRewindBounds.size());
}
std::vector<double> SessionMessageBuckets() {
  return ToVector(kSessionBounds.data(), kSessionBounds.size());
}

QueryMetrics::QueryMetrics(const SceneRegistry* scenes,
                           absl::Duration slow_query_threshold)
    : scenes_(scenes),
      slow_query_threshold_(slow_query_threshold),
      slow_query_seconds_(slow_query_threshold > absl::ZeroDuration()
                              ? absl::ToDoubleSeconds(slow_query_threshold)
                              : std::numeric_limits<double>::infinity()),
      shards_(std::make_unique<Shards>()) {}

QueryMetrics::~QueryMetrics() = default;

void QueryMetrics::Record(scene::QueryKind kind, QueryModeLabel mode,
                          double seconds, std::int64_t hits,
                          std::int64_t node_visits, bool rewound) {
  CellTally tally;
  TallyQuery(kind, mode, seconds, hits, node_visits, rewound, tally);
  tally.AddTo(*shards_, ThisThreadShardIndex());
}

void QueryMetrics::TallyQuery(scene::QueryKind kind, QueryModeLabel mode,
                              double seconds, std::int64_t hits,
                              std::int64_t node_visits, bool rewound,
                              CellTally& tally) {
  const int k = static_cast<int>(kind);
  const int m = static_cast<int>(mode);
  seconds = std::max(seconds, 0.0);
  const int seconds_base = kSecondsBase + (k * kQueryModes + m) * kSecondsCells;
  tally.Add(seconds_base + BucketOf(kSecondsBounds, seconds), 1);
  tally.Add(seconds_base + kSecondsCells - 1,
            static_cast<std::uint64_t>(std::llround(seconds * 1e9)));
  const double hit_count = static_cast<double>(std::max<std::int64_t>(hits, 0));
  const int hits_base = kHitsBase + k * kHitsCells;
  tally.Add(hits_base + BucketOf(kHitsBounds, hit_count), 1);
  tally.Add(hits_base + kHitsCells - 1, static_cast<std::uint64_t>(hit_count));
  const double visits =
      static_cast<double>(std::max<std::int64_t>(node_visits, 0));
  const int visits_base = kVisitsBase + k * kVisitsCells;
  tally.Add(visits_base + BucketOf(kVisitsBounds, visits), 1);
  tally.Add(visits_base + kVisitsCells - 1, static_cast<std::uint64_t>(visits));
  if (rewound) tally.Add(kRewoundBase + k, 1);
}

void QueryMetrics::RecordBatch(const QueryObservation& batch, double seconds) {
  const int k = static_cast<int>(batch.kind);
  const int m = static_cast<int>(batch.mode);
  const auto count = static_cast<std::uint64_t>(batch.count);
  // The batch's own tallies first (plain integers), then one atomic add per
  // cell that changed.
  std::array<std::uint64_t, kHitsCells> hits{};
  std::array<std::uint64_t, kVisitsCells> visits{};
  static_assert(kHitsBounds[0] == 0 && kHitsBounds[1] == 1);
  for (const std::uint32_t value : batch.hits_per_query) {
    // 0 and 1 (a closest or any-hit ray) are buckets 0 and 1.
    ++hits[value <= 1 ? value
                      : static_cast<size_t>(
                            BucketOf(kHitsBounds, static_cast<double>(value)))];
    hits[kHitsCells - 1] += value;
  }
  for (const std::uint32_t value : batch.node_visits_per_query) {
    ++visits[static_cast<size_t>(
        BucketOf(kVisitsBounds, static_cast<double>(value)))];
    visits[kVisitsCells - 1] += value;
  }
  const int shard = ThisThreadShardIndex();
  const auto add = [&](int cell, std::uint64_t amount) {
    if (amount == 0) return;
    shards_->Cell(shard, cell).fetch_add(amount, std::memory_order_relaxed);
  };
  const int seconds_base = kSecondsBase + (k * kQueryModes + m) * kSecondsCells;
  add(seconds_base +
          BucketOf(kSecondsBounds, seconds / static_cast<double>(count)),
      count);
  add(seconds_base + kSecondsCells - 1,
      static_cast<std::uint64_t>(std::llround(seconds * 1e9)));
  for (int i = 0; i < kHitsCells; ++i) {
    add(kHitsBase + k * kHitsCells + i, hits[static_cast<size_t>(i)]);
  }
  for (int i = 0; i < kVisitsCells; ++i) {
    add(kVisitsBase + k * kVisitsCells + i, visits[static_cast<size_t>(i)]);
  }
  if (batch.rewound) add(kRewoundBase + k, count);
}

void QueryMetrics::RecordRewindDepth(double ticks, std::uint64_t count) {
  CellTally tally;
  TallyRewindDepth(ticks, count, tally);
  tally.AddTo(*shards_, ThisThreadShardIndex());
}

void QueryMetrics::TallyRewindDepth(double ticks, std::uint64_t count,
                                    CellTally& tally) {
  if (count == 0) return;
  ticks = std::isfinite(ticks) ? std::max(ticks, 0.0) : 0.0;
  tally.Add(kRewindBase + BucketOf(kRewindBounds, ticks), count);
  tally.Add(kRewindBase + kRewindCells - 1,
            count * static_cast<std::uint64_t>(
                        std::llround(ticks / kRewindSumScale)));
}

void QueryMetrics::OnShot(scene::ShotOutcome outcome, scene::ShotReason reason,
                          std::optional<double> rewind_ticks) {
  const int o = static_cast<int>(outcome);
  const int r = static_cast<int>(reason);
  if (o >= 0 && o < kShotOutcomes && r >= 0 && r < kShotReasons) {
    shards_->Cell(ThisThreadShardIndex(), kShotsBase + o * kShotReasons + r)
        .fetch_add(1, std::memory_order_relaxed);
  }
  if (rewind_ticks.has_value()) RecordRewindDepth(*rewind_ticks, 1);
}

void QueryMetrics::OnQuery(const QueryObservation& query) {
  OnQueries(absl::MakeConstSpan(&query, 1));
}

void QueryMetrics::OnQueries(absl::Span<const QueryObservation> queries) {
  CellTally tally;
  for (const QueryObservation& query : queries) {
    if (query.rewound) {
      TallyRewindDepth(query.rewind_ticks,
                       static_cast<std::uint64_t>(std::max(query.count, 1)),
                       tally);
    }
    double seconds = std::max(absl::ToDoubleSeconds(query.duration), 0.0);
    if (query.count > 1) {
      RecordBatch(query, seconds);
      // The slow-query test below is per query: the batch's mean.
      seconds /= static_cast<double>(query.count);
    } else {
      TallyQuery(query.kind, query.mode, seconds, query.hits, query.node_visits,
                 query.rewound, tally);
    }
    if (seconds >= slow_query_seconds_) {
      Log(LogLevel::kWarning, "slow_query",
          {{"kind", scene::QueryKindName(query.kind)},
           {"mode", QueryModeName(query.mode)},
           {"scene", query.scene_id},
           {"tick", query.tick},
           {"rewound", query.rewound},
           {"duration_ms", seconds * 1e3},
           {"hits", query.hits},
           {"node_visits", query.node_visits},
           {"queries", static_cast<std::int64_t>(query.count)}});
    }
  }
  tally.AddTo(*shards_, ThisThreadShardIndex());
}

void QueryMetrics::RecordSessionMessage(SessionMessageKind kind,
                                        double seconds) {
  seconds = std::max(seconds, 0.0);
  const int shard = ThisThreadShardIndex();
  const int base = kSessionBase + static_cast<int>(kind) * kSessionCells;
  shards_->Cell(shard, base + BucketOf(kSessionBounds, seconds))
      .fetch_add(1, std::memory_order_relaxed);
  shards_->Cell(shard, base + kSessionCells - 1)
      .fetch_add(static_cast<std::uint64_t>(std::llround(seconds * 1e9)),
                 std::memory_order_relaxed);
}

void QueryMetrics::OnFailure(FailureVia via, FailureKind kind,
                             absl::StatusCode code) {
  int c = static_cast<int>(code);
  if (c == 0) return;
  if (c < 0 || c >= kStatusCodes) {
    c = static_cast<int>(absl::StatusCode::kUnknown);
  }
  failures_[static_cast<size_t>(
                FailureCell(static_cast<int>(via), static_cast<int>(kind), c))]
      .fetch_add(1, std::memory_order_relaxed);
}

void QueryMetrics::AddPoseUpdates(std::int64_t count) {
  if (count <= 0) return;
  shards_->Cell(ThisThreadShardIndex(), kPoseUpdatesCell)
      .fetch_add(static_cast<std::uint64_t>(count), std::memory_order_relaxed);
}

namespace {

// A cumulative histogram from per-bucket cells (bounds, +Inf, sum) summed
// over the shards.
template <size_t kBounds, typename Totals>
prometheus::ClientMetric MakeHistogram(
    const std::array<double, kBounds>& bounds, int base, double sum_scale,
    const Totals& total, std::vector<prometheus::ClientMetric::Label> labels) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  std::uint64_t cumulative = 0;
  for (size_t b = 0; b <= kBounds; ++b) {
    cumulative += total(base + static_cast<int>(b));
    metric.histogram.bucket.push_back(
        {cumulative,
         b < kBounds ? bounds[b] : std::numeric_limits<double>::infinity()});
  }
  metric.histogram.sample_count = cumulative;
  metric.histogram.sample_sum =
      static_cast<double>(total(base + static_cast<int>(kBounds) + 1)) *
      sum_scale;
  return metric;
}

prometheus::MetricFamily MakeFamily(std::string name, std::string help,
                                    prometheus::MetricType type) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

}  // namespace

std::vector<prometheus::MetricFamily> QueryMetrics::Collect() const {
  const auto total = [this](int cell) { return shards_->Total(cell); };
  std::vector<prometheus::MetricFamily> families;

  prometheus::MetricFamily seconds = MakeFamily(
      "sator_query_seconds",
      "Core work of one scene query (the query on the scene's snapshot, "
      "without conversion or the RPC around it), in seconds.",
      prometheus::MetricType::Histogram);
  prometheus::MetricFamily hits =
      MakeFamily("sator_query_hits", "Hits one scene query returned.",
                 prometheus::MetricType::Histogram);
  prometheus::MetricFamily visits =
      MakeFamily("sator_broadphase_node_visits",
                 "Broad-phase bounding boxes one scene query tested.",
                 prometheus::MetricType::Histogram);
  prometheus::MetricFamily rewound =
      MakeFamily("sator_rewound_queries_total",
                 "Scene queries run against a past tick (rewind).",
                 prometheus::MetricType::Counter);
  for (int k = 0; k < scene::kQueryKinds; ++k) {
    const absl::string_view kind =
        scene::QueryKindName(static_cast<scene::QueryKind>(k));
    for (int m = 0; m < kQueryModes; ++m) {
      seconds.metric.push_back(MakeHistogram(
          kSecondsBounds, kSecondsBase + (k * kQueryModes + m) * kSecondsCells,
          1e-9, total,
          {MakeLabel("kind", kind),
           MakeLabel("mode", kModeNames[static_cast<size_t>(m)])}));
    }
    hits.metric.push_back(MakeHistogram(kHitsBounds, kHitsBase + k * kHitsCells,
                                        1.0, total, {MakeLabel("kind", kind)}));
    visits.metric.push_back(MakeHistogram(kVisitsBounds,
                                          kVisitsBase + k * kVisitsCells, 1.0,
                                          total, {MakeLabel("kind", kind)}));
    prometheus::ClientMetric count;
    count.label = {MakeLabel("kind", kind)};
    count.counter.value = static_cast<double>(total(kRewoundBase + k));
    rewound.metric.push_back(std::move(count));
  }
  families.push_back(std::move(seconds));
  families.push_back(std::move(hits));
  families.push_back(std::move(visits));
  families.push_back(std::move(rewound));

  prometheus::MetricFamily rewind_depth = MakeFamily(
      "sator_rewind_depth_ticks",
      "How far before the scene's current tick a rewound scene query or a "
      "judged shot went, in ticks (fractions counted).",
      prometheus::MetricType::Histogram);
  rewind_depth.metric.push_back(
      MakeHistogram(kRewindBounds, kRewindBase, kRewindSumScale, total, {}));
  families.push_back(std::move(rewind_depth));

  // A series appears with its first verdict, as sator_errors_total's do.
  prometheus::MetricFamily shots = MakeFamily(
      "sator_shot_verdicts_total",
      "ValidateShots verdicts, by outcome (hit, miss, rejected) and reason.",
      prometheus::MetricType::Counter);
  for (int o = 0; o < kShotOutcomes; ++o) {
    for (int r = 0; r < kShotReasons; ++r) {
      const std::uint64_t value = total(kShotsBase + o * kShotReasons + r);
      if (value == 0) continue;
      prometheus::ClientMetric metric;
      metric.label = {
          MakeLabel("outcome",
                    scene::ShotOutcomeName(static_cast<scene::ShotOutcome>(o))),
          MakeLabel("reason",
                    scene::ShotReasonName(static_cast<scene::ShotReason>(r)))};
      metric.counter.value = static_cast<double>(value);
      shots.metric.push_back(std::move(metric));
    }
  }
  families.push_back(std::move(shots));

  prometheus::MetricFamily poses =
      MakeFamily("sator_pose_updates_total",
                 "Body poses applied by accepted pose-update batches.",
                 prometheus::MetricType::Counter);
  poses.metric.emplace_back();
  poses.metric.back().counter.value =
      static_cast<double>(total(kPoseUpdatesCell));
  families.push_back(std::move(poses));

  // A series appears with its first failure (as grpc_server_handled_total's
  // codes do): 510 series of zeros would swamp the exposition.
  prometheus::MetricFamily errors = MakeFamily(
      "sator_errors_total",
      "Failures answered, by where (a unary call, a QueryBatch entry, a "
      "Session message), what failed and the status code.",
      prometheus::MetricType::Counter);
  for (int via = 0; via < kFailureVias; ++via) {
    for (int kind = 0; kind < kFailureKinds; ++kind) {
      for (int code = 1; code < kStatusCodes; ++code) {
        const std::uint64_t value =
            failures_[static_cast<size_t>(FailureCell(via, kind, code))].load(
                std::memory_order_relaxed);
        if (value == 0) continue;
        prometheus::ClientMetric metric;
        metric.label = {
            MakeLabel("code", kCodeNames[static_cast<size_t>(code)]),
            MakeLabel("kind", kFailureKindNames[static_cast<size_t>(kind)]),
            MakeLabel("via", kViaNames[static_cast<size_t>(via)])};
        metric.counter.value = static_cast<double>(value);
        errors.metric.push_back(std::move(metric));
      }
    }
  }
  families.push_back(std::move(errors));

  prometheus::MetricFamily session_seconds = MakeFamily(
      "sator_session_message_seconds",
      "From a Session message's arrival to its reply written, in seconds.",
      prometheus::MetricType::Histogram);
  for (int kind = 0; kind < kSessionMessageKinds; ++kind) {
    session_seconds.metric.push_back(MakeHistogram(
        kSessionBounds, kSessionBase + kind * kSessionCells, 1e-9, total,
        {MakeLabel("kind", kSessionKindNames[static_cast<size_t>(kind)])}));
  }
  families.push_back(std::move(session_seconds));

  prometheus::MetricFamily sessions =
      MakeFamily("sator_sessions_active", "Open Session streams.",
                 prometheus::MetricType::Gauge);
  sessions.metric.emplace_back();
  sessions.metric.back().gauge.value =
      static_cast<double>(sessions_active_.load(std::memory_order_relaxed));
  families.push_back(std::move(sessions));

  // Scenes and bodies, counted now: one pass over the registry, a page of
  // scenes at a time, O(bodies) (SceneSnapshot::CountBodies).
  std::size_t scene_count = 0;
  std::size_t static_bodies = 0;
  std::size_t dynamic_bodies = 0;
  // Scenes kept on restart with a setting above a lowered limit flag
  // (scene_setting_over_limit in the log; ScenePersistence).
  std::size_t scenes_over_limit = 0;
  if (scenes_ != nullptr) {
    const SceneLimits& limits = scenes_->limits();
    std::string after;
    while (true) {
      const std::vector<std::shared_ptr<HostedScene>> page =
          scenes_->List(after, 256);
      for (const std::shared_ptr<HostedScene>& scene : page) {
        scene::BodyCounts counts;
        if (scene->scene2() != nullptr) {
          counts = scene->scene2()->Snapshot().CountBodies();
        } else if (scene->scene3() != nullptr) {
          counts = scene->scene3()->Snapshot().CountBodies();
        }
        ++scene_count;
        const HostedSceneSettings& settings = scene->settings();
        if (settings.history_ticks > limits.max_history_ticks ||
            settings.max_bodies > limits.max_bodies_per_scene) {
          ++scenes_over_limit;
        }
        static_bodies += counts.static_bodies;
        dynamic_bodies += counts.dynamic_bodies;
      }
      if (page.size() < 256) break;
      after = page.back()->id();
    }
  }
  prometheus::MetricFamily scenes_family = MakeFamily(
      "sator_scenes", "Scenes hosted.", prometheus::MetricType::Gauge);
  scenes_family.metric.emplace_back();
  scenes_family.metric.back().gauge.value = static_cast<double>(scene_count);
  families.push_back(std::move(scenes_family));

  prometheus::MetricFamily over_limit = MakeFamily(
      "sator_scenes_over_limit",
      "Hosted scenes with a setting above the current --max_history_ticks or "
      "--max_bodies_per_scene: acknowledged under a higher limit and kept on "
      "restart (log event scene_setting_over_limit).",
      prometheus::MetricType::Gauge);
  over_limit.metric.emplace_back();
  over_limit.metric.back().gauge.value = static_cast<double>(scenes_over_limit);
  families.push_back(std::move(over_limit));

  prometheus::MetricFamily bodies =
      MakeFamily("sator_bodies", "Bodies in all hosted scenes, by motion type.",
                 prometheus::MetricType::Gauge);
  for (const auto& [motion, count] :
       {std::pair<absl::string_view, std::size_t>{"static", static_bodies},
        {"dynamic", dynamic_bodies}}) {
    prometheus::ClientMetric metric;
    metric.label = {MakeLabel("motion", motion)};
    metric.gauge.value = static_cast<double>(count);
    bodies.metric.push_back(std::move(metric));
  }
  families.push_back(std::move(bodies));
  return families;
}

}  // namespace sator::server
