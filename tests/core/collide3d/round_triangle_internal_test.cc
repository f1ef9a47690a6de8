// White box: the typed Contact and Overlap paths of a sphere or capsule
// against a triangle (round_triangle.cc: the round core and the triangle
// viewed in place, placed with MakePolyData's floats, and the generic
// ContactRound / OverlapRound on them) against the generic path they
// replace (internal::ContactGeneric / OverlapGeneric, PolyData), in both
// orders: every field of the contact equal bit for bit, and Overlap's
// verdict. Each pair is also checked against the exact long double
// reference (round_reference3d.h) from the floats the path reads in A's
// frame: the depth within 4 FLT_EPSILON x M of it and the overlap along
// the reported normal at most the depth plus 4 FLT_EPSILON x M (M the
// largest coordinate magnitude of the cores and the radius in A's frame;
// docs/core/collide3d.md).
//
// Seeded families, at least 200,000 pairs per kind (sphere-triangle,
// capsule-triangle), each in both orders: random shapes and poses (every
// third near 1e4, every tenth capsule of zero length); a segment piercing
// the triangle (one end on its plane every fourth); a segment parallel to
// the triangle's plane, in it or 1e-9 to 1e-3 off it or about r off it;
// a point core (a sphere or a zero-length capsule) exactly on a vertex, on
// an edge, inside the face, or r +- 1e-9 .. 1e-4 off them; triangles 1e-3
// across or slivers (1 to 10 long, 1e-5 to 1e-3 wide) against capsules up
// to 1e4 long r +- 1e-9 .. 1e-4 from a feature; triangles whose vertices
// are near 1e4 in the world (a mesh's, with the identity pose).
//
// And the mesh: Contact(shape, mesh), which keeps the deepest triangle in
// the frame it meets the triangles in and maps it to the world once, equal
// bit for bit to the deepest of ContactAll (the least id of equal depths)
// and to the deepest of the pair Contact over every triangle.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <variant>
#include <vector>

#include "collide3d/round_typed.h"
#include "core/collide3d/round_reference3d.h"
#include "core/collide3d/same_bits3d.h"
#include "core/collide3d/seeded_family3d.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/aabb3d.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/mesh_queries.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/shape3d.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "support/test_scale.h"

