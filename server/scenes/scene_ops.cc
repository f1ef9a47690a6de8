// The SceneService and BodyService operations (see scene_ops.h).
#include "server/scenes/scene_ops.h"

#include <unistd.h>

#include <climits>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "proto/convert/body_convert.h"
#include "proto/convert/scene_convert.h"
#include "proto/convert/shot_convert.h"
#include "sator/core/field_status.h"

namespace sator::server {
namespace {

constexpr absl::string_view kPageTokenPrefix = "v1:";

template <typename T>
struct SceneDimension;
template <int D>
struct SceneDimension<scene::Scene<D>> {
  static constexpr int kValue = D;
};

// Calls `visit(scene)` with the hosted scene's core Scene<2> or Scene<3>.
template <typename Visitor>
auto VisitScene(const HostedScene& hosted, Visitor&& visit) {
  if (hosted.dimension() == 2) return visit(*hosted.scene2());
  return visit(*hosted.scene3());
}

// What a scene costs before any body (the core's writer state and first
// frame, rounded up).
constexpr std::int64_t kEmptySceneBytes = 64 * 1024;

// RESOURCE_EXHAUSTED when the scenes' memory and `extra` more would pass
// the budget.
absl::Status CheckSceneMemory(const SceneRegistry& registry,
                              const SceneOpsOptions& options,
                              std::int64_t extra) {
  if (options.max_scene_memory_bytes <= 0) return absl::OkStatus();
  const std::int64_t in_use = registry.memory_bytes();
  if (in_use + extra <= options.max_scene_memory_bytes) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "the scenes hold ", in_use, " bytes and this write needs about ", extra,
      " more, past the scene memory budget of ", options.max_scene_memory_bytes,
      " bytes (--max_scene_memory_bytes); delete scenes or bodies, or use "
      "another server"));
}

