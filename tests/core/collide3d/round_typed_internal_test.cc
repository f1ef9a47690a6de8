// White box: the typed Contact and Overlap paths of the round pairs
// (sphere-capsule and capsule-capsule viewed in place; sphere-box and
// capsule-box in the box's frame, round_box.cc) against the generic path
// they replace (internal::ContactGeneric / OverlapGeneric, PolyData and
// ContactRound), on seeded random pairs in both orders: random shapes and
// poses, coordinates near 1e4, zero-length capsules, and the hard families
// of round_contact_test (long nearly parallel capsules, a sphere centre
// near a capsule's axis, a long capsule 1e-9 to 1e-4 of r from a long box's
// edge or crossing it, a sphere centre near a box's face, edge or corner).
//
// Sphere and capsule pairs run the generic ContactRound on the same floats:
// every field must be equal bit for bit, and Overlap's verdict too. With a
// box the typed path works in the box's frame and finds the closest points
// another way. Given the same floats (the generic path with the box as A
// and the round shape placed by MulT(box pose, round pose)): the depth
// within 4 FLT_EPSILON x M (M the largest coordinate of the shapes'
// defining points in the box's frame, and the radius), the overlap along
// the typed normal, in double from the shapes' support functions, at most
// the depth plus that, the normal the generic one or as good (the overlap
// along the two within the tolerance), the contact point inside both shapes
// grown by depth / 2 plus the tolerance, and the same Overlap verdict away
// from touching. Against the generic path as Contact ran it with the round
// shape as A (in the round shape's frame, whose floats differ from the box
// frame's by the frame change's rounding): the depth within 8 FLT_EPSILON x
// M_world; for a sphere, the typed depth within 4 of the exact one (r minus
// the centre's signed distance from the box, in double from the world
// floats), where the generic path is off by up to 11.5.
//
// Every pair with a box is also checked in the box's frame against an exact
// reference in long double (BoxRoundReference, from the definitions): cores
// crossing, r plus the least overlap over the box's 3 face normals and the
// segment crossed with the box's 3 edge directions; cores apart, r minus
// the segment-box distance, by golden-section search on the convex squared
// distance along the segment. The typed depth within 4 FLT_EPSILON x M of
// it and the overlap along the typed normal at most the depth plus that.
// Families for the reference: segments exactly parallel to a face or an
// axis, 0 or 1e-9 to 1 off the face's plane; segment ends exactly on
// corners, edges or faces (also along an edge or a diagonal); capsules 1e4
// long against boxes 1e-3 across; zero-length capsules. (Dropping the
// segment x edge axes from the typed SAT fails 17294 of the first 110000.)
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <variant>

#include "collide3d/round_typed.h"
#include "core/collide3d/double_reference3d.h"
#include "core/collide3d/same_bits3d.h"
#include "core/collide3d/seeded_family3d.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/shape3d.h"

