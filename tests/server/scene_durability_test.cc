// Scene persistence in process: what scene_ops writes through the hook comes
// back in a fresh registry; replay tolerates the one mutation per scene a
// snapshot may hold before its log record; a snapshot written while a scene
// is being created holds it if and only if it covers the creation's record;
// and snapshots taken while many threads write recover to exactly the final
// state.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "server/durability/scene_persistence.h"
#include "server/scenes/scene_ops.h"
#include "server/scenes/scene_registry.h"
#include "support/text_proto.h"

namespace sator::server {
namespace {

using ::google::protobuf::util::MessageDifferencer;

template <typename Message>
Message Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<Message>(text);
}

sator::v1::UpsertBodiesRequest Circles(const std::string& scene_id,
                                       std::vector<std::uint64_t> ids) {
  sator::v1::UpsertBodiesRequest request;
  request.set_scene_id(scene_id);
  for (std::uint64_t id : ids) {
    sator::v1::Body* body = request.add_bodies();
    body->set_body_id(id);
    body->set_motion_type(sator::v1::MOTION_TYPE_DYNAMIC);
    body->mutable_shape()->mutable_circle()->set_radius(
        0.5f + static_cast<float>(id) * 0.125f);
    body->mutable_pose()->mutable_position()->set_x(static_cast<float>(id));
  }
  return request;
}

// Every scene of `registry`, exported, by id.
std::map<std::string, sator::v1::SceneSnapshot> ExportAll(
    const SceneRegistry& registry) {
  std::map<std::string, sator::v1::SceneSnapshot> all;
  for (const auto& hosted : registry.List("", 1000)) {
    sator::v1::ExportSceneRequest request;
    request.set_scene_id(hosted->id());
    absl::StatusOr<sator::v1::SceneSnapshot> snapshot =
        ExportScene(registry, SceneOpsOptions(), request);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status();
    if (snapshot.ok()) all[hosted->id()] = *snapshot;
  }
  return all;
}

void ExpectSameScenes(
    const std::map<std::string, sator::v1::SceneSnapshot>& a,
    const std::map<std::string, sator::v1::SceneSnapshot>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [id, snapshot] : a) {
    ASSERT_TRUE(b.contains(id)) << id;
    EXPECT_TRUE(MessageDifferencer::Equals(snapshot, b.at(id)))
        << snapshot.DebugString() << "\nvs\n"
        << b.at(id).DebugString();
  }
}

class SceneDurabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TMPDIR");
    dir_ = absl::StrCat(base != nullptr ? base : "/tmp",
                        "/sator_scene_durability_XXXXXX");
    ASSERT_NE(mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Opens the data directory into `registry`; `ops` gets the hook.
  std::unique_ptr<ScenePersistence> Open(
      SceneRegistry& registry, SceneOpsOptions* ops,
      durability::RecoveryReport* report = nullptr) {
    PersistenceOptions options;
    options.data_dir = dir_;
    options.snapshot_interval = absl::ZeroDuration();
    // Each restore starts with no zones or observers, as a process does.
    proximity_ = std::make_unique<ProximityHosts>(ProximityLimits{});
    absl::StatusOr<std::unique_ptr<ScenePersistence>> persistence =
        ScenePersistence::Open(options, registry, *ops, *proximity_, report);
    EXPECT_TRUE(persistence.ok()) << persistence.status();
    if (!persistence.ok()) return nullptr;
    ScenePersistence* raw = persistence->get();
    ops->on_mutation = [raw](const std::string& id,
                             const google::protobuf::Message& request,
                             absl::FunctionRef<absl::Status()> apply) {
      return raw->OnMutation(id, request, apply);
    };
    return *std::move(persistence);
  }

  std::string dir_;
  std::unique_ptr<ProximityHosts> proximity_;
  SceneLimits limits_;
};

