// Double-precision references for 2D level geometry, computed from the
// input rings (LevelDesc2) directly, never from the level's pieces or
// trees: the level tests and the level fuzzer check the core against them.
#ifndef SATOR_TESTS_SUPPORT_LEVEL_REFERENCE_H_
#define SATOR_TESTS_SUPPORT_LEVEL_REFERENCE_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "sator/core/collide2d/level2d.h"
#include "sator/core/vec.h"

namespace sator::testing {

struct D2 {
  double x;
  double y;
};
inline D2 ToD(Vec2 v) { return {v.x, v.y}; }
inline D2 operator-(D2 a, D2 b) { return {a.x - b.x, a.y - b.y}; }
inline D2 operator+(D2 a, D2 b) { return {a.x + b.x, a.y + b.y}; }
inline D2 operator*(double s, D2 a) { return {s * a.x, s * a.y}; }
inline double Dot(D2 a, D2 b) { return a.x * b.x + a.y * b.y; }
inline double Cross(D2 a, D2 b) { return a.x * b.y - a.y * b.x; }
inline double Len(D2 a) { return std::hypot(a.x, a.y); }

inline double PointSegmentDistance(D2 p, D2 a, D2 b) {
  const D2 ab = b - a;
  const double t = std::clamp(Dot(p - a, ab) / Dot(ab, ab), 0.0, 1.0);
  return Len(p - (a + t * ab));
}

// Even-odd point in ring (crossing number).
inline bool InsideRing(const std::vector<Vec2>& ring, D2 p) {
  bool inside = false;
  for (std::size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
    const D2 a = ToD(ring[i]);
    const D2 b = ToD(ring[j]);
    if ((a.y > p.y) != (b.y > p.y) &&
        p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x) {
      inside = !inside;
    }
  }
  return inside;
}

// Inside the solid of any polygon (outline minus holes).
inline bool InsideSolid(const LevelDesc2& desc, D2 p) {
  for (const LevelPolygon2& polygon : desc.polygons) {
    if (!InsideRing(polygon.outline, p)) continue;
    bool in_hole = false;
    for (const LevelRing2& hole : polygon.holes) {
      in_hole = in_hole || InsideRing(hole.points, p);
    }
    if (!in_hole) return true;
  }
  return false;
}

// The unsigned area of a ring (shoelace).
inline double RingArea(const std::vector<Vec2>& ring) {
  double twice = 0.0;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    twice += Cross(ToD(ring[i]), ToD(ring[(i + 1) % ring.size()]));
  }
  return 0.5 * std::fabs(twice);
}

// The first edge a ray from `o` along `d` (unit) meets within `max`,
// brute force over the level's edges (one-sided edges only from their
// front), or `inside` when `o` is inside a polygon's solid.
struct RayReference {
  bool hit = false;
  bool inside = false;
  double distance = 0.0;
  int edge = -1;
  double runner_up = std::numeric_limits<double>::infinity();
};

inline RayReference ReferenceRay(const Level2& level, D2 o, D2 d, double max) {
  RayReference r;
  if (InsideSolid(level.desc(), o)) {
    r.hit = r.inside = true;
    return r;
  }
  r.distance = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < level.edges().size(); ++i) {
    const LevelEdge2& e = level.edges()[i];
    const D2 a = ToD(e.a);
    const D2 ab = ToD(e.b) - a;
    const double denominator = Cross(d, ab);
    if (denominator == 0.0) continue;
    const double t = Cross(a - o, ab) / denominator;
    const double s = Cross(a - o, d) / denominator;
    if (t < 0.0 || t > max || s < 0.0 || s > 1.0) continue;
    const D2 normal{ab.y, -ab.x};
    if (e.one_sided && Dot(d, normal) >= 0.0) continue;
    if (t < r.distance) {
      r.runner_up = r.distance;
      r.distance = t;
      r.edge = static_cast<int>(i);
    } else {
      r.runner_up = std::min(r.runner_up, t);
    }
  }
  r.hit = r.edge >= 0;
  return r;
}

}  // namespace sator::testing

#endif  // SATOR_TESTS_SUPPORT_LEVEL_REFERENCE_H_
