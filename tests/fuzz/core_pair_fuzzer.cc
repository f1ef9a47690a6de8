// Fuzzes the core's pair queries and checks their properties: bytes -> two
// validated shapes (2D or 3D, every kind) and poses -> Overlap, Contact (the
// MTV), Sweep and RayCast.
//
// The decoding bounds every number (see ByteReader and Decode below): shape
// coordinates in [-S, S] for a scale S from 1e-3 to 1e5, positions within 4S
// of a common base (0 to 1e5) so that round-off far from the origin is
// exercised, displacements within 4S. Inputs the core's validators refuse
// are skipped: the validators are fuzzed through the service decoders.
//
// Properties (each a real finding when it fails):
//  - every result is finite, normals are unit length, fractions in [0, 1];
//  - Overlap(A, B) == Overlap(B, A), and Overlap agrees with Contact, except
//    within `slack` of touching;
//  - Contact(A, B).depth == Contact(B, A).depth within slack when both
//    overlap (the normals are opposite unless two axes tie; either way each
//    must separate the pair, which the next check proves);
//  - moving B by normal * (depth + 2 slack) separates the shapes (meshes
//    excepted: their contact is the deepest triangle's, documented in
//    mesh_queries.h);
//  - a sweep that hits at t has the shapes apart (depth <= slack) at every
//    sampled time before t and touching (depth >= -slack) at t; a miss has
//    them apart at every sampled time; kStartedOverlapping means touching at
//    t = 0;
//  - a ray hit point lies on the boundary: a probe ball of radius r centred
//    on it has depth r within slack; an origin reported inside is inside;
//    points along a missing ray are not inside.
//
// slack = 1e-4 * (the problem's size in A's frame) + 16 float ulps of the
// largest world coordinate: ten times the 2D core's touching tolerance
// (tolerance2d.h), plus the rounding of world-frame results. Checks are done
// with A moved to the origin (relative poses are exact in float; the core
// works in A's frame too), so that moving B by a small amount is not lost to
// the rounding of large world coordinates.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide2d/queries2d.h"
#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "sator/core/collide3d/triangle_mesh.h"

