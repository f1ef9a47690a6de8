// Scene queries for the service, with no gRPC: find the scene, take one
// snapshot, validate and convert the request, run the core query, convert
// the answer. The QueryService handlers and the Session stream call these;
// tests call them directly.
//
// Every query passes through one place (SceneQueries::Execute) where its
// kind, mode, duration, hit count, broad-phase visits, tick and whether it
// rewound are known; an optional QueryObserver receives them as QueryRecords
// (for metrics and the slow-query log): each query's at once, or a batch's
// a chunk of queries at a time.
#ifndef SATOR_SERVER_SCENE_QUERIES_H_
#define SATOR_SERVER_SCENE_QUERIES_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "proto/convert/geometry_convert.h"
#include "proto/convert/query_convert.h"
#include "sator/core/scene/batch_workers.h"
#include "sator/core/scene/scene.h"
#include "sator/core/scene/shot_validation.h"
#include "sator/v1/query_service.pb.h"
#include "server/debug/recent_queries.h"
#include "server/metrics/failure_labels.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

// What one scene query did. Reported once per query that reached the scene
// (requests refused by validation before that are not queries).
struct QueryRecord {
  absl::string_view scene_id;
  int dimension = 3;
  scene::QueryKind kind = scene::QueryKind::kOverlap;
  scene::ResultMode mode = scene::ResultMode::kClosest;
  // OK, or the scene's error (e.g. OUT_OF_RANGE for a rewind too old).
  absl::StatusCode code = absl::StatusCode::kOk;
  // Wall time of the core query alone (conversion excluded).
  absl::Duration duration;
  int hits = 0;
  std::int64_t node_visits = 0;
  std::int64_t leaf_visits = 0;
  bool rewound = false;
  // For a rewound query: how far before the snapshot's current tick its
  // time was, in ticks (tick + fraction counted).
  double rewind_ticks = 0.0;
  // The tick the answer describes (0 when the query failed).
  std::int64_t tick = 0;
  // How many queries this record stands for: 1, or the rays of a
  // RaycastBatch, which reports once for all of them. Then `duration`,
  // `hits`, `node_visits` and `leaf_visits` are totals over the rays, and
  // the spans hold each ray's hits and node visits (`count` values each).
  int count = 1;
  absl::Span<const std::uint32_t> hits_per_query{};
  absl::Span<const std::uint32_t> node_visits_per_query{};
};

// Called on the thread that ran the queries, with one query's record or the
// records of up to SceneQueries::kBatchChunk queries of a QueryBatch; must be
// thread-safe and fast.
using QueryObserver = std::function<void(absl::Span<const QueryRecord>)>;

// One verdict of a ValidateShots call (unary or Session).
struct ShotRecord {
  absl::string_view scene_id;
  scene::ShotOutcome outcome = scene::ShotOutcome::kMiss;
  scene::ShotReason reason = scene::ShotReason::kNothingHit;
  // How far before the current tick the shot was judged, in ticks; unset
  // for the shots rejected before a view time was settled (in_future,
  // too_old).
  std::optional<double> rewind_ticks;
  // The shot as asked and its verdict as answered (for the audit trail),
  // and the snapshot's newest tick.
  const sator::v1::Shot* shot = nullptr;
  const sator::v1::ShotVerdict* verdict = nullptr;
  std::int64_t current_tick = 0;
  int dimension = 3;
};

// Called once per verdict, on the thread that judged it; thread-safe and
// fast, like QueryObserver.
using ShotObserver = std::function<void(const ShotRecord&)>;

// Hears of every failure answered, once: a unary query call's
// (QueryService), a QueryBatch entry's (QueryBatch, only when the batch is
// answered: a batch that fails as a whole sends no entry, and only its own
// failure is counted) and a Session message's (SessionHandler), with the
// code sent. Thread-safe and fast, like QueryObserver.
using FailureObserver =
    std::function<void(FailureVia via, FailureKind kind, absl::StatusCode)>;

// The failure kind of a query message (kUnset when it names no kind).
FailureKind FailureKindOfQuery(const sator::v1::Query& query);

