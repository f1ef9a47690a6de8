// How a game server unit-tests its own code against sator::Client without a
// server: a MockConnection under a real Client. The "game code" here is a
// shot validator (a raycast rewound to the shooter's view, excluding the
// shooter); the other tests pin down what the Client adds on top of the
// connection: defaults, rewind overrides, retries only for idempotent
// calls (on a fake clock: no test sleeps), paging, futures, and the typed
// pair queries.
#include "sator/client/mocks/mock_connection.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client_factory.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "retry_loop.h"
#include "sator/client/client.h"
#include "sator/client/clock.h"

namespace sator {
namespace {

using client::CallContext;
using client::MockConnection;
using client::QueryOptions;
using client::QueryResult;
using ::testing::_;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::Optional;
using ::testing::Return;

// ---- The game code under test ----------------------------------------------

struct Shot {
  std::uint64_t shooter = 0;
  Vec3 origin{};
  Vec3 direction{};
  // The tick and fraction the shooter saw when firing.
  std::int64_t view_tick = 0;
  float view_fraction = 0.0f;
};

// The body the shot hit, nullopt for a miss.
absl::StatusOr<std::optional<std::uint64_t>> ValidateShot(
    Client& client, const std::string& arena, const Shot& shot) {
  QueryOptions options;
  options.mode = client::ResultMode::kClosest;
  options.filter.exclude_body_ids = {shot.shooter};
  absl::StatusOr<QueryResult> result = client.Raycast(
      arena,
      {.origin = shot.origin, .direction = shot.direction, .max_distance = 100},
      options,
      {.rewind = client::Rewind{.tick = shot.view_tick,
                                .fraction = shot.view_fraction}});
  if (!result.ok()) return result.status();
  if (result->hits.empty()) return std::nullopt;
  return result->hits.front().body_id;
}

// ---- Helpers
// -----------------------------------------------------------------

// The client's retry environment in these tests: the public FakeClock (no
// test sleeps; it records every sleep), with the jitter fixed at half of each
// backoff ceiling so that the sleeps are exact.
class FakeRetryClock {
 public:
  absl::Time Now() { return clock_.Now(); }
  std::vector<absl::Duration> sleeps() { return clock_.sleeps(); }

  client_internal::RetryEnvironment Environment() {
    return {.now = [this] { return clock_.Now(); },
            .sleep = [this](absl::Duration delay) { clock_.SleepFor(delay); },
            .uniform01 = [] { return 0.5; }};
  }

 private:
  FakeClock clock_{absl::FromUnixSeconds(1000)};
};

// Three attempts, backoff ceilings of 100 ms then 200 ms (half of each slept,
// on the fake clock).
ClientOptions ThreeAttempts() {
  ClientOptions options;
  options.retry = {.max_attempts = 3,
                   .initial_backoff = absl::Milliseconds(100),
                   .max_backoff = absl::Seconds(1)};
  return options;
}

// A client over `mock` whose retries run on `clock` (which must outlive it).
std::unique_ptr<Client> MakeClient(std::shared_ptr<MockConnection> mock,
                                   const ClientOptions& options,
                                   FakeRetryClock& clock) {
  Client client = client_internal::ClientFactory::Make(std::move(mock), options,
                                                       clock.Environment());
  EXPECT_TRUE(client.status().ok()) << client.status();
  return std::make_unique<Client>(std::move(client));
}

std::unique_ptr<Client> MakeClient(std::shared_ptr<MockConnection> mock,
                                   const ClientOptions& options = {}) {
  static FakeRetryClock* const clock = new FakeRetryClock;
  return MakeClient(std::move(mock), options, *clock);
}

QueryResult HitOn(std::uint64_t body_id, std::int64_t tick) {
  QueryResult result;
  result.tick = tick;
  result.hits.push_back({.body_id = body_id, .distance = 12.5f});
  return result;
}

// ---- Tests
// ---------------------------------------------------------------------

TEST(MockConnection, ShotValidatorRewindsToTheShootersViewAndSkipsTheShooter) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(
      *mock,
      Raycast(
          "arena-1", _,
          AllOf(Field(&QueryOptions::rewind,
                      Optional(AllOf(Field(&client::Rewind::tick, 40),
                                     Field(&client::Rewind::fraction, 0.25f)))),
                Field(&QueryOptions::mode, client::ResultMode::kClosest),
                Field(&QueryOptions::filter,
                      Field(&client::QueryFilter::exclude_body_ids,
                            ElementsAre(7u)))),
          _))
      .WillOnce(Return(HitOn(/*body_id=*/9, /*tick=*/40)));
  std::unique_ptr<Client> client = MakeClient(mock);

