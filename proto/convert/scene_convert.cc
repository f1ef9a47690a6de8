// sator.v1.SceneSnapshot to and from a scene's tick and bodies (see
// scene_convert.h).
#include "proto/convert/scene_convert.h"

#include <cstddef>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/convert/body_convert.h"
#include "sator/core/field_status.h"

namespace sator::convert {

absl::Status CheckTick(absl::string_view field, std::int64_t tick) {
  if (tick < 0 || tick > kMaxTick) {
    return FieldError(
        field, absl::StrCat("must be in [0, ", kMaxTick, "], got ", tick));
  }
  return absl::OkStatus();
}

template <int D>
absl::StatusOr<SceneContent<D>> ToSceneContent(
    const sator::v1::SceneSnapshot& snapshot, const ShapeLimits& limits) {
  SceneContent<D> content;
  if (absl::Status s = CheckTick("current_tick", snapshot.current_tick());
      !s.ok()) {
    return s;
  }
  content.tick = snapshot.current_tick();
  absl::StatusOr<std::vector<scene::BodyDesc<D>>> bodies =
      ToBodyDescs<D>(snapshot.bodies(), limits);
  if (!bodies.ok()) return bodies.status();
  std::unordered_map<std::uint64_t, std::size_t> first_index;
  first_index.reserve(bodies->size());
  for (std::size_t i = 0; i < bodies->size(); ++i) {
    const auto [it, inserted] = first_index.emplace((*bodies)[i].id, i);
    if (!inserted) {
      return FieldError(absl::StrCat("bodies[", i, "].body_id"),
                        absl::StrCat("body ", (*bodies)[i].id,
                                     " is also bodies[", it->second, "]"));
    }
  }
  content.bodies = *std::move(bodies);
  for (int i = 0; i < snapshot.groups_size(); ++i) {
    const sator::v1::GroupPose& group = snapshot.groups(i);
    scene::GroupPoseUpdate<D> update;
    update.group_id = group.group_id();
    absl::StatusOr<Pose<D>> pose;
    if constexpr (D == 2) {
      pose = ToPose2(group.pose());
    } else {
      pose = ToPose3(group.pose());
    }
    if (!pose.ok()) {
      return PrefixField(absl::StrCat("groups[", i, "].pose"), pose.status());
    }
    update.pose = *pose;
    content.groups.push_back(update);
  }
  return content;
}

template <int D>
void FromSceneGroups(const std::vector<scene::GroupDesc<D>>& groups,
                     sator::v1::SceneSnapshot* out) {
  out->clear_groups();
  for (const scene::GroupDesc<D>& group : groups) {
    sator::v1::GroupPose* message = out->add_groups();
    message->set_group_id(group.group_id);
    if constexpr (D == 2) {
      FromPose2(group.pose, message->mutable_pose());
    } else {
      FromPose3(group.pose, message->mutable_pose());
    }
  }
}

template void FromSceneGroups<2>(const std::vector<scene::GroupDesc<2>>&,
                                 sator::v1::SceneSnapshot*);
template void FromSceneGroups<3>(const std::vector<scene::GroupDesc<3>>&,
                                 sator::v1::SceneSnapshot*);

template <int D>
void FromSceneContent(std::int64_t tick,
                      const std::vector<scene::BodyDesc<D>>& bodies,
                      sator::v1::SceneSnapshot* out) {
  out->set_current_tick(tick);
  out->clear_bodies();
  out->mutable_bodies()->Reserve(static_cast<int>(bodies.size()));
  for (const scene::BodyDesc<D>& body : bodies) {
    FromBodyDesc<D>(body, out->add_bodies());
  }
}

template absl::StatusOr<SceneContent<2>> ToSceneContent<2>(
    const sator::v1::SceneSnapshot&, const ShapeLimits&);
template absl::StatusOr<SceneContent<3>> ToSceneContent<3>(
    const sator::v1::SceneSnapshot&, const ShapeLimits&);
template void FromSceneContent<2>(std::int64_t,
                                  const std::vector<scene::BodyDesc<2>>&,
                                  sator::v1::SceneSnapshot*);
template void FromSceneContent<3>(std::int64_t,
                                  const std::vector<scene::BodyDesc<3>>&,
                                  sator::v1::SceneSnapshot*);

}  // namespace sator::convert