absl::Status CheckBatchSize(absl::string_view field, int size,
                            const SceneOpsOptions& options) {
  if (static_cast<std::uint64_t>(size) > options.max_batch_bodies) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, field,
        absl::StrCat(size, " in one batch, above the limit of ",
                     options.max_batch_bodies, " (--max_batch_bodies)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<HostedScene>> FindScene(
    const SceneRegistry& registry, const std::string& scene_id) {
  if (absl::Status s = SceneRegistry::ValidateSceneId(scene_id); !s.ok()) {
    return s;
  }
  return registry.Find(scene_id);
}

// The core names the fields of its own arguments (`updates[4].id`,
// `ids[2]`); a request names them differently. Renames a field that starts
// with `from` "[i]" `suffix` to `to` "[i]" `to_suffix`, keeping the rest.
absl::Status RenameIndexedField(const absl::Status& status,
                                absl::string_view from,
                                absl::string_view suffix, absl::string_view to,
                                absl::string_view to_suffix = "") {
  const std::optional<std::string> path = FieldPathOf(status);
  if (!path.has_value()) return status;
  absl::string_view rest = *path;
  if (!absl::ConsumePrefix(&rest, absl::StrCat(from, "["))) return status;
  const std::size_t close = rest.find(']');
  if (close == absl::string_view::npos) return status;
  const absl::string_view index = rest.substr(0, close);
  rest.remove_prefix(close + 1);
  if (!absl::ConsumePrefix(&rest, suffix)) return status;
  return RenameField(status,
                     absl::StrCat(to, "[", index, "]", to_suffix, rest));
}

// Whether the field `status` names starts with `prefix`.
bool NamesFieldIn(const absl::Status& status, absl::string_view prefix) {
  const std::optional<std::string> path = FieldPathOf(status);
  return path.has_value() && absl::StartsWith(*path, prefix);
}

// Applies one mutation through the hook, if there is one (see MutationHook).
absl::Status RunMutation(const SceneOpsOptions& options, const std::string& id,
                         const google::protobuf::Message& request,
                         absl::FunctionRef<absl::Status()> apply) {
  if (!options.on_mutation) return apply();
  return options.on_mutation(id, request, apply);
}

// The settings a CreateScene or ImportScene asks for, converted, with the
// defaults filled in and checked against the limits; settings kept above a
// limit flag on replay (SceneOpsOptions::keep_settings_over_limits) are
// appended to `kept_over_limit`.
absl::StatusOr<HostedSceneSettings> ResolveRequestedSettings(
    const SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::SceneSettings& requested,
    std::vector<std::string>* kept_over_limit) {
  absl::StatusOr<HostedSceneSettings> hosted =
      ToHostedSettings(requested, registry.limits());
  if (!hosted.ok()) return hosted.status();
  return registry.ResolveSettings(
      *hosted, options.keep_settings_over_limits ? kept_over_limit : nullptr);
}

void ReportKeptOverLimit(const SceneOpsOptions& options,
                         const std::string& scene_id,
                         const std::vector<std::string>& kept_over_limit) {
  if (!options.on_setting_over_limit) return;
  for (const std::string& message : kept_over_limit) {
    options.on_setting_over_limit(scene_id, message);
  }
}

std::string EncodePageToken(const std::string& last_id) {
  std::string token;
  absl::WebSafeBase64Escape(absl::StrCat(kPageTokenPrefix, last_id), &token);
  return token;
}

absl::StatusOr<std::string> DecodePageToken(const std::string& token) {
  if (token.empty()) return std::string();
  std::string decoded;
  if (!absl::WebSafeBase64Unescape(token, &decoded) ||
      !absl::StartsWith(decoded, kPageTokenPrefix) ||
      !SceneRegistry::ValidateSceneId(decoded.substr(kPageTokenPrefix.size()))
           .ok()) {
    return FieldError("page_token",
                      "not a next_page_token from a ListScenes response");
  }
  return decoded.substr(kPageTokenPrefix.size());
}

sator::v1::SceneInfo DescribeWithoutStats(const HostedScene& scene) {
  sator::v1::SceneInfo info;
  info.set_scene_id(scene.id());
  FromHostedSettings(scene.settings(), info.mutable_settings());
  return info;
}

// Under the scene's write lock, for a caller that found the scene in
// `registry` (null: a caller holding the scene, such as a Session): NOT_FOUND
// if the scene was deleted, or deleted and re-created under the same id,
// since it was found, so that no mutation lands on, or is logged for, a
// scene that is gone.
absl::Status CheckStillHosted(const SceneRegistry* registry,
                              const HostedScene& scene) {
  if (scene.deleted()) {
    return FieldError(absl::StatusCode::kNotFound, "scene_id",
                      absl::StrCat("scene '", scene.id(), "' was deleted"));
  }
  if (registry == nullptr) return absl::OkStatus();
  absl::StatusOr<std::shared_ptr<HostedScene>> found =
      registry->Find(scene.id());
  if (!found.ok() || found->get() != &scene) {
    return FieldError(absl::StatusCode::kNotFound, "scene_id",
                      absl::StrCat("scene '", scene.id(), "' was deleted"));
  }
  return absl::OkStatus();
}

template <int D>
absl::StatusOr<sator::v1::UpsertBodiesResponse> UpsertInto(
    scene::Scene<D>& core, HostedScene& scene, const SceneRegistry* registry,
    const SceneOpsOptions& options,
    const sator::v1::UpsertBodiesRequest& request) {
  absl::StatusOr<std::vector<scene::BodyDesc<D>>> bodies =
      convert::ToBodyDescs<D>(request.bodies(), options.shape_limits);
  if (!bodies.ok()) return bodies.status();
  if (registry != nullptr) {
    // Twice the request covers the records, trees and history it adds; the
    // hulls and meshes it brings are counted as built (a mesh's BVH and
    // leaf-order triangles take several times their wire size).
    std::int64_t extra = 2 * static_cast<std::int64_t>(request.ByteSizeLong());
    for (const scene::BodyDesc<D>& body : *bodies) {
      extra += static_cast<std::int64_t>(scene::ShapeHeapBytes(*body.shape));
    }
    if (absl::Status s = CheckSceneMemory(*registry, options, extra); !s.ok()) {
      return s;
    }
  }
  std::lock_guard<std::mutex> lock(scene.write_mutex());
  if (absl::Status s = CheckStillHosted(registry, scene); !s.ok()) return s;
  const std::size_t before = core.Snapshot().body_count();
  absl::Status upserted = RunMutation(
      options, scene.id(), request, [&] { return core.UpsertBodies(*bodies); });
  scene.RefreshMemoryBytes();
  if (!upserted.ok()) {
    // The core's BodyDesc::id is the request's Body.body_id.
    return RenameIndexedField(upserted, "bodies", ".id", "bodies", ".body_id");
  }
  if (options.on_scene_written) options.on_scene_written(scene);
  const std::size_t after = core.Snapshot().body_count();
  // Ids are unique within a batch (the core refuses repeats), so the growth
  // is the number of new bodies and the rest replaced existing ones.
  sator::v1::UpsertBodiesResponse response;
  response.set_created(static_cast<std::uint32_t>(after - before));
  response.set_replaced(
      static_cast<std::uint32_t>(bodies->size() - (after - before)));
  return response;
}

template <int D>
absl::StatusOr<sator::v1::UpdatePosesResponse> UpdatePosesOf(
    scene::Scene<D>& core, HostedScene& scene, const SceneRegistry* registry,
    const SceneOpsOptions& options,
    const sator::v1::UpdatePosesRequest& request) {
  absl::StatusOr<std::vector<scene::PoseUpdate<D>>> updates =
      convert::ToPoseUpdates<D>(request.poses());
  if (!updates.ok()) return PrefixField("poses", updates.status());
  absl::StatusOr<std::vector<scene::GroupPoseUpdate<D>>> group_updates =
      convert::ToGroupPoseUpdates<D>(request.poses());
  if (!group_updates.ok()) {
    return PrefixField("poses", group_updates.status());
  }
  std::lock_guard<std::mutex> lock(scene.write_mutex());
  if (absl::Status s = CheckStillHosted(registry, scene); !s.ok()) return s;
  absl::Status updated = RunMutation(options, scene.id(), request, [&] {
    return core.UpdatePoses(request.tick(), *updates, *group_updates);
  });
  scene.RefreshMemoryBytes();
  if (absl::Status s = std::move(updated); !s.ok()) {
    if (NamesFieldIn(s, "group_updates")) {
      return RenameIndexedField(s, "group_updates", ".group_id",
                                "poses.group_ids");
    }
    return RenameIndexedField(s, "updates", ".id", "poses.body_ids");
  }
  if (options.on_poses_applied) {
    options.on_poses_applied(static_cast<std::int64_t>(updates->size()));
  }
  if (options.on_scene_written) options.on_scene_written(scene);
  sator::v1::UpdatePosesResponse response;
  response.set_current_tick(core.Snapshot().tick());
  return response;
}

// Fills a freshly created, still empty scene from a validated snapshot.
template <int D>
absl::Status Populate(scene::Scene<D>& core,
                      const convert::SceneContent<D>& content) {
  if (content.tick > 0) {
    if (absl::Status s = core.UpdatePoses(content.tick, {}); !s.ok()) return s;
  }
  if (absl::Status s = core.UpsertBodies(content.bodies); !s.ok()) return s;
  if (content.groups.empty()) return absl::OkStatus();
  // Parts created their groups at the identity pose; the groups' poses
  // amend the same tick.
  absl::Status s = core.UpdatePoses(core.Snapshot().tick(), {}, content.groups);
  if (!s.ok() && NamesFieldIn(s, "group_updates")) {
    return RenameIndexedField(s, "group_updates", "", "groups");
  }
  return s;
}

template <int D>
absl::StatusOr<sator::v1::SceneInfo> ImportAs(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const HostedSceneSettings& settings,
    const sator::v1::ImportSceneRequest& request) {
  const sator::v1::SceneSnapshot& snapshot = request.snapshot();
  absl::StatusOr<convert::SceneContent<D>> content =
      convert::ToSceneContent<D>(snapshot, options.shape_limits);
  if (!content.ok()) return PrefixField("snapshot", content.status());
  if (content->bodies.size() > static_cast<std::size_t>(settings.max_bodies)) {
    return FieldError(absl::StatusCode::kResourceExhausted, "snapshot.bodies",
                      absl::StrCat(content->bodies.size(),
                                   " bodies, above the scene's limit of ",
                                   settings.max_bodies));
  }
  // Filled and logged before anyone else can see or change it (see
  // SceneRegistry::Create); a refusal leaves nothing behind. Published by
  // `apply`, inside the hook, so that a snapshot sees the scene if and only
  // if it sees the import's record.
  absl::Status populated;
  absl::StatusOr<std::shared_ptr<HostedScene>> hosted = registry.Create(
      snapshot.scene_id(), settings,
      [&](HostedScene& scene, SceneRegistry::ScenePublish publish) {
        sator::v1::ImportSceneRequest effective = request;
        effective.mutable_snapshot()->set_scene_id(scene.id());
        // Logged with the settings the scene got, as for CreateScene.
        FromHostedSettings(settings,
                           effective.mutable_snapshot()->mutable_settings());
        populated = RunMutation(options, scene.id(), effective, [&] {
          absl::Status filled = VisitScene(scene, [&](auto& core) {
            if constexpr (SceneDimension<
                              std::decay_t<decltype(core)>>::kValue == D) {
              return Populate<D>(core, *content);
            } else {
              return absl::InternalError("scene dimension changed");
            }
          });
          if (filled.ok() && options.import_companion) {
            filled = options.import_companion(scene, snapshot);
          }
          scene.RefreshMemoryBytes();
          if (filled.ok()) publish();
          return filled;
        });
        return populated;
      });
  if (!hosted.ok() && populated.ok()) {
    // The scene limit is a sentence about the server, not about a field.
    if (absl::IsResourceExhausted(hosted.status())) return hosted.status();
    return PrefixField("snapshot", hosted.status());
  }
  if (!populated.ok()) return PrefixField("snapshot", populated);
  return DescribeScene(**hosted);
}

absl::StatusOr<sator::v1::UpsertBodiesResponse> UpsertBodiesIn(
    HostedScene& scene, const SceneRegistry* registry,
    const SceneOpsOptions& options,
    const sator::v1::UpsertBodiesRequest& request) {
  if (absl::Status s = CheckBatchSize("bodies", request.bodies_size(), options);
      !s.ok()) {
    return s;
  }
  return VisitScene(scene, [&](auto& core) {
    return UpsertInto(core, scene, registry, options, request);
  });
}

absl::StatusOr<sator::v1::RemoveBodiesResponse> RemoveBodiesIn(
    HostedScene& scene, const SceneRegistry* registry,
    const SceneOpsOptions& options,
    const sator::v1::RemoveBodiesRequest& request) {
  if (absl::Status s =
          CheckBatchSize("body_ids", request.body_ids_size(), options);
      !s.ok()) {
    return s;
  }
  const absl::Span<const std::uint64_t> ids(request.body_ids().data(),
                                            request.body_ids().size());
  // 0 names no body: malformed (INVALID_ARGUMENT), not unknown (NOT_FOUND).
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == 0) {
      return FieldError(absl::StrCat("body_ids[", i, "]"),
                        "must be set (0 is not a body id)");
    }
  }
  std::lock_guard<std::mutex> lock(scene.write_mutex());
  if (absl::Status s = CheckStillHosted(registry, scene); !s.ok()) return s;
  absl::Status removed = RunMutation(options, scene.id(), request, [&] {
    return VisitScene(scene,
                      [&](auto& core) { return core.RemoveBodies(ids); });
  });
  scene.RefreshMemoryBytes();
  if (!removed.ok()) return RenameIndexedField(removed, "ids", "", "body_ids");
  if (options.on_scene_written) options.on_scene_written(scene);
  sator::v1::RemoveBodiesResponse response;
  response.set_removed(static_cast<std::uint32_t>(ids.size()));
  return response;
}