namespace sator {
namespace {

using testing::SameBits;

using test3d::Family;
using test3d::L3;
using test3d::Ld;
using test3d::ToL3;

struct Tally {
  int cases = 0;
  int overlapping = 0;
  int failures = 0;  // Not the generic answer bit for bit.
  int skipped = 0;   // Certainly apart (ContactFlatTriangleIfNear).
  int depth_breaches = 0;
  int along_breaches = 0;
  double worst_depth = 0.0;  // |depth - exact|, FLT_EPSILON x M.
  double worst_along = 0.0;  // Overlap along the normal - depth.
  // The larger of the two with M_world, which also takes the shapes'
  // defining points in the world (WorldMagnitude).
  int world_breaches = 0;
  double worst_world = 0.0;
  int reported = 0;
};

// The typed answer in A's frame, from the internal entry points.
ContactResult<3> TypedLocal(const ConvexShape3& x, const ConvexShape3& y,
                            const Pose3& y_in_x) {
  internal::FlatCore core;
  const bool round_a = !std::holds_alternative<Triangle3>(x);
  const ConvexShape3& round = round_a ? x : y;
  const Pose3 round_pose = round_a ? Pose3{} : y_in_x;
  if (const auto* s = std::get_if<Sphere>(&round)) {
    internal::MakeFlatCore(*s, round_pose, &core);
  } else {
    internal::MakeFlatCore(std::get<Capsule3>(round), round_pose, &core);
  }
  if (round_a) {
    return internal::ContactFlatTriangle(core.ref, std::get<Triangle3>(y),
                                         y_in_x);
  }
  return internal::ContactTriangleFlat(std::get<Triangle3>(x), core.ref);
}

// The local answer against the long double reference, from the floats the
// path reads in A's frame.
void CheckReference(const ContactResult<3>& result, const ConvexShape3& round,
                    const Pose3& round_in_a, const Triangle3& t,
                    const Pose3& t_in_a, bool round_a, double m_world,
                    Tally* tally, int i, int order) {
  test3d::Pair c;
  c.triangle = true;
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
  for (const Vec3& x : {t.a, t.b, t.c}) floats.push_back(Transform(t_in_a, x));
  for (size_t k = 2; k < floats.size(); ++k) c.v.push_back(ToL3(floats[k]));
  auto m = static_cast<double>(c.r);
  for (const Vec3& x : floats) {
    m = std::max({m, std::fabs(static_cast<double>(x.x)),
                  std::fabs(static_cast<double>(x.y)),
                  std::fabs(static_cast<double>(x.z))});
  }
  const double unit = FLT_EPSILON * m;
  const Ld exact = test3d::Reference(c);
  const Vec3 nf = result.normal;
  const Ld len =
      std::sqrt(static_cast<Ld>(nf.x) * nf.x + static_cast<Ld>(nf.y) * nf.y +
                static_cast<Ld>(nf.z) * nf.z);
  const L3 u = (1.0L / len) * ToL3(nf);
  Ld tri_lo = Dot(u, c.v[0]);
  Ld tri_hi = tri_lo;
  for (const L3& x : c.v) {
    tri_lo = std::min(tri_lo, Dot(u, x));
    tri_hi = std::max(tri_hi, Dot(u, x));
  }
  const Ld round_lo = std::min(Dot(u, c.p), Dot(u, c.q)) - c.r;
  const Ld round_hi = std::max(Dot(u, c.p), Dot(u, c.q)) + c.r;
  // The overlap along the normal (from A to B).
  const Ld along = round_a ? round_hi - tri_lo : tri_hi - round_lo;
  const auto depth_off =
      static_cast<double>(std::fabs(static_cast<Ld>(result.depth) - exact)) /
      unit;
  const auto along_off = static_cast<double>(along - result.depth) / unit;
  tally->worst_depth = std::max(tally->worst_depth, depth_off);
  tally->worst_along = std::max(tally->worst_along, along_off);
  tally->depth_breaches += depth_off > 4.0;
  tally->along_breaches += along_off > 4.0;
  const double scale = m / std::max(m, m_world);
  const double world_off = std::max(depth_off, along_off) * scale;
  tally->worst_world = std::max(tally->worst_world, world_off);
  tally->world_breaches += world_off > 4.0;
  if ((depth_off > 4.0 || along_off > 4.0) && ++tally->reported <= 3) {
    std::printf(
        "    case %d order %d: depth %.9g exact %.9Lg (%.2f FLT_EPSILON x M), "
        "overlap along the normal %.2f above it, %.2f FLT_EPSILON x M_world\n",
        i, order, result.depth, exact, depth_off, along_off, world_off);
  }
}

// M_world: the largest coordinate magnitude of the shapes' defining points
// placed in the world by their poses, and the radius.
double WorldMagnitude(const ConvexShape3& round, const Pose3& round_pose,
                      const Triangle3& t, const Pose3& t_pose) {
  std::vector<Vec3> points = {Transform(t_pose, t.a), Transform(t_pose, t.b),
                              Transform(t_pose, t.c)};
  double m = 0.0;
  if (const auto* cap = std::get_if<Capsule3>(&round)) {
    points.push_back(Transform(round_pose, cap->a));
    points.push_back(Transform(round_pose, cap->b));
    m = cap->radius;
  } else {
    points.push_back(round_pose.position);
    m = std::get<Sphere>(round).radius;
  }
  for (const Vec3& x : points) {
    m = std::max({m, std::fabs(static_cast<double>(x.x)),
                  std::fabs(static_cast<double>(x.y)),
                  std::fabs(static_cast<double>(x.z))});
  }
  return m;
}

// The pair (round, triangle) and (triangle, round) through Contact and
// Overlap against the generic path, and against the reference.
void Check(const ConvexShape3& round, const Pose3& round_pose,
           const Triangle3& t, const Pose3& t_pose, Tally* tally, int i) {
  const ConvexShape3 tri{t};
  const double m_world = WorldMagnitude(round, round_pose, t, t_pose);
  for (int order = 0; order < 2; ++order) {
    const bool round_a = order == 0;
    const ConvexShape3& x = round_a ? round : tri;
    const ConvexShape3& y = round_a ? tri : round;
    const Pose3& px = round_a ? round_pose : t_pose;
    const Pose3& py = round_a ? t_pose : round_pose;
    const Pose3 y_in_x = MulT(px, py);
    const ContactResult<3> typed = Contact(x, px, y, py);
    const ContactResult<3> generic =
        ToWorld(internal::ContactGeneric(x, y, y_in_x), px);
    const ContactResult<3> local = TypedLocal(x, y, y_in_x);
    const bool overlap_typed = Overlap(x, px, y, py);
    const bool overlap_generic = internal::OverlapGeneric(x, y, y_in_x);
    ++tally->cases;
    tally->overlapping += generic.overlapping;
    if (!SameBits(typed, generic) || !SameBits(ToWorld(local, px), typed) ||
        overlap_typed != overlap_generic) {
      if (++tally->failures <= 5) {
        ADD_FAILURE() << "case " << i << " order " << order
                      << ": not the generic answer: depth " << typed.depth
                      << " against " << generic.depth << ", overlap "
                      << overlap_typed << " against " << overlap_generic;
      }
    }
    if (round_a) {
      // The mesh queries' entry points, which skip triangles certainly
      // apart: skipped only where the generic answer is not overlapping
      // (and Overlap false), the same answer otherwise.
      internal::FlatCore core;
      if (const auto* sphere = std::get_if<Sphere>(&round)) {
        internal::MakeFlatCore(*sphere, Pose3{}, &core);
      } else {
        internal::MakeFlatCore(std::get<Capsule3>(round), Pose3{}, &core);
      }
      ContactResult<3> near;
      bool overlap_near = false;
      const bool contact_kept =
          internal::ContactFlatTriangleIfNear(core.ref, t, y_in_x, &near);
      const bool overlap_kept = internal::OverlapFlatTriangleIfNear(
          core.ref, t, y_in_x, &overlap_near);
      tally->skipped += !contact_kept;
      const bool contact_ok = contact_kept
                                  ? SameBits(ToWorld(near, px), generic)
                                  : !generic.overlapping;
      const bool overlap_ok =
          overlap_kept ? overlap_near == overlap_generic : !overlap_generic;
      if (contact_kept != overlap_kept || !contact_ok || !overlap_ok) {
        if (++tally->failures <= 5) {
          ADD_FAILURE() << "case " << i << ": skipped " << !contact_kept << "/"
                        << !overlap_kept
                        << " against the generic answer, overlapping "
                        << generic.overlapping << "/" << overlap_generic;
        }
      }
    }
    const Pose3 round_in_a = round_a ? Pose3{} : y_in_x;
    const Pose3 t_in_a = round_a ? y_in_x : Pose3{};
    CheckReference(local, round, round_in_a, t, t_in_a, round_a, m_world, tally,
                   i, order);
  }
}

void Report(const char* name, const Tally& t) {
  std::printf(
      "%s: %d cases, %d overlapping, %d skipped as apart, %d not the generic "
      "answer; depth off "
      "the exact by more than 4 FLT_EPSILON x M in %d (worst %.2f), overlap "
      "along the normal above the depth by more than 4 in %d (worst %.2f); "
      "either above 4 FLT_EPSILON x M_world in %d (worst %.2f)\n",
      name, t.cases, t.overlapping, t.skipped, t.failures, t.depth_breaches,
      t.worst_depth, t.along_breaches, t.worst_along, t.world_breaches,
      t.worst_world);
}

// Expects no failure, at least `min_pairs` pairs (each in both orders) and
// a fair share of them overlapping.
void ExpectClean(const char* name, const Tally& tally, int min_pairs) {
  Report(name, tally);
  EXPECT_EQ(tally.failures, 0) << name;
  EXPECT_GE(tally.cases, 2 * min_pairs) << name;
  EXPECT_GT(tally.overlapping, tally.cases / 5) << name;
}

// Random draws, one a statement (the order of a call's arguments is
// unspecified, and GCC and Clang differ).
Quat RandomRotation(Family& f) {
  const Vec3 axis = f.Unit();
  const float angle = f.U(0.0f, 6.2831855f);
  return Quat::FromAxisAngle(axis, angle);
}

Vec3 Scaled(Family& f, float s) {
  const Vec3 u = f.Unit();
  return s * u;
}

// A triangle of about `size` around c, not degenerate.
Triangle3 RandomTriangle(Family& f, Vec3 c, float size) {
  for (;;) {
    const Vec3 a = c + Scaled(f, size);
    const Vec3 b = c + Scaled(f, size);
    const Vec3 d = c + Scaled(f, size);
    if (Length(Cross(b - a, d - a)) > 0.05f * size * size) return {a, b, d};
  }
}

// A triangle in the plane z = 0 of about `size` around the origin.
Triangle3 FlatTriangle(Family& f, float size) {
  for (;;) {
    Vec3 v[3];
    for (Vec3& x : v) {
      const float px = f.U(-size, size);
      const float py = f.U(-size, size);
      x = {px, py, 0.0f};
    }
    if (Length(Cross(v[1] - v[0], v[2] - v[0])) > 0.05f * size * size) {
      return {v[0], v[1], v[2]};
    }
  }
}

// A point of the triangle: a vertex (kind 0), a point on an edge (1), or
// inside the face (2), in float.
Vec3 OnTriangle(Family& f, const Triangle3& t, int kind) {
  const Vec3 v[3] = {t.a, t.b, t.c};
  const int k = static_cast<int>(f.U(0.0f, 2.999f));
  if (kind == 0) return v[k];
  if (kind == 1) {
    const float s = f.U(0.0f, 1.0f);
    return v[k] + s * (v[(k + 1) % 3] - v[k]);
  }
  float u = f.U(0.0f, 1.0f);
  float w = f.U(0.0f, 1.0f);
  if (u + w > 1.0f) {
    u = 1.0f - u;
    w = 1.0f - w;
  }
  return t.a + u * (t.b - t.a) + w * (t.c - t.a);
}

// The unit normal of the triangle (float).
Vec3 NormalOf(const Triangle3& t) {
  return NormalizeOrZero(Cross(t.b - t.a, t.c - t.a));
}

// Random shapes and poses: the round shape within 2.5 of the triangle,
// poses near the origin or (every third) near 1e4; every tenth capsule of
// zero length.
void RandomFamily(unsigned seed, int count, bool capsule, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const float size = f.U(0.1f, 2.0f);
    const Triangle3 t = RandomTriangle(f, Vec3{}, size);
    const float r = f.U(0.05f, 0.8f);
    ConvexShape3 round{Sphere{r}};
    if (capsule) {
      const float half = f.U(0.1f, 1.5f);
      Vec3 c{};
      if (i % 20 == 10) c = Scaled(f, 0.5f);
      const Vec3 d = i % 10 == 0 ? Vec3{} : Scaled(f, half);
      round = Capsule3{c - d, c + d, r};
    }
    const float far = i % 3 == 0 ? 1e4f : 10.0f;
    Pose3 pt;
    const float x = f.U(-far, far);
    const float y = f.U(-far, far);
    const float z = f.U(-far, far);
    pt.position = {x, y, z};
    pt.rotation = RandomRotation(f);
    const float distance = f.U(0.0f, 2.5f);
    Pose3 pr;
    pr.position = pt.position + Scaled(f, distance);
    pr.rotation = RandomRotation(f);
    Check(round, pr, t, pt, tally, i);
  }
}

// Poses for shapes given in one frame: both the identity (every other
// case), or one random pose for both (near 1e4 every fourth case).
Pose3 CommonPose(Family& f, int i) {
  if (i % 2 == 0) return Pose3{};
  const float far = i % 4 == 1 ? 1e4f : 5.0f;
  Pose3 p;
  p.position = Scaled(f, far);
  p.rotation = RandomRotation(f);
  return p;
}

// A capsule piercing the triangle at a point of its face (or edge, every
// fifth), at a random angle (not within 0.05 of the plane); every fourth
// with one end exactly at the crossing.
void PiercingFamily(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const float size = f.LogU(-1.0f, 0.5f);
    const Triangle3 t = RandomTriangle(f, Vec3{}, size);
    const Vec3 x = OnTriangle(f, t, i % 5 == 0 ? 1 : 2);
    const Vec3 n = NormalOf(t);
    Vec3 dir = f.Unit();
    while (std::fabs(Dot(dir, n)) < 0.05f) dir = f.Unit();
    const float before = i % 4 == 0 ? 0.0f : f.U(0.01f, 2.0f);
    const float after = f.U(0.01f, 2.0f);
    const float r = f.LogU(-2.0f, 0.0f);
    const Capsule3 capsule{x - before * dir, x + after * dir, r};
    const Pose3 p = CommonPose(f, i);
    Check(ConvexShape3{capsule}, p, t, p, tally, i);
  }
}

