// Durability end to end: the real satord with --data_dir, driven through the
// generated stubs.
//
// - kill -9 at random moments (seeded) in the middle of a stream of writes
//   from several clients, 20 rounds on one data directory: after each
//   restart every acknowledged scene and body write is there, and nothing
//   appears that was not written (only the one write per client that was in
//   flight at the kill may go either way).
// - SIGTERM loses nothing: scenes, bodies, poses, ticks, zones and observers
//   come back equal.
// - A log with a truncated tail (a write torn by the crash, never
//   acknowledged) recovers every whole record. A corrupt middle record is an
//   acknowledged write lost: satord refuses to start, naming the gap, until
//   --allow_recovery_loss, which skips it and keeps every other record; the
//   loss given up, later starts need no flag.
// - Scenes keep the settings they were acknowledged with across restarts
//   with other default or limit flags.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "sator/v1/body_service.grpc.pb.h"
#include "sator/v1/proximity.grpc.pb.h"
#include "sator/v1/scene_service.grpc.pb.h"
#include "server/durability/file_io.h"
#include "server/durability/record_format.h"
#include "server/durability/wal_writer.h"
#include "support/satord_process.h"
#include "support/text_proto.h"

namespace sator {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::sator::testing::SatordProcess;

std::unique_ptr<grpc::ClientContext> Context(
    std::chrono::milliseconds from_now = std::chrono::seconds(10)) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + from_now);
  return context;
}

template <typename Message>
Message Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<Message>(text);
}

// A running satord on `data_dir` with stubs connected to it.
struct Instance {
  std::unique_ptr<SatordProcess> process = std::make_unique<SatordProcess>();
  std::unique_ptr<sator::v1::SceneService::Stub> scenes;
  std::unique_ptr<sator::v1::BodyService::Stub> bodies;
  std::unique_ptr<sator::v1::ProximityService::Stub> proximity;
};

absl::Status StartInstance(const std::string& data_dir,
                           const std::vector<std::string>& extra,
                           Instance* instance) {
  instance->process = std::make_unique<SatordProcess>();
  std::vector<std::string> args = {"--data_dir=" + data_dir,
                                   "--metrics_address="};
  args.insert(args.end(), extra.begin(), extra.end());
  if (absl::Status started = instance->process->Start(args); !started.ok()) {
    return started;
  }
  std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(
      instance->process->grpc_target(), grpc::InsecureChannelCredentials());
  instance->scenes = sator::v1::SceneService::NewStub(channel);
  instance->bodies = sator::v1::BodyService::NewStub(channel);
  instance->proximity = sator::v1::ProximityService::NewStub(channel);
  return absl::OkStatus();
}

std::vector<std::string> ListSceneIds(sator::v1::SceneService::Stub& scenes) {
  std::vector<std::string> ids;
  sator::v1::ListScenesRequest request;
  request.set_page_size(1000);
  sator::v1::ListScenesResponse page;
  const grpc::Status status =
      scenes.ListScenes(Context().get(), request, &page);
  EXPECT_TRUE(status.ok()) << status.error_message();
  for (const sator::v1::SceneInfo& info : page.scenes()) {
    ids.push_back(info.scene_id());
  }
  return ids;
}

std::optional<sator::v1::SceneSnapshot> Export(
    sator::v1::SceneService::Stub& scenes, const std::string& id) {
  sator::v1::ExportSceneRequest request;
  request.set_scene_id(id);
  sator::v1::SceneSnapshot snapshot;
  const grpc::Status status =
      scenes.ExportScene(Context().get(), request, &snapshot);
  if (!status.ok()) return std::nullopt;
  return snapshot;
}

// The radius every body with this id is given, so a restored body can be
// checked against its id alone.
float RadiusOf(std::uint64_t body_id) {
  return 0.25f + static_cast<float>(body_id % 97) * 0.01f;
}

// ---- kill -9 in a stream of writes --------------------------------------

// One client's view: its acknowledged scenes and bodies, and the write it
// had in flight (if any) when the server died.
struct ClientModel {
  std::map<std::string, std::set<std::uint64_t>> scenes;
  std::map<std::string, std::int64_t> ticks;
  enum class Kind { kNone, kCreate, kDelete, kUpsert, kRemove, kPoses };
  Kind in_flight = Kind::kNone;
  std::string in_flight_scene;
  std::vector<std::uint64_t> in_flight_bodies;
  int next_scene = 0;
  std::uint64_t next_body = 1;
};

class Writer {
 public:
  Writer(int index, std::uint32_t seed, ClientModel* model)
      : index_(index), random_(seed), model_(model) {}

