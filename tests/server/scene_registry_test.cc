// SceneRegistry: ids, settings, limits, paging, and concurrent use.
#include "server/scenes/scene_registry.h"

#include <atomic>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sator::server {
namespace {

using ::testing::HasSubstr;

HostedSceneSettings Settings(int dimension) {
  HostedSceneSettings settings;
  settings.dimension = dimension;
  return settings;
}

TEST(SceneRegistryTest, LimitsAreChecked) {
  EXPECT_TRUE(ValidateSceneLimits(SceneLimits{}).ok());
  SceneLimits limits;
  limits.max_scenes = 0;
  EXPECT_THAT(ValidateSceneLimits(limits).message(), HasSubstr("--max_scenes"));
  limits = SceneLimits{};
  limits.default_history_ticks = limits.max_history_ticks + 1;
  EXPECT_THAT(ValidateSceneLimits(limits).message(),
              HasSubstr("--default_history_ticks"));
}

TEST(SceneRegistryTest, SceneIdRules) {
  EXPECT_TRUE(SceneRegistry::ValidateSceneId("arena-1.b_2").ok());
  EXPECT_EQ(SceneRegistry::ValidateSceneId("").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SceneRegistry::ValidateSceneId(std::string(129, 'a')).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(SceneRegistry::ValidateSceneId(std::string(128, 'a')).ok());
  absl::Status slash = SceneRegistry::ValidateSceneId("a/b");
  EXPECT_EQ(slash.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(slash.message(), HasSubstr("character 1"));
}

TEST(SceneRegistryTest, ResolveSettingsFillsDefaultsAndChecksLimits) {
  SceneLimits limits;
  limits.default_history_ticks = 32;
  limits.max_history_ticks = 100;
  limits.max_bodies_per_scene = 500;
  SceneRegistry registry(limits);

  absl::StatusOr<HostedSceneSettings> resolved =
      registry.ResolveSettings({.dimension = 2,
                                .history_ticks = 0,
                                .teleport_distance = 0.0f,
                                .max_bodies = 0});
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->history_ticks, 32);
  EXPECT_EQ(resolved->max_bodies, 500);

  // Above a limit flag: RESOURCE_EXHAUSTED naming the setting, the value,
  // the limit and the flag.
  HostedSceneSettings bad = Settings(3);
  bad.history_ticks = 101;
  absl::Status status = registry.ResolveSettings(bad).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_EQ(status.message(),
            "settings.history_ticks: 101 above the server limit 100 "
            "(--max_history_ticks)");
  bad = Settings(3);
  bad.max_bodies = 501;
  status = registry.ResolveSettings(bad).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_EQ(status.message(),
            "settings.max_bodies: 501 above the server limit 500 "
            "(--max_bodies_per_scene)");

  // Malformed: INVALID_ARGUMENT.
  bad = Settings(4);
  status = registry.ResolveSettings(bad).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("settings.dimension"));
  bad = Settings(2);
  bad.teleport_distance = -1.0f;
  status = registry.ResolveSettings(bad).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("settings.teleport_distance"));
  bad = Settings(2);
  bad.teleport_distance = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(registry.ResolveSettings(bad).status().code(),
            absl::StatusCode::kInvalidArgument);
  bad = Settings(2);
  bad.history_ticks = -1;
  status = registry.ResolveSettings(bad).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("settings.history_ticks"));
  bad = Settings(2);
  bad.max_bodies = -1;
  status = registry.ResolveSettings(bad).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("settings.max_bodies"));
}

