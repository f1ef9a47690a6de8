// sator::Session over an in-memory fake stream (no gRPC): replies
// matched to futures in order, an error failing only its own future, a broken
// stream failing what is in flight with UNAVAILABLE and re-opening on the next
// submission, a clean close, and submissions from several threads.
#include "sator/client/session.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/mocks/mock_connection.h"

namespace sator {
namespace {

using ::testing::_;

// A stream with a tiny scene server behind it: scene "arena" exists at tick
// 10; pose updates must not go back in time; a query answers with the
// scene's tick and one hit whose body id is the request's sequence number.
class FakeStream final : public SessionStream {
 public:
  struct Shared {
    std::mutex mutex;
    std::vector<std::uint64_t> sequences;  // Every message written.
    bool hold_query_replies = false;
    int writes_done = 0;
    int cancels = 0;
  };

  explicit FakeStream(std::shared_ptr<Shared> shared)
      : shared_(std::move(shared)) {}

  bool Write(const SessionRequest& request) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ended_) return false;
    {
      std::lock_guard<std::mutex> shared_lock(shared_->mutex);
      shared_->sequences.push_back(request.sequence);
    }
    SessionReply reply{.sequence = request.sequence};
    if (const auto* open = std::get_if<SessionOpen>(&request.kind)) {
      if (open->scene_id == "arena") {
        reply.kind = SessionOpened{.current_tick = tick_};
      } else if (open->scene_id == "refused") {
        // As satord does for an unknown scene: no reply, the stream ends.
        ended_ = true;
        finish_status_ =
            absl::NotFoundError("open.scene_id: no scene 'refused'");
        ready_.notify_all();
        return true;
      } else {
        reply.status = absl::NotFoundError(
            absl::StrCat("scene '", open->scene_id, "' not found"));
      }
    } else if (const auto* poses =
                   std::get_if<SessionPoseUpdate>(&request.kind)) {
      if (poses->tick < tick_) {
        reply.status = absl::FailedPreconditionError("tick: stale");
      } else {
        tick_ = poses->tick;
        reply.kind = SessionPosesApplied{.current_tick = tick_};
      }
    } else {
      QueryResult result;
      result.tick = tick_;
      result.hits.push_back({.body_id = request.sequence});
      reply.kind = std::move(result);
      bool hold = false;
      {
        std::lock_guard<std::mutex> shared_lock(shared_->mutex);
        hold = shared_->hold_query_replies;
      }
      if (hold || !held_.empty()) {
        held_.push_back(std::move(reply));
        return true;
      }
    }
    replies_.push_back(std::move(reply));
    ready_.notify_all();
    return true;
  }

  bool WritesDone() override {
    std::lock_guard<std::mutex> lock(mutex_);
    {
      std::lock_guard<std::mutex> shared_lock(shared_->mutex);
      ++shared_->writes_done;
    }
    // The server answers what it holds, then ends the stream cleanly.
    for (SessionReply& reply : held_) replies_.push_back(std::move(reply));
    held_.clear();
    ended_ = true;
    ready_.notify_all();
    return true;
  }