absl::StatusOr<sator::v1::UpdatePosesResponse> UpdatePosesIn(
    HostedScene& scene, const SceneRegistry* registry,
    const SceneOpsOptions& options,
    const sator::v1::UpdatePosesRequest& request) {
  if (absl::Status s = CheckBatchSize("poses.body_ids",
                                      request.poses().body_ids_size(), options);
      !s.ok()) {
    return s;
  }
  // A negative tick is malformed (INVALID_ARGUMENT, as in a query's
  // rewind), not merely older than the current one.
  if (absl::Status s = convert::CheckTick("tick", request.tick()); !s.ok()) {
    return s;
  }
  return VisitScene(scene, [&](auto& core) {
    return UpdatePosesOf(core, scene, registry, options, request);
  });
}

}  // namespace

absl::StatusOr<HostedSceneSettings> ToHostedSettings(
    const sator::v1::SceneSettings& settings, const SceneLimits& limits) {
  HostedSceneSettings hosted;
  switch (settings.dimension()) {
    case sator::v1::DIMENSION_2D:
      hosted.dimension = 2;
      break;
    case sator::v1::DIMENSION_3D:
      hosted.dimension = 3;
      break;
    default:
      return FieldError("settings.dimension",
                        "must be DIMENSION_2D or DIMENSION_3D");
  }
  // Above INT_MAX is above every limit (the flags are bounded by the core's
  // kMaxHistoryTicks and kMaxBodies), and does not fit the int below.
  if (settings.history_ticks() > static_cast<std::uint32_t>(INT_MAX)) {
    return SettingAboveLimit("settings.history_ticks", settings.history_ticks(),
                             limits.max_history_ticks, "max_history_ticks");
  }
  if (settings.max_bodies() > static_cast<std::uint32_t>(INT_MAX)) {
    return SettingAboveLimit("settings.max_bodies", settings.max_bodies(),
                             limits.max_bodies_per_scene,
                             "max_bodies_per_scene");
  }
  hosted.history_ticks = static_cast<int>(settings.history_ticks());
  hosted.teleport_distance = settings.teleport_distance();
  hosted.max_bodies = static_cast<int>(settings.max_bodies());
  hosted.tick_rate = settings.tick_rate();
  if (settings.has_hit_policy()) {
    hosted.has_hit_policy = true;
    if (absl::Status s =
            convert::MergeHitPolicy(settings.hit_policy(), &hosted.hit_policy);
        !s.ok()) {
      return PrefixField("settings.hit_policy", s);
    }
  }
  return hosted;
}