namespace sator {
namespace {

using testing::SameBits;

using test3d::DistanceToSegment;
using test3d::DotD;
using test3d::Dv;
using test3d::Family;
using test3d::LenD;
using test3d::ToDv;

// v rotated by the float quaternion q, in double (Rotate's formula).
Dv RotateD(Quat q, Dv v) {
  const Dv u{q.x, q.y, q.z};
  const Dv t = 2.0 * test3d::CrossD(u, v);
  return v + static_cast<double>(q.w) * t + test3d::CrossD(u, t);
}

// A shape placed in the world, in double, for the support function, the
// signed distance of a point and the magnitude of its defining points.
struct Placed {
  const ConvexShape3* shape;
  Pose3 pose;
  Dv At(Vec3 local) const {
    return RotateD(pose.rotation, ToDv(local)) + ToDv(pose.position);
  }
  // max over the shape of n . x.
  double Support(Dv n) const {
    if (const auto* s = std::get_if<Sphere>(shape)) {
      return DotD(At({}), n) + s->radius;
    }
    if (const auto* c = std::get_if<Capsule3>(shape)) {
      return std::max(DotD(At(c->a), n), DotD(At(c->b), n)) + c->radius;
    }
    const Vec3 h = std::get<Box3>(*shape).half_extents;
    double best = -3e300;
    for (int k = 0; k < 8; ++k) {
      const Vec3 corner{(k & 1) ? h.x : -h.x, (k & 2) ? h.y : -h.y,
                        (k & 4) ? h.z : -h.z};
      best = std::max(best, DotD(At(corner), n));
    }
    return best;
  }
  // Signed distance of x from the surface (negative inside).
  double SignedDistance(Dv x) const {
    if (const auto* s = std::get_if<Sphere>(shape)) {
      return LenD(x - At({})) - s->radius;
    }
    if (const auto* c = std::get_if<Capsule3>(shape)) {
      return DistanceToSegment(x, At(c->a), At(c->b)) - c->radius;
    }
    const Vec3 h = std::get<Box3>(*shape).half_extents;
    const Dv local = RotateD(Conjugate(pose.rotation), x - ToDv(pose.position));
    const double l[3] = {local.x, local.y, local.z};
    const double hh[3] = {h.x, h.y, h.z};
    double outside = 0.0;
    double inside = 3e300;
    for (int i = 0; i < 3; ++i) {
      const double e = std::fabs(l[i]) - hh[i];
      if (e > 0.0) outside += e * e;
      inside = std::min(inside, -e);
    }
    return outside > 0.0 ? std::sqrt(outside) : -inside;
  }
  double Magnitude() const {
    double m = 0.0;
    const auto take = [&m](Dv p) {
      m = std::max({m, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
    };
    if (const auto* s = std::get_if<Sphere>(shape)) {
      take(At({}));
      m = std::max(m, static_cast<double>(s->radius));
    } else if (const auto* c = std::get_if<Capsule3>(shape)) {
      take(At(c->a));
      take(At(c->b));
      m = std::max(m, static_cast<double>(c->radius));
    } else {
      const Vec3 h = std::get<Box3>(*shape).half_extents;
      for (int k = 0; k < 8; ++k) {
        take(At({(k & 1) ? h.x : -h.x, (k & 2) ? h.y : -h.y,
                 (k & 4) ? h.z : -h.z}));
      }
    }
    return m;
  }
};

// The exact answer for a point or segment core [p, q] of radius r against
// the box [-h, h], in long double from the floats the typed path reads,
// written from the definitions (independent of round_box.cc):
//   cores apart: r minus their distance, the least over the segment of the
//     point-box distance (the excess of each coordinate beyond [-h_i, h_i]),
//     a convex function of the segment's parameter, minimised by golden
//     section;
//   cores crossing: r plus their penetration depth, the least overlap over
//     the faces of their Minkowski difference, whose normals are the box's 3
//     face normals and the segment crossed with the box's 3 edge directions
//     (the face normals only for a point).
using Ld = long double;

struct LdCore {
  Ld h[3];
  Ld p[3];
  Ld q[3];
};

LdCore ToLdCore(Vec3 h, Vec3 p, Vec3 q) {
  return {{h.x, h.y, h.z}, {p.x, p.y, p.z}, {q.x, q.y, q.z}};
}

// The squared distance from the segment's point at t to the box.
Ld SquaredDistanceAt(const LdCore& c, Ld t) {
  Ld f = 0.0L;
  for (int i = 0; i < 3; ++i) {
    const Ld x = c.p[i] + t * (c.q[i] - c.p[i]);
    const Ld e = std::fabs(x) - c.h[i];
    if (e > 0.0L) f += e * e;
  }
  return f;
}

Ld SegmentBoxDistance(const LdCore& c) {
  const Ld phi = (std::sqrt(5.0L) - 1.0L) / 2.0L;
  Ld lo = 0.0L;
  Ld hi = 1.0L;
  Ld x1 = hi - phi * (hi - lo);
  Ld x2 = lo + phi * (hi - lo);
  Ld f1 = SquaredDistanceAt(c, x1);
  Ld f2 = SquaredDistanceAt(c, x2);
  Ld best = std::min(
      {SquaredDistanceAt(c, 0.0L), SquaredDistanceAt(c, 1.0L), f1, f2});
  for (int k = 0; k < 100 && best > 0.0L; ++k) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - phi * (hi - lo);
      f1 = SquaredDistanceAt(c, x1);
      best = std::min(best, f1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + phi * (hi - lo);
      f2 = SquaredDistanceAt(c, x2);
      best = std::min(best, f2);
    }
  }
  return std::sqrt(best);
}

// The overlap of the box and the round shape along unit u (the box's
// highest point along u minus the round shape's lowest).
Ld OverlapAlong(const LdCore& c, Ld r, const Ld u[3]) {
  Ld box_hi = 0.0L;
  Ld dp = 0.0L;
  Ld dq = 0.0L;
  for (int i = 0; i < 3; ++i) {
    box_hi += std::fabs(u[i]) * c.h[i];
    dp += u[i] * c.p[i];
    dq += u[i] * c.q[i];
  }
  return box_hi - (std::min(dp, dq) - r);
}

// The cores' penetration depth (their Minkowski difference's SAT).
Ld CorePenetration(const LdCore& c) {
  Ld best = 3e300L;
  const auto measure = [&](Ld ux, Ld uy, Ld uz) {
    const Ld len = std::sqrt(ux * ux + uy * uy + uz * uz);
    if (!(len > 0.0L)) return;
    const Ld u[3] = {ux / len, uy / len, uz / len};
    const Ld neg[3] = {-u[0], -u[1], -u[2]};
    // Overlap of the cores (r = 0) along u and along -u.
    best =
        std::min({best, OverlapAlong(c, 0.0L, u), OverlapAlong(c, 0.0L, neg)});
  };
  measure(1.0L, 0.0L, 0.0L);
  measure(0.0L, 1.0L, 0.0L);
  measure(0.0L, 0.0L, 1.0L);
  const Ld d[3] = {c.q[0] - c.p[0], c.q[1] - c.p[1], c.q[2] - c.p[2]};
  measure(0.0L, d[2], -d[1]);  // d x (1, 0, 0).
  measure(-d[2], 0.0L, d[0]);  // d x (0, 1, 0).
  measure(d[1], -d[0], 0.0L);  // d x (0, 0, 1).
  return best;
}

// The exact depth of a point (q == p) or segment core of radius r against
// the box [-h, h].
Ld BoxRoundReference(Vec3 h, Vec3 p, Vec3 q, float radius) {
  const LdCore c = ToLdCore(h, p, q);
  const Ld distance = SegmentBoxDistance(c);
  if (distance > 0.0L) return radius - distance;
  return radius + CorePenetration(c);
}

struct Tally {
  int cases = 0;
  int overlapping = 0;
  int failures = 0;
  int normals_apart = 0;  // |n_typed - n_generic| > 1e-4 (ties).
  // The overlap along the generic normal more than the tolerance above the
  // overlap along the typed one.
  int generic_normal_worse = 0;
  // The overlap along the generic normal minus the generic depth.
  double worst_generic_along = 0.0;
  double worst_depth = 0.0;
  double worst_along = 0.0;
  double worst_cross = 0.0;  // Against the generic path in A's frame.
  // Sphere-box: both paths against r minus the centre's signed distance
  // from the box, in double from the world floats.
  double worst_generic_exact = 0.0;
  double worst_typed_exact = 0.0;
  // Against the long double reference (BoxRoundReference), in the box's
  // frame: the typed depth and the overlap along the typed normal.
  int reference_cases = 0;
  int reference_failures = 0;
  double worst_reference_depth = 0.0;
  double worst_reference_along = 0.0;
};

// The pair (a, b) and (b, a) through Contact and Overlap against the
// generic path.
void Check(const ConvexShape3& a, const Pose3& pa, const ConvexShape3& b,
           const Pose3& pb, Tally* tally, int i) {
  for (int order = 0; order < 2; ++order) {
    const ConvexShape3& x = order == 0 ? a : b;
    const ConvexShape3& y = order == 0 ? b : a;
    const Pose3& px = order == 0 ? pa : pb;
    const Pose3& py = order == 0 ? pb : pa;
    const Pose3 y_in_x = MulT(px, py);
    const ContactResult<3> typed = Contact(x, px, y, py);
    const ContactResult<3> generic =
        ToWorld(internal::ContactGeneric(x, y, y_in_x), px);
    const bool overlap_typed = Overlap(x, px, y, py);
    const bool overlap_generic = internal::OverlapGeneric(x, y, y_in_x);
    ++tally->cases;
    tally->overlapping += generic.overlapping;
    const bool with_box =
        KindOf(x) == ShapeKind3::kBox || KindOf(y) == ShapeKind3::kBox;
    if (!with_box) {
      if (!SameBits(typed, generic) || overlap_typed != overlap_generic) {
        if (++tally->failures <= 5) {
          ADD_FAILURE() << "case " << i << " order " << order
                        << ": not the generic answer: depth " << typed.depth
                        << " against " << generic.depth;
        }
      }
      continue;
    }
    // With a box: in the box's frame, the typed path (ContactBoxRoundLocal,
    // which Contact runs and maps to the world) against the generic path
    // given the same floats (the box as A, the round shape placed by
    // MulT(box pose, round pose), as Contact placed B when the box was A).
    const bool box_first = KindOf(x) == ShapeKind3::kBox;
    const ConvexShape3& box_shape = box_first ? x : y;
    const ConvexShape3& round_shape = box_first ? y : x;
    const Pose3& box_pose = box_first ? px : py;
    const Pose3& round_pose = box_first ? py : px;
    const Pose3 r_in_box = MulT(box_pose, round_pose);
    const Vec3 h = std::get<Box3>(box_shape).half_extents;
    Vec3 p = Transform(r_in_box, Vec3{});
    Vec3 q = p;
    float radius = 0.0f;
    bool segment = false;
    if (const auto* c = std::get_if<Capsule3>(&round_shape)) {
      p = Transform(r_in_box, c->a);
      q = Transform(r_in_box, c->b);
      segment = !(c->a == c->b);
      radius = c->radius;
    } else {
      radius = std::get<Sphere>(round_shape).radius;
    }
    const ContactResult<3> local =
        internal::ContactBoxRoundLocal(h, p, q, segment, radius);
    const ContactResult<3> same_frame =
        internal::ContactGeneric(box_shape, round_shape, r_in_box);
    const ContactResult<3> mapped =
        box_first ? ToWorld(local, px) : ToWorld(Flip(local), py);
    // The round shape as the floats both paths read, in the box's frame.
    const ConvexShape3 round_local =
        ConvexShape3{Capsule3{p, segment ? q : p, radius}};
    const Placed sb{&box_shape, Pose3{}};
    const Placed sr{&round_local, Pose3{}};
    const double unit = FLT_EPSILON * std::max(sb.Magnitude(), sr.Magnitude());
    const double tol = 4.0 * unit;
    // The overlap along a unit normal from the box to the round shape.
    const auto along = [&](Vec3 n) {
      const Dv u = (1.0 / LenD(ToDv(n))) * ToDv(n);
      return sb.Support(u) + sr.Support(-1.0 * u);
    };
    const double depth_error =
        std::fabs(static_cast<double>(local.depth) - same_frame.depth);
    const double along_error = along(local.normal) - local.depth;
    // The typed normal as good as the generic one: the overlap along it at
    // most the overlap along the generic normal plus the tolerance (both are
    // held to the tolerance on the reference families: see
    // docs/core/collide3d.md).
    const double normal_lead = along(same_frame.normal) - along(local.normal);
    const bool same_normal = normal_lead >= -tol;
    tally->generic_normal_worse += normal_lead > tol;
    tally->worst_generic_along =
        std::max(tally->worst_generic_along,
                 (along(same_frame.normal) - same_frame.depth) / unit);
    tally->normals_apart += LenD(ToDv(local.normal - same_frame.normal)) > 1e-4;
    tally->worst_depth = std::max(tally->worst_depth, depth_error / unit);
    // Against the exact reference, in the box's frame.
    {
      const Ld exact = BoxRoundReference(h, p, segment ? q : p, radius);
      const Vec3 n = local.normal;
      const Ld len =
          std::sqrt(static_cast<Ld>(n.x) * n.x + static_cast<Ld>(n.y) * n.y +
                    static_cast<Ld>(n.z) * n.z);
      const Ld u[3] = {n.x / len, n.y / len, n.z / len};
      const Ld along_exact =
          OverlapAlong(ToLdCore(h, p, segment ? q : p), radius, u);
      const auto depth_off =
          static_cast<double>(std::fabs(local.depth - exact));
      const auto along_off = static_cast<double>(along_exact - local.depth);
      ++tally->reference_cases;
      tally->worst_reference_depth =
          std::max(tally->worst_reference_depth, depth_off / unit);
      tally->worst_reference_along =
          std::max(tally->worst_reference_along, along_off / unit);
      if (depth_off > tol || along_off > tol) {
        if (++tally->reference_failures <= 5) {
          ADD_FAILURE() << "case " << i << " order " << order
                        << ": against the exact reference: depth "
                        << local.depth << " (exact "
                        << static_cast<double>(exact)
                        << "), overlap along the normal "
                        << static_cast<double>(along_exact) << ", tolerance "
                        << tol << "; h " << h.x << " " << h.y << " " << h.z
                        << ", p " << p.x << " " << p.y << " " << p.z << ", q "
                        << q.x << " " << q.y << " " << q.z << ", r " << radius;
        }
      }
    }
    tally->worst_along = std::max(tally->worst_along, along_error / unit);
    bool point_ok = local.overlapping == (local.point_count == 1);
    if (local.point_count == 1) {
      const Dv pt = ToDv(local.points[0]);
      const double slack = 0.5 * local.depth + tol;
      point_ok = point_ok && sb.SignedDistance(pt) <= slack &&
                 sr.SignedDistance(pt) <= slack;
    }
    const bool overlap_ok =
        std::fabs(same_frame.depth) <= tol ||
        (overlap_typed ==
             internal::OverlapGeneric(box_shape, round_shape, r_in_box) &&
         local.overlapping == same_frame.overlapping);
    // Against the generic path as Contact ran it (in A's frame): the two
    // frames' inputs differ by the rounding of the frame change, up to a
    // few FLT_EPSILON x M for each, so twice the tolerance.
    const double world_unit =
        FLT_EPSILON *
        std::max(Placed{&x, px}.Magnitude(), Placed{&y, py}.Magnitude());
    const double cross_error =
        std::fabs(static_cast<double>(typed.depth) - generic.depth);
    tally->worst_cross = std::max(tally->worst_cross, cross_error / world_unit);
    const bool dispatch_ok = SameBits(typed, mapped);
    bool exact_ok = true;
    if (std::holds_alternative<Sphere>(round_shape)) {
      const Placed box_world{&box_shape, box_pose};
      const double exact =
          radius - box_world.SignedDistance(ToDv(round_pose.position));
      const double typed_exact = std::fabs(typed.depth - exact) / world_unit;
      tally->worst_typed_exact =
          std::max(tally->worst_typed_exact, typed_exact);
      tally->worst_generic_exact =
          std::max(tally->worst_generic_exact,
                   std::fabs(generic.depth - exact) / world_unit);
      exact_ok = typed_exact <= 4.0;
    }
    if (depth_error > tol || along_error > tol || !same_normal || !point_ok ||
        !overlap_ok || !dispatch_ok || !exact_ok ||
        (segment && cross_error > 8.0 * world_unit)) {
      if (++tally->failures <= 5) {
        ADD_FAILURE() << "case " << i << " order " << order << ": depth "
                      << local.depth << " (generic " << same_frame.depth
                      << "), overlap along the normal " << along(local.normal)
                      << " (generic's " << along(same_frame.normal)
                      << "), tolerance " << tol << (point_ok ? "" : ", point")
                      << (overlap_ok ? "" : ", Overlap")
                      << (dispatch_ok ? "" : ", dispatch") << ", against "
                      << "Contact's generic path " << cross_error / world_unit
                      << " FLT_EPSILON x M";
      }
    }
  }
}

void Report(const char* name, const Tally& t) {
  if (t.reference_cases > 0) {
    std::printf(
        "%s: %d cases against the exact reference, %d failures, worst depth "
        "%.2f, worst overlap along the normal %.2f (FLT_EPSILON x M)\n",
        name, t.reference_cases, t.reference_failures, t.worst_reference_depth,
        t.worst_reference_along);
  }
  std::printf(
      "%s: %d cases, %d overlapping, %d failures, %d normals apart (ties), "
      "%d generic normals worse than the typed by more than the tolerance "
      "(the generic overlap along its normal up to %.2f above its depth), "
      "worst depth %.2f, worst overlap along the normal %.2f, against "
      "Contact's generic path %.2f, generic against the exact depth %.2f, "
      "typed %.2f (FLT_EPSILON x M)\n",
      name, t.cases, t.overlapping, t.failures, t.normals_apart,
      t.generic_normal_worse, t.worst_generic_along, t.worst_depth,
      t.worst_along, t.worst_cross, t.worst_generic_exact, t.worst_typed_exact);
}

Quat RandomRotation(Family& f) {
  // One draw a statement: the order of a call's arguments is unspecified.
  const Vec3 axis = f.Unit();
  const float angle = f.U(0.0f, 6.2831855f);
  return Quat::FromAxisAngle(axis, angle);
}

Capsule3 RandomCapsule(Family& f, int i) {
  const float half_length = f.U(0.1f, 1.0f);
  const Vec3 d = half_length * f.Unit();
  const float r = f.U(0.05f, 0.6f);
  if (i % 10 == 0) {
    // Zero length, at the origin or off it.
    const float offset = i % 20 == 0 ? 0.0f : f.U(0.0f, 0.5f);
    const Vec3 c = i % 20 == 0 ? Vec3{} : offset * f.Unit();
    return {c, c, r};
  }
  return {-1.0f * d, d, r};
}

Box3 RandomBox(Family& f) {
  return {{f.U(0.05f, 1.5f), f.U(0.05f, 1.5f), f.U(0.05f, 1.5f)}};
}

// Random poses near the origin (or, every third case, near 1e4), B within
// reach of A.
void RandomPoses(Family& f, int i, Pose3* pa, Pose3* pb) {
  const float far = i % 3 == 0 ? 1e4f : 10.0f;
  pa->position = {f.U(-far, far), f.U(-far, far), f.U(-far, far)};
  pa->rotation = RandomRotation(f);
  const float distance = f.U(0.0f, 2.5f);
  pb->position = pa->position + distance * f.Unit();
  pb->rotation = RandomRotation(f);
}

template <typename MakeA, typename MakeB>
void RandomFamily(unsigned seed, int count, MakeA make_a, MakeB make_b,
                  Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const ConvexShape3 a = make_a(f, i);
    const ConvexShape3 b = make_b(f, i);
    Pose3 pa;
    Pose3 pb;
    RandomPoses(f, i, &pa, &pb);
    Check(a, pa, b, pb, tally, i);
  }
}

// A capsule nearly parallel to a long box's edge (along the box's x), its
// segment 1e-9 to 1e-4 of r from the edge (outside it), crossing it, or
// r - 1e-7..1e-3 from it; the box rotated and placed up to 1e3 away.
void CapsuleAlongBoxEdge(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const float len = f.LogU(1.0f, 3.0f);
    const Vec3 h{0.5f * len * f.U(0.5f, 1.5f), f.LogU(-1.0f, 0.5f),
                 f.LogU(-1.0f, 0.5f)};
    const float r = f.LogU(-2.0f, -0.3f);
    float offset = r * f.LogU(-9.0f, -4.0f);
    if (i % 8 == 0) offset = 0.0f;
    if (i % 8 == 1) offset = -offset;  // Crossing into the box.
    if (i % 8 == 2) offset = r - f.LogU(-7.0f, -3.0f);
    // Out of the edge (y = h.y, z = h.z) within its normal cone, or out of
    // the +z face.
    const float angle = i % 3 == 0 ? 1.5707964f : f.U(0.1f, 1.47f);
    const Vec3 out{0.0f, std::cos(angle), std::sin(angle)};
    Vec3 mid{f.U(-0.4f, 0.4f) * h.x, i % 3 == 0 ? f.U(-0.9f, 0.9f) * h.y : h.y,
             h.z};
    mid = mid + offset * out;
    const float theta = i % 4 == 0 ? 0.0f : f.LogU(-7.0f, -2.0f);
    const float phi = f.U(0.0f, 6.2831855f);
    const Vec3 dir{std::cos(theta), std::sin(theta) * std::cos(phi),
                   std::sin(theta) * std::sin(phi)};
    const float half = 0.5f * len * f.U(0.5f, 1.5f);
    const Capsule3 capsule{mid - half * dir, mid + half * dir, r};
    const float box_distance = i % 2 == 0 ? 0.0f : f.LogU(0.0f, 3.0f);
    const Vec3 box_centre = box_distance * f.Unit();
    const Pose3 box_pose{box_centre, i % 4 < 2 ? Quat{} : RandomRotation(f)};
    // The capsule is given in the box's frame; A's pose is the box's.
    Check(ConvexShape3{capsule}, box_pose, ConvexShape3{Box3{h}}, box_pose,
          tally, i);
  }
}

// A sphere centred 1e-9 to 1e-1 of the box's size off a face, an edge or a
// corner (outside or inside), radii 1e-3 to 1 of the size or about the
// offset.
void SphereNearBoxFeature(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const float size = f.LogU(-1.0f, 2.0f);
    const Vec3 h{size * f.U(0.2f, 1.0f), size * f.U(0.2f, 1.0f),
                 size * f.U(0.2f, 1.0f)};
    // Feature: face (+z), edge (+y, +z) or corner.
    Vec3 on{f.U(-0.9f, 0.9f) * h.x, f.U(-0.9f, 0.9f) * h.y, h.z};
    if (i % 3 == 1) on = {f.U(-0.9f, 0.9f) * h.x, h.y, h.z};
    if (i % 3 == 2) on = h;
    const Vec3 dir = NormalizeOrZero(Vec3{i % 3 == 2 ? f.U(0.05f, 1.0f) : 0.0f,
                                          i % 3 >= 1 ? f.U(0.05f, 1.0f) : 0.0f,
                                          f.U(0.05f, 1.0f)});
    float offset = size * f.LogU(-9.0f, -1.0f);
    if (i % 4 == 0) offset = -offset;
    const Vec3 centre = on + offset * dir;
    const float radius =
        i % 2 == 0 ? size * f.LogU(-3.0f, 0.0f)
                   : std::fabs(offset) * f.U(0.9f, 1.1f) + 1e-6f * size;
    const float box_distance = i % 2 == 0 ? 0.0f : f.LogU(0.0f, 4.0f);
    const Vec3 box_centre = box_distance * f.Unit();
    const Pose3 box_pose{box_centre, i % 4 < 2 ? Quat{} : RandomRotation(f)};
    const Pose3 sphere_pose{Transform(box_pose, centre), RandomRotation(f)};
    Check(ConvexShape3{Sphere{radius}}, sphere_pose, ConvexShape3{Box3{h}},
          box_pose, tally, i);
  }
}

