// Scene persistence: replay through scene_ops, the logging hook, snapshots
// of the registry (see scene_persistence.h).
#include "server/durability/scene_persistence.h"

#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/convert/scene_convert.h"
#include "sator/v1/body_service.pb.h"
#include "sator/v1/proximity.pb.h"
#include "sator/v1/scene_service.pb.h"
#include "server/logging.h"
#include "server/proximity/proximity_ops.h"

namespace sator::server {
namespace {

using durability::DurableStore;
using durability::RecordType;

// The record type of a mutation request; false for one that is not logged.
bool RecordTypeOf(const google::protobuf::Message& request, RecordType* type) {
  const google::protobuf::Descriptor* descriptor = request.GetDescriptor();
  if (descriptor == sator::v1::CreateSceneRequest::descriptor()) {
    *type = RecordType::kCreateScene;
  } else if (descriptor == sator::v1::DeleteSceneRequest::descriptor()) {
    *type = RecordType::kDeleteScene;
  } else if (descriptor == sator::v1::ImportSceneRequest::descriptor()) {
    *type = RecordType::kImportScene;
  } else if (descriptor == sator::v1::UpsertBodiesRequest::descriptor()) {
    *type = RecordType::kUpsertBodies;
  } else if (descriptor == sator::v1::RemoveBodiesRequest::descriptor()) {
    *type = RecordType::kRemoveBodies;
  } else if (descriptor == sator::v1::AddZoneRequest::descriptor()) {
    *type = RecordType::kAddZone;
  } else if (descriptor == sator::v1::AddObserverRequest::descriptor()) {
    *type = RecordType::kAddObserver;
  } else if (descriptor == sator::v1::RemoveZoneRequest::descriptor()) {
    *type = RecordType::kRemoveZone;
  } else if (descriptor == sator::v1::RemoveObserverRequest::descriptor()) {
    *type = RecordType::kRemoveObserver;
  } else {
    return false;  // UpdatePoses: poses survive through snapshots.
  }
  return true;
}

template <typename Request>
absl::StatusOr<Request> Parse(absl::string_view payload) {
  Request request;
  if (!request.ParseFromArray(payload.data(),
                              static_cast<int>(payload.size()))) {
    return absl::DataLossError(absl::StrCat(
        "record does not parse as ", Request::descriptor()->full_name()));
  }
  return request;
}

// A create or import of an id that exists replaces the scene (see the
// header: only a snapshot that caught the new scene before its record was
// logged can hold it).
template <typename Request, typename Apply>
absl::Status CreateReplacing(SceneRegistry& registry, const std::string& id,
                             const Request& request, const Apply& apply) {
  absl::Status status = apply(request).status();
  if (status.code() == absl::StatusCode::kAlreadyExists && !id.empty()) {
    (void)registry.Delete(id);
    status = apply(request).status();
  }
  return status;
}

// `snapshot` holds what the companion exported when the snapshot began.
template <int D>
absl::StatusOr<std::string> SerializeScene(
    const HostedScene& hosted, const scene::SceneSnapshot<D>& published,
    sator::v1::SceneSnapshot snapshot) {
  snapshot.set_scene_id(hosted.id());
  FromHostedSettings(hosted.settings(), snapshot.mutable_settings());
  convert::FromSceneContent<D>(published.tick(), published.Bodies(), &snapshot);
  convert::FromSceneGroups<D>(published.Groups(), &snapshot);
  std::string bytes;
  if (!snapshot.SerializeToString(&bytes)) {
    return absl::InternalError(
        absl::StrCat("scene ", hosted.id(), ": snapshot does not serialize"));
  }
  return bytes;
}

}  // namespace

ScenePersistence::ScenePersistence(PersistenceOptions options,
                                   SceneRegistry& registry, SceneOpsOptions ops)
    : options_(std::move(options)), registry_(registry), ops_(std::move(ops)) {}

ScenePersistence::~ScenePersistence() { StopPeriodicSnapshots(); }

absl::StatusOr<std::unique_ptr<ScenePersistence>> ScenePersistence::Open(
    const PersistenceOptions& options, SceneRegistry& registry,
    const SceneOpsOptions& ops, ProximityHosts& proximity,
    durability::RecoveryReport* report) {
  std::unique_ptr<ScenePersistence> persistence(
      new ScenePersistence(options, registry, ops));
  SceneOpsOptions replay = ops;
  replay.on_mutation = nullptr;
  replay.on_poses_applied = nullptr;
  replay.on_scene_written = nullptr;
  ProximityOpsOptions proximity_replay;
  proximity_replay.shape_limits = ops.shape_limits;
  replay.max_batch_bodies = std::numeric_limits<std::uint32_t>::max();
  // A scene acknowledged under higher --max_history_ticks or
  // --max_bodies_per_scene comes back as it was acknowledged, with a warning
  // (its memory is not bounded by the lowered flag).
  replay.keep_settings_over_limits = true;
  replay.on_setting_over_limit = [](const std::string& scene_id,
                                    const std::string& message) {
    Log(LogLevel::kWarning, "scene_setting_over_limit",
        {{"scene_id", scene_id},
         {"error", message},
         {"message",
          "kept: the scene was acknowledged with it under a higher limit"}});
  };

  auto on_scene = [&](absl::string_view payload) -> absl::Status {
    absl::StatusOr<sator::v1::SceneSnapshot> snapshot =
        Parse<sator::v1::SceneSnapshot>(payload);
    if (!snapshot.ok()) return snapshot.status();
    sator::v1::ImportSceneRequest request;
    *request.mutable_snapshot() = *std::move(snapshot);
    return ImportScene(registry, replay, request).status();
  };
  auto on_record = [&](RecordType type,
                       absl::string_view payload) -> absl::Status {
    switch (type) {
      case RecordType::kCreateScene: {
        auto request = Parse<sator::v1::CreateSceneRequest>(payload);
        if (!request.ok()) return request.status();
        return CreateReplacing(registry, request->scene_id(), *request,
                               [&](const sator::v1::CreateSceneRequest& r) {
                                 return CreateScene(registry, replay, r);
                               });
      }
      case RecordType::kImportScene: {
        auto request = Parse<sator::v1::ImportSceneRequest>(payload);
        if (!request.ok()) return request.status();
        return CreateReplacing(registry, request->snapshot().scene_id(),
                               *request,
                               [&](const sator::v1::ImportSceneRequest& r) {
                                 return ImportScene(registry, replay, r);
                               });
      }
      case RecordType::kDeleteScene: {
        auto request = Parse<sator::v1::DeleteSceneRequest>(payload);
        if (!request.ok()) return request.status();
        return DeleteScene(registry, replay, *request).status();
      }
      case RecordType::kUpsertBodies: {
        auto request = Parse<sator::v1::UpsertBodiesRequest>(payload);
        if (!request.ok()) return request.status();
        return UpsertBodies(registry, replay, *request).status();
      }
      case RecordType::kRemoveBodies: {
        auto request = Parse<sator::v1::RemoveBodiesRequest>(payload);
        if (!request.ok()) return request.status();
        return RemoveBodies(registry, replay, *request).status();
      }
      case RecordType::kAddZone: {
        auto request = Parse<sator::v1::AddZoneRequest>(payload);
        if (!request.ok()) return request.status();
        return AddZone(registry, proximity, proximity_replay, *request)
            .status();
      }
      case RecordType::kAddObserver: {
        auto request = Parse<sator::v1::AddObserverRequest>(payload);
        if (!request.ok()) return request.status();
        return AddObserver(registry, proximity, proximity_replay, *request)
            .status();
      }
      case RecordType::kRemoveZone: {
        auto request = Parse<sator::v1::RemoveZoneRequest>(payload);
        if (!request.ok()) return request.status();
        return RemoveZone(registry, proximity, proximity_replay, *request)
            .status();
      }
      case RecordType::kRemoveObserver: {
        auto request = Parse<sator::v1::RemoveObserverRequest>(payload);
        if (!request.ok()) return request.status();
        return RemoveObserver(registry, proximity, proximity_replay, *request)
            .status();
      }
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "unexpected record type ", durability::RecordTypeName(type)));
    }
  };

  durability::DurableStoreOptions store_options;
  store_options.dir = options.data_dir;
  store_options.wal = options.wal;
  absl::StatusOr<std::unique_ptr<DurableStore>> store =
      DurableStore::Open(store_options, on_scene, on_record, report);
  if (!store.ok()) return store.status();
  persistence->store_ = *std::move(store);
  // The sets as of each scene's restored tick (replay evaluates nothing).
  for (const std::shared_ptr<HostedScene>& hosted :
       registry.List("", std::numeric_limits<std::size_t>::max())) {
    std::lock_guard<std::mutex> lock(hosted->write_mutex());
    proximity.OnSceneWritten(*hosted);
  }
  return persistence;
}

