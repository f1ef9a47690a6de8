// Validation of the 2D shapes and the ConvexPolygon factory.
//
// Convexity check (see O'Rourke, "Computational Geometry in C", 2nd ed.,
// section 1.3, and Ericson, "Real-Time Collision Detection", 3.5): after
// orienting the polygon counter-clockwise by the sign of its shoelace area,
// every turn cross(e_i, e_i+1) must be strictly positive (relative to the
// edge lengths) and the turning angles must add up to exactly one full turn
// (2 pi); a star polygon turns left everywhere but winds twice.
// The centroid is the area centroid of the triangle fan (Ericson 3.4 / the
// standard shoelace formulas).
#include "sator/core/collide2d/shapes2d.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "absl/strings/str_format.h"
#include "collide2d/pose_check2d.h"

namespace sator {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

bool InRange(float v) {
  return std::isfinite(v) && std::fabs(v) <= kMaxShapeCoordinate;
}
bool InRange(Vec2 v) { return InRange(v.x) && InRange(v.y); }

absl::Status Invalid(const absl::FormatSpec<>& format) {
  return absl::InvalidArgumentError(absl::StrFormat(format));
}

absl::Status CheckSize(const char* what, float value) {
  if (!InRange(value)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s is not finite or exceeds %g", what,
                        static_cast<double>(kMaxShapeCoordinate)));
  }
  if (!(value >= kMinShapeSize)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s must be at least %g, got %g", what,
        static_cast<double>(kMinShapeSize), static_cast<double>(value)));
  }
  return absl::OkStatus();
}

absl::Status CheckPoint(const char* what, Vec2 p) {
  if (!InRange(p)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s has a NaN, infinite or out-of-range coordinate (limit %g)", what,
        static_cast<double>(kMaxShapeCoordinate)));
  }
  return absl::OkStatus();
}

absl::Status CheckSegment(const char* what, Vec2 a, Vec2 b) {
  if (absl::Status s = CheckPoint(what, a); !s.ok()) return s;
  if (absl::Status s = CheckPoint(what, b); !s.ok()) return s;
  if (!(Length(b - a) >= kMinShapeSize)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s has a zero-length segment (a and b closer than %g)",
                        what, static_cast<double>(kMinShapeSize)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConvexPolygon> MakeConvexPolygon(absl::Span<const Vec2> points) {
  const int n = static_cast<int>(points.size());
  if (n < 3) {
    return absl::InvalidArgumentError(
        absl::StrFormat("polygon needs at least 3 vertices, got %d", n));
  }
  if (n > kMaxPolygonVertices) {
    return absl::InvalidArgumentError(
        absl::StrFormat("polygon has %d vertices, more than the limit of %d", n,
                        kMaxPolygonVertices));
  }
  for (int i = 0; i < n; ++i) {
    if (!InRange(points[static_cast<size_t>(i)])) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "polygon vertex %d has a NaN, infinite or out-of-range coordinate",
          i));
    }
  }
  // Work relative to the first point: smaller numbers, less round-off.
  const Vec2 origin = points[0];
  std::array<Vec2, kMaxPolygonVertices> p{};
  float scale = 0.0f;
  for (int i = 0; i < n; ++i) {
    p[static_cast<size_t>(i)] = points[static_cast<size_t>(i)] - origin;
    scale = std::max(scale, std::fabs(p[static_cast<size_t>(i)].x) +
                                std::fabs(p[static_cast<size_t>(i)].y));
  }
  const float min_distance = std::max(kMinShapeSize, 1e-6f * scale);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (Length(p[static_cast<size_t>(i)] - p[static_cast<size_t>(j)]) <
          min_distance) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "polygon vertices %d and %d are repeated (closer than %g)", i, j,
            static_cast<double>(min_distance)));
      }
    }
  }
  float twice_area = 0.0f;
  for (int i = 1; i + 1 < n; ++i) {
    twice_area +=
        Cross(p[static_cast<size_t>(i)], p[static_cast<size_t>(i) + 1]);
  }
  if (!(std::fabs(twice_area) > 1e-6f * scale * scale)) {
    return Invalid("polygon has zero area (its points are collinear)");
  }
  // The vertices are kept exactly as given (only their order may change):
  // rebuilding them from p + origin would round them, and a polygon sent
  // back to its owner must convert to the same polygon again.
  std::array<Vec2, kMaxPolygonVertices> given{};
  std::copy(points.begin(), points.end(), given.begin());
  if (twice_area < 0.0f) {
    std::reverse(p.begin(), p.begin() + n);
    std::reverse(given.begin(), given.begin() + n);
  }

  double turning = 0.0;
  for (int i = 0; i < n; ++i) {
    const Vec2 e0 =
        p[static_cast<size_t>((i + 1) % n)] - p[static_cast<size_t>(i)];
    const Vec2 e1 = p[static_cast<size_t>((i + 2) % n)] -
                    p[static_cast<size_t>((i + 1) % n)];
    const float cross = Cross(e0, e1);
    if (!(cross > 1e-6f * Length(e0) * Length(e1))) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "polygon is not strictly convex at vertex %d (a reflex or collinear "
          "turn)",
          (i + 1) % n));
    }
    turning += std::atan2(static_cast<double>(cross),
                          static_cast<double>(Dot(e0, e1)));
  }
  if (std::fabs(turning - 2.0 * std::numbers::pi) > 1e-3) {
    return Invalid("polygon is self-intersecting (it winds more than once)");
  }

  ConvexPolygon polygon;
  polygon.count_ = n;
  Vec2 centroid{};
  float area_sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    const Vec2 v0 = p[k];
    const Vec2 v1 = p[static_cast<size_t>((i + 1) % n)];
    const Vec2 v = given[k];
    // From the given vertices: one rounding in the difference, and the
    // same normal whichever vertex comes first.
    const Vec2 normal =
        NormalizeOrZero(RightPerp(given[static_cast<size_t>((i + 1) % n)] - v));
    polygon.vx_[k] = v.x;
    polygon.vy_[k] = v.y;
    polygon.nx_[k] = normal.x;
    polygon.ny_[k] = normal.y;
    // Triangle (0, v0, v1) of the fan from the reference point (the
    // first input point, now at the origin): signed areas, so any
    // reference point works.
    const float a = Cross(v0, v1);
    area_sum += a;
    centroid += a * (v0 + v1);
  }
  polygon.centroid_ = origin + centroid * (1.0f / (3.0f * area_sum));
  float extent = 0.0f;
  for (int i = 0; i < n; ++i) {
    const Vec2 v = polygon.vertex(i);
    extent = std::max(extent, std::fabs(v.x) + std::fabs(v.y));
  }
  polygon.extent_ = extent;
  // Early-out discs and the corner factor (shapes2d.h). The radii carry a
  // relative margin of 1e-5 (about 80 ulps) against their own round-off.
  float bounding = 0.0f;
  float inner = kInfinity;
  float corner = 1.0f;
  for (int i = 0; i < n; ++i) {
    const Vec2 v = polygon.vertex(i);
    const Vec2 normal = polygon.normal(i);
    bounding = std::max(bounding, Length(v - polygon.centroid_));
    inner = std::min(inner, Dot(normal, v - polygon.centroid_));
    // Exterior angle phi at vertex i + 1 between normals i and i + 1:
    // cos(phi / 2) = sqrt((1 + cos phi) / 2).
    const float cos_phi = Dot(normal, polygon.normal((i + 1) % n));
    corner =
        std::min(corner, std::sqrt(std::max(0.0f, 0.5f * (1.0f + cos_phi))));
  }
  polygon.bounding_radius_ = bounding * (1.0f + 1e-5f);
  polygon.inner_radius_ = std::max(0.0f, inner * (1.0f - 1e-5f));
  polygon.corner_factor_ = std::max(corner * (1.0f - 1e-5f), 1e-6f);
  // SIMD padding: lanes up to the next multiple of 4, and at least up to 8
  // (ContactSmallPolygons loads two groups of four without a branch on the
  // count), repeat vertex 0 and normal 0 (so they repeat edge 0).
  for (int i = n; i < std::max((n + 3) & ~3, 8); ++i) {
    polygon.vx_[i] = polygon.vx_[0];
    polygon.vy_[i] = polygon.vy_[0];
    polygon.nx_[i] = polygon.nx_[0];
    polygon.ny_[i] = polygon.ny_[0];
  }
  return polygon;
}

