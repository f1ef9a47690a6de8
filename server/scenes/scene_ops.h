// The scene and body operations of sator.v1.SceneService and BodyService, one
// function per RPC, free of gRPC types: the gRPC handlers, the Session stream
// and the write-ahead log's replay all call these, so every path validates
// and applies a request the same way.
//
// Rules every mutating operation follows:
// - The whole request is validated before any state changes; an error leaves
//   the registry and every scene exactly as they were.
// - A mutation of a scene runs under HostedScene::write_mutex(), through
//   SceneOpsOptions::on_mutation (the durability hook, see MutationHook)
//   when one is set, so the hook sees the mutations of one scene in the
//   order they are applied.
// - Errors name the request's field path (`bodies[3].shape.circle.radius:
//   not finite`). Codes: INVALID_ARGUMENT (a malformed request), NOT_FOUND
//   (unknown scene or body), ALREADY_EXISTS (scene id taken),
//   FAILED_PRECONDITION (a tick older than the current one, a pose for a
//   static body), RESOURCE_EXHAUSTED (scenes per server, bodies per scene,
//   bodies per batch, scene settings above the limit flags).
#ifndef SATOR_SERVER_SCENES_SCENE_OPS_H_
#define SATOR_SERVER_SCENES_SCENE_OPS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "proto/convert/geometry_convert.h"
#include "sator/v1/body_service.pb.h"
#include "sator/v1/scene_service.pb.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

// Wraps every mutation once its request passed validation: called inside the
// scene's write lock with the scene id, the request (for CreateScene and
// ImportScene with the assigned scene id and the resolved settings, every
// default filled in, in place of the requested ones) and `apply`, which
// performs the mutation and returns its status. The hook calls `apply` at
// most once and returns its status, or refuses the mutation by returning an
// error without calling it (the caller gets that error, and a CreateScene or
// ImportScene is undone). A write-ahead log logs, then applies: the core can
// still refuse a logged mutation (an unknown body id, a stale tick), and
// replaying the log refuses it the same way.
//
// For CreateScene the registry has already made the (empty) scene when the
// hook runs, and `apply` only publishes it (List and Find show it from then
// on; see SceneRegistry::Create). For ImportScene `apply` fills that scene
// and publishes it if the core accepts the content. For DeleteScene it
// removes the scene from the registry. So whatever the hook does after
// `apply` returns (such as ending a snapshot exclusion) happens with the
// scene already visible, and a hook must return OK once `apply` succeeded.
using MutationHook = std::function<absl::Status(
    const std::string& scene_id, const google::protobuf::Message& request,
    absl::FunctionRef<absl::Status()> apply)>;

struct SceneOpsOptions {
  convert::ShapeLimits shape_limits;
  // Bodies in UpsertBodies, ids in RemoveBodies, poses in UpdatePoses and
  // bodies in an ImportScene snapshot (RESOURCE_EXHAUSTED beyond;
  // --max_batch_bodies).
  std::uint32_t max_batch_bodies = 100'000;
  // Empty: no hook.
  MutationHook on_mutation;
  // Called with the number of poses an accepted UpdatePoses applied (for
  // sator_pose_updates_total). Empty: no hook.
  std::function<void(std::int64_t)> on_poses_applied;
  // Called after every accepted UpsertBodies, RemoveBodies and UpdatePoses,
  // with the scene's write lock still held (the proximity evaluation).
  // Empty: no hook.
  std::function<void(const HostedScene&)> on_scene_written;
  // State another module keeps beside each scene (the zones and observers
  // of server/proximity) that goes wherever the scene's content goes.
  // `export_companion` adds it to a SceneSnapshot (ExportScene and the data
  // directory's snapshots). `import_companion` restores it from an
  // ImportScene's snapshot, with the scene's write lock held, its bodies in
  // place and the scene not yet published (inside the logged mutation); an
  // error, naming its field within the snapshot ("zones[2].shape: ..."),
  // refuses the import and must leave nothing behind. Empty: none.
  std::function<void(const HostedScene&, sator::v1::SceneSnapshot*)>
      export_companion;
  std::function<absl::Status(HostedScene&, const sator::v1::SceneSnapshot&)>
      import_companion;
  // For replay only (ScenePersistence): a CreateScene or ImportScene whose
  // settings are above --max_history_ticks or --max_bodies_per_scene keeps
  // them instead of being refused, since an earlier start acknowledged the
  // scene with them (under higher limits), and each such setting is passed
  // to `on_setting_over_limit` (if set) with the scene id and the message a
  // request would have been refused with. Settings above the core's own
  // bounds are refused either way.
  bool keep_settings_over_limits = false;
  // The scene memory budget (--max_scene_memory_bytes; 0: none): a
  // CreateScene, UpsertBodies or ImportScene that would take the scenes'
  // memory (SceneRegistry::memory_bytes) past it is refused with
  // RESOURCE_EXHAUSTED naming the budget and the flag. A write is checked
  // with twice its request's size added, plus, for UpsertBodies, the hulls
  // and meshes it brings as built. Replay does not apply it.
  std::int64_t max_scene_memory_bytes = 0;
  std::function<void(const std::string& scene_id, const std::string& message)>
      on_setting_over_limit;
};

