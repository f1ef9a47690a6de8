// sator.v1 bodies and pose batches to and from the core scene's records
// (scene::BodyDesc, scene::PoseUpdate), validating every field.
//
// Errors name the offending field relative to the message given
// (sator/core/field_status.h): ToBodyDescs reports
// `bodies[3].shape.polygon.vertices[2].x: not finite`, ToPoseUpdates reports
// `positions[7]: not finite`; the caller prefixes the request's own path
// (`poses.`, `snapshot.`).
//
// Choices the API documents (docs/API.md):
// - motion_type MOTION_TYPE_UNSPECIFIED is INVALID_ARGUMENT: a body that
//   silently became dynamic (or static) would be wrong half the time.
// - body_id 0 is INVALID_ARGUMENT: it is proto3's "unset", so a body without
//   an id would otherwise collide with every other body without one.
// - layer and mask unset mean all 64 bits; an explicit 0 is kept as 0.
// - A mesh may only be the shape of a static body.
#ifndef SATOR_PROTO_CONVERT_BODY_CONVERT_H_
#define SATOR_PROTO_CONVERT_BODY_CONVERT_H_

#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/repeated_field.h"
#include "proto/convert/geometry_convert.h"
#include "sator/core/scene/scene_types.h"
#include "sator/v1/body.pb.h"
#include "sator/v1/body_service.pb.h"

namespace sator::convert {

// One body of a D-dimensional scene. Errors are relative to the body
// (`shape.circle.radius: ...`).
template <int D>
absl::StatusOr<scene::BodyDesc<D>> ToBodyDesc(const sator::v1::Body& body,
                                              const ShapeLimits& limits);

// Every body of a batch; errors name `bodies[i]` (the field name given).
template <int D>
absl::StatusOr<std::vector<scene::BodyDesc<D>>> ToBodyDescs(
    const google::protobuf::RepeatedPtrField<sator::v1::Body>& bodies,
    const ShapeLimits& limits, absl::string_view field = "bodies");

// The body as the API shows it: layer and mask always set.
template <int D>
void FromBodyDesc(const scene::BodyDesc<D>& body, sator::v1::Body* out);

// A packed batch of poses: D floats per body in `positions`, 1 (an angle in
// radians) in 2D or 4 (quaternion x, y, z, w) in 3D per body in
// `rotations`. Both sizes must match body_ids exactly; every number must be
// finite, positions within kMaxRequestCoordinate, quaternions of unit length
// within kRotationLengthTolerance (the tolerance ToPose3 applies; they are
// normalised); no body id may be 0. Errors name `positions`, `positions[i]`,
// `rotations`, `rotations[i]`, `body_ids[i]`.
template <int D>
absl::StatusOr<std::vector<scene::PoseUpdate<D>>> ToPoseUpdates(
    const sator::v1::PoseBatch& batch);

// The group arrays of `batch` (group_ids, group_positions, group_rotations,
// teleported_group_ids), checked as ToPoseUpdates checks the body arrays.
template <int D>
absl::StatusOr<std::vector<scene::GroupPoseUpdate<D>>> ToGroupPoseUpdates(
    const sator::v1::PoseBatch& batch);

// The packed form of `updates` (the inverse of ToPoseUpdates; for clients
// and tests).
template <int D>
void FromPoseUpdates(const std::vector<scene::PoseUpdate<D>>& updates,
                     sator::v1::PoseBatch* out);

extern template absl::StatusOr<scene::BodyDesc<2>> ToBodyDesc<2>(
    const sator::v1::Body&, const ShapeLimits&);
extern template absl::StatusOr<scene::BodyDesc<3>> ToBodyDesc<3>(
    const sator::v1::Body&, const ShapeLimits&);
extern template absl::StatusOr<std::vector<scene::BodyDesc<2>>> ToBodyDescs<2>(
    const google::protobuf::RepeatedPtrField<sator::v1::Body>&,
    const ShapeLimits&, absl::string_view);
extern template absl::StatusOr<std::vector<scene::BodyDesc<3>>> ToBodyDescs<3>(
    const google::protobuf::RepeatedPtrField<sator::v1::Body>&,
    const ShapeLimits&, absl::string_view);
extern template void FromBodyDesc<2>(const scene::BodyDesc<2>&,
                                     sator::v1::Body*);
extern template void FromBodyDesc<3>(const scene::BodyDesc<3>&,
                                     sator::v1::Body*);
extern template absl::StatusOr<std::vector<scene::PoseUpdate<2>>>
ToPoseUpdates<2>(const sator::v1::PoseBatch&);
extern template absl::StatusOr<std::vector<scene::PoseUpdate<3>>>
ToPoseUpdates<3>(const sator::v1::PoseBatch&);
extern template absl::StatusOr<std::vector<scene::GroupPoseUpdate<2>>>
ToGroupPoseUpdates<2>(const sator::v1::PoseBatch&);
extern template absl::StatusOr<std::vector<scene::GroupPoseUpdate<3>>>
ToGroupPoseUpdates<3>(const sator::v1::PoseBatch&);
extern template void FromPoseUpdates<2>(
    const std::vector<scene::PoseUpdate<2>>&, sator::v1::PoseBatch*);
extern template void FromPoseUpdates<3>(
    const std::vector<scene::PoseUpdate<3>>&, sator::v1::PoseBatch*);

}  // namespace sator::convert

#endif  // SATOR_PROTO_CONVERT_BODY_CONVERT_H_