  std::optional<SessionReply> Read() override {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return !replies_.empty() || ended_; });
    if (replies_.empty()) return std::nullopt;
    SessionReply reply = std::move(replies_.front());
    replies_.pop_front();
    return reply;
  }

  absl::Status Finish() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return finish_status_;
  }

  void Cancel() override {
    {
      std::lock_guard<std::mutex> shared_lock(shared_->mutex);
      ++shared_->cancels;
    }
    Break(absl::CancelledError("cancelled"));
  }

  // The server went away: held replies are lost.
  void Break(const absl::Status& status) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ended_ && !finish_status_.ok()) return;
    held_.clear();
    replies_.clear();
    ended_ = true;
    finish_status_ = status;
    ready_.notify_all();
  }

 private:
  std::shared_ptr<Shared> shared_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<SessionReply> replies_;
  std::vector<SessionReply> held_;
  bool ended_ = false;
  absl::Status finish_status_;
  std::int64_t tick_ = 10;
};

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    connection_ = std::make_shared<::testing::NiceMock<MockConnection>>();
    ON_CALL(*connection_, OpenSession(_))
        .WillByDefault([this](const std::string&) {
          auto stream = std::make_unique<FakeStream>(shared_);
          std::lock_guard<std::mutex> lock(shared_->mutex);
          streams_.push_back(stream.get());
          return absl::StatusOr<std::unique_ptr<SessionStream>>(
              std::move(stream));
        });
  }

  FakeStream* LastStream() {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    return streams_.back();
  }

  void HoldQueryReplies(bool hold) {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->hold_query_replies = hold;
  }

  std::unique_ptr<Session> OpenArena() {
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Open(connection_, "arena");
    EXPECT_TRUE(session.ok()) << session.status();
    return session.ok() ? *std::move(session) : nullptr;
  }

  std::shared_ptr<FakeStream::Shared> shared_ =
      std::make_shared<FakeStream::Shared>();
  std::vector<FakeStream*> streams_;
  std::shared_ptr<::testing::NiceMock<MockConnection>> connection_;
};

Query PointAt(float x) { return {.kind = PointQuery{.point = Vec2{x, 0}}}; }

TEST_F(SessionTest, OpensThenAnswersPosesAndQueriesInOrder) {
  EXPECT_CALL(*connection_, OpenSession("arena")).Times(1);
  std::unique_ptr<Session> session = OpenArena();
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->scene_id(), "arena");
  EXPECT_EQ(session->opened_tick(), 10);

  PoseBatch poses;
  poses.Add(1, Pose2{{1, 2}, {}});
  std::future<absl::StatusOr<std::int64_t>> applied =
      session->SubmitPoses(11, std::move(poses));
  std::future<absl::StatusOr<QueryResult>> first =
      session->SubmitQuery(PointAt(0));
  std::future<absl::StatusOr<QueryResult>> second =
      session->SubmitQuery(PointAt(1));

  absl::StatusOr<std::int64_t> tick = applied.get();
  ASSERT_TRUE(tick.ok()) << tick.status();
  EXPECT_EQ(*tick, 11);
  absl::StatusOr<QueryResult> a = first.get();
  absl::StatusOr<QueryResult> b = second.get();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->tick, 11);
  // Each future got the reply to its own message (the fake echoes sequences).
  ASSERT_EQ(a->hits.size(), 1u);
  ASSERT_EQ(b->hits.size(), 1u);
  EXPECT_LT(a->hits[0].body_id, b->hits[0].body_id);
  std::lock_guard<std::mutex> lock(shared_->mutex);
  EXPECT_THAT(shared_->sequences, ::testing::ElementsAre(1, 2, 3, 4));
}

TEST_F(SessionTest, AnErrorReplyFailsOnlyItsOwnFuture) {
  std::unique_ptr<Session> session = OpenArena();
  ASSERT_NE(session, nullptr);
  absl::StatusOr<std::int64_t> stale = session->SubmitPoses(3, {}).get();
  EXPECT_EQ(stale.status(), absl::FailedPreconditionError("tick: stale"));
  absl::StatusOr<QueryResult> after = session->SubmitQuery(PointAt(0)).get();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->tick, 10);
  EXPECT_EQ(session->reopen_count(), 0);
}

TEST_F(SessionTest, OpeningAnUnknownSceneFailsWithTheServersStatus) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Open(connection_, "nowhere");
  EXPECT_EQ(session.status(), absl::NotFoundError("scene 'nowhere' not found"));
}

TEST_F(SessionTest, OpeningFailsWithTheStatusTheServerEndedTheStreamWith) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Open(connection_, "refused");
  EXPECT_EQ(session.status(),
            absl::NotFoundError("open.scene_id: no scene 'refused'"));
}

