// ProximityService against the real satord, through sator::Client: a body
// walking through a world zone and past an observer gives exactly the ENTER
// and EXIT events worked out by hand (hysteresis included), in tick order,
// to a watch and in GetProximity's sets; a watch resumes from a kept tick
// and resyncs from one no longer kept; a Session's own watch gives a tick's
// events before the reply to the pose update that caused them, one watch
// per session; per-group reporting; bad input named
// by field, limits as RESOURCE_EXHAUSTED; the scene's deletion ends a watch;
// the events are counted in /metrics.
#include <chrono>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/client/session.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using ::sator::testing::HttpGet;
using ::sator::testing::SatordProcess;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

constexpr std::uint64_t kWalker = 1;
constexpr std::uint64_t kPlayer = 2;
constexpr std::uint64_t kZone = 7;
constexpr std::uint64_t kObserver = 9;

ProximityEvent Event(ProximityEventKind kind, ProximitySource source,
                     std::uint64_t source_id, std::uint64_t body_id,
                     std::uint64_t group_id = 0) {
  return {.kind = kind,
          .source = source,
          .source_id = source_id,
          .object = {.body_id = body_id, .group_id = group_id}};
}

// The next message of `stream`, which must be an evaluation's events.
std::optional<ProximityTickEvents> NextEvents(ProximityStream& stream) {
  std::optional<ProximityStreamEvent> message = stream.Read();
  if (!message.has_value()) return std::nullopt;
  if (const auto* events = std::get_if<ProximityTickEvents>(&*message)) {
    return *events;
  }
  ADD_FAILURE() << "a resync where events were expected";
  return std::nullopt;
}

// A 2D scene "yard": a walker (a circle of radius 0.5) and a player (a
// circle at (20, 0)); a world zone, the box of half extents 2 at the origin;
// an observer on the player with radius 5 and hysteresis 1.
class ProximityEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(satord_
                    .Start({"--max_zones_per_scene=2", "--proximity_history=4",
                            "--proximity_watch_buffer=4"})
                    .ok())
        << satord_.ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = satord_.grpc_target()});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    ASSERT_TRUE(
        client_->CreateScene("yard", {.dimension = Dimension::k2D}).ok());
    ASSERT_TRUE(client_
                    ->UpsertBodies("yard", {{.id = kWalker,
                                             .shape = Circle{0.5f},
                                             .pose = Pose2{{-10, 0}, {}}},
                                            {.id = kPlayer,
                                             .shape = Circle{0.5f},
                                             .pose = Pose2{{20, 0}, {}}}})
                    .ok());
    absl::StatusOr<std::int64_t> zone =
        client_->AddZone("yard", {.id = kZone, .shape = Box2{{2, 2}}});
    ASSERT_TRUE(zone.ok()) << zone.status();
    absl::StatusOr<std::int64_t> observer = client_->AddObserver(
        "yard",
        {.id = kObserver,
         .anchor = {.kind = ProximityAnchor::Kind::kBody, .id = kPlayer},
         .radius = 5.0f,
         .hysteresis = 1.0f});
    ASSERT_TRUE(observer.ok()) << observer.status();
  }

  // Moves the walker to (x, 0) at `tick`.
  void WalkTo(std::int64_t tick, float x) {
    PoseBatch poses;
    poses.Add(kWalker, Pose2{{x, 0}, {}});
    absl::StatusOr<std::int64_t> applied =
        client_->UpdatePoses("yard", tick, poses);
    ASSERT_TRUE(applied.ok()) << applied.status();
  }

  std::unique_ptr<ProximityStream> Watch(ProximityWatchStart start = {}) {
    absl::StatusOr<std::unique_ptr<ProximityStream>> stream =
        client_->WatchProximity("yard", start);
    EXPECT_TRUE(stream.ok()) << stream.status();
    return stream.ok() ? *std::move(stream) : nullptr;
  }

  double Sample(const std::string& name) {
    absl::StatusOr<std::string> page =
        HttpGet(satord_.metrics_port(), "/metrics");
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) return -1;
    for (absl::string_view line : absl::StrSplit(*page, '\n')) {
      if (absl::StartsWith(line, name + " ")) {
        double value = 0;
        if (absl::SimpleAtod(line.substr(name.size() + 1), &value)) {
          return value;
        }
      }
    }
    return -1;
  }

  SatordProcess satord_;
  std::optional<Client> client_;
};