  // Writes until a call fails (the server died) or `max_writes` are
  // acknowledged. Counts acknowledgements in `acked`.
  void Run(Instance& instance, int max_writes, std::atomic<int>* acked,
           std::condition_variable* progress) {
    for (int i = 0; i < max_writes; ++i) {
      if (!WriteOne(instance)) return;
      acked->fetch_add(1);
      progress->notify_all();
    }
  }

 private:
  std::string PickScene() {
    auto it = model_->scenes.begin();
    std::advance(it, std::uniform_int_distribution<std::size_t>(
                         0, model_->scenes.size() - 1)(random_));
    return it->first;
  }

  bool WriteOne(Instance& instance) {
    const int roll = std::uniform_int_distribution<int>(0, 99)(random_);
    ClientModel& m = *model_;
    if (m.scenes.empty() || (roll < 8 && m.scenes.size() < 4)) {
      const std::string id = absl::StrCat("c", index_, "-s", m.next_scene++);
      sator::v1::CreateSceneRequest request;
      request.set_scene_id(id);
      request.mutable_settings()->set_dimension(sator::v1::DIMENSION_2D);
      request.mutable_settings()->set_history_ticks(4);
      m.in_flight = ClientModel::Kind::kCreate;
      m.in_flight_scene = id;
      sator::v1::SceneInfo info;
      if (!instance.scenes->CreateScene(Context().get(), request, &info).ok()) {
        return false;
      }
      m.scenes[id];
      m.ticks[id] = 0;
    } else if (roll < 12 && m.scenes.size() >= 2) {
      const std::string id = PickScene();
      sator::v1::DeleteSceneRequest request;
      request.set_scene_id(id);
      m.in_flight = ClientModel::Kind::kDelete;
      m.in_flight_scene = id;
      sator::v1::DeleteSceneResponse response;
      if (!instance.scenes->DeleteScene(Context().get(), request, &response)
               .ok()) {
        return false;
      }
      m.scenes.erase(id);
      m.ticks.erase(id);
    } else if (roll < 65) {
      const std::string id = PickScene();
      sator::v1::UpsertBodiesRequest request;
      request.set_scene_id(id);
      m.in_flight = ClientModel::Kind::kUpsert;
      m.in_flight_scene = id;
      m.in_flight_bodies.clear();
      const int count = std::uniform_int_distribution<int>(1, 3)(random_);
      std::uniform_real_distribution<float> coordinate(-50.0f, 50.0f);
      for (int k = 0; k < count; ++k) {
        const std::uint64_t body_id =
            static_cast<std::uint64_t>(index_) * 1'000'000 + m.next_body++;
        sator::v1::Body* body = request.add_bodies();
        body->set_body_id(body_id);
        body->set_motion_type(sator::v1::MOTION_TYPE_DYNAMIC);
        body->mutable_shape()->mutable_circle()->set_radius(RadiusOf(body_id));
        body->mutable_pose()->mutable_position()->set_x(coordinate(random_));
        body->mutable_pose()->mutable_position()->set_y(coordinate(random_));
        m.in_flight_bodies.push_back(body_id);
      }
      sator::v1::UpsertBodiesResponse response;
      if (!instance.bodies->UpsertBodies(Context().get(), request, &response)
               .ok()) {
        return false;
      }
      m.scenes[id].insert(m.in_flight_bodies.begin(), m.in_flight_bodies.end());
    } else if (roll < 85) {
      const std::string id = PickScene();
      std::set<std::uint64_t>& bodies = m.scenes[id];
      if (bodies.empty()) return WriteOne(instance);
      sator::v1::RemoveBodiesRequest request;
      request.set_scene_id(id);
      m.in_flight = ClientModel::Kind::kRemove;
      m.in_flight_scene = id;
      m.in_flight_bodies = {*bodies.begin()};
      if (bodies.size() > 1) m.in_flight_bodies.push_back(*bodies.rbegin());
      for (std::uint64_t body_id : m.in_flight_bodies) {
        request.add_body_ids(body_id);
      }
      sator::v1::RemoveBodiesResponse response;
      if (!instance.bodies->RemoveBodies(Context().get(), request, &response)
               .ok()) {
        return false;
      }
      for (std::uint64_t body_id : m.in_flight_bodies) bodies.erase(body_id);
    } else {
      // Pose updates are not promised across kill -9 (only SIGTERM), but
      // they run in the stream so snapshots and replay meet them.
      const std::string id = PickScene();
      const std::set<std::uint64_t>& bodies = m.scenes[id];
      if (bodies.empty()) return WriteOne(instance);
      sator::v1::UpdatePosesRequest request;
      request.set_scene_id(id);
      request.set_tick(++m.ticks[id]);
      request.mutable_poses()->add_body_ids(*bodies.begin());
      request.mutable_poses()->add_positions(1.0f);
      request.mutable_poses()->add_positions(2.0f);
      request.mutable_poses()->add_rotations(0.5f);
      m.in_flight = ClientModel::Kind::kPoses;
      m.in_flight_scene = id;
      sator::v1::UpdatePosesResponse response;
      if (!instance.bodies->UpdatePoses(Context().get(), request, &response)
               .ok()) {
        return false;
      }
    }
    m.in_flight = ClientModel::Kind::kNone;
    return true;
  }

