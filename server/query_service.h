// sator.v1.QueryService: the query RPCs, served with gRPC's callback API
// (docs/DESIGN.md says why). Handlers are thin: admit the call through the
// drain gate, run the gRPC-free code (pair_query.h, scene_queries.h,
// session.h), map the status once.
#ifndef SATOR_SERVER_QUERY_SERVICE_H_
#define SATOR_SERVER_QUERY_SERVICE_H_

#include <utility>

#include "proto/convert/geometry_convert.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "server/arena_message_allocator.h"
#include "server/audit/shot_audit.h"
#include "server/audit/shot_verdict_watch.h"
#include "server/drain_gate.h"
#include "server/scene_queries.h"
#include "server/scenes/scene_ops.h"
#include "server/scenes/scene_registry.h"
#include "server/session.h"

namespace sator::server {

// Limits of the query service (flags of satord).
struct QueryServiceLimits {
  // Queries in one QueryBatch, rays in one RaycastBatch, shots in one
  // ValidateShots call or Session message (RESOURCE_EXHAUSTED beyond).
  int max_batch_queries = 10000;
  // Session streams open at once (RESOURCE_EXHAUSTED beyond).
  int max_sessions = 1000;
  // WatchShotVerdicts streams open at once (RESOURCE_EXHAUSTED beyond).
  int max_shot_verdict_watches = 256;
};

// The generated CallbackService with Session as a raw method: the stream's
// reactor reads and writes serialized bytes and parses each message itself,
// so that a message that does not parse ends the stream with
// INVALID_ARGUMENT. (A typed reactor's OnReadDone(false) cannot tell a parse
// failure from the client's half-close.)
using QueryServiceBase = sator::v1::QueryService::WithCallbackMethod_Ping<
    sator::v1::QueryService::WithCallbackMethod_Overlap<sator::v1::QueryService::WithCallbackMethod_Contacts<
        sator::v1::QueryService::WithCallbackMethod_Sweep<
            sator::v1::QueryService::WithCallbackMethod_Raycast<
                sator::v1::QueryService::WithCallbackMethod_PointQuery<
                    sator::v1::QueryService::WithCallbackMethod_QueryBatch<
                        sator::v1::QueryService::WithCallbackMethod_RaycastBatch<
                            sator::v1::QueryService::WithCallbackMethod_PairQuery<
                                sator::v1::QueryService::WithCallbackMethod_ValidateShots<
                                    sator::v1::QueryService::WithCallbackMethod_ListShotVerdicts<
                                        sator::v1::QueryService::
                                            WithCallbackMethod_WatchShotVerdicts<
                                                sator::v1::QueryService::
                                                    WithRawCallbackMethod_Session<
                                                        sator::v1::QueryService::
                                                            Service>>>>>>>>>>>>>;

class QueryService final : public QueryServiceBase {
 public:
  // `ops` are the options of BodyService's operations, which Session pose
  // updates share.
  QueryService(DrainGate& drain_gate, const SceneRegistry& scenes,
               const convert::ShapeLimits& shape_limits,
               const QueryServiceLimits& limits, SceneOpsOptions ops)
      : drain_gate_(drain_gate),
        shape_limits_(shape_limits),
        limits_(limits),
        ops_(std::move(ops)),
        scene_queries_(scenes, shape_limits),
        sessions_(limits.max_sessions),
        watches_(ShotVerdictWatchLimit(limits.max_shot_verdict_watches)) {
    // Requests and responses of the unary RPCs live on one protobuf arena
    // per call (arena_message_allocator.h).
    SetMessageAllocatorFor_Ping(&ping_allocator_);
    SetMessageAllocatorFor_Overlap(&overlap_allocator_);
    SetMessageAllocatorFor_Contacts(&contacts_allocator_);
    SetMessageAllocatorFor_Sweep(&sweep_allocator_);
    SetMessageAllocatorFor_Raycast(&raycast_allocator_);
    SetMessageAllocatorFor_PointQuery(&point_allocator_);
    SetMessageAllocatorFor_QueryBatch(&batch_allocator_);
    SetMessageAllocatorFor_RaycastBatch(&ray_batch_allocator_);
    SetMessageAllocatorFor_PairQuery(&pair_allocator_);
    SetMessageAllocatorFor_ValidateShots(&shots_allocator_);
    // Open sessions would otherwise hold a drain up until their clients
    // leave: they end themselves when the gate closes.
    drain_gate_.OnClose([this] {
      sessions_.CloseAll();
      watches_.CloseAll();
    });
  }

  // The scene queries every handler runs (to attach a QueryObserver before
  // serving starts).
  SceneQueries& scene_queries() { return scene_queries_; }

  // The zones and observers a Session's watch_proximity follows (null: the
  // message is FAILED_PRECONDITION). Set before serving starts; `hosts` must
  // outlive the service's sessions.
  void set_proximity(ProximityHosts* hosts) { proximity_ = hosts; }

  // Echoes the payload; does no other work. The latency floor.
  grpc::ServerUnaryReactor* Ping(grpc::CallbackServerContext* context,
                                 const sator::v1::PingRequest* request,
                                 sator::v1::PingResponse* response) override;

  // Overlap, contact, sweep or raycast between two given shapes.
  grpc::ServerUnaryReactor* PairQuery(
      grpc::CallbackServerContext* context,
      const sator::v1::PairQueryRequest* request,
      sator::v1::PairQueryResponse* response) override;

