// sator.v1 bodies and pose batches to and from scene::BodyDesc and
// scene::PoseUpdate (see body_convert.h for the rules).
#include "proto/convert/body_convert.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "sator/core/field_status.h"

namespace sator::convert {
namespace {

constexpr std::uint64_t kAllBits = ~std::uint64_t{0};

template <int D>
absl::StatusOr<scene::SceneShape<D>> ToSceneShape(const sator::v1::Shape& shape,
                                                  const ShapeLimits& limits) {
  if constexpr (D == 2) {
    return ToShape2(shape, limits);
  } else {
    return ToShape3(shape, limits);
  }
}

template <int D>
absl::StatusOr<Pose<D>> ToScenePose(const sator::v1::Pose& pose) {
  if constexpr (D == 2) {
    return ToPose2(pose);
  } else {
    return ToPose3(pose);
  }
}

// A coordinate of a packed position: finite and within kMaxRequestCoordinate
// (the bound ToVec2 and ToVec3 apply).
absl::Status CheckPackedCoordinate(int index, float value) {
  if (!std::isfinite(value)) {
    return FieldError(absl::StrCat("positions[", index, "]"), "not finite");
  }
  if (std::fabs(value) > kMaxRequestCoordinate) {
    return FieldError(
        absl::StrCat("positions[", index, "]"),
        absl::StrCat("out of range: |", value, "| > ", kMaxRequestCoordinate));
  }
  return absl::OkStatus();
}

}  // namespace

template <int D>
absl::StatusOr<scene::BodyDesc<D>> ToBodyDesc(const sator::v1::Body& body,
                                              const ShapeLimits& limits) {
  scene::BodyDesc<D> desc;
  if (body.body_id() == 0) {
    return FieldError("body_id", "must be set (0 is not a body id)");
  }
  desc.id = body.body_id();
  switch (body.motion_type()) {
    case sator::v1::MOTION_TYPE_STATIC:
      desc.motion = scene::MotionType::kStatic;
      break;
    case sator::v1::MOTION_TYPE_DYNAMIC:
      desc.motion = scene::MotionType::kDynamic;
      break;
    default:
      return FieldError("motion_type",
                        "must be MOTION_TYPE_STATIC or MOTION_TYPE_DYNAMIC");
  }
  if (!body.has_shape()) return FieldError("shape", "must be set");
  absl::StatusOr<scene::SceneShape<D>> shape =
      ToSceneShape<D>(body.shape(), limits);
  if (!shape.ok()) return PrefixField("shape", shape.status());
  if constexpr (D == 3) {
    if (desc.motion == scene::MotionType::kDynamic &&
        std::holds_alternative<std::shared_ptr<const TriangleMesh>>(*shape)) {
      return FieldError("shape.mesh",
                        "a mesh may only be the shape of a static body");
    }
  }
  desc.shape = std::make_shared<const scene::SceneShape<D>>(*std::move(shape));
  absl::StatusOr<Pose<D>> pose = ToScenePose<D>(body.pose());
  if (!pose.ok()) return PrefixField("pose", pose.status());
  desc.pose = *pose;
  desc.layer = body.has_layer() ? body.layer() : kAllBits;
  desc.mask = body.has_mask() ? body.mask() : kAllBits;
  desc.user_data = body.user_data();
  desc.group_id = body.group_id();
  if (body.part() < kMinPart || body.part() > kMaxPart) {
    return FieldError("part", absl::StrCat("must be in [", kMinPart, ", ",
                                           kMaxPart, "], got ", body.part()));
  }
  desc.part = body.part();
  if (desc.group_id != 0 && desc.motion != scene::MotionType::kDynamic) {
    return FieldError("group_id", "a hitbox part must be a dynamic body");
  }
  return desc;
}

template <int D>
absl::StatusOr<std::vector<scene::BodyDesc<D>>> ToBodyDescs(
    const google::protobuf::RepeatedPtrField<sator::v1::Body>& bodies,
    const ShapeLimits& limits, absl::string_view field) {
  std::vector<scene::BodyDesc<D>> descs;
  descs.reserve(static_cast<std::size_t>(bodies.size()));
  for (int i = 0; i < bodies.size(); ++i) {
    absl::StatusOr<scene::BodyDesc<D>> desc = ToBodyDesc<D>(bodies[i], limits);
    if (!desc.ok()) return PrefixIndex(field, i, desc.status());
    descs.push_back(*std::move(desc));
  }
  return descs;
}

template <int D>
void FromBodyDesc(const scene::BodyDesc<D>& body, sator::v1::Body* out) {
  out->set_body_id(body.id);
  if (body.shape != nullptr) {
    if constexpr (D == 2) {
      FromShape2(*body.shape, out->mutable_shape());
    } else {
      FromShape3(*body.shape, out->mutable_shape());
    }
  }
  if constexpr (D == 2) {
    FromPose2(body.pose, out->mutable_pose());
  } else {
    FromPose3(body.pose, out->mutable_pose());
  }
  out->set_motion_type(body.motion == scene::MotionType::kStatic
                           ? sator::v1::MOTION_TYPE_STATIC
                           : sator::v1::MOTION_TYPE_DYNAMIC);
  out->set_layer(body.layer);
  out->set_mask(body.mask);
  out->set_user_data(body.user_data);
  out->set_group_id(body.group_id);
  out->set_part(body.part);
}

namespace {

template <int D>
void SetId(scene::PoseUpdate<D>& update, std::uint64_t id) {
  update.id = id;
}
template <int D>
void SetId(scene::GroupPoseUpdate<D>& update, std::uint64_t id) {
  update.group_id = id;
}
template <int D>
std::uint64_t IdOf(const scene::PoseUpdate<D>& update) {
  return update.id;
}
template <int D>
std::uint64_t IdOf(const scene::GroupPoseUpdate<D>& update) {
  return update.group_id;
}

// `status` with the leading segment `from` of its field renamed `to`.
absl::Status RenameLeadingField(const absl::Status& status,
                                absl::string_view from, absl::string_view to) {
  const std::optional<std::string> path = FieldPathOf(status);
  if (!path.has_value() || !absl::StartsWith(*path, from)) return status;
  return RenameField(
      status, absl::StrCat(to, absl::string_view(*path).substr(from.size())));
}

// Packed ids, positions and rotations (the body or the group arrays of a
// PoseBatch), named by `ids_name`, `positions_name` and `rotations_name` in
// errors (an id 0 is INVALID_ARGUMENT naming `ids_name[i]`), with
// the ids in `teleported` flagged (INVALID_ARGUMENT naming
// `teleported_name[i]` for an id not in `ids`).
template <int D, typename Update>
absl::StatusOr<std::vector<Update>> ToPackedUpdates(
    const google::protobuf::RepeatedField<std::uint64_t>& ids,
    const google::protobuf::RepeatedField<float>& packed_positions,
    const google::protobuf::RepeatedField<float>& packed_rotations,
    const google::protobuf::RepeatedField<std::uint64_t>& teleported,
    absl::string_view ids_name, absl::string_view positions_name,
    absl::string_view rotations_name, absl::string_view teleported_name,
    absl::string_view noun) {
  constexpr int kRotationFloats = D == 2 ? 1 : 4;
  const auto count = static_cast<std::size_t>(ids.size());
  if (static_cast<std::size_t>(packed_positions.size()) != count * D) {
    return FieldError(positions_name,
                      absl::StrCat("has ", packed_positions.size(), " floats; ",
                                   count, " ", noun, " ids need ", count * D,
                                   " (", D, " per ", noun, ")"));
  }
  if (static_cast<std::size_t>(packed_rotations.size()) !=
      count * kRotationFloats) {
    return FieldError(
        rotations_name,
        absl::StrCat("has ", packed_rotations.size(), " floats; ", count, " ",
                     noun, " ids need ", count * kRotationFloats, " (",
                     kRotationFloats, " per ", noun, ")"));
  }
  std::vector<Update> updates(count);
  const float* positions = packed_positions.data();
  const float* rotations = packed_rotations.data();
  for (std::size_t i = 0; i < count; ++i) {
    Update& update = updates[i];
    const std::uint64_t id = ids[static_cast<int>(i)];
    if (id == 0) {
      return FieldError(absl::StrCat(ids_name, "[", i, "]"),
                        absl::StrCat("must be set (0 is not a ", noun, " id)"));
    }
    SetId(update, id);
    for (int axis = 0; axis < D; ++axis) {
      const int index = static_cast<int>(i) * D + axis;
      if (absl::Status s = CheckPackedCoordinate(index, positions[index]);
          !s.ok()) {
        return RenameLeadingField(s, "positions", positions_name);
      }
      update.pose.position[axis] = positions[index];
    }
    const int first = static_cast<int>(i) * kRotationFloats;
    for (int k = 0; k < kRotationFloats; ++k) {
      if (!std::isfinite(rotations[first + k])) {
        return FieldError(absl::StrCat(rotations_name, "[", first + k, "]"),
                          "not finite");
      }
    }
    if constexpr (D == 2) {
      update.pose.rotation = Rot2::FromAngle(rotations[first]);
    } else {
      absl::StatusOr<Quat> rotation =
          NormalizeRotation(Quat{rotations[first], rotations[first + 1],
                                 rotations[first + 2], rotations[first + 3]});
      if (!rotation.ok()) {
        return FieldError(
            absl::StrCat(rotations_name, "[", first, "..", first + 3, "]"),
            rotation.status().message());
      }
      update.pose.rotation = *rotation;
    }
  }
  for (int i = 0; i < teleported.size(); ++i) {
    bool found = false;
    for (Update& update : updates) {
      if (IdOf(update) == teleported[i]) {
        update.teleported = true;
        found = true;
      }
    }
    if (!found) {
      return FieldError(
          absl::StrCat(teleported_name, "[", i, "]"),
          absl::StrCat(teleported[i], " has no pose in the batch"));
    }
  }
  return updates;
}

}  // namespace

template <int D>
absl::StatusOr<std::vector<scene::PoseUpdate<D>>> ToPoseUpdates(
    const sator::v1::PoseBatch& batch) {
  return ToPackedUpdates<D, scene::PoseUpdate<D>>(
      batch.body_ids(), batch.positions(), batch.rotations(),
      batch.teleported_body_ids(), "body_ids", "positions", "rotations",
      "teleported_body_ids", "body");
}

template <int D>
absl::StatusOr<std::vector<scene::GroupPoseUpdate<D>>> ToGroupPoseUpdates(
    const sator::v1::PoseBatch& batch) {
  return ToPackedUpdates<D, scene::GroupPoseUpdate<D>>(
      batch.group_ids(), batch.group_positions(), batch.group_rotations(),
      batch.teleported_group_ids(), "group_ids", "group_positions",
      "group_rotations", "teleported_group_ids", "group");
}

template <int D>
void FromPoseUpdates(const std::vector<scene::PoseUpdate<D>>& updates,
                     sator::v1::PoseBatch* out) {
  out->Clear();
  for (const scene::PoseUpdate<D>& update : updates) {
    out->add_body_ids(update.id);
    for (int axis = 0; axis < D; ++axis) {
      out->add_positions(update.pose.position[axis]);
    }
    if constexpr (D == 2) {
      out->add_rotations(update.pose.rotation.Angle());
    } else {
      out->add_rotations(update.pose.rotation.x);
      out->add_rotations(update.pose.rotation.y);
      out->add_rotations(update.pose.rotation.z);
      out->add_rotations(update.pose.rotation.w);
    }
  }
}

template absl::StatusOr<std::vector<scene::GroupPoseUpdate<2>>>
ToGroupPoseUpdates<2>(const sator::v1::PoseBatch&);
template absl::StatusOr<std::vector<scene::GroupPoseUpdate<3>>>
ToGroupPoseUpdates<3>(const sator::v1::PoseBatch&);
template absl::StatusOr<scene::BodyDesc<2>> ToBodyDesc<2>(
    const sator::v1::Body&, const ShapeLimits&);
template absl::StatusOr<scene::BodyDesc<3>> ToBodyDesc<3>(
    const sator::v1::Body&, const ShapeLimits&);
template absl::StatusOr<std::vector<scene::BodyDesc<2>>> ToBodyDescs<2>(
    const google::protobuf::RepeatedPtrField<sator::v1::Body>&,
    const ShapeLimits&, absl::string_view);
template absl::StatusOr<std::vector<scene::BodyDesc<3>>> ToBodyDescs<3>(
    const google::protobuf::RepeatedPtrField<sator::v1::Body>&,
    const ShapeLimits&, absl::string_view);
template void FromBodyDesc<2>(const scene::BodyDesc<2>&, sator::v1::Body*);
template void FromBodyDesc<3>(const scene::BodyDesc<3>&, sator::v1::Body*);
template absl::StatusOr<std::vector<scene::PoseUpdate<2>>> ToPoseUpdates<2>(
    const sator::v1::PoseBatch&);
template absl::StatusOr<std::vector<scene::PoseUpdate<3>>> ToPoseUpdates<3>(
    const sator::v1::PoseBatch&);
template void FromPoseUpdates<2>(const std::vector<scene::PoseUpdate<2>>&,
                                 sator::v1::PoseBatch*);
template void FromPoseUpdates<3>(const std::vector<scene::PoseUpdate<3>>&,
                                 sator::v1::PoseBatch*);

}  // namespace sator::convert