TEST_F(ProximityEndToEnd, AWalkGivesTheEventsWorkedOutByHand) {
  // From tick 1: the watch gets every evaluation whenever the server starts
  // it.
  std::unique_ptr<ProximityStream> watch = Watch({.tick = 1});
  ASSERT_NE(watch, nullptr);
  // Tick 1, x = -10: far from both.
  WalkTo(1, -10.0f);
  // Tick 2, x = -2.4: the circle reaches x = -1.9, inside the box.
  WalkTo(2, -2.4f);
  // Tick 3, x = 3: the circle starts at 2.5, out of the box.
  WalkTo(3, 3.0f);
  // Tick 4, x = 15.5: 4 from the player's centre, within 5.
  WalkTo(4, 15.5f);
  // Tick 5, x = 14: 5.5 away, in the hysteresis band: still seen.
  WalkTo(5, 14.0f);
  absl::StatusOr<ProximityState> seen = client_->GetProximity("yard");
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_EQ(seen->tick, 5);
  ASSERT_EQ(seen->sets.size(), 2u);
  EXPECT_THAT(seen->sets[0].objects, IsEmpty());
  EXPECT_EQ(seen->sets[1].source, ProximitySource::kObserver);
  EXPECT_THAT(seen->sets[1].objects,
              ElementsAre(ProximityObject{.body_id = kWalker}));
  ASSERT_EQ(seen->zones.size(), 1u);
  EXPECT_EQ(seen->zones[0].id, kZone);
  ASSERT_EQ(seen->observers.size(), 1u);
  EXPECT_EQ(seen->observers[0].radius, 5.0f);
  // Tick 6, x = 13: 6.5 away, beyond 5 + 1.
  WalkTo(6, 13.0f);

  const struct {
    std::int64_t tick;
    ProximityEvent event;
  } expected[] = {
      {2, Event(ProximityEventKind::kEnter, ProximitySource::kZone, kZone,
                kWalker)},
      {3, Event(ProximityEventKind::kExit, ProximitySource::kZone, kZone,
                kWalker)},
      {4, Event(ProximityEventKind::kEnter, ProximitySource::kObserver,
                kObserver, kWalker)},
      {6, Event(ProximityEventKind::kExit, ProximitySource::kObserver,
                kObserver, kWalker)},
  };
  std::uint64_t sequence = 0;
  for (const auto& [tick, event] : expected) {
    std::optional<ProximityTickEvents> got = NextEvents(*watch);
    ASSERT_TRUE(got.has_value()) << "tick " << tick;
    EXPECT_EQ(got->tick, tick);
    EXPECT_THAT(got->events, ElementsAre(event)) << "tick " << tick;
    EXPECT_GT(got->sequence, sequence);
    sequence = got->sequence;
  }
  EXPECT_EQ(Sample("sator_proximity_events_total"), 4.0);
  EXPECT_EQ(Sample("sator_proximity_watches"), 1.0);
  watch->Cancel();
  EXPECT_FALSE(watch->Read().has_value());
  EXPECT_EQ(watch->Finish().code(), absl::StatusCode::kCancelled);
}