// Replay keeps what an earlier start acknowledged under higher limit flags,
// and says what it kept; the core's own bounds still hold.
TEST(SceneRegistryTest, ResolveSettingsKeepsSettingsOverTheLimitsWhenAsked) {
  SceneLimits limits;
  limits.default_history_ticks = 8;
  limits.max_history_ticks = 8;
  limits.max_bodies_per_scene = 100;
  SceneRegistry registry(limits);
  HostedSceneSettings acknowledged = Settings(2);
  acknowledged.history_ticks = 16;
  acknowledged.max_bodies = 500;
  std::vector<std::string> kept;
  absl::StatusOr<HostedSceneSettings> resolved =
      registry.ResolveSettings(acknowledged, &kept);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->history_ticks, 16);
  EXPECT_EQ(resolved->max_bodies, 500);
  EXPECT_THAT(kept, ::testing::ElementsAre(
                        "settings.history_ticks: 16 above the server limit 8 "
                        "(--max_history_ticks)",
                        "settings.max_bodies: 500 above the server limit 100 "
                        "(--max_bodies_per_scene)"));
  // And the scene can be made with them.
  EXPECT_TRUE(registry.Create("kept", *resolved).ok());

  // Within the limits: nothing to report.
  kept.clear();
  HostedSceneSettings within = Settings(3);
  within.history_ticks = 0;
  within.max_bodies = 100;
  ASSERT_TRUE(registry.ResolveSettings(within, &kept).ok());
  EXPECT_TRUE(kept.empty());

  // Beyond what the core supports: refused even so.
  HostedSceneSettings impossible = Settings(2);
  impossible.max_bodies = kMaxBodies + 1;
  absl::Status status = registry.ResolveSettings(impossible, &kept).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("settings.max_bodies: 16777217 above the largest"));
  impossible = Settings(2);
  impossible.history_ticks = kMaxHistoryTicks + 1;
  EXPECT_EQ(registry.ResolveSettings(impossible, &kept).status().code(),
            absl::StatusCode::kResourceExhausted);
  // Malformed ones too.
  impossible = Settings(2);
  impossible.teleport_distance = -1.0f;
  EXPECT_EQ(registry.ResolveSettings(impossible, &kept).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SceneRegistryTest, TeleportDistanceZeroMeansTheCoreDefault) {
  SceneRegistry registry(SceneLimits{});
  HostedSceneSettings settings = Settings(3);
  settings.teleport_distance = 0.0f;
  absl::StatusOr<std::shared_ptr<HostedScene>> created =
      registry.Create("respawn", settings);
  ASSERT_TRUE(created.ok()) << created.status();
  scene::Scene3& scene = *(*created)->scene3();
  EXPECT_EQ(scene.options().teleport_distance, scene::kDefaultTeleportDistance);
  // A respawn from x = 0 to x = 100 is a cut: no phantom at x = 50.
  scene::BodyDesc<3> body;
  body.id = 1;
  body.shape = std::make_shared<const Shape3>(Sphere{0.5f});
  ASSERT_TRUE(scene.UpsertBodies({body}).ok());
  Pose3 far;
  far.position = {100, 0, 0};
  ASSERT_TRUE(scene.UpdatePoses(1, {{1, far, false}}).ok());
  scene::QueryOptions options;
  options.rewind = scene::Rewind{0, 0.5f};
  const auto hits =
      scene.Snapshot().RayCast({50, 0, -5}, {0, 0, 1}, 10.0f, options);
  ASSERT_TRUE(hits.ok()) << hits.status();
  EXPECT_TRUE(hits->hits.empty());
}

TEST(SceneRegistryTest, CreateFindDeleteAndErrors) {
  SceneRegistry registry(SceneLimits{});
  absl::StatusOr<std::shared_ptr<HostedScene>> created =
      registry.Create("arena", Settings(2));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ((*created)->dimension(), 2);
  EXPECT_NE((*created)->scene2(), nullptr);
  EXPECT_EQ((*created)->scene3(), nullptr);

  EXPECT_EQ(registry.Create("arena", Settings(3)).status().code(),
            absl::StatusCode::kAlreadyExists);
  absl::StatusOr<std::shared_ptr<HostedScene>> found = registry.Find("arena");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->get(), created->get());
  EXPECT_EQ(registry.Find("nope").status().code(), absl::StatusCode::kNotFound);

  ASSERT_TRUE(registry.Delete("arena").ok());
  EXPECT_EQ(registry.Delete("arena").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.Find("arena").status().code(),
            absl::StatusCode::kNotFound);
  // A holder of the deleted scene can still use it.
  EXPECT_EQ((*created)->scene2()->Snapshot().body_count(), 0u);
}

