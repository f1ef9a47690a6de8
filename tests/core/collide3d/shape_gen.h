// Seeded random convex shapes of every kind, for the property tests.
#ifndef SATOR_TESTS_CORE_COLLIDE3D_SHAPE_GEN_H_
#define SATOR_TESTS_CORE_COLLIDE3D_SHAPE_GEN_H_

#include <memory>
#include <vector>

#include "core/collide3d/cast_test_util.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/shape3d.h"

namespace sator::testing_util {

inline const char* KindName(int kind) {
  static const char* kNames[] = {"sphere", "box", "capsule", "triangle",
                                 "hull"};
  return kNames[kind];
}

// A pool of random hulls of 16 points each (building hulls is not what is
// under test, so they are made once).
inline const std::vector<std::shared_ptr<const ConvexHull>>& HullPool() {
  static const auto* pool = [] {
    auto* hulls = new std::vector<std::shared_ptr<const ConvexHull>>();
    Rng rng(1234);
    while (hulls->size() < 64) {
      const Vec3 scale{rng.Uniform(0.3f, 1.5f), rng.Uniform(0.3f, 1.5f),
                       rng.Uniform(0.3f, 1.5f)};
      std::vector<Vec3> points;
      for (int i = 0; i < 16; ++i) {
        const Vec3 p = rng.InBox(1.0f);
        points.push_back({p.x * scale.x, p.y * scale.y, p.z * scale.z});
      }
      auto hull = MakeConvexHull(points);
      if (hull.ok()) hulls->push_back(*hull);
    }
    return hulls;
  }();
  return *pool;
}

inline ConvexShape3 RandomShape(int kind, Rng& rng) {
  switch (kind) {
    case 0:
      return Sphere{rng.Uniform(0.2f, 1.5f)};
    case 1:
      return Box3{{rng.Uniform(0.2f, 1.5f), rng.Uniform(0.2f, 1.5f),
                   rng.Uniform(0.2f, 1.5f)}};
    case 2: {
      const Vec3 c = rng.InBox(0.3f);
      const Vec3 dir = rng.UnitVector();
      const Vec3 h = dir * rng.Uniform(0.0f, 1.2f);
      return Capsule3{c - h, c + h, rng.Uniform(0.1f, 1.0f)};
    }
    case 3:
      while (true) {
        const Triangle3 t{rng.InBox(1.5f), rng.InBox(1.5f), rng.InBox(1.5f)};
        const float area2 = Length(Cross(t.b - t.a, t.c - t.a));
        const float longest =
            std::max({LengthSquared(t.b - t.a), LengthSquared(t.c - t.b),
                      LengthSquared(t.a - t.c)});
        if (area2 > 0.05f * longest) return t;
      }
    default: {
      const auto& pool = HullPool();
      return pool[rng.Int(0, static_cast<int>(pool.size()) - 1)];
    }
  }
}

}  // namespace sator::testing_util

#endif  // SATOR_TESTS_CORE_COLLIDE3D_SHAPE_GEN_H_
