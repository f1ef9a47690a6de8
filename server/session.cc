// QueryService.Session; see session.h.
#include "server/session.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "sator/core/field_status.h"
#include "server/proximity/proximity_ops.h"
#include "server/status_mapping.h"

namespace sator::server {
namespace {

void SetStatus(const absl::Status& status, sator::v1::SessionResponse* reply) {
  ToWireStatus(status, reply->mutable_status());
}

// A message may name the session's scene or none: INVALID_ARGUMENT naming
// `<message>.scene_id` for another.
absl::Status SameScene(absl::string_view message, const std::string& asked,
                       const std::string& session_scene) {
  if (asked.empty() || asked == session_scene) return absl::OkStatus();
  return FieldError(absl::StrCat(message, ".scene_id"),
                    absl::StrCat("must be empty or the session's scene '",
                                 session_scene, "', got '", asked, "'"));
}

absl::Status ShuttingDown() {
  return absl::UnavailableError("server shutting down");
}

const char* MessageKindName(sator::v1::SessionRequest::KindCase kind) {
  switch (kind) {
    case sator::v1::SessionRequest::kOpen:
      return "open";
    case sator::v1::SessionRequest::kPoses:
      return "poses";
    case sator::v1::SessionRequest::kQuery:
      return "query";
    case sator::v1::SessionRequest::kShots:
      return "shots";
    case sator::v1::SessionRequest::kWatchProximity:
      return "watch_proximity";
    case sator::v1::SessionRequest::kBatch:
      return "batch";
    case sator::v1::SessionRequest::KIND_NOT_SET:
      break;
  }
  return "nothing";
}

}  // namespace

// ---- SessionTracker ---------------------------------------------------------

absl::Status SessionTracker::Add(SessionReactor* session,
                                 grpc::ServerContextBase* context) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return ShuttingDown();
    if (sessions_.size() >= static_cast<std::size_t>(max_sessions_)) {
      const std::string limit =
          absl::StrCat("this server already has its limit of ", max_sessions_,
                       " open sessions (--max_sessions)");
      if (limiter_ == nullptr) return absl::ResourceExhaustedError(limit);
      // The hint of every other refusal, taken once for the message and
      // the trailers.
      const absl::Duration pushback = limiter_->Pushback();
      limiter_->CountShed(ShedReason::kSessions);
      if (context != nullptr) AddRetryAfter(*context, pushback);
      return absl::ResourceExhaustedError(absl::StrCat(
          limit, "; retry after ", PushbackMilliseconds(pushback), " ms"));
    }
    sessions_.insert(session);
  }
  if (listener_) listener_(true);
  return absl::OkStatus();
}

void SessionTracker::Remove(SessionReactor* session) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    sessions_.erase(session);
  }
  if (listener_) listener_(false);
}

void SessionTracker::CloseAll() {
  std::vector<SessionReactor*> idle;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    // A session whose finish Close() decides is finished (and removed)
    // only by FinishClosed below, so the idle ones stay alive until then.
    for (SessionReactor* session : sessions_) {
      if (session->Close()) idle.push_back(session);
    }
  }
  for (SessionReactor* session : idle) session->FinishClosed();
}

int SessionTracker::open_sessions() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(sessions_.size());
}

// ---- SessionHandler ---------------------------------------------------------

SessionHandler::Outcome SessionHandler::Handle(
    const sator::v1::SessionRequest& request) {
  Outcome outcome = HandleMessage(request);
  // Every failure a message meets is counted: its own status, or the one
  // that ends the stream (a refused open).
  FailureKind kind = FailureKind::kUnset;
  switch (request.kind_case()) {
    case sator::v1::SessionRequest::kOpen:
      kind = FailureKind::kOpen;
      break;
    case sator::v1::SessionRequest::kPoses:
      kind = FailureKind::kPoses;
      break;
    case sator::v1::SessionRequest::kQuery:
      kind = FailureKindOfQuery(request.query());
      break;
    case sator::v1::SessionRequest::kShots:
      kind = FailureKind::kShots;
      break;
    case sator::v1::SessionRequest::kWatchProximity:
      kind = FailureKind::kWatchProximity;
      break;
    case sator::v1::SessionRequest::kBatch:
      kind = FailureKind::kQueryBatch;
      break;
    case sator::v1::SessionRequest::KIND_NOT_SET:
      break;
  }
  if (outcome.end_stream.has_value()) {
    queries_.ReportFailure(FailureVia::kSessionMessage, kind,
                           *outcome.end_stream);
  } else if (outcome.reply.status().code() != 0) {
    queries_.ReportFailure(
        FailureVia::kSessionMessage, kind,
        absl::Status(
            static_cast<absl::StatusCode>(outcome.reply.status().code()), ""));
  }
  return outcome;
}