// One published state of one hosted scene: every query run through the same
// view sees the same tick. Cheap to copy.
class SceneView {
 public:
  // Takes the scene's newest snapshot.
  explicit SceneView(std::shared_ptr<const HostedScene> scene);

  const HostedScene& scene() const { return *scene_; }
  int dimension() const { return scene_->dimension(); }
  // The newest tick of this view's snapshot.
  std::int64_t tick() const;

  const scene::SceneSnapshot<2>& snapshot2() const;
  const scene::SceneSnapshot<3>& snapshot3() const;

 private:
  std::shared_ptr<const HostedScene> scene_;
  std::variant<scene::SceneSnapshot<2>, scene::SceneSnapshot<3>> snapshot_;
};

class SceneQueries {
 public:
  // `scenes` must outlive this object.
  SceneQueries(const SceneRegistry& scenes,
               const convert::ShapeLimits& shape_limits)
      : scenes_(scenes),
        shape_limits_(shape_limits),
        default_options_(
            convert::ToQueryOptions(sator::v1::QueryOptions::default_instance(),
                                    scenes.limits().max_hits)) {}

  const SceneRegistry& scenes() const { return scenes_; }

  // Set before serving starts (not thread-safe against running queries).
  void set_observer(QueryObserver observer) { observer_ = std::move(observer); }
  void set_shot_observer(ShotObserver observer) {
    shot_observer_ = std::move(observer);
  }
  void set_failure_observer(FailureObserver observer) {
    failure_observer_ = std::move(observer);
  }
  // Passes a failure (a non-OK `status`) to the failure observer.
  void ReportFailure(FailureVia via, FailureKind kind,
                     const absl::Status& status) const {
    if (!status.ok() && failure_observer_) {
      failure_observer_(via, kind, status.code());
    }
  }
  // The scene viewer's ring that every answered query is added to (null:
  // none). Set before serving starts.
  void set_recent_queries(RecentQueries* recent) { recent_ = recent; }

  // The unary RPCs. NOT_FOUND "scene_id: ..." for an unknown scene;
  // INVALID_ARGUMENT naming "query...." or "options...."; OUT_OF_RANGE
  // "options.rewind.tick: ..." for a tick outside the history.
  absl::StatusOr<sator::v1::QueryResult> Overlap(
      const sator::v1::OverlapRequest& request) const;
  absl::StatusOr<sator::v1::QueryResult> Contacts(
      const sator::v1::ContactsRequest& request) const;
  absl::StatusOr<sator::v1::QueryResult> Sweep(
      const sator::v1::SweepRequest& request) const;
  absl::StatusOr<sator::v1::QueryResult> Raycast(
      const sator::v1::RaycastRequest& request) const;
  absl::StatusOr<sator::v1::QueryResult> PointQuery(
      const sator::v1::PointQueryRequest& request) const;

  // The same, writing the answer straight into `out` (an arena-allocated
  // response in the service: no copy). `out` is left untouched on error.
  absl::Status Overlap(const sator::v1::OverlapRequest& request,
                       sator::v1::QueryResult* out) const;
  absl::Status Contacts(const sator::v1::ContactsRequest& request,
                        sator::v1::QueryResult* out) const;
  absl::Status Sweep(const sator::v1::SweepRequest& request,
                     sator::v1::QueryResult* out) const;
  absl::Status Raycast(const sator::v1::RaycastRequest& request,
                       sator::v1::QueryResult* out) const;
  absl::Status PointQuery(const sator::v1::PointQueryRequest& request,
                          sator::v1::QueryResult* out) const;

  // Returns OK to go on, or the status that stops a batch (DEADLINE_EXCEEDED,
  // CANCELLED); asked before every chunk of kBatchChunk queries, from
  // several threads at once when the batch runs on several.
  using Interrupt = std::function<absl::Status()>;

  // Queries run between two questions to the Interrupt (and taken at once
  // by one thread of a parallel batch).
  static constexpr int kBatchChunk = 16;

