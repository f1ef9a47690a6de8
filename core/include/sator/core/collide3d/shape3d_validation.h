// Validation of the simple 3D shapes and of rotations.
//
// Every query assumes valid input; the service validates each shape and
// pose once, when it enters, with these functions.
#ifndef SATOR_CORE_COLLIDE3D_SHAPE3D_VALIDATION_H_
#define SATOR_CORE_COLLIDE3D_SHAPE3D_VALIDATION_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"

namespace sator {

// A quaternion whose length differs from 1 by more than this is refused by
// NormalizeRotation (a client that sends a rotation that far off has a bug;
// one within it has round-off and is renormalised).
inline constexpr float kRotationLengthTolerance = 1e-3f;

// kOk for a usable shape; kInvalidArgument naming the problem otherwise:
// non-finite numbers; a sphere or capsule radius <= kMinShapeSize; a box
// half extent <= kMinShapeSize; a radius, half extent, capsule end point,
// triangle or hull vertex coordinate beyond kMaxShapeCoordinate3 (limits.h)
// in magnitude; a degenerate triangle (area below
// kMinTriangleAreaRatio times its longest edge squared); a null hull, or a
// hull record not made by the factories whose sizes or indices are out of
// range (more than kMaxHullVertices vertices, say): the queries rely on them.
// A capsule whose segment has zero length is accepted: it is a sphere, and
// every query treats it as one.
absl::Status ValidateShape(const ConvexShape3& shape);

// q / |q| when | |q| - 1 | <= kRotationLengthTolerance; kInvalidArgument for
// a non-finite quaternion or one further from unit length.
absl::StatusOr<Quat> NormalizeRotation(Quat q);

// Validates the position and normalises the rotation of a pose.
absl::StatusOr<Pose3> NormalizePose(const Pose3& pose);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_SHAPE3D_VALIDATION_H_
