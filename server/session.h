// QueryService.Session: a bidirectional stream on one scene that
// interleaves pose updates and queries and answers each message in order.
//
// Protocol (docs/QUERIES.md): the first message must be `open` (else the
// stream ends with INVALID_ARGUMENT; an unknown scene ends it with
// NOT_FOUND); the reply carries the scene's current tick. Then every message
// gets exactly one reply echoing its `sequence`, with its own status: a bad
// message does not end the stream. The stream ends with OK when the client
// half-closes, INVALID_ARGUMENT when a message does not parse as a
// SessionRequest (after the replies to the messages before it; nothing after
// it is read), CANCELLED when it cancels, RESOURCE_EXHAUSTED at once when
// --max_sessions streams are already open, and UNAVAILABLE "server shutting
// down" when satord drains (after the reply to the message in hand).
//
// Threads: gRPC runs the reactions (OnReadDone, OnWriteDone, OnCancel) and
// the drain runs Close on any thread. A message is processed inside
// OnReadDone, and the next read starts only once it is answered, so replies
// keep request order. Writes go out one at a time from a queue; reading
// pauses while kMaxQueuedReplies replies wait for a slow client. State is
// guarded by a std::mutex that is never held across a reactor call.
//
// Proximity: a watch_proximity message makes the session follow its scene's
// ProximityRing with a ProximityCursor. The ring wakes the session (on the
// writing thread, after each evaluation), which queues what the cursor has
// as `proximity` messages, at most kMaxQueuedProximity at once: a client
// that reads too slowly lags in the ring and gets a resync, never a longer
// queue. Nothing more is queued once the client half-closes or the session
// ends.
//
// The reactor reads and writes grpc::ByteBuffer (QueryService registers
// Session as a raw method) and parses each message itself: gRPC gives a typed
// reactor OnReadDone(false) both for a half-close and for a message that does
// not parse, and the two must end the stream differently.
#ifndef SATOR_SERVER_SESSION_H_
#define SATOR_SERVER_SESSION_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/server_callback.h"
#include "sator/v1/query_service.pb.h"
#include "server/drain_gate.h"
#include "server/overload/overload_limiter.h"
#include "server/proximity/proximity_cursor.h"
#include "server/proximity/proximity_hosts.h"
#include "server/scene_queries.h"
#include "server/scenes/scene_ops.h"

namespace sator::server {

class SessionReactor;

// The open sessions: enforces --max_sessions and ends them all on drain.
class SessionTracker {
 public:
  explicit SessionTracker(int max_sessions) : max_sessions_(max_sessions) {}

  // Called with true when a session is admitted and false when it ends (for
  // the sessions gauge). Set before serving starts.
  using Listener = std::function<void(bool opened)>;
  void set_listener(Listener listener) { listener_ = std::move(listener); }

  // Called for each reply written, with the message's kind and the seconds
  // from its arrival (the read done) to its reply's write done: what a
  // client waits on top of the network. Thread-safe and fast; set before
  // serving starts.
  using MessageObserver =
      std::function<void(SessionMessageKind kind, double seconds)>;
  void set_message_observer(MessageObserver observer) {
    message_observer_ = std::move(observer);
  }
  const MessageObserver& message_observer() const { return message_observer_; }

  // Counts sessions refused at the limit in `limiter`'s
  // sator_requests_shed_total (and in the refusals its Pushback grows with),
  // and gives them its Pushback() hint, as every other refusal. Set before
  // serving starts; `limiter` must outlive the tracker's sessions.
  void set_overload_limiter(OverloadLimiter* limiter) { limiter_ = limiter; }

  // RESOURCE_EXHAUSTED when max_sessions are already open (with the
  // limiter's pushback trailers added to `context` and the same hint in the
  // message, if both are set).
  absl::Status Add(SessionReactor* session,
                   grpc::ServerContextBase* context = nullptr);
  void Remove(SessionReactor* session);
  // Asks every open session to end (see SessionReactor::Close); later Adds
  // are refused with UNAVAILABLE.
  void CloseAll();
  int open_sessions() const;

 private:
  const int max_sessions_;
  Listener listener_;
  MessageObserver message_observer_;
  OverloadLimiter* limiter_ = nullptr;
  mutable std::mutex mutex_;
  std::set<SessionReactor*> sessions_;  // Guarded by mutex_.
  bool closed_ = false;                 // Guarded by mutex_.
};

// Answers one SessionRequest (gRPC-free, tested directly). Holds the scene
// id once opened.
class SessionHandler {
 public:
  // `max_shots`: the most shots one shots message, or queries one batch
  // message, may carry (satord: --max_batch_queries). `proximity`
  // (null: watch_proximity is FAILED_PRECONDITION) must outlive the handler.
  SessionHandler(const SceneQueries& queries, const SceneOpsOptions& ops,
                 int max_shots, ProximityHosts* proximity = nullptr)
      : queries_(queries),
        ops_(ops),
        max_shots_(max_shots),
        proximity_(proximity) {}

  // What to do with a message: reply, or end the stream with a status; for
  // an accepted watch_proximity, the cursor to follow.
  struct Outcome {
    sator::v1::SessionResponse reply;
    std::optional<absl::Status> end_stream;
    std::optional<ProximityCursor> watch;
  };
  // Reports a failed message to the queries' failure observer.
  Outcome Handle(const sator::v1::SessionRequest& request);

