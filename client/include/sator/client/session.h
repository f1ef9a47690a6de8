// sator::Session: an RAII wrapper over the Session stream, the
// low-overhead path a game server keeps open on one scene.
//
//   absl::StatusOr<std::unique_ptr<Session>> session =
//       client->OpenSession("arena-1");
//   PoseBatch poses;
//   poses.Add(player_id, player_pose);
//   auto applied = (*session)->SubmitPoses(tick, std::move(poses));
//   auto shot = (*session)->SubmitQuery({.kind = RaycastQuery{...}});
//   absl::StatusOr<QueryResult> hits = shot.get();
//
// Messages are sent in submission order and the server answers them in that
// order; each reply is matched to its future by sequence number. A reply with
// an error (a stale tick, a bad query) fails only its own future.
//
// Reconnection: when the stream breaks (the server restarts or drains, the
// network drops), every future still waiting fails with UNAVAILABLE, and the
// next submission re-opens the stream on the same scene before it is sent
// (if that fails, so does the submission, with the reason). Nothing is
// resent: poses and queries are of one tick, and the game loop knows better
// than the library whether they are still worth sending. A stream the server
// refuses as a whole (NOT_FOUND for an unknown scene, RESOURCE_EXHAUSTED over
// its session limit) fails what waits with the server's own status.
//
// The destructor closes cleanly: it half-closes the stream, lets the server
// answer what was sent (up to close_timeout), then ends it; futures still
// waiting then fail with CANCELLED. Submissions may come from several threads.
#ifndef SATOR_CLIENT_SESSION_H_
#define SATOR_CLIENT_SESSION_H_

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sator/client/connection.h"
#include "sator/client/types.h"

namespace sator {

class SessionState;

struct SessionOptions {
  // How long opening (and each re-opening) may wait for the server's answer.
  absl::Duration open_timeout = absl::Seconds(5);
  // How long the destructor (or Close) waits for outstanding replies.
  absl::Duration close_timeout = absl::Seconds(5);
};

class Session {
 public:
  // Opens a session on `scene_id` over `connection` and waits for the
  // server's answer: NOT_FOUND for an unknown scene, the stream's error if it
  // could not be opened. Client::OpenSession is the usual way in.
  static absl::StatusOr<std::unique_ptr<Session>> Open(
      std::shared_ptr<Connection> connection, const std::string& scene_id,
      const SessionOptions& options = {});

  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The poses of `tick` (the scene's current tick or a newer one); the future
  // gives the scene's current tick after the update.
  std::future<absl::StatusOr<std::int64_t>> SubmitPoses(std::int64_t tick,
                                                        PoseBatch poses);
  // A query on the session's scene; its options may rewind it.
  std::future<absl::StatusOr<QueryResult>> SubmitQuery(Query query);
  // Many queries on the session's scene in one message, answered on one
  // snapshot with an entry per query, each with its own status (as
  // Client::QueryBatch): a game tick's queries cost one message and one
  // reply. The call itself fails only as a whole batch does (more than the
  // server's --max_batch_queries, a deleted scene).
  std::future<absl::StatusOr<std::vector<BatchEntry>>> SubmitBatch(
      std::vector<Query> queries);
  // Shots on the session's scene, judged on one snapshot (as
  // Client::ValidateShots).
  std::future<absl::StatusOr<ValidateShotsResult>> SubmitShots(
      std::vector<Shot> shots, HitPolicy policy = {});

  // Follows the session's scene's proximity evaluations on this stream, as
  // Client::WatchProximity does on a stream of its own (docs/PROXIMITY.md):
  // `on_event` is called on the session's reader thread, in order, for each
  // evaluation's events or a resync. The events a pose update of this
  // session causes come before its reply, so before its future is ready.
  // The future gives the sequence the watch starts at, or the error
  // (FAILED_PRECONDITION for a second watch, INVALID_ARGUMENT naming
  // watch_proximity.from_tick...). The watch ends with the stream: `on_end`
  // (if set) is called once with how it ended, and a re-opened stream has
  // no watch (watch again, from the last tick or sequence seen).
  std::future<absl::StatusOr<std::uint64_t>> WatchProximity(
      ProximityWatchStart start,
      std::function<void(const ProximityStreamEvent&)> on_event,
      std::function<void(const absl::Status&)> on_end = nullptr);

  // Half-closes the stream and waits (up to close_timeout) for the server to
  // answer everything submitted and end the stream; the status the stream
  // ended with. Later submissions fail with FAILED_PRECONDITION. Idempotent.
  absl::Status Close();

  const std::string& scene_id() const;
  // The scene's current tick as the server reported it when the stream was
  // last (re-)opened.
  std::int64_t opened_tick() const;
  // How many times the stream was re-opened after breaking.
  int reopen_count() const;

 private:
  explicit Session(std::unique_ptr<SessionState> state);
  std::unique_ptr<SessionState> state_;
};

}  // namespace sator

#endif  // SATOR_CLIENT_SESSION_H_