absl::Status ValidateShape(const Shape2& shape) {
  switch (shape.index()) {
    case 0:
      return CheckSize("circle radius", std::get<Circle>(shape).radius);
    case 1: {
      const Box2& box = std::get<Box2>(shape);
      if (absl::Status s = CheckSize("box half extent x", box.half_extents.x);
          !s.ok()) {
        return s;
      }
      return CheckSize("box half extent y", box.half_extents.y);
    }
    case 2: {
      const auto& polygon = std::get<ConvexPolygon>(shape);
      if (polygon.count() < 3 || polygon.count() > kMaxPolygonVertices) {
        return Invalid("polygon was not made by MakeConvexPolygon");
      }
      return absl::OkStatus();
    }
    case 3: {
      const auto& capsule = std::get<Capsule2>(shape);
      if (absl::Status s = CheckSegment("capsule", capsule.a, capsule.b);
          !s.ok()) {
        return s;
      }
      return CheckSize("capsule radius", capsule.radius);
    }
    case 4: {
      const auto& segment = std::get<Segment2>(shape);
      return CheckSegment("segment", segment.a, segment.b);
    }
    case 5:
      if (std::get<std::shared_ptr<const Level2>>(shape) == nullptr) {
        return Invalid("the level pointer is null");
      }
      return absl::OkStatus();
    default:
      return Invalid("unknown shape kind");
  }
}

absl::Status ValidatePose(const Pose2& pose) {
  if (internal2d::IsValidPose(pose)) return absl::OkStatus();
  // Invalid: find which check fails, for the message.
  if (!IsFinite(pose.position)) {
    return Invalid("pose position is not finite");
  }
  if (!std::isfinite(pose.rotation.c) || !std::isfinite(pose.rotation.s)) {
    return Invalid("pose rotation is not finite");
  }
  const float norm =
      pose.rotation.c * pose.rotation.c + pose.rotation.s * pose.rotation.s;
  if (std::fabs(norm - 1.0f) > internal2d::kRotationSquaredLengthTolerance) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "pose rotation (cos, sin) is not of unit length (squared length %g)",
        static_cast<double>(norm)));
  }
  return absl::OkStatus();
}

}  // namespace sator