// A capsule parallel to the triangle's plane (z = 0): in it (every third),
// 1e-9 to 1e-3 off it, or r +- 1e-9 .. 1e-4 off it; its ends anywhere
// around the triangle (crossing it, inside it, or beside it), every fifth
// along an edge.
void InPlaneFamily(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const float size = f.LogU(-1.0f, 0.5f);
    const Triangle3 t = FlatTriangle(f, size);
    const float r = f.LogU(-2.0f, 0.0f);
    float z = 0.0f;
    if (i % 3 == 1) {
      const float tiny = f.LogU(-9.0f, -3.0f);
      z = tiny;
    } else if (i % 3 == 2) {
      const float tiny = f.LogU(-9.0f, -4.0f);
      z = i % 2 == 0 ? r + tiny : r - tiny;
    }
    const float sign = f.U(0.0f, 1.0f) < 0.5f ? -1.0f : 1.0f;
    z *= sign;
    Vec3 p;
    Vec3 q;
    if (i % 5 == 0) {
      // Along an edge, beyond both its ends or inside them, moved across
      // it in the plane by up to r.
      const Vec3 v[3] = {t.a, t.b, t.c};
      const int k = static_cast<int>(f.U(0.0f, 2.999f));
      const Vec3 e = v[(k + 1) % 3] - v[k];
      const float s0 = f.U(-0.5f, 0.5f);
      const float s1 = f.U(0.5f, 1.5f);
      const float across = f.U(-1.0f, 1.0f) * r;
      const Vec3 side = across * NormalizeOrZero(Vec3{-e.y, e.x, 0.0f});
      p = v[k] + s0 * e + side;
      q = v[k] + s1 * e + side;
    } else {
      const float px = f.U(-2.0f, 2.0f) * size;
      const float py = f.U(-2.0f, 2.0f) * size;
      const float qx = f.U(-2.0f, 2.0f) * size;
      const float qy = f.U(-2.0f, 2.0f) * size;
      p = {px, py, 0.0f};
      q = {qx, qy, 0.0f};
    }
    p.z = z;
    q.z = z;
    const Pose3 pose = CommonPose(f, i);
    Check(ConvexShape3{Capsule3{p, q, r}}, pose, t, pose, tally, i);
  }
}

