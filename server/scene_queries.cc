// Scene queries for the service; see scene_queries.h.
#include "server/scene_queries.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/convert/ray_batch_convert.h"
#include "proto/convert/shot_convert.h"
#include "sator/core/field_status.h"
#include "server/status_mapping.h"

namespace sator::server {
namespace {

// A batch's answer that grew past the largest message gRPC will send.
absl::Status AnswerTooLarge(std::int64_t bytes, std::int64_t limit) {
  return FieldError(
      absl::StatusCode::kResourceExhausted, "options.max_hits",
      absl::StrCat(
          "the answer grew past ", bytes, " bytes, more than ", limit,
          " (--max_message_bytes); send fewer queries or a lower max_hits"));
}

using scene::QueryKind;

std::variant<scene::SceneSnapshot<2>, scene::SceneSnapshot<3>> TakeSnapshot(
    const HostedScene& scene) {
  if (scene.dimension() == 2) return scene.scene2()->Snapshot();
  return scene.scene3()->Snapshot();
}

// The value form of a query written through an output pointer.
template <typename Fill>
absl::StatusOr<sator::v1::QueryResult> IntoValue(Fill fill) {
  sator::v1::QueryResult out;
  if (absl::Status status = fill(&out); !status.ok()) return status;
  return out;
}

// RESOURCE_EXHAUSTED beyond `max_batch_queries` queries in one batch.
absl::Status CheckBatchCount(const sator::v1::QueryBatchRequest& request,
                             int max_batch_queries) {
  const int count = request.queries_size();
  if (count > max_batch_queries) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, "queries",
        absl::StrCat("at most ", max_batch_queries,
                     " queries per batch (--max_batch_queries), got ", count));
  }
  return absl::OkStatus();
}

// RESOURCE_EXHAUSTED beyond `max_shots` shots. A call with none answers
// the scene's tick, as a RaycastBatch with no rays does.
absl::Status CheckShotCount(const sator::v1::ValidateShotsRequest& request,
                            int max_shots) {
  const int count = request.shots_size();
  if (count > max_shots) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, "shots",
        absl::StrCat("at most ", max_shots,
                     " shots per call (--max_batch_queries), got ", count));
  }
  return absl::OkStatus();
}

// How far `rewind` lies before `current_tick`, in ticks.
double RewindTicks(std::int64_t current_tick, const scene::Rewind& rewind) {
  return static_cast<double>(current_tick) -
         (static_cast<double>(rewind.tick) +
          static_cast<double>(rewind.fraction));
}

}  // namespace

FailureKind FailureKindOfQuery(const sator::v1::Query& query) {
  switch (query.kind_case()) {
    case sator::v1::Query::kOverlap:
      return FailureKind::kOverlap;
    case sator::v1::Query::kContacts:
      return FailureKind::kContacts;
    case sator::v1::Query::kSweep:
      return FailureKind::kSweep;
    case sator::v1::Query::kRaycast:
      return FailureKind::kRaycast;
    case sator::v1::Query::kPoint:
      return FailureKind::kPoint;
    case sator::v1::Query::KIND_NOT_SET:
      break;
  }
  return FailureKind::kUnset;
}

SceneView::SceneView(std::shared_ptr<const HostedScene> scene)
    : scene_(std::move(scene)), snapshot_(TakeSnapshot(*scene_)) {}

std::int64_t SceneView::tick() const {
  return std::visit([](const auto& snapshot) { return snapshot.tick(); },
                    snapshot_);
}

const scene::SceneSnapshot<2>& SceneView::snapshot2() const {
  return std::get<scene::SceneSnapshot<2>>(snapshot_);
}

const scene::SceneSnapshot<3>& SceneView::snapshot3() const {
  return std::get<scene::SceneSnapshot<3>>(snapshot_);
}

absl::StatusOr<std::shared_ptr<HostedScene>> SceneQueries::FindScene(
    const std::string& scene_id) const {
  return scenes_.Find(scene_id);
}

