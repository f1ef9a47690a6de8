// Persistence of satord's scenes in a data directory (--data_dir): restores
// the scene registry on start, logs every scene and body mutation before it
// is acknowledged, and snapshots every scene periodically and on shutdown.
//
// Glue between the scene operations (server/scenes/scene_ops.h) and the
// storage layer (durable_store.h):
// - Logging: `OnMutation` is SceneOpsOptions::on_mutation. scene_ops calls it
//   under the scene's write lock, after the core applied the change and
//   before the RPC answers; it appends the request to the log and returns
//   once the record is on disk. UpdatePoses is not logged (see
//   docs/DESIGN.md, Durability). If the log cannot be written, satord stops
//   (fail-stop, as databases do on a failed fsync): the change is already
//   visible in memory and must not be acknowledged, and the hook cannot
//   refuse it.
// - Replay: snapshot scenes go through ImportScene, log records through the
//   scene_ops function of their kind, with no batch limit (what was accepted
//   once is accepted again) and no hook.
// - Because the hook runs after the change is applied, a snapshot taken
//   while a mutation waits to be logged may already contain it, and the
//   record then follows the snapshot. At most one such mutation per scene
//   exists (the scene's write lock is held from apply to log), and replay
//   tolerates exactly that case: a create or import of a scene that exists
//   replaces it (the record is the truth: the id was free when it was
//   logged), a delete of a missing scene and a removal of missing bodies are
//   already applied, and an upsert is idempotent.
#ifndef SATOR_SERVER_DURABILITY_SCENE_PERSISTENCE_H_
#define SATOR_SERVER_DURABILITY_SCENE_PERSISTENCE_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "server/durability/durable_store.h"
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
  // (which should be empty) with `ops`'s limits. Fails for I/O errors, a
  // directory in use, or files of an unknown version; damaged records and
  // records that no longer apply are logged and skipped.
  static absl::StatusOr<std::unique_ptr<ScenePersistence>> Open(
      const PersistenceOptions& options, SceneRegistry& registry,
      const SceneOpsOptions& ops, durability::RecoveryReport* report = nullptr);

  // Stops periodic snapshots (without writing one).
  ~ScenePersistence();
  ScenePersistence(const ScenePersistence&) = delete;
  ScenePersistence& operator=(const ScenePersistence&) = delete;

  // The durability hook (SceneOpsOptions::on_mutation).
  void OnMutation(const std::string& scene_id,
                  const google::protobuf::Message& request);

  // Writes a snapshot of every scene now.
  absl::Status SnapshotNow();

  // Starts a thread writing a snapshot every snapshot_interval (if
  // positive) until StopPeriodicSnapshots.
  void StartPeriodicSnapshots();
  // Idempotent; waits for a snapshot in progress.
  void StopPeriodicSnapshots();

  durability::DurableStore& store() { return *store_; }

 private:
  ScenePersistence(const PersistenceOptions& options, SceneRegistry& registry);

  const PersistenceOptions options_;
  SceneRegistry& registry_;
  std::unique_ptr<durability::DurableStore> store_;

  std::mutex periodic_mutex_;
  std::condition_variable periodic_stop_;
  bool stopping_ = false;
  std::thread periodic_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_DURABILITY_SCENE_PERSISTENCE_H_
