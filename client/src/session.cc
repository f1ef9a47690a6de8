// sator::Session: one stream at a time, a reader thread that matches
// replies to futures by sequence, and re-opening after the stream breaks.
//
// Locking: `submit_mutex_` serialises submissions, (re-)opening and closing,
// so messages reach the stream in sequence order; `write_mutex_` keeps the
// reader's Finish apart from writes; `mutex_` guards the queue of waiting
// replies and the stream's state, shared with the reader thread. No lock is
// held while a future is fulfilled.
#include "sator/client/session.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "dimension_check.h"
#include "sator/core/field_status.h"

namespace sator {

// One message waiting for its reply.
struct PendingReply {
  // Open and pose updates answer a tick; queries a result; batches an entry
  // per query; shots verdicts; a proximity watch the sequence it starts at.
  enum class Answer : std::uint8_t { kTick, kQuery, kBatch, kShots, kWatch };

  std::uint64_t sequence = 0;
  Answer answer = Answer::kTick;
  std::promise<absl::StatusOr<std::int64_t>> tick;
  std::promise<absl::StatusOr<QueryResult>> query;
  std::promise<absl::StatusOr<std::vector<BatchEntry>>> batch;
  // The batch's query count, which its answer must match.
  std::size_t batch_size = 0;
  std::promise<absl::StatusOr<ValidateShotsResult>> shots;
  std::promise<absl::StatusOr<std::uint64_t>> watch;

  void Fail(const absl::Status& status) {
    switch (answer) {
      case Answer::kTick:
        tick.set_value(status);
        return;
      case Answer::kQuery:
        query.set_value(status);
        return;
      case Answer::kBatch:
        batch.set_value(status);
        return;
      case Answer::kShots:
        shots.set_value(status);
        return;
      case Answer::kWatch:
        watch.set_value(status);
        return;
    }
  }

  // By reference: moving the reply's variant into a by-value parameter makes
  // GCC 12 warn (maybe-uninitialized) about the alternatives it does not
  // hold.
  void Deliver(SessionReply& reply) {
    if (!reply.status.ok()) {
      Fail(reply.status);
      return;
    }
    if (answer == Answer::kQuery) {
      if (QueryResult* result = std::get_if<QueryResult>(&reply.kind)) {
        query.set_value(std::move(*result));
        return;
      }
    } else if (answer == Answer::kBatch) {
      if (auto* answered = std::get_if<SessionBatchAnswered>(&reply.kind)) {
        if (answered->entries.size() == batch_size) {
          batch.set_value(std::move(answered->entries));
          return;
        }
        Fail(absl::InternalError(absl::StrCat(
            "session batch ", reply.sequence, ": ", batch_size, " queries but ",
            answered->entries.size(), " answers")));
        return;
      }
    } else if (answer == Answer::kShots) {
      if (ValidateShotsResult* result =
              std::get_if<ValidateShotsResult>(&reply.kind)) {
        shots.set_value(std::move(*result));
        return;
      }
    } else if (answer == Answer::kWatch) {
      if (const auto* watching =
              std::get_if<SessionProximityWatching>(&reply.kind)) {
        watch.set_value(watching->from_sequence);
        return;
      }
    } else if (const auto* opened = std::get_if<SessionOpened>(&reply.kind)) {
      tick.set_value(opened->current_tick);
      return;
    } else if (const auto* applied =
                   std::get_if<SessionPosesApplied>(&reply.kind)) {
      tick.set_value(applied->current_tick);
      return;
    }
    Fail(absl::InternalError(absl::StrCat("session reply ", reply.sequence,
                                          " is of the wrong kind")));
  }
};

class SessionState {
 public:
  SessionState(std::shared_ptr<Connection> connection, std::string scene_id,
               SessionOptions options)
      : connection_(std::move(connection)),
        scene_id_(std::move(scene_id)),
        options_(options) {}

  ~SessionState() { (void)Close(); }

  absl::Status OpenForTheFirstTime() {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    return EnsureOpen();
  }