template <int D>
absl::Status SceneQueries::Execute(const SceneView& view,
                                   const scene::SceneSnapshot<D>& snapshot,
                                   const scene::SceneQuery<D>& query,
                                   QueryKind kind, absl::string_view query_path,
                                   absl::string_view options_path,
                                   std::vector<QueryRecord>* records,
                                   sator::v1::QueryResult* out) const {
  const scene::QueryOptions& options = std::visit(
      [](const auto& request) -> const scene::QueryOptions& {
        return request.options;
      },
      query);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<scene::QueryResult<D>> result = snapshot.Run(query);
  const auto end = std::chrono::steady_clock::now();

  // The one place where each query's facts are all known (see the header).
  if (observer_) {
    QueryRecord record;
    record.scene_id = view.scene().id();
    record.dimension = D;
    record.kind = kind;
    record.mode = options.mode;
    record.code = result.status().code();
    record.duration = absl::FromChrono(end - start);
    record.rewound = options.rewind.has_value();
    if (options.rewind.has_value()) {
      record.rewind_ticks = RewindTicks(snapshot.tick(), *options.rewind);
    }
    if (result.ok()) {
      record.hits = static_cast<int>(result->hits.size());
      record.node_visits = result->stats.node_visits;
      record.leaf_visits = result->stats.leaf_visits;
      record.tick = result->tick;
    }
    if (records != nullptr) {
      records->push_back(record);
    } else {
      observer_(absl::MakeConstSpan(&record, 1));
    }
  }

  if (!result.ok()) {
    return convert::SceneQueryError(result.status(), query_path, options_path);
  }
  if (recent_ != nullptr) recent_->Add<D>(view.scene().id(), query, *result);
  convert::FromQueryResult<D>(*result, kind, out);
  return absl::OkStatus();
}

template <typename KindMessage>
absl::Status SceneQueries::ConvertAndExecute(
    const SceneView& view, const KindMessage& query,
    scene::QueryOptions options, QueryKind kind, absl::string_view query_path,
    absl::string_view options_path, std::vector<QueryRecord>* records,
    sator::v1::QueryResult* out) const {
  if (view.dimension() == 2) {
    absl::StatusOr<scene::SceneQuery<2>> converted =
        convert::ToSceneQuery<2>(query, std::move(options), shape_limits_);
    if (!converted.ok()) {
      return PrefixField(query_path, converted.status());
    }
    return Execute<2>(view, view.snapshot2(), *converted, kind, query_path,
                      options_path, records, out);
  }
  absl::StatusOr<scene::SceneQuery<3>> converted =
      convert::ToSceneQuery<3>(query, std::move(options), shape_limits_);
  if (!converted.ok()) {
    return PrefixField(query_path, converted.status());
  }
  return Execute<3>(view, view.snapshot3(), *converted, kind, query_path,
                    options_path, records, out);
}

template <typename Request, typename KindMessage>
absl::Status SceneQueries::RunUnary(const Request& request,
                                    const KindMessage& query, QueryKind kind,
                                    sator::v1::QueryResult* out) const {
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      scenes_.Find(request.scene_id());
  if (!scene.ok()) return scene.status();
  absl::StatusOr<scene::QueryOptions> options =
      convert::ToQueryOptions(request.options(), scenes_.limits().max_hits);
  if (!options.ok()) return PrefixField("options", options.status());
  const SceneView view(*std::move(scene));
  return ConvertAndExecute(view, query, *std::move(options), kind, "query",
                           "options", nullptr, out);
}

absl::Status SceneQueries::Overlap(const sator::v1::OverlapRequest& request,
                                   sator::v1::QueryResult* out) const {
  return RunUnary(request, request.query(), QueryKind::kOverlap, out);
}

absl::Status SceneQueries::Contacts(const sator::v1::ContactsRequest& request,
                                    sator::v1::QueryResult* out) const {
  return RunUnary(request, request.query(), QueryKind::kContacts, out);
}

absl::Status SceneQueries::Sweep(const sator::v1::SweepRequest& request,
                                 sator::v1::QueryResult* out) const {
  return RunUnary(request, request.query(), QueryKind::kSweep, out);
}

absl::Status SceneQueries::Raycast(const sator::v1::RaycastRequest& request,
                                   sator::v1::QueryResult* out) const {
  return RunUnary(request, request.query(), QueryKind::kRaycast, out);
}

absl::Status SceneQueries::PointQuery(
    const sator::v1::PointQueryRequest& request,
    sator::v1::QueryResult* out) const {
  return RunUnary(request, request.query(), QueryKind::kPoint, out);
}

absl::StatusOr<sator::v1::QueryResult> SceneQueries::Overlap(
    const sator::v1::OverlapRequest& request) const {
  return IntoValue([&](auto* out) { return Overlap(request, out); });
}

