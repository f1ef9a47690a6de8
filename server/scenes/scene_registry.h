// The scenes a satord instance hosts: a map from scene id to a core Scene of
// dimension 2 or 3, with the server-wide limits on how many and how large.
//
// Thread safety: every method may be called from any thread. The map is
// guarded by a mutex held only to find, insert or erase an entry; queries and
// writes run on the HostedScene the caller holds (a shared_ptr), so a scene
// deleted while a query runs on it stays alive until that query ends.
#ifndef SATOR_SERVER_SCENES_SCENE_REGISTRY_H_
#define SATOR_SERVER_SCENES_SCENE_REGISTRY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sator/core/scene/scene.h"

namespace sator::server {

// Server-wide limits on scenes (flags of satord; see server/main.cc).
struct SceneLimits {
  // Scenes hosted at once (RESOURCE_EXHAUSTED beyond).
  int max_scenes = 1000;
  // Bodies in one scene; a scene may ask for fewer, never more.
  int max_bodies_per_scene = 1'000'000;
  // Ticks of history a scene may ask for.
  int max_history_ticks = 1024;
  // History a scene gets when it asks for 0.
  int default_history_ticks = 64;
  // Hits one query may ask for.
  int max_hits = 4096;
};

// INVALID_ARGUMENT naming the flag when a limit is out of range (each must be
// positive; the history and body limits within the core's own bounds).
absl::Status ValidateSceneLimits(const SceneLimits& limits);

// The RESOURCE_EXHAUSTED of a scene setting above a limit flag, naming the
// setting, its value, the limit and the flag: "settings.max_bodies: 5000
// above the server limit 1000 (--max_bodies_per_scene)".
absl::Status SettingAboveLimit(absl::string_view field, std::int64_t value,
                               int limit, absl::string_view flag);

// What a scene was created with, after defaults were filled in.
struct HostedSceneSettings {
  int dimension = 3;  // 2 or 3.
  int history_ticks = 64;
  // 0: scene::kDefaultTeleportDistance (10).
  float teleport_distance = 0.0f;
  int max_bodies = 1'000'000;
  // 0: 60 ticks a second.
  float tick_rate = 0.0f;
  scene::HitPolicy hit_policy{};
  // hit_policy was given (echoed back only then).
  bool has_hit_policy = false;
};

// One hosted scene. The core scene does its own locking (one writer at a
// time, readers on immutable snapshots); `write_mutex` additionally lets a
// caller keep a sequence of steps together, such as logging a mutation and
// applying it in the same order as every other mutation of this scene.
// Always owned by a shared_ptr (the registry makes it).
class HostedScene : public std::enable_shared_from_this<HostedScene> {
 public:
  HostedScene(std::string id, const HostedSceneSettings& settings,
              std::unique_ptr<scene::Scene2> scene);
  HostedScene(std::string id, const HostedSceneSettings& settings,
              std::unique_ptr<scene::Scene3> scene);

  const std::string& id() const { return id_; }
  const HostedSceneSettings& settings() const { return settings_; }
  int dimension() const { return settings_.dimension; }

  // The core scene: exactly one of these is non-null, per dimension().
  scene::Scene2* scene2() const;
  scene::Scene3* scene3() const;

  std::mutex& write_mutex() const { return write_mutex_; }

  // True once the registry has dropped the scene (set under write_mutex() by
  // callers that delete through scene_ops). A writer holding a HostedScene
  // checks it under write_mutex() before changing anything, so nothing is
  // written to, or logged for, a deleted scene.
  bool deleted() const { return deleted_.load(std::memory_order_acquire); }

  // The scene's memory (the core's SceneMemory::total_bytes: body records,
  // trees, tick history, hulls and meshes) as of its last refresh. Lock-free.
  std::int64_t memory_bytes() const {
    return memory_bytes_.load(std::memory_order_relaxed);
  }
  // Recounts memory_bytes() from the core scene (taking that scene's lock
  // only) and moves the registry's total by the change. Every write through
  // scene_ops calls it once the write is applied.
  void RefreshMemoryBytes();

 private:
  friend class SceneRegistry;

  // Counts the scene in `total` from now on (the registry, as it adds the
  // scene), and stops counting it (as it drops the scene).
  void CountMemoryIn(std::atomic<std::int64_t>* total);
  void StopCountingMemory();

  std::string id_;
  HostedSceneSettings settings_;
  std::variant<std::unique_ptr<scene::Scene2>, std::unique_ptr<scene::Scene3>>
      scene_;
  mutable std::mutex write_mutex_;
  std::atomic<bool> deleted_{false};
  // False while Create's `init` runs, until it publishes the scene: the
  // scene is then invisible to Find and List, though its id is taken.
  std::atomic<bool> ready_{false};
  // Orders a refresh against the registry's dropping of the scene, so that
  // the total gets each change exactly once. Taken alone (a leaf lock).
  std::mutex memory_mutex_;
  std::atomic<std::int64_t> memory_bytes_{0};
  // The registry's total while the scene is in it; null before and after.
  // Guarded by memory_mutex_.
  std::atomic<std::int64_t>* memory_total_ = nullptr;
};

class SceneRegistry {
 public:
  explicit SceneRegistry(const SceneLimits& limits) : limits_(limits) {}
  // Scenes still held elsewhere (by a query) stop counting in the total.
  ~SceneRegistry();
  SceneRegistry(const SceneRegistry&) = delete;
  SceneRegistry& operator=(const SceneRegistry&) = delete;