// The exact-reference families of capsule-box, the capsule given in the
// box's frame. The box at the origin unrotated (the capsule's floats then
// exact in the box's frame: ends exactly on its features) or, every other
// case, rotated and placed up to 1e3 away.
Pose3 FamilyBoxPose(Family& f, int i) {
  if (i % 2 == 0) return Pose3{};
  const float distance = f.LogU(0.0f, 3.0f);
  const Vec3 centre = distance * f.Unit();
  return Pose3{centre, RandomRotation(f)};
}

float RandomSign(Family& f) { return f.U(0.0f, 1.0f) < 0.5f ? -1.0f : 1.0f; }

Vec3 FromArray(const float c[3]) { return {c[0], c[1], c[2]}; }

// An offset from a face's plane: 0, or 1e-9 to 1 outwards or inwards.
float FaceOffset(Family& f) {
  const float pick = f.U(0.0f, 1.0f);
  if (pick < 0.2f) return 0.0f;
  const float offset = f.LogU(-9.0f, 0.0f);
  return pick < 0.6f ? -offset : offset;
}

// A point exactly on a corner (free = 0), an edge (1) or a face (2) of the
// box [-h, h].
Vec3 OnFeature(Family& f, Vec3 h, int free) {
  const float hh[3] = {h.x, h.y, h.z};
  float c[3];
  for (int k = 0; k < 3; ++k) c[k] = RandomSign(f) * hh[k];
  const int first = static_cast<int>(f.U(0.0f, 2.999f));
  for (int m = 0; m < free; ++m) {
    const int k = (first + m) % 3;
    c[k] = f.U(-1.0f, 1.0f) * hh[k];
  }
  return FromArray(c);
}