absl::StatusOr<sator::v1::QueryResult> SceneQueries::Contacts(
    const sator::v1::ContactsRequest& request) const {
  return IntoValue([&](auto* out) { return Contacts(request, out); });
}

absl::StatusOr<sator::v1::QueryResult> SceneQueries::Sweep(
    const sator::v1::SweepRequest& request) const {
  return IntoValue([&](auto* out) { return Sweep(request, out); });
}

absl::StatusOr<sator::v1::QueryResult> SceneQueries::Raycast(
    const sator::v1::RaycastRequest& request) const {
  return IntoValue([&](auto* out) { return Raycast(request, out); });
}

absl::StatusOr<sator::v1::QueryResult> SceneQueries::PointQuery(
    const sator::v1::PointQueryRequest& request) const {
  return IntoValue([&](auto* out) { return PointQuery(request, out); });
}

absl::StatusOr<sator::v1::QueryResult> SceneQueries::Run(
    const SceneView& view, const sator::v1::Query& query) const {
  return IntoValue([&](auto* out) { return Run(view, query, out); });
}

absl::Status SceneQueries::Run(const SceneView& view,
                               const sator::v1::Query& query,
                               sator::v1::QueryResult* out) const {
  return Run(view, query, nullptr, out);
}

absl::Status SceneQueries::Run(const SceneView& view,
                               const sator::v1::Query& query,
                               std::vector<QueryRecord>* records,
                               sator::v1::QueryResult* out) const {
  absl::StatusOr<QueryKind> kind = convert::KindOf(query);
  if (!kind.ok()) return kind.status();
  absl::StatusOr<scene::QueryOptions> options =
      query.has_options()
          ? convert::ToQueryOptions(query.options(), scenes_.limits().max_hits)
          : default_options_;
  if (!options.ok()) return PrefixField("options", options.status());
  const absl::string_view path = scene::QueryKindName(*kind);
  switch (*kind) {
    case QueryKind::kOverlap:
      return ConvertAndExecute(view, query.overlap(), *std::move(options),
                               *kind, path, "options", records, out);
    case QueryKind::kContacts:
      return ConvertAndExecute(view, query.contacts(), *std::move(options),
                               *kind, path, "options", records, out);
    case QueryKind::kSweep:
      return ConvertAndExecute(view, query.sweep(), *std::move(options), *kind,
                               path, "options", records, out);
    case QueryKind::kRaycast:
      return ConvertAndExecute(view, query.raycast(), *std::move(options),
                               *kind, path, "options", records, out);
    case QueryKind::kPoint:
      return ConvertAndExecute(view, query.point(), *std::move(options), *kind,
                               path, "options", records, out);
  }
  return absl::InternalError("unreachable query kind");
}

void SceneQueries::FillEntry(
    const SceneView& view, const sator::v1::Query& query, int index,
    std::vector<QueryRecord>* records,
    sator::v1::QueryBatchResponse::Entry* entry) const {
  // Straight into the entry: on the call's arena, a result built apart
  // would be copied in.
  const absl::Status status =
      Run(view, query, records, entry->mutable_result());
  // An answered entry leaves its status unset, which reads as code 0 (a
  // Status message per entry would be built, sized and sent for nothing).
  if (!status.ok()) {
    entry->clear_result();
    ToWireStatus(PrefixIndex("queries", index, status),
                 entry->mutable_status());
  }
}

void SceneQueries::Report(std::vector<QueryRecord>& records) const {
  if (records.empty()) return;
  observer_(records);
  records.clear();
}

absl::Status SceneQueries::QueryBatch(
    const sator::v1::QueryBatchRequest& request, int max_batch_queries,
    const Interrupt& interrupt, sator::v1::QueryBatchResponse* response) const {
  // The count is checked before the scene is looked up, so an oversized
  // batch is RESOURCE_EXHAUSTED whatever its scene.
  if (absl::Status count = CheckBatchCount(request, max_batch_queries);
      !count.ok()) {
    return count;
  }
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      scenes_.Find(request.scene_id());
  if (!scene.ok()) return scene.status();
  return QueryBatch(SceneView(*std::move(scene)), request, max_batch_queries,
                    interrupt, response);
}

