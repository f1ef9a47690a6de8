// sator.v1.SceneSnapshot to and from what a core scene holds: the current
// tick and every body with its pose at that tick. The snapshot's scene_id and
// settings are the server's business (server/scenes/scene_ops.h).
#ifndef SATOR_PROTO_CONVERT_SCENE_CONVERT_H_
#define SATOR_PROTO_CONVERT_SCENE_CONVERT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/convert/geometry_convert.h"
#include "sator/core/scene/scene_types.h"
#include "sator/v1/scene_service.pb.h"

namespace sator::convert {

// INVALID_ARGUMENT "`field`: ..." unless 0 <= tick <= kMaxTick.
absl::Status CheckTick(absl::string_view field, std::int64_t tick);

template <int D>
struct SceneContent {
  std::int64_t tick = 0;
  // In the snapshot's order; ids are unique.
  std::vector<scene::BodyDesc<D>> bodies;
  // The hitbox groups' poses (applied after the bodies).
  std::vector<scene::GroupPoseUpdate<D>> groups;
};

// Validates a snapshot's current_tick and bodies (each as ToBodyDesc does,
// and no id twice). Errors are relative to the snapshot: `current_tick: ...`,
// `bodies[4].body_id: body 7 is also bodies[1]`.
template <int D>
absl::StatusOr<SceneContent<D>> ToSceneContent(
    const sator::v1::SceneSnapshot& snapshot, const ShapeLimits& limits);

// Fills current_tick and bodies (replacing any there); leaves scene_id and
// settings alone.
template <int D>
void FromSceneContent(std::int64_t tick,
                      const std::vector<scene::BodyDesc<D>>& bodies,
                      sator::v1::SceneSnapshot* out);

// Fills the snapshot's groups (replacing any there) from Scene::Groups().
template <int D>
void FromSceneGroups(const std::vector<scene::GroupDesc<D>>& groups,
                     sator::v1::SceneSnapshot* out);

extern template void FromSceneGroups<2>(const std::vector<scene::GroupDesc<2>>&,
                                        sator::v1::SceneSnapshot*);
extern template void FromSceneGroups<3>(const std::vector<scene::GroupDesc<3>>&,
                                        sator::v1::SceneSnapshot*);
extern template absl::StatusOr<SceneContent<2>> ToSceneContent<2>(
    const sator::v1::SceneSnapshot&, const ShapeLimits&);
extern template absl::StatusOr<SceneContent<3>> ToSceneContent<3>(
    const sator::v1::SceneSnapshot&, const ShapeLimits&);
extern template void FromSceneContent<2>(std::int64_t,
                                         const std::vector<scene::BodyDesc<2>>&,
                                         sator::v1::SceneSnapshot*);
extern template void FromSceneContent<3>(std::int64_t,
                                         const std::vector<scene::BodyDesc<3>>&,
                                         sator::v1::SceneSnapshot*);

}  // namespace sator::convert

#endif  // SATOR_PROTO_CONVERT_SCENE_CONVERT_H_