  const int index_;
  std::mt19937 random_;
  ClientModel* model_;
};

// Checks the restarted server against each client's model (allowing only
// the in-flight write to go either way), then adopts what the server holds.
void CheckAndResync(Instance& instance, std::vector<ClientModel>& models,
                    int round) {
  std::set<std::string> actual_ids;
  for (const std::string& id : ListSceneIds(*instance.scenes)) {
    actual_ids.insert(id);
  }
  for (std::size_t c = 0; c < models.size(); ++c) {
    ClientModel& m = models[c];
    const std::string prefix = absl::StrCat("c", c, "-");
    const bool flight_create = m.in_flight == ClientModel::Kind::kCreate;
    const bool flight_delete = m.in_flight == ClientModel::Kind::kDelete;
    // Scenes.
    for (const auto& [id, bodies] : m.scenes) {
      if (flight_delete && id == m.in_flight_scene) continue;
      EXPECT_TRUE(actual_ids.contains(id))
          << "round " << round << ": acknowledged scene " << id << " lost";
    }
    for (const std::string& id : actual_ids) {
      if (id.rfind(prefix, 0) != 0) continue;
      if (flight_create && id == m.in_flight_scene) continue;
      EXPECT_TRUE(m.scenes.contains(id))
          << "round " << round << ": scene " << id << " was never created "
          << "or was deleted";
    }
    // Bodies.
    std::map<std::string, std::set<std::uint64_t>> adopted;
    std::map<std::string, std::int64_t> ticks;
    for (const std::string& id : actual_ids) {
      if (id.rfind(prefix, 0) != 0) continue;
      std::optional<sator::v1::SceneSnapshot> snapshot =
          Export(*instance.scenes, id);
      ASSERT_TRUE(snapshot.has_value()) << id;
      std::set<std::uint64_t> actual;
      for (const sator::v1::Body& body : snapshot->bodies()) {
        actual.insert(body.body_id());
        EXPECT_EQ(body.shape().circle().radius(), RadiusOf(body.body_id()))
            << "round " << round << ": body " << body.body_id();
      }
      const bool uncertain_scene = id == m.in_flight_scene;
      std::set<std::uint64_t> uncertain;
      if (uncertain_scene && (m.in_flight == ClientModel::Kind::kUpsert ||
                              m.in_flight == ClientModel::Kind::kRemove)) {
        uncertain.insert(m.in_flight_bodies.begin(), m.in_flight_bodies.end());
      }
      if (m.scenes.contains(id)) {
        for (std::uint64_t body_id : m.scenes.at(id)) {
          if (uncertain.contains(body_id)) continue;
          EXPECT_TRUE(actual.contains(body_id))
              << "round " << round << ": acknowledged body " << body_id
              << " of " << id << " lost";
        }
      }
      for (std::uint64_t body_id : actual) {
        if (uncertain.contains(body_id)) continue;
        EXPECT_TRUE(m.scenes.contains(id) && m.scenes.at(id).contains(body_id))
            << "round " << round << ": body " << body_id << " of " << id
            << " was never written or was removed";
      }
      adopted[id] = actual;
      ticks[id] = snapshot->current_tick();
    }
    m.scenes = adopted;
    m.ticks = ticks;
    m.in_flight = ClientModel::Kind::kNone;
  }
}

