// The generic round path of Contact (ContactRound: a capsule or sphere
// against a convex hull or a triangle) against an exact reference in long
// double, on seeded hard families: capsules 1e4 long against hulls and
// triangles 1e-3 across (every eighth hull a sliver, 1e-3 by up to 10),
// nearly touching (the segment r - 1e-4 .. r + 1e-4 from a vertex, an edge
// or a face, or exactly r) or slightly penetrating, the segment nearly
// parallel to a face or an edge (tilted 0 or 1e-8 to 1e-2 radians) or at
// random, one end near the polytope or both far, so that coordinates reach
// 1e4; spheres of radius 1e-4 to 1e4 against the same hulls, their centre
// r +- 1e-9 .. 1e-4 from a feature. Both orders (the round shape as A and
// as B), 50,000 seeded pairs per family. (Contact runs a sphere or capsule
// and a hull in the hull's frame, round_hull.cc: the same ContactRound with
// the hull as A; with both poses the identity, on the same floats.)
//
// The documented tolerance (docs/core/collide3d.md) is 5 FLT_EPSILON x M,
// M the largest coordinate magnitude of the shapes' defining points and
// radii in A's frame; these families are held to 4: the depth within 4
// FLT_EPSILON x M of the exact value and the overlap along the reported
// normal at most the depth plus 4 FLT_EPSILON x M.
//
// The reference (test3d::Reference, round_reference3d.h), from the floats
// the path reads in A's frame: cores crossing, r plus their penetration
// depth over a superset of the SAT axes; cores apart, r minus their
// distance (Ericson, "Real-Time Collision Detection" (2005), 5.1.5 and
// 5.1.9, in long double).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <memory>
#include <variant>
#include <vector>

#include "core/collide3d/round_reference3d.h"
#include "core/collide3d/seeded_family3d.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/shape3d.h"
#include "support/test_scale.h"

