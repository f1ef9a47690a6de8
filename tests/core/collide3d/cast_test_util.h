// Helpers shared by the collide3d casts tests: seeded random inputs and
// exact signed distances used as independent checks.
#ifndef SATOR_TESTS_CORE_COLLIDE3D_CAST_TEST_UTIL_H_
#define SATOR_TESTS_CORE_COLLIDE3D_CAST_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "sator/core/collide3d/shapes3d.h"
#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator::testing_util {

class Rng {
 public:
  explicit Rng(unsigned seed) : engine_(seed) {}
  float Uniform(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(engine_);
  }
  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(engine_);
  }
  Vec3 InBox(float half) {
    return {Uniform(-half, half), Uniform(-half, half), Uniform(-half, half)};
  }
  Vec3 UnitVector() {
    while (true) {
      const Vec3 v = InBox(1.0f);
      const float l2 = LengthSquared(v);
      if (l2 > 0.01f && l2 <= 1.0f) return v * (1.0f / std::sqrt(l2));
    }
  }
  Quat Rotation() {
    // Separate statements: the order of a call's arguments is unspecified
    // (GCC and Clang differ), and the draws must not depend on it.
    const Vec3 axis = UnitVector();
    const float angle = Uniform(-3.14159f, 3.14159f);
    return Quat::FromAxisAngle(axis, angle);
  }
  Pose3 Pose(float half) { return {InBox(half), Rotation()}; }

 private:
  std::mt19937 engine_;
};

// A closed axis-aligned box as a ConvexHull record, built by hand (face
// normals and offsets are all a ray cast needs).
inline ConvexHull BoxHull(Vec3 h) {
  ConvexHull hull;
  for (int i = 0; i < 8; ++i) {
    hull.vertices.push_back(
        {(i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z});
  }
  for (int axis = 0; axis < 3; ++axis) {
    for (float sign : {1.0f, -1.0f}) {
      Vec3 n{};
      n[axis] = sign;
      hull.faces.push_back({n, h[axis], 0, 0});
    }
  }
  return hull;
}

// Exact signed distances (negative inside), in the shape's local frame.
inline float SignedDistanceSphere(const Sphere& s, Vec3 p) {
  return Length(p) - s.radius;
}
inline float SignedDistanceBox(const Box3& b, Vec3 p) {
  const Vec3 q = Abs(p) - b.half_extents;
  const Vec3 outside = Max(q, Vec3{});
  const float inside = std::min(std::max(q.x, std::max(q.y, q.z)), 0.0f);
  return Length(outside) + inside;
}
inline Vec3 ClosestOnSegment(Vec3 x, Vec3 a, Vec3 b) {
  const Vec3 u = b - a;
  const float uu = Dot(u, u);
  if (uu == 0.0f) return a;
  return a + std::clamp(Dot(x - a, u) / uu, 0.0f, 1.0f) * u;
}
inline float SignedDistanceCapsule(const Capsule3& c, Vec3 p) {
  return Length(p - ClosestOnSegment(p, c.a, c.b)) - c.radius;
}
// Unsigned distance from p to a triangle (Ericson 5.1.5, by regions).
inline float DistanceTriangle(const Triangle3& t, Vec3 p) {
  const Vec3 ab = t.b - t.a, ac = t.c - t.a, ap = p - t.a;
  const float d1 = Dot(ab, ap), d2 = Dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return Length(p - t.a);
  const Vec3 bp = p - t.b;
  const float d3 = Dot(ab, bp), d4 = Dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return Length(p - t.b);
  const float vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    return Length(p - (t.a + (d1 / (d1 - d3)) * ab));
  }
  const Vec3 cp = p - t.c;
  const float d5 = Dot(ab, cp), d6 = Dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return Length(p - t.c);
  const float vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    return Length(p - (t.a + (d2 / (d2 - d6)) * ac));
  }
  const float va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    return Length(p -
                  (t.b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (t.c - t.b)));
  }
  const float denom = 1.0f / (va + vb + vc);
  const Vec3 q = t.a + (vb * denom) * ab + (vc * denom) * ac;
  return Length(p - q);
}

}  // namespace sator::testing_util

#endif  // SATOR_TESTS_CORE_COLLIDE3D_CAST_TEST_UTIL_H_
