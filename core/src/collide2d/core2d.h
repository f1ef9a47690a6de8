// Private: every 2D shape seen as a "rounded core": a convex point set of 1
// (circle), 2 (segment, capsule) or 3..16 (box, polygon) vertices, inflated
// by a radius (circle, capsule; 0 otherwise). This is the view of Box2D's
// b2DistanceProxy / van den Bergen's "core + margin" (van den Bergen,
// "Collision Detection in Interactive 3D Environments", 2004, 4.3.3). One SAT,
// one clipper, one sweep then serve all 25 pairs.
//
// A 2-vertex core has two edges (a->b and b->a) with opposite normals, so the
// polygon loops below treat it as a degenerate polygon; a 1-vertex core has
// no edge. Vertices are stored as structure-of-arrays so the inner loops
// vectorise; the arrays are left uninitialised past `count`.
#ifndef SATOR_CORE_SRC_COLLIDE2D_CORE2D_H_
#define SATOR_CORE_SRC_COLLIDE2D_CORE2D_H_

#include <algorithm>
#include <cmath>
#include <cstring>

#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/collide2d/tolerance2d.h"
#include "sator/core/pose.h"
#include "sator/core/vec.h"
#include "simd/float4.h"

namespace sator::internal2d {

struct Core {
  // Vertices, padded to a multiple of 4 lanes with copies of vertex 0 (so
  // a 4-wide min over all lanes is the min over the vertices).
  alignas(16) float vx[kMaxPolygonVertices];
  alignas(16) float vy[kMaxPolygonVertices];
  alignas(16) float nx[kMaxPolygonVertices];
  alignas(16) float ny[kMaxPolygonVertices];
  int count;
  float radius;
  float extent;  // max(|x| + |y|) + radius, in the core's own frame.

  Vec2 v(int i) const { return {vx[i], vy[i]}; }
  Vec2 n(int i) const { return {nx[i], ny[i]}; }
  int EdgeCount() const { return count >= 2 ? count : 0; }
  int Next(int i) const { return i + 1 == count ? 0 : i + 1; }
  int Lanes() const { return (count + 3) & ~3; }
  // Fills the padding lanes with copies of vertex 0 and normal 0 (a padded
  // lane repeats edge 0, which changes no min or max); call after setting
  // the vertices and normals.
  void Pad() {
    for (int i = count; i < Lanes(); ++i) {
      vx[i] = vx[0];
      vy[i] = vy[0];
      nx[i] = nx[0];
      ny[i] = ny[0];
    }
  }
};

// A polygon read in place, with the member names of Core, so the SAT
// templates (sat2d.h) take either without copying the polygon.
struct PolygonRef {
  explicit PolygonRef(const ConvexPolygon& polygon)
      : vx(polygon.xs()),
        vy(polygon.ys()),
        nx(polygon.normal_xs()),
        ny(polygon.normal_ys()),
        count(polygon.count()) {}
  const float* vx;
  const float* vy;
  const float* nx;
  const float* ny;
  int count;
  float radius = 0.0f;

