// sator::Session against the real satord: pose updates, queries and batches
// interleaved on one stream with ordered replies; an error reply failing only
// its own future; an unknown scene refused with NOT_FOUND; and surviving a
// server restart: the query in flight when satord dies fails with
// UNAVAILABLE, and once a new satord serves the scene again on the same port,
// submissions work again on a re-opened stream.
#include <signal.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using client::Dimension;
using client::Query;
using client::QueryResult;
using client::Session;
using ::sator::testing::SatordProcess;

constexpr absl::Duration kWaitLimit = absl::Seconds(20);

Query PointAt(float x, float y) {
  return {.kind = client::PointQuery{.point = Vec2{x, y}}};
}

std::vector<std::uint64_t> Ids(const QueryResult& result) {
  std::vector<std::uint64_t> ids;
  for (const client::Hit& hit : result.hits) ids.push_back(hit.body_id);
  return ids;
}

// A 2D scene with one dynamic disc (id 5, radius 1) at the origin.
absl::Status MakeScene(Client& client, const std::string& scene_id) {
  absl::StatusOr<client::SceneInfo> created =
      client.CreateScene(scene_id, {.dimension = Dimension::k2D});
  if (!created.ok()) return created.status();
  return client
      .UpsertBodies(scene_id,
                    {{.id = 5, .shape = Circle{1.0f}, .pose = Pose2{}}})
      .status();
}

// Pings (retried by the client) until the server answers, for at most
// `limit`: a new satord on the same port is reachable again.
absl::Status WaitUntilReachable(Client& client, absl::Duration limit) {
  const absl::Time deadline = absl::Now() + limit;
  absl::Status last = absl::DeadlineExceededError("never tried");
  while (absl::Now() < deadline) {
    last = client.Ping("up?", {.deadline = absl::Seconds(2)}).status();
    if (last.ok()) return last;
  }
  return last;
}

class ClientSessionEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(satord_.Start({}).ok()) << satord_.ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = satord_.grpc_target()});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    ASSERT_TRUE(MakeScene(*client_, "arena").ok());
  }

  SatordProcess satord_;
  std::optional<Client> client_;
};

TEST_F(ClientSessionEndToEnd, InterleavesPosesAndQueriesInOrder) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      client_->OpenSession("arena");
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ((*session)->opened_tick(), 0);

  // Pipelined: every message is written before any reply is read.
  std::vector<std::future<absl::StatusOr<std::int64_t>>> ticks;
  std::vector<std::future<absl::StatusOr<QueryResult>>> queries;
  for (int tick = 1; tick <= 20; ++tick) {
    client::PoseBatch poses;
    poses.Add(5, Pose2{{static_cast<float>(tick), 0}, {}});
    ticks.push_back((*session)->SubmitPoses(tick, std::move(poses)));
    // The disc is now centred at x = tick: a point there hits it, and the
    // point where it was a tick ago (1 away, on its rim) no longer does
    // once it is 1.5 away.
    queries.push_back(
        (*session)->SubmitQuery(PointAt(static_cast<float>(tick), 0)));
    queries.push_back(
        (*session)->SubmitQuery(PointAt(static_cast<float>(tick) - 1.5f, 0)));
  }
  for (int i = 0; i < 20; ++i) {
    absl::StatusOr<std::int64_t> tick = ticks[i].get();
    ASSERT_TRUE(tick.ok()) << tick.status();
    EXPECT_EQ(*tick, i + 1);
    absl::StatusOr<QueryResult> on = queries[2 * i].get();
    absl::StatusOr<QueryResult> behind = queries[2 * i + 1].get();
    ASSERT_TRUE(on.ok() && behind.ok());
    EXPECT_EQ(on->tick, i + 1);
    EXPECT_THAT(Ids(*on), ::testing::ElementsAre(5u)) << "tick " << i + 1;
    EXPECT_TRUE(behind->hits.empty()) << "tick " << i + 1;
  }

  // A stale tick fails only its own reply.
  EXPECT_EQ((*session)->SubmitPoses(3, {}).get().status().code(),
            absl::StatusCode::kFailedPrecondition);
  // So does a query satord refuses, naming the field in a BadRequest.
  const absl::Status zero =
      (*session)
          ->SubmitQuery({.kind = client::RaycastQuery{.origin = Vec2{0, 0},
                                                      .direction = Vec2{0, 0},
                                                      .max_distance = 1}})
          .get()
          .status();
  EXPECT_EQ(zero.code(), absl::StatusCode::kInvalidArgument) << zero;
  EXPECT_TRUE(
      zero.GetPayload("type.googleapis.com/google.rpc.BadRequest").has_value());
  const std::vector<FieldViolation> violations = FieldViolations(zero);
  ASSERT_EQ(violations.size(), 1u) << zero;
  EXPECT_EQ(violations[0].field, "query.raycast.direction");
  EXPECT_EQ(violations[0].description, "zero length");
  absl::StatusOr<QueryResult> after =
      (*session)->SubmitQuery(PointAt(20, 0)).get();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_THAT(Ids(*after), ::testing::ElementsAre(5u));
  EXPECT_TRUE((*session)->Close().ok());
}