  // Opens the stream if it is not open. Holds submit_mutex_.
  absl::Status EnsureOpen() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (open_) return absl::OkStatus();
    }
    JoinReader();
    absl::StatusOr<std::unique_ptr<SessionStream>> stream =
        connection_->OpenSession(scene_id_);
    if (!stream.ok()) return stream.status();
    stream_ = *std::move(stream);
    protocol_error_ = absl::OkStatus();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
      reader_done_ = false;
    }
    reader_ = std::thread([this, stream = stream_.get()] { ReadLoop(stream); });
    std::future<absl::StatusOr<std::int64_t>> opened =
        SendTickMessage(SessionOpen{.scene_id = scene_id_});
    const bool answered =
        opened.wait_for(absl::ToChronoNanoseconds(options_.open_timeout)) ==
        std::future_status::ready;
    if (!answered) {
      stream_->Cancel();
      JoinReader();
      return absl::DeadlineExceededError(absl::StrCat(
          "session on scene '", scene_id_, "': no answer to open in ",
          absl::FormatDuration(options_.open_timeout)));
    }
    absl::StatusOr<std::int64_t> tick = opened.get();
    if (!tick.ok()) {
      stream_->Cancel();
      JoinReader();
      return tick.status();
    }
    opened_tick_ = *tick;
    ++open_count_;
    return absl::OkStatus();
  }

  std::future<absl::StatusOr<std::int64_t>> SubmitPoses(std::int64_t tick,
                                                        PoseBatch poses) {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    if (absl::Status status = Usable(); !status.ok()) {
      return Ready<std::int64_t>(status);
    }
    return SendTickMessage(
        SessionPoseUpdate{.tick = tick, .poses = std::move(poses)});
  }

  std::future<absl::StatusOr<QueryResult>> SubmitQuery(Query query) {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    if (absl::Status status = Usable(); !status.ok()) {
      return Ready<QueryResult>(status);
    }
    PendingReply pending;
    pending.answer = PendingReply::Answer::kQuery;
    std::future<absl::StatusOr<QueryResult>> future =
        pending.query.get_future();
    Send(std::move(pending), std::move(query));
    return future;
  }

  std::future<absl::StatusOr<std::vector<BatchEntry>>> SubmitBatch(
      SessionBatch batch) {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    if (absl::Status status = Usable(); !status.ok()) {
      return Ready<std::vector<BatchEntry>>(status);
    }
    PendingReply pending;
    pending.answer = PendingReply::Answer::kBatch;
    pending.batch_size = batch.queries.size();
    std::future<absl::StatusOr<std::vector<BatchEntry>>> future =
        pending.batch.get_future();
    Send(std::move(pending), std::move(batch));
    return future;
  }

  std::future<absl::StatusOr<ValidateShotsResult>> SubmitShots(
      SessionShots shots) {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    if (absl::Status status = Usable(); !status.ok()) {
      return Ready<ValidateShotsResult>(status);
    }
    PendingReply pending;
    pending.answer = PendingReply::Answer::kShots;
    std::future<absl::StatusOr<ValidateShotsResult>> future =
        pending.shots.get_future();
    Send(std::move(pending), std::move(shots));
    return future;
  }

  std::future<absl::StatusOr<std::uint64_t>> WatchProximity(
      ProximityWatchStart start,
      std::function<void(const ProximityStreamEvent&)> on_event,
      std::function<void(const absl::Status&)> on_end) {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    if (absl::Status status = Usable(); !status.ok()) {
      return Ready<std::uint64_t>(status);
    }
    PendingReply pending;
    pending.answer = PendingReply::Answer::kWatch;
    std::future<absl::StatusOr<std::uint64_t>> future =
        pending.watch.get_future();
    {
      // In place before the message goes: what the watch pushes comes
      // right after its reply. A second watch is refused by the server and
      // leaves the first one as it is.
      std::lock_guard<std::mutex> lock(mutex_);
      if (!watch_.has_value()) {
        watch_ = Watch{.sequence = next_sequence_,
                       .on_event = std::move(on_event),
                       .on_end = std::move(on_end)};
      }
    }
    Send(std::move(pending), SessionWatchProximity{.start = start});
    return future;
  }

  absl::Status Close() {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    if (closed_) return close_status_;
    closed_ = true;
    if (stream_ == nullptr) return close_status_;
    bool open = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open = open_;
    }
    if (open) {
      {
        std::lock_guard<std::mutex> write(write_mutex_);
        stream_->WritesDone();
      }
      std::unique_lock<std::mutex> lock(mutex_);
      if (!reader_ended_.wait_for(
              lock, absl::ToChronoNanoseconds(options_.close_timeout),
              [this] { return reader_done_; })) {
        cancelled_by_close_ = true;
        lock.unlock();
        stream_->Cancel();
      }
    }
    JoinReader();
    std::lock_guard<std::mutex> lock(mutex_);
    close_status_ = last_stream_status_;
    return close_status_;
  }

  const std::string& scene_id() const { return scene_id_; }
  std::int64_t opened_tick() const {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    return opened_tick_;
  }
  int reopen_count() const {
    std::lock_guard<std::mutex> submit(submit_mutex_);
    return open_count_ > 0 ? open_count_ - 1 : 0;
  }

 private:
  template <typename T>
  static std::future<absl::StatusOr<T>> Ready(const absl::Status& status) {
    std::promise<absl::StatusOr<T>> promise;
    promise.set_value(status);
    return promise.get_future();
  }

  // Closed, or broken and not re-openable: the error. Holds submit_mutex_.
  absl::Status Usable() {
    if (closed_) {
      return absl::FailedPreconditionError(
          absl::StrCat("session on scene '", scene_id_, "' is closed"));
    }
    return EnsureOpen();
  }

  template <typename Message>
  std::future<absl::StatusOr<std::int64_t>> SendTickMessage(Message message) {
    PendingReply pending;
    std::future<absl::StatusOr<std::int64_t>> future =
        pending.tick.get_future();
    Send(std::move(pending), std::move(message));
    return future;
  }

  // Queues the reply slot, then writes. A failed write breaks the stream;
  // the reader then fails every waiting slot, this one included. Holds
  // submit_mutex_.
  template <typename Message>
  void Send(PendingReply pending, Message message) {
    const std::uint64_t sequence = next_sequence_++;
    pending.sequence = sequence;
    bool ended = false;
    {
      // open_ is checked again under the same lock as the push: the reader
      // may have ended the stream (and failed the slots waiting then) since
      // EnsureOpen looked, and a slot pushed after that would wait forever.
      std::lock_guard<std::mutex> lock(mutex_);
      if (open_) {
        waiting_.push_back(std::move(pending));
      } else {
        ended = true;
      }
    }
    if (ended) {
      // Not moved from: the push above runs only when the stream is open.
      pending.Fail(absl::UnavailableError(  // NOLINT(bugprone-use-after-move)
          "session stream ended before the message was sent"));
      return;
    }
    std::lock_guard<std::mutex> write(write_mutex_);
    stream_->Write(
        SessionRequest{.sequence = sequence, .kind = std::move(message)});
  }

  void ReadLoop(SessionStream* stream) {
    while (std::optional<SessionReply> reply = stream->Read()) {
      if (const auto* event = std::get_if<ProximityStreamEvent>(&reply->kind)) {
        // Pushed by the watch, not a reply; on_event is called on this
        // thread only, so it is read without the lock once set.
        std::function<void(const ProximityStreamEvent&)>* on_event = nullptr;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          if (watch_.has_value() && watch_->sequence == reply->sequence) {
            on_event = &watch_->on_event;
          }
        }
        if (on_event == nullptr) {
          protocol_error_ = absl::InternalError(
              absl::StrCat("session proximity message for no watch (sequence ",
                           reply->sequence, ")"));
          stream->Cancel();
          continue;
        }
        if (*on_event) (*on_event)(*event);
        continue;
      }
      std::optional<PendingReply> matched;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!waiting_.empty() && waiting_.front().sequence == reply->sequence) {
          matched = std::move(waiting_.front());
          waiting_.pop_front();
        }
        // A refused watch leaves no watch behind.
        if (matched.has_value() &&
            matched->answer == PendingReply::Answer::kWatch &&
            !reply->status.ok() && watch_.has_value() &&
            watch_->sequence == reply->sequence) {
          watch_.reset();
        }
      }
      if (!matched.has_value()) {
        // Out of order or unasked for: the stream cannot be trusted.
        protocol_error_ = absl::InternalError(absl::StrCat(
            "session reply with unexpected sequence ", reply->sequence));
        stream->Cancel();
        continue;
      }
      matched->Deliver(*reply);
    }
    absl::Status finished;
    {
      // gRPC's stream allows one reader and one writer at a time, and
      // Finish belongs with neither: never while a write is under way.
      std::lock_guard<std::mutex> write(write_mutex_);
      finished = stream->Finish();
    }
    std::deque<PendingReply> orphans;
    absl::Status orphan_status;
    std::optional<Watch> ended_watch;
    absl::Status ended_with;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      orphans.swap(waiting_);
      open_ = false;
      last_stream_status_ = protocol_error_.ok() ? finished : protocol_error_;
      orphan_status = OrphanStatus(last_stream_status_, cancelled_by_close_);
      ended_watch.swap(watch_);
      ended_with = last_stream_status_;
    }
    for (PendingReply& pending : orphans) pending.Fail(orphan_status);
    if (ended_watch.has_value() && ended_watch->on_end) {
      ended_watch->on_end(ended_with);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      reader_done_ = true;
    }
    reader_ended_.notify_all();
  }

  // What a message still waiting for its reply gets when the stream ends: a
  // refusal of the whole stream (NOT_FOUND for an unknown scene,
  // RESOURCE_EXHAUSTED for too many sessions...) as the server said it;
  // anything else (the server went away, drained, the network broke) as
  // UNAVAILABLE, which says "try again".
  static absl::Status OrphanStatus(const absl::Status& ended,
                                   bool cancelled_by_close) {
    if (cancelled_by_close) {
      return absl::CancelledError("session closed before the reply came");
    }
    if (!ended.ok() && ended.code() != absl::StatusCode::kUnavailable &&
        ended.code() != absl::StatusCode::kCancelled &&
        ended.code() != absl::StatusCode::kUnknown &&
        ended.code() != absl::StatusCode::kInternal) {
      return ended;
    }
    return absl::UnavailableError(absl::StrCat(
        "session stream ended before the reply: ", ended.ToString()));
  }

  void JoinReader() {
    if (reader_.joinable()) reader_.join();
  }

  const std::shared_ptr<Connection> connection_;
  const std::string scene_id_;
  const SessionOptions options_;

  mutable std::mutex submit_mutex_;
  std::unique_ptr<SessionStream> stream_;  // Replaced only with no reader.
  std::thread reader_;
  std::uint64_t next_sequence_ = 1;
  std::int64_t opened_tick_ = 0;
  int open_count_ = 0;
  bool closed_ = false;
  absl::Status close_status_;
  absl::Status protocol_error_;  // Reader thread only.

  // Held around every call that writes to the stream, and around Finish.
  std::mutex write_mutex_;

  std::mutex mutex_;
  std::condition_variable reader_ended_;
  std::deque<PendingReply> waiting_;
  // The proximity watch of the open stream, if any: its message's sequence
  // and callbacks.
  struct Watch {
    std::uint64_t sequence = 0;
    std::function<void(const ProximityStreamEvent&)> on_event;
    std::function<void(const absl::Status&)> on_end;
  };
  std::optional<Watch> watch_;
  bool open_ = false;
  bool reader_done_ = true;
  bool cancelled_by_close_ = false;
  absl::Status last_stream_status_;
};