namespace sator {
namespace {

using test3d::Family;
using test3d::L3;
using test3d::Ld;
using test3d::Pair;
using test3d::Reference;
using test3d::ToL3;

struct Tally {
  int cases = 0;
  int overlapping = 0;
  int depth_breaches = 0;
  int along_breaches = 0;
  double worst_depth = 0.0;  // |depth - exact|, FLT_EPSILON x M.
  double worst_along = 0.0;  // Overlap along the normal - depth.
};

// The round shape (a capsule or sphere) and the polytope (hull or
// triangle) in both orders, every pose the identity but a sphere's.
void Check(const ConvexShape3& round, const Pose3& round_pose,
           const ConvexShape3& poly, Tally* tally, int i) {
  for (int order = 0; order < 2; ++order) {
    const bool round_a = order == 0;
    const Pose3 pa = round_a ? round_pose : Pose3{};
    const Pose3 pb = round_a ? Pose3{} : round_pose;
    const ContactResult<3> result =
        round_a ? Contact(round, pa, poly, pb) : Contact(poly, pa, round, pb);
    // The floats the path reads, in A's frame.
    const Pose3 b_in_a = MulT(pa, pb);
    const Pose3 round_in_a = round_a ? Pose3{} : b_in_a;
    const Pose3 poly_in_a = round_a ? b_in_a : Pose3{};
    Pair c;
    std::vector<Vec3> floats;
    if (const auto* cap = std::get_if<Capsule3>(&round)) {
      floats = {Transform(round_in_a, cap->a), Transform(round_in_a, cap->b)};
      c.r = cap->radius;
    } else {
      floats = {Transform(round_in_a, Vec3{}), Transform(round_in_a, Vec3{})};
      c.r = std::get<Sphere>(round).radius;
    }
    c.p = ToL3(floats[0]);
    c.q = ToL3(floats[1]);
    if (const auto* t = std::get_if<Triangle3>(&poly)) {
      c.triangle = true;
      for (const Vec3& x : {t->a, t->b, t->c}) {
        floats.push_back(Transform(poly_in_a, x));
      }
    } else {
      for (const Vec3& x :
           std::get<std::shared_ptr<const ConvexHull>>(poly)->vertices) {
        floats.push_back(Transform(poly_in_a, x));
      }
    }
    for (size_t k = 2; k < floats.size(); ++k) c.v.push_back(ToL3(floats[k]));
    auto m = static_cast<double>(c.r);
    for (const Vec3& x : floats) {
      m = std::max({m, std::fabs(static_cast<double>(x.x)),
                    std::fabs(static_cast<double>(x.y)),
                    std::fabs(static_cast<double>(x.z))});
    }
    const double unit = FLT_EPSILON * m;
    const Ld exact = Reference(c);
    // The overlap along the normal (from A to B): A's highest point minus
    // B's lowest.
    const Vec3 nf = result.normal;
    const Ld len =
        std::sqrt(static_cast<Ld>(nf.x) * nf.x + static_cast<Ld>(nf.y) * nf.y +
                  static_cast<Ld>(nf.z) * nf.z);
    const L3 u = (1.0L / len) * ToL3(nf);
    Ld poly_lo = Dot(u, c.v[0]);
    Ld poly_hi = poly_lo;
    for (const L3& x : c.v) {
      poly_lo = std::min(poly_lo, Dot(u, x));
      poly_hi = std::max(poly_hi, Dot(u, x));
    }
    const Ld round_lo = std::min(Dot(u, c.p), Dot(u, c.q)) - c.r;
    const Ld round_hi = std::max(Dot(u, c.p), Dot(u, c.q)) + c.r;
    const Ld along = round_a ? round_hi - poly_lo : poly_hi - round_lo;
    const auto depth_off =
        static_cast<double>(std::fabs(static_cast<Ld>(result.depth) - exact)) /
        unit;
    const auto along_off = static_cast<double>(along - result.depth) / unit;
    ++tally->cases;
    tally->overlapping += result.overlapping;
    tally->worst_depth = std::max(tally->worst_depth, depth_off);
    tally->worst_along = std::max(tally->worst_along, along_off);
    tally->depth_breaches += depth_off > 4.0;
    tally->along_breaches += along_off > 4.0;
    if ((depth_off > 4.0 || along_off > 4.0) &&
        tally->depth_breaches + tally->along_breaches <= 3) {
      std::printf(
          "  case %d order %d: depth %.9g exact %.9Lg along %.9Lg "
          "(%.2f, %.2f FLT_EPSILON x M) n %.9g %.9g %.9g p %.9g %.9g "
          "%.9g q %.9g %.9g %.9g r %.9g\n",
          i, order, result.depth, exact, along, depth_off, along_off, nf.x,
          nf.y, nf.z, floats[0].x, floats[0].y, floats[0].z, floats[1].x,
          floats[1].y, floats[1].z, static_cast<double>(c.r));
      for (const Vec3& x : floats) {
        std::printf("    %.9g %.9g %.9g\n", x.x, x.y, x.z);
      }
    }
  }
}

void Report(const char* name, const Tally& t) {
  std::printf(
      "%s: %d cases, %d overlapping; depth off the exact by more than 4 "
      "FLT_EPSILON x M in %d (worst %.2f), overlap along the normal above "
      "the depth by more than 4 in %d (worst %.2f)\n",
      name, t.cases, t.overlapping, t.depth_breaches, t.worst_depth,
      t.along_breaches, t.worst_along);
}

// A sliver hull: a box 1e-3 to 1e-2 across and 1 to 10 long, rotated, its
// faces long thin quads (their fan triangles slivers).
std::shared_ptr<const ConvexHull> SliverHull(Family& f) {
  const Vec3 h{f.LogU(-3.0f, -2.0f), f.LogU(-3.0f, -2.0f), f.LogU(0.0f, 1.0f)};
  const Vec3 axis = f.Unit();
  const float angle = f.U(0.0f, 6.2831855f);
  const Quat q = Quat::FromAxisAngle(axis, angle);
  std::vector<Vec3> points;
  points.reserve(8);
  for (int k = 0; k < 8; ++k) {
    points.push_back(Rotate(q, Vec3{(k & 1) ? h.x : -h.x, (k & 2) ? h.y : -h.y,
                                    (k & 4) ? h.z : -h.z}));
  }
  return *MakeConvexHull(points);
}

// A tiny convex hull (about 1e-3 across) near the origin, from 5 to 12
// random points, or a box's corners slightly perturbed; every eighth a
// sliver hull.
std::shared_ptr<const ConvexHull> TinyHull(Family& f, int i) {
  if (i % 8 == 7) return SliverHull(f);
  for (;;) {
    std::vector<Vec3> points;
    const float size = 1e-3f * f.U(0.3f, 1.0f);
    const float spread = i % 3 == 0 ? 0.0f : size * f.U(0.0f, 2.0f);
    const Vec3 centre = spread * f.Unit();
    if (i % 2 == 0) {
      const int n = 5 + static_cast<int>(f.U(0.0f, 7.99f));
      for (int k = 0; k < n; ++k) {
        const float reach = size * f.U(0.3f, 1.0f);
        points.push_back(centre + reach * f.Unit());
      }
    } else {
      const Vec3 h{size * f.U(0.3f, 1.0f), size * f.U(0.3f, 1.0f),
                   size * f.U(0.3f, 1.0f)};
      for (int k = 0; k < 8; ++k) {
        const Vec3 corner{(k & 1) ? h.x : -h.x, (k & 2) ? h.y : -h.y,
                          (k & 4) ? h.z : -h.z};
        const float jitter = 0.05f * size * f.U(0.0f, 1.0f);
        points.push_back(centre + corner + jitter * f.Unit());
      }
    }
    auto hull = MakeConvexHull(points);
    if (hull.ok()) return *hull;
  }
}

// A feature of a polytope (vertices v, centroid c): a point on it and the
// direction out of it; along: a direction in the feature (an edge's, or in
// a face's plane), or nothing for a vertex.
struct Feature {
  Vec3 on;
  Vec3 out;
  Vec3 along;
};

Feature PickFeature(Family& f, const std::vector<Vec3>& v, Vec3 centroid,
                    int i) {
  const auto n = static_cast<int>(v.size());
  const auto pick = [&f, n]() {
    return static_cast<int>(f.U(0.0f, static_cast<float>(n) - 0.001f));
  };
  const int a = pick();
  int b = pick();
  if (b == a) b = (a + 1) % n;
  int c = pick();
  while (c == a || c == b) c = (c + 1) % n;
  Feature feature;
  if (i % 3 == 0) {  // A vertex.
    feature.on = v[a];
    feature.out = NormalizeOrZero(v[a] - centroid);
    feature.along = NormalizeOrZero(Cross(feature.out, f.Unit()));
  } else if (i % 3 == 1) {  // An edge (or a chord).
    feature.on = v[a] + f.U(0.0f, 1.0f) * (v[b] - v[a]);
    feature.along = NormalizeOrZero(v[b] - v[a]);
    const Vec3 away = feature.on - centroid;
    feature.out =
        NormalizeOrZero(away - Dot(away, feature.along) * feature.along);
  } else {  // A face (or a triangle through three vertices).
    const float s = f.U(0.0f, 1.0f);
    const float t = f.U(0.0f, 1.0f - s);
    feature.on = v[a] + s * (v[b] - v[a]) + t * (v[c] - v[a]);
    Vec3 normal = NormalizeOrZero(Cross(v[b] - v[a], v[c] - v[a]));
    if (Dot(normal, feature.on - centroid) < 0.0f) normal = -1.0f * normal;
    feature.out = normal;
    feature.along = NormalizeOrZero(Cross(normal, f.Unit()));
  }
  if (feature.out == Vec3{}) feature.out = f.Unit();
  if (feature.along == Vec3{}) feature.along = f.Unit();
  return feature;
}

// A capsule 1e4 long beside the feature: its segment r - 1e-4 .. r + 1e-4
// (or exactly r, or crossing by up to 1e-4) from the point on it,
// along the feature tilted by 0 or 1e-8 to 1e-2 radians towards the
// outward direction, or at random; one end near or both far.
Capsule3 LongCapsule(Family& f, const Feature& feature, int i) {
  const float r = f.LogU(-6.0f, -1.0f);
  float offset = f.LogU(-9.0f, -4.0f);
  if (i % 7 == 0) offset = 0.0f;
  if (i % 7 < 4) offset = -offset;
  if (i % 11 == 5) offset = -r - f.LogU(-9.0f, -4.0f);  // Cores crossing.
  Vec3 dir = f.Unit();
  if (i % 5 != 4) {
    const float tilt = i % 5 == 0 ? 0.0f : f.LogU(-8.0f, -2.0f);
    dir = NormalizeOrZero(std::cos(tilt) * feature.along +
                          f.U(-1.0f, 1.0f) * std::sin(tilt) * feature.out);
  }
  const Vec3 mid = feature.on + (r + offset) * feature.out;
  const float len = 1e4f * f.U(0.5f, 1.0f);
  const float shift = (i % 4 == 0) ? 0.0f : f.U(0.05f, 0.95f);
  const Vec3 p = mid - shift * len * dir;
  return {p, p + len * dir, r};
}

Vec3 Centroid(const std::vector<Vec3>& v) {
  Vec3 c{};
  for (const Vec3& x : v) c = c + x;
  return (1.0f / static_cast<float>(v.size())) * c;
}

void CapsuleHullFamily(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const auto hull = TinyHull(f, i);
    const Feature feature =
        PickFeature(f, hull->vertices, Centroid(hull->vertices), i / 5);
    Check(ConvexShape3{LongCapsule(f, feature, i)}, Pose3{}, ConvexShape3{hull},
          tally, i);
  }
}

void CapsuleTriangleFamily(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const float size = 1e-3f * f.U(0.3f, 1.0f);
    const float spread = i % 3 == 0 ? 0.0f : size * f.U(0.0f, 2.0f);
    const Vec3 centre = spread * f.Unit();
    std::vector<Vec3> v;
    v.reserve(3);
    for (int k = 0; k < 3; ++k) v.push_back(centre + size * f.Unit());
    // The centroid a little behind the face, so that faces point out of
    // the triangle's front side (and vertices, edges outward in-plane).
    const Vec3 normal = NormalizeOrZero(Cross(v[1] - v[0], v[2] - v[0]));
    const Vec3 centroid = Centroid(v) - (i % 2 == 0 ? 0.0f : 1e-4f) * normal;
    const Feature feature = PickFeature(f, v, centroid, i / 5);
    Check(ConvexShape3{LongCapsule(f, feature, i)}, Pose3{},
          ConvexShape3{Triangle3{v[0], v[1], v[2]}}, tally, i);
  }
}