void CheckCapsuleInBoxFrame(Family& f, const Capsule3& capsule, Vec3 h, int i,
                            Tally* tally) {
  const Pose3 box_pose = FamilyBoxPose(f, i);
  Check(ConvexShape3{capsule}, box_pose, ConvexShape3{Box3{h}}, box_pose, tally,
        i);
}

// Segments exactly parallel to a face (one coordinate the same at both
// ends) or to an axis (two), those coordinates at a face's plane, exactly
// or 1e-9 to 1 outside or inside it.
void ParallelToFaceOrAxis(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const float hh[3] = {f.LogU(-3.0f, 0.5f), f.LogU(-3.0f, 0.5f),
                         f.LogU(-3.0f, 0.5f)};
    const float r = f.LogU(-3.0f, 0.0f);
    const int j = i % 3;
    float p[3];
    float q[3];
    for (int k = 0; k < 3; ++k) {
      p[k] = f.U(-2.0f, 2.0f) * hh[k];
      q[k] = f.U(-2.0f, 2.0f) * hh[k];
    }
    // Parallel to the face(s) normal to the fixed axes.
    const bool axis_parallel = (i / 3) % 2 == 0;
    const int fixed[2] = {axis_parallel ? (j + 1) % 3 : j, (j + 2) % 3};
    for (int m = 0; m < (axis_parallel ? 2 : 1); ++m) {
      const int k = fixed[m];
      // Near the face's plane, or (the second axis, every other case)
      // anywhere across the box: the segment then runs along a face rather
      // than an edge.
      const bool near = m == 0 || (i / 6) % 2 == 0;
      if (near) {
        const float sign = RandomSign(f);
        p[k] = sign * (hh[k] + FaceOffset(f));
      } else {
        p[k] = f.U(-1.2f, 1.2f) * hh[k];
      }
      q[k] = p[k];
    }
    if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) q[j] += hh[j];
    CheckCapsuleInBoxFrame(f, Capsule3{FromArray(p), FromArray(q), r},
                           FromArray(hh), i, tally);
  }
}