TEST_F(SceneDurabilityTest, EveryKindOfMutationComesBack) {
  std::map<std::string, sator::v1::SceneSnapshot> expected;
  {
    SceneRegistry registry(limits_);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    ASSERT_TRUE(
        CreateScene(registry, ops, Parse<sator::v1::CreateSceneRequest>(R"pb(
                      scene_id: "flat"
                      settings { dimension: DIMENSION_2D history_ticks: 5 }
                    )pb"))
            .ok());
    ASSERT_TRUE(UpsertBodies(registry, ops, Circles("flat", {1, 2, 3})).ok());
    // A server-assigned id is logged as assigned.
    absl::StatusOr<sator::v1::SceneInfo> assigned =
        CreateScene(registry, ops,
                    Parse<sator::v1::CreateSceneRequest>(
                        R"pb(settings { dimension: DIMENSION_3D })pb"));
    ASSERT_TRUE(assigned.ok());
    ASSERT_TRUE(persistence->SnapshotNow().ok());
    sator::v1::RemoveBodiesRequest remove;
    remove.set_scene_id("flat");
    remove.add_body_ids(2);
    ASSERT_TRUE(RemoveBodies(registry, ops, remove).ok());
    sator::v1::ImportSceneRequest import;
    *import.mutable_snapshot() = *ExportScene(
        registry, SceneOpsOptions(),
        Parse<sator::v1::ExportSceneRequest>(R"pb(scene_id: "flat")pb"));
    import.mutable_snapshot()->set_scene_id("copy");
    ASSERT_TRUE(ImportScene(registry, ops, import).ok());
    sator::v1::DeleteSceneRequest remove_scene;
    remove_scene.set_scene_id(assigned->scene_id());
    ASSERT_TRUE(DeleteScene(registry, ops, remove_scene).ok());
    expected = ExportAll(registry);
  }
  SceneRegistry restored(limits_);
  SceneOpsOptions ops;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops, &report);
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(report.scenes_restored, 2u);   // flat and the assigned one.
  EXPECT_EQ(report.records_replayed, 3u);  // Remove, import, delete.
  EXPECT_EQ(report.records_failed, 0u);
  ExpectSameScenes(expected, ExportAll(restored));
  EXPECT_EQ(expected.size(), 2u);
}

// A static 2D level (a polygon with a hole, and a one-sided chain) comes back
// whole, from the snapshot and from the log.
TEST_F(SceneDurabilityTest, StaticLevelsComeBack) {
  const std::string level_body = R"pb(
    motion_type: MOTION_TYPE_STATIC
    shape {
      level2d {
        polygons {
          outline { x: 0 y: 0 }
          outline { x: 10 y: 0 }
          outline { x: 10 y: 4 }
          outline { x: 6 y: 4 }
          outline { x: 6 y: 2 }
          outline { x: 0 y: 2 }
          holes {
            points { x: 1 y: 0.5 }
            points { x: 2 y: 0.5 }
            points { x: 2 y: 1.5 }
          }
        }
        chains {
          points { x: -5 y: -3 }
          points { x: 0 y: -3.5 }
          points { x: 5 y: -3 }
          one_sided: true
        }
      }
    }
  )pb";
  std::map<std::string, sator::v1::SceneSnapshot> expected;
  {
    SceneRegistry registry(limits_);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    ASSERT_TRUE(
        CreateScene(registry, ops, Parse<sator::v1::CreateSceneRequest>(R"pb(
                      scene_id: "cave"
                      settings { dimension: DIMENSION_2D }
                    )pb"))
            .ok());
    ASSERT_TRUE(UpsertBodies(registry, ops,
                             Parse<sator::v1::UpsertBodiesRequest>(
                                 R"pb(scene_id: "cave"
                                      bodies { body_id: 1)pb" +
                                 level_body + "}"))
                    .ok());
    ASSERT_TRUE(persistence->SnapshotNow().ok());
    // Logged after the snapshot: the same level moved, as a second body.
    ASSERT_TRUE(
        UpsertBodies(registry, ops,
                     Parse<sator::v1::UpsertBodiesRequest>(
                         R"pb(scene_id: "cave"
                              bodies { body_id: 2
                                       pose { position { x: 40 y: 0 } })pb" +
                         level_body + "}"))
            .ok());
    expected = ExportAll(registry);
  }
  ASSERT_EQ(expected.at("cave").bodies_size(), 2);
  EXPECT_EQ(expected.at("cave")
                .bodies(1)
                .shape()
                .level2d()
                .polygons(0)
                .holes(0)
                .points_size(),
            3);
  SceneRegistry restored(limits_);
  SceneOpsOptions ops;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops, &report);
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(report.records_replayed, 1u);
  EXPECT_EQ(report.records_failed, 0u);
  ExpectSameScenes(expected, ExportAll(restored));
}