  absl::StatusOr<std::optional<std::uint64_t>> victim =
      ValidateShot(*client, "arena-1",
                   {.shooter = 7,
                    .origin = {0, 1, 0},
                    .direction = {1, 0, 0},
                    .view_tick = 40,
                    .view_fraction = 0.25f});
  ASSERT_TRUE(victim.ok()) << victim.status();
  EXPECT_THAT(*victim, Optional(9u));
}

TEST(MockConnection, ShotValidatorReportsAMissAndPassesErrorsThrough) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(*mock, Raycast("arena-1", _, _, _))
      .WillOnce(Return(QueryResult{.tick = 40}))
      .WillOnce(Return(absl::OutOfRangeError("rewind.tick: 40 is older than "
                                             "the history (oldest 64)")));
  std::unique_ptr<Client> client = MakeClient(mock);
  const Shot shot{.shooter = 7, .direction = {1, 0, 0}, .view_tick = 40};

  absl::StatusOr<std::optional<std::uint64_t>> miss =
      ValidateShot(*client, "arena-1", shot);
  ASSERT_TRUE(miss.ok());
  EXPECT_EQ(*miss, std::nullopt);

  absl::StatusOr<std::optional<std::uint64_t>> stale =
      ValidateShot(*client, "arena-1", shot);
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(stale.status().message(),
            "rewind.tick: 40 is older than the history (oldest 64)");
}

TEST(MockConnection, EveryAttemptCarriesTheDefaultDeadline) {
  auto mock = std::make_shared<MockConnection>();
  absl::Time seen = absl::InfinitePast();
  EXPECT_CALL(*mock, GetScene("s", _))
      .WillOnce([&](const std::string&, const CallContext& context) {
        seen = context.deadline;
        return client::SceneInfo{.scene_id = "s"};
      });
  ClientOptions options;
  options.default_deadline = absl::Seconds(7);
  FakeRetryClock clock;
  std::unique_ptr<Client> client = MakeClient(mock, options, clock);
  ASSERT_TRUE(client->GetScene("s").ok());
  EXPECT_EQ(seen, clock.Now() + absl::Seconds(7));
}

TEST(MockConnection, QueriesAreRetriedOnUnavailable) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(*mock, Overlap("s", _, _, _))
      .WillOnce(Return(absl::UnavailableError("connection refused")))
      .WillOnce(Return(HitOn(3, 1)));
  FakeRetryClock clock;
  std::unique_ptr<Client> client = MakeClient(mock, ThreeAttempts(), clock);
  absl::StatusOr<QueryResult> result =
      client->Overlap("s", {.shape = Sphere{1.0f}, .pose = Pose3{}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->hits.size(), 1u);
  EXPECT_THAT(clock.sleeps(), ElementsAre(absl::Milliseconds(50)));
}

