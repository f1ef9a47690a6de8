// Validation of the simple 3D shapes and of rotations: every refusal is an
// absl::InvalidArgumentError that names the field and the limit.
#include "sator/core/collide3d/shape3d_validation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace sator {
namespace {

bool Finite(float x) { return std::isfinite(x); }

bool BeyondLimit(float value) {
  return std::fabs(value) > kMaxShapeCoordinate3;
}

// The refusal of `value` beyond kMaxShapeCoordinate3, naming `field`. The
// value is printed with 9 digits, enough to tell it from the limit.
absl::Status BeyondLimitError(absl::string_view field, float value) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s %.9g is beyond %g in magnitude (kMaxShapeCoordinate3)", field, value,
      kMaxShapeCoordinate3));
}

// Each coordinate of `p` within kMaxShapeCoordinate3. `name` builds the
// point's name ("<name> coordinate x") and is called only on a refusal, so a
// valid shape formats nothing (validation runs on every query).
template <typename NameFn>
absl::Status CheckPoint(const NameFn& name, const Vec3& p) {
  const float c[3] = {p.x, p.y, p.z};
  for (int k = 0; k < 3; ++k) {
    if (BeyondLimit(c[k])) {
      return BeyondLimitError(
          absl::StrFormat("%s coordinate %c", name(), "xyz"[k]), c[k]);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRadius(const char* kind, float radius) {
  if (!Finite(radius)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s radius is not finite", kind));
  }
  if (!(radius > kMinShapeSize)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s radius %g must be greater than %g", kind, radius, kMinShapeSize));
  }
  if (BeyondLimit(radius)) {
    return BeyondLimitError(absl::StrFormat("%s radius", kind), radius);
  }
  return absl::OkStatus();
}

// A ConvexHull is a public record: one not made by the factories could
// exceed the bounds the queries' fixed buffers rely on or index out of range.
absl::Status CheckHullRecord(const ConvexHull& h) {
  const size_t v = h.vertices.size();
  if (v < 4 || v > static_cast<size_t>(kMaxHullVertices)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "convex hull has %d vertices; it needs 4 to %d (build it with "
        "MakeConvexHull)",
        v, kMaxHullVertices));
  }
  if (h.faces.size() < 4 || h.faces.size() > 2 * v - 4 ||
      h.edges.size() > 3 * v - 6) {
    return absl::InvalidArgumentError(
        "convex hull has more faces or edges than a convex polytope with its "
        "vertices can have (build it with MakeConvexHull)");
  }
  for (size_t i = 0; i < v; ++i) {
    const Vec3& p = h.vertices[i];
    if (!IsFinite(p)) {
      return absl::InvalidArgumentError("convex hull vertex is not finite");
    }
    absl::Status s = CheckPoint(
        [i] { return absl::StrFormat("convex hull vertex %d", i); }, p);
    if (!s.ok()) return s;
  }
  for (const ConvexHull::Face& f : h.faces) {
    if (f.vertex_count < 3 ||
        static_cast<size_t>(f.first_index) + f.vertex_count >
            h.face_vertex_indices.size()) {
      return absl::InvalidArgumentError(
          "convex hull face indices are out of range");
    }
  }
  for (std::uint16_t i : h.face_vertex_indices) {
    if (i >= v) {
      return absl::InvalidArgumentError(
          "convex hull face vertex index is out of range");
    }
  }
  for (const ConvexHull::Edge& e : h.edges) {
    if (e.a >= v || e.b >= v || e.face_left >= h.faces.size() ||
        e.face_right >= h.faces.size()) {
      return absl::InvalidArgumentError(
          "convex hull edge index is out of range");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateShape(const ConvexShape3& shape) {
  return std::visit(
      [](const auto& s) -> absl::Status {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Sphere>) {
          return CheckRadius("sphere", s.radius);
        } else if constexpr (std::is_same_v<T, Box3>) {
          if (!IsFinite(s.half_extents)) {
            return absl::InvalidArgumentError(
                "box half extents are not finite");
          }
          for (int i = 0; i < 3; ++i) {
            if (!(s.half_extents[i] > kMinShapeSize)) {
              return absl::InvalidArgumentError(absl::StrFormat(
                  "box half extent %c is %g; it must be greater than %g",
                  "xyz"[i], s.half_extents[i], kMinShapeSize));
            }
            if (BeyondLimit(s.half_extents[i])) {
              return BeyondLimitError(
                  absl::StrFormat("box half extent %c", "xyz"[i]),
                  s.half_extents[i]);
            }
          }
          return absl::OkStatus();
        } else if constexpr (std::is_same_v<T, Capsule3>) {
          if (!IsFinite(s.a) || !IsFinite(s.b)) {
            return absl::InvalidArgumentError(
                "capsule segment end points are not finite");
          }
          if (absl::Status a =
                  CheckPoint([] { return "capsule end point a"; }, s.a);
              !a.ok()) {
            return a;
          }
          if (absl::Status b =
                  CheckPoint([] { return "capsule end point b"; }, s.b);
              !b.ok()) {
            return b;
          }
          // A zero-length segment is accepted: the capsule is a sphere.
          return CheckRadius("capsule", s.radius);
        } else if constexpr (std::is_same_v<T, Triangle3>) {
          if (!IsFinite(s.a) || !IsFinite(s.b) || !IsFinite(s.c)) {
            return absl::InvalidArgumentError(
                "triangle vertices are not finite");
          }
          const Vec3* vertices[3] = {&s.a, &s.b, &s.c};
          for (int i = 0; i < 3; ++i) {
            absl::Status m = CheckPoint(
                [i] { return absl::StrFormat("triangle vertex %c", "abc"[i]); },
                *vertices[i]);
            if (!m.ok()) return m;
          }
          const float longest =
              std::max({LengthSquared(s.b - s.a), LengthSquared(s.c - s.b),
                        LengthSquared(s.a - s.c)});
          const float twice_area = Length(Cross(s.b - s.a, s.c - s.a));
          if (!(longest > 0.0f) ||
              !(twice_area > 2.0f * kMinTriangleAreaRatio * longest)) {
            return absl::InvalidArgumentError(
                "triangle is degenerate (its vertices are coincident or "
                "collinear)");
          }
          return absl::OkStatus();
        } else {
          if (s == nullptr) {
            return absl::InvalidArgumentError("convex hull is null");
          }
          return CheckHullRecord(*s);
        }
      },
      shape);
}

absl::StatusOr<Quat> NormalizeRotation(Quat q) {
  if (!std::isfinite(q.x) || !std::isfinite(q.y) || !std::isfinite(q.z) ||
      !std::isfinite(q.w)) {
    return absl::InvalidArgumentError("rotation quaternion is not finite");
  }
  const double len = std::sqrt(
      static_cast<double>(q.x) * q.x + static_cast<double>(q.y) * q.y +
      static_cast<double>(q.z) * q.z + static_cast<double>(q.w) * q.w);
  if (std::fabs(len - 1.0) > kRotationLengthTolerance) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "rotation quaternion has length %g; it must be unit length within %g",
        len, kRotationLengthTolerance));
  }
  const auto inv = static_cast<float>(1.0 / len);
  return Quat{q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

absl::StatusOr<Pose3> NormalizePose(const Pose3& pose) {
  if (!IsFinite(pose.position)) {
    return absl::InvalidArgumentError("pose position is not finite");
  }
  absl::StatusOr<Quat> q = NormalizeRotation(pose.rotation);
  if (!q.ok()) return q.status();
  return Pose3{pose.position, *q};
}

}  // namespace sator