absl::Status SceneQueries::QueryBatch(
    const SceneView& view, const sator::v1::QueryBatchRequest& request,
    int max_batch_queries, const Interrupt& interrupt,
    sator::v1::QueryBatchResponse* response) const {
  if (absl::Status count = CheckBatchCount(request, max_batch_queries);
      !count.ok()) {
    return count;
  }
  absl::Status status = AnswerBatch(view, request, interrupt, response);
  // Entries are counted only once they are sure to be sent: a batch that
  // fails as a whole is one failure, counted by its caller.
  if (status.ok() && failure_observer_) {
    for (int i = 0; i < response->entries_size(); ++i) {
      const int code = response->entries(i).status().code();
      if (code != 0) {
        failure_observer_(FailureVia::kBatchEntry,
                          FailureKindOfQuery(request.queries(i)),
                          static_cast<absl::StatusCode>(code));
      }
    }
  }
  return status;
}

absl::Status SceneQueries::AnswerBatch(
    const SceneView& view, const sator::v1::QueryBatchRequest& request,
    const Interrupt& interrupt, sator::v1::QueryBatchResponse* response) const {
  const int count = request.queries_size();
  response->mutable_entries()->Reserve(count);
  const int helpers = BatchHelpers(count);

  // Each chunk's query records go to the observer together.
  const auto make_records = [&] {
    std::vector<QueryRecord> records;
    if (observer_) records.reserve(kBatchChunk);
    return records;
  };
  if (helpers == 0) {
    std::int64_t bytes = 0;
    std::vector<QueryRecord> records = make_records();
    std::vector<QueryRecord>* sink = observer_ ? &records : nullptr;
    for (int begin = 0; begin < count; begin += kBatchChunk) {
      if (interrupt) {
        if (absl::Status stop = interrupt(); !stop.ok()) return stop;
      }
      const int end = std::min(count, begin + kBatchChunk);
      for (int i = begin; i < end; ++i) {
        sator::v1::QueryBatchResponse::Entry* entry = response->add_entries();
        FillEntry(view, request.queries(i), i, sink, entry);
        bytes += static_cast<std::int64_t>(entry->ByteSizeLong());
      }
      if (sink != nullptr) Report(records);
      if (bytes > max_response_bytes_) {
        return AnswerTooLarge(bytes, max_response_bytes_);
      }
    }
    return absl::OkStatus();
  }

  // Several threads take chunks of kBatchChunk queries from a shared
  // counter (self-scheduling, as the core's RunQueryBatch); every entry is
  // made here first, in order, so each thread writes only its own entries.
  // Protobuf arenas are thread-safe for allocation.
  for (int i = 0; i < count; ++i) response->add_entries();
  std::atomic<int> next{0};
  std::atomic<bool> stopped{false};
  std::atomic<std::int64_t> bytes{0};
  std::mutex stop_mutex;
  absl::Status stop_status;
  const auto stop_with = [&](absl::Status stop) {
    const std::lock_guard<std::mutex> lock(stop_mutex);
    if (stop_status.ok()) stop_status = std::move(stop);
    stopped.store(true, std::memory_order_relaxed);
  };
  const auto work = [&] {
    std::vector<QueryRecord> records = make_records();
    std::vector<QueryRecord>* sink = observer_ ? &records : nullptr;
    while (!stopped.load(std::memory_order_relaxed)) {
      const int begin = next.fetch_add(kBatchChunk, std::memory_order_relaxed);
      if (begin >= count) return;
      if (interrupt) {
        if (absl::Status stop = interrupt(); !stop.ok()) {
          stop_with(std::move(stop));
          return;
        }
      }
      const int end = std::min(count, begin + kBatchChunk);
      std::int64_t chunk_bytes = 0;
      for (int i = begin; i < end; ++i) {
        sator::v1::QueryBatchResponse::Entry* entry =
            response->mutable_entries(i);
        FillEntry(view, request.queries(i), i, sink, entry);
        chunk_bytes += static_cast<std::int64_t>(entry->ByteSizeLong());
      }
      if (sink != nullptr) Report(records);
      const std::int64_t total =
          bytes.fetch_add(chunk_bytes, std::memory_order_relaxed) + chunk_bytes;
      if (total > max_response_bytes_) {
        stop_with(AnswerTooLarge(total, max_response_bytes_));
        return;
      }
    }
  };
  batch_parallelism_.workers->Run(helpers, work);
  return stop_status;
}