// Hitbox parts (group, part, local pose) and group poses survive a restart:
// the parts through the log, the group pose through the snapshot.
TEST_F(SceneDurabilityTest, HitboxGroupsComeBack) {
  std::map<std::string, sator::v1::SceneSnapshot> expected;
  {
    SceneRegistry registry(limits_);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    ASSERT_TRUE(
        CreateScene(registry, ops, Parse<sator::v1::CreateSceneRequest>(R"pb(
                      scene_id: "arena"
                      settings { dimension: DIMENSION_3D }
                    )pb"))
            .ok());
    ASSERT_TRUE(
        UpsertBodies(registry, ops, Parse<sator::v1::UpsertBodiesRequest>(R"pb(
                       scene_id: "arena"
                       bodies {
                         body_id: 1
                         motion_type: MOTION_TYPE_DYNAMIC
                         shape { sphere { radius: 0.25 } }
                         pose { position { y: 1.6 } }
                         group_id: 9
                         part: 2
                       }
                     )pb"))
            .ok());
    ASSERT_TRUE(
        UpdatePoses(registry, ops, Parse<sator::v1::UpdatePosesRequest>(R"pb(
                      scene_id: "arena"
                      tick: 3
                      poses {
                        group_ids: [ 9 ]
                        group_positions: [ 5, 0, 0 ]
                        group_rotations: [ 0, 0, 0, 1 ]
                      }
                    )pb"))
            .ok());
    ASSERT_TRUE(persistence->SnapshotNow().ok());
    expected = ExportAll(registry);
  }
  ASSERT_EQ(expected.at("arena").groups_size(), 1);
  EXPECT_EQ(expected.at("arena").bodies(0).group_id(), 9u);
  SceneRegistry restored(limits_);
  SceneOpsOptions ops;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops);
  ASSERT_NE(persistence, nullptr);
  ExpectSameScenes(expected, ExportAll(restored));
}

// A snapshot written before new scenes were published inside the mutation
// scope that logs them could hold a scene whose record follows it; replay
// still accepts such snapshots. Recreate that by applying without the hook,
// snapshotting, then logging.
TEST_F(SceneDurabilityTest, ReplayReplacesAScenesTheSnapshotCaughtEarly) {
  std::map<std::string, sator::v1::SceneSnapshot> expected;
  {
    SceneRegistry registry(limits_);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    SceneOpsOptions silent = ops;
    silent.on_mutation = nullptr;
    auto log = [&](const std::string& id,
                   const google::protobuf::Message& request) {
      ASSERT_TRUE(
          persistence->OnMutation(id, request, [] { return absl::OkStatus(); })
              .ok());
    };
    sator::v1::CreateSceneRequest create;
    create.set_scene_id("thin");
    create.mutable_settings()->set_dimension(sator::v1::DIMENSION_2D);
    ASSERT_TRUE(CreateScene(registry, ops, create).ok());
    ASSERT_TRUE(UpsertBodies(registry, ops, Circles("thin", {1, 2, 3})).ok());
    // Applied, snapshotted, then logged: a create and an import with bodies.
    create.set_scene_id("fresh");
    ASSERT_TRUE(CreateScene(registry, silent, create).ok());
    sator::v1::ImportSceneRequest import;
    *import.mutable_snapshot() = *ExportScene(
        registry, SceneOpsOptions(),
        Parse<sator::v1::ExportSceneRequest>(R"pb(scene_id: "thin")pb"));
    import.mutable_snapshot()->set_scene_id("imported");
    ASSERT_TRUE(ImportScene(registry, silent, import).ok());
    ASSERT_TRUE(persistence->SnapshotNow().ok());
    log("fresh", create);
    log("imported", import);
    // And a mutation after them, which must apply on top.
    ASSERT_TRUE(UpsertBodies(registry, ops, Circles("fresh", {7})).ok());
    expected = ExportAll(registry);
  }
  SceneRegistry restored(limits_);
  SceneOpsOptions ops;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops, &report);
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(report.records_replayed, 3u);
  EXPECT_EQ(report.records_failed, 0u);
  ExpectSameScenes(expected, ExportAll(restored));
  EXPECT_EQ(expected.size(), 3u);  // fresh, imported, thin.
}

// The server's hook, followed, for requests of type `Request`, by a snapshot
// written from another thread (as the periodic snapshot thread does) once
// OnMutation has returned: after its MutationScope ended, while the
// registry's Create is still running. `refuse` makes the hook refuse such
// requests, as when the log cannot be written, instead of logging them.
template <typename Request>
MutationHook SnapshotAfter(ScenePersistence* persistence, bool refuse = false) {
  return [persistence, refuse](const std::string& id,
                               const google::protobuf::Message& request,
                               absl::FunctionRef<absl::Status()> apply) {
    const bool matches = request.GetDescriptor() == Request::descriptor();
    absl::Status status = matches && refuse
                              ? absl::UnavailableError("log: disk full")
                              : persistence->OnMutation(id, request, apply);
    if (matches) {
      std::thread snapshot(
          [persistence] { EXPECT_TRUE(persistence->SnapshotNow().ok()); });
      snapshot.join();
    }
    return status;
  };
}

// A snapshot written right after a creation was logged, but before
// CreateScene returned, holds the scene: its LSN covers the creation, so
// replay skips the create record, and the acknowledged scene must come from
// the snapshot.
TEST_F(SceneDurabilityTest, SnapshotRightAfterCreateIsLoggedKeepsTheScene) {
  {
    SceneRegistry registry(limits_);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    ops.on_mutation =
        SnapshotAfter<sator::v1::CreateSceneRequest>(persistence.get());
    ASSERT_TRUE(
        CreateScene(registry, ops, Parse<sator::v1::CreateSceneRequest>(R"pb(
                      scene_id: "arena"
                      settings { dimension: DIMENSION_2D }
                    )pb"))
            .ok());
    ASSERT_TRUE(UpsertBodies(registry, ops, Circles("arena", {1})).ok());
    EXPECT_EQ(persistence->store().snapshots_written(), 1u);
  }
  SceneRegistry restored(limits_);
  SceneOpsOptions ops;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops, &report);
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(report.scenes_restored, 1u);
  EXPECT_EQ(report.records_replayed, 1u);  // The upsert.
  EXPECT_EQ(report.records_failed, 0u);
  absl::StatusOr<sator::v1::SceneInfo> info = GetScene(
      restored, Parse<sator::v1::GetSceneRequest>(R"pb(scene_id: "arena")pb"));
  ASSERT_TRUE(info.ok()) << "acknowledged scene lost: " << info.status();
  EXPECT_EQ(info->stats().body_count(), 1u);
}

// The same for ImportScene: the snapshot holds the imported bodies.
TEST_F(SceneDurabilityTest, SnapshotRightAfterImportIsLoggedKeepsTheScene) {
  std::map<std::string, sator::v1::SceneSnapshot> expected;
  {
    SceneRegistry registry(limits_);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    ops.on_mutation =
        SnapshotAfter<sator::v1::ImportSceneRequest>(persistence.get());
    ASSERT_TRUE(
        ImportScene(registry, ops, Parse<sator::v1::ImportSceneRequest>(R"pb(
                      snapshot {
                        scene_id: "copy"
                        settings { dimension: DIMENSION_2D }
                        bodies {
                          body_id: 4
                          motion_type: MOTION_TYPE_STATIC
                          shape { circle { radius: 2 } }
                        }
                      }
                    )pb"))
            .ok());
    ASSERT_TRUE(UpsertBodies(registry, ops, Circles("copy", {1})).ok());
    EXPECT_EQ(persistence->store().snapshots_written(), 1u);
    expected = ExportAll(registry);
  }
  SceneRegistry restored(limits_);
  SceneOpsOptions ops;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops, &report);
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(report.scenes_restored, 1u);
  EXPECT_EQ(report.records_replayed, 1u);  // The upsert.
  EXPECT_EQ(report.records_failed, 0u);
  ExpectSameScenes(expected, ExportAll(restored));
  ASSERT_TRUE(expected.contains("copy"));
  EXPECT_EQ(expected.at("copy").bodies_size(), 2);
}

// A creation or import the hook refuses is in no snapshot, even one written
// before CreateScene / ImportScene has undone it.
TEST_F(SceneDurabilityTest, RefusedCreationIsInNoSnapshot) {
  {
    SceneRegistry registry(limits_);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    SceneOpsOptions refusing = ops;
    refusing.on_mutation = SnapshotAfter<sator::v1::CreateSceneRequest>(
        persistence.get(), /*refuse=*/true);
    EXPECT_EQ(CreateScene(registry, refusing,
                          Parse<sator::v1::CreateSceneRequest>(R"pb(
                            scene_id: "never"
                            settings { dimension: DIMENSION_2D }
                          )pb"))
                  .status()
                  .code(),
              absl::StatusCode::kUnavailable);
    refusing.on_mutation = SnapshotAfter<sator::v1::ImportSceneRequest>(
        persistence.get(), /*refuse=*/true);
    EXPECT_EQ(ImportScene(registry, refusing,
                          Parse<sator::v1::ImportSceneRequest>(R"pb(
                            snapshot {
                              scene_id: "nor"
                              settings { dimension: DIMENSION_3D }
                            }
                          )pb"))
                  .status()
                  .code(),
              absl::StatusCode::kUnavailable);
    EXPECT_EQ(persistence->store().snapshots_written(), 2u);
    EXPECT_EQ(registry.size(), 0u);
  }
  SceneRegistry restored(limits_);
  SceneOpsOptions ops;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops, &report);
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(report.scenes_restored, 0u);
  EXPECT_EQ(report.records_failed, 0u);
  EXPECT_EQ(restored.size(), 0u);
}

// A request that passes validation but that the core refuses (an unknown
// body id) is logged, refused, and marked: replay refuses it again, quietly.
TEST_F(SceneDurabilityTest, RefusedMutationIsExpectedOnReplay) {
  {
    SceneRegistry registry(limits_);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    sator::v1::CreateSceneRequest create;
    create.set_scene_id("arena");
    create.mutable_settings()->set_dimension(sator::v1::DIMENSION_2D);
    ASSERT_TRUE(CreateScene(registry, ops, create).ok());
    ASSERT_TRUE(UpsertBodies(registry, ops, Circles("arena", {1, 2})).ok());
    sator::v1::RemoveBodiesRequest remove;
    remove.set_scene_id("arena");
    remove.add_body_ids(1);
    remove.add_body_ids(99);
    EXPECT_EQ(RemoveBodies(registry, ops, remove).status().code(),
              absl::StatusCode::kNotFound);
  }
  SceneRegistry restored(limits_);
  SceneOpsOptions ops;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops, &report);
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(report.records_replayed, 2u);
  EXPECT_EQ(report.records_refused, 1u);
  EXPECT_EQ(report.records_failed, 0u);
  const std::map<std::string, sator::v1::SceneSnapshot> scenes =
      ExportAll(restored);
  ASSERT_TRUE(scenes.contains("arena"));
  EXPECT_EQ(scenes.at("arena").bodies_size(), 2);  // Body 1 stayed.
}

// The settings a scene got from the default flags are in its creation's
// record: replay under other defaults rebuilds the scene that was
// acknowledged, not one with the new defaults.
TEST_F(SceneDurabilityTest, ReplayKeepsTheDefaultsTheSceneWasCreatedWith) {
  SceneLimits before = limits_;
  before.default_history_ticks = 16;
  before.max_bodies_per_scene = 500;
  std::map<std::string, sator::v1::SceneSnapshot> expected;
  {
    SceneRegistry registry(before);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    // Both left at 0, and only in the log (no snapshot).
    ASSERT_TRUE(
        CreateScene(registry, ops, Parse<sator::v1::CreateSceneRequest>(R"pb(
                      scene_id: "created"
                      settings { dimension: DIMENSION_2D }
                    )pb"))
            .ok());
    ASSERT_TRUE(
        ImportScene(registry, ops, Parse<sator::v1::ImportSceneRequest>(R"pb(
                      snapshot {
                        scene_id: "imported"
                        settings { dimension: DIMENSION_3D }
                      }
                    )pb"))
            .ok());
    expected = ExportAll(registry);
  }
  ASSERT_EQ(expected.size(), 2u);
  for (const auto& [id, snapshot] : expected) {
    EXPECT_EQ(snapshot.settings().history_ticks(), 16u) << id;
    EXPECT_EQ(snapshot.settings().max_bodies(), 500u) << id;
  }
  SceneLimits after = limits_;
  after.default_history_ticks = 32;
  after.max_bodies_per_scene = 1000;
  SceneRegistry restored(after);
  SceneOpsOptions ops;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops, &report);
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(report.records_replayed, 2u);
  EXPECT_EQ(report.records_failed, 0u);
  ExpectSameScenes(expected, ExportAll(restored));
}

// A scene acknowledged under higher limit flags comes back as it was, from
// the log and from a snapshot, though a request for its settings under the
// lowered flags is refused.
TEST_F(SceneDurabilityTest, ReplayKeepsSettingsAboveLoweredLimits) {
  std::map<std::string, sator::v1::SceneSnapshot> expected;
  const std::string big = R"pb(
    settings { dimension: DIMENSION_2D history_ticks: 16 max_bodies: 500 }
  )pb";
  {
    SceneRegistry registry(limits_);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    ASSERT_TRUE(CreateScene(registry, ops,
                            Parse<sator::v1::CreateSceneRequest>(
                                absl::StrCat("scene_id: 'snapshotted' ", big)))
                    .ok());
    ASSERT_TRUE(persistence->SnapshotNow().ok());
    ASSERT_TRUE(CreateScene(registry, ops,
                            Parse<sator::v1::CreateSceneRequest>(
                                absl::StrCat("scene_id: 'logged' ", big)))
                    .ok());
    ASSERT_TRUE(UpsertBodies(registry, ops, Circles("logged", {1, 2})).ok());
    expected = ExportAll(registry);
  }
  SceneLimits lowered = limits_;
  lowered.max_history_ticks = 8;
  lowered.default_history_ticks = 8;
  lowered.max_bodies_per_scene = 100;
  SceneRegistry restored(lowered);
  SceneOpsOptions ops;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops, &report);
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(report.scenes_restored, 1u);
  EXPECT_EQ(report.scenes_failed, 0u);
  EXPECT_EQ(report.records_replayed, 2u);
  EXPECT_EQ(report.records_failed, 0u);
  ExpectSameScenes(expected, ExportAll(restored));
  // New requests meet the lowered limits.
  EXPECT_EQ(CreateScene(restored, ops,
                        Parse<sator::v1::CreateSceneRequest>(
                            absl::StrCat("scene_id: 'new' ", big)))
                .status()
                .code(),
            absl::StatusCode::kResourceExhausted);
}