void FromHostedSettings(const HostedSceneSettings& settings,
                        sator::v1::SceneSettings* out) {
  out->set_dimension(settings.dimension == 2 ? sator::v1::DIMENSION_2D
                                             : sator::v1::DIMENSION_3D);
  out->set_history_ticks(static_cast<std::uint32_t>(settings.history_ticks));
  out->set_teleport_distance(settings.teleport_distance);
  out->set_max_bodies(static_cast<std::uint32_t>(settings.max_bodies));
  if (settings.tick_rate != 0.0f) out->set_tick_rate(settings.tick_rate);
  if (settings.has_hit_policy) {
    sator::v1::HitPolicy* policy = out->mutable_hit_policy();
    policy->set_max_rewind_ms(settings.hit_policy.max_rewind_ms);
    policy->set_on_too_old(settings.hit_policy.on_too_old ==
                                   scene::RewindLimit::kReject
                               ? sator::v1::REWIND_LIMIT_REJECT
                               : sator::v1::REWIND_LIMIT_CLAMP);
    policy->set_max_origin_distance(settings.hit_policy.max_origin_distance);
    policy->set_static_blocks(settings.hit_policy.static_blocks);
  }
}

sator::v1::SceneInfo DescribeScene(const HostedScene& scene) {
  sator::v1::SceneInfo info = DescribeWithoutStats(scene);
  sator::v1::SceneStats& stats = *info.mutable_stats();
  VisitScene(scene, [&](const auto& core) {
    const auto snapshot = core.Snapshot();
    const scene::BodyCounts counts = snapshot.CountBodies();
    stats.set_body_count(snapshot.body_count());
    stats.set_static_body_count(counts.static_bodies);
    stats.set_dynamic_body_count(counts.dynamic_bodies);
    stats.set_current_tick(snapshot.tick());
    stats.set_oldest_tick(snapshot.oldest_tick());
    stats.set_memory_bytes(core.Memory().total_bytes());
    return 0;
  });
  return info;
}