// A point core (a sphere, or a zero-length capsule with `capsule`) exactly
// on a vertex, an edge or the face (z = 0 every other case, so that the
// point lies in the plane exactly), or r +- 1e-9 .. 1e-4 off it along the
// normal, or inside the shape by up to r.
void PointOnFeatureFamily(unsigned seed, int count, bool capsule,
                          Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const float size = f.LogU(-2.0f, 1.0f);
    const Triangle3 t =
        i % 2 == 0 ? FlatTriangle(f, size) : RandomTriangle(f, Vec3{}, size);
    const Vec3 on = OnTriangle(f, t, i % 3);
    const float r = f.LogU(-3.0f, 1.0f);
    float offset = 0.0f;
    const int mode = (i / 3) % 4;
    if (mode == 1) {
      const float tiny = f.LogU(-9.0f, -4.0f);
      offset = r + tiny;
    } else if (mode == 2) {
      const float tiny = f.LogU(-9.0f, -4.0f);
      offset = r - tiny;
    } else if (mode == 3) {
      offset = f.U(0.0f, 1.0f) * r;
    }
    const float sign = f.U(0.0f, 1.0f) < 0.5f ? -1.0f : 1.0f;
    const Vec3 centre = on + (sign * offset) * NormalOf(t);
    const Pose3 common = CommonPose(f, i / 2);
    if (capsule) {
      Check(ConvexShape3{Capsule3{centre, centre, r}}, common, t, common, tally,
            i);
    } else {
      // The sphere's centre placed by the common pose.
      const Pose3 pr{Transform(common, centre), RandomRotation(f)};
      Check(ConvexShape3{Sphere{r}}, pr, t, common, tally, i);
    }
  }
}