SessionHandler::Outcome SessionHandler::HandleMessage(
    const sator::v1::SessionRequest& request) {
  Outcome outcome;
  const auto kind = request.kind_case();
  if (!opened()) {
    if (kind != sator::v1::SessionRequest::kOpen) {
      outcome.end_stream = FieldError(
          "open", absl::StrCat("the first message of a session must be open, "
                               "got ",
                               MessageKindName(kind)));
      return outcome;
    }
    absl::StatusOr<std::shared_ptr<HostedScene>> scene =
        queries_.FindScene(request.open().scene_id());
    if (!scene.ok()) {
      outcome.end_stream = PrefixField("open", scene.status());
      return outcome;
    }
    scene_id_ = request.open().scene_id();
    outcome.reply.set_sequence(request.sequence());
    SetStatus(absl::OkStatus(), &outcome.reply);
    outcome.reply.mutable_opened()->set_current_tick(SceneView(*scene).tick());
    return outcome;
  }
  switch (kind) {
    case sator::v1::SessionRequest::kOpen:
      outcome.reply.set_sequence(request.sequence());
      SetStatus(
          FieldError("open", absl::StrCat("the session is already open on "
                                          "scene '",
                                          scene_id_, "'")),
          &outcome.reply);
      return outcome;
    case sator::v1::SessionRequest::kPoses:
      outcome.reply = UpdatePoses(request);
      return outcome;
    case sator::v1::SessionRequest::kQuery:
      outcome.reply = Query(request);
      return outcome;
    case sator::v1::SessionRequest::kShots:
      outcome.reply = ValidateShots(request);
      return outcome;
    case sator::v1::SessionRequest::kWatchProximity:
      outcome.reply = WatchProximity(request, &outcome.watch);
      return outcome;
    case sator::v1::SessionRequest::kBatch:
      outcome.reply = QueryBatch(request);
      return outcome;
    case sator::v1::SessionRequest::KIND_NOT_SET:
      break;
  }
  outcome.reply.set_sequence(request.sequence());
  SetStatus(FieldError("kind", "no message kind is set"), &outcome.reply);
  return outcome;
}

sator::v1::SessionResponse SessionHandler::Query(
    const sator::v1::SessionRequest& request) {
  sator::v1::SessionResponse reply;
  reply.set_sequence(request.sequence());
  // Found again for every message: a scene deleted under an open session
  // answers NOT_FOUND instead of living on.
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      queries_.FindScene(scene_id_);
  if (!scene.ok()) {
    SetStatus(scene.status(), &reply);
    return reply;
  }
  absl::StatusOr<sator::v1::QueryResult> result =
      queries_.Run(SceneView(*std::move(scene)), request.query());
  if (!result.ok()) {
    SetStatus(PrefixField("query", result.status()), &reply);
    return reply;
  }
  SetStatus(absl::OkStatus(), &reply);
  reply.mutable_query()->Swap(&*result);
  return reply;
}

sator::v1::SessionResponse SessionHandler::UpdatePoses(
    const sator::v1::SessionRequest& request) {
  sator::v1::SessionResponse reply;
  reply.set_sequence(request.sequence());
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      queries_.FindScene(scene_id_);
  if (!scene.ok()) {
    SetStatus(scene.status(), &reply);
    return reply;
  }
  absl::StatusOr<sator::v1::UpdatePosesResponse> updated =
      ApplySessionPoses(**scene, ops_, request.poses());
  if (!updated.ok()) {
    SetStatus(PrefixField("poses", updated.status()), &reply);
    return reply;
  }
  SetStatus(absl::OkStatus(), &reply);
  reply.mutable_poses()->Swap(&*updated);
  return reply;
}

