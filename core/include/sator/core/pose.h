// Rigid poses: a rotation followed by a translation.
//
// 2D rotations are a unit complex number (cosine, sine), 3D rotations a unit
// quaternion. `MulT(a, b)` gives b expressed in a's frame (a^-1 * b): pair
// queries take B's pose relative to A this way, which keeps the arithmetic
// near the origin and so keeps float round-off small for shapes far from it.
#ifndef SATOR_CORE_POSE_H_
#define SATOR_CORE_POSE_H_

#include <cmath>

#include "sator/core/vec.h"

namespace sator {

// ---- 2D --------------------------------------------------------------------
struct Rot2 {
  float c = 1.0f;  // cos(angle)
  float s = 0.0f;  // sin(angle)

  static Rot2 FromAngle(float radians) {
    return {std::cos(radians), std::sin(radians)};
  }
  float Angle() const { return std::atan2(s, c); }
};

constexpr Vec2 Rotate(Rot2 q, Vec2 v) {
  return {q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y};
}
constexpr Vec2 InvRotate(Rot2 q, Vec2 v) {
  return {q.c * v.x + q.s * v.y, -q.s * v.x + q.c * v.y};
}
// q * r: rotate by r, then by q.
constexpr Rot2 Mul(Rot2 q, Rot2 r) {
  return {q.c * r.c - q.s * r.s, q.s * r.c + q.c * r.s};
}
// q^-1 * r.
constexpr Rot2 MulT(Rot2 q, Rot2 r) {
  return {q.c * r.c + q.s * r.s, q.c * r.s - q.s * r.c};
}

struct Pose2 {
  Vec2 position;
  Rot2 rotation;

  static Pose2 FromAngle(Vec2 position, float radians) {
    return {position, Rot2::FromAngle(radians)};
  }
};

// Maps a point from the pose's local frame to the parent frame.
constexpr Vec2 Transform(const Pose2& pose, Vec2 local) {
  return Rotate(pose.rotation, local) + pose.position;
}
// Maps a point from the parent frame to the pose's local frame.
constexpr Vec2 InvTransform(const Pose2& pose, Vec2 world) {
  return InvRotate(pose.rotation, world - pose.position);
}
// a * b: first b, then a.
constexpr Pose2 Mul(const Pose2& a, const Pose2& b) {
  return {Transform(a, b.position), Mul(a.rotation, b.rotation)};
}
// a^-1 * b: b expressed in a's frame.
constexpr Pose2 MulT(const Pose2& a, const Pose2& b) {
  return {InvTransform(a, b.position), MulT(a.rotation, b.rotation)};
}

// ---- 3D --------------------------------------------------------------------
struct Quat {
  float x = 0.0f;
  float y = 0.0f;
  float z = 0.0f;
  float w = 1.0f;

  // `axis` need not be unit length; a zero axis gives the identity.
  static Quat FromAxisAngle(Vec3 axis, float radians) {
    const Vec3 unit = NormalizeOrZero(axis);
    const float half = 0.5f * radians;
    const float s = std::sin(half);
    return {unit.x * s, unit.y * s, unit.z * s, std::cos(half)};
  }
};

constexpr Quat Conjugate(Quat q) { return {-q.x, -q.y, -q.z, q.w}; }
constexpr float Dot(Quat a, Quat b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
// Hamilton product a * b: rotate by b, then by a.
constexpr Quat Mul(Quat a, Quat b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
          a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
// a^-1 * b for unit quaternions.
constexpr Quat MulT(Quat a, Quat b) { return Mul(Conjugate(a), b); }

// Rotates v by the unit quaternion q: v + 2w (u x v) + 2 u x (u x v), where u
// is q's vector part (the expanded form of q v q*, 15 multiplies).
constexpr Vec3 Rotate(Quat q, Vec3 v) {
  const Vec3 u{q.x, q.y, q.z};
  const Vec3 t = 2.0f * Cross(u, v);
  return v + q.w * t + Cross(u, t);
}
constexpr Vec3 InvRotate(Quat q, Vec3 v) { return Rotate(Conjugate(q), v); }

inline float Length(Quat q) { return std::sqrt(Dot(q, q)); }
// Returns q / |q|; the identity when |q| is zero.
inline Quat Normalize(Quat q) {
  const float length = Length(q);
  if (!(length > 0.0f)) return {};
  const float inv = 1.0f / length;
  return {q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

struct Pose3 {
  Vec3 position;
  Quat rotation;
};

constexpr Vec3 Transform(const Pose3& pose, Vec3 local) {
  return Rotate(pose.rotation, local) + pose.position;
}
constexpr Vec3 InvTransform(const Pose3& pose, Vec3 world) {
  return InvRotate(pose.rotation, world - pose.position);
}
constexpr Pose3 Mul(const Pose3& a, const Pose3& b) {
  return {Transform(a, b.position), Mul(a.rotation, b.rotation)};
}
constexpr Pose3 MulT(const Pose3& a, const Pose3& b) {
  return {InvTransform(a, b.position), MulT(a.rotation, b.rotation)};
}

// Pose<2> is Pose2 and Pose<3> is Pose3.
template <int D>
using Pose = std::conditional_t<D == 2, Pose2, Pose3>;

}  // namespace sator

#endif  // SATOR_CORE_POSE_H_