// A triangle 1e-3 across, or a sliver 1 to 10 long and 1e-5 to 1e-3 wide.
Triangle3 TinyOrSliver(Family& f, int i) {
  if (i % 2 == 0) return RandomTriangle(f, Vec3{}, 1e-3f);
  Vec3 u;
  Vec3 v;
  Vec3 w;
  f.Frame(&u, &v, &w);
  const float length = f.LogU(0.0f, 1.0f);
  const float width = f.LogU(-5.0f, -3.0f);
  const float at = f.U(0.1f, 0.9f);
  const Vec3 a = -0.5f * length * u;
  const Vec3 b = 0.5f * length * u;
  const Vec3 c = a + (at * length) * u + width * v;
  return {a, b, c};
}

// Capsules 10 to 1e4 long against tiny or sliver triangles, the segment
// r +- 1e-9 .. 1e-4 from a vertex, an edge or the face (or exactly r, or
// crossing it), nearly parallel to the triangle's plane (tilted 0 or 1e-8
// to 1e-2) or at random; one end near the triangle or both far. Identity
// poses: the floats are the ones built here. Spheres (`capsule` false) of
// radius 1e-4 to 1e4 centred the same way.
void TinyTriangleFamily(unsigned seed, int count, bool capsule, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const Triangle3 t = TinyOrSliver(f, i);
    const Vec3 n = NormalOf(t);
    const Vec3 on = OnTriangle(f, t, i % 3);
    // Out of the feature: the normal (either side), or for a vertex or an
    // edge a random direction.
    Vec3 out = f.U(0.0f, 1.0f) < 0.5f ? n : -1.0f * n;
    if (i % 3 != 2 && i % 2 == 0) out = f.Unit();
    const float r = capsule ? f.LogU(-3.0f, 0.0f) : f.LogU(-4.0f, 4.0f);
    float offset = f.LogU(-9.0f, -4.0f);
    if (i % 7 == 0) offset = 0.0f;
    if (i % 7 < 3) offset = -offset;
    if (i % 11 == 5) offset = -r - 1e-4f * f.U(0.0f, 1.0f);
    const Vec3 centre = on + (r + offset) * out;
    if (!capsule) {
      Check(ConvexShape3{Sphere{r}}, Pose3{centre, Quat{}}, t, Pose3{}, tally,
            i);
      continue;
    }
    // The segment's direction: across `out`, tilted by 0 or 1e-8 .. 1e-2
    // towards it, or random.
    Vec3 along = NormalizeOrZero(Cross(out, f.Unit()));
    if (i % 4 == 1) {
      const float tilt = f.LogU(-8.0f, -2.0f);
      along = NormalizeOrZero(along + tilt * out);
    } else if (i % 4 == 3) {
      along = f.Unit();
    }
    const float length = f.LogU(1.0f, 4.0f);
    // The closest point near the middle, or one end near the triangle.
    const float s = i % 3 == 0 ? f.U(-0.5f, 0.5f) : f.U(0.45f, 0.5f);
    const Vec3 p = centre - (s + 0.5f) * length * along;
    const Vec3 q = centre - (s - 0.5f) * length * along;
    Check(ConvexShape3{Capsule3{p, q, r}}, Pose3{}, t, Pose3{}, tally, i);
  }
}