  Vec2 v(int i) const { return {vx[i], vy[i]}; }
  Vec2 n(int i) const { return {nx[i], ny[i]}; }
  int EdgeCount() const { return count; }
  int Next(int i) const { return i + 1 == count ? 0 : i + 1; }
};

// min over the core's vertices of nx * x + ny * y.
inline float MinDot(const Core& c, float nx, float ny) {
  using simd::Float4;
  Float4 m = nx * Float4::Load(c.vx) + ny * Float4::Load(c.vy);
  for (int k = 4; k < c.count; k += 4) {
    m = Min(m, nx * Float4::Load(c.vx + k) + ny * Float4::Load(c.vy + k));
  }
  return simd::MinLane(m);
}

// The alternative of a shape whose index the caller has checked (std::get
// would add a throwing path; GCC's -Wnull-dereference needs the hint).
template <typename T>
inline const T& As(const Shape2& shape) {
  const T* p = std::get_if<T>(&shape);
  if (p == nullptr) __builtin_unreachable();
  return *p;
}

inline float L1(Vec2 v) { return std::fabs(v.x) + std::fabs(v.y); }

inline void SetSegment(Core& core, Vec2 a, Vec2 b) {
  core.count = 2;
  core.vx[0] = a.x;
  core.vy[0] = a.y;
  core.vx[1] = b.x;
  core.vy[1] = b.y;
  const Vec2 n = NormalizeOrZero(RightPerp(b - a));
  core.nx[0] = n.x;
  core.ny[0] = n.y;
  core.nx[1] = -n.x;
  core.ny[1] = -n.y;
  core.Pad();
}

inline void MakeBoxCore(const Box2& box, Core& core) {
  const float hx = box.half_extents.x;
  const float hy = box.half_extents.y;
  core.count = 4;
  core.radius = 0.0f;
  core.extent = hx + hy;
  // Counter-clockwise from the bottom-left corner; edge 0 is the bottom.
  core.vx[0] = -hx;
  core.vy[0] = -hy;
  core.nx[0] = 0.0f;
  core.ny[0] = -1.0f;
  core.vx[1] = hx;
  core.vy[1] = -hy;
  core.nx[1] = 1.0f;
  core.ny[1] = 0.0f;
  core.vx[2] = hx;
  core.vy[2] = hy;
  core.nx[2] = 0.0f;
  core.ny[2] = 1.0f;
  core.vx[3] = -hx;
  core.vy[3] = hy;
  core.nx[3] = -1.0f;
  core.ny[3] = 0.0f;
}

inline void MakePolygonCore(const ConvexPolygon& polygon, Core& core) {
  // Same padded structure-of-arrays layout: whole-array copies.
  std::memcpy(core.vx, polygon.xs(), sizeof(core.vx));
  std::memcpy(core.vy, polygon.ys(), sizeof(core.vy));
  std::memcpy(core.nx, polygon.normal_xs(), sizeof(core.nx));
  std::memcpy(core.ny, polygon.normal_ys(), sizeof(core.ny));
  core.count = polygon.count();
  core.radius = 0.0f;
  core.extent = polygon.extent();
}

// Builds the core of any shape in its own frame.
inline void MakeCore(const Shape2& shape, Core& core) {
  switch (shape.index()) {
    case 0: {
      const float r = As<Circle>(shape).radius;
      core.count = 1;
      core.vx[0] = 0.0f;
      core.vy[0] = 0.0f;
      core.nx[0] = 0.0f;
      core.ny[0] = 0.0f;
      core.Pad();
      core.radius = r;
      core.extent = r;
      return;
    }
    case 1:
      MakeBoxCore(As<Box2>(shape), core);
      return;
    case 2:
      MakePolygonCore(As<ConvexPolygon>(shape), core);
      return;
    case 3: {
      const auto& c = As<Capsule2>(shape);
      SetSegment(core, c.a, c.b);
      core.radius = c.radius;
      core.extent = std::max(L1(c.a), L1(c.b)) + c.radius;
      return;
    }
    default: {
      const auto& s = As<Segment2>(shape);
      SetSegment(core, s.a, s.b);
      core.radius = 0.0f;
      core.extent = std::max(L1(s.a), L1(s.b));
      return;
    }
  }
}

// Maps the lanes [0, lanes) of structure-of-arrays vertices and normals
// through a pose, four at a time, from `from` into `to` (which may be the
// same arrays).
inline void TransformLanes(const Pose2& pose, int lanes, const float* from_x,
                           const float* from_y, const float* from_nx,
                           const float* from_ny, Core& to) {
  using simd::Float4;
  const Float4 c = Float4::Splat(pose.rotation.c);
  const Float4 s = Float4::Splat(pose.rotation.s);
  const Float4 px = Float4::Splat(pose.position.x);
  const Float4 py = Float4::Splat(pose.position.y);
  for (int k = 0; k < lanes; k += 4) {
    const Float4 x = Float4::Load(from_x + k);
    const Float4 y = Float4::Load(from_y + k);
    const Float4 nx = Float4::Load(from_nx + k);
    const Float4 ny = Float4::Load(from_ny + k);
    (c * x - s * y + px).Store(to.vx + k);
    (s * x + c * y + py).Store(to.vy + k);
    (c * nx - s * ny).Store(to.nx + k);
    (s * nx + c * ny).Store(to.ny + k);
  }
}

// Maps a core (vertices and normals) through a pose, in place.
inline void TransformCore(const Pose2& pose, Core& core) {
  TransformLanes(pose, core.Lanes(), core.vx, core.vy, core.nx, core.ny, core);
}

// Builds B's core straight in A's frame: the polygon's vertices and normals
// mapped through `b_in_a` (only the lanes in use, so an 8-gon moves 8
// floats per array, not kMaxPolygonVertices).
inline void MakeTransformedPolygonCore(const ConvexPolygon& polygon,
                                       const Pose2& b_in_a, Core& core) {
  core.count = polygon.count();
  core.radius = 0.0f;
  core.extent = polygon.extent();
  TransformLanes(b_in_a, core.Lanes(), polygon.xs(), polygon.ys(),
                 polygon.normal_xs(), polygon.normal_ys(), core);
}

// Builds the core of any shape placed by `pose` (B's core in A's frame).
inline void MakeCoreIn(const Shape2& shape, const Pose2& pose, Core& core) {
  if (shape.index() == 2) {
    MakeTransformedPolygonCore(As<ConvexPolygon>(shape), pose, core);
    return;
  }
  MakeCore(shape, core);
  TransformCore(pose, core);
}

// The touching tolerance of a pair (tolerance2d.h); `b_in_a` is B's pose in
// A's frame.
inline float PairTolerance(const Core& a, const Core& b, const Pose2& b_in_a) {
  return TouchingTolerance(a.extent + b.extent + Length(b_in_a.position));
}

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_COLLIDE2D_CORE2D_H_