sator::v1::SessionResponse SessionHandler::ValidateShots(
    const sator::v1::SessionRequest& request) {
  sator::v1::SessionResponse reply;
  reply.set_sequence(request.sequence());
  const sator::v1::ValidateShotsRequest& shots = request.shots();
  if (absl::Status same = SameScene("shots", shots.scene_id(), scene_id_);
      !same.ok()) {
    SetStatus(same, &reply);
    return reply;
  }
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      queries_.FindScene(scene_id_);
  if (!scene.ok()) {
    SetStatus(scene.status(), &reply);
    return reply;
  }
  const absl::Status status = queries_.ValidateShots(
      SceneView(*std::move(scene)), shots, max_shots_, reply.mutable_shots());
  if (!status.ok()) {
    reply.clear_shots();
    SetStatus(PrefixField("shots", status), &reply);
    return reply;
  }
  SetStatus(absl::OkStatus(), &reply);
  return reply;
}

sator::v1::SessionResponse SessionHandler::QueryBatch(
    const sator::v1::SessionRequest& request) {
  sator::v1::SessionResponse reply;
  reply.set_sequence(request.sequence());
  const sator::v1::QueryBatchRequest& batch = request.batch();
  if (absl::Status same = SameScene("batch", batch.scene_id(), scene_id_);
      !same.ok()) {
    SetStatus(same, &reply);
    return reply;
  }
  absl::StatusOr<std::shared_ptr<HostedScene>> scene =
      queries_.FindScene(scene_id_);
  if (!scene.ok()) {
    SetStatus(scene.status(), &reply);
    return reply;
  }
  const absl::Status status =
      queries_.QueryBatch(SceneView(*std::move(scene)), batch, max_shots_,
                          nullptr, reply.mutable_batch());
  if (!status.ok()) {
    reply.clear_batch();
    SetStatus(PrefixField("batch", status), &reply);
    return reply;
  }
  SetStatus(absl::OkStatus(), &reply);
  return reply;
}

sator::v1::SessionResponse SessionHandler::WatchProximity(
    const sator::v1::SessionRequest& request,
    std::optional<ProximityCursor>* watch) {
  sator::v1::SessionResponse reply;
  reply.set_sequence(request.sequence());
  const sator::v1::WatchProximityRequest& asked = request.watch_proximity();
  if (absl::Status same =
          SameScene("watch_proximity", asked.scene_id(), scene_id_);
      !same.ok()) {
    SetStatus(same, &reply);
    return reply;
  }
  if (proximity_ == nullptr) {
    SetStatus(
        FieldError(absl::StatusCode::kFailedPrecondition, "watch_proximity",
                   "this session has no proximity service"),
        &reply);
    return reply;
  }
  if (watching_) {
    SetStatus(
        FieldError(absl::StatusCode::kFailedPrecondition, "watch_proximity",
                   "the session already watches its scene"),
        &reply);
    return reply;
  }
  absl::StatusOr<ProximityCursor> cursor =
      StartProximityWatch(queries_.scenes(), *proximity_, scene_id_, asked);
  if (!cursor.ok()) {
    SetStatus(PrefixField("watch_proximity", cursor.status()), &reply);
    return reply;
  }
  watching_ = true;
  SetStatus(absl::OkStatus(), &reply);
  reply.mutable_proximity_watching()->set_from_sequence(cursor->position());
  watch->emplace(*std::move(cursor));
  return reply;
}

// ---- SessionReactor ---------------------------------------------------------

class SessionReactor::ProximityWaker final : public RingSubscriber {
 public:
  explicit ProximityWaker(SessionReactor* session) : session_(session) {}
  void OnRecorded() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (session_ != nullptr) session_->OnProximity();
  }
  void Detach() {
    std::lock_guard<std::mutex> lock(mu_);
    session_ = nullptr;
  }

 private:
  std::mutex mu_;
  // Guarded by mu_.
  SessionReactor* session_;
};

namespace {

SessionMessageKind MessageKindOf(const sator::v1::SessionRequest& request) {
  switch (request.kind_case()) {
    case sator::v1::SessionRequest::kOpen:
      return SessionMessageKind::kOpen;
    case sator::v1::SessionRequest::kPoses:
      return SessionMessageKind::kPoses;
    case sator::v1::SessionRequest::kQuery:
      return SessionMessageKind::kQuery;
    case sator::v1::SessionRequest::kShots:
      return SessionMessageKind::kShots;
    case sator::v1::SessionRequest::kWatchProximity:
      return SessionMessageKind::kWatchProximity;
    case sator::v1::SessionRequest::kBatch:
      return SessionMessageKind::kBatch;
    case sator::v1::SessionRequest::KIND_NOT_SET:
      break;
  }
  return SessionMessageKind::kUnset;
}

}  // namespace