  const SceneLimits& limits() const { return limits_; }

  // Checks a scene id: 1 to 128 characters from [A-Za-z0-9._-].
  // INVALID_ARGUMENT "scene_id: ..." otherwise, with the id's length or the
  // position of its first bad character, never the id itself. Create, Find
  // and Delete check every id with it, so every RPC that names a scene
  // answers a malformed id the same way.
  static absl::Status ValidateSceneId(const std::string& id);

  // Fills in defaults (0 means the server default: --default_history_ticks,
  // --max_bodies_per_scene) and checks `requested`. A malformed setting (a
  // dimension other than 2 or 3, a negative or non-finite teleport distance,
  // a negative count) is INVALID_ARGUMENT; one above a limit flag is
  // RESOURCE_EXHAUSTED naming the setting, its value, the limit and the flag
  // ("settings.max_bodies: 5000 above the server limit 1000
  // (--max_bodies_per_scene)").
  //
  // With `kept_over_limit` (replay of what an earlier start acknowledged,
  // perhaps under higher limit flags), a setting above a limit flag is kept
  // rather than refused and that refusal's message is appended to
  // `*kept_over_limit`; a setting above the core's own bound
  // (kMaxBodies, kMaxHistoryTicks), which no flag allows, is
  // still refused.
  absl::StatusOr<HostedSceneSettings> ResolveSettings(
      const HostedSceneSettings& requested,
      std::vector<std::string>* kept_over_limit = nullptr) const;

  // Makes the scene being created visible to List and Find (see Create).
  using ScenePublish = absl::FunctionRef<void()>;
  // Fills in a scene being created, with its write_mutex() held, and
  // publishes it; an error undoes the creation.
  using SceneInit = std::function<absl::Status(HostedScene&, ScenePublish)>;

  // Creates a scene. An empty id asks for a server-assigned one.
  // INVALID_ARGUMENT for a bad id or settings (resolve them first),
  // ALREADY_EXISTS for a taken id, RESOURCE_EXHAUSTED at max_scenes.
  //
  // With `init`: the new scene's write_mutex() is locked before the scene
  // joins the map, and `init` runs under it (not under the registry's lock)
  // before List shows the scene (Find waits for it). So whatever `init` does
  // (fill the scene from a snapshot, log its creation) happens before any other
  // mutation of the scene, and no reader sees it half made.
  //
  // `init` calls its `publish` argument once the scene is complete and its
  // creation can no longer fail: from then on List shows the scene and Find
  // returns it at once (writers still wait for the write lock until `init`
  // returns). Publishing inside `init`, rather than after it, lets the
  // appearance be atomic with another step: the durability hook publishes
  // inside the MutationScope that logs the creation, so a snapshot never
  // records an LSN covering the creation without the scene. If `init`
  // returns OK without publishing, Create publishes on its return. If `init`
  // fails, the scene is removed and marked deleted (as by Delete, if it was
  // published), and its error is returned.
  absl::StatusOr<std::shared_ptr<HostedScene>> Create(
      const std::string& id, const HostedSceneSettings& settings,
      const SceneInit& init = nullptr);

  // INVALID_ARGUMENT for a malformed id (ValidateSceneId), NOT_FOUND for an
  // unknown one. A scene still being created (its init
  // running) is waited for: found if the init succeeds, NOT_FOUND if not.
  // So never call Find for a scene from inside its own init.
  absl::StatusOr<std::shared_ptr<HostedScene>> Find(
      const std::string& id) const;
  // Drops the scene and marks it deleted(); INVALID_ARGUMENT for a malformed
  // id, NOT_FOUND for an unknown one. Callers that must order the
  // deletion with the scene's writes hold its write_mutex() meanwhile.
  absl::Status Delete(const std::string& id);

  // Up to `limit` scenes with ids greater than `after`, in id order.
  std::vector<std::shared_ptr<HostedScene>> List(const std::string& after,
                                                 std::size_t limit) const;
  std::size_t size() const;

  // The memory of every scene in the registry (the sum of their
  // HostedScene::memory_bytes(), kept up to date by the change of each
  // refresh, creation and deletion): reading it, as a write checks the
  // --max_scene_memory_bytes budget, takes no lock of any scene.
  std::int64_t memory_bytes() const {
    return memory_bytes_.load(std::memory_order_relaxed);
  }

 private:
  const SceneLimits limits_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<HostedScene>> scenes_;
  std::uint64_t next_assigned_ = 1;
  std::atomic<std::int64_t> memory_bytes_{0};
};

}  // namespace sator::server

#endif  // SATOR_SERVER_SCENES_SCENE_REGISTRY_H_
