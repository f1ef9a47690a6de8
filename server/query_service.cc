// sator.v1.QueryService handlers; see query_service.h.
#include "server/query_service.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/convert/pair_query.h"
#include "sator/core/field_status.h"
#include "server/status_mapping.h"
#include "server/version.h"

namespace sator::server {
namespace {

// DEADLINE_EXCEEDED once the call's deadline has passed, CANCELLED once the
// client has cancelled it, otherwise OK.
absl::Status CallInterrupted(grpc::CallbackServerContext* context,
                             std::chrono::system_clock::time_point deadline) {
  if (deadline <= std::chrono::system_clock::now()) {
    return absl::DeadlineExceededError("the call's deadline passed");
  }
  if (context->IsCancelled()) {
    return absl::CancelledError("the client cancelled the call");
  }
  return absl::OkStatus();
}

// A WatchShotVerdicts refused before it started: finishes with `status`.
class RefusedWatch final
    : public grpc::ServerWriteReactor<sator::v1::WatchShotVerdictsResponse> {
 public:
  explicit RefusedWatch(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerUnaryReactor* QueryService::Ping(
    grpc::CallbackServerContext* context, const sator::v1::PingRequest* request,
    sator::v1::PingResponse* response) {
  // Not counted against the admission limits: Ping answers whether satord
  // is there, flood or not.
  DrainGate::Pass pass = drain_gate_.EnterExempt();
  if (!pass.admitted()) return FinishRefused(context, pass);
  response->set_payload(request->payload());
  response->set_server_version(kVersion);
  return FinishGated(context, std::move(pass), absl::OkStatus());
}

grpc::ServerUnaryReactor* QueryService::PairQuery(
    grpc::CallbackServerContext* context,
    const sator::v1::PairQueryRequest* request,
    sator::v1::PairQueryResponse* response) {
  DrainGate::Pass pass = drain_gate_.Enter(*context, *request);
  if (!pass.admitted()) return FinishRefused(context, pass);
  return FinishGated(context, std::move(pass),
                     convert::RunPairQuery(*request, shape_limits_, response));
}

template <typename Run>
grpc::ServerUnaryReactor* QueryService::AnswerQuery(
    grpc::CallbackServerContext* context,
    const google::protobuf::Message& request, FailureKind kind, Run run,
    google::protobuf::Message* response) {
  DrainGate::Pass pass = drain_gate_.Enter(*context, request);
  if (!pass.admitted()) return FinishRefused(context, pass);
  if (absl::Status stop = CallInterrupted(context, context->deadline());
      !stop.ok()) {
    scene_queries_.ReportFailure(FailureVia::kUnary, kind, stop);
    return FinishGated(context, std::move(pass), stop);
  }
  // `run` writes into the response (on the call's arena) and leaves it
  // untouched on error.
  const absl::Status status = run();
  if (!status.ok()) {
    response->Clear();
    scene_queries_.ReportFailure(FailureVia::kUnary, kind, status);
  }
  return FinishGated(context, std::move(pass), status);
}

grpc::ServerUnaryReactor* QueryService::Overlap(
    grpc::CallbackServerContext* context,
    const sator::v1::OverlapRequest* request,
    sator::v1::QueryResult* response) {
  return AnswerQuery(
      context, *request, FailureKind::kOverlap,
      [&] { return scene_queries_.Overlap(*request, response); }, response);
}

grpc::ServerUnaryReactor* QueryService::Contacts(
    grpc::CallbackServerContext* context,
    const sator::v1::ContactsRequest* request,
    sator::v1::QueryResult* response) {
  return AnswerQuery(
      context, *request, FailureKind::kContacts,
      [&] { return scene_queries_.Contacts(*request, response); }, response);
}

grpc::ServerUnaryReactor* QueryService::Sweep(
    grpc::CallbackServerContext* context,
    const sator::v1::SweepRequest* request, sator::v1::QueryResult* response) {
  return AnswerQuery(
      context, *request, FailureKind::kSweep,
      [&] { return scene_queries_.Sweep(*request, response); }, response);
}

grpc::ServerUnaryReactor* QueryService::Raycast(
    grpc::CallbackServerContext* context,
    const sator::v1::RaycastRequest* request,
    sator::v1::QueryResult* response) {
  return AnswerQuery(
      context, *request, FailureKind::kRaycast,
      [&] { return scene_queries_.Raycast(*request, response); }, response);
}

grpc::ServerUnaryReactor* QueryService::PointQuery(
    grpc::CallbackServerContext* context,
    const sator::v1::PointQueryRequest* request,
    sator::v1::QueryResult* response) {
  return AnswerQuery(
      context, *request, FailureKind::kPoint,
      [&] { return scene_queries_.PointQuery(*request, response); }, response);
}

grpc::ServerUnaryReactor* QueryService::QueryBatch(
    grpc::CallbackServerContext* context,
    const sator::v1::QueryBatchRequest* request,
    sator::v1::QueryBatchResponse* response) {
  DrainGate::Pass pass = drain_gate_.Enter(*context, *request);
  if (!pass.admitted()) return FinishRefused(context, pass);
  // Asked every few queries, maybe from two threads at once: the deadline
  // is read once (gRPC converts it on every call), IsCancelled is
  // thread-safe.
  const std::chrono::system_clock::time_point deadline = context->deadline();
  const absl::Status status = scene_queries_.QueryBatch(
      *request, limits_.max_batch_queries,
      [context, deadline] { return CallInterrupted(context, deadline); },
      response);
  if (!status.ok()) {
    response->Clear();
    scene_queries_.ReportFailure(FailureVia::kUnary, FailureKind::kQueryBatch,
                                 status);
  }
  return FinishGated(context, std::move(pass), status);
}

grpc::ServerUnaryReactor* QueryService::RaycastBatch(
    grpc::CallbackServerContext* context,
    const sator::v1::RaycastBatchRequest* request,
    sator::v1::RaycastBatchResponse* response) {
  DrainGate::Pass pass = drain_gate_.Enter(*context, *request);
  if (!pass.admitted()) return FinishRefused(context, pass);
  const std::chrono::system_clock::time_point deadline = context->deadline();
  const absl::Status status = scene_queries_.RaycastBatch(
      *request, limits_.max_batch_queries,
      [context, deadline] { return CallInterrupted(context, deadline); },
      response);
  if (!status.ok()) {
    response->Clear();
    scene_queries_.ReportFailure(FailureVia::kUnary, FailureKind::kRaycastBatch,
                                 status);
  }
  return FinishGated(context, std::move(pass), status);
}

grpc::ServerUnaryReactor* QueryService::ValidateShots(
    grpc::CallbackServerContext* context,
    const sator::v1::ValidateShotsRequest* request,
    sator::v1::ValidateShotsResponse* response) {
  return AnswerQuery(
      context, *request, FailureKind::kShots,
      [&] {
        return scene_queries_.ValidateShots(*request, limits_.max_batch_queries,
                                            response);
      },
      response);
}

grpc::ServerUnaryReactor* QueryService::ListShotVerdicts(
    grpc::CallbackServerContext* context,
    const sator::v1::ListShotVerdictsRequest* request,
    sator::v1::ListShotVerdictsResponse* response) {
  DrainGate::Pass pass = drain_gate_.Enter(*context, *request);
  if (!pass.admitted()) return FinishRefused(context, pass);
  absl::Status status = scene_queries_.FindScene(request->scene_id()).status();
  if (status.ok()) {
    if (shot_audit_ != nullptr) {
      status = shot_audit_->List(*request, response);
    } else {
      response->set_resume_sequence(1);
    }
  }
  if (!status.ok()) response->Clear();
  return FinishGated(context, std::move(pass), status);
}

grpc::ServerWriteReactor<sator::v1::WatchShotVerdictsResponse>*
QueryService::WatchShotVerdicts(
    grpc::CallbackServerContext* context,
    const sator::v1::WatchShotVerdictsRequest* request) {
  DrainGate::Pass pass = drain_gate_.EnterStream();
  if (!pass.admitted()) return new RefusedWatch(ToGrpcStatus(pass.refusal()));
  if (absl::Status found =
          scene_queries_.FindScene(request->scene_id()).status();
      !found.ok()) {
    return new RefusedWatch(ToGrpcStatus(found));
  }
  std::shared_ptr<ShotAuditRing> ring =
      shot_audit_ == nullptr ? nullptr : shot_audit_->Ring(request->scene_id());
  // With no audit trail there is nothing to follow.
  if (ring == nullptr) return new RefusedWatch(grpc::Status::OK);
  const std::uint64_t next = ring->next_sequence();
  std::uint64_t from = next;
  if (request->has_from_sequence()) {
    from = request->from_sequence();
    if (from == 0 || from > next) {
      return new RefusedWatch(ToGrpcStatus(
          FieldError("from_sequence",
                     absl::StrCat("must be in [1, ", next,
                                  "] (the next to be recorded), got ", from))));
    }
  }
  return new ShotVerdictWatch(std::move(ring), from,
                              shot_audit_->watch_buffer(), watches_,
                              std::move(pass), *context);
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
QueryService::Session(grpc::CallbackServerContext* context) {
  return new SessionReactor(scene_queries_, ops_, limits_.max_batch_queries,
                            sessions_, drain_gate_.EnterStream(), context,
                            proximity_);
}

}  // namespace sator::server