  // One query against a scene.
  grpc::ServerUnaryReactor* Overlap(grpc::CallbackServerContext* context,
                                    const sator::v1::OverlapRequest* request,
                                    sator::v1::QueryResult* response) override;
  grpc::ServerUnaryReactor* Contacts(grpc::CallbackServerContext* context,
                                     const sator::v1::ContactsRequest* request,
                                     sator::v1::QueryResult* response) override;
  grpc::ServerUnaryReactor* Sweep(grpc::CallbackServerContext* context,
                                  const sator::v1::SweepRequest* request,
                                  sator::v1::QueryResult* response) override;
  grpc::ServerUnaryReactor* Raycast(grpc::CallbackServerContext* context,
                                    const sator::v1::RaycastRequest* request,
                                    sator::v1::QueryResult* response) override;
  grpc::ServerUnaryReactor* PointQuery(
      grpc::CallbackServerContext* context,
      const sator::v1::PointQueryRequest* request,
      sator::v1::QueryResult* response) override;

  // Many queries on one snapshot, in order, each with its own status. The
  // deadline and cancellation are checked before each query.
  grpc::ServerUnaryReactor* QueryBatch(
      grpc::CallbackServerContext* context,
      const sator::v1::QueryBatchRequest* request,
      sator::v1::QueryBatchResponse* response) override;

  // Many rays in the packed form, all or nothing; the deadline and
  // cancellation are checked every SceneQueries::kRayChunk rays.
  grpc::ServerUnaryReactor* RaycastBatch(
      grpc::CallbackServerContext* context,
      const sator::v1::RaycastBatchRequest* request,
      sator::v1::RaycastBatchResponse* response) override;

  // Judges shots on one snapshot (SceneQueries::ValidateShots), at most
  // --max_batch_queries per call.
  grpc::ServerUnaryReactor* ValidateShots(
      grpc::CallbackServerContext* context,
      const sator::v1::ValidateShotsRequest* request,
      sator::v1::ValidateShotsResponse* response) override;

  // The scene's audit trail (shot_audit.h), a page at a time.
  grpc::ServerUnaryReactor* ListShotVerdicts(
      grpc::CallbackServerContext* context,
      const sator::v1::ListShotVerdictsRequest* request,
      sator::v1::ListShotVerdictsResponse* response) override;

  // Follows the scene's audit trail (shot_verdict_watch.h).
  grpc::ServerWriteReactor<sator::v1::WatchShotVerdictsResponse>*
  WatchShotVerdicts(
      grpc::CallbackServerContext* context,
      const sator::v1::WatchShotVerdictsRequest* request) override;

  // The audit trail ListShotVerdicts and WatchShotVerdicts read (null: none
  // kept). Set before serving starts; must outlive the service's calls.
  void set_shot_audit(ShotAudit* audit) { shot_audit_ = audit; }

  // A stream of pose updates and queries on one scene (session.h), as
  // serialized SessionRequest and SessionResponse messages.
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* Session(
      grpc::CallbackServerContext* context) override;

  int open_sessions() const { return sessions_.open_sessions(); }
  // Told of every session opened (true) and closed (false); set before
  // serving starts.
  // See SessionTracker::set_overload_limiter.
  void set_overload_limiter(OverloadLimiter* limiter) {
    sessions_.set_overload_limiter(limiter);
    watches_.set_overload_limiter(limiter);
  }

  void set_session_message_observer(SessionTracker::MessageObserver observer) {
    sessions_.set_message_observer(std::move(observer));
  }
  void set_session_listener(SessionTracker::Listener listener) {
    sessions_.set_listener(std::move(listener));
  }

 private:
  // Admits the call, runs `run` (returning absl::Status, writing the answer
  // into `response`) unless the call is already cancelled, and finishes it;
  // a failure is counted as `kind` and clears the response.
  template <typename Run>
  grpc::ServerUnaryReactor* AnswerQuery(
      grpc::CallbackServerContext* context,
      const google::protobuf::Message& request, FailureKind kind, Run run,
      google::protobuf::Message* response);

  // Before everything the handlers use: gRPC may release a call's messages
  // until the server is gone, and the server goes before this service.
  template <typename Request, typename Response>
  using OnArena = ArenaMessageAllocator<Request, Response>;
  OnArena<sator::v1::PingRequest, sator::v1::PingResponse> ping_allocator_;
  OnArena<sator::v1::OverlapRequest, sator::v1::QueryResult> overlap_allocator_;
  OnArena<sator::v1::ContactsRequest, sator::v1::QueryResult>
      contacts_allocator_;
  OnArena<sator::v1::SweepRequest, sator::v1::QueryResult> sweep_allocator_;
  OnArena<sator::v1::RaycastRequest, sator::v1::QueryResult> raycast_allocator_;
  OnArena<sator::v1::PointQueryRequest, sator::v1::QueryResult>
      point_allocator_;
  OnArena<sator::v1::QueryBatchRequest, sator::v1::QueryBatchResponse>
      batch_allocator_;
  OnArena<sator::v1::RaycastBatchRequest, sator::v1::RaycastBatchResponse>
      ray_batch_allocator_;
  OnArena<sator::v1::PairQueryRequest, sator::v1::PairQueryResponse>
      pair_allocator_;
  OnArena<sator::v1::ValidateShotsRequest, sator::v1::ValidateShotsResponse>
      shots_allocator_;

  DrainGate& drain_gate_;
  const convert::ShapeLimits shape_limits_;
  const QueryServiceLimits limits_;
  const SceneOpsOptions ops_;
  SceneQueries scene_queries_;
  SessionTracker sessions_;
  ProximityHosts* proximity_ = nullptr;
  ShotVerdictWatches watches_;
  ShotAudit* shot_audit_ = nullptr;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_QUERY_SERVICE_H_