template <int D>
absl::Status SceneQueries::RunRays(
    const SceneView& view, const scene::SceneSnapshot<D>& snapshot,
    const sator::v1::RaycastBatchRequest& request,
    const scene::QueryOptions& options, const Interrupt& interrupt,
    sator::v1::RaycastBatchResponse* response) const {
  absl::StatusOr<convert::PackedRays<D>> rays =
      convert::PackedRays<D>::Make(request);
  if (!rays.ok()) return rays.status();
  const int count = rays->size();
  if (count == 0) {
    // No ray to answer, but the options are still checked (a rewind outside
    // the history fails as it would with rays) and the tick they name is
    // reported.
    absl::StatusOr<std::int64_t> tick = snapshot.QueryTick(options);
    if (!tick.ok()) {
      return convert::SceneQueryError(tick.status(), "origins", "options");
    }
    response->set_tick(*tick);
    return absl::OkStatus();
  }
  response->set_tick(snapshot.tick());
  response->mutable_hit_counts()->Reserve(count);
  // Each ray's broad-phase visits, for the metrics (hits per ray are the
  // response's hit_counts).
  std::vector<std::uint32_t> visits;
  if (observer_) visits.reserve(static_cast<std::size_t>(count));
  std::int64_t node_visits = 0;
  std::int64_t leaf_visits = 0;

  // Ray i on the snapshot: its answer, or the status that fails the batch.
  const auto cast =
      [&](int i,
          convert::PackedRay<D>* ray) -> absl::StatusOr<scene::QueryResult<D>> {
    if (absl::Status valid = rays->Get(i, ray); !valid.ok()) return valid;
    absl::StatusOr<scene::QueryResult<D>> result = snapshot.RayCast(
        ray->origin, ray->direction, ray->max_distance, options);
    if (!result.ok()) {
      // The ray was checked above, so this is about the options (a rewind
      // outside the history) unless the core is stricter.
      return convert::SceneQueryError(result.status(),
                                      absl::StrCat("rays[", i, "]"), "options");
    }
    return result;
  };
  // Ray i's answer into the response, in request order.
  const auto append = [&](int i, const convert::PackedRay<D>& ray,
                          const scene::QueryResult<D>& result) {
    if (i == 0) response->set_tick(result.tick);
    convert::AppendRayHits<D>(result, response);
    node_visits += result.stats.node_visits;
    leaf_visits += result.stats.leaf_visits;
    if (observer_) {
      visits.push_back(static_cast<std::uint32_t>(result.stats.node_visits));
    }
    if (recent_ != nullptr) {
      recent_->Add<D>(
          view.scene().id(),
          scene::SceneQuery<D>(scene::RayRequest<D>{ray.origin, ray.direction,
                                                    ray.max_distance, options}),
          result);
    }
  };

  const int helpers = BatchHelpers(count);
  std::chrono::steady_clock::duration core_time{};
  // A lower bound of the packed answer's size per hit (a body id and a
  // feature of at least one byte each, the distance, point and normal
  // floats, the started-inside flag), so that an answer is refused only
  // when it surely exceeds the limit.
  constexpr std::int64_t kMinHitBytes = 7 + 8 * D;
  const auto too_large = [&]() -> std::optional<absl::Status> {
    const std::int64_t bytes = kMinHitBytes * response->body_ids_size();
    if (bytes > max_response_bytes_) {
      return AnswerTooLarge(bytes, max_response_bytes_);
    }
    return std::nullopt;
  };
  if (helpers == 0) {
    // Each chunk is cast first (timed: the metrics' time is the core work,
    // as on several threads) and then appended.
    std::vector<scene::QueryResult<D>> chunk(
        static_cast<std::size_t>(std::min(count, kRayChunk)));
    std::vector<convert::PackedRay<D>> chunk_rays(chunk.size());
    for (int begin = 0; begin < count; begin += kRayChunk) {
      if (interrupt) {
        if (absl::Status stop = interrupt(); !stop.ok()) return stop;
      }
      const int end = std::min(count, begin + kRayChunk);
      const auto chunk_start = std::chrono::steady_clock::now();
      for (int i = begin; i < end; ++i) {
        const auto k = static_cast<std::size_t>(i - begin);
        absl::StatusOr<scene::QueryResult<D>> result = cast(i, &chunk_rays[k]);
        if (!result.ok()) return result.status();
        chunk[k] = *std::move(result);
      }
      core_time += std::chrono::steady_clock::now() - chunk_start;
      for (int i = begin; i < end; ++i) {
        const auto k = static_cast<std::size_t>(i - begin);
        append(i, chunk_rays[k], chunk[k]);
      }
      if (std::optional<absl::Status> refused = too_large()) return *refused;
    }
  } else {
    // Threads take chunks of kRayChunk rays from a shared counter and keep
    // each answer in its own slot; the answers are then appended in order
    // on this thread. Chunks are taken in increasing order and a taken
    // chunk is finished, so the error reported is the lowest-numbered bad
    // ray's, as on one thread.
    std::vector<scene::QueryResult<D>> results(static_cast<std::size_t>(count));
    std::atomic<int> next{0};
    std::atomic<bool> stopped{false};
    // The metrics' time is the core work summed over the threads (each
    // chunk timed), not the batch's wall time.
    std::atomic<std::int64_t> busy_nanos{0};
    std::atomic<std::int64_t> hits{0};
    std::mutex error_mutex;
    int error_index = count;
    absl::Status error;
    const auto fail = [&](int index, absl::Status status) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (index < error_index) {
        error_index = index;
        error = std::move(status);
      }
      stopped.store(true, std::memory_order_relaxed);
    };
    const auto work = [&] {
      convert::PackedRay<D> mine;
      while (!stopped.load(std::memory_order_relaxed)) {
        const int begin = next.fetch_add(kRayChunk, std::memory_order_relaxed);
        if (begin >= count) return;
        if (interrupt) {
          if (absl::Status stop = interrupt(); !stop.ok()) {
            fail(begin, std::move(stop));
            return;
          }
        }
        const int end = std::min(count, begin + kRayChunk);
        const auto chunk_start = std::chrono::steady_clock::now();
        std::int64_t chunk_hits = 0;
        for (int i = begin; i < end; ++i) {
          absl::StatusOr<scene::QueryResult<D>> result = cast(i, &mine);
          if (!result.ok()) {
            fail(i, result.status());
            return;
          }
          chunk_hits += static_cast<std::int64_t>(result->hits.size());
          results[static_cast<std::size_t>(i)] = *std::move(result);
        }
        const std::int64_t bytes =
            kMinHitBytes *
            (hits.fetch_add(chunk_hits, std::memory_order_relaxed) +
             chunk_hits);
        if (bytes > max_response_bytes_) {
          fail(begin, AnswerTooLarge(bytes, max_response_bytes_));
          return;
        }
        busy_nanos.fetch_add(
            std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now() - chunk_start)
                .count(),
            std::memory_order_relaxed);
      }
    };
    batch_parallelism_.workers->Run(helpers, work);
    if (!error.ok()) return error;
    for (int i = 0; i < count; ++i) {
      // Read again for the viewer's record only (cheap, and known valid).
      convert::PackedRay<D> ray;
      if (recent_ != nullptr) (void)rays->Get(i, &ray);
      append(i, ray, results[static_cast<std::size_t>(i)]);
    }
    core_time = std::chrono::nanoseconds(busy_nanos.load());
  }
  if (observer_ && count > 0) {
    QueryRecord record;
    record.scene_id = view.scene().id();
    record.dimension = D;
    record.kind = QueryKind::kRaycast;
    record.mode = options.mode;
    record.duration = absl::FromChrono(core_time);
    record.hits = response->body_ids_size();
    record.node_visits = node_visits;
    record.leaf_visits = leaf_visits;
    record.rewound = options.rewind.has_value();
    if (options.rewind.has_value()) {
      record.rewind_ticks = RewindTicks(snapshot.tick(), *options.rewind);
    }
    record.tick = response->tick();
    record.count = count;
    record.hits_per_query = absl::MakeConstSpan(
        response->hit_counts().data(),
        static_cast<std::size_t>(response->hit_counts_size()));
    record.node_visits_per_query = visits;
    observer_(absl::MakeConstSpan(&record, 1));
  }
  return absl::OkStatus();
}