// A mesh's triangle: its vertices near 1e4 in the world, its pose the
// identity, against a round shape near it with a random pose.
void FarTriangleFamily(unsigned seed, int count, bool capsule, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const float bx = f.U(-1e4f, 1e4f);
    const float by = f.U(-1e4f, 1e4f);
    const float bz = f.U(-1e4f, 1e4f);
    const Vec3 base{bx, by, bz};
    const float size = f.U(0.2f, 2.0f);
    const Triangle3 t = RandomTriangle(f, base, size);
    const float r = f.U(0.05f, 0.8f);
    ConvexShape3 round{Sphere{r}};
    if (capsule) {
      const float half = f.U(0.1f, 1.5f);
      const Vec3 d = i % 10 == 0 ? Vec3{} : Vec3{0.0f, half, 0.0f};
      round = Capsule3{-1.0f * d, d, r};
    }
    const float distance = f.U(0.0f, 2.0f);
    Pose3 pr;
    pr.position = base + Scaled(f, distance);
    pr.rotation = RandomRotation(f);
    Check(round, pr, t, Pose3{}, tally, i);
  }
}

// Runs one family into its own tally, reports it, expects it within the
// reference's tolerance and adds it to `total`. The tolerance: 4
// FLT_EPSILON x M (`world_limit` 0), or where the generic path itself
// does not meet that (the answers are its own, bit for bit), `world_limit`
// FLT_EPSILON x M_world, the worst the generic path reaches there, so that
// a change that makes it worse fails.
template <typename Run>
void RunFamily(const char* name, double world_limit, Run run, Tally* total) {
  Tally t;
  run(&t);
  Report(name, t);
  if (world_limit == 0.0) {
    EXPECT_LE(t.worst_depth, 4.0) << name;
    EXPECT_LE(t.worst_along, 4.0) << name;
  } else {
    EXPECT_LE(t.worst_world, world_limit) << name;
  }
  total->cases += t.cases;
  total->overlapping += t.overlapping;
  total->failures += t.failures;
  total->skipped += t.skipped;
  total->depth_breaches += t.depth_breaches;
  total->along_breaches += t.along_breaches;
  total->worst_depth = std::max(total->worst_depth, t.worst_depth);
  total->worst_along = std::max(total->worst_along, t.worst_along);
  total->world_breaches += t.world_breaches;
  total->worst_world = std::max(total->worst_world, t.worst_world);
}

