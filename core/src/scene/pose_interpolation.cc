// Pose interpolation for rewound queries; see pose_interpolation.h.
#include "sator/core/scene/pose_interpolation.h"

#include <cmath>

namespace sator::scene {
namespace {

// Below this length the interpolated rotation has no direction (the two
// rotations are half a turn apart): keep the first.
constexpr float kMinRotationLength = 1e-6f;

}  // namespace

Pose2 InterpolatePose(const Pose2& a, const Pose2& b, float t) {
  Pose2 out;
  out.position = Lerp(a.position, b.position, t);
  const float c = a.rotation.c + t * (b.rotation.c - a.rotation.c);
  const float s = a.rotation.s + t * (b.rotation.s - a.rotation.s);
  const float length = std::sqrt(c * c + s * s);
  if (length > kMinRotationLength) {
    out.rotation = {c / length, s / length};
  } else {
    out.rotation = a.rotation;
  }
  return out;
}

Pose3 InterpolatePose(const Pose3& a, const Pose3& b, float t) {
  Pose3 out;
  out.position = Lerp(a.position, b.position, t);
  // q and -q are the same rotation: interpolate towards the one on a's side
  // of the 4D sphere, the shorter arc.
  Quat q1 = b.rotation;
  if (Dot(a.rotation, q1) < 0.0f) q1 = {-q1.x, -q1.y, -q1.z, -q1.w};
  const Quat& q0 = a.rotation;
  const Quat q{q0.x + t * (q1.x - q0.x), q0.y + t * (q1.y - q0.y),
               q0.z + t * (q1.z - q0.z), q0.w + t * (q1.w - q0.w)};
  if (Length(q) > kMinRotationLength) {
    out.rotation = Normalize(q);
  } else {
    out.rotation = a.rotation;
  }
  return out;
}

}  // namespace sator::scene
