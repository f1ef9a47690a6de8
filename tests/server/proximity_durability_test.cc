// Zones and observers go where their scene goes: through the write-ahead
// log and the data directory's snapshots across a restart, and through
// ExportScene and ImportScene; a bad zone in an imported snapshot refuses
// the whole import.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "server/durability/scene_persistence.h"
#include "server/proximity/proximity_hosts.h"
#include "server/proximity/proximity_ops.h"
#include "server/scenes/scene_ops.h"
#include "server/scenes/scene_registry.h"
#include "support/text_proto.h"

namespace sator::server {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

template <typename Message>
Message Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<Message>(text);
}

// One process's worth of state: scenes, their zones and observers, wired as
// satord wires them, over a data directory.
struct Process {
  explicit Process(const std::string& dir) : scenes(SceneLimits{}) {
    ops.export_companion = [this](const HostedScene& scene,
                                  sator::v1::SceneSnapshot* out) {
      ExportProximity(hosts, scene, out);
    };
    ops.import_companion = [this](HostedScene& scene,
                                  const sator::v1::SceneSnapshot& snapshot) {
      return ImportProximity(hosts, ops.shape_limits, scene, snapshot);
    };
    ops.on_scene_written = [this](const HostedScene& scene) {
      hosts.OnSceneWritten(scene);
    };
    PersistenceOptions options;
    options.data_dir = dir;
    options.snapshot_interval = absl::ZeroDuration();
    absl::StatusOr<std::unique_ptr<ScenePersistence>> opened =
        ScenePersistence::Open(options, scenes, ops, hosts, &report);
    EXPECT_TRUE(opened.ok()) << opened.status();
    if (!opened.ok()) return;
    persistence = *std::move(opened);
    ops.on_mutation = [this](const std::string& id,
                             const google::protobuf::Message& request,
                             absl::FunctionRef<absl::Status()> apply) {
      return persistence->OnMutation(id, request, apply);
    };
    proximity.shape_limits = ops.shape_limits;
    proximity.on_mutation = ops.on_mutation;
  }

  // GetProximity's answer for `scene_id`, without the next sequence (which
  // counts this process's evaluations).
  sator::v1::GetProximityResponse Describe(const std::string& scene_id) {
    sator::v1::GetProximityResponse described;
    absl::StatusOr<std::shared_ptr<HostedScene>> scene = scenes.Find(scene_id);
    EXPECT_TRUE(scene.ok()) << scene.status();
    if (!scene.ok()) return described;
    const std::shared_ptr<ProximityHost> host = hosts.Find(**scene);
    EXPECT_NE(host, nullptr) << scene_id;
    if (host != nullptr) host->Describe(&described);
    described.clear_next_sequence();
    return described;
  }

  SceneRegistry scenes;
  ProximityHosts hosts{ProximityLimits{}};
  SceneOpsOptions ops;
  ProximityOpsOptions proximity;
  durability::RecoveryReport report;
  std::unique_ptr<ScenePersistence> persistence;
};

class ProximityDurabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TMPDIR");
    dir_ = absl::StrCat(base != nullptr ? base : "/tmp",
                        "/sator_proximity_durability_XXXXXX");
    ASSERT_NE(mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A 2D scene "yard" with balls 1 (x=1), 2 (x=5) and 3 (x=20).
  static void MakeYard(Process& process) {
    ASSERT_TRUE(CreateScene(process.scenes, process.ops,
                            Parse<sator::v1::CreateSceneRequest>(R"pb(
                              scene_id: "yard"
                              settings { dimension: DIMENSION_2D }
                            )pb"))
                    .ok());
    ASSERT_TRUE(UpsertBodies(process.scenes, process.ops,
                             Parse<sator::v1::UpsertBodiesRequest>(R"pb(
                               scene_id: "yard"
                               bodies {
                                 body_id: 1
                                 motion_type: MOTION_TYPE_DYNAMIC
                                 shape { circle { radius: 0.5 } }
                                 pose { position { x: 1 } }
                               }
                               bodies {
                                 body_id: 2
                                 motion_type: MOTION_TYPE_DYNAMIC
                                 shape { circle { radius: 0.5 } }
                                 pose { position { x: 5 } }
                               }
                               bodies {
                                 body_id: 3
                                 motion_type: MOTION_TYPE_DYNAMIC
                                 shape { circle { radius: 0.5 } }
                                 pose { position { x: 20 } }
                               }
                             )pb"))
                    .ok());
  }

  std::string dir_;
};

TEST_F(ProximityDurabilityTest, ZonesAndObserversSurviveARestart) {
  sator::v1::GetProximityResponse before;
  {
    Process process(dir_);
    ASSERT_NE(process.persistence, nullptr);
    MakeYard(process);
    // Before the snapshot: restored from it.
    ASSERT_TRUE(AddZone(process.scenes, process.hosts, process.proximity,
                        Parse<sator::v1::AddZoneRequest>(R"pb(
                          scene_id: "yard"
                          zone {
                            id: 1
                            shape { circle { radius: 2 } }
                            report_inside: true
                          }
                        )pb"))
                    .ok());
    ASSERT_TRUE(AddZone(process.scenes, process.hosts, process.proximity,
                        Parse<sator::v1::AddZoneRequest>(R"pb(
                          scene_id: "yard"
                          zone {
                            id: 2
                            shape { circle { radius: 1 } }
                            anchor { body_id: 2 }
                          }
                        )pb"))
                    .ok());
    ASSERT_TRUE(process.persistence->SnapshotNow().ok());
    // After it: replayed from the log, a refusal included.
    ASSERT_TRUE(AddObserver(process.scenes, process.hosts, process.proximity,
                            Parse<sator::v1::AddObserverRequest>(R"pb(
                              scene_id: "yard"
                              observer {
                                id: 7
                                anchor { body_id: 1 }
                                radius: 10
                                hysteresis: 1
                              }
                            )pb"))
                    .ok());
    EXPECT_EQ(AddZone(process.scenes, process.hosts, process.proximity,
                      Parse<sator::v1::AddZoneRequest>(R"pb(
                        scene_id: "yard"
                        zone {
                          id: 1
                          shape { circle { radius: 3 } }
                        }
                      )pb"))
                  .status()
                  .code(),
              absl::StatusCode::kAlreadyExists);
    ASSERT_TRUE(AddZone(process.scenes, process.hosts, process.proximity,
                        Parse<sator::v1::AddZoneRequest>(R"pb(
                          scene_id: "yard"
                          zone {
                            id: 3
                            shape { circle { radius: 1 } }
                          }
                        )pb"))
                    .ok());
    ASSERT_TRUE(
        RemoveZone(process.scenes, process.hosts, process.proximity,
                   Parse<sator::v1::RemoveZoneRequest>(R"pb(scene_id: "yard"
                                                            zone_id: 3)pb"))
            .ok());
    // Zone 2's anchor goes: the zone stays, holding nothing.
    ASSERT_TRUE(RemoveBodies(process.scenes, process.ops,
                             Parse<sator::v1::RemoveBodiesRequest>(
                                 R"pb(scene_id: "yard"
                                      body_ids: [ 2 ])pb"))
                    .ok());
    before = process.Describe("yard");
  }
  ASSERT_EQ(before.zones_size(), 2);
  ASSERT_EQ(before.observers_size(), 1);
  {
    Process restored(dir_);
    ASSERT_NE(restored.persistence, nullptr);
    EXPECT_EQ(restored.report.records_failed, 0u);
    const sator::v1::GetProximityResponse after = restored.Describe("yard");
    EXPECT_TRUE(MessageDifferencer::Equals(before, after))
        << before.DebugString() << "\nvs\n"
        << after.DebugString();
    // A snapshot now holds zone 2 with its anchor gone; it restores too.
    ASSERT_TRUE(restored.persistence->SnapshotNow().ok());
  }
  Process again(dir_);
  ASSERT_NE(again.persistence, nullptr);
  const sator::v1::GetProximityResponse last = again.Describe("yard");
  EXPECT_TRUE(MessageDifferencer::Equals(before, last))
      << before.DebugString() << "\nvs\n"
      << last.DebugString();
}

TEST_F(ProximityDurabilityTest, ExportAndImportCarryZonesAndObservers) {
  Process process(dir_);
  ASSERT_NE(process.persistence, nullptr);
  MakeYard(process);
  ASSERT_TRUE(AddZone(process.scenes, process.hosts, process.proximity,
                      Parse<sator::v1::AddZoneRequest>(R"pb(
                        scene_id: "yard"
                        zone {
                          id: 1
                          shape { circle { radius: 6 } }
                        }
                      )pb"))
                  .ok());
  ASSERT_TRUE(AddObserver(process.scenes, process.hosts, process.proximity,
                          Parse<sator::v1::AddObserverRequest>(R"pb(
                            scene_id: "yard"
                            observer {
                              id: 7
                              anchor { body_id: 3 }
                              radius: 2
                            }
                          )pb"))
                  .ok());
  // A write evaluates them.
  ASSERT_TRUE(UpdatePoses(process.scenes, process.ops,
                          Parse<sator::v1::UpdatePosesRequest>(R"pb(
                            scene_id: "yard"
                            tick: 1
                          )pb"))
                  .ok());
  absl::StatusOr<sator::v1::SceneSnapshot> exported = ExportScene(
      process.scenes, process.ops,
      Parse<sator::v1::ExportSceneRequest>(R"pb(scene_id: "yard")pb"));
  ASSERT_TRUE(exported.ok()) << exported.status();
  ASSERT_EQ(exported->zones_size(), 1);
  ASSERT_EQ(exported->observers_size(), 1);
  EXPECT_EQ(exported->zones(0).id(), 1u);
  EXPECT_EQ(exported->observers(0).id(), 7u);

  sator::v1::ImportSceneRequest import;
  *import.mutable_snapshot() = *exported;
  import.mutable_snapshot()->set_scene_id("copy");
  ASSERT_TRUE(ImportScene(process.scenes, process.ops, import).ok());
  // The copy's sets are computed at the import: zone 1 holds balls 1 and 2.
  const sator::v1::GetProximityResponse original = process.Describe("yard");
  const sator::v1::GetProximityResponse copy = process.Describe("copy");
  EXPECT_TRUE(MessageDifferencer::Equals(original, copy))
      << original.DebugString() << "\nvs\n"
      << copy.DebugString();
  ASSERT_EQ(copy.sets_size(), 2);
  EXPECT_EQ(copy.sets(0).objects_size(), 2);

  // One bad zone refuses the whole import, naming it; nothing is left.
  sator::v1::ImportSceneRequest bad = import;
  bad.mutable_snapshot()->set_scene_id("bad");
  bad.mutable_snapshot()->add_zones()->set_id(9);  // No shape.
  const absl::Status refused =
      ImportScene(process.scenes, process.ops, bad).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("snapshot.zones[1]"));
  EXPECT_EQ(process.scenes.Find("bad").status().code(),
            absl::StatusCode::kNotFound);
  sator::v1::ImportSceneRequest duplicate = import;
  duplicate.mutable_snapshot()->set_scene_id("twice");
  *duplicate.mutable_snapshot()->add_observers() = exported->observers(0);
  const absl::Status twice =
      ImportScene(process.scenes, process.ops, duplicate).status();
  EXPECT_EQ(twice.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(twice.message(), HasSubstr("snapshot.observers[1]"));
  EXPECT_EQ(process.scenes.Find("twice").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace sator::server