absl::Status SceneQueries::RaycastBatch(
    const sator::v1::RaycastBatchRequest& request, int max_batch_queries,
    const Interrupt& interrupt,
    sator::v1::RaycastBatchResponse* response) const {
  absl::StatusOr<int> dimension = convert::RayBatchDimension(request);
  if (!dimension.ok()) return dimension.status();
  // Counted before anything is read: the limit protects the server's time.
  const int rays = request.origins_size() / *dimension;
  if (rays > max_batch_queries) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, "origins",
        absl::StrCat("at most ", max_batch_queries,
                     " rays per batch (--max_batch_queries), got ", rays));
  }
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      scenes_.Find(request.scene_id());
  if (!scene.ok()) return scene.status();
  if ((*scene)->dimension() != *dimension) {
    return FieldError(
        "dimension",
        absl::StrCat("the rays are ", *dimension, "D but scene ",
                     request.scene_id(), " is ", (*scene)->dimension(), "D"));
  }
  absl::StatusOr<scene::QueryOptions> options =
      convert::ToQueryOptions(request.options(), scenes_.limits().max_hits);
  if (!options.ok()) return PrefixField("options", options.status());
  const SceneView view(*std::move(scene));
  if (*dimension == 2) {
    return RunRays<2>(view, view.snapshot2(), request, *options, interrupt,
                      response);
  }
  return RunRays<3>(view, view.snapshot3(), request, *options, interrupt,
                    response);
}

