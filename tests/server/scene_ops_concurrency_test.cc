// scene_ops under concurrency (run under ThreadSanitizer in CI): one thread
// advances a scene tick by tick while others export and describe it. Every
// export must be one whole published state (every body at the export's own
// tick, never half a batch), and the durability hook must see the updates
// in tick order.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/scenes/scene_ops.h"

namespace sator::server {
namespace {

constexpr int kBodies = 16;
constexpr std::int64_t kTicks = 200;
constexpr int kReaders = 2;

TEST(SceneOpsConcurrency, ReadersSeeWholeTicksAndTheHookSeesThemInOrder) {
  SceneRegistry registry{SceneLimits{}};
  std::vector<std::int64_t> hooked_ticks;  // Written inside the write lock.
  SceneOpsOptions options;
  options.on_mutation = [&](const std::string&,
                            const google::protobuf::Message& request,
                            absl::FunctionRef<absl::Status()> apply) {
    if (const auto* update =
            dynamic_cast<const sator::v1::UpdatePosesRequest*>(&request)) {
      hooked_ticks.push_back(update->tick());
    }
    return apply();
  };

  sator::v1::CreateSceneRequest create;
  create.set_scene_id("race");
  create.mutable_settings()->set_dimension(sator::v1::DIMENSION_2D);
  ASSERT_TRUE(CreateScene(registry, options, create).ok());
  sator::v1::UpsertBodiesRequest upsert;
  upsert.set_scene_id("race");
  for (int i = 1; i <= kBodies; ++i) {
    sator::v1::Body& body = *upsert.add_bodies();
    body.set_body_id(static_cast<std::uint64_t>(i));
    body.set_motion_type(sator::v1::MOTION_TYPE_DYNAMIC);
    body.mutable_shape()->mutable_circle()->set_radius(0.5f);
  }
  ASSERT_TRUE(UpsertBodies(registry, options, upsert).ok());

  std::atomic<bool> done{false};
  std::atomic<int> torn{0};
  std::atomic<int> exports{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&] {
      sator::v1::ExportSceneRequest request;
      request.set_scene_id("race");
      sator::v1::GetSceneRequest get;
      get.set_scene_id("race");
      // Bounded: the writer finishes in kTicks steps; the cap is a backstop.
      for (int i = 0; i < 100'000 && !done.load(); ++i) {
        absl::StatusOr<sator::v1::SceneSnapshot> snapshot =
            ExportScene(registry, SceneOpsOptions(), request);
        if (!snapshot.ok()) {
          ++torn;
          continue;
        }
        ++exports;
        for (const sator::v1::Body& body : snapshot->bodies()) {
          if (body.pose().position().x() !=
              static_cast<float>(snapshot->current_tick())) {
            ++torn;
          }
        }
        if (!GetScene(registry, get).ok()) ++torn;
      }
    });
  }

  // The readers are running before the writer starts (bounded wait).
  const auto start_deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (exports.load() == 0 &&
         std::chrono::steady_clock::now() < start_deadline) {
    std::this_thread::yield();
  }
  const bool readers_started = exports.load() > 0;
  EXPECT_TRUE(readers_started);

  sator::v1::UpdatePosesRequest update;
  update.set_scene_id("race");
  for (int i = 1; i <= kBodies; ++i) {
    update.mutable_poses()->add_body_ids(static_cast<std::uint64_t>(i));
    update.mutable_poses()->add_positions(0.0f);
    update.mutable_poses()->add_positions(0.0f);
    update.mutable_poses()->add_rotations(0.0f);
  }
  for (std::int64_t tick = 1; readers_started && tick <= kTicks; ++tick) {
    update.set_tick(tick);
    for (int i = 0; i < kBodies; ++i) {
      update.mutable_poses()->set_positions(2 * i, static_cast<float>(tick));
    }
    absl::StatusOr<sator::v1::UpdatePosesResponse> response =
        UpdatePoses(registry, options, update);
    // No ASSERT while the readers run: they must be joined first.
    EXPECT_TRUE(response.ok()) << response.status();
    if (!response.ok()) break;
    EXPECT_EQ(response->current_tick(), tick);
  }
  done = true;
  for (std::thread& reader : readers) reader.join();

  EXPECT_EQ(torn.load(), 0);
  ASSERT_EQ(hooked_ticks.size(), static_cast<std::size_t>(kTicks));
  for (std::int64_t i = 0; i < kTicks; ++i) {
    EXPECT_EQ(hooked_ticks[static_cast<std::size_t>(i)], i + 1);
  }
}

}  // namespace
}  // namespace sator::server
