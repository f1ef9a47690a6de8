// Small fixed-size vectors shared by the 2D and 3D cores.
//
// Both dimensions use float: it halves the memory of poses and history (see
// docs/DESIGN.md, "Why float") and is what game engines hand us. Code that is
// the same in both dimensions is written once against `Vec<D>`, which indexes
// components with operator[] (as parry's generic `Vector` does).
#ifndef SATOR_CORE_VEC_H_
#define SATOR_CORE_VEC_H_

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace sator {

struct Vec2 {
  static constexpr int kDim = 2;
  float x = 0.0f;
  float y = 0.0f;

  constexpr float operator[](int i) const { return i == 0 ? x : y; }
  constexpr float& operator[](int i) { return i == 0 ? x : y; }
};

struct Vec3 {
  static constexpr int kDim = 3;
  float x = 0.0f;
  float y = 0.0f;
  float z = 0.0f;

  constexpr float operator[](int i) const {
    return i == 0 ? x : (i == 1 ? y : z);
  }
  constexpr float& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
};

// Vec<2> is Vec2 and Vec<3> is Vec3.
template <int D>
using Vec = std::conditional_t<D == 2, Vec2, Vec3>;

template <typename T>
concept AnyVec = std::is_same_v<T, Vec2> || std::is_same_v<T, Vec3>;

// ---- 2D --------------------------------------------------------------------
constexpr Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
constexpr Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
constexpr Vec2 operator-(Vec2 a) { return {-a.x, -a.y}; }
constexpr Vec2 operator*(float s, Vec2 a) { return {s * a.x, s * a.y}; }
constexpr Vec2 operator*(Vec2 a, float s) { return {s * a.x, s * a.y}; }
constexpr bool operator==(Vec2 a, Vec2 b) { return a.x == b.x && a.y == b.y; }
constexpr float Dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
// The z component of the 3D cross product of (a, 0) and (b, 0).
constexpr float Cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }
// The right-hand perpendicular (rotated by -90 degrees): the outward normal of
// an edge of a counter-clockwise polygon.
constexpr Vec2 RightPerp(Vec2 a) { return {a.y, -a.x}; }
// The left-hand perpendicular (rotated by +90 degrees).
constexpr Vec2 LeftPerp(Vec2 a) { return {-a.y, a.x}; }
constexpr Vec2 Min(Vec2 a, Vec2 b) {
  return {std::min(a.x, b.x), std::min(a.y, b.y)};
}
constexpr Vec2 Max(Vec2 a, Vec2 b) {
  return {std::max(a.x, b.x), std::max(a.y, b.y)};
}
inline Vec2 Abs(Vec2 a) { return {std::fabs(a.x), std::fabs(a.y)}; }
inline bool IsFinite(Vec2 a) {
  return std::isfinite(a.x) && std::isfinite(a.y);
}

// ---- 3D --------------------------------------------------------------------
constexpr Vec3 operator+(Vec3 a, Vec3 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
constexpr Vec3 operator-(Vec3 a, Vec3 b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
constexpr Vec3 operator-(Vec3 a) { return {-a.x, -a.y, -a.z}; }
constexpr Vec3 operator*(float s, Vec3 a) {
  return {s * a.x, s * a.y, s * a.z};
}
constexpr Vec3 operator*(Vec3 a, float s) {
  return {s * a.x, s * a.y, s * a.z};
}
constexpr bool operator==(Vec3 a, Vec3 b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}
constexpr float Dot(Vec3 a, Vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
constexpr Vec3 Cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
constexpr Vec3 Min(Vec3 a, Vec3 b) {
  return {std::min(a.x, b.x), std::min(a.y, b.y), std::min(a.z, b.z)};
}
constexpr Vec3 Max(Vec3 a, Vec3 b) {
  return {std::max(a.x, b.x), std::max(a.y, b.y), std::max(a.z, b.z)};
}
inline Vec3 Abs(Vec3 a) {
  return {std::fabs(a.x), std::fabs(a.y), std::fabs(a.z)};
}
inline bool IsFinite(Vec3 a) {
  return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z);
}

// ---- Either dimension ------------------------------------------------------
template <AnyVec V>
constexpr V& operator+=(V& a, V b) {
  return a = a + b;
}
template <AnyVec V>
constexpr V& operator-=(V& a, V b) {
  return a = a - b;
}
template <AnyVec V>
constexpr V& operator*=(V& a, float s) {
  return a = a * s;
}
template <AnyVec V>
constexpr float LengthSquared(V a) {
  return Dot(a, a);
}
template <AnyVec V>
inline float Length(V a) {
  return std::sqrt(Dot(a, a));
}
// Returns a / |a|, or the zero vector when |a| is below `min_length`.
template <AnyVec V>
inline V NormalizeOrZero(V a, float min_length = 1e-20f) {
  const float length = Length(a);
  return length > min_length ? a * (1.0f / length) : V{};
}
template <AnyVec V>
constexpr V Lerp(V a, V b, float t) {
  return a + t * (b - a);
}

}  // namespace sator

#endif  // SATOR_CORE_VEC_H_