absl::Status ScenePersistence::OnMutation(
    const std::string& scene_id, const google::protobuf::Message& request,
    absl::FunctionRef<absl::Status()> apply) {
  RecordType type;
  if (!RecordTypeOf(request, &type)) return apply();
  std::string payload;
  if (!request.SerializeToString(&payload)) {
    return absl::InternalError("write-ahead log: request does not serialize");
  }
  DurableStore::MutationScope scope(*store_);
  absl::StatusOr<std::uint64_t> lsn = store_->LogMutation(type, payload);
  if (!lsn.ok()) {
    Log(LogLevel::kError, "wal_append_failed",
        {{"scene_id", scene_id},
         {"type", durability::RecordTypeName(type)},
         {"error", lsn.status().message()}});
    return absl::Status(
        lsn.status().code(),
        absl::StrCat("write-ahead log: ", lsn.status().message()));
  }
  absl::Status applied = apply();
  if (!applied.ok()) {
    // Replay will refuse it the same way; say that this is expected.
    if (absl::Status marked = store_->LogRefusal(*lsn); !marked.ok()) {
      Log(LogLevel::kWarning, "wal_refusal_not_logged",
          {{"scene_id", scene_id}, {"error", marked.message()}});
    }
  }
  return applied;
}

absl::Status ScenePersistence::SnapshotNow() {
  return store_->WriteSnapshot([this] {
    std::vector<DurableStore::SceneSerializer> serializers;
    for (std::shared_ptr<HostedScene>& hosted :
         registry_.List("", std::numeric_limits<std::size_t>::max())) {
      // Taken with the content, while no logged mutation runs.
      sator::v1::SceneSnapshot companion;
      if (ops_.export_companion) ops_.export_companion(*hosted, &companion);
      if (const scene::Scene2* core = hosted->scene2(); core != nullptr) {
        serializers.emplace_back([hosted, published = core->Snapshot(),
                                  companion = std::move(companion)] {
          return SerializeScene<2>(*hosted, published, companion);
        });
      } else if (const scene::Scene3* core3 = hosted->scene3();
                 core3 != nullptr) {
        serializers.emplace_back([hosted, published = core3->Snapshot(),
                                  companion = std::move(companion)] {
          return SerializeScene<3>(*hosted, published, companion);
        });
      }
    }
    return serializers;
  });
}

void ScenePersistence::StartPeriodicSnapshots() {
  if (options_.snapshot_interval <= absl::ZeroDuration()) return;
  std::lock_guard<std::mutex> lock(periodic_mutex_);
  if (periodic_.joinable() || stopping_) return;
  periodic_ = std::thread([this] {
    std::unique_lock<std::mutex> wait_lock(periodic_mutex_);
    while (!periodic_stop_.wait_for(
        wait_lock, absl::ToChronoNanoseconds(options_.snapshot_interval),
        [this] { return stopping_; })) {
      wait_lock.unlock();
      if (absl::Status written = SnapshotNow(); !written.ok()) {
        Log(LogLevel::kError, "snapshot_failed",
            {{"error", written.message()}});
      }
      wait_lock.lock();
    }
  });
}

void ScenePersistence::StopPeriodicSnapshots() {
  {
    std::lock_guard<std::mutex> lock(periodic_mutex_);
    stopping_ = true;
  }
  periodic_stop_.notify_all();
  if (periodic_.joinable()) periodic_.join();
}

}  // namespace sator::server
