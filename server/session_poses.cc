// A session's pose update applied to its scene: PoseBatch (packed positions
// and rotations) to core pose updates, validated, under the scene's write
// mutex.
#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/convert/field_path.h"
#include "proto/convert/geometry_convert.h"
#include "server/session.h"

namespace sator::server {
namespace {

using convert::FieldError;

template <int D>
absl::StatusOr<std::vector<scene::PoseUpdate<D>>> ToPoseUpdates(
    const sator::v1::PoseBatch& batch) {
  constexpr int kRotationFloats = D == 2 ? 1 : 4;
  const int count = batch.body_ids_size();
  if (batch.positions_size() != count * D) {
    return FieldError(
        "positions",
        absl::StrCat("must hold ", D, " floats per body (", count * D,
                     "), got ", batch.positions_size()));
  }
  if (batch.rotations_size() != count * kRotationFloats) {
    return FieldError(
        "rotations", absl::StrCat("must hold ", kRotationFloats,
                                  " floats per body (", count * kRotationFloats,
                                  "), got ", batch.rotations_size()));
  }
  std::vector<scene::PoseUpdate<D>> updates(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    sator::v1::Pose pose;
    sator::v1::Vector* position = pose.mutable_position();
    position->set_x(batch.positions(i * D));
    position->set_y(batch.positions(i * D + 1));
    if constexpr (D == 3) position->set_z(batch.positions(i * D + 2));
    absl::StatusOr<Pose<D>> converted;
    if constexpr (D == 2) {
      pose.set_angle(batch.rotations(i));
      converted = convert::ToPose2(pose);
    } else {
      sator::v1::Quaternion* q = pose.mutable_orientation();
      q->set_x(batch.rotations(i * 4));
      q->set_y(batch.rotations(i * 4 + 1));
      q->set_z(batch.rotations(i * 4 + 2));
      q->set_w(batch.rotations(i * 4 + 3));
      converted = convert::ToPose3(pose);
    }
    if (!converted.ok()) {
      // "position.x: not finite" of body i becomes
      // "body_ids[i]: position.x: not finite".
      return absl::Status(
          converted.status().code(),
          absl::StrCat("body_ids[", i, "] (body ", batch.body_ids(i),
                       "): ", converted.status().message()));
    }
    updates[static_cast<std::size_t>(i)] = {batch.body_ids(i), *converted};
  }
  return updates;
}

template <int D>
absl::StatusOr<sator::v1::UpdatePosesResponse> Apply(
    HostedScene& hosted, scene::Scene<D>& scene,
    const sator::v1::SessionPoseUpdate& update) {
  absl::StatusOr<std::vector<scene::PoseUpdate<D>>> updates =
      ToPoseUpdates<D>(update.poses());
  if (!updates.ok()) return convert::PrefixField("poses", updates.status());
  {
    const std::lock_guard<std::mutex> lock(hosted.write_mutex());
    if (absl::Status status = scene.UpdatePoses(update.tick(), *updates);
        !status.ok()) {
      return status;
    }
  }
  sator::v1::UpdatePosesResponse response;
  response.set_current_tick(scene.Snapshot().tick());
  return response;
}

}  // namespace

absl::StatusOr<sator::v1::UpdatePosesResponse> ApplySessionPoses(
    HostedScene& scene, const sator::v1::SessionPoseUpdate& update) {
  if (scene.dimension() == 2) return Apply<2>(scene, *scene.scene2(), update);
  return Apply<3>(scene, *scene.scene3(), update);
}

}  // namespace sator::server