// Segment ends exactly on the box's corners, edges or faces: the other end
// outside or inside, on another feature, or the segment exactly along an
// edge or a face's diagonal.
void EndsOnFeatures(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const Vec3 h{f.LogU(-2.0f, 0.5f), f.LogU(-2.0f, 0.5f), f.LogU(-2.0f, 0.5f)};
    const float r = f.LogU(-3.0f, 0.0f);
    Vec3 p = OnFeature(f, h, i % 3);
    Vec3 q;
    switch ((i / 3) % 4) {
      case 0:
        q = OnFeature(f, h, static_cast<int>(f.U(0.0f, 2.999f)));
        break;
      case 1: {
        const float distance = f.LogU(-3.0f, 1.0f);
        q = p + distance * f.Unit();
        break;
      }
      case 2: {
        const float distance = f.LogU(-3.0f, 0.0f);
        q = p + distance * NormalizeOrZero(-1.0f * p + f.Unit());
        break;
      }
      default: {
        // Corner to corner: along an edge, a face's diagonal or the box's.
        p = OnFeature(f, h, 0);
        q = p;
        const int flips = 1 + static_cast<int>(f.U(0.0f, 2.999f));
        const int first = static_cast<int>(f.U(0.0f, 2.999f));
        for (int m = 0; m < flips; ++m) {
          const int k = (first + m) % 3;
          if (k == 0) q.x = -q.x;
          if (k == 1) q.y = -q.y;
          if (k == 2) q.z = -q.z;
        }
      }
    }
    if (p == q) q = p + h;
    CheckCapsuleInBoxFrame(f, Capsule3{p, q, r}, h, i, tally);
  }
}

