// Test helpers for the 2D core: seeded random shapes and poses, and an
// independent signed distance used to check answers (written from the
// definitions, not from the code under test).
#ifndef SATOR_TESTS_CORE_COLLIDE2D_TEST_SHAPES2D_H_
#define SATOR_TESTS_CORE_COLLIDE2D_TEST_SHAPES2D_H_

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "sator/core/collide2d/queries2d.h"
#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/collide2d/tolerance2d.h"

namespace sator::test2d {

inline constexpr int kKindCount = 5;
inline const char* KindName(int kind) {
  static const char* const kNames[] = {"Circle", "Box", "Polygon", "Capsule",
                                       "Segment"};
  return kNames[kind];
}

class ShapeGen {
 public:
  explicit ShapeGen(unsigned seed) : rng_(seed) {}

  float Uniform(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng_);
  }
  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  Vec2 Point(float extent) {
    return {Uniform(-extent, extent), Uniform(-extent, extent)};
  }
  Vec2 Direction() {
    const float a = Uniform(0.0f, 2.0f * std::numbers::pi_v<float>);
    return {std::cos(a), std::sin(a)};
  }
  Pose2 RandomPose(float extent) {
    // Separate statements: the order of a call's arguments is unspecified
    // (GCC and Clang differ), and the draws must not depend on it.
    const Vec2 position = Point(extent);
    const float angle = Uniform(-3.14159f, 3.14159f);
    return Pose2::FromAngle(position, angle);
  }

  // A random polygon: n points on an ellipse at sorted, well-spread angles
  // (strictly convex by construction), shifted off-centre.
  ConvexPolygon Polygon(int n) {
    const float rx = Uniform(0.2f, 2.0f);
    const float ry = Uniform(0.2f, 2.0f);
    const float step = 2.0f * std::numbers::pi_v<float> / static_cast<float>(n);
    const float phase = Uniform(0.0f, step);
    const Vec2 shift = Point(0.3f);
    std::vector<Vec2> points;
    for (int i = 0; i < n; ++i) {
      const float a =
          phase + step * (static_cast<float>(i) + Uniform(-0.3f, 0.3f));
      points.push_back(Vec2{rx * std::cos(a), ry * std::sin(a)} + shift);
    }
    return *MakeConvexPolygon(points);
  }

  Shape2 Shape(int kind) {
    switch (kind) {
      case 0:
        return Circle{Uniform(0.1f, 2.0f)};
      case 1:
        return Box2{{Uniform(0.1f, 2.0f), Uniform(0.1f, 2.0f)}};
      case 2:
        return Polygon(Int(3, 8));
      case 3: {
        const Vec2 a = Point(1.0f);
        Vec2 b = Point(1.0f);
        if (Length(b - a) < 0.05f) b = a + Vec2{0.5f, 0.0f};
        return Capsule2{a, b, Uniform(0.05f, 1.0f)};
      }
      default: {
        const Vec2 a = Point(1.5f);
        Vec2 b = Point(1.5f);
        if (Length(b - a) < 0.05f) b = a + Vec2{0.5f, 0.0f};
        return Segment2{a, b};
      }
    }
  }

 private:
  std::mt19937 rng_;
};

inline float DistanceToSegment(Vec2 p, Vec2 a, Vec2 b) {
  const Vec2 d = b - a;
  const float t = std::clamp(Dot(p - a, d) / Dot(d, d), 0.0f, 1.0f);
  return Length(p - (a + t * d));
}

// Signed distance from a point (in the shape's frame) to the shape:
// negative inside. Exact for every kind (for polygons: max of the edge
// separations inside, distance to the nearest edge outside).
inline float SignedDistance(const Shape2& shape, Vec2 p) {
  switch (shape.index()) {
    case 0:
      return Length(p) - std::get<Circle>(shape).radius;
    case 1: {
      const Vec2 h = std::get<Box2>(shape).half_extents;
      const Vec2 q = Abs(p) - h;
      const Vec2 outside{std::max(q.x, 0.0f), std::max(q.y, 0.0f)};
      return Length(outside) + std::min(std::max(q.x, q.y), 0.0f);
    }
    case 2: {
      const ConvexPolygon& poly = std::get<ConvexPolygon>(shape);
      float inside = -1e30f;
      float nearest = 1e30f;
      for (int i = 0; i < poly.count(); ++i) {
        const Vec2 a = poly.vertex(i);
        const Vec2 b = poly.vertex((i + 1) % poly.count());
        inside = std::max(inside, Dot(poly.normal(i), p - a));
        nearest = std::min(nearest, DistanceToSegment(p, a, b));
      }
      return inside <= 0.0f ? inside : nearest;
    }
    case 3: {
      const Capsule2& c = std::get<Capsule2>(shape);
      return DistanceToSegment(p, c.a, c.b) - c.radius;
    }
    default: {
      const Segment2& s = std::get<Segment2>(shape);
      return DistanceToSegment(p, s.a, s.b);
    }
  }
}

// max(|x| + |y|) over the shape's points, as tolerance2d.h defines it.
inline float Extent(const Shape2& shape) {
  auto l1 = [](Vec2 v) { return std::fabs(v.x) + std::fabs(v.y); };
  switch (shape.index()) {
    case 0:
      return std::get<Circle>(shape).radius;
    case 1:
      return l1(std::get<Box2>(shape).half_extents);
    case 2:
      return std::get<ConvexPolygon>(shape).extent();
    case 3: {
      const Capsule2& c = std::get<Capsule2>(shape);
      return std::max(l1(c.a), l1(c.b)) + c.radius;
    }
    default: {
      const Segment2& s = std::get<Segment2>(shape);
      return std::max(l1(s.a), l1(s.b));
    }
  }
}

inline float PairTolerance(const Shape2& a, const Pose2& pa, const Shape2& b,
                           const Pose2& pb) {
  return TouchingTolerance(Extent(a) + Extent(b) +
                           Length(pb.position - pa.position));
}

inline Pose2 Translated(Pose2 pose, Vec2 by) {
  pose.position += by;
  return pose;
}

}  // namespace sator::test2d

#endif  // SATOR_TESTS_CORE_COLLIDE2D_TEST_SHAPES2D_H_
