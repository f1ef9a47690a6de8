// White-box tests: each typed fast path of the 2D core against the general
// path it replaces (the rounded-core SAT, clipper, sweep and ray cast of
// core/src/geometry2d) on many seeded random cases, including exactly
// touching, axis-aligned, 45-degree, contained and degenerate (very thin)
// configurations, at scales 1e-3, 1 and 1e3.
//
// Agreement rules (tol = the pair's touching tolerance, scale = tol / 1e-5):
//  - verdicts (overlapping, hit / miss / started) are equal unless the case
//    lies within 2e-6 x scale of a decision boundary (ambiguous by
//    construction: both paths round differently);
//  - depths, fractions and points agree within a few float ulps of the
//    scale;
//  - where the two paths pick different axes (an exact tie, or the reference
//    face bias of 0.1 tol decided on round-off), the depths agree within
//    that bias and the fast path's normal must still separate the shapes
//    when B is moved by its depth plus 3 tol (checked with the general
//    path).
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

#include "geometry2d/core2d.h"
#include "geometry2d/raycast2d.h"
#include "geometry2d/sat2d.h"
#include "geometry2d/sweep2d.h"
#include "gtest/gtest.h"
#include "sator/core/geometry2d/queries2d.h"
#include "test_shapes2d.h"

namespace sator {
namespace {

using internal2d::Core;

constexpr int kCases = 200000;

// Random boxes and poses biased towards the hard cases.
class BoxCaseGen {
 public:
  explicit BoxCaseGen(unsigned seed) : gen_(seed) {}

  float Scale() {
    const int pick = gen_.Int(0, 5);
    return pick == 0 ? 1e-3f : (pick == 1 ? 1e3f : 1.0f);
  }
  Vec2 HalfExtents(float scale) {
    switch (gen_.Int(0, 4)) {
      case 0: {  // Square.
        const float h = gen_.Uniform(0.05f, 2.0f) * scale;
        return {h, h};
      }
      case 1:  // Thin.
        return Vec2{gen_.Uniform(0.001f, 0.01f), gen_.Uniform(0.5f, 2.0f)} *
               scale;
      default:
        return Vec2{gen_.Uniform(0.05f, 2.0f), gen_.Uniform(0.05f, 2.0f)} *
               scale;
    }
  }
  Rot2 Rotation() {
    switch (gen_.Int(0, 5)) {
      case 0: {  // Exact quarter turns.
        static constexpr Rot2 kQuarter[4] = {
            {1.0f, 0.0f}, {0.0f, 1.0f}, {-1.0f, 0.0f}, {0.0f, -1.0f}};
        return kQuarter[gen_.Int(0, 3)];
      }
      case 1:  // Multiples of 45 degrees, rounded.
        return Rot2::FromAngle(static_cast<float>(gen_.Int(0, 7)) *
                               std::numbers::pi_v<float> / 4.0f);
      case 2:  // Nearly axis-aligned.
        return Rot2::FromAngle(gen_.Uniform(-1e-4f, 1e-4f));
      default:
        return Rot2::FromAngle(gen_.Uniform(-3.14159f, 3.14159f));
    }
  }
  // B's pose in A's frame: random, or placed so that B's extreme point
  // along A's x touches A's right face exactly.
  Pose2 Placement(Vec2 ha, Vec2 hb, float scale) {
    const Rot2 r = Rotation();
    const float reach = 1.2f * (Length(ha) + Length(hb));
    Vec2 p = gen_.Point(reach);
    if (gen_.Int(0, 4) == 0) {
      const float bx = hb.x * std::fabs(r.c) + hb.y * std::fabs(r.s);
      p.x = ha.x + bx;
      p.y = gen_.Uniform(-1.0f, 1.0f) * (ha.y + hb.y);
    } else if (gen_.Int(0, 9) == 0) {
      p = gen_.Point(0.1f * scale);  // Nearly concentric (deep).
    }
    return {p, r};
  }
  test2d::ShapeGen& gen() { return gen_; }