// Capsules 1e4 long against boxes 1e-3 across: the segment 1e-9 to 1e-3
// from a corner, an edge or a face (outside or inside) or through it,
// along an axis, in a face's plane or at random, one end near the box or
// both far.
void LongCapsuleTinyBox(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const Vec3 h{1e-3f * f.U(0.2f, 1.0f), 1e-3f * f.U(0.2f, 1.0f),
                 1e-3f * f.U(0.2f, 1.0f)};
    const float r = f.LogU(-6.0f, -1.0f);
    float offset = f.LogU(-9.0f, -3.0f);
    if (i % 7 == 0) offset = 0.0f;
    if (i % 7 == 1) offset = -offset;
    const Vec3 on_feature = OnFeature(f, h, i % 3);
    const Vec3 mid = on_feature + offset * f.Unit();
    Vec3 dir = f.Unit();
    if (i % 4 == 0) {
      const int k = (i / 4) % 3;
      dir = {k == 0 ? 1.0f : 0.0f, k == 1 ? 1.0f : 0.0f, k == 2 ? 1.0f : 0.0f};
    } else if (i % 4 == 1) {
      const int k = (i / 4) % 3;
      if (k == 0) dir.x = 0.0f;
      if (k == 1) dir.y = 0.0f;
      if (k == 2) dir.z = 0.0f;
      dir = NormalizeOrZero(dir);
    }
    const float len = 1e4f * f.U(0.5f, 1.0f);
    const float shift = (i % 5 == 0) ? 0.0f : f.U(0.05f, 0.95f);
    const Vec3 p = mid - shift * len * dir;
    const Vec3 q = p + len * dir;
    CheckCapsuleInBoxFrame(f, Capsule3{p, q, r}, h, i, tally);
  }
}

