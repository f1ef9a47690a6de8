// The 2D shapes. Plain records, each in its own local frame; a Pose2 places
// them in the world. ConvexPolygon is built only by MakeConvexPolygon, which
// validates it; the simple records are checked by ValidateShape.
#ifndef SATOR_CORE_COLLIDE2D_SHAPES2D_H_
#define SATOR_CORE_COLLIDE2D_SHAPES2D_H_

#include <cstdint>
#include <memory>
#include <variant>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sator/core/limits.h"
#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator {

// The validators' bounds (kMaxPolygonVertices, kMinShapeSize,
// kMaxShapeCoordinate) are in sator/core/limits.h.

// A disc of `radius` centred on the local origin.
struct Circle {
  float radius = 0.0f;
};

// A box centred on the local origin with its edges along the local axes (an
// oriented box once posed; axis-aligned at angle 0).
struct Box2 {
  Vec2 half_extents{};
};

// All points within `radius` of the segment from `a` to `b`.
struct Capsule2 {
  Vec2 a{};
  Vec2 b{};
  float radius = 0.0f;
};

// The segment from `a` to `b` (no thickness).
struct Segment2 {
  Vec2 a{};
  Vec2 b{};
};

class ConvexPolygon;
absl::StatusOr<ConvexPolygon> MakeConvexPolygon(absl::Span<const Vec2> points);

// A strictly convex polygon of 3 to kMaxPolygonVertices vertices, stored
// inline (no heap) as structure-of-arrays, counter-clockwise, with unit
// outward edge normals: edge i goes from vertex i to vertex i + 1 (mod
// count) and normal(i) is its outward normal. sizeof(ConvexPolygon) is 288
// bytes.
class ConvexPolygon {
 public:
  int count() const { return count_; }
  Vec2 vertex(int i) const { return {vx_[i], vy_[i]}; }
  Vec2 normal(int i) const { return {nx_[i], ny_[i]}; }
  // Structure-of-arrays views for the SIMD loops: kMaxPolygonVertices
  // floats each, lanes from count() up to the next multiple of 4, and at
  // least up to 8, padded with copies of vertex 0 and normal 0 (the rest
  // zero).
  const float* xs() const { return vx_; }
  const float* ys() const { return vy_; }
  const float* normal_xs() const { return nx_; }
  const float* normal_ys() const { return ny_; }
  // The area centroid, in the local frame.
  Vec2 centroid() const { return centroid_; }
  // max(|x| + |y|) over the vertices: the size that scales the touching
  // tolerance (see tolerance2d.h).
  float extent() const { return extent_; }
  // Early-out discs about the centroid, for pair tests: every vertex lies
  // within bounding_radius() of it (rounded up), and the disc of
  // inner_radius() (rounded down) lies inside the polygon.
  float bounding_radius() const { return bounding_radius_; }
  float inner_radius() const { return inner_radius_; }
  // min over the vertices of cos(exterior angle / 2), in (0, 1]. When two
  // polygons are a distance g apart, some edge normal of one of them
  // separates them by at least g * min(corner_factor(A), corner_factor(B))
  // (the normal cone of the closest vertex of their Minkowski difference is
  // no wider than a vertex's exterior angle of A or B).
  float corner_factor() const { return corner_factor_; }

 private:
  friend absl::StatusOr<ConvexPolygon> MakeConvexPolygon(
      absl::Span<const Vec2> points);
  ConvexPolygon() = default;

  alignas(16) float vx_[kMaxPolygonVertices] = {};
  alignas(16) float vy_[kMaxPolygonVertices] = {};
  alignas(16) float nx_[kMaxPolygonVertices] = {};
  alignas(16) float ny_[kMaxPolygonVertices] = {};
  Vec2 centroid_{};
  float extent_ = 0.0f;
  float bounding_radius_ = 0.0f;
  float inner_radius_ = 0.0f;
  float corner_factor_ = 1.0f;
  std::int32_t count_ = 0;
};

// Builds a polygon from its vertices in order (either winding; clockwise
// input is reversed to counter-clockwise). Refuses, with kInvalidArgument and
// a message naming the problem: fewer than 3 or more than kMaxPolygonVertices
// points, a NaN or infinite or out-of-range coordinate, repeated points (or
// an edge shorter than kMinShapeSize), three consecutive collinear points,
// zero area, and non-convex or self-intersecting input.
absl::StatusOr<ConvexPolygon> MakeConvexPolygon(absl::Span<const Vec2> points);

class Level2;  // level2d.h: static-only concave polygons and chains.

// Any 2D shape. The level is built once by MakeLevel2 and shared; it may
// only be the static side of a pair (a scene's static body).
using Shape2 = std::variant<Circle, Box2, ConvexPolygon, Capsule2, Segment2,
                            std::shared_ptr<const Level2>>;

// kInvalidArgument unless every number is finite and within
// kMaxShapeCoordinate, and radii, half extents and segment lengths are at
// least kMinShapeSize. A capsule's segment must have non-zero length (use a
// Circle otherwise). A level must be non-null (MakeLevel2 validated it).
absl::Status ValidateShape(const Shape2& shape);

// kInvalidArgument unless the position is finite and the rotation is finite
// and of unit length within 1e-4.
absl::Status ValidatePose(const Pose2& pose);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE2D_SHAPES2D_H_
