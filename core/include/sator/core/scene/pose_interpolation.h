// Pose interpolation between two ticks, as rewound scene queries use it.
//
// Position: linear. Rotation: normalised linear interpolation (nlerp) of the
// unit complex number (2D) or unit quaternion (3D), taking the shorter arc in
// 3D (q and -q are the same rotation). nlerp follows the same arc as slerp
// with a non-uniform speed; between two ticks of a game (rotations of a few
// degrees) the difference is far below float precision of the poses we get
// (Eberly, "A Fast and Accurate Algorithm for Computing SLERP", 2011, section
// 1, bounds the angle error; Jolt and Box2D interpolate the same way).
// Rotations exactly half a turn apart have no shorter arc; we then keep the
// first rotation (the interpolation is undefined, and a game tick never
// turns a body by 180 degrees unless it teleported).
#ifndef SATOR_CORE_SCENE_POSE_INTERPOLATION_H_
#define SATOR_CORE_SCENE_POSE_INTERPOLATION_H_

#include "sator/core/pose.h"

namespace sator::scene {

// The pose at t in [0, 1] between a (t = 0) and b (t = 1).
Pose2 InterpolatePose(const Pose2& a, const Pose2& b, float t);
Pose3 InterpolatePose(const Pose3& a, const Pose3& b, float t);

// True when the body jumped from a to b by more than `threshold` (a
// teleport: never interpolated across).
template <typename P>
bool IsTeleport(const P& a, const P& b, float threshold) {
  return Length(b.position - a.position) > threshold;
}

}  // namespace sator::scene

#endif  // SATOR_CORE_SCENE_POSE_INTERPOLATION_H_