absl::StatusOr<sator::v1::SceneInfo> CreateScene(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::CreateSceneRequest& request) {
  std::vector<std::string> kept_over_limit;
  absl::StatusOr<HostedSceneSettings> settings = ResolveRequestedSettings(
      registry, options, request.settings(), &kept_over_limit);
  if (!settings.ok()) return settings.status();
  if (absl::Status s = CheckSceneMemory(registry, options, kEmptySceneBytes);
      !s.ok()) {
    return s;
  }
  // The creation is logged before anyone else can see or change the scene
  // (see SceneRegistry::Create); the hook sees the request with the id the
  // scene got, and a hook's error undoes the creation. `apply` publishes the
  // scene, inside the hook, so that a snapshot sees the scene if and only if
  // it sees the creation's record.
  //
  // The hook also sees the settings the scene got in place of the requested
  // ones: a field left at 0 ("the server default") is logged as the value it
  // resolved to here, so that replay after a restart with other
  // --default_history_ticks or --max_bodies_per_scene rebuilds the scene that
  // was acknowledged, not one with the new defaults. (Records logged before
  // this was done hold the requested settings; their zeros still take the
  // defaults of the replaying server: docs/OPERATIONS.md, Recovery.)
  absl::StatusOr<std::shared_ptr<HostedScene>> hosted = registry.Create(
      request.scene_id(), *settings,
      [&](HostedScene& scene, SceneRegistry::ScenePublish publish) {
        sator::v1::CreateSceneRequest effective = request;
        effective.set_scene_id(scene.id());
        FromHostedSettings(*settings, effective.mutable_settings());
        return RunMutation(options, scene.id(), effective, [&] {
          publish();
          return absl::OkStatus();
        });
      });
  if (!hosted.ok()) return hosted.status();
  ReportKeptOverLimit(options, (*hosted)->id(), kept_over_limit);
  return DescribeScene(**hosted);
}