// Zero-length capsules (point cores) on the box's corners, edges or faces,
// 1e-9 to 3 off them outside or inside, or anywhere near the box.
void ZeroLengthCapsules(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    const Vec3 h{f.LogU(-3.0f, 1.0f), f.LogU(-3.0f, 1.0f), f.LogU(-3.0f, 1.0f)};
    const float r = f.LogU(-4.0f, 1.0f);
    Vec3 c = OnFeature(f, h, i % 3);
    if (i % 5 == 1) {
      c = {f.U(-1.5f, 1.5f) * h.x, f.U(-1.5f, 1.5f) * h.y,
           f.U(-1.5f, 1.5f) * h.z};
    } else if (i % 5 != 0) {
      const float sign = RandomSign(f);
      const float distance = f.LogU(-9.0f, 0.5f);
      c = c + sign * distance * f.Unit();
    }
    CheckCapsuleInBoxFrame(f, Capsule3{c, c, r}, h, i, tally);
  }
}

// Long nearly parallel capsules (round_contact_test's families): depths
// 1e-7 to 1e-3, or segments 1e-9 to 1e-4 of r_a + r_b apart or crossing.
void NearlyParallelCapsules(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    Vec3 u;
    Vec3 v;
    Vec3 w;
    f.Frame(&u, &v, &w);
    const float len = f.LogU(1.0f, 3.0f);
    const float centre_distance = i % 2 == 0 ? 0.0f : f.LogU(0.0f, 3.5f);
    const Vec3 centre = centre_distance * f.Unit();
    const float ra = f.LogU(-2.0f, -0.3f);
    const float rb = f.LogU(-2.0f, -0.3f);
    const float theta = i % 5 == 0 ? 0.0f : f.LogU(-7.0f, -2.0f);
    const float phi = i % 4 < 2 ? 1.5707964f : f.U(0.0f, 6.2831855f);
    const Vec3 dir_b =
        std::cos(theta) * u +
        std::sin(theta) * (std::cos(phi) * v + std::sin(phi) * w);
    float offset = ra + rb - f.LogU(-7.0f, -3.0f);
    if (i % 2 == 1) {
      offset = i % 8 == 1 ? 0.0f : (ra + rb) * f.LogU(-9.0f, -4.0f);
    }
    const float len_b = len * f.U(0.5f, 1.5f);
    const Vec3 centre_b = centre + f.U(-0.4f, 0.4f) * len * u + offset * v;
    const Capsule3 a{centre - 0.5f * len * u, centre + 0.5f * len * u, ra};
    const Capsule3 b{centre_b - 0.5f * len_b * dir_b,
                     centre_b + 0.5f * len_b * dir_b, rb};
    Check(ConvexShape3{a}, Pose3{}, ConvexShape3{b}, Pose3{}, tally, i);
  }
}