TEST_F(ProximityEndToEnd, AWatchResumesFromAKeptTickAndResyncsFromALostOne) {
  // In and out of the zone every tick: one evaluation with events per tick,
  // of which the server keeps the last 4 (--proximity_history).
  for (std::int64_t tick = 1; tick <= 10; ++tick) {
    WalkTo(tick, tick % 2 == 1 ? 0.0f : -10.0f);
  }
  std::unique_ptr<ProximityStream> kept = Watch({.tick = 8});
  ASSERT_NE(kept, nullptr);
  for (std::int64_t tick = 8; tick <= 10; ++tick) {
    std::optional<ProximityTickEvents> got = NextEvents(*kept);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->tick, tick);
    EXPECT_THAT(got->events,
                ElementsAre(Event(tick % 2 == 1 ? ProximityEventKind::kEnter
                                                : ProximityEventKind::kExit,
                                  ProximitySource::kZone, kZone, kWalker)));
  }
  kept->Cancel();

  std::unique_ptr<ProximityStream> lost = Watch({.tick = 2});
  ASSERT_NE(lost, nullptr);
  std::optional<ProximityStreamEvent> first = lost->Read();
  ASSERT_TRUE(first.has_value());
  const auto* resync = std::get_if<ProximityResync>(&*first);
  ASSERT_NE(resync, nullptr);
  EXPECT_EQ(resync->tick, 10);
  ASSERT_EQ(resync->sets.size(), 2u);
  // Tick 10 left the walker at x = -10: out of the zone.
  EXPECT_THAT(resync->sets[0].objects, IsEmpty());
  // The events after the resync continue from its sets.
  WalkTo(11, 0.0f);
  std::optional<ProximityTickEvents> next = NextEvents(*lost);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->tick, 11);
  EXPECT_EQ(next->sequence, resync->next_sequence);
  EXPECT_THAT(next->events,
              ElementsAre(Event(ProximityEventKind::kEnter,
                                ProximitySource::kZone, kZone, kWalker)));
  lost->Cancel();
  EXPECT_GE(Sample("sator_proximity_resyncs_total"), 1.0);

  // Reopened one after the last sequence read, the watch goes on exactly
  // there: the next evaluation, none again.
  WalkTo(12, -10.0f);
  std::unique_ptr<ProximityStream> resumed =
      Watch({.sequence = next->sequence + 1});
  ASSERT_NE(resumed, nullptr);
  std::optional<ProximityTickEvents> after = NextEvents(*resumed);
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->tick, 12);
  EXPECT_EQ(after->sequence, next->sequence + 1);
  resumed->Cancel();
}

// The same walk through a Session's own watch: each tick's events arrive
// before the reply to the pose update that caused them; one watch per
// session; the watch ends with the stream.
TEST_F(ProximityEndToEnd, ASessionCarriesItsScenesEventsBeforeThePoseReply) {
  // Declared before the session, whose reader thread calls the callbacks
  // until it is closed.
  std::mutex mu;
  std::vector<ProximityStreamEvent> seen;
  std::optional<absl::Status> ended;
  absl::StatusOr<std::unique_ptr<Session>> session =
      client_->OpenSession("yard");
  ASSERT_TRUE(session.ok()) << session.status();
  std::future<absl::StatusOr<std::uint64_t>> watching =
      (*session)->WatchProximity(
          {},
          [&](const ProximityStreamEvent& event) {
            std::lock_guard<std::mutex> lock(mu);
            seen.push_back(event);
          },
          [&](const absl::Status& status) {
            std::lock_guard<std::mutex> lock(mu);
            ended = status;
          });
  absl::StatusOr<std::uint64_t> from = watching.get();
  ASSERT_TRUE(from.ok()) << from.status();
  EXPECT_EQ(*from, 1u);  // No evaluation had events yet.
  const auto events_so_far = [&] {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<ProximityTickEvents> events;
    for (const ProximityStreamEvent& event : seen) {
      if (const auto* tick = std::get_if<ProximityTickEvents>(&event)) {
        events.push_back(*tick);
      } else {
        ADD_FAILURE() << "a resync where events were expected";
      }
    }
    return events;
  };
  const auto walk = [&](std::int64_t tick, float x) {
    PoseBatch poses;
    poses.Add(kWalker, Pose2{{x, 0}, {}});
    absl::StatusOr<std::int64_t> applied =
        (*session)->SubmitPoses(tick, std::move(poses)).get();
    ASSERT_TRUE(applied.ok()) << applied.status();
  };
  walk(1, -10.0f);
  EXPECT_THAT(events_so_far(), IsEmpty());
  walk(2, -2.4f);
  std::vector<ProximityTickEvents> events = events_so_far();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].tick, 2);
  EXPECT_EQ(events[0].sequence, 1u);
  EXPECT_THAT(events[0].events,
              ElementsAre(Event(ProximityEventKind::kEnter,
                                ProximitySource::kZone, kZone, kWalker)));
  walk(3, 3.0f);
  events = events_so_far();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].tick, 3);
  EXPECT_THAT(events[1].events,
              ElementsAre(Event(ProximityEventKind::kExit,
                                ProximitySource::kZone, kZone, kWalker)));

  absl::StatusOr<std::uint64_t> twice =
      (*session)->WatchProximity({}, [](const ProximityStreamEvent&) {}).get();
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kFailedPrecondition);
  // The first watch goes on.
  walk(4, 15.5f);
  EXPECT_EQ(events_so_far().size(), 3u);

  ASSERT_TRUE((*session)->Close().ok());
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_TRUE(ended.has_value());
  EXPECT_TRUE(ended->ok()) << *ended;
}