template <int D>
absl::Status SceneQueries::JudgeShots(
    const SceneView& view, const scene::SceneSnapshot<D>& snapshot,
    const sator::v1::ValidateShotsRequest& request,
    sator::v1::ValidateShotsResponse* out) const {
  scene::HitPolicy policy = snapshot.hit_policy();
  if (absl::Status s = convert::MergeHitPolicy(request.policy(), &policy);
      !s.ok()) {
    return PrefixField("policy", s);
  }
  if (absl::Status s = scene::ValidateHitPolicy(policy); !s.ok()) {
    return PrefixField("policy", s);
  }
  absl::StatusOr<std::vector<scene::Shot<D>>> shots =
      convert::ToShots<D>(request, shape_limits_);
  if (!shots.ok()) return shots.status();
  absl::StatusOr<std::vector<scene::ShotVerdict<D>>> verdicts =
      scene::ValidateShots<D>(snapshot, *shots, policy);
  if (!verdicts.ok()) return verdicts.status();
  out->set_current_tick(snapshot.tick());
  out->mutable_verdicts()->Reserve(static_cast<int>(verdicts->size()));
  for (std::size_t i = 0; i < verdicts->size(); ++i) {
    const scene::ShotVerdict<D>& verdict = (*verdicts)[i];
    const sator::v1::Shot& shot = request.shots(static_cast<int>(i));
    sator::v1::ShotVerdict* answer = out->add_verdicts();
    convert::FromShotVerdict<D>(verdict, shot.shot_id(), answer);
    if (shot_observer_) {
      ShotRecord record;
      record.shot = &shot;
      record.verdict = answer;
      record.current_tick = snapshot.tick();
      record.dimension = D;
      record.scene_id = view.scene().id();
      record.outcome = verdict.outcome;
      record.reason = verdict.reason;
      if (verdict.reason != scene::ShotReason::kInFuture &&
          verdict.reason != scene::ShotReason::kTooOld) {
        record.rewind_ticks = verdict.rewind_ticks;
      }
      shot_observer_(record);
    }
  }
  return absl::OkStatus();
}

absl::Status SceneQueries::ValidateShots(
    const SceneView& view, const sator::v1::ValidateShotsRequest& request,
    int max_shots, sator::v1::ValidateShotsResponse* out) const {
  if (absl::Status s = CheckShotCount(request, max_shots); !s.ok()) return s;
  if (view.dimension() == 2) {
    return JudgeShots<2>(view, view.snapshot2(), request, out);
  }
  return JudgeShots<3>(view, view.snapshot3(), request, out);
}

absl::Status SceneQueries::ValidateShots(
    const sator::v1::ValidateShotsRequest& request, int max_shots,
    sator::v1::ValidateShotsResponse* out) const {
  // Counted before the scene is looked up: the limit protects the server's
  // time.
  if (absl::Status s = CheckShotCount(request, max_shots); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      scenes_.Find(request.scene_id());
  if (!scene.ok()) return scene.status();
  return ValidateShots(SceneView(*std::move(scene)), request, max_shots, out);
}

}  // namespace sator::server