  // Runs every query of the batch on one snapshot, one entry per query, in
  // the request's order, each with its own status (paths relative to the
  // query: "raycast.direction: zero length"). The call itself fails only for
  // an unknown scene (NOT_FOUND), more than `max_batch_queries` queries
  // (RESOURCE_EXHAUSTED), or when `interrupt` stops it; the response is then
  // incomplete (the caller clears it and reports that one failure). The
  // failed entries of a batch answered are reported to the failure
  // observer (FailureVia::kBatchEntry); those of a failed batch are not.
  //
  // A batch of at least BatchParallelism::min_queries queries runs on the
  // calling thread and the idle batch workers (docs/DESIGN.md, "Query
  // batches", says how the threshold was chosen); the answer is the same
  // either way.
  absl::Status QueryBatch(const sator::v1::QueryBatchRequest& request,
                          int max_batch_queries, const Interrupt& interrupt,
                          sator::v1::QueryBatchResponse* response) const;
  // The same on `view` (for sessions; the request's scene_id is not read).
  absl::Status QueryBatch(const SceneView& view,
                          const sator::v1::QueryBatchRequest& request,
                          int max_batch_queries, const Interrupt& interrupt,
                          sator::v1::QueryBatchResponse* response) const;

  // Rays run between two questions to the Interrupt in a RaycastBatch
  // (about 30 to 100 us of work).
  static constexpr int kRayChunk = 64;

  // The rays of a packed RaycastBatch on one snapshot, with one set of
  // options, answered in the packed arrays of `response` in request order.
  // All or nothing: RESOURCE_EXHAUSTED for more than `max_batch_queries`
  // rays, NOT_FOUND for an unknown scene, INVALID_ARGUMENT naming
  // "dimension", the array ("origins", "directions", "max_distances") or
  // its element ("directions[3..5]: zero length"), or "options....";
  // OUT_OF_RANGE for a rewind outside the history; or the interrupt's
  // status, asked before every kRayChunk rays. On error the response is
  // incomplete (the caller clears it). The observer hears of the batch once
  // (QueryRecord::count is the number of rays). A batch of at least
  // BatchParallelism::min_queries rays runs on the calling thread and the
  // idle batch workers; the answer (and which bad ray an error names) is
  // the same either way.
  absl::Status RaycastBatch(const sator::v1::RaycastBatchRequest& request,
                            int max_batch_queries, const Interrupt& interrupt,
                            sator::v1::RaycastBatchResponse* response) const;

  // For QueryBatch and RaycastBatch (satord's --batch_threads and
  // --batch_parallel_min): the helpers a large batch may use besides its
  // handler's thread, shared by every batch. Sequential by default (no
  // workers): on this shared 2-core machine two threads were not reliably
  // faster for 1000 rays (docs/DESIGN.md, "Query batches").
  struct BatchParallelism {
    scene::BatchWorkers* workers = nullptr;
    int min_queries = 256;
  };
  // Set before serving starts (not thread-safe against running queries).
  void set_batch_parallelism(BatchParallelism parallelism) {
    batch_parallelism_ = parallelism;
  }

  // The largest answer a batch may build (satord: --max_message_bytes, the
  // most gRPC will send). A QueryBatch or RaycastBatch whose answer grows
  // past it stops with RESOURCE_EXHAUSTED naming "options.max_hits" instead
  // of building an answer gRPC would refuse to send (a dense scene in mode
  // ALL could otherwise fill gigabytes). Set before serving starts.
  void set_max_response_bytes(std::int64_t bytes) {
    max_response_bytes_ = bytes;
  }

  // Judges every shot of the request on one snapshot (shot.proto), the
  // request's policy merged over the scene's. RESOURCE_EXHAUSTED "shots:
  // ..." beyond `max_shots` shots (satord: --max_batch_queries),
  // INVALID_ARGUMENT "shots: ..." for none, NOT_FOUND "scene_id: ..." for an
  // unknown scene, INVALID_ARGUMENT naming "policy...." or "shots[i]....".
  // On error `out` is incomplete (the caller clears it); the shot observer
  // hears of each verdict.
  absl::Status ValidateShots(const sator::v1::ValidateShotsRequest& request,
                             int max_shots,
                             sator::v1::ValidateShotsResponse* out) const;
  // The same on `view` (for sessions; the request's scene_id is not read).
  absl::Status ValidateShots(const SceneView& view,
                             const sator::v1::ValidateShotsRequest& request,
                             int max_shots,
                             sator::v1::ValidateShotsResponse* out) const;

