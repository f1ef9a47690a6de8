#include "proto/convert/geometry_convert.h"

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/convert/dimension_convert.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "sator/core/field_status.h"

namespace sator::convert {
namespace {

using sator::v1::Shape;

absl::Status CheckFinite(absl::string_view field, float value) {
  if (!std::isfinite(value)) return FieldError(field, "not finite");
  return absl::OkStatus();
}

// Finite and within the coordinate range.
absl::Status CheckCoordinate(absl::string_view field, float value) {
  if (!std::isfinite(value)) return FieldError(field, "not finite");
  if (std::fabs(value) > kMaxRequestCoordinate) {
    return FieldError(field, absl::StrCat("out of range: |", value, "| > ",
                                          kMaxRequestCoordinate));
  }
  return absl::OkStatus();
}

absl::Status CheckPositive(absl::string_view field, float value) {
  if (!std::isfinite(value)) return FieldError(field, "not finite");
  if (!(value > 0.0f)) {
    return FieldError(field, absl::StrCat("must be positive, got ", value));
  }
  return absl::OkStatus();
}

const char* KindName(Shape::KindCase kind) {
  switch (kind) {
    case Shape::kCircle:
      return "circle";
    case Shape::kBox2D:
      return "box2d";
    case Shape::kPolygon:
      return "polygon";
    case Shape::kCapsule2D:
      return "capsule2d";
    case Shape::kSegment2D:
      return "segment2d";
    case Shape::kLevel2D:
      return "level2d";
    case Shape::kSphere:
      return "sphere";
    case Shape::kBox3D:
      return "box3d";
    case Shape::kCapsule3D:
      return "capsule3d";
    case Shape::kTriangle:
      return "triangle";
    case Shape::kHull:
      return "hull";
    case Shape::kMesh:
      return "mesh";
    case Shape::KIND_NOT_SET:
      break;
  }
  return "kind";
}

absl::StatusOr<Vec2> PositiveExtents2(const sator::v1::Vector& message) {
  absl::StatusOr<Vec2> extents = ToVec2(message);
  if (!extents.ok()) return extents.status();
  if (absl::Status s = CheckPositive("x", extents->x); !s.ok()) return s;
  if (absl::Status s = CheckPositive("y", extents->y); !s.ok()) return s;
  return extents;
}

absl::StatusOr<Vec3> PositiveExtents3(const sator::v1::Vector& message) {
  absl::StatusOr<Vec3> extents = ToVec3(message);
  if (!extents.ok()) return extents.status();
  if (absl::Status s = CheckPositive("x", extents->x); !s.ok()) return s;
  if (absl::Status s = CheckPositive("y", extents->y); !s.ok()) return s;
  if (absl::Status s = CheckPositive("z", extents->z); !s.ok()) return s;
  return extents;
}

// The points of repeated Vectors, a refusal naming `field[i]`.
template <int D>
absl::StatusOr<std::vector<Vec<D>>> ToPoints(
    const google::protobuf::RepeatedPtrField<sator::v1::Vector>& messages,
    absl::string_view field) {
  std::vector<Vec<D>> points;
  points.reserve(static_cast<size_t>(messages.size()));
  for (int i = 0; i < messages.size(); ++i) {
    absl::StatusOr<Vec<D>> point = Dim<D>::ToVec(messages[i]);
    if (!point.ok()) return PrefixIndex(field, i, point.status());
    points.push_back(*point);
  }
  return points;
}

absl::StatusOr<Shape2> ToLevel2(const sator::v1::Level2D& message,
                                const ShapeLimits& limits) {
  std::size_t edges = 0;
  for (const sator::v1::LevelPolygon& polygon : message.polygons()) {
    edges += static_cast<std::size_t>(polygon.outline_size());
    for (const sator::v1::LevelRing& hole : polygon.holes()) {
      edges += static_cast<std::size_t>(hole.points_size());
    }
  }
  for (const sator::v1::LevelChain& chain : message.chains()) {
    const auto points = static_cast<std::size_t>(chain.points_size());
    edges += chain.closed() || points == 0 ? points : points - 1;
  }
  if (edges > limits.max_level_edges) {
    return FieldError(absl::StatusCode::kResourceExhausted, "level2d",
                      absl::StrCat("at most ", limits.max_level_edges,
                                   " edges, got ", edges));
  }
  LevelDesc2 desc;
  desc.polygons.reserve(static_cast<size_t>(message.polygons_size()));
  for (int i = 0; i < message.polygons_size(); ++i) {
    const sator::v1::LevelPolygon& polygon = message.polygons(i);
    LevelPolygon2& out = desc.polygons.emplace_back();
    absl::StatusOr<std::vector<Vec2>> outline =
        ToPoints<2>(polygon.outline(), "outline");
    if (!outline.ok()) {
      return PrefixIndex("level2d.polygons", i, outline.status());
    }
    out.outline = *std::move(outline);
    for (int j = 0; j < polygon.holes_size(); ++j) {
      absl::StatusOr<std::vector<Vec2>> points =
          ToPoints<2>(polygon.holes(j).points(), "points");
      if (!points.ok()) {
        return PrefixIndex(absl::StrCat("level2d.polygons[", i, "].holes"), j,
                           points.status());
      }
      out.holes.push_back({*std::move(points)});
    }
  }
  for (int i = 0; i < message.chains_size(); ++i) {
    const sator::v1::LevelChain& chain = message.chains(i);
    absl::StatusOr<std::vector<Vec2>> points =
        ToPoints<2>(chain.points(), "points");
    if (!points.ok()) return PrefixIndex("level2d.chains", i, points.status());
    desc.chains.push_back(
        {*std::move(points), chain.closed(), chain.one_sided()});
  }
  absl::StatusOr<std::shared_ptr<const Level2>> level =
      MakeLevel2(std::move(desc));
  if (!level.ok()) return PrefixField("level2d", level.status());
  return Shape2(*std::move(level));
}

absl::StatusOr<Shape2> ToShape2Unchecked(const Shape& shape,
                                         const ShapeLimits& limits) {
  switch (shape.kind_case()) {
    case Shape::kCircle: {
      const float radius = shape.circle().radius();
      if (absl::Status s = CheckPositive("radius", radius); !s.ok()) {
        return PrefixField("circle", s);
      }
      return Shape2(Circle{radius});
    }
    case Shape::kBox2D: {
      absl::StatusOr<Vec2> extents =
          PositiveExtents2(shape.box2d().half_extents());
      if (!extents.ok()) {
        return PrefixField("box2d.half_extents", extents.status());
      }
      return Shape2(Box2{*extents});
    }
    case Shape::kPolygon: {
      const auto& vertices = shape.polygon().vertices();
      if (vertices.size() < 3 || vertices.size() > kMaxPolygonVertices) {
        return FieldError("polygon.vertices",
                          absl::StrCat("needs 3 to ", kMaxPolygonVertices,
                                       " vertices, got ", vertices.size()));
      }
      std::array<Vec2, kMaxPolygonVertices> points;
      for (int i = 0; i < vertices.size(); ++i) {
        absl::StatusOr<Vec2> point = ToVec2(vertices[i]);
        if (!point.ok()) {
          return PrefixIndex("polygon.vertices", i, point.status());
        }
        points[static_cast<size_t>(i)] = *point;
      }
      absl::StatusOr<ConvexPolygon> polygon =
          MakeConvexPolygon(absl::MakeConstSpan(
              points.data(), static_cast<size_t>(vertices.size())));
      if (!polygon.ok()) return PrefixField("polygon", polygon.status());
      return Shape2(*std::move(polygon));
    }
    case Shape::kCapsule2D: {
      const auto& capsule = shape.capsule2d();
      absl::StatusOr<Vec2> a = ToVec2(capsule.a());
      if (!a.ok()) return PrefixField("capsule2d.a", a.status());
      absl::StatusOr<Vec2> b = ToVec2(capsule.b());
      if (!b.ok()) return PrefixField("capsule2d.b", b.status());
      if (absl::Status s = CheckPositive("radius", capsule.radius()); !s.ok()) {
        return PrefixField("capsule2d", s);
      }
      return Shape2(Capsule2{*a, *b, capsule.radius()});
    }
    case Shape::kSegment2D: {
      absl::StatusOr<Vec2> a = ToVec2(shape.segment2d().a());
      if (!a.ok()) return PrefixField("segment2d.a", a.status());
      absl::StatusOr<Vec2> b = ToVec2(shape.segment2d().b());
      if (!b.ok()) return PrefixField("segment2d.b", b.status());
      return Shape2(Segment2{*a, *b});
    }
    case Shape::kLevel2D:
      return ToLevel2(shape.level2d(), limits);
    case Shape::KIND_NOT_SET:
      return FieldError("kind", "no shape kind is set");
    default:
      return FieldError(KindName(shape.kind_case()),
                        "a 3D shape cannot be used in a 2D scene");
  }
}

absl::StatusOr<Shape3> ToShape3Unchecked(const Shape& shape,
                                         const ShapeLimits& limits) {
  switch (shape.kind_case()) {
    case Shape::kSphere: {
      const float radius = shape.sphere().radius();
      if (absl::Status s = CheckPositive("radius", radius); !s.ok()) {
        return PrefixField("sphere", s);
      }
      return Shape3(Sphere{radius});
    }
    case Shape::kBox3D: {
      absl::StatusOr<Vec3> extents =
          PositiveExtents3(shape.box3d().half_extents());
      if (!extents.ok()) {
        return PrefixField("box3d.half_extents", extents.status());
      }
      return Shape3(Box3{*extents});
    }
    case Shape::kCapsule3D: {
      const auto& capsule = shape.capsule3d();
      absl::StatusOr<Vec3> a = ToVec3(capsule.a());
      if (!a.ok()) return PrefixField("capsule3d.a", a.status());
      absl::StatusOr<Vec3> b = ToVec3(capsule.b());
      if (!b.ok()) return PrefixField("capsule3d.b", b.status());
      if (absl::Status s = CheckPositive("radius", capsule.radius()); !s.ok()) {
        return PrefixField("capsule3d", s);
      }
      return Shape3(Capsule3{*a, *b, capsule.radius()});
    }
    case Shape::kTriangle: {
      const auto& triangle = shape.triangle();
      absl::StatusOr<Vec3> a = ToVec3(triangle.a());
      if (!a.ok()) return PrefixField("triangle.a", a.status());
      absl::StatusOr<Vec3> b = ToVec3(triangle.b());
      if (!b.ok()) return PrefixField("triangle.b", b.status());
      absl::StatusOr<Vec3> c = ToVec3(triangle.c());
      if (!c.ok()) return PrefixField("triangle.c", c.status());
      return Shape3(Triangle3{*a, *b, *c});
    }
    case Shape::kHull: {
      const auto& messages = shape.hull().points();
      if (static_cast<std::uint32_t>(messages.size()) >
          limits.max_hull_points) {
        return FieldError(absl::StatusCode::kResourceExhausted, "hull.points",
                          absl::StrCat("at most ", limits.max_hull_points,
                                       " points, got ", messages.size()));
      }
      absl::StatusOr<std::vector<Vec3>> points =
          ToPoints<3>(messages, "hull.points");
      if (!points.ok()) return points.status();
      absl::StatusOr<std::shared_ptr<const ConvexHull>> hull =
          MakeConvexHull(*points);
      if (!hull.ok()) return PrefixField("hull", hull.status());
      return Shape3(*std::move(hull));
    }
    case Shape::kMesh: {
      const auto& mesh = shape.mesh();
      if (static_cast<std::uint32_t>(mesh.vertices_size()) >
          limits.max_mesh_vertices) {
        return FieldError(
            absl::StatusCode::kResourceExhausted, "mesh.vertices",
            absl::StrCat("at most ", limits.max_mesh_vertices,
                         " vertices, got ", mesh.vertices_size()));
      }
      if (mesh.indices_size() % 3 != 0) {
        return FieldError("mesh.indices",
                          absl::StrCat("count must be a multiple of 3, got ",
                                       mesh.indices_size()));
      }
      const auto triangles =
          static_cast<std::uint32_t>(mesh.indices_size() / 3);
      if (triangles > limits.max_mesh_triangles) {
        return FieldError(absl::StatusCode::kResourceExhausted, "mesh.indices",
                          absl::StrCat("at most ", limits.max_mesh_triangles,
                                       " triangles, got ", triangles));
      }
      absl::StatusOr<std::vector<Vec3>> vertices =
          ToPoints<3>(mesh.vertices(), "mesh.vertices");
      if (!vertices.ok()) return vertices.status();
      std::vector<std::uint32_t> indices(mesh.indices().begin(),
                                         mesh.indices().end());
      absl::StatusOr<std::shared_ptr<const TriangleMesh>> made =
          MakeTriangleMesh(*std::move(vertices), std::move(indices));
      if (!made.ok()) return PrefixField("mesh", made.status());
      return Shape3(*std::move(made));
    }
    case Shape::KIND_NOT_SET:
      return FieldError("kind", "no shape kind is set");
    default:
      return FieldError(KindName(shape.kind_case()),
                        "a 2D shape cannot be used in a 3D scene");
  }
}

}  // namespace

absl::StatusOr<Vec2> ToVec2(const sator::v1::Vector& vector) {
  if (absl::Status s = CheckCoordinate("x", vector.x()); !s.ok()) return s;
  if (absl::Status s = CheckCoordinate("y", vector.y()); !s.ok()) return s;
  if (vector.z() != 0.0f) return FieldError("z", "must be 0 in 2D");
  return Vec2{vector.x(), vector.y()};
}

absl::StatusOr<Vec3> ToVec3(const sator::v1::Vector& vector) {
  if (absl::Status s = CheckCoordinate("x", vector.x()); !s.ok()) return s;
  if (absl::Status s = CheckCoordinate("y", vector.y()); !s.ok()) return s;
  if (absl::Status s = CheckCoordinate("z", vector.z()); !s.ok()) return s;
  return Vec3{vector.x(), vector.y(), vector.z()};
}

namespace {

template <int D>
absl::Status CheckDirection(Vec<D> direction, absl::string_view field) {
  if (Length(direction) > kMinRayDirectionLength) return absl::OkStatus();
  bool zero = true;
  for (int i = 0; i < D; ++i) zero = zero && direction[i] == 0.0f;
  if (zero) return FieldError(field, "zero length");
  return FieldError(field,
                    absl::StrCat("length below ", kMinRayDirectionLength));
}

}  // namespace

absl::Status CheckRayDirection(Vec2 direction, absl::string_view field) {
  return CheckDirection<2>(direction, field);
}

absl::Status CheckRayDirection(Vec3 direction, absl::string_view field) {
  return CheckDirection<3>(direction, field);
}

absl::StatusOr<Pose2> ToPose2(const sator::v1::Pose& pose) {
  absl::StatusOr<Vec2> position = ToVec2(pose.position());
  if (!position.ok()) return PrefixField("position", position.status());
  switch (pose.rotation_case()) {
    case sator::v1::Pose::kAngle:
      if (absl::Status s = CheckFinite("angle", pose.angle()); !s.ok()) {
        return s;
      }
      return Pose2::FromAngle(*position, pose.angle());
    case sator::v1::Pose::kOrientation:
      return FieldError("orientation",
                        "a 2D pose takes an angle, not a quaternion");
    case sator::v1::Pose::ROTATION_NOT_SET:
      break;
  }
  return Pose2{*position, Rot2{}};
}

absl::StatusOr<Pose3> ToPose3(const sator::v1::Pose& pose) {
  absl::StatusOr<Vec3> position = ToVec3(pose.position());
  if (!position.ok()) return PrefixField("position", position.status());
  switch (pose.rotation_case()) {
    case sator::v1::Pose::kOrientation: {
      const sator::v1::Quaternion& q = pose.orientation();
      for (const auto& [name, value] :
           {std::pair{"x", q.x()}, std::pair{"y", q.y()}, std::pair{"z", q.z()},
            std::pair{"w", q.w()}}) {
        if (absl::Status s = CheckFinite(name, value); !s.ok()) {
          return PrefixField("orientation", s);
        }
      }
      absl::StatusOr<Quat> rotation =
          NormalizeRotation(Quat{q.x(), q.y(), q.z(), q.w()});
      if (!rotation.ok()) return PrefixField("orientation", rotation.status());
      return Pose3{*position, *rotation};
    }
    case sator::v1::Pose::kAngle:
      return FieldError("angle",
                        "a 3D pose takes an orientation quaternion, not an "
                        "angle");
    case sator::v1::Pose::ROTATION_NOT_SET:
      break;
  }
  return Pose3{*position, Quat{}};
}

absl::StatusOr<Shape2> ToShape2(const sator::v1::Shape& shape,
                                const ShapeLimits& limits) {
  absl::StatusOr<Shape2> converted = ToShape2Unchecked(shape, limits);
  if (!converted.ok()) return converted;
  // The core's own validation backs up the field checks above (minimum
  // sizes, coordinate range).
  if (absl::Status valid = ValidateShape(*converted); !valid.ok()) {
    return PrefixField(KindName(shape.kind_case()), valid);
  }
  return converted;
}

absl::StatusOr<Shape3> ToShape3(const sator::v1::Shape& shape,
                                const ShapeLimits& limits) {
  absl::StatusOr<Shape3> converted = ToShape3Unchecked(shape, limits);
  if (!converted.ok()) return converted;
  if (std::optional<ConvexShape3> convex = AsConvex(*converted)) {
    if (absl::Status valid = ValidateShape(*convex); !valid.ok()) {
      return PrefixField(KindName(shape.kind_case()), valid);
    }
  }
  return converted;
}

int ShapeDimension(const sator::v1::Shape& shape) {
  switch (shape.kind_case()) {
    case Shape::kCircle:
    case Shape::kBox2D:
    case Shape::kPolygon:
    case Shape::kCapsule2D:
    case Shape::kSegment2D:
    case Shape::kLevel2D:
      return 2;
    case Shape::kSphere:
    case Shape::kBox3D:
    case Shape::kCapsule3D:
    case Shape::kTriangle:
    case Shape::kHull:
    case Shape::kMesh:
      return 3;
    case Shape::KIND_NOT_SET:
      break;
  }
  return 0;
}

void FromVec2(Vec2 vector, sator::v1::Vector* out) {
  out->set_x(vector.x);
  out->set_y(vector.y);
  out->set_z(0.0f);
}

void FromVec3(Vec3 vector, sator::v1::Vector* out) {
  out->set_x(vector.x);
  out->set_y(vector.y);
  out->set_z(vector.z);
}

void FromPose2(const Pose2& pose, sator::v1::Pose* out) {
  FromVec2(pose.position, out->mutable_position());
  out->set_angle(pose.rotation.Angle());
}

void FromPose3(const Pose3& pose, sator::v1::Pose* out) {
  FromVec3(pose.position, out->mutable_position());
  sator::v1::Quaternion* q = out->mutable_orientation();
  q->set_x(pose.rotation.x);
  q->set_y(pose.rotation.y);
  q->set_z(pose.rotation.z);
  q->set_w(pose.rotation.w);
}

namespace {

struct Shape2Writer {
  sator::v1::Shape* out;
  void operator()(const Circle& circle) const {
    out->mutable_circle()->set_radius(circle.radius);
  }
  void operator()(const Box2& box) const {
    FromVec2(box.half_extents, out->mutable_box2d()->mutable_half_extents());
  }
  void operator()(const ConvexPolygon& polygon) const {
    sator::v1::ConvexPolygon* message = out->mutable_polygon();
    for (int i = 0; i < polygon.count(); ++i) {
      FromVec2(polygon.vertex(i), message->add_vertices());
    }
  }
  void operator()(const Capsule2& capsule) const {
    sator::v1::Capsule2D* message = out->mutable_capsule2d();
    FromVec2(capsule.a, message->mutable_a());
    FromVec2(capsule.b, message->mutable_b());
    message->set_radius(capsule.radius);
  }
  void operator()(const Segment2& segment) const {
    FromVec2(segment.a, out->mutable_segment2d()->mutable_a());
    FromVec2(segment.b, out->mutable_segment2d()->mutable_b());
  }
  void operator()(const std::shared_ptr<const Level2>& level) const {
    sator::v1::Level2D* message = out->mutable_level2d();
    if (level == nullptr) return;
    for (const LevelPolygon2& polygon : level->desc().polygons) {
      sator::v1::LevelPolygon* p = message->add_polygons();
      for (Vec2 v : polygon.outline) FromVec2(v, p->add_outline());
      for (const LevelRing2& hole : polygon.holes) {
        sator::v1::LevelRing* ring = p->add_holes();
        for (Vec2 v : hole.points) FromVec2(v, ring->add_points());
      }
    }
    for (const LevelChain2& chain : level->desc().chains) {
      sator::v1::LevelChain* c = message->add_chains();
      for (Vec2 v : chain.points) FromVec2(v, c->add_points());
      c->set_closed(chain.closed);
      c->set_one_sided(chain.one_sided);
    }
  }
};

struct Shape3Writer {
  sator::v1::Shape* out;
  void operator()(const Sphere& sphere) const {
    out->mutable_sphere()->set_radius(sphere.radius);
  }
  void operator()(const Box3& box) const {
    FromVec3(box.half_extents, out->mutable_box3d()->mutable_half_extents());
  }
  void operator()(const Capsule3& capsule) const {
    sator::v1::Capsule3D* message = out->mutable_capsule3d();
    FromVec3(capsule.a, message->mutable_a());
    FromVec3(capsule.b, message->mutable_b());
    message->set_radius(capsule.radius);
  }
  void operator()(const Triangle3& triangle) const {
    sator::v1::Triangle* message = out->mutable_triangle();
    FromVec3(triangle.a, message->mutable_a());
    FromVec3(triangle.b, message->mutable_b());
    FromVec3(triangle.c, message->mutable_c());
  }
  void operator()(const std::shared_ptr<const ConvexHull>& hull) const {
    sator::v1::ConvexHull* message = out->mutable_hull();
    if (hull == nullptr) return;
    for (const Vec3& vertex : hull->vertices) {
      FromVec3(vertex, message->add_points());
    }
  }
  void operator()(const std::shared_ptr<const TriangleMesh>& mesh) const {
    sator::v1::TriangleMesh* message = out->mutable_mesh();
    if (mesh == nullptr) return;
    for (const Vec3& vertex : mesh->vertices()) {
      FromVec3(vertex, message->add_vertices());
    }
    message->mutable_indices()->Add(mesh->indices().begin(),
                                    mesh->indices().end());
  }
};

}  // namespace

void FromShape2(const Shape2& shape, sator::v1::Shape* out) {
  std::visit(Shape2Writer{out}, shape);
}

void FromShape3(const Shape3& shape, sator::v1::Shape* out) {
  std::visit(Shape3Writer{out}, shape);
}

}  // namespace sator::convert