TEST(DurabilityEndToEnd, KillNineNeverLosesAnAcknowledgedWrite) {
  // About 0.2 s a round in Release and 0.4 s under ASan+UBSan on 2 cores,
  // so the sanitizer build runs every round too.
  constexpr int rounds = 20;
  constexpr int kClients = 3;
  const std::string data_dir = testing::MakeTempDir("durability-kill");
  std::mt19937 random(20261123);
  std::vector<ClientModel> models(kClients);
  const absl::Time test_deadline = absl::Now() + absl::Seconds(150);
  int total_acked = 0;
  for (int round = 0; round < rounds && absl::Now() < test_deadline; ++round) {
    Instance instance;
    // Snapshots every 100 ms, so kills also land during and between them.
    ASSERT_TRUE(
        StartInstance(data_dir, {"--snapshot_interval=100ms"}, &instance).ok())
        << instance.process->ReadLog();
    if (round > 0) {
      CheckAndResync(instance, models, round);
      if (::testing::Test::HasFailure()) {
        ADD_FAILURE() << instance.process->ReadLog();
        return;
      }
    }
    // Kill after a random number of acknowledged writes, while the writers
    // go on writing.
    const int kill_after = std::uniform_int_distribution<int>(5, 150)(random);
    std::atomic<int> acked{0};
    std::mutex mutex;
    std::condition_variable progress;
    std::vector<std::thread> threads;
    for (int c = 0; c < kClients; ++c) {
      const std::uint32_t seed = random();
      threads.emplace_back([&, c, seed] {
        Writer writer(c, seed, &models[c]);
        writer.Run(instance, 1000, &acked, &progress);
      });
    }
    {
      std::unique_lock<std::mutex> lock(mutex);
      progress.wait_for(lock, std::chrono::seconds(20),
                        [&] { return acked.load() >= kill_after; });
    }
    ASSERT_TRUE(instance.process->Signal(SIGKILL).ok());
    absl::StatusOr<int> exit = instance.process->WaitForExit(absl::Seconds(10));
    ASSERT_TRUE(exit.ok());
    EXPECT_EQ(*exit, 128 + SIGKILL);
    for (std::thread& thread : threads) thread.join();
    EXPECT_GE(acked.load(), kill_after) << "round " << round;
    total_acked += acked.load();
  }
  Instance last;
  ASSERT_TRUE(StartInstance(data_dir, {}, &last).ok())
      << last.process->ReadLog();
  CheckAndResync(last, models, rounds);
  EXPECT_GT(total_acked, rounds * 5);
  std::filesystem::remove_all(data_dir);
}

// ---- SIGTERM ---------------------------------------------------------------

TEST(DurabilityEndToEnd, SigtermLosesNothingPosesIncluded) {
  const std::string data_dir = testing::MakeTempDir("durability-term");
  std::vector<sator::v1::SceneSnapshot> before;
  {
    Instance instance;
    // No periodic snapshot: only the one written on SIGTERM has the poses.
    ASSERT_TRUE(
        StartInstance(data_dir, {"--snapshot_interval=0s"}, &instance).ok())
        << instance.process->ReadLog();
    sator::v1::SceneInfo info;
    ASSERT_TRUE(instance.scenes
                    ->CreateScene(Context().get(),
                                  Parse<sator::v1::CreateSceneRequest>(R"pb(
                                    scene_id: "flat"
                                    settings {
                                      dimension: DIMENSION_2D
                                      history_ticks: 8
                                      teleport_distance: 3
                                    }
                                  )pb"),
                                  &info)
                    .ok());
    ASSERT_TRUE(instance.scenes
                    ->CreateScene(Context().get(),
                                  Parse<sator::v1::CreateSceneRequest>(R"pb(
                                    scene_id: "deep"
                                    settings { dimension: DIMENSION_3D }
                                  )pb"),
                                  &info)
                    .ok());
    sator::v1::UpsertBodiesResponse upserted;
    grpc::Status status = instance.bodies->UpsertBodies(
        Context().get(), Parse<sator::v1::UpsertBodiesRequest>(R"pb(
          scene_id: "flat"
          bodies {
            body_id: 1
            motion_type: MOTION_TYPE_STATIC
            shape { box2d { half_extents { x: 5 y: 1 } } }
            layer: 4
            mask: 6
          }
          bodies {
            body_id: 2
            motion_type: MOTION_TYPE_DYNAMIC
            shape { circle { radius: 0.5 } }
            user_data: 77
          }
        )pb"),
        &upserted);
    ASSERT_TRUE(status.ok()) << status.error_message();
    status = instance.bodies->UpsertBodies(
        Context().get(), Parse<sator::v1::UpsertBodiesRequest>(R"pb(
          scene_id: "deep"
          bodies {
            body_id: 9
            motion_type: MOTION_TYPE_DYNAMIC
            shape { sphere { radius: 2 } }
          }
        )pb"),
        &upserted);
    ASSERT_TRUE(status.ok()) << status.error_message();
    sator::v1::UpdatePosesResponse updated;
    status = instance.bodies->UpdatePoses(
        Context().get(), Parse<sator::v1::UpdatePosesRequest>(R"pb(
          scene_id: "flat"
          tick: 12
          poses {
            body_ids: 2
            positions: [ 3, 4 ]
            rotations: 0.25
          }
        )pb"),
        &updated);
    ASSERT_TRUE(status.ok()) << status.error_message();
    status = instance.bodies->UpdatePoses(
        Context().get(), Parse<sator::v1::UpdatePosesRequest>(R"pb(
          scene_id: "deep"
          tick: 3
          poses {
            body_ids: 9
            positions: [ 1, 2, 3 ]
            rotations: [ 0, 0, 0.6, 0.8 ]
          }
        )pb"),
        &updated);
    ASSERT_TRUE(status.ok()) << status.error_message();
    // Zones and observers come back with their scene (Export shows them).
    sator::v1::AddZoneResponse zone_added;
    status = instance.proximity->AddZone(Context().get(),
                                         Parse<sator::v1::AddZoneRequest>(R"pb(
                                           scene_id: "flat"
                                           zone {
                                             id: 5
                                             shape { circle { radius: 4 } }
                                             anchor { body_id: 2 }
                                             filter { mask: 4 }
                                           }
                                         )pb"),
                                         &zone_added);
    ASSERT_TRUE(status.ok()) << status.error_message();
    sator::v1::AddObserverResponse observer_added;
    status = instance.proximity->AddObserver(
        Context().get(), Parse<sator::v1::AddObserverRequest>(R"pb(
          scene_id: "deep"
          observer {
            id: 6
            anchor { body_id: 9 }
            radius: 30
            hysteresis: 2
          }
        )pb"),
        &observer_added);
    ASSERT_TRUE(status.ok()) << status.error_message();
    for (const char* id : {"deep", "flat"}) {
      std::optional<sator::v1::SceneSnapshot> snapshot =
          Export(*instance.scenes, id);
      ASSERT_TRUE(snapshot.has_value());
      before.push_back(*snapshot);
    }
    EXPECT_EQ(before[1].current_tick(), 12);
    EXPECT_EQ(before[1].zones_size(), 1);
    EXPECT_EQ(before[0].observers_size(), 1);
    ASSERT_TRUE(instance.process->Signal(SIGTERM).ok());
    absl::StatusOr<int> exit = instance.process->WaitForExit(absl::Seconds(20));
    ASSERT_TRUE(exit.ok());
    EXPECT_EQ(*exit, 0) << instance.process->ReadLog();
    EXPECT_NE(instance.process->ReadLog().find("\"snapshot_written\""),
              std::string::npos);
  }
  Instance restarted;
  ASSERT_TRUE(StartInstance(data_dir, {}, &restarted).ok())
      << restarted.process->ReadLog();
  EXPECT_EQ(ListSceneIds(*restarted.scenes),
            (std::vector<std::string>{"deep", "flat"}));
  for (const sator::v1::SceneSnapshot& expected : before) {
    std::optional<sator::v1::SceneSnapshot> actual =
        Export(*restarted.scenes, expected.scene_id());
    ASSERT_TRUE(actual.has_value());
    EXPECT_TRUE(MessageDifferencer::Equals(expected, *actual))
        << "before:\n"
        << expected.DebugString() << "after:\n"
        << actual->DebugString();
  }
  std::filesystem::remove_all(data_dir);
}

