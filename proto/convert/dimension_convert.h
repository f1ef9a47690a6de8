// The geometry converters of one dimension under one name, for converters
// written once for 2D and 3D: Dim<2>::ToVec is ToVec2, Dim<3>::ToVec is
// ToVec3, and so on (geometry_convert.h).
#ifndef SATOR_PROTO_CONVERT_DIMENSION_CONVERT_H_
#define SATOR_PROTO_CONVERT_DIMENSION_CONVERT_H_

#include "absl/status/statusor.h"
#include "proto/convert/geometry_convert.h"
#include "sator/v1/geometry.pb.h"

namespace sator::convert {

template <int D>
struct Dim;

template <>
struct Dim<2> {
  static absl::StatusOr<Vec2> ToVec(const sator::v1::Vector& v) {
    return ToVec2(v);
  }
  static absl::StatusOr<Pose2> ToPose(const sator::v1::Pose& p) {
    return ToPose2(p);
  }
  static absl::StatusOr<Shape2> ToShape(const sator::v1::Shape& s,
                                        const ShapeLimits& limits) {
    return ToShape2(s, limits);
  }
  static void FromVec(Vec2 v, sator::v1::Vector* out) { FromVec2(v, out); }
};

template <>
struct Dim<3> {
  static absl::StatusOr<Vec3> ToVec(const sator::v1::Vector& v) {
    return ToVec3(v);
  }
  static absl::StatusOr<Pose3> ToPose(const sator::v1::Pose& p) {
    return ToPose3(p);
  }
  static absl::StatusOr<Shape3> ToShape(const sator::v1::Shape& s,
                                        const ShapeLimits& limits) {
    return ToShape3(s, limits);
  }
  static void FromVec(Vec3 v, sator::v1::Vector* out) { FromVec3(v, out); }
};

}  // namespace sator::convert

#endif  // SATOR_PROTO_CONVERT_DIMENSION_CONVERT_H_