TEST(MockConnection, MutationsAreNeverRetried) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(*mock, UpsertBodies("s", _, _))
      .WillOnce(Return(absl::UnavailableError("connection reset")));
  EXPECT_CALL(*mock, RemoveBodies("s", _, _))
      .WillOnce(Return(absl::UnavailableError("connection reset")));
  EXPECT_CALL(*mock, UpdatePoses("s", 5, _, _))
      .WillOnce(Return(absl::UnavailableError("connection reset")));
  EXPECT_CALL(*mock, CreateScene("s", _, _))
      .WillOnce(Return(absl::UnavailableError("connection reset")));
  EXPECT_CALL(*mock, DeleteScene("s", _))
      .WillOnce(Return(absl::UnavailableError("connection reset")));
  EXPECT_CALL(*mock, ImportScene(_, _))
      .WillOnce(Return(absl::UnavailableError("connection reset")));
  FakeRetryClock clock;
  std::unique_ptr<Client> client = MakeClient(mock, ThreeAttempts(), clock);

  const std::vector<client::Body> bodies = {
      {.id = 1, .shape = Sphere{1.0f}, .pose = Pose3{}}};
  EXPECT_EQ(client->UpsertBodies("s", bodies).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(client->RemoveBodies("s", {1}).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(client->UpdatePoses("s", 5, {}).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(client->CreateScene("s", {}).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(client->DeleteScene("s").code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(client->ImportScene({.scene_id = "s"}).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST(MockConnection, IdempotentReadsAreRetriedUpToTheAttemptLimit) {
  auto mock = std::make_shared<MockConnection>();
  const absl::Status down = absl::UnavailableError("draining");
  EXPECT_CALL(*mock, Ping(_, _)).Times(3).WillRepeatedly(Return(down));
  EXPECT_CALL(*mock, GetScene(_, _)).Times(3).WillRepeatedly(Return(down));
  EXPECT_CALL(*mock, ListScenes(_, _, _)).Times(3).WillRepeatedly(Return(down));
  EXPECT_CALL(*mock, ExportScene(_, _)).Times(3).WillRepeatedly(Return(down));
  EXPECT_CALL(*mock, QueryBatch(_, _, _)).Times(3).WillRepeatedly(Return(down));
  EXPECT_CALL(*mock, PairQuery(_, _)).Times(3).WillRepeatedly(Return(down));
  EXPECT_CALL(*mock, RaycastBatch(_, _, _, _))
      .Times(3)
      .WillRepeatedly(Return(down));
  FakeRetryClock clock;
  std::unique_ptr<Client> client = MakeClient(mock, ThreeAttempts(), clock);
  EXPECT_EQ(client->Ping("x").status(), down);
  EXPECT_EQ(client->GetScene("s").status(), down);
  EXPECT_EQ(client->ListScenes().status(), down);
  EXPECT_EQ(client->ExportScene("s").status(), down);
  EXPECT_EQ(client->QueryBatch("s", {}).status(), down);
  EXPECT_EQ(client->PairQuery({}).status(), down);
  EXPECT_EQ(client->RaycastBatch("s", {}).status(), down);
  // Two sleeps per call (half of 100 ms, half of 200 ms), none of them real.
  const std::vector<absl::Duration> sleeps = clock.sleeps();
  ASSERT_EQ(sleeps.size(), 14u);
  for (std::size_t i = 0; i < sleeps.size(); ++i) {
    EXPECT_EQ(sleeps[i], absl::Milliseconds(i % 2 == 0 ? 50 : 100)) << i;
  }
}

TEST(MockConnection, OneAttemptWhenRetriesAreOff) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(*mock, PointQuery(_, _, _, _))
      .WillOnce(Return(absl::UnavailableError("down")));
  ClientOptions options;
  options.retry.max_attempts = 1;
  FakeRetryClock clock;
  std::unique_ptr<Client> client = MakeClient(mock, options, clock);
  EXPECT_EQ(client->PointQuery("s", {.point = Vec2{1, 2}}).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_TRUE(clock.sleeps().empty());
}

// A shed (RESOURCE_EXHAUSTED with a retry-after) is retried after exactly
// the retry-after; a hard limit (none) is not.
TEST(MockConnection, AShedIsRetriedAfterItsRetryAfterAndAHardLimitIsNot) {
  auto mock = std::make_shared<MockConnection>();
  absl::Status shed = absl::ResourceExhaustedError("shed");
  client::SetRetryAfter(shed, absl::Milliseconds(700));
  EXPECT_CALL(*mock, GetScene("busy", _))
      .WillOnce(Return(shed))
      .WillOnce(Return(client::SceneInfo{.scene_id = "busy"}));
  EXPECT_CALL(*mock, GetScene("huge", _))
      .WillOnce(Return(absl::ResourceExhaustedError("over the limit")));
  FakeRetryClock clock;
  std::unique_ptr<Client> client = MakeClient(mock, ThreeAttempts(), clock);
  EXPECT_TRUE(client->GetScene("busy").ok());
  EXPECT_EQ(client->GetScene("huge").status(),
            absl::ResourceExhaustedError("over the limit"));
  EXPECT_THAT(clock.sleeps(), ElementsAre(absl::Milliseconds(700)));
}

// Through the public options only: a FakeClock in ClientOptions.
TEST(MockConnection, AFakeClockRunsTheRetriesWithoutWaiting) {
  auto mock = std::make_shared<MockConnection>();
  absl::Status shed = absl::ResourceExhaustedError("shed");
  client::SetRetryAfter(shed, absl::Minutes(20));
  EXPECT_CALL(*mock, GetScene("busy", _))
      .WillOnce(Return(shed))
      .WillOnce(Return(shed))
      .WillOnce(Return(client::SceneInfo{.scene_id = "busy"}));
  const absl::Time start = absl::FromUnixSeconds(5000);
  auto clock = std::make_shared<FakeClock>(start);
  ClientOptions options;
  options.default_deadline = absl::Hours(1);
  options.clock = clock;
  Client client(mock, options);
  ASSERT_TRUE(client.GetScene("busy").ok());
  EXPECT_THAT(clock->sleeps(),
              ElementsAre(absl::Minutes(20), absl::Minutes(20)));
  EXPECT_EQ(clock->Now(), start + absl::Minutes(40));
}

TEST(MockConnection, AFakeClockDeadlineEndsTheRetries) {
  auto mock = std::make_shared<MockConnection>();
  absl::Status shed = absl::ResourceExhaustedError("shed");
  client::SetRetryAfter(shed, absl::Minutes(20));
  absl::Time deadline = absl::InfinitePast();
  EXPECT_CALL(*mock, GetScene("busy", _))
      .WillOnce([&](const std::string&, const CallContext& context) {
        deadline = context.deadline;
        return shed;
      });
  auto clock = std::make_shared<FakeClock>();
  clock->Advance(absl::Hours(3));
  ClientOptions options;
  options.default_deadline = absl::Minutes(10);
  options.clock = clock;
  Client client(mock, options);
  EXPECT_EQ(client.GetScene("busy").status(), shed);
  EXPECT_EQ(deadline, absl::UnixEpoch() + absl::Hours(3) + absl::Minutes(10));
  EXPECT_TRUE(clock->sleeps().empty());
}

TEST(MockConnection, AClockIsRefusedWhereTheConnectionKeepsRealTime) {
  ClientOptions options;
  options.target = "127.0.0.1:1";
  options.clock = std::make_shared<FakeClock>();
  Client client(options);
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(client.Ping("x").status().message(),
              testing::HasSubstr("ClientOptions.clock"));
}

TEST(MockConnection, BadCallOptionsAreRefusedBeforeAnyCall) {
  auto mock = std::make_shared<MockConnection>();
  std::unique_ptr<Client> client = MakeClient(mock);
  EXPECT_EQ(
      client->GetScene("s", {.deadline = absl::ZeroDuration()}).status(),
      absl::InvalidArgumentError("CallOptions.deadline: must be positive"));
}

TEST(MockConnection, BatchRewindOverrideReachesEveryQuery) {
  auto mock = std::make_shared<MockConnection>();
  std::vector<client::Query> sent;
  EXPECT_CALL(*mock, QueryBatch("s", _, _))
      .WillOnce([&](const std::string&, const std::vector<client::Query>& q,
                    const CallContext&) {
        sent = q;
        return std::vector<client::BatchEntry>{
            HitOn(1, 3), absl::InvalidArgumentError("queries[1].x: bad")};
      });
  std::unique_ptr<Client> client = MakeClient(mock);
  absl::StatusOr<std::vector<client::BatchEntry>> entries = client->QueryBatch(
      "s",
      {{.kind = client::PointQuery{.point = Vec2{0, 0}}},
       {.kind = client::RaycastQuery{.origin = Vec2{0, 0},
                                     .direction = Vec2{1, 0},
                                     .max_distance = 5}}},
      {.rewind = client::Rewind{.tick = 3, .fraction = 0.5f}});
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(sent.size(), 2u);
  for (const client::Query& query : sent) {
    ASSERT_TRUE(query.options.rewind.has_value());
    EXPECT_EQ(query.options.rewind->tick, 3);
    EXPECT_EQ(query.options.rewind->fraction, 0.5f);
  }
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_TRUE((*entries)[0].ok());
  EXPECT_EQ((*entries)[1].status().message(), "queries[1].x: bad");
}

TEST(MockConnection, ListAllScenesWalksEveryPageThenStops) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(*mock, ListScenes(2, "", _))
      .WillOnce(Return(client::ListScenesPage{
          .scenes = {{.scene_id = "a"}, {.scene_id = "b"}},
          .next_page_token = "after-b"}));
  EXPECT_CALL(*mock, ListScenes(2, "after-b", _))
      .WillOnce(Return(client::ListScenesPage{.scenes = {{.scene_id = "c"}}}));
  std::unique_ptr<Client> client = MakeClient(mock);
  std::vector<std::string> ids;
  for (const absl::StatusOr<client::SceneInfo>& scene :
       client->ListAllScenes(2)) {
    ASSERT_TRUE(scene.ok()) << scene.status();
    ids.push_back(scene->scene_id);
  }
  EXPECT_THAT(ids, ElementsAre("a", "b", "c"));
}

TEST(MockConnection, ListAllScenesEndsWithTheErrorOfAFailedPage) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(*mock, ListScenes(0, "", _))
      .WillOnce(Return(client::ListScenesPage{.scenes = {{.scene_id = "a"}},
                                              .next_page_token = "t"}));
  EXPECT_CALL(*mock, ListScenes(0, "t", _))
      .WillOnce(Return(absl::InvalidArgumentError("page_token: stale")));
  std::unique_ptr<Client> client = MakeClient(mock);
  std::vector<absl::StatusOr<client::SceneInfo>> seen;
  for (const absl::StatusOr<client::SceneInfo>& scene :
       client->ListAllScenes()) {
    seen.push_back(scene);
  }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0]->scene_id, "a");
  EXPECT_EQ(seen[1].status(), absl::InvalidArgumentError("page_token: stale"));
}

TEST(MockConnection, AsyncCallsDeliverThroughFutures) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(*mock, Sweep("s", _, _, _)).WillOnce(Return(HitOn(4, 9)));
  EXPECT_CALL(*mock, DeleteScene("gone", _))
      .WillOnce(Return(absl::NotFoundError("scene 'gone' not found")));
  std::unique_ptr<Client> client = MakeClient(mock);
  std::future<absl::StatusOr<QueryResult>> sweep = client->AsyncSweep(
      "s",
      {.shape = Circle{0.5f}, .pose = Pose2{}, .displacement = Vec2{1, 0}});
  std::future<absl::Status> deleted = client->AsyncDeleteScene("gone");
  absl::StatusOr<QueryResult> result = sweep.get();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->tick, 9);
  EXPECT_EQ(deleted.get().code(), absl::StatusCode::kNotFound);
}