SessionReactor::SessionReactor(const SceneQueries& queries,
                               const SceneOpsOptions& ops, int max_shots,
                               SessionTracker& tracker, DrainGate::Pass pass,
                               grpc::ServerContextBase* context,
                               ProximityHosts* proximity)
    : handler_(queries, ops, max_shots, proximity),
      tracker_(tracker),
      pass_(std::move(pass)) {
  absl::Status admitted = pass_.admitted() ? tracker_.Add(this, context)
                                           : DrainGate::DrainingStatus();
  if (!admitted.ok()) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      started_ = true;
      finished_ = true;
    }
    Finish(ToGrpcStatus(admitted));
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    tracked_ = true;
    reading_ = true;
  }
  StartRead(&request_bytes_);
  Next next;
  {
    // A drain that came before this point could not finish the stream (the
    // read had not started); act on it now.
    const std::lock_guard<std::mutex> lock(mutex_);
    started_ = true;
    if (closing_) next = DecideLocked();
  }
  Act(next);
}

SessionReactor::Next SessionReactor::DecideLocked() {
  Next next;
  if (finished_) return next;
  const bool idle = !processing_ && !writing_ && replies_.empty();
  if (idle && (end_status_.has_value() || read_closed_ || closing_)) {
    finished_ = true;
    next.finish = ToGrpcStatus(end_status_.has_value() ? *end_status_
                               : read_closed_          ? absl::OkStatus()
                                                       : ShuttingDown());
    return next;
  }
  if (!writing_ && !replies_.empty()) {
    writing_ = true;
    next.write = &replies_.front();
  }
  if (!reading_ && !processing_ && !read_closed_ && !closing_ &&
      !end_status_.has_value() && replies_.size() < kMaxQueuedReplies) {
    reading_ = true;
    next.read = true;
  }
  return next;
}

void SessionReactor::Act(const Next& next) {
  if (next.write != nullptr) StartWrite(next.write);
  if (next.read) StartRead(&request_bytes_);
  if (next.finish.has_value()) {
    Untrack();
    Finish(*next.finish);
  }
}

void SessionReactor::Untrack() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!tracked_) return;
    tracked_ = false;
  }
  tracker_.Remove(this);
}

void SessionReactor::OnReadDone(bool ok) {
  bool handle = false;
  Next next;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    reading_ = false;
    if (!ok) read_closed_ = true;
    // While draining or ending, a message that arrives now is not handled.
    if (ok && !finished_ && !closing_ && !end_status_.has_value()) {
      processing_ = true;
      handle = true;
    } else {
      next = DecideLocked();
    }
  }
  if (!handle) {
    Act(next);
    return;
  }
  const auto arrived = std::chrono::steady_clock::now();
  SessionHandler::Outcome outcome;
  grpc::ByteBuffer reply;
  if (!grpc::SerializationTraits<sator::v1::SessionRequest>::Deserialize(
           &request_bytes_, &request_)
           .ok()) {
    outcome.end_stream = absl::InvalidArgumentError(
        "the stream carried a message that is not a sator.v1.SessionRequest");
  } else {
    outcome = handler_.Handle(request_);
    bool own_buffer = false;
    if (!outcome.end_stream.has_value() &&
        !grpc::SerializationTraits<sator::v1::SessionResponse>::Serialize(
             outcome.reply, &reply, &own_buffer)
             .ok()) {
      outcome.end_stream =
          absl::InternalError("a session reply could not be serialized");
    }
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    processing_ = false;
    if (outcome.end_stream.has_value()) {
      if (!end_status_.has_value()) end_status_ = *outcome.end_stream;
    } else if (!end_status_.has_value()) {
      replies_.push_back(std::move(reply));
      arrivals_.push_back({MessageKindOf(request_), arrived});
      if (outcome.watch.has_value()) {
        Watch(*std::move(outcome.watch), request_.sequence());
      }
    }
    next = DecideLocked();
  }
  Act(next);
}