absl::StatusOr<std::unique_ptr<Session>> Session::Open(
    std::shared_ptr<Connection> connection, const std::string& scene_id,
    const SessionOptions& options) {
  if (connection == nullptr) {
    return FieldError("connection", "null");
  }
  if (options.open_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "SessionOptions.open_timeout: must be positive");
  }
  if (options.close_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("SessionOptions.close_timeout: negative");
  }
  auto state =
      std::make_unique<SessionState>(std::move(connection), scene_id, options);
  if (absl::Status status = state->OpenForTheFirstTime(); !status.ok()) {
    return status;
  }
  return std::unique_ptr<Session>(new Session(std::move(state)));
}

Session::Session(std::unique_ptr<SessionState> state)
    : state_(std::move(state)) {}
Session::~Session() = default;

std::future<absl::StatusOr<std::int64_t>> Session::SubmitPoses(
    std::int64_t tick, PoseBatch poses) {
  return state_->SubmitPoses(tick, std::move(poses));
}

std::future<absl::StatusOr<QueryResult>> Session::SubmitQuery(Query query) {
  if (absl::Status valid = client_internal::CheckQuery(query, "query");
      !valid.ok()) {
    std::promise<absl::StatusOr<QueryResult>> refused;
    refused.set_value(std::move(valid));
    return refused.get_future();
  }
  return state_->SubmitQuery(std::move(query));
}