TEST(SceneRegistryTest, InitRunsUnderTheWriteLockBeforeTheSceneIsVisible) {
  SceneRegistry registry(SceneLimits{});
  bool ran = false;
  absl::StatusOr<std::shared_ptr<HostedScene>> created = registry.Create(
      "filled", Settings(2),
      [&](HostedScene& scene, SceneRegistry::ScenePublish) {
        ran = true;
        // The write lock is held: another writer could not take it now.
        EXPECT_FALSE(scene.write_mutex().try_lock());
        // Not yet listed, though the id is taken.
        EXPECT_TRUE(registry.List("", 10).empty());
        EXPECT_EQ(registry.Create("filled", Settings(2)).status().code(),
                  absl::StatusCode::kAlreadyExists);
        return absl::OkStatus();
      });
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(ran);
  EXPECT_TRUE(registry.Find("filled").ok());
  // The lock was released.
  ASSERT_TRUE((*created)->write_mutex().try_lock());
  (*created)->write_mutex().unlock();
}

TEST(SceneRegistryTest, FindWaitsForASceneBeingCreated) {
  SceneRegistry registry(SceneLimits{});
  std::mutex mutex;
  std::condition_variable changed;
  bool init_started = false;
  bool release_init = false;
  std::thread creator([&] {
    auto created = registry.Create(
        "slow", Settings(2), [&](HostedScene&, SceneRegistry::ScenePublish) {
          std::unique_lock<std::mutex> lock(mutex);
          init_started = true;
          changed.notify_all();
          changed.wait(lock, [&] { return release_init; });
          return absl::OkStatus();
        });
    EXPECT_TRUE(created.ok());
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return init_started; });
  }
  EXPECT_EQ(registry.Create("slow", Settings(2)).status().code(),
            absl::StatusCode::kAlreadyExists);
  std::thread releaser([&] {
    std::lock_guard<std::mutex> lock(mutex);
    release_init = true;
    changed.notify_all();
  });
  // Blocks until the init has finished, then finds the scene.
  absl::StatusOr<std::shared_ptr<HostedScene>> found = registry.Find("slow");
  EXPECT_TRUE(found.ok()) << found.status();
  releaser.join();
  creator.join();
}

TEST(SceneRegistryTest, FailedInitLeavesNothingAndMarksTheSceneDeleted) {
  SceneRegistry registry(SceneLimits{});
  HostedScene* seen = nullptr;
  absl::StatusOr<std::shared_ptr<HostedScene>> created =
      registry.Create("doomed", Settings(3),
                      [&](HostedScene& scene, SceneRegistry::ScenePublish) {
                        seen = &scene;
                        return absl::DataLossError("log refused it");
                      });
  EXPECT_EQ(created.status().code(), absl::StatusCode::kDataLoss);
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(registry.Find("doomed").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.size(), 0u);
  EXPECT_TRUE(registry.Create("doomed", Settings(3)).ok());
}

TEST(SceneRegistryTest, InitCanPublishTheSceneBeforeItReturns) {
  SceneRegistry registry(SceneLimits{});
  absl::StatusOr<std::shared_ptr<HostedScene>> created = registry.Create(
      "early", Settings(2),
      [&](HostedScene& scene, SceneRegistry::ScenePublish publish) {
        EXPECT_TRUE(registry.List("", 10).empty());
        publish();
        // Listed and found at once (Find does not wait for the write lock,
        // which is still held), though `init` has not returned.
        std::vector<std::shared_ptr<HostedScene>> listed =
            registry.List("", 10);
        EXPECT_EQ(listed.size(), 1u);
        absl::StatusOr<std::shared_ptr<HostedScene>> found =
            registry.Find("early");
        EXPECT_TRUE(found.ok()) << found.status();
        if (found.ok()) {
          EXPECT_EQ(found->get(), &scene);
        }
        EXPECT_FALSE(scene.write_mutex().try_lock());
        return absl::OkStatus();
      });
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(registry.Find("early").ok());
}

