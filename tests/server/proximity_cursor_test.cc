// A subscriber that falls more than --proximity_watch_buffer evaluations
// behind, or starts from one no longer kept, gets one resync with every
// current set and the count of evaluations it lost, then the events after
// it; one within the buffer gets every evaluation in order.
#include "server/proximity/proximity_cursor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/proximity/proximity_hosts.h"
#include "server/proximity/proximity_ops.h"
#include "server/scenes/scene_ops.h"
#include "server/scenes/scene_registry.h"
#include "support/text_proto.h"

namespace sator::server {
namespace {

template <typename Message>
Message Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<Message>(text);
}

constexpr std::uint64_t kWatchBuffer = 3;
constexpr std::size_t kHistory = 6;

// A 2D scene "yard" with ball 1 and zone 7 (a circle of radius 2 at the
// origin); every tick moves the ball into the zone or out of it, so every
// evaluation has one event.
class ProximityCursorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ops_.on_scene_written = [this](const HostedScene& scene) {
      hosts_.OnSceneWritten(scene);
    };
    ASSERT_TRUE(
        CreateScene(scenes_, ops_, Parse<sator::v1::CreateSceneRequest>(R"pb(
                      scene_id: "yard"
                      settings { dimension: DIMENSION_2D }
                    )pb"))
            .ok());
    ASSERT_TRUE(
        UpsertBodies(scenes_, ops_, Parse<sator::v1::UpsertBodiesRequest>(R"pb(
                       scene_id: "yard"
                       bodies {
                         body_id: 1
                         motion_type: MOTION_TYPE_DYNAMIC
                         shape { circle { radius: 0.5 } }
                         pose { position { x: 10 } }
                       }
                     )pb"))
            .ok());
    ASSERT_TRUE(AddZone(scenes_, hosts_, proximity_,
                        Parse<sator::v1::AddZoneRequest>(R"pb(
                          scene_id: "yard"
                          zone {
                            id: 7
                            shape { circle { radius: 2 } }
                          }
                        )pb"))
                    .ok());
    absl::StatusOr<std::shared_ptr<HostedScene>> scene = scenes_.Find("yard");
    ASSERT_TRUE(scene.ok()) << scene.status();
    host_ = hosts_.Find(**scene);
    ASSERT_NE(host_, nullptr);
  }

  // Moves the ball in (odd ticks) or out (even ticks) at `tick`.
  void Step(std::int64_t tick) {
    const float x = tick % 2 == 1 ? 0.0f : 10.0f;
    sator::v1::UpdatePosesRequest request;
    request.set_scene_id("yard");
    request.set_tick(tick);
    request.mutable_poses()->add_body_ids(1);
    request.mutable_poses()->add_positions(x);
    request.mutable_poses()->add_positions(0.0f);
    request.mutable_poses()->add_rotations(0.0f);
    const auto updated = UpdatePoses(scenes_, ops_, request);
    ASSERT_TRUE(updated.ok()) << "tick " << tick << ": " << updated.status();
  }

  ProximityCursor CursorFrom(std::uint64_t sequence) {
    return ProximityCursor(host_, sequence, /*resync_first=*/false,
                           hosts_.counters());
  }

  SceneRegistry scenes_{SceneLimits{}};
  ProximityHosts hosts_{
      ProximityLimits{.history = kHistory, .watch_buffer = kWatchBuffer}};
  SceneOpsOptions ops_;
  ProximityOpsOptions proximity_;
  std::shared_ptr<ProximityHost> host_;
};

TEST_F(ProximityCursorTest, ASubscriberWithinTheBufferGetsEveryEvaluation) {
  const std::uint64_t first = host_->ring().next_sequence();
  for (std::int64_t tick = 1; tick <= static_cast<std::int64_t>(kWatchBuffer);
       ++tick) {
    Step(tick);
  }
  ProximityCursor cursor = CursorFrom(first);
  for (std::uint64_t k = 0; k < kWatchBuffer; ++k) {
    sator::v1::WatchProximityResponse message;
    ASSERT_TRUE(cursor.Next(&message)) << k;
    ASSERT_TRUE(message.has_events()) << message.DebugString();
    EXPECT_EQ(message.events().sequence(), first + k);
    EXPECT_EQ(message.events().tick(), static_cast<std::int64_t>(k + 1));
    ASSERT_EQ(message.events().events_size(), 1);
    EXPECT_EQ(message.events().events(0).kind(),
              k % 2 == 0 ? sator::v1::PROXIMITY_EVENT_KIND_ENTER
                         : sator::v1::PROXIMITY_EVENT_KIND_EXIT);
  }
  sator::v1::WatchProximityResponse none;
  EXPECT_FALSE(cursor.Next(&none));
  EXPECT_EQ(hosts_.counters().resyncs.load(), 0u);
}

TEST_F(ProximityCursorTest, ASlowSubscriberGetsOneResyncThenTheEventsAfterIt) {
  const std::uint64_t first = host_->ring().next_sequence();
  ProximityCursor cursor = CursorFrom(first);
  // One evaluation more than the buffer while the subscriber reads nothing,
  // all still in the history.
  constexpr std::int64_t kTicks = kWatchBuffer + 1;
  for (std::int64_t tick = 1; tick <= kTicks; ++tick) Step(tick);
  sator::v1::WatchProximityResponse message;
  ASSERT_TRUE(cursor.Next(&message));
  ASSERT_TRUE(message.has_resync()) << message.DebugString();
  const sator::v1::ProximityResync& resync = message.resync();
  EXPECT_EQ(resync.tick(), kTicks);
  EXPECT_EQ(resync.next_sequence(), first + kTicks);
  EXPECT_EQ(resync.dropped(), static_cast<std::uint64_t>(kTicks));
  // The full current set: tick 4 moved the ball out, so zone 7 holds nothing.
  ASSERT_EQ(resync.sets_size(), 1) << resync.DebugString();
  EXPECT_EQ(resync.sets(0).source(), sator::v1::PROXIMITY_SOURCE_ZONE);
  EXPECT_EQ(resync.sets(0).source_id(), 7u);
  EXPECT_EQ(resync.sets(0).objects_size(), 0);
  EXPECT_EQ(hosts_.counters().resyncs.load(), 1u);
  // Nothing new yet; then tick 5's enter follows the resync's sets.
  sator::v1::WatchProximityResponse none;
  EXPECT_FALSE(cursor.Next(&none));
  Step(kTicks + 1);
  sator::v1::WatchProximityResponse after;
  ASSERT_TRUE(cursor.Next(&after));
  ASSERT_TRUE(after.has_events()) << after.DebugString();
  EXPECT_EQ(after.events().sequence(), resync.next_sequence());
  EXPECT_EQ(after.events().tick(), kTicks + 1);
  ASSERT_EQ(after.events().events_size(), 1);
  EXPECT_EQ(after.events().events(0).kind(),
            sator::v1::PROXIMITY_EVENT_KIND_ENTER);
  EXPECT_EQ(after.events().events(0).object().body_id(), 1u);
  EXPECT_EQ(hosts_.counters().resyncs.load(), 1u);
}

TEST_F(ProximityCursorTest, ASubscriberPastTheHistoryGetsAResyncToo) {
  const std::uint64_t first = host_->ring().next_sequence();
  for (std::int64_t tick = 1; tick <= static_cast<std::int64_t>(kHistory) + 4;
       ++tick) {
    Step(tick);
  }
  ProximityCursor cursor = CursorFrom(first);
  sator::v1::WatchProximityResponse message;
  ASSERT_TRUE(cursor.Next(&message));
  ASSERT_TRUE(message.has_resync()) << message.DebugString();
  EXPECT_EQ(message.resync().dropped(), kHistory + 4);
  // Tick 10 moved the ball out: the zone holds nothing.
  ASSERT_EQ(message.resync().sets_size(), 1);
  EXPECT_EQ(message.resync().sets(0).objects_size(), 0);
  sator::v1::WatchProximityResponse none;
  EXPECT_FALSE(cursor.Next(&none));
}

}  // namespace
}  // namespace sator::server
