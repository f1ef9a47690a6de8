// Persistence of satord's scenes in a data directory (--data_dir): restores
// the scene registry and the scenes' zones and observers on start, logs
// every scene, body, zone and observer mutation before it is acknowledged,
// and snapshots every scene periodically and on shutdown.
//
// Glue between the scene and proximity operations (server/scenes/scene_ops.h,
// server/proximity/proximity_ops.h) and the storage layer (durable_store.h):
// - Logging: `OnMutation` is SceneOpsOptions::on_mutation. scene_ops calls it
//   under the scene's write lock with the validated request and the `apply`
//   step; it appends the request to the log, waits until the record is on
//   disk, then applies (all inside a MutationScope, so a snapshot sees a
//   mutation if and only if it precedes the snapshot's LSN). If the core
//   refuses the logged mutation, a kRefused record says so. If the log cannot
//   be written, the mutation is refused with the log's error and not
//   applied (the log's failure is sticky: later writes are refused too until
//   a restart; queries go on). UpdatePoses is applied without logging (see
//   docs/DESIGN.md, Durability).
// - Replay: snapshot scenes go through ImportScene (which restores their
//   zones and observers through SceneOpsOptions::import_companion), log
//   records through the scene_ops or proximity_ops function of their kind, with
//   no batch limit (what was accepted once is accepted again) and no hook.
//   Scene settings above the current
//   --max_history_ticks or --max_bodies_per_scene are kept, with a
//   `scene_setting_over_limit` warning, not refused: the scene was
//   acknowledged with them.
// - A CreateScene or ImportScene is logged with the settings the scene got
//   (defaults filled in), so a settings field left at 0 replays as the
//   default of the server that acknowledged it, not of the one replaying
//   (snapshots always held the resolved settings). Records written before
//   that still hold the zeros, which take the replaying server's defaults.
// - A new scene (CreateScene, ImportScene) is published, made visible to
//   the snapshot's SceneRegistry::List, by the hook's `apply`, so inside the
//   MutationScope that logs it: a snapshot whose LSN covers the creation
//   holds the scene, and one that does not, does not. (Publishing after the
//   scope ended would let a snapshot in between cover the record but miss
//   the scene, losing an acknowledged creation.) A refused import is never
//   published.
// - Replay still lets a create or import of an id that exists replace that
//   scene (the record is the truth: the id was free when it was logged), for
//   snapshots written before scenes were published inside the scope, which
//   could hold a new scene whose record followed them.
#ifndef SATOR_SERVER_DURABILITY_SCENE_PERSISTENCE_H_
#define SATOR_SERVER_DURABILITY_SCENE_PERSISTENCE_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "server/durability/durable_store.h"
#include "server/proximity/proximity_hosts.h"
#include "server/scenes/scene_ops.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

struct PersistenceOptions {
  std::string data_dir;
  // Time between periodic snapshots; zero or less: only on shutdown.
  absl::Duration snapshot_interval = absl::Seconds(30);
  durability::WalWriterOptions wal;
};

class ScenePersistence {
 public:
  // Opens the data directory and restores its scenes into `registry`
  // (which should be empty) with `ops`'s limits and companion hooks, and
  // their zones and observers into `proximity`. Fails for I/O errors, a
  // directory in use, or files of an unknown version; damaged records and
  // records that no longer apply are logged and skipped. Every restored
  // zone and observer is then evaluated once, at its scene's restored tick.
  // Snapshots carry what ops.export_companion adds.
  static absl::StatusOr<std::unique_ptr<ScenePersistence>> Open(
      const PersistenceOptions& options, SceneRegistry& registry,
      const SceneOpsOptions& ops, ProximityHosts& proximity,
      durability::RecoveryReport* report = nullptr);

  // Stops periodic snapshots (without writing one).
  ~ScenePersistence();
  ScenePersistence(const ScenePersistence&) = delete;
  ScenePersistence& operator=(const ScenePersistence&) = delete;

  // The durability hook (SceneOpsOptions::on_mutation).
  absl::Status OnMutation(const std::string& scene_id,
                          const google::protobuf::Message& request,
                          absl::FunctionRef<absl::Status()> apply);

  // Writes a snapshot of every scene now.
  absl::Status SnapshotNow();

  // Starts a thread writing a snapshot every snapshot_interval (if
  // positive) until StopPeriodicSnapshots.
  void StartPeriodicSnapshots();
  // Idempotent; waits for a snapshot in progress.
  void StopPeriodicSnapshots();

  durability::DurableStore& store() { return *store_; }

 private:
  ScenePersistence(PersistenceOptions options, SceneRegistry& registry,
                   SceneOpsOptions ops);

  const PersistenceOptions options_;
  SceneRegistry& registry_;
  // For export_companion.
  const SceneOpsOptions ops_;
  std::unique_ptr<durability::DurableStore> store_;

  std::mutex periodic_mutex_;
  std::condition_variable periodic_stop_;
  bool stopping_ = false;
  std::thread periodic_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_DURABILITY_SCENE_PERSISTENCE_H_
