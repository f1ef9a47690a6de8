#include "server/scenes/scene_registry.h"

#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sator/core/field_status.h"
#include "sator/core/scene/shot_validation.h"

namespace sator::server {
namespace {

constexpr std::size_t kMaxSceneIdLength = 128;

bool IsSceneIdChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

template <int D>
absl::StatusOr<std::unique_ptr<scene::Scene<D>>> MakeCoreScene(
    const HostedSceneSettings& settings, int max_hits) {
  scene::SceneOptions options;
  options.history_ticks = settings.history_ticks;
  options.teleport_distance = settings.teleport_distance > 0.0f
                                  ? settings.teleport_distance
                                  : scene::kDefaultTeleportDistance;
  options.max_bodies = settings.max_bodies;
  if (settings.tick_rate > 0.0f) options.tick_rate = settings.tick_rate;
  options.hit_policy = settings.hit_policy;
  options.max_hits = max_hits;
  return scene::Scene<D>::Create(options);
}

// A setting above what the core supports at all (no flag allows it).
absl::Status SettingAboveCoreBound(absl::string_view field, int value,
                                   int bound) {
  return FieldError(
      absl::StatusCode::kResourceExhausted, field,
      absl::StrCat(value, " above the largest value satord supports, ", bound));
}

}  // namespace

absl::Status SettingAboveLimit(absl::string_view field, std::int64_t value,
                               int limit, absl::string_view flag) {
  return FieldError(absl::StatusCode::kResourceExhausted, field,
                    absl::StrCat(value, " above the server limit ", limit,
                                 " (--", flag, ")"));
}

absl::Status ValidateSceneLimits(const SceneLimits& limits) {
  auto check = [](const char* flag, int value, int most) -> absl::Status {
    if (value < 1 || value > most) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, " must be in [1, ", most, "], got ", value));
    }
    return absl::OkStatus();
  };
  for (const absl::Status& status :
       {check("max_scenes", limits.max_scenes, 1 << 20),
        check("max_bodies_per_scene", limits.max_bodies_per_scene, kMaxBodies),
        check("max_history_ticks", limits.max_history_ticks, kMaxHistoryTicks),
        check("default_history_ticks", limits.default_history_ticks,
              limits.max_history_ticks),
        check("max_hits", limits.max_hits, 1 << 20)}) {
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

HostedScene::HostedScene(std::string id, const HostedSceneSettings& settings,
                         std::unique_ptr<scene::Scene2> scene)
    : id_(std::move(id)), settings_(settings), scene_(std::move(scene)) {}

HostedScene::HostedScene(std::string id, const HostedSceneSettings& settings,
                         std::unique_ptr<scene::Scene3> scene)
    : id_(std::move(id)), settings_(settings), scene_(std::move(scene)) {}

namespace {

std::int64_t CoreMemoryBytes(const HostedScene& scene) {
  const scene::SceneMemory memory = scene.dimension() == 2
                                        ? scene.scene2()->Memory()
                                        : scene.scene3()->Memory();
  return static_cast<std::int64_t>(memory.total_bytes());
}

}  // namespace

void HostedScene::RefreshMemoryBytes() {
  const std::lock_guard<std::mutex> lock(memory_mutex_);
  const std::int64_t now = CoreMemoryBytes(*this);
  const std::int64_t before =
      memory_bytes_.exchange(now, std::memory_order_relaxed);
  if (memory_total_ != nullptr) {
    memory_total_->fetch_add(now - before, std::memory_order_relaxed);
  }
}

void HostedScene::CountMemoryIn(std::atomic<std::int64_t>* total) {
  const std::lock_guard<std::mutex> lock(memory_mutex_);
  const std::int64_t now = CoreMemoryBytes(*this);
  memory_bytes_.store(now, std::memory_order_relaxed);
  memory_total_ = total;
  memory_total_->fetch_add(now, std::memory_order_relaxed);
}

void HostedScene::StopCountingMemory() {
  const std::lock_guard<std::mutex> lock(memory_mutex_);
  if (memory_total_ == nullptr) return;
  memory_total_->fetch_sub(memory_bytes_.load(std::memory_order_relaxed),
                           std::memory_order_relaxed);
  memory_total_ = nullptr;
}

scene::Scene2* HostedScene::scene2() const {
  const auto* scene = std::get_if<std::unique_ptr<scene::Scene2>>(&scene_);
  return scene == nullptr ? nullptr : scene->get();
}

scene::Scene3* HostedScene::scene3() const {
  const auto* scene = std::get_if<std::unique_ptr<scene::Scene3>>(&scene_);
  return scene == nullptr ? nullptr : scene->get();
}

absl::Status SceneRegistry::ValidateSceneId(const std::string& id) {
  if (id.empty() || id.size() > kMaxSceneIdLength) {
    return FieldError("scene_id",
                      absl::StrCat("must be 1 to ", kMaxSceneIdLength,
                                   " characters, got ", id.size()));
  }
  for (std::size_t i = 0; i < id.size(); ++i) {
    if (!IsSceneIdChar(id[i])) {
      return FieldError(
          "scene_id",
          absl::StrCat("character ", i, " is not one of [A-Za-z0-9._-]"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<HostedSceneSettings> SceneRegistry::ResolveSettings(
    const HostedSceneSettings& requested,
    std::vector<std::string>* kept_over_limit) const {
  HostedSceneSettings settings = requested;
  // Malformed values first: INVALID_ARGUMENT.
  if (settings.dimension != 2 && settings.dimension != 3) {
    return FieldError("settings.dimension",
                      "must be DIMENSION_2D or DIMENSION_3D");
  }
  if (settings.history_ticks < 0) {
    return FieldError(
        "settings.history_ticks",
        absl::StrCat("must be >= 0, got ", settings.history_ticks));
  }
  if (!std::isfinite(settings.teleport_distance) ||
      settings.teleport_distance < 0.0f) {
    return FieldError("settings.teleport_distance", "must be finite and >= 0");
  }
  if (settings.max_bodies < 0) {
    return FieldError("settings.max_bodies",
                      absl::StrCat("must be >= 0, got ", settings.max_bodies));
  }
  if (!std::isfinite(settings.tick_rate) || settings.tick_rate < 0.0f ||
      settings.tick_rate > kMaxTickRate) {
    return FieldError("settings.tick_rate",
                      absl::StrCat("must be in [0, ", kMaxTickRate, "], got ",
                                   settings.tick_rate));
  }
  if (absl::Status s = scene::ValidateHitPolicy(settings.hit_policy); !s.ok()) {
    return PrefixField("settings.hit_policy", s);
  }
  if (settings.history_ticks == 0) {
    settings.history_ticks = limits_.default_history_ticks;
  }
  if (settings.max_bodies == 0) {
    settings.max_bodies = limits_.max_bodies_per_scene;
  }
  // Then the limits: RESOURCE_EXHAUSTED. A flag is never above the core's
  // bound (ValidateSceneLimits), so a value within the flag fits the core.
  struct Bounded {
    const char* field;
    int value;
    int limit;
    const char* flag;
    int core_bound;
  };
  for (const Bounded& b :
       {Bounded{"settings.history_ticks", settings.history_ticks,
                limits_.max_history_ticks, "max_history_ticks",
                kMaxHistoryTicks},
        Bounded{"settings.max_bodies", settings.max_bodies,
                limits_.max_bodies_per_scene, "max_bodies_per_scene",
                kMaxBodies}}) {
    if (b.value <= b.limit) continue;
    const absl::Status above =
        SettingAboveLimit(b.field, b.value, b.limit, b.flag);
    if (kept_over_limit == nullptr) return above;
    if (b.value > b.core_bound) {
      return SettingAboveCoreBound(b.field, b.value, b.core_bound);
    }
    kept_over_limit->emplace_back(above.message());
  }
  return settings;
}

absl::StatusOr<std::shared_ptr<HostedScene>> SceneRegistry::Create(
    const std::string& id, const HostedSceneSettings& settings,
    const SceneInit& init) {
  if (!id.empty()) {
    if (absl::Status status = ValidateSceneId(id); !status.ok()) return status;
  }
  if (settings.dimension != 2 && settings.dimension != 3) {
    return FieldError("settings.dimension",
                      "must be DIMENSION_2D or DIMENSION_3D");
  }
  // The scene is built before the registry's lock is taken, and its write
  // lock (for `init`) is taken before the registry's too: elsewhere a
  // scene's write lock is held while the registry's is taken (DeleteScene),
  // so taking them the other way round here would invert the lock order.
  absl::StatusOr<std::shared_ptr<HostedScene>> made =
      [&]() -> absl::StatusOr<std::shared_ptr<HostedScene>> {
    if (settings.dimension == 2) {
      auto scene = MakeCoreScene<2>(settings, limits_.max_hits);
      if (!scene.ok()) return scene.status();
      return std::make_shared<HostedScene>(id, settings, *std::move(scene));
    }
    auto scene = MakeCoreScene<3>(settings, limits_.max_hits);
    if (!scene.ok()) return scene.status();
    return std::make_shared<HostedScene>(id, settings, *std::move(scene));
  }();
  if (!made.ok()) return made.status();
  std::shared_ptr<HostedScene> hosted = *std::move(made);
  std::unique_lock<std::mutex> init_lock;
  if (init) {
    // Nobody else can hold it: the scene is in no map yet.
    init_lock = std::unique_lock<std::mutex>(hosted->write_mutex_);
  } else {
    hosted->ready_.store(true, std::memory_order_release);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (scenes_.size() >= static_cast<std::size_t>(limits_.max_scenes)) {
      return absl::ResourceExhaustedError(
          absl::StrCat("this server already hosts its limit of ",
                       limits_.max_scenes, " scenes (--max_scenes)"));
    }
    if (id.empty()) {
      std::string assigned;
      do {
        assigned = absl::StrCat("scene-", next_assigned_++);
      } while (scenes_.contains(assigned));
      // Still unpublished, so its id may be set here.
      hosted->id_ = assigned;
    } else if (scenes_.contains(id)) {
      return FieldError(absl::StatusCode::kAlreadyExists, "scene_id",
                        absl::StrCat("scene '", id, "' already exists"));
    }
    scenes_.emplace(hosted->id(), hosted);
  }
  hosted->CountMemoryIn(&memory_bytes_);
  if (!init) return hosted;

  absl::Status initialised = init(*hosted, [&hosted] {
    hosted->ready_.store(true, std::memory_order_release);
  });
  if (initialised.ok()) {
    hosted->ready_.store(true, std::memory_order_release);
    return hosted;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = scenes_.find(hosted->id());
    if (it != scenes_.end() && it->second == hosted) scenes_.erase(it);
  }
  hosted->deleted_.store(true, std::memory_order_release);
  hosted->StopCountingMemory();
  return initialised;
}

absl::StatusOr<std::shared_ptr<HostedScene>> SceneRegistry::Find(
    const std::string& id) const {
  // Every RPC that names a scene finds it here, so all of them refuse a
  // malformed id alike, and a NOT_FOUND never echoes more than 128
  // characters.
  if (absl::Status status = ValidateSceneId(id); !status.ok()) return status;
  std::shared_ptr<HostedScene> found;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = scenes_.find(id);
    if (it != scenes_.end()) found = it->second;
  }
  if (found != nullptr && !found->ready_.load(std::memory_order_acquire)) {
    // Still being created: its init holds the write lock until it is done,
    // so taking the lock waits for the outcome. A caller that was told
    // ALREADY_EXISTS thus finds the scene, never a NOT_FOUND in between.
    { std::lock_guard<std::mutex> wait(found->write_mutex_); }
    if (!found->ready_.load(std::memory_order_acquire)) found = nullptr;
  }
  if (found == nullptr || found->deleted()) {
    return FieldError(absl::StatusCode::kNotFound, "scene_id",
                      absl::StrCat("no scene '", id, "'"));
  }
  return found;
}

absl::Status SceneRegistry::Delete(const std::string& id) {
  if (absl::Status status = ValidateSceneId(id); !status.ok()) return status;
  std::shared_ptr<HostedScene> doomed;  // Released outside the lock.
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = scenes_.find(id);
  if (it == scenes_.end() ||
      !it->second->ready_.load(std::memory_order_acquire)) {
    return FieldError(absl::StatusCode::kNotFound, "scene_id",
                      absl::StrCat("no scene '", id, "'"));
  }
  doomed = std::move(it->second);
  scenes_.erase(it);
  doomed->deleted_.store(true, std::memory_order_release);
  doomed->StopCountingMemory();
  return absl::OkStatus();
}

std::vector<std::shared_ptr<HostedScene>> SceneRegistry::List(
    const std::string& after, std::size_t limit) const {
  std::vector<std::shared_ptr<HostedScene>> page;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = scenes_.upper_bound(after);
       it != scenes_.end() && page.size() < limit; ++it) {
    if (it->second->ready_.load(std::memory_order_acquire)) {
      page.push_back(it->second);
    }
  }
  return page;
}

SceneRegistry::~SceneRegistry() {
  for (auto& [id, scene] : scenes_) scene->StopCountingMemory();
}

std::size_t SceneRegistry::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return scenes_.size();
}

}  // namespace sator::server