// Where the generic path misses 4 FLT_EPSILON x M (and so the typed path,
// its answers bit for bit): capsules against triangles posed near 1e4
// (random poses, or a mesh's triangle near 1e4 with the identity pose),
// whose face normal is the one computed in the triangle's own frame and
// rotated into A's, while its vertices are rounded there one by one (up to
// 1e4 x FLT_EPSILON x M off along the normal measured in A's frame, within
// 2.2 x M_world); spheres exactly on or r - 1e-9 .. 1e-4 from a vertex or
// an edge (up to 5.4 FLT_EPSILON x M_world), and a sphere 3.7e3 in radius
// against a 1e-3 triangle (4.2).
TEST(RoundTriangleTest, CapsuleTriangleMatchesGenericAndReference) {
  Tally tally;
  RunFamily(
      "  random", 4.0, [](Tally* t) { RandomFamily(6401, 70000, true, t); },
      &tally);
  RunFamily(
      "  piercing", 0.0, [](Tally* t) { PiercingFamily(6402, 30000, t); },
      &tally);
  RunFamily(
      "  in plane", 0.0, [](Tally* t) { InPlaneFamily(6403, 30000, t); },
      &tally);
  RunFamily(
      "  point on feature", 0.0,
      [](Tally* t) { PointOnFeatureFamily(6404, 20000, true, t); }, &tally);
  RunFamily(
      "  tiny triangle", 0.0,
      [](Tally* t) { TinyTriangleFamily(6405, 30000, true, t); }, &tally);
  RunFamily(
      "  far triangle", 4.0,
      [](Tally* t) { FarTriangleFamily(6406, 20000, true, t); }, &tally);
  ExpectClean("capsule-triangle", tally, 200000);
}

TEST(RoundTriangleTest, SphereTriangleMatchesGenericAndReference) {
  Tally tally;
  RunFamily(
      "  random", 0.0, [](Tally* t) { RandomFamily(6411, 90000, false, t); },
      &tally);
  RunFamily(
      "  point on feature", 6.0,
      [](Tally* t) { PointOnFeatureFamily(6412, 50000, false, t); }, &tally);
  RunFamily(
      "  tiny triangle", 5.0,
      [](Tally* t) { TinyTriangleFamily(6413, 30000, false, t); }, &tally);
  RunFamily(
      "  far triangle", 0.0,
      [](Tally* t) { FarTriangleFamily(6414, 30000, false, t); }, &tally);
  ExpectClean("sphere-triangle", tally, 200000);
}

// A height field of n x n cells (2 triangles each) 0.5 apart with random
// heights up to 0.6, placed by a random pose.
std::shared_ptr<const TriangleMesh> HeightField(Family& f, int n) {
  std::vector<Vec3> vertices;
  for (int z = 0; z <= n; ++z) {
    for (int x = 0; x <= n; ++x) {
      const float h = f.U(0.0f, 0.6f);
      vertices.push_back(
          {0.5f * static_cast<float>(x), h, 0.5f * static_cast<float>(z)});
    }
  }
  std::vector<std::uint32_t> indices;
  const auto at = [n](int x, int z) {
    return static_cast<std::uint32_t>(z * (n + 1) + x);
  };
  for (int z = 0; z < n; ++z) {
    for (int x = 0; x < n; ++x) {
      indices.insert(indices.end(), {at(x, z), at(x, z + 1), at(x + 1, z)});
      indices.insert(indices.end(),
                     {at(x + 1, z), at(x, z + 1), at(x + 1, z + 1)});
    }
  }
  auto mesh = MakeTriangleMesh(vertices, indices);
  EXPECT_TRUE(mesh.ok());
  return *mesh;
}