TEST(MockConnection, AClientIsAPlainObjectOverItsConnection) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(*mock, Raycast("arena", _, _, _)).WillOnce(Return(HitOn(4, 9)));
  Client client(mock);
  EXPECT_TRUE(client.status().ok());
  absl::StatusOr<QueryResult> result = client.Raycast(
      "arena",
      {.origin = {0, 1, 0}, .direction = {0, 0, 1}, .max_distance = 5});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->hits.front().body_id, 4u);
}

TEST(MockConnection, ABadOptionFailsEveryCallNamingIt) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(*mock, Ping(_, _)).Times(0);
  Client client(mock, {.default_deadline = absl::ZeroDuration()});
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  absl::Status ping = client.Ping("x").status();
  EXPECT_EQ(ping.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ping.message(), testing::HasSubstr("default_deadline"));
  EXPECT_EQ(Client::Make(mock, {.default_deadline = absl::ZeroDuration()})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Client(std::shared_ptr<Connection>()).Ping("x").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MockConnection, BracedVectorsTakeTheirDimensionFromTheirLength) {
  auto mock = std::make_shared<MockConnection>();
  std::vector<RaycastQuery> sent;
  EXPECT_CALL(*mock, Raycast("arena", _, _, _))
      .Times(2)
      .WillRepeatedly([&](const std::string&, const RaycastQuery& query,
                          const QueryOptions&, const CallContext&) {
        sent.push_back(query);
        return QueryResult{};
      });
  Client client(mock);
  ASSERT_TRUE(
      client.Raycast("arena", {.origin = {0, 1, 2}, .direction = {0, 0, 1}})
          .ok());
  ASSERT_TRUE(
      client.Raycast("arena", {.origin = {3, 4}, .direction = {1, 0}}).ok());
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(std::get<Vec3>(sent[0].origin), (Vec3{0, 1, 2}));
  EXPECT_EQ(std::get<Vec2>(sent[1].origin), (Vec2{3, 4}));
  EXPECT_EQ(sent[1].direction.dimension(), 2);
}