absl::StatusOr<sator::v1::DeleteSceneResponse> DeleteScene(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::DeleteSceneRequest& request) {
  absl::StatusOr<std::shared_ptr<HostedScene>> hosted =
      FindScene(registry, request.scene_id());
  if (!hosted.ok()) return hosted.status();
  std::lock_guard<std::mutex> lock((*hosted)->write_mutex());
  // Not a scene re-created under the same id since it was found.
  if (absl::Status s = CheckStillHosted(&registry, **hosted); !s.ok()) return s;
  if (absl::Status s =
          RunMutation(options, request.scene_id(), request,
                      [&] { return registry.Delete(request.scene_id()); });
      !s.ok()) {
    return s;
  }
  return sator::v1::DeleteSceneResponse();
}

absl::StatusOr<sator::v1::ListScenesResponse> ListScenes(
    const SceneRegistry& registry,
    const sator::v1::ListScenesRequest& request) {
  absl::StatusOr<std::string> after = DecodePageToken(request.page_token());
  if (!after.ok()) return after.status();
  std::uint32_t page_size = request.page_size();
  if (page_size == 0) page_size = kDefaultListPageSize;
  if (page_size > kMaxListPageSize) page_size = kMaxListPageSize;
  // One more than the page: whether it exists says if there is a next page.
  std::vector<std::shared_ptr<HostedScene>> scenes =
      registry.List(*after, page_size + 1);
  sator::v1::ListScenesResponse response;
  const bool more = scenes.size() > page_size;
  if (more) scenes.resize(page_size);
  for (const std::shared_ptr<HostedScene>& scene : scenes) {
    *response.add_scenes() = DescribeWithoutStats(*scene);
  }
  if (more) response.set_next_page_token(EncodePageToken(scenes.back()->id()));
  return response;
}

absl::StatusOr<sator::v1::SceneInfo> GetScene(
    const SceneRegistry& registry, const sator::v1::GetSceneRequest& request) {
  absl::StatusOr<std::shared_ptr<HostedScene>> hosted =
      FindScene(registry, request.scene_id());
  if (!hosted.ok()) return hosted.status();
  return DescribeScene(**hosted);
}

absl::StatusOr<sator::v1::SceneSnapshot> ExportScene(
    const SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::ExportSceneRequest& request) {
  absl::StatusOr<std::shared_ptr<HostedScene>> hosted =
      FindScene(registry, request.scene_id());
  if (!hosted.ok()) return hosted.status();
  sator::v1::SceneSnapshot snapshot;
  snapshot.set_scene_id((*hosted)->id());
  FromHostedSettings((*hosted)->settings(), snapshot.mutable_settings());
  VisitScene(**hosted, [&](const auto& core) {
    constexpr int kDim = SceneDimension<std::decay_t<decltype(core)>>::kValue;
    // One published state gives both the tick and the bodies.
    const auto published = core.Snapshot();
    convert::FromSceneContent<kDim>(published.tick(), published.Bodies(),
                                    &snapshot);
    convert::FromSceneGroups<kDim>(published.Groups(), &snapshot);
    return 0;
  });
  if (options.export_companion) options.export_companion(**hosted, &snapshot);
  return snapshot;
}