void SessionReactor::Watch(ProximityCursor cursor, std::uint64_t sequence) {
  watch_.emplace(std::move(cursor));
  watch_sequence_ = sequence;
  waker_ = std::make_shared<ProximityWaker>(this);
  // Under mutex_: the ring wakes subscribers without its locks held, and a
  // wake-up waits here until the watch is in place.
  watch_->ring().Subscribe(waker_);
  // What is already there (kept evaluations, a first resync) goes at once.
  QueueProximityLocked();
}

void SessionReactor::OnProximity() {
  Next next;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    QueueProximityLocked();
    next = DecideLocked();
  }
  Act(next);
}

void SessionReactor::QueueProximityLocked() {
  if (!watch_.has_value() || finished_ || read_closed_ || closing_ ||
      end_status_.has_value()) {
    return;
  }
  while (proximity_queued_ < kMaxQueuedProximity) {
    sator::v1::SessionResponse pushed;
    if (!watch_->Next(pushed.mutable_proximity())) return;
    pushed.set_sequence(watch_sequence_);
    SetStatus(absl::OkStatus(), &pushed);
    grpc::ByteBuffer bytes;
    bool own_buffer = false;
    if (!grpc::SerializationTraits<sator::v1::SessionResponse>::Serialize(
             pushed, &bytes, &own_buffer)
             .ok()) {
      end_status_ =
          absl::InternalError("a proximity message could not be serialized");
      return;
    }
    replies_.push_back(std::move(bytes));
    arrivals_.push_back({SessionMessageKind::kWatchProximity,
                         std::chrono::steady_clock::now(), false});
    ++proximity_queued_;
  }
}

void SessionReactor::OnWriteDone(bool ok) {
  Next next;
  std::optional<Arrival> written;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    writing_ = false;
    if (!replies_.empty()) {
      replies_.pop_front();
      if (!arrivals_.front().replied) {
        --proximity_queued_;
      } else if (ok) {
        written = arrivals_.front();
      }
      arrivals_.pop_front();
    }
    if (!ok) {
      // The client is gone: nothing more can be delivered.
      replies_.clear();
      arrivals_.clear();
      proximity_queued_ = 0;
      if (!end_status_.has_value()) {
        end_status_ = absl::CancelledError("the stream broke");
      }
    }
    QueueProximityLocked();
    next = DecideLocked();
  }
  if (written.has_value() && tracker_.message_observer()) {
    const std::chrono::duration<double> waited =
        std::chrono::steady_clock::now() - written->at;
    tracker_.message_observer()(written->kind, waited.count());
  }
  Act(next);
}

void SessionReactor::OnCancel() {
  Next next;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!end_status_.has_value()) {
      end_status_ = absl::CancelledError("the client cancelled the session");
    }
    // Keep only the reply being written; its OnWriteDone will come.
    while (replies_.size() > (writing_ ? 1u : 0u)) {
      if (!arrivals_.back().replied) --proximity_queued_;
      replies_.pop_back();
      arrivals_.pop_back();
    }
    next = DecideLocked();
  }
  Act(next);
}

void SessionReactor::OnDone() {
  std::shared_ptr<ProximityWaker> waker;
  ProximityRing* ring = nullptr;
  {
    // Under the lock: gRPC may call OnDone on another thread than the one
    // that constructed the session, through synchronisation ThreadSanitizer
    // cannot see (gRPC is not instrumented).
    const std::lock_guard<std::mutex> lock(mutex_);
    waker = waker_;
    if (watch_.has_value()) ring = &watch_->ring();
  }
  // Not under mutex_: a wake-up in progress holds the waker's lock and
  // waits for mutex_.
  if (waker != nullptr) {
    waker->Detach();
    ring->Unsubscribe(waker.get());
  }
  Untrack();
  delete this;
}

bool SessionReactor::Close() {
  const std::lock_guard<std::mutex> lock(mutex_);
  closing_ = true;
  if (!started_) return false;  // The constructor acts on closing_.
  Next next = DecideLocked();
  // Closing starts no read, and replies are written as soon as they are
  // queued, so the only possible action here is the finish.
  if (!next.finish.has_value()) return false;
  close_status_ = *std::move(next.finish);
  return true;
}

void SessionReactor::FinishClosed() {
  Untrack();
  Finish(close_status_);
}

}  // namespace sator::server
