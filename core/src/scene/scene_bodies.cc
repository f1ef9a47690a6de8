// SceneSnapshot's body listing: the newest frame's table and poses, read as
// BodyDesc records.
#include <algorithm>
#include <vector>

#include "sator/core/scene/scene.h"
#include "scene/snapshot_data.h"

namespace sator::scene {

template <int D>
std::vector<BodyDesc<D>> SceneSnapshot<D>::Bodies() const {
  const internal::Frame<D>& frame = data_->frames.back();
  const internal::BodyTable<D>& table = *frame.table;
  const std::vector<Pose<D>>& poses = *frame.poses;
  std::vector<BodyDesc<D>> bodies;
  bodies.reserve(data_->body_count);
  for (std::size_t slot = 0; slot < table.size(); ++slot) {
    const internal::BodyRecord<D>& record = table[slot];
    if (record.incarnation == 0) continue;  // An empty slot.
    BodyDesc<D>& body = bodies.emplace_back();
    body.id = record.id;
    body.shape = record.shape;
    // A hitbox part is listed with its local pose (as UpsertBodies takes
    // it); Groups() gives the group poses.
    body.pose = record.group_id != 0 ? frame.groups->local[slot] : poses[slot];
    body.group_id = record.group_id;
    body.part = record.part;
    body.motion = record.motion;
    body.layer = record.layer;
    body.mask = record.mask;
    body.user_data = record.user_data;
  }
  std::sort(
      bodies.begin(), bodies.end(),
      [](const BodyDesc<D>& a, const BodyDesc<D>& b) { return a.id < b.id; });
  return bodies;
}

template <int D>
BodyCounts SceneSnapshot<D>::CountBodies() const {
  BodyCounts counts;
  for (const internal::BodyRecord<D>& record : *data_->frames.back().table) {
    if (record.incarnation == 0) continue;
    if (record.motion == MotionType::kStatic) {
      ++counts.static_bodies;
    } else {
      ++counts.dynamic_bodies;
    }
  }
  return counts;
}

template std::vector<BodyDesc<2>> SceneSnapshot<2>::Bodies() const;
template std::vector<BodyDesc<3>> SceneSnapshot<3>::Bodies() const;
template BodyCounts SceneSnapshot<2>::CountBodies() const;
template BodyCounts SceneSnapshot<3>::CountBodies() const;

}  // namespace sator::scene