 private:
  test2d::ShapeGen gen_;
};

Core BoxCore(const Box2& box) {
  Core core;
  internal2d::MakeBoxCore(box, core);
  return core;
}

Core CoreIn(const Shape2& shape, const Pose2& pose) {
  Core core;
  internal2d::MakeCore(shape, core);
  internal2d::TransformCore(pose, core);
  return core;
}

float BoxTolerance(const Box2& a, const Box2& b, const Pose2& b_in_a) {
  return TouchingTolerance(a.half_extents.x + a.half_extents.y +
                           b.half_extents.x + b.half_extents.y +
                           Length(b_in_a.position));
}

// The separations along the four box axes (A's x, y, B's u, v), in double:
// the exact SAT up to the double round-off.
struct BoxSat {
  double sep[4];
  double Max() const {
    return std::max(std::max(sep[0], sep[1]), std::max(sep[2], sep[3]));
  }
};

BoxSat BoxSeparations(const Box2& a, const Box2& b, const Pose2& p) {
  const double c = p.rotation.c;
  const double s = p.rotation.s;
  const double dx = p.position.x;
  const double dy = p.position.y;
  const double ax = a.half_extents.x;
  const double ay = a.half_extents.y;
  const double bx = b.half_extents.x;
  const double by = b.half_extents.y;
  return {
      {std::fabs(dx) - ax - bx * std::fabs(c) - by * std::fabs(s),
       std::fabs(dy) - ay - bx * std::fabs(s) - by * std::fabs(c),
       std::fabs(c * dx + s * dy) - bx - ax * std::fabs(c) - ay * std::fabs(s),
       std::fabs(c * dy - s * dx) - by - ax * std::fabs(s) -
           ay * std::fabs(c)}};
}

bool SameNormal(Vec2 a, Vec2 b) { return Dot(a, b) > 1.0f - 1e-6f; }

TEST(FastPath2d, ContactBoxBoxMatchesGeneralSat) {
  BoxCaseGen gen(31u);
  int overlapping = 0;
  int two_points = 0;
  int ambiguous_faces = 0;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const float scale_pick = gen.Scale();
    const Box2 a{gen.HalfExtents(scale_pick)};
    const Box2 b{gen.HalfExtents(scale_pick)};
    const Pose2 p = gen.Placement(a.half_extents, b.half_extents, scale_pick);
    const float tol = BoxTolerance(a, b, p);
    const float scale = tol / kTouchingRelativeTolerance;
    const double window = 5e-7 * scale;
    const ContactResult<2> fast = ContactBoxBox(a, b, p);
    const Core ca = BoxCore(a);
    const Core cb = CoreIn(Shape2{b}, p);
    const ContactResult<2> ref = internal2d::ContactCores(ca, cb, tol);
    const BoxSat sat = BoxSeparations(a, b, p);
    if (std::fabs(sat.Max() - tol) <= 2e-6 * scale) continue;  // Ambiguous.
    const auto fail = [&](const char* what) {
      ++failures;
      ADD_FAILURE() << what << " case " << i << " ha (" << a.half_extents.x
                    << ", " << a.half_extents.y << ") hb (" << b.half_extents.x
                    << ", " << b.half_extents.y << ") d (" << p.position.x
                    << ", " << p.position.y << ") rot (" << p.rotation.c << ", "
                    << p.rotation.s << ") fast n (" << fast.normal.x << ", "
                    << fast.normal.y << ") depth " << fast.depth << " count "
                    << fast.point_count << " ref n (" << ref.normal.x << ", "
                    << ref.normal.y << ") depth " << ref.depth << " count "
                    << ref.point_count;
    };
    if (fast.overlapping != ref.overlapping) {
      fail("verdicts differ");
      continue;
    }
    // Which face is the reference is decided by comparisons of
    // separations; within round-off of a tie (between A's two axes, B's
    // two, or A's best and B's best plus the 0.1 tol face bias) either
    // answer is right.
    const double sep_a = std::max(sat.sep[0], sat.sep[1]);
    const double sep_b = std::max(sat.sep[2], sat.sep[3]);
    // Likewise the incident face when a box is at 45 degrees to the normal:
    // its two faces are equally anti-parallel to it.
    const Vec2 u = Rotate(p.rotation, {1.0f, 0.0f});
    const Vec2 v = Rotate(p.rotation, {0.0f, 1.0f});
    const Vec2 n = fast.normal;
    const bool face_tie =
        std::fabs(sat.sep[0] - sat.sep[1]) <= window ||
        std::fabs(sat.sep[2] - sat.sep[3]) <= window ||
        std::fabs(sep_b - sep_a - 0.1 * tol) <= window ||
        std::fabs(std::fabs(n.x) - std::fabs(n.y)) < 1e-4f ||
        std::fabs(std::fabs(Dot(n, u)) - std::fabs(Dot(n, v))) < 1e-4f;
    if (face_tie) {
      ++ambiguous_faces;
      if (std::fabs(fast.depth - ref.depth) > 0.1f * tol + 2e-6f * scale) {
        fail("tied axes with different depths");
        continue;
      }
      if (!fast.overlapping) continue;
      // The fast MTV must separate, and its points lie between the
      // surfaces (at most depth / 2 + 2 tol outside either box, as the
      // property test asks).
      const Pose2 moved{p.position + (fast.depth + 3.0f * tol) * fast.normal,
                        p.rotation};
      if (internal2d::ContactCores(ca, CoreIn(Shape2{b}, moved), tol)
              .overlapping) {
        fail("fast MTV does not separate");
      }
      const float limit = 0.5f * fast.depth + 2.0f * tol;
      for (int k = 0; k < fast.point_count; ++k) {
        const Vec2 q = fast.points[static_cast<size_t>(k)];
        if (test2d::SignedDistance(Shape2{a}, q) > limit ||
            test2d::SignedDistance(Shape2{b}, InvTransform(p, q)) > limit) {
          fail("contact point not between the surfaces");
        }
      }
      continue;
    }
    if (!SameNormal(fast.normal, ref.normal)) {
      fail("normals differ");
      continue;
    }
    if (std::fabs(fast.depth - ref.depth) > 2e-6f * scale) {
      fail("depths differ");
      continue;
    }
    if (!fast.overlapping) continue;
    ++overlapping;
    two_points += fast.point_count == 2 ? 1 : 0;
    // A point is kept when its penetration is at least -tol; a point whose
    // penetration is within round-off of -tol may be kept by one path only.
    // Its penetration, from the midway point q: twice q's depth below the
    // reference face (A's face when A's axes win, else B's).
    const bool a_ref = !(sep_b > sep_a + 0.1 * tol);
    const float top_a =
        std::fabs(n.x) * a.half_extents.x + std::fabs(n.y) * a.half_extents.y;
    const float bottom_b = Dot(n, p.position) -
                           std::fabs(Dot(n, u)) * b.half_extents.x -
                           std::fabs(Dot(n, v)) * b.half_extents.y;
    const auto at_threshold = [&](const ContactResult<2>& x,
                                  const ContactResult<2>& y) {
      for (int k = 0; k < x.point_count; ++k) {
        const Vec2 q = x.points[static_cast<size_t>(k)];
        bool found = false;
        for (int j = 0; j < y.point_count; ++j) {
          found |=
              Length(q - y.points[static_cast<size_t>(j)]) <= 4e-6f * scale;
        }
        const float pen =
            a_ref ? 2.0f * (top_a - Dot(n, q)) : 2.0f * (Dot(n, q) - bottom_b);
        if (!found && std::fabs(pen + tol) > 4e-6f * scale) return false;
      }
      return true;
    };
    if (!at_threshold(fast, ref) || !at_threshold(ref, fast)) {
      fail("contact points differ");
    }
  }
  EXPECT_EQ(failures, 0);
  // The generator must reach the interesting cases, and ties stay rare.
  EXPECT_GT(overlapping, kCases / 4);
  EXPECT_GT(two_points, kCases / 50);
  EXPECT_LT(ambiguous_faces, kCases / 5);
}

// The entry and exit times of SAT over time on the four box axes, in double
// (the exact answer up to the double round-off), and each axis' entry.
struct BoxSweepSat {
  double enter = -1e300;
  double exit = 1e300;
  double lo[4];
  bool never = false;
};

BoxSweepSat BoxSweepIntervals(const Box2& a, const Box2& b, const Pose2& p,
                              Vec2 motion) {
  const double c = p.rotation.c;
  const double s = p.rotation.s;
  const double dx = p.position.x;
  const double dy = p.position.y;
  const double mx = motion.x;
  const double my = motion.y;
  const double ax = a.half_extents.x;
  const double ay = a.half_extents.y;
  const double bx = b.half_extents.x;
  const double by = b.half_extents.y;
  const double dist[4] = {dx, dy, c * dx + s * dy, c * dy - s * dx};
  const double rate[4] = {mx, my, c * mx + s * my, c * my - s * mx};
  const double radius[4] = {ax + bx * std::fabs(c) + by * std::fabs(s),
                            ay + bx * std::fabs(s) + by * std::fabs(c),
                            bx + ax * std::fabs(c) + ay * std::fabs(s),
                            by + ax * std::fabs(s) + ay * std::fabs(c)};
  BoxSweepSat out;
  for (int k = 0; k < 4; ++k) {
    out.lo[k] = -1e300;
    if (rate[k] == 0.0) {
      out.never |= std::fabs(dist[k]) > radius[k];
      continue;
    }
    const double t0 = (-radius[k] - dist[k]) / rate[k];
    const double t1 = (radius[k] - dist[k]) / rate[k];
    out.lo[k] = std::min(t0, t1);
    out.enter = std::max(out.enter, out.lo[k]);
    out.exit = std::min(out.exit, std::max(t0, t1));
  }
  return out;
}

// The box sweep divides on its four axes at once. Motions so slow that an
// axis's entry over its rate overflows float, zero rates on some axes, and
// rates near the float limit must raise no floating-point exception (this
// binary traps FE_OVERFLOW, FE_DIVBYZERO and FE_INVALID) and give the
// general sweep's outcome.
TEST(FastPath2d, SweepBoxBoxExtremeMotionsRaiseNoException) {
  const Box2 a{{1.0f, 0.5f}};
  const Box2 b{{0.5f, 0.25f}};
  BoxCaseGen gen(78u);
  for (int i = 0; i < 2000; ++i) {
    const Pose2 p{gen.gen().Point(4.0f),
                  i % 2 == 0 ? Rot2{} : Rot2::FromAngle(0.3f * i)};
    const float size = i % 3 == 0 ? 0.0f : (i % 3 == 1 ? 1e-38f : -2e38f);
    const Vec2 motion{size, i % 5 == 0 ? -size : 0.0f};
    const float tol = BoxTolerance(a, b, p);
    const SweepResult<2> fast = SweepBoxBox(a, b, p, motion);
    const SweepResult<2> ref =
        internal2d::SweepCores(BoxCore(a), CoreIn(Shape2{b}, p), motion, tol);
    EXPECT_EQ(fast.outcome, ref.outcome) << i;
  }
}

TEST(FastPath2d, SweepBoxBoxMatchesGeneralSweep) {
  BoxCaseGen gen(77u);
  int hits = 0;
  int started = 0;
  int boundary = 0;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const float scale_pick = gen.Scale();
    const Box2 a{gen.HalfExtents(scale_pick)};
    const Box2 b{gen.HalfExtents(scale_pick)};
    const Pose2 p = gen.Placement(a.half_extents, b.half_extents, scale_pick);
    // Motion: towards A, sideways, along an axis, or none.
    Vec2 motion = gen.gen().Point(3.0f * scale_pick) - 1.2f * p.position;
    const int motion_kind = gen.gen().Int(0, 9);
    if (motion_kind == 0) motion = {motion.x, 0.0f};
    if (motion_kind == 1) motion = Rotate(p.rotation, {0.0f, motion.y});
    if (motion_kind == 2) motion = {};
    const float tol = BoxTolerance(a, b, p);
    const float scale = tol / kTouchingRelativeTolerance;
    const SweepResult<2> fast = SweepBoxBox(a, b, p, motion);
    const SweepResult<2> ref =
        internal2d::SweepCores(BoxCore(a), CoreIn(Shape2{b}, p), motion, tol);
    const BoxSweepSat sat = BoxSweepIntervals(a, b, p, motion);
    // Times within this much of each other are equal up to round-off: a
    // few ulps of the scale, over the motion's length.
    const double speed = std::max(1e-30, static_cast<double>(Length(motion)));
    const double window_t = 1e-5 * scale / speed;
    const auto fail = [&](const char* what) {
      ++failures;
      ADD_FAILURE() << what << " case " << i << " ha (" << a.half_extents.x
                    << ", " << a.half_extents.y << ") hb (" << b.half_extents.x
                    << ", " << b.half_extents.y << ") d (" << p.position.x
                    << ", " << p.position.y << ") rot (" << p.rotation.c << ", "
                    << p.rotation.s << ") motion (" << motion.x << ", "
                    << motion.y << ") fast " << static_cast<int>(fast.outcome)
                    << " t " << fast.fraction << " n (" << fast.normal.x << ", "
                    << fast.normal.y << ") ref "
                    << static_cast<int>(ref.outcome) << " t " << ref.fraction
                    << " n (" << ref.normal.x << ", " << ref.normal.y
                    << ") enter " << sat.enter << " exit " << sat.exit;
    };
    if (fast.outcome != ref.outcome) {
      // Only next to a decision boundary: touching at t = 0, grazing
      // (entry = exit), or an impact at t = 1.
      const bool near_boundary =
          std::fabs(BoxSeparations(a, b, p).Max() - tol) <= 2e-6 * scale ||
          std::fabs(sat.exit - sat.enter) <= window_t ||
          std::fabs(sat.enter - 1.0) <= window_t ||
          std::fabs(sat.exit) <= window_t;
      if (!near_boundary) fail("outcomes differ");
      ++boundary;
      continue;
    }
    if (fast.outcome == SweepOutcome::kStartedOverlapping) {
      ++started;
      // The sweep builds the contact from its own separations, computed as
      // ContactBoxBox computes them: the same contact, bit for bit.
      const ContactResult<2> direct = ContactBoxBox(a, b, p);
      const ContactResult<2>& got = fast.initial;
      bool same =
          got.overlapping == direct.overlapping && got.depth == direct.depth &&
          got.normal.x == direct.normal.x && got.normal.y == direct.normal.y &&
          got.point_count == direct.point_count;
      for (int k = 0; same && k < got.point_count; ++k) {
        same = got.points[k].x == direct.points[k].x &&
               got.points[k].y == direct.points[k].y;
      }
      if (!same) fail("initial contact differs from ContactBoxBox");
      if (std::fabs(fast.initial.depth - ref.initial.depth) >
          0.1f * tol + 2e-6f * scale) {
        fail("initial depths differ");
      }
      continue;
    }
    if (fast.outcome != SweepOutcome::kHit) continue;
    ++hits;
    if (std::fabs(fast.fraction - ref.fraction) > window_t) {
      fail("fractions differ");
      continue;
    }
    if (!SameNormal(fast.normal, ref.normal)) {
      // Two axes entering at the same time: the fast path's axis must be
      // one of the latest entries.
      const Vec2 axes[4] = {{1.0f, 0.0f},
                            {0.0f, 1.0f},
                            Rotate(p.rotation, {1.0f, 0.0f}),
                            Rotate(p.rotation, {0.0f, 1.0f})};
      bool tied = false;
      for (int k = 0; k < 4; ++k) {
        tied |= std::fabs(Dot(fast.normal, axes[k])) > 1.0f - 1e-6f &&
                sat.lo[k] >= sat.enter - window_t;
      }
      if (!tied) fail("normals differ");
    }
    // With the same entering axis, the same contact point as the general
    // sweep (the midpoint of the features' overlap on the reference face),
    // unless the boxes are nearly but not exactly parallel: then whether
    // the incident feature is a vertex or an edge is decided within the
    // tolerance, differently by the two paths' round-off, and both points
    // are right (on both surfaces, checked below).
    const float skew =
        std::min(std::fabs(p.rotation.c), std::fabs(p.rotation.s));
    const bool nearly_parallel = skew > 0.0f && skew < 1e-3f;
    if (SameNormal(fast.normal, ref.normal) && !nearly_parallel &&
        Length(fast.point - ref.point) > 10.0f * tol) {
      fail("impact points differ");
    }
    // The impact point lies on both surfaces at the time of impact.
    const Vec2 q = fast.point;
    const Pose2 at_t{p.position + fast.fraction * motion, p.rotation};
    if (std::fabs(test2d::SignedDistance(Shape2{a}, q)) > 10.0f * tol ||
        std::fabs(test2d::SignedDistance(Shape2{b}, InvTransform(at_t, q))) >
            10.0f * tol) {
      fail("impact point not on both surfaces");
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(hits, kCases / 10);
  EXPECT_GT(started, kCases / 10);
  EXPECT_LT(boundary, kCases / 1000);
}

// RayCastPolygon rejects by the bounding disc before clipping; the general
// path (RayCastCore on the polygon's core) always clips. Same clipping code
// after the reject, so the answers must be identical. Rays: random, aimed at
// a vertex (grazing), tangent to the bounding disc, starting within the
// tolerance of a vertex, too short to arrive.
TEST(FastPath2d, RayCastPolygonMatchesGeneralRayCast) {
  test2d::ShapeGen gen(91u);
  int hits = 0;
  int inside = 0;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const float scale = gen.Int(0, 5) == 0 ? 1e3f : 1.0f;
    const ConvexPolygon polygon = gen.Polygon(gen.Int(3, 16));
    const ConvexPolygon& shape = polygon;
    Vec2 origin = scale * gen.Point(4.0f);
    const Vec2 vertex = polygon.vertex(gen.Int(0, polygon.count() - 1));
    Vec2 target = gen.Point(3.0f);
    switch (gen.Int(0, 5)) {
      case 0:
        target = vertex;
        break;
      case 1: {  // Tangent to the bounding disc.
        const Vec2 c = polygon.centroid();
        const Vec2 out = origin - c;
        target = c + polygon.bounding_radius() * NormalizeOrZero(LeftPerp(out));
        break;
      }
      case 2:  // Starts within the tolerance of a vertex.
        origin = vertex + 3e-6f * gen.Direction();
        break;
      default:
        break;
    }
    const Vec2 dir = NormalizeOrZero(target - origin);
    if (dir.x == 0.0f && dir.y == 0.0f) continue;
    const float reach = Length(target - origin);
    const Ray<2> ray{origin, dir,
                     gen.Int(0, 3) == 0 ? 0.5f * reach : 2.0f * reach + 1.0f};
    const RayResult<2> fast = RayCastPolygon(shape, ray);
    Core core;
    internal2d::MakePolygonCore(polygon, core);
    const RayResult<2> ref = internal2d::RayCastCore(core, ray);
    hits += fast.hit ? 1 : 0;
    inside += fast.started_inside ? 1 : 0;
    if (fast.hit != ref.hit || fast.started_inside != ref.started_inside ||
        fast.distance != ref.distance || fast.feature != ref.feature ||
        fast.normal.x != ref.normal.x || fast.normal.y != ref.normal.y) {
      ++failures;
      ADD_FAILURE() << "case " << i << " origin (" << origin.x << ", "
                    << origin.y << ") dir (" << dir.x << ", " << dir.y
                    << ") max " << ray.max_distance << " fast " << fast.hit
                    << " " << fast.distance << " ref " << ref.hit << " "
                    << ref.distance;
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(hits, kCases / 5);
  EXPECT_GT(inside, kCases / 100);
}

// ContactPolygons keeps polygons of at most 8 vertices in SIMD registers
// (ContactSmallPolygons, sat2d.cc) and claims the very floats of the core
// path it replaces (two cores, TransformCore, ContactSat), operation for
// operation. Checked bit for bit on polygons of 3 to 8 vertices, posed at
// random, at quarter turns and half-integer offsets (ties between axes and
// vertices), nearly touching and deeply overlapping, at scales 1e-3 to 1e3.
// Both register versions are checked whichever one ContactPolygons picks
// on this machine: the SSE2 one, and the AVX one (eight lanes per
// instruction, chosen at run time when the CPU has AVX) where the CPU
// runs it; the two must also agree with each other in every bit.
TEST(FastPath2d, ContactSmallPolygonsMatchesCorePathExactly) {
  test2d::ShapeGen gen(97u);
  int overlapping = 0;
  int failures = 0;
  const bool avx = internal2d::SmallPolygonsUseAvx();
  const auto same = [](const ContactResult<2>& x, const ContactResult<2>& y) {
    bool equal = x.overlapping == y.overlapping && x.depth == y.depth &&
                 x.normal.x == y.normal.x && x.normal.y == y.normal.y &&
                 x.point_count == y.point_count;
    for (int k = 0; equal && k < y.point_count; ++k) {
      equal = x.points[k].x == y.points[k].x && x.points[k].y == y.points[k].y;
    }
    return equal;
  };
  const auto bits = [](const ContactResult<2>& r) {
    std::vector<std::uint32_t> w = {static_cast<std::uint32_t>(r.overlapping),
                                    std::bit_cast<std::uint32_t>(r.depth),
                                    std::bit_cast<std::uint32_t>(r.normal.x),
                                    std::bit_cast<std::uint32_t>(r.normal.y),
                                    static_cast<std::uint32_t>(r.point_count)};
    for (int k = 0; k < r.point_count; ++k) {
      w.push_back(std::bit_cast<std::uint32_t>(r.points[k].x));
      w.push_back(std::bit_cast<std::uint32_t>(r.points[k].y));
    }
    return w;
  };
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const float scale =
        gen.Int(0, 5) == 0 ? 1e3f : (gen.Int(0, 4) == 0 ? 1e-3f : 1.0f);
    const ConvexPolygon a = gen.Polygon(gen.Int(3, 8));
    const ConvexPolygon b = gen.Polygon(gen.Int(3, 8));
    Pose2 pose;
    switch (gen.Int(0, 3)) {
      case 0: {  // Quarter turns at half-integer offsets: exact ties.
        static constexpr Rot2 kQuarter[4] = {
            {1.0f, 0.0f}, {0.0f, 1.0f}, {-1.0f, 0.0f}, {0.0f, -1.0f}};
        pose = {{0.5f * static_cast<float>(gen.Int(-6, 6)),
                 0.5f * static_cast<float>(gen.Int(-6, 6))},
                kQuarter[gen.Int(0, 3)]};
        break;
      }
      case 1:  // Deep.
        pose = gen.RandomPose(0.2f);
        break;
      default:
        pose = gen.RandomPose(3.0f);
        break;
    }
    std::vector<Vec2> pa;
    std::vector<Vec2> pb;
    for (int k = 0; k < a.count(); ++k) pa.push_back(scale * a.vertex(k));
    for (int k = 0; k < b.count(); ++k) pb.push_back(scale * b.vertex(k));
    const ConvexPolygon sa = *MakeConvexPolygon(pa);
    const ConvexPolygon sb = *MakeConvexPolygon(pb);
    pose.position = scale * pose.position;
    ASSERT_TRUE(internal2d::FitsSmallPolygons(sa, sb, pose));
    Core ca;
    Core cb;
    internal2d::MakePolygonCore(sa, ca);
    internal2d::MakePolygonCore(sb, cb);
    internal2d::TransformCore(pose, cb);
    const float tolerance = internal2d::PairTolerance(ca, cb, pose);
    const ContactResult<2> ref = internal2d::ContactSat(ca, cb, tolerance);
    overlapping += ref.overlapping ? 1 : 0;
    const ContactResult<2> fast = ContactPolygons(sa, sb, pose);
    const ContactResult<2> sse2 =
        internal2d::ContactSmallPolygons(sa, sb, pose, tolerance);
    bool ok = same(fast, ref) && same(sse2, ref);
    if (avx) {
      const ContactResult<2> wide =
          internal2d::ContactSmallPolygonsAvx(sa, sb, pose, tolerance);
      ok = ok && same(wide, ref) && bits(wide) == bits(sse2);
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "case " << i << " counts " << sa.count() << ", "
                    << sb.count() << " pose (" << pose.position.x << ", "
                    << pose.position.y << ") rot (" << pose.rotation.c << ", "
                    << pose.rotation.s << ") fast n (" << fast.normal.x << ", "
                    << fast.normal.y << ") depth " << fast.depth << " count "
                    << fast.point_count << " sse2 depth " << sse2.depth
                    << " ref n (" << ref.normal.x << ", " << ref.normal.y
                    << ") depth " << ref.depth << " count " << ref.point_count;
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(overlapping, kCases / 5);
  EXPECT_LT(overlapping, kCases - kCases / 5);
}

}  // namespace
}  // namespace sator