// ---- damaged logs ----------------------------------------------------------

// Starts on an empty directory, creates "arena" and upserts bodies 1 to 5 in
// five requests, then kills satord, so that everything is in the log only.
void WriteFiveUpsertsAndKill(const std::string& data_dir) {
  Instance instance;
  ASSERT_TRUE(
      StartInstance(data_dir, {"--snapshot_interval=0s"}, &instance).ok())
      << instance.process->ReadLog();
  sator::v1::SceneInfo info;
  ASSERT_TRUE(
      instance.scenes
          ->CreateScene(Context().get(),
                        Parse<sator::v1::CreateSceneRequest>(
                            R"pb(scene_id: "arena"
                                 settings { dimension: DIMENSION_2D })pb"),
                        &info)
          .ok());
  for (std::uint64_t body_id = 1; body_id <= 5; ++body_id) {
    sator::v1::UpsertBodiesRequest request;
    request.set_scene_id("arena");
    sator::v1::Body* body = request.add_bodies();
    body->set_body_id(body_id);
    body->set_motion_type(sator::v1::MOTION_TYPE_DYNAMIC);
    body->mutable_shape()->mutable_circle()->set_radius(RadiusOf(body_id));
    sator::v1::UpsertBodiesResponse response;
    ASSERT_TRUE(
        instance.bodies->UpsertBodies(Context().get(), request, &response)
            .ok());
  }
  ASSERT_TRUE(instance.process->Signal(SIGKILL).ok());
  ASSERT_TRUE(instance.process->WaitForExit(absl::Seconds(10)).ok());
}