// Writers on several scenes through scene_ops with the hook, snapshots in
// between: recovery rebuilds exactly the final bodies of every scene.
TEST_F(SceneDurabilityTest, SnapshotsDuringConcurrentWritesRecoverExactly) {
  constexpr int kWriters = 4;
  constexpr int kWrites = 30;
  std::map<std::string, sator::v1::SceneSnapshot> expected;
  {
    SceneRegistry registry(limits_);
    SceneOpsOptions ops;
    std::unique_ptr<ScenePersistence> persistence = Open(registry, &ops);
    ASSERT_NE(persistence, nullptr);
    std::atomic<int> failures{0};
    std::atomic<int> writers_left{kWriters};
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        const std::string id = absl::StrCat("s", w % 2);  // Shared scenes.
        sator::v1::CreateSceneRequest create;
        create.set_scene_id(id);
        create.mutable_settings()->set_dimension(sator::v1::DIMENSION_2D);
        (void)CreateScene(registry, ops, create);  // One of two wins.
        for (int i = 0; i < kWrites; ++i) {
          const std::uint64_t body =
              static_cast<std::uint64_t>(w * 1000 + i + 1);
          if (absl::Status s =
                  UpsertBodies(registry, ops, Circles(id, {body})).status();
              !s.ok()) {
            ADD_FAILURE() << s;
            failures.fetch_add(1);
          }
          if (i % 3 == 2) {
            sator::v1::RemoveBodiesRequest remove;
            remove.set_scene_id(id);
            remove.add_body_ids(body - 1);
            if (absl::Status s = RemoveBodies(registry, ops, remove).status();
                !s.ok()) {
              ADD_FAILURE() << s;
              failures.fetch_add(1);
            }
          }
        }
        writers_left.fetch_sub(1);
      });
    }
    int snapshots = 0;
    while (writers_left.load() > 0 && snapshots < 40) {
      if (absl::Status s = persistence->SnapshotNow(); !s.ok()) {
        ADD_FAILURE() << s;
        failures.fetch_add(1);
      }
      ++snapshots;
    }
    for (std::thread& thread : threads) thread.join();
    ASSERT_EQ(failures.load(), 0);
    expected = ExportAll(registry);
  }
  SceneRegistry restored(limits_);
  SceneOpsOptions ops;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence = Open(restored, &ops, &report);
  ASSERT_NE(persistence, nullptr);
  EXPECT_EQ(report.records_failed, 0u);
  ExpectSameScenes(expected, ExportAll(restored));
}

}  // namespace
}  // namespace sator::server