TEST(SceneRegistryTest, FailedInitAfterPublishingDeletesTheScene) {
  SceneRegistry registry(SceneLimits{});
  absl::StatusOr<std::shared_ptr<HostedScene>> created =
      registry.Create("brief", Settings(3),
                      [&](HostedScene&, SceneRegistry::ScenePublish publish) {
                        publish();
                        return absl::InternalError("failed after publishing");
                      });
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(registry.Find("brief").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(registry.List("", 10).empty());
  EXPECT_EQ(registry.size(), 0u);
}

TEST(SceneRegistryTest, DeleteMarksTheSceneForItsHolders) {
  SceneRegistry registry(SceneLimits{});
  absl::StatusOr<std::shared_ptr<HostedScene>> created =
      registry.Create("held", Settings(2));
  ASSERT_TRUE(created.ok());
  EXPECT_FALSE((*created)->deleted());
  ASSERT_TRUE(registry.Delete("held").ok());
  EXPECT_TRUE((*created)->deleted());
  absl::StatusOr<std::shared_ptr<HostedScene>> again =
      registry.Create("held", Settings(2));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE((*again)->deleted());
}

TEST(SceneRegistryTest, AssignedIdsSkipTakenOnes) {
  SceneRegistry registry(SceneLimits{});
  ASSERT_TRUE(registry.Create("scene-1", Settings(3)).ok());
  absl::StatusOr<std::shared_ptr<HostedScene>> assigned =
      registry.Create("", Settings(3));
  ASSERT_TRUE(assigned.ok());
  EXPECT_EQ((*assigned)->id(), "scene-2");
  EXPECT_TRUE(SceneRegistry::ValidateSceneId((*assigned)->id()).ok());
}

TEST(SceneRegistryTest, SceneLimitIsResourceExhausted) {
  SceneLimits limits;
  limits.max_scenes = 2;
  SceneRegistry registry(limits);
  ASSERT_TRUE(registry.Create("a", Settings(2)).ok());
  ASSERT_TRUE(registry.Create("b", Settings(2)).ok());
  absl::Status full = registry.Create("c", Settings(2)).status();
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(full.message(), HasSubstr("--max_scenes"));
  ASSERT_TRUE(registry.Delete("a").ok());
  EXPECT_TRUE(registry.Create("c", Settings(2)).ok());
}

TEST(SceneRegistryTest, ListPagesInIdOrder) {
  SceneRegistry registry(SceneLimits{});
  for (const char* id : {"d", "b", "a", "c", "e"}) {
    ASSERT_TRUE(registry.Create(id, Settings(3)).ok());
  }
  std::vector<std::string> seen;
  std::string after;
  for (int page = 0; page < 10; ++page) {
    auto scenes = registry.List(after, 2);
    if (scenes.empty()) break;
    for (const auto& scene : scenes) seen.push_back(scene->id());
    after = scenes.back()->id();
  }
  EXPECT_THAT(seen, ::testing::ElementsAre("a", "b", "c", "d", "e"));
  EXPECT_EQ(registry.size(), 5u);
}

TEST(SceneRegistryTest, ConcurrentCreatesGetDistinctIdsWithinTheLimit) {
  SceneLimits limits;
  limits.max_scenes = 50;
  SceneRegistry registry(limits);
  std::atomic<int> created{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto scene = registry.Create("", Settings(2));
        if (scene.ok()) {
          ++created;
          (void)registry.Find((*scene)->id());
        } else {
          EXPECT_EQ(scene.status().code(),
                    absl::StatusCode::kResourceExhausted);
          ++refused;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(created.load(), 50);
  EXPECT_EQ(refused.load(), 30);
  EXPECT_EQ(registry.List("", 1000).size(), 50u);
}

}  // namespace
}  // namespace sator::server