TEST_F(ProximityEndToEnd, ASessionWatchFromALostTickStartsWithAResync) {
  for (std::int64_t tick = 1; tick <= 10; ++tick) {
    WalkTo(tick, tick % 2 == 1 ? 0.0f : -10.0f);
  }
  std::promise<ProximityStreamEvent> first;
  bool got_first = false;  // On the session's reader thread only.
  absl::StatusOr<std::unique_ptr<Session>> session =
      client_->OpenSession("yard");
  ASSERT_TRUE(session.ok()) << session.status();
  absl::StatusOr<std::uint64_t> bad =
      (*session)
          ->WatchProximity({.tick = -1}, [](const ProximityStreamEvent&) {})
          .get();
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              StartsWith("watch_proximity.from_tick: must be >= 0"));
  absl::StatusOr<std::uint64_t> from =
      (*session)
          ->WatchProximity({.tick = 2},
                           [&](const ProximityStreamEvent& event) {
                             if (!got_first) first.set_value(event);
                             got_first = true;
                           })
          .get();
  ASSERT_TRUE(from.ok()) << from.status();
  std::future<ProximityStreamEvent> arrived = first.get_future();
  ASSERT_EQ(arrived.wait_for(std::chrono::seconds(10)),
            std::future_status::ready);
  const ProximityStreamEvent event = arrived.get();
  const auto* resync = std::get_if<ProximityResync>(&event);
  ASSERT_NE(resync, nullptr);
  EXPECT_EQ(resync->tick, 10);
  EXPECT_EQ(resync->next_sequence, 11u);
}

TEST_F(ProximityEndToEnd, PerGroupZonesCountAGroupOnce) {
  ASSERT_TRUE(client_
                  ->UpsertBodies("yard", {{.id = 30,
                                           .shape = Circle{0.5f},
                                           .pose = Pose2{{40, 0}, {}},
                                           .group_id = 3,
                                           .part = 1},
                                          {.id = 31,
                                           .shape = Circle{0.25f},
                                           .pose = Pose2{{40, 1}, {}},
                                           .group_id = 3,
                                           .part = 2}})
                  .ok());
  ASSERT_TRUE(client_
                  ->AddZone("yard", {.id = 8,
                                     .shape = Circle{3.0f},
                                     .pose = Pose2{{40, 0}, {}},
                                     .report = ProximityReport::kPerGroup})
                  .ok());
  std::unique_ptr<ProximityStream> watch = Watch({.tick = 1});
  ASSERT_NE(watch, nullptr);
  WalkTo(1, -10.0f);
  std::optional<ProximityTickEvents> got = NextEvents(*watch);
  ASSERT_TRUE(got.has_value());
  EXPECT_THAT(got->events, ElementsAre(Event(ProximityEventKind::kEnter,
                                             ProximitySource::kZone, 8, 0, 3)));
  watch->Cancel();
}