TEST_F(SessionTest, BrokenStreamFailsInFlightRepliesThenReopens) {
  EXPECT_CALL(*connection_, OpenSession("arena")).Times(2);
  std::unique_ptr<Session> session = OpenArena();
  ASSERT_NE(session, nullptr);
  HoldQueryReplies(true);
  std::future<absl::StatusOr<QueryResult>> in_flight =
      session->SubmitQuery(PointAt(0));
  LastStream()->Break(absl::UnavailableError("server restarted"));
  absl::StatusOr<QueryResult> lost = in_flight.get();
  EXPECT_EQ(lost.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(lost.status().message(),
              ::testing::HasSubstr("server restarted"));

  HoldQueryReplies(false);
  absl::StatusOr<QueryResult> again = session->SubmitQuery(PointAt(1)).get();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(session->reopen_count(), 1);
}

TEST_F(SessionTest, ReopenFailureFailsTheSubmissionAndALaterOneSucceeds) {
  std::unique_ptr<Session> session = OpenArena();
  ASSERT_NE(session, nullptr);
  EXPECT_CALL(*connection_, OpenSession("arena"))
      .WillOnce([](const std::string&) {
        return absl::StatusOr<std::unique_ptr<SessionStream>>(
            absl::UnavailableError("connection refused"));
      })
      .WillRepeatedly([this](const std::string&) {
        return absl::StatusOr<std::unique_ptr<SessionStream>>(
            std::make_unique<FakeStream>(shared_));
      });
  LastStream()->Break(absl::UnavailableError("server gone"));
  // Submissions fail with UNAVAILABLE until the session has noticed the
  // break; then one tries to re-open and gets the connection's error.
  absl::StatusOr<QueryResult> refused = absl::UnknownError("not tried");
  for (int i = 0;
       i < 10000 && refused.status().message() != "connection refused"; ++i) {
    refused = session->SubmitQuery(PointAt(0)).get();
    ASSERT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
  }
  EXPECT_EQ(refused.status(), absl::UnavailableError("connection refused"));
  absl::StatusOr<QueryResult> later = session->SubmitQuery(PointAt(0)).get();
  EXPECT_TRUE(later.ok()) << later.status();
}

TEST_F(SessionTest, DestructorHalfClosesAndLetsTheServerAnswer) {
  std::future<absl::StatusOr<QueryResult>> answered;
  {
    std::unique_ptr<Session> session = OpenArena();
    ASSERT_NE(session, nullptr);
    HoldQueryReplies(true);
    answered = session->SubmitQuery(PointAt(0));
  }
  absl::StatusOr<QueryResult> result = answered.get();
  EXPECT_TRUE(result.ok()) << result.status();
  std::lock_guard<std::mutex> lock(shared_->mutex);
  EXPECT_EQ(shared_->writes_done, 1);
  EXPECT_EQ(shared_->cancels, 0);
}

TEST_F(SessionTest, SubmissionsAfterCloseFail) {
  std::unique_ptr<Session> session = OpenArena();
  ASSERT_NE(session, nullptr);
  EXPECT_TRUE(session->Close().ok());
  EXPECT_TRUE(session->Close().ok());  // Idempotent.
  EXPECT_EQ(session->SubmitQuery(PointAt(0)).get().status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(session->SubmitPoses(11, {}).get().status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(SessionTest, ManyThreadsSubmitAndEveryFutureGetsItsOwnReply) {
  std::unique_ptr<Session> session = OpenArena();
  ASSERT_NE(session, nullptr);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 100;
  std::vector<std::thread> threads;
  std::vector<std::vector<std::uint64_t>> ids(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        absl::StatusOr<QueryResult> result =
            session->SubmitQuery(PointAt(static_cast<float>(i))).get();
        if (result.ok() && result->hits.size() == 1) {
          ids[t].push_back(result->hits[0].body_id);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<std::uint64_t> all;
  for (const auto& list : ids) {
    EXPECT_EQ(list.size(), static_cast<std::size_t>(kPerThread));
    all.insert(list.begin(), list.end());
  }
  // Every reply went to exactly one future.
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPerThread));
}

}  // namespace
}  // namespace sator