absl::StatusOr<sator::v1::SceneInfo> ImportScene(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::ImportSceneRequest& request) {
  const sator::v1::SceneSnapshot& snapshot = request.snapshot();
  if (!request.has_snapshot()) {
    return FieldError("snapshot", "must be set");
  }
  if (!snapshot.scene_id().empty()) {
    if (absl::Status s = SceneRegistry::ValidateSceneId(snapshot.scene_id());
        !s.ok()) {
      return PrefixField("snapshot", s);
    }
  }
  if (absl::Status s =
          CheckBatchSize("snapshot.bodies", snapshot.bodies_size(), options);
      !s.ok()) {
    return s;
  }
  std::vector<std::string> kept_over_limit;
  absl::StatusOr<HostedSceneSettings> settings = ResolveRequestedSettings(
      registry, options, snapshot.settings(), &kept_over_limit);
  if (!settings.ok()) {
    return PrefixField("snapshot", settings.status());
  }
  if (absl::Status s = CheckSceneMemory(
          registry, options,
          kEmptySceneBytes +
              2 * static_cast<std::int64_t>(snapshot.ByteSizeLong()));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<sator::v1::SceneInfo> info =
      settings->dimension == 2
          ? ImportAs<2>(registry, options, *settings, request)
          : ImportAs<3>(registry, options, *settings, request);
  if (info.ok()) {
    std::vector<std::string> prefixed;
    prefixed.reserve(kept_over_limit.size());
    for (const std::string& message : kept_over_limit) {
      prefixed.push_back(absl::StrCat("snapshot.", message));
    }
    ReportKeptOverLimit(options, info->scene_id(), prefixed);
  }
  return info;
}

absl::StatusOr<sator::v1::UpsertBodiesResponse> UpsertBodies(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::UpsertBodiesRequest& request) {
  if (absl::Status s = CheckBatchSize("bodies", request.bodies_size(), options);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::shared_ptr<HostedScene>> hosted =
      FindScene(registry, request.scene_id());
  if (!hosted.ok()) return hosted.status();
  return UpsertBodiesIn(**hosted, &registry, options, request);
}

absl::StatusOr<sator::v1::UpsertBodiesResponse> UpsertBodies(
    HostedScene& scene, const SceneOpsOptions& options,
    const sator::v1::UpsertBodiesRequest& request) {
  return UpsertBodiesIn(scene, nullptr, options, request);
}

absl::StatusOr<sator::v1::RemoveBodiesResponse> RemoveBodies(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::RemoveBodiesRequest& request) {
  if (absl::Status s =
          CheckBatchSize("body_ids", request.body_ids_size(), options);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::shared_ptr<HostedScene>> hosted =
      FindScene(registry, request.scene_id());
  if (!hosted.ok()) return hosted.status();
  return RemoveBodiesIn(**hosted, &registry, options, request);
}

absl::StatusOr<sator::v1::RemoveBodiesResponse> RemoveBodies(
    HostedScene& scene, const SceneOpsOptions& options,
    const sator::v1::RemoveBodiesRequest& request) {
  return RemoveBodiesIn(scene, nullptr, options, request);
}

absl::StatusOr<sator::v1::UpdatePosesResponse> UpdatePoses(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::UpdatePosesRequest& request) {
  if (absl::Status s = CheckBatchSize("poses.body_ids",
                                      request.poses().body_ids_size(), options);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::shared_ptr<HostedScene>> hosted =
      FindScene(registry, request.scene_id());
  if (!hosted.ok()) return hosted.status();
  return UpdatePosesIn(**hosted, &registry, options, request);
}

absl::StatusOr<sator::v1::UpdatePosesResponse> UpdatePoses(
    HostedScene& scene, const SceneOpsOptions& options,
    const sator::v1::UpdatePosesRequest& request) {
  return UpdatePosesIn(scene, nullptr, options, request);
}

namespace {

// The number in a cgroup memory file, or 0 for "max", an unreadable file or
// a value so large it means no limit.
std::int64_t ReadLimit(const char* path) {
  std::FILE* file = std::fopen(path, "r");
  if (file == nullptr) return 0;
  char text[64] = {};
  const std::size_t read = std::fread(text, 1, sizeof(text) - 1, file);
  std::fclose(file);
  std::int64_t value = 0;
  if (!absl::SimpleAtoi(
          absl::StripAsciiWhitespace(absl::string_view(text, read)), &value) ||
      value <= 0 || value >= (std::int64_t{1} << 60)) {
    return 0;
  }
  return value;
}

}  // namespace

std::int64_t DefaultSceneMemoryBytes() {
  std::int64_t limit = ReadLimit("/sys/fs/cgroup/memory.max");
  if (limit == 0) {
    limit = ReadLimit("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  }
  if (limit == 0) {
    const std::int64_t pages = sysconf(_SC_PHYS_PAGES);
    const std::int64_t page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) limit = pages * page;
  }
  return limit / 2;
}

}  // namespace sator::server