// Contact(shape, mesh) against the brute force its contract states: the
// pair Contact of the shape (placed in the mesh's frame) against every
// triangle as a separate shape, the deepest kept (of equal depths the least
// id) and mapped to the world; and against the deepest of ContactAll (the
// least id of equal depths). A third of the queries meet a copy of the field
// moved to 1e3, 3e3 or 1e4 (the shape moved with it, the mesh posed as the
// others), where the pair tests work a few ulps of the coordinates away
// from the mesh's frame.
TEST(RoundTriangleTest, MeshContactIsTheDeepestOfContactAll) {
  Family f(6421);
  const auto mesh = HeightField(f, 16);
  // The far copies (no draws: the cases are those of before).
  const float kFar[3] = {1e3f, 3e3f, 1e4f};
  std::shared_ptr<const TriangleMesh> far_mesh[3];
  Vec3 far_offset[3];
  for (int k = 0; k < 3; ++k) {
    far_offset[k] = Vec3{kFar[k], 0.5f * kFar[k], -kFar[k]};
    std::vector<Vec3> vertices(mesh->vertices().begin(),
                               mesh->vertices().end());
    for (Vec3& v : vertices) v = v + far_offset[k];
    std::vector<std::uint32_t> indices(mesh->indices().begin(),
                                       mesh->indices().end());
    auto moved = MakeTriangleMesh(vertices, indices);
    ASSERT_TRUE(moved.ok());
    far_mesh[k] = *moved;
  }
  int overlapping = 0;
  int failures = 0;
  for (int i = 0; i < sator::testing::ScaledCount(6000); ++i) {
    Pose3 pose_mesh;
    if (i % 2 == 1) {
      pose_mesh.position = Scaled(f, i % 4 == 1 ? 1e4f : 5.0f);
      pose_mesh.rotation = RandomRotation(f);
    }
    const float r = f.U(0.1f, 0.6f);
    ConvexShape3 shape{Sphere{r}};
    if (i % 3 == 1) {
      const float half = f.U(0.0f, 1.0f);
      shape = Capsule3{{0.0f, -half, 0.0f}, {0.0f, half, 0.0f}, r};
    } else if (i % 3 == 2) {
      const float hx = f.U(0.1f, 0.6f);
      const float hy = f.U(0.1f, 0.6f);
      const float hz = f.U(0.1f, 0.6f);
      shape = Box3{{hx, hy, hz}};
    }
    // Over the field, around its surface, in the mesh's frame.
    const float x = f.U(0.5f, 7.5f);
    const float y = f.U(-0.5f, 1.2f);
    const float z = f.U(0.5f, 7.5f);
    Pose3 local{{x, y, z}, Quat{}};
    if (i % 5 != 0) local.rotation = RandomRotation(f);
    const TriangleMesh* m = mesh.get();
    if (i % 6 == 2 || i % 6 == 3) {
      // Far: the same field and placement moved by the offset.
      const int k = (i / 6) % 3;
      m = far_mesh[k].get();
      local.position = local.position + far_offset[k];
    }
    const Pose3 pose_a = Mul(pose_mesh, local);
    const ContactResult<3> best = Contact(shape, pose_a, *m, pose_mesh);
    // The deepest of ContactAll, of equal depths the least id.
    ContactResult<3> deepest;
    std::uint32_t deepest_id = 0;
    for (const MeshContact& c : ContactAll(shape, pose_a, *m, pose_mesh)) {
      if (!deepest.overlapping || c.contact.depth > deepest.depth ||
          (c.contact.depth == deepest.depth && c.triangle < deepest_id)) {
        deepest = c.contact;
        deepest_id = c.triangle;
      }
    }
    // The brute force: the pair Contact against every triangle in the
    // mesh's frame, the deepest (the first, the least id, of equal depths)
    // mapped to the world.
    const Pose3 a_in_mesh = MulT(pose_mesh, pose_a);
    ContactResult<3> pairwise;
    for (std::uint32_t id = 0; id < m->triangle_count(); ++id) {
      const ContactResult<3> c =
          Contact(shape, a_in_mesh, ConvexShape3{m->triangle(id)}, Pose3{});
      if (c.overlapping &&
          (!pairwise.overlapping || c.depth > pairwise.depth)) {
        pairwise = c;
      }
    }
    if (pairwise.overlapping) pairwise = ToWorld(pairwise, pose_mesh);
    overlapping += best.overlapping;
    if (!SameBits(best, deepest) || !SameBits(best, pairwise)) {
      if (++failures <= 5) {
        ADD_FAILURE() << "case " << i << ": depth " << best.depth
                      << " against ContactAll's " << deepest.depth
                      << " and the brute force's " << pairwise.depth
                      << " (overlapping " << best.overlapping << " "
                      << deepest.overlapping << " " << pairwise.overlapping
                      << ")";
      }
    }
  }
  std::printf("mesh: 6000 queries, %d overlapping, %d failures\n", overlapping,
              failures);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(overlapping, sator::testing::ScaledCount(1500));
}

}  // namespace
}  // namespace sator