  // One query on `view` (errors relative to the Query: "options....",
  // "raycast...."). For sessions, which take a fresh view per query.
  absl::StatusOr<sator::v1::QueryResult> Run(
      const SceneView& view, const sator::v1::Query& query) const;
  // The same, into `out` (untouched on error).
  absl::Status Run(const SceneView& view, const sator::v1::Query& query,
                   sator::v1::QueryResult* out) const;

  // The scene, for callers that keep it (sessions).
  absl::StatusOr<std::shared_ptr<HostedScene>> FindScene(
      const std::string& scene_id) const;

 private:
  // QueryBatch on `view` without reporting the failed entries.
  absl::Status AnswerBatch(const SceneView& view,
                           const sator::v1::QueryBatchRequest& request,
                           const Interrupt& interrupt,
                           sator::v1::QueryBatchResponse* response) const;
  // Runs queries[index] of a batch into `entry`, its record appended to
  // `records` (when observed).
  void FillEntry(const SceneView& view, const sator::v1::Query& query,
                 int index, std::vector<QueryRecord>* records,
                 sator::v1::QueryBatchResponse::Entry* entry) const;
  // Run, the record appended to `records`, or reported at once when null.
  absl::Status Run(const SceneView& view, const sator::v1::Query& query,
                   std::vector<QueryRecord>* records,
                   sator::v1::QueryResult* out) const;
  // The records of a chunk of a batch to the observer, then cleared.
  void Report(std::vector<QueryRecord>& records) const;

  template <int D>
  absl::Status RunRays(const SceneView& view,
                       const scene::SceneSnapshot<D>& snapshot,
                       const sator::v1::RaycastBatchRequest& request,
                       const scene::QueryOptions& options,
                       const Interrupt& interrupt,
                       sator::v1::RaycastBatchResponse* response) const;

  template <int D>
  absl::Status JudgeShots(const SceneView& view,
                          const scene::SceneSnapshot<D>& snapshot,
                          const sator::v1::ValidateShotsRequest& request,
                          sator::v1::ValidateShotsResponse* out) const;

  template <typename Request, typename KindMessage>
  absl::Status RunUnary(const Request& request, const KindMessage& query,
                        scene::QueryKind kind,
                        sator::v1::QueryResult* out) const;

  // Converts `query` (with options already converted) for the view's
  // dimension and executes it. Errors relative to the kind message.
  template <typename KindMessage>
  absl::Status ConvertAndExecute(
      const SceneView& view, const KindMessage& query,
      scene::QueryOptions options, scene::QueryKind kind,
      absl::string_view query_path, absl::string_view options_path,
      std::vector<QueryRecord>* records, sator::v1::QueryResult* out) const;

  // The one place every scene query runs: times it and reports it (into
  // `records` when not null, else to the observer at once).
  template <int D>
  absl::Status Execute(const SceneView& view,
                       const scene::SceneSnapshot<D>& snapshot,
                       const scene::SceneQuery<D>& query, scene::QueryKind kind,
                       absl::string_view query_path,
                       absl::string_view options_path,
                       std::vector<QueryRecord>* records,
                       sator::v1::QueryResult* out) const;

  const SceneRegistry& scenes_;
  const convert::ShapeLimits shape_limits_;
  // The options of a query that sends none, converted once.
  const absl::StatusOr<scene::QueryOptions> default_options_;
  QueryObserver observer_;
  ShotObserver shot_observer_;
  FailureObserver failure_observer_;
  RecentQueries* recent_ = nullptr;
  // The batch workers a batch of `count` queries asks for: none below
  // BatchParallelism::min_queries.
  int BatchHelpers(int count) const {
    if (batch_parallelism_.workers == nullptr ||
        count < batch_parallelism_.min_queries) {
      return 0;
    }
    return batch_parallelism_.workers->helpers();
  }

  BatchParallelism batch_parallelism_;
  std::int64_t max_response_bytes_ = std::numeric_limits<std::int64_t>::max();
};

}  // namespace sator::server

#endif  // SATOR_SERVER_SCENE_QUERIES_H_