TEST_F(ClientSessionEndToEnd,
       ABatchAnswersEveryQueryAtTheTickOfThePosesBeforeIt) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      client_->OpenSession("arena");
  ASSERT_TRUE(session.ok()) << session.status();
  // Pipelined: the poses of ticks 1 and 2, each followed by a batch that
  // asks at the disc's new centre, where it was, and with a bad rewind.
  std::vector<std::future<absl::StatusOr<std::vector<client::BatchEntry>>>>
      batches;
  for (int tick = 1; tick <= 2; ++tick) {
    client::PoseBatch poses;
    poses.Add(5, Pose2{{3.0f * static_cast<float>(tick), 0}, {}});
    (void)(*session)->SubmitPoses(tick, std::move(poses));
    Query stale = PointAt(0, 0);
    stale.options.rewind = client::Rewind{.tick = 100};
    batches.push_back((*session)->SubmitBatch(
        {PointAt(3.0f * static_cast<float>(tick), 0),
         PointAt(3.0f * static_cast<float>(tick - 1), 0), stale}));
  }
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::vector<client::BatchEntry>> entries =
        batches[static_cast<std::size_t>(i)].get();
    ASSERT_TRUE(entries.ok()) << entries.status();
    ASSERT_EQ(entries->size(), 3u);
    ASSERT_TRUE((*entries)[0].ok()) << (*entries)[0].status();
    EXPECT_EQ((*entries)[0]->tick, i + 1);
    EXPECT_THAT(Ids(*(*entries)[0]), ::testing::ElementsAre(5u));
    ASSERT_TRUE((*entries)[1].ok()) << (*entries)[1].status();
    EXPECT_TRUE((*entries)[1]->hits.empty()) << "tick " << i + 1;
    EXPECT_EQ((*entries)[2].status().code(), absl::StatusCode::kOutOfRange);
  }
  // The client refuses a batch it can tell is wrong (a 2D ray with a 3D
  // direction) before sending, naming the query.
  const absl::Status mixed =
      (*session)
          ->SubmitBatch(
              {PointAt(0, 0),
               {.kind = client::RaycastQuery{.origin = Vec2{0, 0},
                                             .direction = Vec3{1, 0, 0},
                                             .max_distance = 1}}})
          .get()
          .status();
  EXPECT_EQ(mixed.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mixed.message()),
              ::testing::StartsWith("queries[1].raycast.direction"));
  EXPECT_TRUE((*session)->Close().ok());
}

TEST_F(ClientSessionEndToEnd, UnknownSceneIsNotFound) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      client_->OpenSession("nowhere");
  EXPECT_EQ(session.status().code(), absl::StatusCode::kNotFound)
      << session.status();
}

TEST_F(ClientSessionEndToEnd, SurvivesAServerRestart) {
  const int port = satord_.grpc_port();
  absl::StatusOr<std::unique_ptr<Session>> session =
      client_->OpenSession("arena");
  ASSERT_TRUE(session.ok()) << session.status();
  absl::StatusOr<QueryResult> before =
      (*session)->SubmitQuery(PointAt(0, 0)).get();
  ASSERT_TRUE(before.ok()) << before.status();

  // Freeze satord so the next query is surely in flight, then kill it.
  ASSERT_TRUE(satord_.Stop().ok());
  std::future<absl::StatusOr<QueryResult>> in_flight =
      (*session)->SubmitQuery(PointAt(0, 0));
  ASSERT_TRUE(satord_.Signal(SIGKILL).ok());
  ASSERT_TRUE(satord_.WaitForExit(kWaitLimit).ok());
  ASSERT_EQ(in_flight.wait_for(absl::ToChronoNanoseconds(kWaitLimit)),
            std::future_status::ready);
  EXPECT_EQ(in_flight.get().status().code(), absl::StatusCode::kUnavailable);

  // A new satord on the same port; its scenes start empty, so the game
  // server creates the scene again.
  SatordProcess restarted;
  ASSERT_TRUE(
      restarted.Start({absl::StrCat("--grpc_address=127.0.0.1:", port)}).ok())
      << restarted.ReadLog();
  ASSERT_TRUE(WaitUntilReachable(*client_, kWaitLimit).ok());
  ASSERT_TRUE(MakeScene(*client_, "arena").ok());

  // The next submission re-opens the stream and is answered.
  absl::StatusOr<QueryResult> again =
      (*session)->SubmitQuery(PointAt(0, 0)).get();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_THAT(Ids(*again), ::testing::ElementsAre(5u));
  EXPECT_EQ((*session)->reopen_count(), 1);
  client::PoseBatch poses;
  poses.Add(5, Pose2{{4, 0}, {}});
  absl::StatusOr<std::int64_t> tick =
      (*session)->SubmitPoses(1, std::move(poses)).get();
  ASSERT_TRUE(tick.ok()) << tick.status();
  EXPECT_EQ(*tick, 1);
}

}  // namespace
}  // namespace sator
