// A session's pose update applied to its scene through the same operation as
// BodyService.UpdatePoses (scene_ops.h: validation, the scene's write lock,
// the durability hook).
#include "server/scenes/scene_ops.h"
#include "server/session.h"

namespace sator::server {

absl::StatusOr<sator::v1::UpdatePosesResponse> ApplySessionPoses(
    HostedScene& scene, const SceneOpsOptions& options,
    const sator::v1::SessionPoseUpdate& update) {
  // SessionPoseUpdate has UpdatePosesRequest's tick and poses under the same
  // names, so error paths ("poses.body_ids[2]: ...") read the same.
  sator::v1::UpdatePosesRequest request;
  request.set_scene_id(scene.id());
  request.set_tick(update.tick());
  *request.mutable_poses() = update.poses();
  return UpdatePoses(scene, options, request);
}

}  // namespace sator::server
