// The predicate behind ValidatePose (shapes2d.h), inline, for loops that
// validate many poses (a scene's pose batches): the same checks without
// building an absl::Status. ValidatePose uses it as its fast path, so the two
// cannot disagree.
#ifndef SATOR_CORE_SRC_COLLIDE2D_POSE_CHECK2D_H_
#define SATOR_CORE_SRC_COLLIDE2D_POSE_CHECK2D_H_

#include <cmath>

#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator::internal2d {

// How far the squared length of a pose's (cos, sin) may be from 1.
inline constexpr float kRotationSquaredLengthTolerance = 2e-6f;

// True when the position and rotation are finite and the rotation is of unit
// length within the tolerance. Finiteness is checked before any arithmetic
// (no floating-point exception on a NaN).
inline bool IsValidPose(const Pose2& pose) {
  if (!IsFinite(pose.position) || !std::isfinite(pose.rotation.c) ||
      !std::isfinite(pose.rotation.s)) {
    return false;
  }
  const float norm =
      pose.rotation.c * pose.rotation.c + pose.rotation.s * pose.rotation.s;
  return std::fabs(norm - 1.0f) <= kRotationSquaredLengthTolerance;
}

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_COLLIDE2D_POSE_CHECK2D_H_