// The one log segment holding records, and the offsets of its records.
std::string SegmentWithRecords(const std::string& data_dir,
                               std::vector<std::size_t>* record_offsets) {
  absl::StatusOr<std::vector<std::string>> names =
      server::durability::ListFiles(data_dir);
  EXPECT_TRUE(names.ok());
  if (!names.ok()) return "";
  for (const std::string& name : *names) {
    std::uint64_t first_lsn = 0;
    if (!server::durability::ParseWalSegmentName(name, &first_lsn)) continue;
    const std::string path = data_dir + "/" + name;
    absl::StatusOr<std::string> bytes = server::durability::ReadWholeFile(path);
    if (!bytes.ok() || bytes->size() <= server::durability::kFileHeaderBytes) {
      continue;
    }
    server::durability::ParseRecords(
        absl::string_view(*bytes).substr(server::durability::kFileHeaderBytes),
        [&](const server::durability::Record& record) {
          record_offsets->push_back(server::durability::kFileHeaderBytes +
                                    record.offset);
        },
        [](const server::durability::DamagedRegion&) {});
    return path;
  }
  return "";
}

std::set<std::uint64_t> BodiesOf(Instance& instance, const std::string& id) {
  std::set<std::uint64_t> ids;
  std::optional<sator::v1::SceneSnapshot> snapshot =
      Export(*instance.scenes, id);
  EXPECT_TRUE(snapshot.has_value());
  if (!snapshot.has_value()) return ids;
  for (const sator::v1::Body& body : snapshot->bodies()) {
    ids.insert(body.body_id());
  }
  return ids;
}

TEST(DurabilityEndToEnd, TruncatedLogRecoversEveryWholeRecord) {
  const std::string data_dir = testing::MakeTempDir("durability-truncated");
  WriteFiveUpsertsAndKill(data_dir);
  if (::testing::Test::HasFatalFailure()) return;
  std::vector<std::size_t> offsets;
  const std::string segment = SegmentWithRecords(data_dir, &offsets);
  ASSERT_EQ(offsets.size(), 6u);  // Create, then five upserts.
  // A crash in the middle of writing the last record.
  std::filesystem::resize_file(segment, offsets[5] + 10);
  Instance instance;
  ASSERT_TRUE(StartInstance(data_dir, {}, &instance).ok())
      << instance.process->ReadLog();
  EXPECT_EQ(BodiesOf(instance, "arena"), (std::set<std::uint64_t>{1, 2, 3, 4}));
  const std::string log = instance.process->ReadLog();
  EXPECT_NE(log.find("\"wal_damaged_region_skipped\""), std::string::npos)
      << log;
  EXPECT_NE(log.find("\"at_tail\":true"), std::string::npos) << log;
  std::filesystem::remove_all(data_dir);
}