namespace {

using sator::Vec2;
using sator::Vec3;

// What the current input decoded to, printed when a property fails.
std::string g_scenario;

// Aborts (a finding) naming the property, the line and the decoded input.
#define CHECK_PROPERTY(condition)                                          \
  do {                                                                     \
    if (!(condition)) {                                                    \
      std::fprintf(stderr, "core_pair_fuzzer:%d: property failed: %s\n%s", \
                   __LINE__, #condition, g_scenario.c_str());              \
      std::abort();                                                        \
    }                                                                      \
  } while (false)

constexpr float kRelativeSlack = 1e-4f;
constexpr float kFloatEpsilon = 1.1920929e-7f;

// Reads bounded numbers from the fuzzer's bytes; past the end every read
// gives 0, so every input decodes.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size)
      : data_(data), size_(size) {}
  std::uint8_t U8() { return at_ < size_ ? data_[at_++] : 0; }
  // In [-1, 1], in steps of 1/32767.
  float Unit() {
    const auto high = static_cast<std::uint16_t>(U8());
    const auto low = static_cast<std::uint16_t>(U8());
    const auto raw = static_cast<std::int16_t>((high << 8) | low);
    return std::max(-1.0f, static_cast<float>(raw) / 32767.0f);
  }
  // In [0, 1].
  float Fraction() { return 0.5f * (Unit() + 1.0f); }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

template <int D>
sator::Vec<D> ReadVec(ByteReader& in, float scale) {
  sator::Vec<D> v{};
  for (int axis = 0; axis < D; ++axis) v[axis] = in.Unit() * scale;
  return v;
}

// ---- Dimension-specific shapes and queries ---------------------------------

template <int D>
struct Geometry;

// 2D polygon input points go through a convex hull first (Andrew's monotone
// chain; de Berg et al., "Computational Geometry", 1.1) so that random points
// give a polygon more often than not.
std::vector<Vec2> ConvexHull2(std::vector<Vec2> points) {
  std::sort(points.begin(), points.end(), [](Vec2 a, Vec2 b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  });
  auto turn = [](Vec2 o, Vec2 a, Vec2 b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  };
  std::vector<Vec2> hull(2 * points.size());
  std::size_t k = 0;
  for (const Vec2& p : points) {
    while (k >= 2 && turn(hull[k - 2], hull[k - 1], p) <= 0.0f) --k;
    hull[k++] = p;
  }
  const std::size_t lower = k + 1;
  for (std::size_t i = points.size(); i-- > 1;) {
    const Vec2& p = points[i - 1];
    while (k >= lower && turn(hull[k - 2], hull[k - 1], p) <= 0.0f) --k;
    hull[k++] = p;
  }
  hull.resize(k > 0 ? k - 1 : 0);
  return hull;
}

template <>
struct Geometry<2> {
  using Shape = sator::Shape2;
  using Pose = sator::Pose2;
  using V = Vec2;

  static std::optional<Shape> ReadShape(ByteReader& in, float scale) {
    switch (in.U8() % 5) {
      case 0:
        return Shape{sator::Circle{std::fabs(in.Unit()) * scale}};
      case 1:
        return Shape{sator::Box2{
            {std::fabs(in.Unit()) * scale, std::fabs(in.Unit()) * scale}}};
      case 2: {
        std::vector<Vec2> points(3 + in.U8() % 10);
        for (Vec2& p : points) p = ReadVec<2>(in, scale);
        auto polygon = sator::MakeConvexPolygon(ConvexHull2(points));
        if (!polygon.ok()) return std::nullopt;
        return Shape{*polygon};
      }
      case 3: {
        const Vec2 a = ReadVec<2>(in, scale);
        const Vec2 b = ReadVec<2>(in, scale);
        return Shape{sator::Capsule2{a, b, std::fabs(in.Unit()) * scale}};
      }
      default: {
        const Vec2 a = ReadVec<2>(in, scale);
        return Shape{sator::Segment2{a, ReadVec<2>(in, scale)}};
      }
    }
  }
  static bool Valid(const Shape& shape) {
    return sator::ValidateShape(shape).ok();
  }
  static Pose ReadPose(ByteReader& in, Vec2 base, float scale) {
    const Vec2 offset = ReadVec<2>(in, 4.0f * scale);
    return Pose::FromAngle(base + offset, in.Unit() * 3.14159265f);
  }
  static Pose Moved(const Pose& pose, Vec2 position) {
    return {position, pose.rotation};
  }
  static Shape Probe(float radius) { return Shape{sator::Circle{radius}}; }
  static Pose ProbePose(Vec2 at) { return {at, {}}; }
  static bool IsMesh(const Shape&) { return false; }

  static std::optional<bool> Overlap(const Shape& a, const Pose& pa,
                                     const Shape& b, const Pose& pb) {
    return sator::Overlap(a, pa, b, pb);
  }
  static std::optional<sator::ContactResult<2>> Contact(const Shape& a,
                                                        const Pose& pa,
                                                        const Shape& b,
                                                        const Pose& pb) {
    return sator::Contact(a, pa, b, pb);
  }
  static std::optional<sator::SweepResult<2>> Sweep(const Shape& a,
                                                    const Pose& pa, Vec2 da,
                                                    const Shape& b,
                                                    const Pose& pb, Vec2 db) {
    return sator::Sweep(a, pa, da, b, pb, db);
  }
  static std::optional<sator::RayResult<2>> RayCast(const Shape& shape,
                                                    const Pose& pose,
                                                    const sator::Ray<2>& ray) {
    return sator::RayCast(shape, pose, ray);
  }
};

template <>
struct Geometry<3> {
  using Shape = sator::Shape3;
  using Pose = sator::Pose3;
  using V = Vec3;

  static std::optional<Shape> ReadShape(ByteReader& in, float scale) {
    switch (in.U8() % 6) {
      case 0:
        return Shape{sator::Sphere{std::fabs(in.Unit()) * scale}};
      case 1: {
        const Vec3 h{std::fabs(in.Unit()) * scale, std::fabs(in.Unit()) * scale,
                     std::fabs(in.Unit()) * scale};
        return Shape{sator::Box3{h}};
      }
      case 2: {
        const Vec3 a = ReadVec<3>(in, scale);
        const Vec3 b = ReadVec<3>(in, scale);
        return Shape{sator::Capsule3{a, b, std::fabs(in.Unit()) * scale}};
      }
      case 3: {
        const Vec3 a = ReadVec<3>(in, scale);
        const Vec3 b = ReadVec<3>(in, scale);
        return Shape{sator::Triangle3{a, b, ReadVec<3>(in, scale)}};
      }
      case 4: {
        std::vector<Vec3> points(4 + in.U8() % 12);
        for (Vec3& p : points) p = ReadVec<3>(in, scale);
        auto hull = sator::MakeConvexHull(points);
        if (!hull.ok()) return std::nullopt;
        return Shape{*hull};
      }
      default: {
        std::vector<Vec3> vertices(3 + in.U8() % 6);
        for (Vec3& v : vertices) v = ReadVec<3>(in, scale);
        std::vector<std::uint32_t> indices(3 * (1 + in.U8() % 4));
        for (std::uint32_t& index : indices) {
          index = in.U8() % static_cast<std::uint32_t>(vertices.size());
        }
        auto mesh =
            sator::MakeTriangleMesh(std::move(vertices), std::move(indices));
        if (!mesh.ok()) return std::nullopt;
        return Shape{*mesh};
      }
    }
  }
  static bool Valid(const Shape& shape) {
    const auto convex = sator::AsConvex(shape);
    return !convex.has_value() || sator::ValidateShape(*convex).ok();
  }
  static Pose ReadPose(ByteReader& in, Vec3 base, float scale) {
    const Vec3 offset = ReadVec<3>(in, 4.0f * scale);
    sator::Quat q{in.Unit(), in.Unit(), in.Unit(), in.Unit()};
    if (sator::Length(q) < 0.1f) q = {};
    return {base + offset, sator::Normalize(q)};
  }
  static Pose Moved(const Pose& pose, Vec3 position) {
    return {position, pose.rotation};
  }
  static Shape Probe(float radius) { return Shape{sator::Sphere{radius}}; }
  static Pose ProbePose(Vec3 at) { return {at, {}}; }
  static bool IsMesh(const Shape& shape) {
    return !sator::AsConvex(shape).has_value();
  }

  // nullopt for the one documented refusal (mesh against mesh); any other
  // error on validated input is a finding.
  template <typename T>
  static std::optional<T> Unwrap(const absl::StatusOr<T>& result) {
    if (result.ok()) return *result;
    CHECK_PROPERTY(result.status().code() == absl::StatusCode::kUnimplemented);
    return std::nullopt;
  }
  static std::optional<bool> Overlap(const Shape& a, const Pose& pa,
                                     const Shape& b, const Pose& pb) {
    return Unwrap(sator::Overlap(a, pa, b, pb));
  }
  static std::optional<sator::ContactResult<3>> Contact(const Shape& a,
                                                        const Pose& pa,
                                                        const Shape& b,
                                                        const Pose& pb) {
    return Unwrap(sator::Contact(a, pa, b, pb));
  }
  static std::optional<sator::SweepResult<3>> Sweep(const Shape& a,
                                                    const Pose& pa, Vec3 da,
                                                    const Shape& b,
                                                    const Pose& pb, Vec3 db) {
    return Unwrap(sator::Sweep(a, pa, da, b, pb, db));
  }
  static std::optional<sator::RayResult<3>> RayCast(const Shape& shape,
                                                    const Pose& pose,
                                                    const sator::Ray<3>& ray) {
    return Unwrap(sator::RayCast(shape, pose, ray));
  }
};

// ---- Describing an input (for the report of a failed property) ------------

std::string Str(Vec2 v) { return absl::StrFormat("(%.9g, %.9g)", v.x, v.y); }
std::string Str(Vec3 v) {
  return absl::StrFormat("(%.9g, %.9g, %.9g)", v.x, v.y, v.z);
}
std::string Str(const sator::Pose2& p) {
  return absl::StrFormat("pos %s rot (c %.9g, s %.9g)", Str(p.position),
                         p.rotation.c, p.rotation.s);
}
std::string Str(const sator::Pose3& p) {
  return absl::StrFormat("pos %s quat (%.9g, %.9g, %.9g, %.9g)",
                         Str(p.position), p.rotation.x, p.rotation.y,
                         p.rotation.z, p.rotation.w);
}
std::string Str(const sator::Shape2& shape) {
  struct Visitor {
    std::string operator()(const sator::Circle& c) const {
      return absl::StrFormat("circle r %.9g", c.radius);
    }
    std::string operator()(const sator::Box2& b) const {
      return absl::StrCat("box ", Str(b.half_extents));
    }
    std::string operator()(const sator::ConvexPolygon& p) const {
      std::string out = "polygon";
      for (int i = 0; i < p.count(); ++i)
        absl::StrAppend(&out, " ", Str(p.vertex(i)));
      return out;
    }
    std::string operator()(const sator::Capsule2& c) const {
      return absl::StrFormat("capsule %s %s r %.9g", Str(c.a), Str(c.b),
                             c.radius);
    }
    std::string operator()(const sator::Segment2& s) const {
      return absl::StrCat("segment ", Str(s.a), " ", Str(s.b));
    }
    std::string operator()(
        const std::shared_ptr<const sator::Level2>& level) const {
      return absl::StrCat("level of ", level->edges().size(), " edges");
    }
  };
  return std::visit(Visitor{}, shape);
}
std::string Str(const sator::Shape3& shape) {
  struct Visitor {
    std::string operator()(const sator::Sphere& s) const {
      return absl::StrFormat("sphere r %.9g", s.radius);
    }
    std::string operator()(const sator::Box3& b) const {
      return absl::StrCat("box ", Str(b.half_extents));
    }
    std::string operator()(const sator::Capsule3& c) const {
      return absl::StrFormat("capsule %s %s r %.9g", Str(c.a), Str(c.b),
                             c.radius);
    }
    std::string operator()(const sator::Triangle3& t) const {
      return absl::StrCat("triangle ", Str(t.a), " ", Str(t.b), " ", Str(t.c));
    }
    std::string operator()(
        const std::shared_ptr<const sator::ConvexHull>& h) const {
      std::string out = "hull";
      for (const Vec3& v : h->vertices) absl::StrAppend(&out, " ", Str(v));
      return out;
    }
    std::string operator()(
        const std::shared_ptr<const sator::TriangleMesh>&) const {
      return "mesh";
    }
  };
  return std::visit(Visitor{}, shape);
}

// ---- Checks
// ------------------------------------------------------------------

template <int D>
bool Finite(const sator::Vec<D>& v) {
  for (int axis = 0; axis < D; ++axis) {
    if (!std::isfinite(v[axis])) return false;
  }
  return true;
}

template <int D>
bool Unit(const sator::Vec<D>& v) {
  return std::fabs(sator::Length(v) - 1.0f) <= 1e-3f;
}

template <int D>
void CheckContactFinite(const sator::ContactResult<D>& c) {
  CHECK_PROPERTY(std::isfinite(c.depth));
  CHECK_PROPERTY(Finite<D>(c.normal));
  if (c.overlapping) {
    CHECK_PROPERTY(c.point_count >= 0 &&
                   c.point_count <= sator::kMaxContactPoints<D>);
    for (int i = 0; i < c.point_count; ++i)
      CHECK_PROPERTY(Finite<D>(c.points[i]));
  }
}

template <int D>
class PairChecker {
  using G = Geometry<D>;
  using Shape = typename G::Shape;
  using Pose = typename G::Pose;
  using V = sator::Vec<D>;

 public:
  PairChecker(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
              float scale, float world)
      : a_(a), pa_(pa), b_(b), pb_(pb), scale_(scale), world_(world) {
    // A at the origin; B where it is relative to A (world axes kept).
    a0_ = G::Moved(pa, V{});
    relative_b_ = pb.position - pa.position;
  }

  // The size of everything involved in A's frame: both shapes (3 S bounds
  // any local point and radius), B's offset and whatever else the query
  // moves by.
  float Slack(float extra_length) const {
    return kRelativeSlack *
               (6.0f * scale_ + sator::Length(relative_b_) + extra_length) +
           16.0f * kFloatEpsilon * world_;
  }

  // B's contact with A when B is at `offset` from A (A at the origin).
  std::optional<sator::ContactResult<D>> ContactAt(V offset) const {
    return G::Contact(a_, a0_, b_, G::Moved(pb_, offset));
  }

  void Run(V da, V db, ByteReader& in) {
    const auto overlap_ab = G::Overlap(a_, pa_, b_, pb_);
    const auto overlap_ba = G::Overlap(b_, pb_, a_, pa_);
    const auto contact_ab = G::Contact(a_, pa_, b_, pb_);
    const auto contact_ba = G::Contact(b_, pb_, a_, pa_);
    if (!overlap_ab.has_value()) {  // Mesh against mesh: refused everywhere.
      CHECK_PROPERTY(!overlap_ba && !contact_ab && !contact_ba);
      CHECK_PROPERTY(!G::Sweep(a_, pa_, da, b_, pb_, db).has_value());
      return;
    }
    CHECK_PROPERTY(overlap_ba && contact_ab && contact_ba);
    CheckContactFinite<D>(*contact_ab);
    CheckContactFinite<D>(*contact_ba);
    const float slack = Slack(0.0f);
    const bool near_touching = std::fabs(contact_ab->depth) <= slack ||
                               std::fabs(contact_ba->depth) <= slack;
    if (!near_touching) {
      CHECK_PROPERTY(*overlap_ab == *overlap_ba);
      CHECK_PROPERTY(*overlap_ab == contact_ab->overlapping);
      CHECK_PROPERTY(*overlap_ba == contact_ba->overlapping);
    }
    const bool mesh = G::IsMesh(a_) || G::IsMesh(b_);
    if (contact_ab->overlapping) {
      if (!mesh) CHECK_PROPERTY(Unit<D>(contact_ab->normal));
      // In 3D too, box-box included (seeds
      // regression_hull_hull_short_edge_3d.bin and
      // regression_box_box_mtv_too_shallow.bin).
      if (contact_ba->overlapping && !mesh) {
        CHECK_PROPERTY(std::fabs(contact_ab->depth - contact_ba->depth) <=
                       slack);
      }
      if (!mesh) CheckSeparates(contact_ab->normal, contact_ab->depth);
    }
    if (contact_ba->overlapping && !mesh) {
      // B's MTV against A, seen from A: moving B by -normal_ba separates.
      CheckSeparates(-1.0f * contact_ba->normal, contact_ba->depth);
    }
    CheckSweep(da, db);
    CheckRay(a_, pa_, in);
    CheckRay(b_, pb_, in);
  }

 private:
  void CheckSeparates(V normal, float depth) const {
    const float push = std::max(depth, 0.0f);
    const float slack = Slack(push);
    const V moved = relative_b_ + (push + 2.0f * slack) * normal;
    const auto after = G::Overlap(a_, a0_, b_, G::Moved(pb_, moved));
    CHECK_PROPERTY(after.has_value() && !*after);
  }

  void CheckSweep(V da, V db) const {
    const auto sweep = G::Sweep(a_, pa_, da, b_, pb_, db);
    CHECK_PROPERTY(sweep.has_value());
    const V motion = db - da;
    const float slack = Slack(sator::Length(motion));
    auto depth_at = [&](float t) {
      const auto c = ContactAt(relative_b_ + t * motion);
      CHECK_PROPERTY(c.has_value());
      CheckContactFinite<D>(*c);
      return c->depth;
    };
    switch (sweep->outcome) {
      case sator::SweepOutcome::kStartedOverlapping:
        CheckContactFinite<D>(sweep->initial);
        CHECK_PROPERTY(depth_at(0.0f) >= -slack);
        break;
      case sator::SweepOutcome::kHit: {
        const float t = sweep->fraction;
        CHECK_PROPERTY(std::isfinite(t) && t >= 0.0f && t <= 1.0f);
        CHECK_PROPERTY(Finite<D>(sweep->normal) && Finite<D>(sweep->point));
        if (!G::IsMesh(a_) && !G::IsMesh(b_))
          CHECK_PROPERTY(Unit<D>(sweep->normal));
        for (int k = 0; k < 4; ++k) {
          CHECK_PROPERTY(depth_at(t * static_cast<float>(k) / 4.0f) <= slack);
        }
        CHECK_PROPERTY(depth_at(t) >= -slack);
        break;
      }
      case sator::SweepOutcome::kMiss:
        for (int k = 0; k <= 4; ++k) {
          CHECK_PROPERTY(depth_at(static_cast<float>(k) / 4.0f) <= slack);
        }
        break;
    }
  }

  void CheckRay(const Shape& shape, const Pose& pose, ByteReader& in) const {
    sator::Ray<D> ray;
    V direction = ReadVec<D>(in, 1.0f);
    if (sator::Length(direction) < 0.1f) return;
    ray.direction = sator::NormalizeOrZero(direction);
    ray.origin = pose.position + ReadVec<D>(in, 4.0f * scale_);
    ray.max_distance = (0.01f + in.Fraction()) * 16.0f * scale_;
    absl::StrAppend(&g_scenario, "  ray: origin ", Str(ray.origin),
                    " direction ", Str(ray.direction), " max_distance ",
                    absl::StrFormat("%.9g", ray.max_distance), "\n");
    const auto result = G::RayCast(shape, pose, ray);
    CHECK_PROPERTY(result.has_value());
    CHECK_PROPERTY(std::isfinite(result->distance) &&
                   Finite<D>(result->point) && Finite<D>(result->normal));

    // Everything relative to the shape's position.
    const Pose shape0 = G::Moved(pose, V{});
    const V origin0 = ray.origin - pose.position;
    const float slack =
        kRelativeSlack *
            (3.0f * scale_ + sator::Length(origin0) + ray.max_distance) +
        16.0f * kFloatEpsilon * world_;
    const float radius = std::max(2.0f * slack, 4e-6f);
    // The probe ball's depth against the shape: radius when its centre is on
    // the boundary, more inside, less outside.
    auto probe_depth = [&](V at) {
      const auto c =
          G::Contact(shape, shape0, G::Probe(radius), G::ProbePose(at));
      CHECK_PROPERTY(c.has_value());
      CheckContactFinite<D>(*c);
      return c->overlapping ? c->depth : -radius;
    };
    if (!result->hit) {
      for (int k = 0; k <= 4; ++k) {
        const float along = ray.max_distance * static_cast<float>(k) / 4.0f;
        CHECK_PROPERTY(probe_depth(origin0 + along * ray.direction) <=
                       radius + slack);
      }
      return;
    }
    CHECK_PROPERTY(result->distance >= 0.0f &&
                   result->distance <= ray.max_distance + slack);
    if (result->started_inside) {
      CHECK_PROPERTY(probe_depth(origin0) >= radius - slack);
      return;
    }
    if (!G::IsMesh(shape)) CHECK_PROPERTY(Unit<D>(result->normal));
    const V point0 = result->point - pose.position;
    const V expected = origin0 + result->distance * ray.direction;
    CHECK_PROPERTY(sator::Length(point0 - expected) <= slack);
    const float depth = probe_depth(point0);
    CHECK_PROPERTY(depth >= radius - slack && depth <= radius + slack);
  }

  const Shape& a_;
  const Pose& pa_;
  const Shape& b_;
  const Pose& pb_;
  float scale_;
  float world_;
  Pose a0_;
  V relative_b_;
};

template <int D>
void FuzzPair(ByteReader& in) {
  using G = Geometry<D>;
  // S = 10^k for k in [-3, 5].
  const float scale = std::pow(10.0f, static_cast<float>(in.U8() % 9) - 3.0f);
  constexpr std::array<float, 4> kBases = {0.0f, 1e2f, 1e4f, 1e5f};
  const float base_length = kBases[in.U8() % kBases.size()];
  sator::Vec<D> base{};
  for (int axis = 0; axis < D; ++axis) base[axis] = base_length;

  const auto a = G::ReadShape(in, scale);
  if (!a || !G::Valid(*a)) return;
  const auto b = G::ReadShape(in, scale);
  if (!b || !G::Valid(*b)) return;
  const auto pa = G::ReadPose(in, base, scale);
  const auto pb = G::ReadPose(in, base, scale);
  const auto da = ReadVec<D>(in, 4.0f * scale);
  const auto db = ReadVec<D>(in, 4.0f * scale);
  // The largest world coordinate anything reaches.
  const float world =
      std::sqrt(static_cast<float>(D)) * base_length + 40.0f * scale;
  g_scenario = absl::StrCat("  A: ", Str(*a), "\n  pose A: ", Str(pa),
                            "\n  B: ", Str(*b), "\n  pose B: ", Str(pb),
                            "\n  displacement A: ", Str(da),
                            "\n  displacement B: ", Str(db), "\n");
  PairChecker<D>(*a, pa, *b, pb, scale, world).Run(da, db, in);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  if (size < 1) return 0;
  ByteReader in(data + 1, size - 1);
  if (data[0] % 2 == 0) {
    FuzzPair<2>(in);
  } else {
    FuzzPair<3>(in);
  }
  return 0;
}