// Spheres of radius 1e-4 to 1e4 centred r +- 1e-9 .. 1e-4 from a feature
// of a tiny hull (or exactly r, or inside it).
void SphereHullFamily(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const auto hull = TinyHull(f, i);
    const Feature feature =
        PickFeature(f, hull->vertices, Centroid(hull->vertices), i / 5);
    const float r = f.LogU(-4.0f, 4.0f);
    float offset = f.LogU(-9.0f, -4.0f);
    if (i % 7 == 0) offset = 0.0f;
    if (i % 7 < 4) offset = -offset;
    if (i % 11 == 5) offset = -r - 1e-4f * f.U(0.0f, 1.0f);
    const Vec3 centre = feature.on + (r + offset) * feature.out;
    Check(ConvexShape3{Sphere{r}}, Pose3{centre, Quat{}}, ConvexShape3{hull},
          tally, i);
  }
}

constexpr int kCount = sator::testing::ScaledCount(50000);

// Runs one family in both orders and expects every check within the
// documented tolerance.
void ExpectFamilyWithinTolerance(const char* name,
                                 void (*family)(unsigned, int, Tally*),
                                 unsigned seed) {
  Tally tally;
  family(seed, kCount, &tally);
  Report(name, tally);
  EXPECT_EQ(tally.cases, 2 * kCount) << name;
  EXPECT_EQ(tally.depth_breaches, 0) << name;
  EXPECT_EQ(tally.along_breaches, 0) << name;
}

TEST(RoundGenericReferenceTest, CapsuleHull) {
  ExpectFamilyWithinTolerance("capsule-hull", &CapsuleHullFamily, 6301);
}

TEST(RoundGenericReferenceTest, CapsuleTriangle) {
  ExpectFamilyWithinTolerance("capsule-triangle", &CapsuleTriangleFamily, 6302);
}

TEST(RoundGenericReferenceTest, SphereHull) {
  ExpectFamilyWithinTolerance("sphere-hull", &SphereHullFamily, 6303);
}

}  // namespace
}  // namespace sator