TEST_F(ProximityEndToEnd, BadInputNamesTheField) {
  const auto code_and_message = [](const absl::Status& status) {
    return std::pair(status.code(), std::string(status.message()));
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    absl::Status status;
    absl::StatusCode code;
    const char* prefix;
  };
  const std::vector<Case> cases = {
      {client_->AddZone("yard", {.id = 0, .shape = Circle{1.0f}}).status(),
       absl::StatusCode::kInvalidArgument, "zone.id: "},
      {client_->AddZone("yard", {.id = 1, .shape = Circle{nan}}).status(),
       absl::StatusCode::kInvalidArgument, "zone.shape."},
      {client_->AddZone("yard", {.id = 1, .shape = Sphere{1.0f}}).status(),
       absl::StatusCode::kInvalidArgument, "zone.shape"},
      {client_
           ->AddZone("yard", {.id = 1,
                              .shape = Circle{1.0f},
                              .anchor = {.kind = ProximityAnchor::Kind::kBody,
                                         .id = 404}})
           .status(),
       absl::StatusCode::kNotFound, "zone.anchor.id: "},
      {client_->AddZone("yard", {.id = kZone, .shape = Circle{1.0f}}).status(),
       absl::StatusCode::kAlreadyExists, "zone.id: "},
      {client_->AddZone("nosuch", {.id = 1, .shape = Circle{1.0f}}).status(),
       absl::StatusCode::kNotFound, "scene_id: "},
      {client_
           ->AddObserver(
               "yard",
               {.id = 1,
                .anchor = {.kind = ProximityAnchor::Kind::kBody, .id = kPlayer},
                .radius = nan})
           .status(),
       absl::StatusCode::kInvalidArgument, "observer.radius: "},
      {client_->AddObserver("yard", {.id = 1, .radius = 1.0f}).status(),
       absl::StatusCode::kInvalidArgument, "observer.anchor: "},
      {client_->RemoveZone("yard", 404), absl::StatusCode::kNotFound,
       "zone_id: "},
      {client_->RemoveObserver("yard", 404), absl::StatusCode::kNotFound,
       "observer_id: "},
  };
  for (const Case& c : cases) {
    const auto [code, message] = code_and_message(c.status);
    EXPECT_EQ(code, c.code) << c.prefix << " got " << message;
    EXPECT_THAT(message, StartsWith(c.prefix));
  }

  // --max_zones_per_scene=2: the fixture's zone and one more.
  ASSERT_TRUE(client_->AddZone("yard", {.id = 2, .shape = Circle{1.0f}}).ok());
  const absl::Status full =
      client_->AddZone("yard", {.id = 3, .shape = Circle{1.0f}}).status();
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(full.message()), HasSubstr("--max_zones_per_scene"));
  // A removed zone frees its place.
  ASSERT_TRUE(client_->RemoveZone("yard", 2).ok());
  EXPECT_TRUE(client_->AddZone("yard", {.id = 3, .shape = Circle{1.0f}}).ok());

  absl::StatusOr<std::unique_ptr<ProximityStream>> negative =
      client_->WatchProximity("yard", {.tick = -1});
  ASSERT_TRUE(negative.ok());
  EXPECT_FALSE((*negative)->Read().has_value());
  const absl::Status refused = (*negative)->Finish();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.message()), StartsWith("from_tick: "));
  for (const auto& [start, prefix] :
       std::vector<std::pair<ProximityWatchStart, const char*>>{
           {{.tick = 1, .sequence = 1}, "from_sequence: give from_tick or"},
           {{.sequence = 0}, "from_sequence: must be >= 1"},
           {{.sequence = 99}, "from_sequence: must be at most 1"}}) {
    absl::StatusOr<std::unique_ptr<ProximityStream>> bad =
        client_->WatchProximity("yard", start);
    ASSERT_TRUE(bad.ok());
    EXPECT_FALSE((*bad)->Read().has_value());
    const absl::Status status = (*bad)->Finish();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << prefix;
    EXPECT_THAT(std::string(status.message()), StartsWith(prefix));
  }
  absl::StatusOr<std::unique_ptr<ProximityStream>> unknown =
      client_->WatchProximity("nosuch");
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE((*unknown)->Read().has_value());
  EXPECT_EQ((*unknown)->Finish().code(), absl::StatusCode::kNotFound);
}

TEST_F(ProximityEndToEnd, DeletingTheSceneEndsItsWatchesAfterTheirEvents) {
  std::unique_ptr<ProximityStream> watch = Watch({.tick = 1});
  ASSERT_NE(watch, nullptr);
  WalkTo(1, 0.0f);
  // The first event proves the server follows the scene for this watch.
  std::optional<ProximityTickEvents> entered = NextEvents(*watch);
  ASSERT_TRUE(entered.has_value());
  EXPECT_EQ(entered->tick, 1);
  WalkTo(2, -10.0f);
  ASSERT_TRUE(client_->DeleteScene("yard").ok());
  // The evaluation before the deletion still comes, then the end.
  std::optional<ProximityTickEvents> left = NextEvents(*watch);
  ASSERT_TRUE(left.has_value());
  EXPECT_EQ(left->tick, 2);
  EXPECT_FALSE(watch->Read().has_value());
  EXPECT_TRUE(watch->Finish().ok());
  // A scene made again under the id starts with no zones.
  ASSERT_TRUE(client_->CreateScene("yard", {.dimension = Dimension::k2D}).ok());
  absl::StatusOr<ProximityState> fresh = client_->GetProximity("yard");
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_THAT(fresh->zones, IsEmpty());
  EXPECT_EQ(fresh->tick, -1);
}

}  // namespace
}  // namespace sator