// A sphere beside a long capsule or centred 1e-9 to 1e-4 of r from its axis
// (or on it), the capsule rotated and placed up to 3e3 away.
void SphereNearCapsuleAxis(unsigned seed, int count, Tally* tally) {
  Family f(seed);
  for (int i = 0; i < count; ++i) {
    Vec3 u;
    Vec3 v;
    Vec3 w;
    f.Frame(&u, &v, &w);
    const float len = f.LogU(-1.0f, 3.0f);
    const float centre_distance = i % 2 == 0 ? 0.0f : f.LogU(0.0f, 3.5f);
    const Vec3 centre = centre_distance * f.Unit();
    const float ra = f.LogU(-2.0f, -0.3f);
    const float rb = f.LogU(-2.0f, -0.3f);
    const float around = f.U(0.0f, 6.2831855f);
    const Vec3 side = std::cos(around) * v + std::sin(around) * w;
    float offset = ra + rb - f.LogU(-7.0f, -3.0f);
    if (i % 2 == 1) {
      offset = i % 8 == 1 ? 0.0f : (ra + rb) * f.LogU(-9.0f, -4.0f);
    }
    const float t = i % 7 == 0 ? f.U(0.5f, 0.7f) : f.U(-0.45f, 0.45f);
    const Vec3 c = centre + t * len * u + offset * side;
    const Capsule3 capsule{centre - 0.5f * len * u, centre + 0.5f * len * u,
                           ra};
    Check(ConvexShape3{Sphere{rb}}, Pose3{c, RandomRotation(f)},
          ConvexShape3{capsule}, Pose3{}, tally, i);
  }
}

// Reports the tally and expects no failure, at least `min_cases` pairs
// compared with the generic path, `min_reference_cases` with the exact
// reference, and more than 30,000 of them overlapping.
void ExpectClean(const char* name, const Tally& tally, int min_cases,
                 int min_reference_cases) {
  Report(name, tally);
  EXPECT_EQ(tally.failures, 0) << name;
  EXPECT_EQ(tally.reference_failures, 0) << name;
  EXPECT_GE(tally.cases, min_cases) << name;
  EXPECT_GE(tally.reference_cases, min_reference_cases) << name;
  EXPECT_GT(tally.overlapping, 30000) << name;
}

TEST(RoundTypedTest, CapsuleBoxMatchesGeneric) {
  Tally tally;
  RandomFamily(
      6201, 35000,
      [](Family& f, int i) { return ConvexShape3{RandomCapsule(f, i)}; },
      [](Family& f, int) { return ConvexShape3{RandomBox(f)}; }, &tally);
  CapsuleAlongBoxEdge(6202, 20000, &tally);
  ExpectClean("capsule-box", tally, 100000, 100000);
}

TEST(RoundTypedTest, CapsuleBoxMatchesExactReference) {
  Tally tally;
  ParallelToFaceOrAxis(6209, 25000, &tally);
  EndsOnFeatures(6210, 25000, &tally);
  LongCapsuleTinyBox(6211, 25000, &tally);
  ZeroLengthCapsules(6212, 25000, &tally);
  ExpectClean("capsule-box (reference families)", tally, 0, 100000);
}

TEST(RoundTypedTest, SphereBoxMatchesGeneric) {
  Tally tally;
  RandomFamily(
      6203, 30000,
      [](Family& f, int) { return ConvexShape3{Sphere{f.U(0.05f, 0.8f)}}; },
      [](Family& f, int) { return ConvexShape3{RandomBox(f)}; }, &tally);
  SphereNearBoxFeature(6204, 20000, &tally);
  ExpectClean("sphere-box", tally, 100000, 100000);
}

TEST(RoundTypedTest, CapsuleCapsuleMatchesGenericBitForBit) {
  Tally tally;
  RandomFamily(
      6205, 30000,
      [](Family& f, int i) { return ConvexShape3{RandomCapsule(f, i)}; },
      [](Family& f, int i) { return ConvexShape3{RandomCapsule(f, i + 5)}; },
      &tally);
  NearlyParallelCapsules(6206, 20000, &tally);
  ExpectClean("capsule-capsule", tally, 100000, 0);
}

TEST(RoundTypedTest, SphereCapsuleMatchesGenericBitForBit) {
  Tally tally;
  RandomFamily(
      6207, 30000,
      [](Family& f, int) { return ConvexShape3{Sphere{f.U(0.05f, 0.8f)}}; },
      [](Family& f, int i) { return ConvexShape3{RandomCapsule(f, i)}; },
      &tally);
  SphereNearCapsuleAxis(6208, 20000, &tally);
  ExpectClean("sphere-capsule", tally, 100000, 0);
}

}  // namespace
}  // namespace sator