TEST(MockConnection, MixedDimensionsAreRefusedBeforeAnythingIsSent) {
  auto mock = std::make_shared<MockConnection>();
  EXPECT_CALL(*mock, Raycast(_, _, _, _)).Times(0);
  EXPECT_CALL(*mock, UpsertBodies(_, _, _)).Times(0);
  EXPECT_CALL(*mock, QueryBatch(_, _, _)).Times(0);
  EXPECT_CALL(*mock, PairQuery(_, _)).Times(0);
  Client client(mock);

  absl::Status ray =
      client.Raycast("arena", {.origin = {0, 1}, .direction = {0, 0, 1}})
          .status();
  EXPECT_EQ(ray.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ray.message(), "query.direction: a 3D vector with a 2D origin");

  absl::Status body =
      client
          .UpsertBodies(
              "arena",
              {{.id = 1, .shape = Circle{1.0f}},
               {.id = 2, .shape = Shape3(Sphere{1.0f}), .pose = Pose2{}}})
          .status();
  EXPECT_EQ(body.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(body.message(), "bodies[1].pose: a 2D pose with a 3D shape");

  absl::Status batch =
      client
          .QueryBatch("arena",
                      {{.kind = SweepQuery{.shape = Circle{1.0f},
                                           .displacement = {1, 0, 0}}}})
          .status();
  EXPECT_EQ(batch.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(batch.message(),
            "queries[0].sweep.displacement: a 3D vector with a 2D shape");

  absl::Status pair = client
                          .PairQuery({.shape_a = Shape3(Sphere{1.0f}),
                                      .pose_a = Pose2{},
                                      .shape_b = Shape3(Sphere{1.0f}),
                                      .pose_b = Pose3{},
                                      .kind = PairOverlap{}})
                          .status();
  EXPECT_EQ(pair.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(pair.message(), "pose_a: a 2D pose with a 3D shape");
}

TEST(MockConnection, TypedPairQueriesGoThroughPairQuery) {
  auto mock = std::make_shared<MockConnection>();
  ContactResult<2> contact;
  contact.overlapping = true;
  contact.depth = 0.2f;
  contact.normal = {1, 0};
  EXPECT_CALL(*mock, PairQuery(_, _))
      .WillOnce([&](const client::PairQueryRequest& request, const CallContext&)
                    -> absl::StatusOr<client::PairQueryResult> {
        EXPECT_TRUE(std::holds_alternative<client::PairContact>(request.kind));
        return contact;
      })
      .WillOnce(Return(client::PairQueryResult(true)));
  std::unique_ptr<Client> client = MakeClient(mock);
  absl::StatusOr<ContactResult<2>> answer = client->Contact(
      Box2{{0.5f, 0.5f}}, Pose2{}, Circle{0.5f}, Pose2{{0.8f, 0.0f}, {}});
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->depth, 0.2f);
  // An answer of another kind is the server's fault, not a crash.
  EXPECT_EQ(client->Contact(Box2{{0.5f, 0.5f}}, Pose2{}, Circle{0.5f}, Pose2{})
                .status()
                .code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace sator