TEST(DurabilityEndToEnd, CorruptMiddleRecordIsSkippedAndLaterOnesRecovered) {
  const std::string data_dir = testing::MakeTempDir("durability-corrupt");
  WriteFiveUpsertsAndKill(data_dir);
  if (::testing::Test::HasFatalFailure()) return;
  std::vector<std::size_t> offsets;
  const std::string segment = SegmentWithRecords(data_dir, &offsets);
  ASSERT_EQ(offsets.size(), 6u);
  // Damage one payload byte of the upsert of body 3 (the fourth record).
  absl::StatusOr<std::string> bytes =
      server::durability::ReadWholeFile(segment);
  ASSERT_TRUE(bytes.ok());
  const std::size_t target =
      offsets[3] + server::durability::kRecordHeaderBytes + 4;
  (*bytes)[target] = static_cast<char>((*bytes)[target] ^ 0x20);
  std::ofstream(segment, std::ios::binary | std::ios::trunc) << *bytes;
  {
    // The upsert of body 3 was acknowledged: its loss stops the start.
    Instance refused;
    EXPECT_FALSE(StartInstance(data_dir, {}, &refused).ok());
    const std::string log = refused.process->ReadLog();
    EXPECT_NE(log.find("1 acknowledged log record is missing, in 1 gap: "
                       "LSN 4 (inside_segment"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("--allow_recovery_loss"), std::string::npos) << log;
  }
  Instance instance;
  ASSERT_TRUE(
      StartInstance(data_dir, {"--allow_recovery_loss"}, &instance).ok())
      << instance.process->ReadLog();
  EXPECT_EQ(BodiesOf(instance, "arena"), (std::set<std::uint64_t>{1, 2, 4, 5}));
  const std::string log = instance.process->ReadLog();
  EXPECT_NE(log.find("\"wal_damaged_region_skipped\""), std::string::npos)
      << log;
  EXPECT_NE(log.find("\"at_tail\":false"), std::string::npos) << log;
  EXPECT_NE(log.find("\"event\":\"wal_gap\",\"first_lsn\":4,\"last_lsn\":4"),
            std::string::npos)
      << log;
  // The server goes on logging after the damage: a new write survives the
  // next restart, which needs no flag (the loss was given up).
  sator::v1::RemoveBodiesRequest remove;
  remove.set_scene_id("arena");
  remove.add_body_ids(5);
  sator::v1::RemoveBodiesResponse removed;
  ASSERT_TRUE(
      instance.bodies->RemoveBodies(Context().get(), remove, &removed).ok());
  ASSERT_TRUE(instance.process->Signal(SIGKILL).ok());
  ASSERT_TRUE(instance.process->WaitForExit(absl::Seconds(10)).ok());
  Instance again;
  ASSERT_TRUE(StartInstance(data_dir, {}, &again).ok())
      << again.process->ReadLog();
  EXPECT_EQ(BodiesOf(again, "arena"), (std::set<std::uint64_t>{1, 2, 4}));
  std::filesystem::remove_all(data_dir);
}

// ---- scene settings across flag changes -------------------------------------

// Every scene's settings, by id, as ListScenes reports them.
std::map<std::string, sator::v1::SceneSettings> SettingsById(
    sator::v1::SceneService::Stub& scenes) {
  std::map<std::string, sator::v1::SceneSettings> settings;
  sator::v1::ListScenesRequest request;
  request.set_page_size(1000);
  sator::v1::ListScenesResponse page;
  const grpc::Status status =
      scenes.ListScenes(Context().get(), request, &page);
  EXPECT_TRUE(status.ok()) << status.error_message();
  for (const sator::v1::SceneInfo& info : page.scenes()) {
    settings[info.scene_id()] = info.settings();
  }
  return settings;
}

void ExpectSameSettings(
    const std::map<std::string, sator::v1::SceneSettings>& expected,
    const std::map<std::string, sator::v1::SceneSettings>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (const auto& [id, settings] : expected) {
    ASSERT_TRUE(actual.contains(id)) << id;
    EXPECT_TRUE(MessageDifferencer::Equals(settings, actual.at(id)))
        << id << " acknowledged with:\n"
        << settings.DebugString() << "came back with:\n"
        << actual.at(id).DebugString();
  }
}

// A scene created with its settings left at 0 (the server's defaults) comes
// back after a kill -9 with the settings it was acknowledged with, though the
// restarted server has other defaults: the log holds the resolved settings.
TEST(DurabilityEndToEnd, RestartWithOtherDefaultsKeepsTheAcknowledgedSettings) {
  const std::string data_dir = testing::MakeTempDir("durability-defaults");
  std::map<std::string, sator::v1::SceneSettings> acknowledged;
  {
    Instance instance;
    ASSERT_TRUE(
        StartInstance(data_dir,
                      {"--snapshot_interval=0s", "--default_history_ticks=16",
                       "--max_bodies_per_scene=500"},
                      &instance)
            .ok())
        << instance.process->ReadLog();
    sator::v1::SceneInfo info;
    grpc::Status status = instance.scenes->CreateScene(
        Context().get(), Parse<sator::v1::CreateSceneRequest>(R"pb(
          scene_id: "created"
          settings { dimension: DIMENSION_2D }
        )pb"),
        &info);
    ASSERT_TRUE(status.ok()) << status.error_message();
    status = instance.scenes->ImportScene(
        Context().get(), Parse<sator::v1::ImportSceneRequest>(R"pb(
          snapshot {
            scene_id: "imported"
            settings { dimension: DIMENSION_3D teleport_distance: 4 }
          }
        )pb"),
        &info);
    ASSERT_TRUE(status.ok()) << status.error_message();
    acknowledged = SettingsById(*instance.scenes);
    ASSERT_EQ(acknowledged.size(), 2u);
    for (const auto& [id, settings] : acknowledged) {
      EXPECT_EQ(settings.history_ticks(), 16u) << id;
      EXPECT_EQ(settings.max_bodies(), 500u) << id;
    }
    // Only the log has them: no snapshot was written.
    ASSERT_TRUE(instance.process->Signal(SIGKILL).ok());
    ASSERT_TRUE(instance.process->WaitForExit(absl::Seconds(10)).ok());
  }
  Instance restarted;
  ASSERT_TRUE(StartInstance(
                  data_dir,
                  {"--default_history_ticks=32", "--max_bodies_per_scene=1000"},
                  &restarted)
                  .ok())
      << restarted.process->ReadLog();
  ExpectSameSettings(acknowledged, SettingsById(*restarted.scenes));
  // GetScene says the same.
  sator::v1::GetSceneRequest get;
  get.set_scene_id("created");
  sator::v1::SceneInfo info;
  ASSERT_TRUE(restarted.scenes->GetScene(Context().get(), get, &info).ok());
  EXPECT_EQ(info.settings().history_ticks(), 16u);
  EXPECT_EQ(info.settings().max_bodies(), 500u);
  std::filesystem::remove_all(data_dir);
}

// Scenes acknowledged under higher --max_history_ticks and
// --max_bodies_per_scene come back with their settings, from the log and
// from a snapshot, each with a warning, rather than stopping the start;
// new requests meet the lowered limits.
TEST(DurabilityEndToEnd, RestartWithLowerLimitsKeepsTheAcknowledgedSettings) {
  const std::string data_dir = testing::MakeTempDir("durability-lowered");
  const std::vector<std::string> lowered = {"--max_history_ticks=8",
                                            "--default_history_ticks=8",
                                            "--max_bodies_per_scene=100"};
  std::map<std::string, sator::v1::SceneSettings> acknowledged;
  {
    Instance instance;
    ASSERT_TRUE(
        StartInstance(data_dir, {"--snapshot_interval=0s"}, &instance).ok())
        << instance.process->ReadLog();
    sator::v1::SceneInfo info;
    grpc::Status status = instance.scenes->CreateScene(
        Context().get(), Parse<sator::v1::CreateSceneRequest>(R"pb(
          scene_id: "explicit"
          settings { dimension: DIMENSION_2D history_ticks: 16 max_bodies: 500 }
        )pb"),
        &info);
    ASSERT_TRUE(status.ok()) << status.error_message();
    // The defaults: 64 ticks and 1000000 bodies.
    status = instance.scenes->CreateScene(
        Context().get(), Parse<sator::v1::CreateSceneRequest>(R"pb(
          scene_id: "defaults"
          settings { dimension: DIMENSION_3D }
        )pb"),
        &info);
    ASSERT_TRUE(status.ok()) << status.error_message();
    acknowledged = SettingsById(*instance.scenes);
    ASSERT_TRUE(instance.process->Signal(SIGKILL).ok());
    ASSERT_TRUE(instance.process->WaitForExit(absl::Seconds(10)).ok());
  }
  for (const char* from : {"the log", "a snapshot"}) {
    SCOPED_TRACE(from);
    Instance restarted;
    ASSERT_TRUE(StartInstance(data_dir, lowered, &restarted).ok())
        << restarted.process->ReadLog();
    ExpectSameSettings(acknowledged, SettingsById(*restarted.scenes));
    const std::string log = restarted.process->ReadLog();
    EXPECT_NE(log.find("\"scene_setting_over_limit\""), std::string::npos)
        << log;
    EXPECT_NE(log.find("settings.max_bodies: 500 above the server limit 100"),
              std::string::npos)
        << log;
    sator::v1::SceneInfo info;
    const grpc::Status refused = restarted.scenes->CreateScene(
        Context().get(), Parse<sator::v1::CreateSceneRequest>(R"pb(
          scene_id: "new"
          settings { dimension: DIMENSION_2D history_ticks: 16 }
        )pb"),
        &info);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << refused.error_message();
    // SIGTERM writes a snapshot: the next round restores from it.
    ASSERT_TRUE(restarted.process->Signal(SIGTERM).ok());
    absl::StatusOr<int> exit =
        restarted.process->WaitForExit(absl::Seconds(20));
    ASSERT_TRUE(exit.ok());
    EXPECT_EQ(*exit, 0) << restarted.process->ReadLog();
  }
  std::filesystem::remove_all(data_dir);
}

// ---- the data directory itself ----------------------------------------------

TEST(DurabilityEndToEnd, SecondSatordOnTheSameDataDirectoryExitsOne) {
  const std::string data_dir = testing::MakeTempDir("durability-locked");
  Instance first;
  ASSERT_TRUE(StartInstance(data_dir, {}, &first).ok())
      << first.process->ReadLog();
  SatordProcess second;
  ASSERT_TRUE(second
                  .Spawn({"--grpc_address=127.0.0.1:0",
                          "--metrics_address=", "--data_dir=" + data_dir})
                  .ok());
  absl::StatusOr<int> exit = second.WaitForExit(absl::Seconds(20));
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(*exit, 1);
  EXPECT_NE(second.ReadLog().find("in use by another process"),
            std::string::npos)
      << second.ReadLog();
  std::filesystem::remove_all(data_dir);
}

TEST(DurabilityEndToEnd, DataDirectoryThatIsAFileExitsOne) {
  const std::string dir = testing::MakeTempDir("durability-file");
  const std::string file = dir + "/not-a-directory";
  std::ofstream(file) << "x";
  SatordProcess satord;
  ASSERT_TRUE(satord
                  .Spawn({"--grpc_address=127.0.0.1:0",
                          "--metrics_address=", "--data_dir=" + file})
                  .ok());
  absl::StatusOr<int> exit = satord.WaitForExit(absl::Seconds(20));
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(*exit, 1);
  EXPECT_NE(satord.ReadLog().find("not-a-directory"), std::string::npos)
      << satord.ReadLog();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sator
