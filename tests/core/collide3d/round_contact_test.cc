// The MTV of a long capsule against sphere, capsule, box and triangle in
// ill-conditioned configurations (nearly parallel to the other core, nearly
// touching it), on seeded random families, against a double-precision
// reference written here from the definitions:
//  - the distance between the cores: the least over the capsule's segment
//    of the distance from a point to the other core, which is convex along
//    the segment, by golden-section search;
//  - the overlap along a direction, from the shapes' support functions.
// The depth must equal r_a + r_b minus that distance, and moving B by the
// depth along the normal must separate the shapes (the overlap along the
// normal is the depth), each within 4 FLT_EPSILON of the coordinates'
// magnitude M (docs/core/collide3d.md, "Round shapes"); Overlap must agree
// with the reference's sign beyond that tolerance.
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <variant>
#include <vector>

#include "core/collide3d/double_reference3d.h"
#include "core/collide3d/seeded_family3d.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/shape3d.h"

namespace sator {
namespace {

using test3d::CrossD;
using test3d::DistanceToSegment;
using test3d::DistanceToTriangle;
using test3d::DotD;
using test3d::Dv;
using test3d::Family;
using test3d::LenD;
using test3d::ToDv;

// An axis-aligned box (identity rotation): clamp to it.
double DistanceToBox(Dv p, Dv centre, Dv half) {
  const Dv d = p - centre;
  const auto out = [](double x, double h) {
    return std::max(0.0, std::fabs(x) - h);
  };
  return LenD({out(d.x, half.x), out(d.y, half.y), out(d.z, half.z)});
}

// The shape B of a pair, in the world frame (B's pose is the identity or,
// for boxes, a translation), with its core's distance function and its
// support function.
struct RefB {
  ConvexShape3 shape;
  Pose3 pose;
  double DistanceToCore(Dv p) const {
    const Dv c = ToDv(pose.position);
    if (std::holds_alternative<Sphere>(shape)) return LenD(p - c);
    if (const auto* k = std::get_if<Capsule3>(&shape)) {
      return DistanceToSegment(p, c + ToDv(k->a), c + ToDv(k->b));
    }
    if (const auto* b = std::get_if<Box3>(&shape)) {
      return DistanceToBox(p, c, ToDv(b->half_extents));
    }
    if (const auto* t = std::get_if<Triangle3>(&shape)) {
      return DistanceToTriangle(p, c + ToDv(t->a), c + ToDv(t->b),
                                c + ToDv(t->c));
    }
    // A hull (at the identity pose), from outside: the distance to its
    // boundary, the least over its faces' fan triangles.
    const ConvexHull& h = *std::get<std::shared_ptr<const ConvexHull>>(shape);
    double d = 3e38;
    for (const ConvexHull::Face& face : h.faces) {
      const auto at = [&](int k) {
        return ToDv(h.vertices[h.face_vertex_indices[face.first_index + k]]);
      };
      for (int k = 1; k + 1 < face.vertex_count; ++k) {
        d = std::min(d, DistanceToTriangle(p, at(0), at(k), at(k + 1)));
      }
    }
    return d;
  }
  double Radius() const {
    if (const auto* s = std::get_if<Sphere>(&shape)) return s->radius;
    if (const auto* k = std::get_if<Capsule3>(&shape)) return k->radius;
    return 0.0;
  }
  // max over B of n.x.
  double Support(Dv n) const {
    const Dv c = ToDv(pose.position);
    if (const auto* s = std::get_if<Sphere>(&shape)) {
      return DotD(c, n) + s->radius;
    }
    if (const auto* k = std::get_if<Capsule3>(&shape)) {
      return DotD(c, n) + k->radius +
             std::max(DotD(ToDv(k->a), n), DotD(ToDv(k->b), n));
    }
    if (const auto* b = std::get_if<Box3>(&shape)) {
      const Vec3 h = b->half_extents;
      return DotD(c, n) + h.x * std::fabs(n.x) + h.y * std::fabs(n.y) +
             h.z * std::fabs(n.z);
    }
    if (const auto* t = std::get_if<Triangle3>(&shape)) {
      return DotD(c, n) + std::max({DotD(ToDv(t->a), n), DotD(ToDv(t->b), n),
                                    DotD(ToDv(t->c), n)});
    }
    double m = -3e38;
    for (const Vec3 v :
         std::get<std::shared_ptr<const ConvexHull>>(shape)->vertices) {
      m = std::max(m, DotD(ToDv(v), n));
    }
    return DotD(c, n) + m;
  }
  // The largest coordinate magnitude of B's defining points and radius.
  double Magnitude() const {
    double m = Radius();
    const auto grow = [&m](Dv p) {
      m = std::max({m, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
    };
    const Dv c = ToDv(pose.position);
    grow(c);
    if (const auto* k = std::get_if<Capsule3>(&shape)) {
      grow(c + ToDv(k->a));
      grow(c + ToDv(k->b));
    } else if (const auto* b = std::get_if<Box3>(&shape)) {
      const Dv h = ToDv(b->half_extents);
      grow(c + h);
      grow(c - h);
    } else if (const auto* t = std::get_if<Triangle3>(&shape)) {
      grow(c + ToDv(t->a));
      grow(c + ToDv(t->b));
      grow(c + ToDv(t->c));
    } else if (const auto* h =
                   std::get_if<std::shared_ptr<const ConvexHull>>(&shape)) {
      for (const Vec3 v : (*h)->vertices) grow(c + ToDv(v));
    }
    return m;
  }
};

// The distance from A's segment [p, q] to B's core: f(s), the distance from
// p + s (q - p) to a convex set, is convex in s, so golden-section search
// finds its least value (the ends are checked too).
double ReferenceCoreDistance(Dv p, Dv q, const RefB& b) {
  const auto f = [&](double s) { return b.DistanceToCore(p + s * (q - p)); };
  const double g = (std::sqrt(5.0) - 1.0) / 2.0;
  double lo = 0.0;
  double hi = 1.0;
  double x1 = hi - g * (hi - lo);
  double x2 = lo + g * (hi - lo);
  double f1 = f(x1);
  double f2 = f(x2);
  for (int i = 0; i < 120; ++i) {
    if (f1 < f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = f(x2);
    }
  }
  return std::min({f1, f2, f(0.0), f(1.0)});
}

struct Tally {
  int cases = 0;
  int overlapping = 0;
  int failures = 0;
  double worst = 0.0;  // In FLT_EPSILON x M.
};

// Capsule A (identity pose) against B: the depth against the reference and
// the overlap along the normal against the depth.
void Check(const Capsule3& a, const RefB& b, Tally* tally, int i) {
  const ContactResult<3> c = Contact(a, Pose3{}, b.shape, b.pose);
  const Dv pa = ToDv(a.a);
  const Dv qa = ToDv(a.b);
  const double distance = ReferenceCoreDistance(pa, qa, b);
  const double ref_depth = a.radius + b.Radius() - distance;
  double m = std::max(b.Magnitude(), static_cast<double>(a.radius));
  for (const Dv p : {pa, qa}) {
    m = std::max({m, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
  }
  const double unit = FLT_EPSILON * m;
  const double tol = 4.0 * unit;
  ++tally->cases;
  tally->overlapping += ref_depth > 0.0;
  ASSERT_NEAR(Length(c.normal), 1.0f, 1e-5f) << "case " << i;
  const Dv n = (1.0 / LenD(ToDv(c.normal))) * ToDv(c.normal);
  // A's extent along n minus B's extent along n: the overlap along n.
  const double a_hi = std::max(DotD(pa, n), DotD(qa, n)) + a.radius;
  const double along = a_hi + b.Support((-1.0) * n);
  const double depth_error = std::fabs(c.depth - ref_depth);
  const double along_error = along - c.depth;
  tally->worst = std::max(
      {tally->worst, depth_error / unit, std::fabs(along_error) / unit});
  // Overlap agrees with the reference away from touching.
  const bool overlap_error =
      std::fabs(ref_depth) > tol &&
      Overlap(a, Pose3{}, b.shape, b.pose) != (ref_depth > 0.0);
  if (depth_error > tol || along_error > tol || overlap_error) {
    if (++tally->failures <= 5) {
      ADD_FAILURE() << "case " << i << ": depth " << c.depth << ", reference "
                    << ref_depth << ", overlap along the "
                    << "normal " << along << ", tolerance " << tol
                    << (overlap_error ? ", Overlap disagrees" : "");
    }
  }
}

void Report(const char* name, const Tally& t) {
  std::printf("%s: %d cases, %d overlapping, %d failures, worst %.2f\n", name,
              t.cases, t.overlapping, t.failures, t.worst);
}

// Capsules of length about 627, radius 0.17, nearly parallel, true depth
// about 1e-6. Rounding the closest points to float before their difference
// is taken (an ulp of the coordinates, 3e-5 at 300, along the segments)
// would tilt the normal by about ulp / distance, and the overlap measured
// along the tilted normal would grow by the segments' length times that (a
// depth of 0.0085). Here:
// lengths 10 to 1000 and centres up to 1000 from the origin, tilts of 1e-7
// to 1e-2 radians (B turned towards A or sideways), depths of 1e-7 to 1e-3
// (some of which round to a gap). Where B's segment crosses A's the cores'
// penetration is 0 (segments have no volume), so r_a + r_b minus the
// distance is still the depth.
TEST(RoundContactTest, LongNearlyParallelCapsules) {
  Family f(4242);
  Tally tally;
  for (int i = 0; i < 20000; ++i) {
    Vec3 u, v, w;
    f.Frame(&u, &v, &w);
    const float len = f.LogU(1.0f, 3.0f);
    const float centre_distance = i % 2 == 0 ? 0.0f : f.LogU(0.0f, 3.0f);
    const Vec3 centre = centre_distance * f.Unit();
    const float ra = f.LogU(-2.0f, -0.3f);
    const float rb = f.LogU(-2.0f, -0.3f);
    const float theta = f.LogU(-7.0f, -2.0f);
    // Half the pairs tilt sideways (skew lines, the closest points inside
    // both segments), half in a random plane.
    const float phi = i % 4 < 2 ? 1.5707964f : f.U(0.0f, 6.2831855f);
    const Vec3 dir_b =
        std::cos(theta) * u +
        std::sin(theta) * (std::cos(phi) * v + std::sin(phi) * w);
    const float depth = f.LogU(-7.0f, -3.0f);
    const float len_b = len * f.U(0.5f, 1.5f);
    const Vec3 centre_b =
        centre + f.U(-0.4f, 0.4f) * len * u + (ra + rb - depth) * v;
    const Capsule3 a{centre - 0.5f * len * u, centre + 0.5f * len * u, ra};
    const Capsule3 b{centre_b - 0.5f * len_b * dir_b,
                     centre_b + 0.5f * len_b * dir_b, rb};
    Check(a, RefB{b, Pose3{}}, &tally, i);
  }
  Report("long nearly parallel capsules", tally);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_GT(tally.overlapping, 5000);
}

// One such pair by its numbers: capsules of length 627 and radius 0.17
// tilted by 2e-6 radians sideways, 1e-6 deep (reference depth 8.5e-7; the
// closest points rounded to float first would give 0.0171).
TEST(RoundContactTest, ReportedCapsulePair) {
  const Vec3 u = NormalizeOrZero(Vec3{0.6f, -0.48f, 0.64f});
  const Vec3 v = NormalizeOrZero(Cross(u, Vec3{0.0f, 0.0f, 1.0f}));
  const Vec3 w = Cross(u, v);
  const Vec3 centre{120.0f, -75.0f, 40.0f};
  const float theta = 2e-6f;
  const Vec3 dir_b = std::cos(theta) * u + std::sin(theta) * w;
  const Capsule3 a{centre - 313.5f * u, centre + 313.5f * u, 0.17f};
  const Vec3 centre_b = centre + 30.0f * u + (0.34f - 1e-6f) * v;
  const Capsule3 b{centre_b - 313.5f * dir_b, centre_b + 313.5f * dir_b, 0.17f};
  Tally tally;
  Check(a, RefB{b, Pose3{}}, &tally, 0);
  Report("reported pair", tally);
  EXPECT_EQ(tally.failures, 0);
}

// Long nearly parallel capsules lying one on the other: their segments
// 1e-9 to 1e-4 of r_a + r_b apart, or crossing. Cores that close went
// through the cores' SAT, whose axis for two segments is the float cross
// product of their directions, off by about 1e-7 / sin(angle): the overlap
// measured along it gained the segments' length times that (on the code
// before these fixes 12,861 failures, the worst by 2,106 FLT_EPSILON x M;
// with the closest points in double but the SAT still used, 8,170 and
// 1,745). Two segments' Minkowski difference has no interior, so the depth
// is r_a + r_b - d here too.
TEST(RoundContactTest, LongNearlyParallelCapsulesCoresNearlyTouching) {
  Family f(4646);
  Tally tally;
  for (int i = 0; i < 20000; ++i) {
    Vec3 u, v, w;
    f.Frame(&u, &v, &w);
    const float len = f.LogU(1.0f, 3.0f);
    const float centre_distance = i % 2 == 0 ? 0.0f : f.LogU(0.0f, 3.0f);
    const Vec3 centre = centre_distance * f.Unit();
    const float ra = f.LogU(-2.0f, -0.3f);
    const float rb = f.LogU(-2.0f, -0.3f);
    const float theta = f.LogU(-7.0f, -2.0f);
    const float phi = i % 4 < 2 ? 1.5707964f : f.U(0.0f, 6.2831855f);
    const Vec3 dir_b =
        std::cos(theta) * u +
        std::sin(theta) * (std::cos(phi) * v + std::sin(phi) * w);
    const float offset = i % 8 == 0 ? 0.0f : (ra + rb) * f.LogU(-9.0f, -4.0f);
    const float len_b = len * f.U(0.5f, 1.5f);
    const Vec3 centre_b = centre + f.U(-0.4f, 0.4f) * len * u + offset * v;
    const Capsule3 a{centre - 0.5f * len * u, centre + 0.5f * len * u, ra};
    const Capsule3 b{centre_b - 0.5f * len_b * dir_b,
                     centre_b + 0.5f * len_b * dir_b, rb};
    Check(a, RefB{b, Pose3{}}, &tally, i);
  }
  Report("long capsules, cores nearly touching", tally);
  EXPECT_EQ(tally.failures, 0);
}

// A sphere against the side of a long capsule, nearly touching: the closest
// point on the segment, rounded to float, would tilt the normal the same
// way (for pairs apart too: the gap along a tilted normal is not the
// distance).
TEST(RoundContactTest, SphereBesideLongCapsule) {
  Family f(4343);
  Tally tally;
  for (int i = 0; i < 20000; ++i) {
    Vec3 u, v, w;
    f.Frame(&u, &v, &w);
    const float len = f.LogU(1.0f, 3.0f);
    const float centre_distance = i % 2 == 0 ? 0.0f : f.LogU(0.0f, 3.0f);
    const Vec3 centre = centre_distance * f.Unit();
    const float ra = f.LogU(-2.0f, -0.3f);
    const float rb = f.LogU(-2.0f, -0.3f);
    const float depth = f.LogU(-7.0f, -3.0f);
    const Capsule3 a{centre - 0.5f * len * u, centre + 0.5f * len * u, ra};
    const float along = f.U(-0.45f, 0.45f);
    const float cos_angle = std::cos(f.U(0.0f, 6.3f));
    const float sin_angle = std::sin(f.U(0.0f, 6.3f));
    const Vec3 c = centre + along * len * u +
                   (ra + rb - depth) * (cos_angle * v + sin_angle * w);
    Check(a, RefB{Sphere{rb}, Pose3{c, {}}}, &tally, i);
  }
  Report("sphere beside a long capsule", tally);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_GT(tally.overlapping, 5000);
}

// A tilt of a segment along `axis` that keeps it out of the other core:
// within the plane of `axis` and `side` (side perpendicular to the offset
// from the other core's feature, so the segment keeps its distance from that
// feature), or, for every other case, in a random plane but by at most a
// quarter of `room` over the half length.
Vec3 TiltedAxis(Family& f, int i, Vec3 axis, Vec3 side, Vec3 other,
                float half_length, float room) {
  if (i % 2 == 0) {
    const float theta = f.LogU(-7.0f, -2.0f);
    return std::cos(theta) * axis + std::sin(theta) * side;
  }
  const float limit = std::min(1e-2f, 0.25f * room / half_length);
  const float theta = limit * f.LogU(-5.0f, 0.0f);
  const float phi = f.U(0.0f, 6.2831855f);
  return std::cos(theta) * axis +
         std::sin(theta) * (std::cos(phi) * side + std::sin(phi) * other);
}

// A sphere whose centre is 1e-9 to 1e-4 of r_a + r_b from a long capsule's
// segment, or on it (on the code before these fixes 222 failures, the worst
// by 57 FLT_EPSILON x M; with the closest points in double but the SAT still
// used, 9 and 6.6).
TEST(RoundContactTest, SphereCentreNearLongCapsuleAxis) {
  Family f(4747);
  Tally tally;
  for (int i = 0; i < 20000; ++i) {
    Vec3 u, v, w;
    f.Frame(&u, &v, &w);
    const float len = f.LogU(1.0f, 3.0f);
    const float centre_distance = i % 2 == 0 ? 0.0f : f.LogU(0.0f, 3.0f);
    const Vec3 centre = centre_distance * f.Unit();
    const float ra = f.LogU(-2.0f, -0.3f);
    const float rb = f.LogU(-2.0f, -0.3f);
    const float offset = i % 8 == 0 ? 0.0f : (ra + rb) * f.LogU(-9.0f, -4.0f);
    const float angle = f.U(0.0f, 6.2831855f);
    const Capsule3 a{centre - 0.5f * len * u, centre + 0.5f * len * u, ra};
    const float along = f.U(-0.45f, 0.45f);
    const Vec3 c = centre + along * len * u +
                   offset * (std::cos(angle) * v + std::sin(angle) * w);
    Check(a, RefB{Sphere{rb}, Pose3{c, {}}}, &tally, i);
  }
  Report("sphere centre near a long capsule's axis", tally);
  EXPECT_EQ(tally.failures, 0);
}

// A long capsule nearly parallel to a long box's x edges, over its +z face
// or beside its (+y, +z) edge and nearly touching, its segment kept out of
// the box (the reference is the distance between the cores, which is r_a +
// r_b minus the depth only while the cores are apart): the segment against
// the box's edges (Ericson 5.1.9) and its endpoints against the faces.
// The distance of a capsule's segment from the other core: r minus a depth
// of 1e-7 to 1e-3 (`depth` drawn by the caller), or with `touching` 1e-9 to
// 1e-4 of r (0 for every eighth case), below kCoreContactFraction.
float CoreOffset(Family& f, int i, float r, float depth, bool touching) {
  if (!touching) return r - depth;
  return i % 8 == 0 ? 0.0f : r * f.LogU(-9.0f, -4.0f);
}

// The capsule along the long box (see LongCapsuleAlongLongBox).
void CapsuleAlongBox(unsigned seed, bool touching, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < 20000; ++i) {
    const float len = f.LogU(1.0f, 3.0f);
    const Vec3 h{0.5f * len * f.U(0.5f, 1.5f), f.LogU(-1.0f, 0.5f),
                 f.LogU(-1.0f, 0.5f)};
    const float box_centre_distance = i % 4 < 2 ? 0.0f : f.LogU(0.0f, 3.0f);
    const Vec3 box_centre = box_centre_distance * f.Unit();
    const float r = f.LogU(-2.0f, -0.3f);
    const float depth = f.LogU(-7.0f, -3.0f);
    // The offset from the face or edge (`out`) and the in-plane direction
    // across it (`side`).
    Vec3 out{0.0f, 0.0f, 1.0f};
    Vec3 side{0.0f, 1.0f, 0.0f};
    Vec3 mid{0.0f, f.U(-0.9f, 0.9f) * h.y, h.z};
    if (i % 3 != 0) {
      const float angle = f.U(0.1f, 1.47f);
      out = {0.0f, std::cos(angle), std::sin(angle)};
      side = {0.0f, std::sin(angle), -std::cos(angle)};
      mid = {0.0f, h.y, h.z};
    }
    const float offset = CoreOffset(f, i, r, depth, touching);
    mid = mid + offset * out;
    mid.x = f.U(-0.4f, 0.4f) * h.x;
    const float half = 0.5f * len * f.U(0.5f, 1.5f);
    const Vec3 dir = TiltedAxis(f, i, Vec3{1.0f, 0.0f, 0.0f}, side, out, half,
                                touching ? offset : r);
    const Capsule3 a{box_centre + mid - half * dir,
                     box_centre + mid + half * dir, r};
    Check(a, RefB{Box3{h}, Pose3{box_centre, {}}}, tally, i);
  }
}

TEST(RoundContactTest, LongCapsuleAlongLongBox) {
  Tally tally;
  CapsuleAlongBox(4444, /*touching=*/false, &tally);
  Report("long capsule along a long box", tally);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_GT(tally.overlapping, 5000);
}

// A long capsule nearly parallel to a long triangle's edge, over its face
// near the edge or beside the edge and nearly touching, its segment kept
// out of the triangle (as for the box).
// The capsule along the long triangle (see LongCapsuleAlongLongTriangle).
void CapsuleAlongTriangle(unsigned seed, bool touching, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < 20000; ++i) {
    Vec3 u, v, w;
    f.Frame(&u, &v, &w);
    const float len = f.LogU(1.0f, 3.0f);
    const float centre_distance = i % 4 < 2 ? 0.0f : f.LogU(0.0f, 3.0f);
    const Vec3 centre = centre_distance * f.Unit();
    const float width = len * f.U(0.2f, 1.0f);
    // The edge from -len/2 u to len/2 u, the third vertex across it along v.
    const Triangle3 t{centre - 0.5f * len * u, centre + 0.5f * len * u,
                      centre + f.U(-0.5f, 0.5f) * len * u + width * v};
    const float r = f.LogU(-2.0f, -0.3f);
    const float depth = f.LogU(-7.0f, -3.0f);
    Vec3 out = w;
    Vec3 side = v;
    Vec3 mid = centre + f.U(0.01f, 0.1f) * width * v;
    if (i % 3 != 0) {
      const float angle = f.U(-1.4f, 1.4f);
      out = -std::cos(angle) * v + std::sin(angle) * w;
      side = std::sin(angle) * v + std::cos(angle) * w;
      mid = centre;
    }
    const float offset = CoreOffset(f, i, r, depth, touching);
    mid = mid + offset * out + f.U(-0.3f, 0.3f) * len * u;
    const float half = 0.5f * len * f.U(0.3f, 0.6f);
    const Vec3 dir =
        TiltedAxis(f, i, u, side, out, half, touching ? offset : r);
    const Capsule3 a{mid - half * dir, mid + half * dir, r};
    Check(a, RefB{t, Pose3{}}, tally, i);
  }
}

TEST(RoundContactTest, LongCapsuleAlongLongTriangle) {
  Tally tally;
  CapsuleAlongTriangle(4545, /*touching=*/false, &tally);
  Report("long capsule along a long triangle", tally);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_GT(tally.overlapping, 5000);
}

// A long capsule nearly parallel to a long edge of a hull (a prism along a
// random direction u over a random convex polygon of 5 to 7 vertices on an
// ellipse), beside the edge (`out` within the edge's normal cone), its
// segment kept out of the hull as for the box.
void CapsuleAlongHull(unsigned seed, bool touching, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < 10000; ++i) {
    Vec3 u, v, w;
    f.Frame(&u, &v, &w);
    const float len = f.LogU(1.0f, 3.0f);
    const float centre_distance = i % 4 < 2 ? 0.0f : f.LogU(0.0f, 3.0f);
    const Vec3 centre = centre_distance * f.Unit();
    const float ry = f.LogU(-1.0f, 0.5f);
    const float rz = f.LogU(-1.0f, 0.5f);
    const int k = 5 + i % 3;
    std::vector<float> angles;
    for (int j = 0; j < k; ++j) {
      angles.push_back(6.2831855f * (static_cast<float>(j) + f.U(0.1f, 0.9f)) /
                       static_cast<float>(k));
    }
    std::vector<Vec3> points;
    const float hx = 0.5f * len * f.U(0.5f, 1.5f);
    for (const float x : {-hx, hx}) {
      for (const float angle : angles) {
        points.push_back(centre + x * u + ry * std::cos(angle) * v +
                         rz * std::sin(angle) * w);
      }
    }
    const auto hull = MakeConvexHull(points);
    if (!hull.ok()) continue;
    // The polygon's vertex j, its outward edge normals on either side.
    const int j = i % k;
    const auto at = [&](int q) {
      const float angle = angles[(q + k) % k];
      return std::array<float, 2>{ry * std::cos(angle), rz * std::sin(angle)};
    };
    const auto edge_normal = [&](int q) {  // Of the edge q -> q + 1.
      const auto p0 = at(q);
      const auto p1 = at(q + 1);
      const float ny = p1[1] - p0[1];
      const float nz = -(p1[0] - p0[0]);
      const float l = std::sqrt(ny * ny + nz * nz);
      return std::array<float, 2>{ny / l, nz / l};
    };
    const auto n1 = edge_normal(j - 1);
    const auto n2 = edge_normal(j);
    const float mix = f.U(0.1f, 0.9f);
    const Vec3 out = NormalizeOrZero(((1.0f - mix) * n1[0] + mix * n2[0]) * v +
                                     ((1.0f - mix) * n1[1] + mix * n2[1]) * w);
    const Vec3 edge = NormalizeOrZero(points[k + j] - points[j]);
    const Vec3 side = NormalizeOrZero(Cross(edge, out));
    const float r = f.LogU(-2.0f, -0.3f);
    const float depth = f.LogU(-7.0f, -3.0f);
    const float offset = CoreOffset(f, i, r, depth, touching);
    const Vec3 mid =
        points[j] + (f.U(0.1f, 0.9f) * 2.0f * hx) * edge + offset * out;
    const float half = 0.5f * len * f.U(0.3f, 0.6f);
    const Vec3 dir =
        TiltedAxis(f, i, edge, side, out, half, touching ? offset : r);
    const Capsule3 a{mid - half * dir, mid + half * dir, r};
    Check(a, RefB{ConvexShape3{*hull}, Pose3{}}, tally, i);
  }
}

TEST(RoundContactTest, LongCapsuleAlongLongHull) {
  Tally tally;
  CapsuleAlongHull(4848, /*touching=*/false, &tally);
  Report("long capsule along a long hull", tally);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_GT(tally.overlapping, 2500);
}

// The same three families with the capsule's segment 1e-9 to 1e-4 of r from
// the other core (or touching it), below kCoreContactFraction: such pairs
// went through the cores' float SAT, whose axis for the segment and a
// nearly parallel edge is a float cross product off by about
// 1e-7 / sin(angle) (or skipped below a sine of 1e-5, leaving face axes
// along which a long segment beside an edge overlaps by far more).
TEST(RoundContactTest, LongCapsuleAlongLongBoxCoresNearlyTouching) {
  Tally tally;
  CapsuleAlongBox(4949, /*touching=*/true, &tally);
  Report("long capsule along a long box, cores nearly touching", tally);
  EXPECT_EQ(tally.failures, 0);
}

TEST(RoundContactTest, LongCapsuleAlongLongTriangleCoresNearlyTouching) {
  Tally tally;
  CapsuleAlongTriangle(5050, /*touching=*/true, &tally);
  Report("long capsule along a long triangle, cores nearly touching", tally);
  EXPECT_EQ(tally.failures, 0);
}

TEST(RoundContactTest, LongCapsuleAlongLongHullCoresNearlyTouching) {
  Tally tally;
  CapsuleAlongHull(5151, /*touching=*/true, &tally);
  Report("long capsule along a long hull, cores nearly touching", tally);
  EXPECT_EQ(tally.failures, 0);
}

// A sphere (or a capsule of zero length) whose centre lies exactly on the
// line of an axis-aligned capsule's segment, inside the segment or past an
// end (seed regression_capsule_sphere_on_segment_line). The closest points'
// difference is then round-off along the segment; an axis formed as that
// difference with its part along the segment subtracted would still point
// along the segment, and the depth measured along it would be the segment's
// length past the centre plus r_a + r_b (0.306 where the depth is 0.220 in
// the seed).
// Both orders of the pair are checked, against r_a + r_b minus the exact
// distance (0 inside the segment), within 4 FLT_EPSILON x M.
TEST(RoundContactTest, SphereCentreOnAxisAlignedCapsuleLine) {
  Family f(4949);
  int failures = 0;
  for (int i = 0; i < 6000; ++i) {
    const int k = i % 3;
    const float scale = f.LogU(-2.0f, 2.0f);
    Vec3 start{f.U(-1.0f, 1.0f), f.U(-1.0f, 1.0f), f.U(-1.0f, 1.0f)};
    start = scale * start;
    Vec3 end = start;
    const float len = scale * f.U(0.1f, 3.0f);
    end[k] += len;
    Vec3 c = start;
    // Inside the segment, or up to 5% of its length past an end.
    c[k] += f.U(-0.05f, 1.05f) * len;
    const float ra = scale * f.LogU(-2.0f, 0.0f);
    const float rb = scale * f.LogU(-2.0f, 0.0f);
    const double dist =
        std::max({0.0, static_cast<double>(start[k]) - c[k],
                  static_cast<double>(c[k]) - static_cast<double>(end[k])});
    const double expected = static_cast<double>(ra) + rb - dist;
    const Capsule3 a{start, end, ra};
    const ConvexShape3 b = i % 2 == 0 ? ConvexShape3{Sphere{rb}}
                                      : ConvexShape3{Capsule3{{}, {}, rb}};
    const Pose3 pose_b{c, {}};
    const double magnitude = std::max({static_cast<double>(Length(start)),
                                       static_cast<double>(Length(end)),
                                       static_cast<double>(ra) + rb});
    const double tol = 4.0 * FLT_EPSILON * magnitude;
    const ContactResult<3> ab = Contact(ConvexShape3{a}, Pose3{}, b, pose_b);
    const ContactResult<3> ba = Contact(b, pose_b, ConvexShape3{a}, Pose3{});
    const bool ok = std::fabs(ab.depth - expected) <= tol &&
                    std::fabs(ba.depth - expected) <= tol;
    if (!ok && ++failures <= 5) {
      ADD_FAILURE() << "case " << i << ": depths " << ab.depth << " and "
                    << ba.depth << ", expected " << expected << ", tolerance "
                    << tol;
    }
  }
  std::printf("sphere centre on an axis-aligned capsule's line: %d failures\n",
              failures);
  EXPECT_EQ(failures, 0);
}

// A sphere beside an edge or a corner of a rotated box, or just inside it
// there: the centre 1e-6 to 1e-1 of the box's size from the edge or the
// corner (outside, towards any direction of the feature's normal cone, or
// inside, where two or three faces are nearly as close), radii from 1e-3 of
// the size to the size and about the distance (touching), boxes 1e-1 to 1e2
// wide at up to 1e4 from the origin, both orders of the pair. The
// reference is the closest point of the box, in double from the float
// inputs (the rotation normalised in double): outside, the distance d and
// the direction from the centre to that point; inside, the nearest face.
// Within 4 FLT_EPSILON x M (M the largest coordinate magnitude of the
// centre, the box's corners and the radius): the depth is r - d (r plus the
// face distance inside); the overlap of the shapes along the normal is the
// depth; outside, the normal is the reference direction within 4 tolerances
// over d (where d is over 100 tolerances); the point is the centre moved
// along the normal by r minus half the depth; Overlap agrees with the
// reference's sign beyond the tolerance.
TEST(RoundContactTest, SphereNearBoxEdgeAndCorner) {
  Family f(5252);
  int cases = 0;
  int overlapping = 0;
  int failures = 0;
  double worst = 0.0;  // In FLT_EPSILON x M.
  for (int i = 0; i < 24000; ++i) {
    const bool corner = i % 2 == 1;
    const bool inside = (i / 2) % 2 == 1;
    const float size = f.LogU(-1.0f, 2.0f);
    const Vec3 h{size * f.U(0.2f, 0.5f), size * f.U(0.2f, 0.5f),
                 size * f.U(0.2f, 0.5f)};
    const float far = i % 8 < 4 ? 0.0f : f.LogU(0.0f, 4.0f);
    Vec3 axis;
    Vec3 unused;
    Vec3 unused2;
    f.Frame(&axis, &unused, &unused2);
    const Pose3 box_pose{{f.U(-far, far), f.U(-far, far), f.U(-far, far)},
                         Quat::FromAxisAngle(axis, f.U(-3.14159f, 3.14159f))};
    // The feature and its outward direction in the box's frame.
    const float s[3] = {f.U(0.0f, 1.0f) < 0.5f ? -1.0f : 1.0f,
                        f.U(0.0f, 1.0f) < 0.5f ? -1.0f : 1.0f,
                        f.U(0.0f, 1.0f) < 0.5f ? -1.0f : 1.0f};
    Vec3 feature{s[0] * h.x, s[1] * h.y, s[2] * h.z};
    Vec3 out;
    if (corner) {
      out = NormalizeOrZero(Vec3{s[0] * f.U(0.0f, 1.0f), s[1] * f.U(0.0f, 1.0f),
                                 s[2] * f.U(0.0f, 1.0f)});
    } else {
      const int k = i % 3;
      feature[k] = f.U(-0.95f, 0.95f) * h[k];
      const float phi = f.U(0.0f, 1.5707963f);
      out = Vec3{s[0], s[1], s[2]};
      out[k] = 0.0f;
      out[(k + 1) % 3] *= std::cos(phi);
      out[(k + 2) % 3] *= std::sin(phi);
    }
    if (LengthSquared(out) == 0.0f) continue;
    const float dist = size * f.LogU(-6.0f, -1.0f);
    const Vec3 local = feature + (inside ? -dist : dist) * out;
    const Vec3 centre = Transform(box_pose, local);
    const float r =
        i % 3 == 0 ? dist * f.U(0.5f, 1.5f) : size * f.LogU(-3.0f, 0.0f);
    // The reference, in the box's frame in double.
    const Quat q = box_pose.rotation;
    const double qn = std::sqrt(
        static_cast<double>(q.x) * q.x + static_cast<double>(q.y) * q.y +
        static_cast<double>(q.z) * q.z + static_cast<double>(q.w) * q.w);
    const double x = q.x / qn, y = q.y / qn, z = q.z / qn, w = q.w / qn;
    const Dv u[3] = {
        {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)},
        {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)},
        {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)}};
    const Dv c = ToDv(centre);
    const Dv rel = c - ToDv(box_pose.position);
    const double half[3] = {h.x, h.y, h.z};
    double lc[3];
    Dv closest = ToDv(box_pose.position);
    bool is_inside = true;
    int nearest_face = 0;
    double nearest_gap = 3e300;
    for (int k = 0; k < 3; ++k) {
      lc[k] = DotD(rel, u[k]);
      const double clamped = std::clamp(lc[k], -half[k], half[k]);
      if (clamped != lc[k]) is_inside = false;
      closest = closest + clamped * u[k];
      const double gap = half[k] - std::fabs(lc[k]);
      if (gap < nearest_gap) {
        nearest_gap = gap;
        nearest_face = k;
      }
    }
    double ref_depth;
    Dv ref_normal;  // From the sphere to the box.
    const double d = LenD(closest - c);
    if (!is_inside) {
      ref_depth = r - d;
      ref_normal = (1.0 / d) * (closest - c);
    } else {
      ref_depth = r + nearest_gap;
      ref_normal = (lc[nearest_face] >= 0.0 ? -1.0 : 1.0) * u[nearest_face];
    }
    double m = r;
    for (const Dv p : {c, ToDv(box_pose.position)}) {
      m = std::max({m, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
    }
    m += std::fabs(h.x) + std::fabs(h.y) + std::fabs(h.z);
    const double unit = FLT_EPSILON * m;
    const double tol = 4.0 * unit;
    const Box3 box{h};
    const Sphere sphere{r};
    const Pose3 sphere_pose{centre, {}};
    ++cases;
    overlapping += ref_depth > 0.0;
    for (int order = 0; order < 2; ++order) {
      const ContactResult<3> got =
          order == 0 ? Contact(sphere, sphere_pose, box, box_pose)
                     : Contact(box, box_pose, sphere, sphere_pose);
      const bool overlap = order == 0
                               ? Overlap(sphere, sphere_pose, box, box_pose)
                               : Overlap(box, box_pose, sphere, sphere_pose);
      // From the sphere to the box, whichever is A.
      const Dv n = (order == 0 ? 1.0 : -1.0) * ToDv(got.normal);
      const double n_len = LenD(n);
      // Overlap along n: the sphere's top minus the box's bottom.
      const double box_low = DotD(ToDv(box_pose.position), n) -
                             (half[0] * std::fabs(DotD(u[0], n)) +
                              half[1] * std::fabs(DotD(u[1], n)) +
                              half[2] * std::fabs(DotD(u[2], n)));
      const double along = DotD(c, n) + r - box_low;
      const double depth_error = std::fabs(got.depth - ref_depth);
      const double along_error = std::fabs(along - got.depth);
      double normal_error = 0.0;
      if (!is_inside && d > 100.0 * tol) {
        normal_error = LenD(n - ref_normal) * d / 4.0;
      }
      double point_error = 0.0;
      if (got.overlapping) {
        const Dv expected = c + (static_cast<double>(r) - 0.5 * ref_depth) * n;
        point_error = LenD(ToDv(got.points[0]) - expected) / 2.0;
      }
      const bool overlap_error =
          std::fabs(ref_depth) > tol && overlap != (ref_depth > 0.0);
      const bool count_error =
          got.overlapping != (got.point_count == 1) ||
          (std::fabs(ref_depth) > tol && got.overlapping != (ref_depth > 0.0));
      const double error =
          std::max({depth_error, along_error, normal_error, point_error});
      worst = std::max(worst, error / unit);
      if (error > tol || overlap_error || count_error ||
          std::fabs(n_len - 1.0) > 1e-5) {
        if (++failures <= 8) {
          ADD_FAILURE() << "case " << i << (corner ? " corner" : " edge")
                        << (inside ? " inside" : " outside") << " order "
                        << order << " size " << size << " dist " << dist
                        << " r " << r << " far " << far << ": depth "
                        << got.depth << " reference " << ref_depth << ", along "
                        << along << ", normal error " << normal_error
                        << ", point error " << point_error
                        << (overlap_error ? ", Overlap disagrees" : "")
                        << (count_error ? ", overlapping/points wrong" : "")
                        << ", tolerance " << tol;
        }
      }
    }
  }
  std::printf(
      "sphere near a box edge or corner: %d cases, %d overlapping, %d "
      "failures, worst %.2f\n",
      cases, overlapping, failures, worst);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(overlapping, 12000);
}

}  // namespace
}  // namespace sator