// Half the container's cgroup memory limit (cgroup v2 memory.max, else v1
// memory.limit_in_bytes), else half the physical memory.
std::int64_t DefaultSceneMemoryBytes();

// The largest page ListScenes returns, and the page size it uses for 0.
inline constexpr std::uint32_t kMaxListPageSize = 1000;
inline constexpr std::uint32_t kDefaultListPageSize = 100;

// ---- SceneService ----------------------------------------------------------

absl::StatusOr<sator::v1::SceneInfo> CreateScene(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::CreateSceneRequest& request);

absl::StatusOr<sator::v1::DeleteSceneResponse> DeleteScene(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::DeleteSceneRequest& request);

// Scenes in id order. The page token is opaque to callers: the web-safe
// base64 of "v1:" and the last id of the previous page (so a scene created
// or deleted between pages neither repeats nor shifts the others). A token
// that does not decode is INVALID_ARGUMENT naming `page_token`.
absl::StatusOr<sator::v1::ListScenesResponse> ListScenes(
    const SceneRegistry& registry, const sator::v1::ListScenesRequest& request);

absl::StatusOr<sator::v1::SceneInfo> GetScene(
    const SceneRegistry& registry, const sator::v1::GetSceneRequest& request);

// Settings, current tick, every body with its pose at that tick, and what
// options.export_companion adds.
absl::StatusOr<sator::v1::SceneSnapshot> ExportScene(
    const SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::ExportSceneRequest& request);

// Creates a scene from a snapshot, all or nothing: its settings, its bodies
// (and what options.import_companion restores), at its current tick (the
// history before it is empty; advancing a scene to any tick costs O(history),
// not O(tick)). An empty snapshot.scene_id asks for a server-assigned id.
absl::StatusOr<sator::v1::SceneInfo> ImportScene(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::ImportSceneRequest& request);

// ---- BodyService -----------------------------------------------------------
// Each has a form that finds the scene by request.scene_id and one for a
// caller that already holds the scene (a Session stream), which ignores
// request.scene_id. The first form re-checks under the write lock that the
// scene is still the one registered under its id (NOT_FOUND "... was
// deleted" otherwise), so a mutation racing DeleteScene is neither applied
// to the deleted scene nor logged after its deletion; a caller of the second
// form that outlives a DeleteScene must check that itself.

absl::StatusOr<sator::v1::UpsertBodiesResponse> UpsertBodies(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::UpsertBodiesRequest& request);
absl::StatusOr<sator::v1::UpsertBodiesResponse> UpsertBodies(
    HostedScene& scene, const SceneOpsOptions& options,
    const sator::v1::UpsertBodiesRequest& request);

absl::StatusOr<sator::v1::RemoveBodiesResponse> RemoveBodies(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::RemoveBodiesRequest& request);
absl::StatusOr<sator::v1::RemoveBodiesResponse> RemoveBodies(
    HostedScene& scene, const SceneOpsOptions& options,
    const sator::v1::RemoveBodiesRequest& request);

// `tick` must be in [current tick, kMaxTick].
absl::StatusOr<sator::v1::UpdatePosesResponse> UpdatePoses(
    SceneRegistry& registry, const SceneOpsOptions& options,
    const sator::v1::UpdatePosesRequest& request);
absl::StatusOr<sator::v1::UpdatePosesResponse> UpdatePoses(
    HostedScene& scene, const SceneOpsOptions& options,
    const sator::v1::UpdatePosesRequest& request);

// ---- Shared pieces ---------------------------------------------------------

// SceneSettings (as requested) to HostedSceneSettings before defaults are
// filled in (SceneRegistry::ResolveSettings does that): INVALID_ARGUMENT
// naming `settings.dimension` for a missing or unknown dimension,
// RESOURCE_EXHAUSTED (as SettingAboveLimit, with `limits`) for a count too
// large for an int, which is above every limit.
absl::StatusOr<HostedSceneSettings> ToHostedSettings(
    const sator::v1::SceneSettings& settings, const SceneLimits& limits);
void FromHostedSettings(const HostedSceneSettings& settings,
                        sator::v1::SceneSettings* out);

// The SceneInfo GetScene returns: id, resolved settings and statistics.
sator::v1::SceneInfo DescribeScene(const HostedScene& scene);

}  // namespace sator::server

#endif  // SATOR_SERVER_SCENES_SCENE_OPS_H_
