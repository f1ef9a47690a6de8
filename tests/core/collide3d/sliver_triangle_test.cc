// Queries against sliver triangles (width 3e-6 to 3e-3 of the length, down
// to what validation accepts) in random orientations, against a
// double-precision reference written here from the definitions. A sliver's
// face normal formed as the float cross product of two nearly parallel edges
// is off by about 1e-7 / sin(angle) radians (docs/core/collide3d.md,
// "Triangles, hulls, AABBs"); the reference forms it in double from the float
// vertices, whose edge vectors are exact there.
//  - Contact and Overlap of a box or a hull poking into the sliver (or just
//    apart from it): the penetration depth is the least overlap over the
//    separating axes of the pair (the triangle's normal, the other shape's
//    face normals and the cross products of the edges), each measured by
//    projecting the vertices in double;
//  - RayCast: the reported normal against the double normal;
//  - Sweep of a box or a hull onto the sliver: the first time at which the
//    same axes all overlap (each axis's overlap is an interval of time).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "core/collide3d/double_reference3d.h"
#include "core/collide3d/seeded_family3d.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/raycast3d.h"
#include "sator/core/collide3d/shape3d.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "sator/core/collide3d/sweep3d.h"

namespace sator {
namespace {

using test3d::CrossD;
using test3d::DotD;
using test3d::Dv;
using test3d::Family;
using test3d::LenD;
using test3d::ToDv;

// A sliver: the long edge from o - len/2 u to o + len/2 u, the third vertex
// `width` across it along v; n = u x v.
struct Sliver {
  Triangle3 tri;
  Vec3 u, v, n;
  float len = 0.0f;
  float width = 0.0f;
  bool valid = false;
};

Sliver MakeSliver(Family& f, int i) {
  Sliver s;
  s.len = f.LogU(0.0f, 2.0f);
  const float far = i % 2 == 0 ? 0.0f : f.LogU(0.0f, 3.0f);
  s.u = f.Unit();
  s.v = NormalizeOrZero(Cross(s.u, f.Unit()));
  s.n = Cross(s.u, s.v);
  const Vec3 o = far * f.Unit();
  s.width = s.len * f.LogU(-5.5f, -2.5f);
  s.tri = {o - 0.5f * s.len * s.u, o + 0.5f * s.len * s.u,
           o + f.U(-0.5f, 0.5f) * s.len * s.u + s.width * s.v};
  // Far from the origin the rounding of the vertices can flatten the
  // thinnest slivers below what validation accepts: those are refused
  // upstream, so they are skipped.
  s.valid = ValidateShape(ConvexShape3{s.tri}).ok();
  return s;
}

// A point of the sliver (barycentric, away from the long edges by a random
// fraction of the width).
Vec3 PointIn(Family& f, const Triangle3& t) {
  const float wc = f.U(0.05f, 0.9f);
  const float wb = (1.0f - wc) * f.U(0.05f, 0.95f);
  return t.a + wb * (t.b - t.a) + wc * (t.c - t.a);
}

// A convex polytope in double: its vertices, and the directions of its
// faces and edges for the separating axes.
struct RefPoly {
  std::vector<Dv> vertices;
  std::vector<Dv> face_normals;
  std::vector<Dv> edges;
};

RefPoly TriangleRef(const Triangle3& t) {
  const Dv a = ToDv(t.a);
  const Dv b = ToDv(t.b);
  const Dv c = ToDv(t.c);
  return {{a, b, c}, {CrossD(b - a, c - a)}, {b - a, c - b, a - c}};
}

RefPoly BoxRef(const Box3& box, Vec3 position) {
  RefPoly r;
  const Dv p = ToDv(position);
  const Dv h = ToDv(box.half_extents);
  for (int k = 0; k < 8; ++k) {
    r.vertices.push_back(p + Dv{(k & 1) ? h.x : -h.x, (k & 2) ? h.y : -h.y,
                                (k & 4) ? h.z : -h.z});
  }
  r.face_normals = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  r.edges = r.face_normals;
  return r;
}

RefPoly HullRef(const ConvexHull& hull) {
  RefPoly r;
  for (const Vec3 v : hull.vertices) r.vertices.push_back(ToDv(v));
  for (const ConvexHull::Face& face : hull.faces) {
    r.face_normals.push_back(ToDv(face.normal));
  }
  for (const ConvexHull::Edge& e : hull.edges) {
    r.edges.push_back(ToDv(hull.vertices[e.b]) - ToDv(hull.vertices[e.a]));
  }
  return r;
}

void Range(const std::vector<Dv>& points, Dv n, double* lo, double* hi) {
  *lo = *hi = DotD(points[0], n);
  for (const Dv& p : points) {
    *lo = std::min(*lo, DotD(p, n));
    *hi = std::max(*hi, DotD(p, n));
  }
}

// The unit separating axes of the pair: face normals and edge crosses.
std::vector<Dv> Axes(const RefPoly& a, const RefPoly& b) {
  std::vector<Dv> axes;
  const auto add = [&axes](Dv n) {
    const double len = LenD(n);
    if (len > 0.0) axes.push_back((1.0 / len) * n);
  };
  for (const Dv& n : a.face_normals) add(n);
  for (const Dv& n : b.face_normals) add(n);
  for (const Dv& ea : a.edges) {
    for (const Dv& eb : b.edges) add(CrossD(ea, eb));
  }
  return axes;
}

// max over A of n.x minus min over B of n.x (unit n): how far B must move
// along n to clear A.
double OverlapAlong(const RefPoly& a, const RefPoly& b, Dv n) {
  double a_lo, a_hi, b_lo, b_hi;
  Range(a.vertices, n, &a_lo, &a_hi);
  Range(b.vertices, n, &b_lo, &b_hi);
  return a_hi - b_lo;
}

// The penetration depth (negative: minus the largest separation over the
// axes).
double ReferenceDepth(const RefPoly& a, const RefPoly& b) {
  double depth = 3e38;
  for (const Dv& n : Axes(a, b)) {
    depth = std::min(
        {depth, OverlapAlong(a, b, n), OverlapAlong(a, b, (-1.0) * n)});
  }
  return depth;
}

double Magnitude(const RefPoly& a, const RefPoly& b) {
  double m = 0.0;
  for (const RefPoly* p : {&a, &b}) {
    for (const Dv& v : p->vertices) {
      m = std::max({m, std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
    }
  }
  return m;
}

struct Tally {
  int cases = 0;
  int overlapping = 0;
  int failures = 0;
  int overlap_failures = 0;  // Of which Overlap disagreed.
  double worst = 0.0;        // In FLT_EPSILON x M.
};

void Report(const char* name, const Tally& t) {
  std::printf(
      "%s: %d cases, %d overlapping, %d failures (Overlap %d), worst %.2f\n",
      name, t.cases, t.overlapping, t.failures, t.overlap_failures, t.worst);
}

// Contact(A, B) and Overlap(A, B), both at the identity pose except B's
// translation: the depth against the reference, the overlap along the
// reported normal against the depth, and Overlap against the reference's
// sign away from touching, each within 4 FLT_EPSILON x M.
void CheckPair(const ConvexShape3& a, const RefPoly& ra, const ConvexShape3& b,
               Vec3 b_position, const RefPoly& rb, Tally* tally, int i) {
  const Pose3 pose_b{b_position, {}};
  const double ref = ReferenceDepth(ra, rb);
  const double unit = FLT_EPSILON * Magnitude(ra, rb);
  const double tol = 4.0 * unit;
  const ContactResult<3> c = Contact(a, Pose3{}, b, pose_b);
  const bool overlap = Overlap(a, Pose3{}, b, pose_b);
  ++tally->cases;
  tally->overlapping += ref > 0.0;
  const Dv n = (1.0 / LenD(ToDv(c.normal))) * ToDv(c.normal);
  const double along = OverlapAlong(ra, rb, n);
  double depth_error = 0.0;
  double along_error = 0.0;
  if (ref > tol) {
    depth_error = std::fabs(c.depth - ref);
    along_error = std::fabs(along - c.depth);
  }
  const bool contact_error = ref > tol && !c.overlapping;
  const bool overlap_error = std::fabs(ref) > tol && overlap != (ref > 0.0);
  tally->worst =
      std::max({tally->worst, depth_error / unit, along_error / unit});
  tally->overlap_failures += overlap_error;
  if (depth_error > tol || along_error > tol || contact_error ||
      overlap_error) {
    if (++tally->failures <= 5) {
      ADD_FAILURE() << "case " << i << ": depth " << c.depth << ", reference "
                    << ref << ", overlap along the normal " << along
                    << ", Overlap " << overlap << ", tolerance " << tol;
    }
  }
}

// A box (identity rotation) poking one corner into a sliver, or standing
// just apart from it, its lowest corner along -n over a point of the
// sliver: Contact and Overlap with the sliver first and second. With the
// float normal 10,638 of 39,976 cases failed (2,704 of them Overlap, through
// box_triangle.cc's plane test), the worst by 67,560 FLT_EPSILON x M.
TEST(SliverTriangleTest, BoxCornerOnSliverMatchesDoubleReference) {
  Family f(5151);
  Tally tally;
  for (int i = 0; i < 20000; ++i) {
    const Sliver s = MakeSliver(f, i);
    if (!s.valid) continue;
    const Vec3 h{s.len * f.LogU(-1.5f, 0.0f), s.len * f.LogU(-1.5f, 0.0f),
                 s.len * f.LogU(-1.5f, 0.0f)};
    const Box3 box{h};
    // The corner lowest along the sliver's normal (towards -n).
    const Vec3 corner{s.n.x > 0.0f ? -h.x : h.x, s.n.y > 0.0f ? -h.y : h.y,
                      s.n.z > 0.0f ? -h.z : h.z};
    const float depth =
        (i % 4 == 3 ? -1.0f : 1.0f) * s.len * f.LogU(-6.0f, -2.0f);
    const Vec3 position = PointIn(f, s.tri) - depth * s.n - corner;
    const RefPoly rt = TriangleRef(s.tri);
    const RefPoly rb = BoxRef(box, position);
    CheckPair(s.tri, rt, box, position, rb, &tally, i);
    // Swapped: the box at the identity, the sliver moved by -position.
    const Vec3 moved[3] = {s.tri.a - position, s.tri.b - position,
                           s.tri.c - position};
    const Triangle3 t2{moved[0], moved[1], moved[2]};
    if (!ValidateShape(ConvexShape3{t2}).ok()) continue;
    CheckPair(box, BoxRef(box, Vec3{}), t2, Vec3{}, TriangleRef(t2), &tally, i);
  }
  Report("box corner on a sliver", tally);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_GT(tally.overlapping, 10000);
}

// A random hull of 12 points, its lowest vertex along -n poking into a
// sliver or standing just apart from it. With the float normal 4,590 of
// 19,994 cases failed (1,240 of them Overlap), the worst by 135,875.
TEST(SliverTriangleTest, HullOnSliverMatchesDoubleReference) {
  Family f(5252);
  Tally tally;
  for (int i = 0; i < 10000; ++i) {
    const Sliver s = MakeSliver(f, i);
    if (!s.valid) continue;
    const float size = s.len * f.LogU(-1.5f, 0.0f);
    std::vector<Vec3> local;
    for (int k = 0; k < 12; ++k) local.push_back(size * f.Unit());
    int lowest = 0;
    for (int k = 1; k < 12; ++k) {
      if (Dot(local[k], s.n) < Dot(local[lowest], s.n)) lowest = k;
    }
    const float depth =
        (i % 4 == 3 ? -1.0f : 1.0f) * s.len * f.LogU(-6.0f, -2.0f);
    const Vec3 shift = PointIn(f, s.tri) - depth * s.n - local[lowest];
    std::vector<Vec3> points;
    for (const Vec3 p : local) points.push_back(p + shift);
    const auto hull = MakeConvexHull(points);
    if (!hull.ok()) continue;
    const ConvexShape3 b{*hull};
    CheckPair(s.tri, TriangleRef(s.tri), b, Vec3{}, HullRef(**hull), &tally, i);
    CheckPair(b, HullRef(**hull), s.tri, Vec3{}, TriangleRef(s.tri), &tally, i);
  }
  Report("hull on a sliver", tally);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_GT(tally.overlapping, 5000);
}

// Rays at slivers from up to 10 lengths away on either side: the reported
// normal (facing the ray's origin) against the double normal, within 4
// FLT_EPSILON (the rounding of a unit vector to float). With the float
// normal 18,688 of 19,739 hits failed, the worst by 119,811 FLT_EPSILON.
TEST(SliverTriangleTest, RayNormalMatchesDoubleReference) {
  Family f(5353);
  int hits = 0;
  int failures = 0;
  double worst = 0.0;
  for (int i = 0; i < 20000; ++i) {
    const Sliver s = MakeSliver(f, i);
    if (!s.valid) continue;
    const Vec3 target = PointIn(f, s.tri);
    const float side = i % 2 == 0 ? 1.0f : -1.0f;
    const float from_u = f.U(-0.7f, 0.7f);
    const float from_v = f.U(-0.7f, 0.7f);
    const Vec3 from = side * s.n + from_u * s.u + from_v * s.v;
    const Vec3 origin = target + s.len * f.LogU(-1.0f, 1.0f) * from;
    const Vec3 dir = NormalizeOrZero(target - origin);
    const RayResult<3> r = RayCast(s.tri, Pose3{}, Ray<3>{origin, dir, 1e6f});
    if (!r.hit) continue;
    ++hits;
    Dv ref =
        CrossD(ToDv(s.tri.b) - ToDv(s.tri.a), ToDv(s.tri.c) - ToDv(s.tri.a));
    ref = (1.0 / LenD(ref)) * ref;
    if (DotD(ref, ToDv(dir)) > 0.0) ref = (-1.0) * ref;
    const double error = LenD(ToDv(r.normal) - ref);
    worst = std::max(worst, error / FLT_EPSILON);
    if (error > 4.0 * FLT_EPSILON && ++failures <= 5) {
      ADD_FAILURE() << "case " << i << ": normal off by " << error;
    }
  }
  std::printf("ray at a sliver: %d hits, %d failures, worst %.2f\n", hits,
              failures, worst);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(hits, 15000);
}

// The first t in [0, 1] at which B moved by t d overlaps A on every axis
// (each axis's overlap is an interval of t), or -1; 0 when they overlap at
// the start. *leave: the last such t (in [0, 1]).
double ReferenceToi(const RefPoly& a, const RefPoly& b, Dv d, double* leave_t) {
  double t0 = 0.0;
  double t1 = 1.0;
  for (const Dv& n : Axes(a, b)) {
    double a_lo, a_hi, b_lo, b_hi;
    Range(a.vertices, n, &a_lo, &a_hi);
    Range(b.vertices, n, &b_lo, &b_hi);
    const double speed = DotD(n, d);
    // b_lo + t speed <= a_hi and b_hi + t speed >= a_lo.
    if (speed == 0.0) {
      if (b_lo > a_hi || b_hi < a_lo) return -1.0;
      continue;
    }
    double enter = (a_lo - b_hi) / speed;
    double leave = (a_hi - b_lo) / speed;
    if (enter > leave) std::swap(enter, leave);
    t0 = std::max(t0, enter);
    t1 = std::min(t1, leave);
    if (t0 > t1) return -1.0;
  }
  *leave_t = t1;
  return t0;
}

// A box (identity rotation) or a random hull above a sliver, its lowest
// corner over a point of it, swept down onto it with a little sideways
// motion: the time of impact (as a distance travelled) against the
// reference, within 4 FLT_EPSILON x M (M the coordinates' magnitude and the
// displacement's length); a miss only for a graze that short. With the
// float normal 8,864 of 19,980 sweeps failed, the worst by 615.
TEST(SliverTriangleTest, SweepOntoSliverMatchesDoubleReference) {
  Family f(5454);
  Tally tally;
  for (int i = 0; i < 20000; ++i) {
    const Sliver s = MakeSliver(f, i);
    if (!s.valid) continue;
    const float gap = s.len * f.LogU(-3.0f, -0.5f);
    const float down = f.U(1.1f, 2.0f);
    const float slide = f.U(-1.0f, 1.0f);
    const Vec3 d = -(gap * down) * s.n + (0.1f * gap * slide) * s.u;
    const Vec3 target = PointIn(f, s.tri) + gap * s.n;
    ConvexShape3 b;
    RefPoly rb;
    Pose3 pose_b;
    if (i % 2 == 0) {
      const Vec3 h{s.len * f.LogU(-1.5f, 0.0f), s.len * f.LogU(-1.5f, 0.0f),
                   s.len * f.LogU(-1.5f, 0.0f)};
      const Vec3 corner{s.n.x > 0.0f ? -h.x : h.x, s.n.y > 0.0f ? -h.y : h.y,
                        s.n.z > 0.0f ? -h.z : h.z};
      pose_b.position = target - corner;
      b = Box3{h};
      rb = BoxRef(Box3{h}, pose_b.position);
    } else {
      const float size = s.len * f.LogU(-1.5f, 0.0f);
      std::vector<Vec3> local;
      for (int k = 0; k < 12; ++k) local.push_back(size * f.Unit());
      int lowest = 0;
      for (int k = 1; k < 12; ++k) {
        if (Dot(local[k], s.n) < Dot(local[lowest], s.n)) lowest = k;
      }
      std::vector<Vec3> points;
      for (const Vec3 p : local) points.push_back(p + target - local[lowest]);
      const auto hull = MakeConvexHull(points);
      if (!hull.ok()) continue;
      b = *hull;
      rb = HullRef(**hull);
    }
    const RefPoly rt = TriangleRef(s.tri);
    double t_leave = 0.0;
    const double t_ref = ReferenceToi(rt, rb, ToDv(d), &t_leave);
    if (!(t_ref > 0.0)) continue;
    const SweepResult<3> r = Sweep(b, pose_b, d, s.tri, Pose3{}, Vec3{});
    ++tally.cases;
    const double unit =
        FLT_EPSILON * std::max(Magnitude(rt, rb), LenD(ToDv(d)));
    const double speed = LenD(ToDv(d));
    // A miss only where B merely grazes A (overlapping for no more than
    // the tolerance's worth of travel).
    double error = 3e38;
    if (r.outcome == SweepOutcome::kHit) {
      error = std::fabs((r.fraction - t_ref) * speed);
    } else if (r.outcome == SweepOutcome::kMiss &&
               (t_leave - t_ref) * speed <= 4.0 * unit) {
      error = 0.0;
    }
    tally.worst = std::max(tally.worst, std::min(error, 1e30) / unit);
    if (error > 4.0 * unit && ++tally.failures <= 5) {
      ADD_FAILURE() << "case " << i << ": outcome "
                    << static_cast<int>(r.outcome) << ", fraction "
                    << r.fraction << ", reference " << t_ref << ", off by "
                    << error << ", tolerance " << 4.0 * unit;
    }
  }
  Report("sweep onto a sliver", tally);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_GT(tally.cases, 15000);
}

}  // namespace
}  // namespace sator