  bool opened() const { return !scene_id_.empty(); }

 private:
  Outcome HandleMessage(const sator::v1::SessionRequest& request);
  sator::v1::SessionResponse Query(const sator::v1::SessionRequest& request);
  sator::v1::SessionResponse UpdatePoses(
      const sator::v1::SessionRequest& request);
  sator::v1::SessionResponse ValidateShots(
      const sator::v1::SessionRequest& request);
  sator::v1::SessionResponse WatchProximity(
      const sator::v1::SessionRequest& request,
      std::optional<ProximityCursor>* watch);
  sator::v1::SessionResponse QueryBatch(
      const sator::v1::SessionRequest& request);

  const SceneQueries& queries_;
  const SceneOpsOptions& ops_;
  const int max_shots_;
  ProximityHosts* const proximity_;
  std::string scene_id_;
  bool watching_ = false;
};

// Applies a session's pose update to the scene with BodyService's
// UpdatePoses operation (scene_ops.h). Errors name fields relative to the
// SessionPoseUpdate ("poses.positions: ...").
absl::StatusOr<sator::v1::UpdatePosesResponse> ApplySessionPoses(
    HostedScene& scene, const SceneOpsOptions& options,
    const sator::v1::SessionPoseUpdate& update);

class SessionReactor final
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  // Replies waiting for a slow client before reading pauses.
  static constexpr std::size_t kMaxQueuedReplies = 16;
  // Proximity messages queued at once; the rest wait in the ring.
  static constexpr std::size_t kMaxQueuedProximity = 4;

  // Starts the stream: refuses it at once (UNAVAILABLE without a pass,
  // RESOURCE_EXHAUSTED beyond the limit) or starts reading.
  // `queries` and `ops` must outlive the session; `max_shots` bounds a
  // shots message. `context` (may be null) gets the retry-after-ms trailer
  // of a refusal.
  // `proximity` (may be null) must outlive the session.
  SessionReactor(const SceneQueries& queries, const SceneOpsOptions& ops,
                 int max_shots, SessionTracker& tracker, DrainGate::Pass pass,
                 grpc::ServerContextBase* context = nullptr,
                 ProximityHosts* proximity = nullptr);

  // The drain: end with UNAVAILABLE once the message in hand is answered.
  // Returns true when the caller must call FinishClosed() (the session was
  // idle); the session stays alive until then, since gRPC calls OnDone only
  // after Finish.
  bool Close();
  void FinishClosed();

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // Under mutex_: the next write to start, whether to read again, and the
  // status to finish with, decided together so that no reactor call is made
  // with the lock held.
  struct Next {
    const grpc::ByteBuffer* write = nullptr;
    bool read = false;
    std::optional<grpc::Status> finish;
  };
  Next DecideLocked();
  void Act(const Next& next);
  // Gives the session's --max_sessions slot back (once): before the final
  // status is sent, so a client that saw its session end can open the next
  // one at once.
  void Untrack();

  // Wakes the session from its watch's ring; outlives it while the ring
  // holds it.
  class ProximityWaker;
  // Starts following `cursor` (the reply to its message is queued).
  void Watch(ProximityCursor cursor, std::uint64_t sequence);
  // The ring has more: queue it and act.
  void OnProximity();
  // Queues what the watch's cursor has, within kMaxQueuedProximity.
  void QueueProximityLocked();

  SessionHandler handler_;
  SessionTracker& tracker_;
  DrainGate::Pass pass_;
  // The message being read, and the same message parsed.
  grpc::ByteBuffer request_bytes_;
  sator::v1::SessionRequest request_;

  std::mutex mutex_;
  // Replies not yet written, serialized; the front one is being written when
  // writing_.
  std::deque<grpc::ByteBuffer> replies_;  // Guarded by mutex_.
  // Per reply in replies_: its message's kind and arrival time (not
  // `replied` for a pushed proximity message, which answers no message).
  struct Arrival {
    SessionMessageKind kind;
    std::chrono::steady_clock::time_point at;
    bool replied = true;
  };
  std::deque<Arrival> arrivals_;  // Guarded by mutex_.
  bool reading_ = false;          // Guarded by mutex_.
  bool writing_ = false;          // Guarded by mutex_.
  bool read_closed_ = false;      // The client half-closed. Guarded by mutex_.
  bool closing_ = false;          // Draining. Guarded by mutex_.
  // A message is being handled (outside the lock). Guarded by mutex_.
  bool processing_ = false;
  // The constructor has started the first read. Guarded by mutex_.
  bool started_ = false;
  // Set once Finish is decided; nothing else starts after. Guarded by mutex_.
  bool finished_ = false;
  // What Close decided to finish with, for FinishClosed.
  grpc::Status close_status_;
  // Registered with tracker_. Guarded by mutex_.
  bool tracked_ = false;
  // A status to end with once the queued replies are written.
  std::optional<absl::Status> end_status_;  // Guarded by mutex_.

  // The proximity watch, once a watch_proximity was accepted; its waker is
  // subscribed to the cursor's ring until OnDone. Guarded by mutex_ (the
  // waker pointer is set once, before the subscription).
  std::optional<ProximityCursor> watch_;
  std::uint64_t watch_sequence_ = 0;
  std::size_t proximity_queued_ = 0;
  std::shared_ptr<ProximityWaker> waker_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_SESSION_H_
