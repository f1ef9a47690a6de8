// Test helpers for the 3D core: seeded random shapes and poses, and an
// independent support-function model of every shape (written from the
// shape definitions, not from the code under test) to measure overlap along
// any direction.
#ifndef SATOR_TESTS_CORE_COLLIDE3D_TEST_SHAPES3D_H_
#define SATOR_TESTS_CORE_COLLIDE3D_TEST_SHAPES3D_H_

#include <cmath>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/shape3d.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator::testing {

class ShapeFactory {
 public:
  explicit ShapeFactory(unsigned seed) : rng_(seed) {
    // A pool of hulls (built once): random points in an ellipsoid.
    while (hulls_.size() < 48) {
      const int n = 6 + static_cast<int>(rng_() % 20);
      const Vec3 radii{U(0.3f, 1.5f), U(0.3f, 1.5f), U(0.3f, 1.5f)};
      std::vector<Vec3> pts;
      for (int i = 0; i < n; ++i) {
        const Vec3 d = RandomUnit();
        const float s = U(0.6f, 1.0f);
        pts.push_back(
            {s * radii.x * d.x, s * radii.y * d.y, s * radii.z * d.z});
      }
      auto hull = MakeConvexHull(pts);
      if (hull.ok()) hulls_.push_back(*hull);
    }
  }

  float U(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng_);
  }
  Vec3 RandomUnit() {
    std::normal_distribution<float> g(0.0f, 1.0f);
    for (;;) {
      const Vec3 v{g(rng_), g(rng_), g(rng_)};
      const float len = Length(v);
      if (len > 1e-3f) return (1.0f / len) * v;
    }
  }
  // A random direction times a length uniform in [lo, hi], drawn in that
  // order (as separate statements: the order in which the operands of `*`
  // are evaluated is unspecified, and GCC and Clang differ).
  Vec3 RandomVector(float lo, float hi) {
    const float length = U(lo, hi);
    return length * RandomUnit();
  }
  Quat RandomRotation() {
    std::normal_distribution<float> g(0.0f, 1.0f);
    for (;;) {
      const Quat q{g(rng_), g(rng_), g(rng_), g(rng_)};
      if (Length(q) > 1e-3f) return Normalize(q);
    }
  }
  Pose3 RandomPose(float spread) {
    return {{U(-spread, spread), U(-spread, spread), U(-spread, spread)},
            RandomRotation()};
  }

  ConvexShape3 Make(ShapeKind3 kind) {
    switch (kind) {
      case ShapeKind3::kSphere:
        return Sphere{U(0.2f, 1.2f)};
      case ShapeKind3::kBox:
        return Box3{{U(0.1f, 1.2f), U(0.1f, 1.2f), U(0.1f, 1.2f)}};
      case ShapeKind3::kCapsule: {
        const Vec3 d = RandomVector(0.0f, 1.0f);
        return Capsule3{-1.0f * d, d, U(0.1f, 0.8f)};
      }
      case ShapeKind3::kTriangle:
        for (;;) {
          const Triangle3 t{RandomVector(0.2f, 1.5f), RandomVector(0.2f, 1.5f),
                            RandomVector(0.2f, 1.5f)};
          if (ValidateShape(t).ok() &&
              Length(Cross(t.b - t.a, t.c - t.a)) > 0.05f) {
            return t;
          }
        }
      case ShapeKind3::kHull:
        return hulls_[rng_() % hulls_.size()];
    }
    return Sphere{1.0f};
  }

  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
  std::vector<std::shared_ptr<const ConvexHull>> hulls_;
};

// A random hull of size `scale` whose points come in close pairs (1 to 10
// apart: 1e-5 to 1e-4 of the size at 1e5), so that quickhull merges faces
// coplanar within its tolerance and their short edges can be degrees off
// perpendicular to the merged faces' normals (see EdgePole in
// core/src/collide3d/sat_polytope.h).
inline std::shared_ptr<const ConvexHull> ShortEdgeHull(ShapeFactory& f,
                                                       float scale) {
  for (;;) {
    std::vector<Vec3> pts;
    const int n = 3 + static_cast<int>(f.rng()() % 6);
    for (int i = 0; i < n; ++i) {
      const Vec3 p{f.U(-scale, scale), f.U(-scale, scale), f.U(-scale, scale)};
      pts.push_back(p);
      pts.push_back(p + f.RandomVector(1.0f, 10.0f));
    }
    auto h = MakeConvexHull(pts);
    if (h.ok()) return *h;
  }
}

// max over the posed shape of dot(d, x), from the shapes' definitions.
inline float SupportValue(const ConvexShape3& shape, const Pose3& pose,
                          Vec3 d) {
  const Vec3 local = InvRotate(pose.rotation, d);
  const float base = Dot(d, pose.position);
  const float len = Length(d);
  return std::visit(
      [&](const auto& s) -> float {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Sphere>) {
          return base + s.radius * len;
        } else if constexpr (std::is_same_v<T, Box3>) {
          return base + s.half_extents.x * std::fabs(local.x) +
                 s.half_extents.y * std::fabs(local.y) +
                 s.half_extents.z * std::fabs(local.z);
        } else if constexpr (std::is_same_v<T, Capsule3>) {
          return base + std::max(Dot(local, s.a), Dot(local, s.b)) +
                 s.radius * len;
        } else if constexpr (std::is_same_v<T, Triangle3>) {
          return base +
                 std::max({Dot(local, s.a), Dot(local, s.b), Dot(local, s.c)});
        } else {
          float m = Dot(local, s->vertices[0]);
          for (const Vec3& v : s->vertices) m = std::max(m, Dot(local, v));
          return base + m;
        }
      },
      shape);
}

// The overlap of A and B along unit n (B pushed along +n):
// max_A(n.x) - min_B(n.x); negative when n separates them.
inline float PenetrationAlong(const ConvexShape3& a, const Pose3& pa,
                              const ConvexShape3& b, const Pose3& pb, Vec3 n) {
  return SupportValue(a, pa, n) + SupportValue(b, pb, -n);
}

inline const char* KindName(ShapeKind3 k) {
  switch (k) {
    case ShapeKind3::kSphere:
      return "sphere";
    case ShapeKind3::kBox:
      return "box";
    case ShapeKind3::kCapsule:
      return "capsule";
    case ShapeKind3::kTriangle:
      return "triangle";
    case ShapeKind3::kHull:
      return "hull";
  }
  return "?";
}

}  // namespace sator::testing

#endif  // SATOR_TESTS_CORE_COLLIDE3D_TEST_SHAPES3D_H_
