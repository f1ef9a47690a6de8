// Scene queries for the service; see scene_queries.h.
#include "server/scene_queries.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/convert/field_path.h"

namespace sator::server {
namespace {

using convert::QueryKind;

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

void SetStatus(const absl::Status& status, sator::v1::Status* out) {
  out->set_code(static_cast<int>(status.code()));
  out->set_message(std::string(status.message()));
}

}  // namespace

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
    if (result.ok()) {
      record.hits = static_cast<int>(result->hits.size());
      record.node_visits = result->stats.node_visits;
      record.leaf_visits = result->stats.leaf_visits;
      record.tick = result->tick;
    }
    observer_(record);
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
    absl::string_view options_path, sator::v1::QueryResult* out) const {
  if (view.dimension() == 2) {
    absl::StatusOr<scene::SceneQuery<2>> converted =
        convert::ToSceneQuery<2>(query, std::move(options), shape_limits_);
    if (!converted.ok()) {
      return convert::PrefixField(query_path, converted.status());
    }
    return Execute<2>(view, view.snapshot2(), *converted, kind, query_path,
                      options_path, out);
  }
  absl::StatusOr<scene::SceneQuery<3>> converted =
      convert::ToSceneQuery<3>(query, std::move(options), shape_limits_);
  if (!converted.ok()) {
    return convert::PrefixField(query_path, converted.status());
  }
  return Execute<3>(view, view.snapshot3(), *converted, kind, query_path,
                    options_path, out);
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
  if (!options.ok()) return convert::PrefixField("options", options.status());
  const SceneView view(*std::move(scene));
  return ConvertAndExecute(view, query, *std::move(options), kind, "query",
                           "options", out);
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
  absl::StatusOr<QueryKind> kind = convert::KindOf(query);
  if (!kind.ok()) return kind.status();
  absl::StatusOr<scene::QueryOptions> options =
      convert::ToQueryOptions(query.options(), scenes_.limits().max_hits);
  if (!options.ok()) return convert::PrefixField("options", options.status());
  const absl::string_view path = convert::QueryKindName(*kind);
  switch (*kind) {
    case QueryKind::kOverlap:
      return ConvertAndExecute(view, query.overlap(), *std::move(options),
                               *kind, path, "options", out);
    case QueryKind::kContacts:
      return ConvertAndExecute(view, query.contacts(), *std::move(options),
                               *kind, path, "options", out);
    case QueryKind::kSweep:
      return ConvertAndExecute(view, query.sweep(), *std::move(options), *kind,
                               path, "options", out);
    case QueryKind::kRaycast:
      return ConvertAndExecute(view, query.raycast(), *std::move(options),
                               *kind, path, "options", out);
    case QueryKind::kPoint:
      return ConvertAndExecute(view, query.point(), *std::move(options), *kind,
                               path, "options", out);
  }
  return absl::InternalError("unreachable query kind");
}

absl::Status SceneQueries::QueryBatch(
    const sator::v1::QueryBatchRequest& request, int max_batch_queries,
    const Interrupt& interrupt, sator::v1::QueryBatchResponse* response) const {
  if (request.queries_size() > max_batch_queries) {
    return absl::ResourceExhaustedError(
        absl::StrCat("queries: at most ", max_batch_queries,
                     " queries per batch (--max_batch_queries), got ",
                     request.queries_size()));
  }
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      scenes_.Find(request.scene_id());
  if (!scene.ok()) return scene.status();
  const SceneView view(*std::move(scene));
  response->mutable_entries()->Reserve(request.queries_size());
  for (int i = 0; i < request.queries_size(); ++i) {
    if (interrupt) {
      if (absl::Status stop = interrupt(); !stop.ok()) return stop;
    }
    sator::v1::QueryBatchResponse::Entry* entry = response->add_entries();
    // Straight into the entry: on the call's arena, a result built apart
    // would be copied in.
    const absl::Status status =
        Run(view, request.queries(i), entry->mutable_result());
    if (status.ok()) {
      entry->mutable_status()->set_code(0);
    } else {
      entry->clear_result();
      SetStatus(convert::PrefixIndex("queries", i, status),
                entry->mutable_status());
    }
  }
  return absl::OkStatus();
}

}  // namespace sator::server