std::future<absl::StatusOr<std::vector<BatchEntry>>> Session::SubmitBatch(
    std::vector<Query> queries) {
  if (absl::Status valid = client_internal::CheckQueries(queries);
      !valid.ok()) {
    std::promise<absl::StatusOr<std::vector<BatchEntry>>> refused;
    refused.set_value(std::move(valid));
    return refused.get_future();
  }
  return state_->SubmitBatch(SessionBatch{.queries = std::move(queries)});
}

std::future<absl::StatusOr<ValidateShotsResult>> Session::SubmitShots(
    std::vector<Shot> shots, HitPolicy policy) {
  return state_->SubmitShots(
      SessionShots{.shots = std::move(shots), .policy = policy});
}

std::future<absl::StatusOr<std::uint64_t>> Session::WatchProximity(
    ProximityWatchStart start,
    std::function<void(const ProximityStreamEvent&)> on_event,
    std::function<void(const absl::Status&)> on_end) {
  return state_->WatchProximity(start, std::move(on_event), std::move(on_end));
}

absl::Status Session::Close() { return state_->Close(); }
const std::string& Session::scene_id() const { return state_->scene_id(); }
std::int64_t Session::opened_tick() const { return state_->opened_tick(); }
int Session::reopen_count() const { return state_->reopen_count(); }

}  // namespace sator
