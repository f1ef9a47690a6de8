// sator.v1 geometry messages to and from core types, validating every field.
//
// Every function that reads a request returns INVALID_ARGUMENT (or
// RESOURCE_EXHAUSTED for a server limit) with the path of the offending field
// relative to the message it was given (sator/core/field_status.h).
#ifndef SATOR_PROTO_CONVERT_GEOMETRY_CONVERT_H_
#define SATOR_PROTO_CONVERT_GEOMETRY_CONVERT_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/limits.h"
#include "sator/core/pose.h"
#include "sator/core/vec.h"
#include "sator/v1/geometry.pb.h"

namespace sator::convert {

// The coordinate and ray limits of a request (kMaxRequestCoordinate,
// kMaxRayDistance, kMinRayDirectionLength) are in sator/core/limits.h. 3D
// shapes' radii, half extents and local coordinates are bounded tighter, by
// kMaxShapeCoordinate3: ToShape3 reports a shape beyond it as
// INVALID_ARGUMENT from ValidateShape or the hull and mesh factories,
// prefixed by the shape kind.

// Server limits on shape sizes (flags of satord); exceeding one is
// RESOURCE_EXHAUSTED.
struct ShapeLimits {
  // Input points of a convex hull (the hull itself has at most
  // kMaxHullVertices vertices).
  std::uint32_t max_hull_points = 1024;
  std::uint32_t max_mesh_triangles = 1u << 20;
  std::uint32_t max_mesh_vertices = 1u << 21;
  // Edges of a 2D level (outline, hole and chain edges), at most
  // kMaxLevelEdges.
  std::uint32_t max_level_edges = 1u << 20;
};

absl::StatusOr<Vec2> ToVec2(const sator::v1::Vector& vector);
absl::StatusOr<Vec3> ToVec3(const sator::v1::Vector& vector);
absl::StatusOr<Pose2> ToPose2(const sator::v1::Pose& pose);
// Normalises the quaternion; refuses one far from unit length.
absl::StatusOr<Pose3> ToPose3(const sator::v1::Pose& pose);
// The scene's rule for a ray direction (of finite, in-range coordinates, as
// ToVec2 / ToVec3 return): INVALID_ARGUMENT naming `field` ("zero length",
// or "length below 1e-12") unless its Length() is above
// kMinRayDirectionLength. Below that its squared length is subnormal or
// zero, so Length() is too inexact to normalise the direction by.
absl::Status CheckRayDirection(Vec2 direction, absl::string_view field);
absl::Status CheckRayDirection(Vec3 direction, absl::string_view field);
absl::StatusOr<Shape2> ToShape2(const sator::v1::Shape& shape,
                                const ShapeLimits& limits);
absl::StatusOr<Shape3> ToShape3(const sator::v1::Shape& shape,
                                const ShapeLimits& limits);

// The dimension a shape message belongs to (2 or 3), or 0 if none is set.
int ShapeDimension(const sator::v1::Shape& shape);

void FromVec2(Vec2 vector, sator::v1::Vector* out);
void FromVec3(Vec3 vector, sator::v1::Vector* out);
void FromPose2(const Pose2& pose, sator::v1::Pose* out);
void FromPose3(const Pose3& pose, sator::v1::Pose* out);
// A hull is sent as its vertices (the server rebuilds the same hull from
// them); a mesh as its vertices and indices.
void FromShape2(const Shape2& shape, sator::v1::Shape* out);
void FromShape3(const Shape3& shape, sator::v1::Shape* out);

}  // namespace sator::convert

#endif  // SATOR_PROTO_CONVERT_GEOMETRY_CONVERT_H_
