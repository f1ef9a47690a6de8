// White box: the typed Contact and Overlap paths of a sphere or capsule and
// a convex hull (round_hull.cc: the hull read in place in its own frame,
// the round core placed there by MulT(hull pose, round pose)).
//
// On seeded random pairs in both orders, through the public Contact and
// Overlap: the exact depth in long double for the floats the typed path
// reads in the hull's frame (round_reference3d.h), within the documented
// round-shape tolerance; the normal, rotated back into the hull's frame,
// along which the cores overlap by no more than the depth; the verdicts
// away from touching.
//
// Families (i % 8): random capsules and spheres near random hulls of 4 to
// 64 points; a segment piercing a face (along its normal or tilted); a
// segment parallel to a face, r - 1e-4 .. r + 1e-4 from its plane or
// crossing it; a segment parallel to an edge, as far from it; a point core
// exactly on, or r +- 1e-9 .. 1e-4 from, a vertex, an edge or a face; a
// capsule 1e4 long against a hull 1e-3 across or a sliver (1e-3 by 1 to
// 10); a 64-point hull with coordinates near 1e4; zero-length capsules.
//
// Then, in the hull's frame only, the prunings on a hull read in place
// (float brackets, the face prefilter, SegmentSolid's edge skips) against
// the same functions with every axis, face and edge measured, bit for bit:
// near-touching cores (r +- k ulp from a face, an edge or a vertex) across
// scales and on hull records scaled to the ends of the float range; and
// HullInA::Ref without B's structure-of-arrays vertices.
#include <algorithm>
#include <bit>
#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <variant>
#include <vector>

#include "collide3d/convex_closest.h"
#include "collide3d/convex_polytope.h"
#include "collide3d/convex_round.h"
#include "collide3d/hull_sat.h"
#include "collide3d/round_typed.h"
#include "core/collide3d/double_reference3d.h"
#include "core/collide3d/round_reference3d.h"
#include "core/collide3d/same_bits3d.h"
#include "core/collide3d/seeded_family3d.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/shape3d.h"
#include "support/test_scale.h"

namespace sator {
namespace {

using testing::SameBits;
using testing::SameDouble;
using testing::SameFloat;
using testing::SameVec;

using HullPtr = std::shared_ptr<const ConvexHull>;
using test3d::Dv;
using test3d::Family;
using test3d::ToDv;

struct Tally {
  int cases = 0;
  int overlapping = 0;
  int failures = 0;    // Beyond the tolerance of the exact answer.
  double worst = 0.0;  // The worst depth or along-normal excess, in units.
};

// The round-shape depth tolerance, in FLT_EPSILON x M (docs/core/numerics.md,
// "Round-shape depth").
constexpr double kDepthUnits = 5.0;

// The exact answer for the floats the typed path reads in the hull's frame:
// the hull's vertices as stored and the core p q of radius r; the unit is
// FLT_EPSILON x M, M the largest coordinate of those floats and r.
struct HullFrameReference {
  test3d::Pair pair;
  double unit = 0.0;
  test3d::Ld exact = 0.0L;
};
HullFrameReference MakeHullFrameReference(const ConvexHull& hull, Vec3 p,
                                          Vec3 q, float r) {
  HullFrameReference ref;
  test3d::Pair& pair = ref.pair;
  pair.p = test3d::ToL3(p);
  pair.q = test3d::ToL3(q);
  pair.r = r;
  double m = r;
  for (const Vec3& x : {p, q}) {
    m = std::max({m, std::fabs(static_cast<double>(x.x)),
                  std::fabs(static_cast<double>(x.y)),
                  std::fabs(static_cast<double>(x.z))});
  }
  for (const Vec3& x : hull.vertices) {
    pair.v.push_back(test3d::ToL3(x));
    m = std::max({m, std::fabs(static_cast<double>(x.x)),
                  std::fabs(static_cast<double>(x.y)),
                  std::fabs(static_cast<double>(x.z))});
  }
  ref.unit = std::max(FLT_EPSILON * m, static_cast<double>(FLT_TRUE_MIN));
  ref.exact = test3d::Reference(pair);
  return ref;
}

// A typed answer in the hull's frame (the hull as A, the normal from the
// hull to the round core) against the exact one: the depth within
// kDepthUnits of it, the overlap of the cores along the normal at most the
// depth plus kDepthUnits + `along_units`, and the Contact and Overlap
// verdicts that of the exact depth's sign beyond kDepthUnits. Counts a
// failure in *tally (and reports the first few) when one does not hold.
void CheckInHullFrame(const HullFrameReference& ref,
                      const ContactResult<3>& typed, bool overlap,
                      test3d::Dv normal_in_hull, double along_units,
                      const char* what, Tally* tally) {
  using test3d::L3;
  using test3d::Ld;
  const test3d::Pair& pair = ref.pair;
  const double unit = ref.unit;
  const Ld exact = ref.exact;
  const Ld len =
      std::sqrt(static_cast<Ld>(normal_in_hull.x) * normal_in_hull.x +
                static_cast<Ld>(normal_in_hull.y) * normal_in_hull.y +
                static_cast<Ld>(normal_in_hull.z) * normal_in_hull.z);
  const L3 u{normal_in_hull.x / len, normal_in_hull.y / len,
             normal_in_hull.z / len};
  Ld hull_hi = test3d::Dot(u, pair.v[0]);
  for (const L3& x : pair.v) hull_hi = std::max(hull_hi, test3d::Dot(u, x));
  const Ld core_lo =
      std::min(test3d::Dot(u, pair.p), test3d::Dot(u, pair.q)) - pair.r;
  const auto depth_off = static_cast<double>(
      std::fabs(static_cast<Ld>(typed.depth) - exact) / unit);
  const auto along_off =
      static_cast<double>((hull_hi - core_lo - typed.depth) / unit);
  const bool verdict_off =
      std::fabs(static_cast<double>(exact)) > kDepthUnits * unit &&
      (overlap != (exact > 0.0L) || typed.overlapping != (exact > 0.0L));
  ++tally->cases;
  tally->overlapping += exact > 0.0L;
  tally->worst = std::max({tally->worst, depth_off, along_off - along_units});
  if (depth_off <= kDepthUnits && along_off <= kDepthUnits + along_units &&
      !verdict_off) {
    return;
  }
  if (++tally->failures <= 5) {
    ADD_FAILURE() << what << ": depth " << typed.depth << " against exact "
                  << static_cast<double>(exact) << " (" << depth_off
                  << " units), along the normal " << along_off
                  << " units over it, overlap " << overlap << "; p ("
                  << static_cast<double>(pair.p.x) << ", "
                  << static_cast<double>(pair.p.y) << ", "
                  << static_cast<double>(pair.p.z) << "), q ("
                  << static_cast<double>(pair.q.x) << ", "
                  << static_cast<double>(pair.q.y) << ", "
                  << static_cast<double>(pair.q.z) << "), r "
                  << static_cast<double>(pair.r) << ", unit " << unit;
  }
}

// v rotated by the conjugate of the float quaternion q, in double
// (Rotate's formula): a world direction taken into q's frame.
Dv InvRotateD(Quat q, Dv v) {
  const Dv u{-q.x, -q.y, -q.z};
  const Dv t = 2.0 * test3d::CrossD(u, v);
  return v + static_cast<double>(q.w) * t + test3d::CrossD(u, t);
}

// The public Contact and Overlap of the pair in both orders, against the
// exact answer in the hull's frame, where both orders run. The normal,
// reported in the world, is rotated back in double: that rotation's own
// rounding (a few FLT_EPSILON of a direction, over offsets up to M) is the
// 4 units added to the along-normal bound.
void Check(const ConvexShape3& round, const Pose3& round_pose,
           const HullPtr& hull, const Pose3& hull_pose, Tally* tally, int i) {
  const ConvexShape3 hull_shape{hull};
  const Pose3 r_in_hull = MulT(hull_pose, round_pose);
  Vec3 p;
  Vec3 q;
  float r = 0.0f;
  if (const auto* c = std::get_if<Capsule3>(&round)) {
    p = Transform(r_in_hull, c->a);
    q = Transform(r_in_hull, c->b);
    r = c->radius;
  } else {
    p = r_in_hull.position;
    q = p;
    r = std::get<Sphere>(round).radius;
  }
  const HullFrameReference ref = MakeHullFrameReference(*hull, p, q, r);
  for (int order = 0; order < 2; ++order) {
    const bool hull_first = order == 0;
    const ContactResult<3> typed =
        hull_first ? Contact(hull_shape, hull_pose, round, round_pose)
                   : Contact(round, round_pose, hull_shape, hull_pose);
    const bool overlap =
        hull_first ? Overlap(hull_shape, hull_pose, round, round_pose)
                   : Overlap(round, round_pose, hull_shape, hull_pose);
    Dv n = InvRotateD(hull_pose.rotation, ToDv(typed.normal));
    if (!hull_first) n = -1.0 * n;
    char what[64];
    std::snprintf(what, sizeof(what), "case %d order %d", i, order);
    CheckInHullFrame(ref, typed, overlap, n, /*along_units=*/4.0, what, tally);
  }
}

// A random rotation.
Quat RandomRotation(Family& f) {
  const Vec3 axis = f.Unit();
  const float angle = f.U(0.0f, 6.2831855f);
  return Quat::FromAxisAngle(axis, angle);
}

// A hull of `n` points within `size` of `centre`, or a box-like sliver.
HullPtr RandomHull(Family& f, int n, float size, Vec3 centre) {
  for (;;) {
    std::vector<Vec3> points;
    points.reserve(n);
    for (int k = 0; k < n; ++k) {
      const float s = f.U(0.2f, 1.0f);
      const Vec3 u = f.Unit();
      points.push_back(centre + size * s * u);
    }
    auto hull = MakeConvexHull(points);
    if (hull.ok()) return *hull;
  }
}

HullPtr SliverHull(Family& f) {
  const float hx = f.LogU(-3.0f, -2.0f);
  const float hy = f.LogU(-3.0f, -2.0f);
  const float hz = f.LogU(0.0f, 1.0f);
  const Quat q = RandomRotation(f);
  std::vector<Vec3> points;
  for (int k = 0; k < 8; ++k) {
    points.push_back(Rotate(
        q, Vec3{(k & 1) ? hx : -hx, (k & 2) ? hy : -hy, (k & 4) ? hz : -hz}));
  }
  return *MakeConvexHull(points);
}

// A point on face `face` of the hull (its fan triangle `t`, barycentric).
Vec3 PointOnFace(Family& f, const ConvexHull& h, int face) {
  const ConvexHull::Face& fc = h.faces[face];
  const auto vertex = [&](int k) {
    return h.vertices[h.face_vertex_indices[fc.first_index + k]];
  };
  const int t =
      1 + static_cast<int>(
              f.U(0.0f, static_cast<float>(fc.vertex_count - 2) - 0.001f));
  float s = f.U(0.0f, 1.0f);
  float w = f.U(0.0f, 1.0f);
  if (s + w > 1.0f) {
    s = 1.0f - s;
    w = 1.0f - w;
  }
  return vertex(0) + s * (vertex(t) - vertex(0)) +
         w * (vertex(t + 1) - vertex(0));
}

int Pick(Family& f, int n) {
  return std::min(n - 1, static_cast<int>(f.U(0.0f, static_cast<float>(n))));
}

// The signed offset of a near-touching core from a feature: r +- 1e-9 ..
// 1e-4, exactly r, or crossing.
float NearOffset(Family& f, float r, int i) {
  float offset = f.LogU(-9.0f, -4.0f);
  if (i % 7 == 0) offset = 0.0f;
  if (i % 7 < 3) offset = -offset;
  if (i % 7 == 6) offset = -r - f.LogU(-9.0f, -1.0f);
  return r + offset;
}

// One pair of family i % 8, the round shape a capsule (`capsule`) or a
// sphere, both given in the world (the hull placed by a random pose).
void MakePair(Family& f, int i, bool capsule, Tally* tally) {
  const int family = i % 8;
  const int j = i / 8;
  HullPtr hull;
  if (family == 5) {
    hull = (j % 4 == 3) ? SliverHull(f)
                        : RandomHull(f, 4 + Pick(f, 12), 1e-3f, Vec3{});
  } else if (family == 6) {
    hull = RandomHull(f, 64, f.U(0.5f, 5.0f), Vec3{});
  } else {
    const int n = 4 + Pick(f, 61);
    hull = RandomHull(f, n, f.U(0.2f, 2.0f), Vec3{});
  }
  const ConvexHull& h = *hull;
  float r = f.U(0.1f, 0.5f);
  if (family == 5) r = f.LogU(-6.0f, -1.0f);
  // The core in the hull's frame: p, q (q == p for a point core).
  Vec3 p;
  Vec3 q;
  const float half = f.U(0.2f, 1.0f);
  switch (family) {
    case 0: {  // Random.
      const float dist = f.U(0.0f, 3.0f);
      const Vec3 mid = dist * f.Unit();
      const Vec3 dir = f.Unit();
      p = mid - half * dir;
      q = mid + half * dir;
      break;
    }
    case 1: {  // Piercing a face.
      const int face = Pick(f, static_cast<int>(h.faces.size()));
      const Vec3 on = PointOnFace(f, h, face);
      Vec3 dir = h.faces[face].normal;
      if (j % 2 == 1) {
        const float tilt = f.U(0.0f, 1.2f);
        const Vec3 side = NormalizeOrZero(Cross(dir, f.Unit()));
        dir = NormalizeOrZero(std::cos(tilt) * dir + std::sin(tilt) * side);
      }
      const float along = f.U(-half, half);
      p = on - (half + along) * dir;
      q = on + (half - along) * dir;
      break;
    }
    case 2: {  // Parallel to a face.
      const int face = Pick(f, static_cast<int>(h.faces.size()));
      const Vec3 n = h.faces[face].normal;
      const Vec3 on = PointOnFace(f, h, face);
      const Vec3 dir = NormalizeOrZero(Cross(n, f.Unit()));
      const Vec3 mid = on + NearOffset(f, r, j) * n;
      const float shift = f.U(-half, half);
      p = mid - (half + shift) * dir;
      q = mid + (half - shift) * dir;
      break;
    }
    case 3: {  // Parallel to an edge.
      const ConvexHull::Edge& e =
          h.edges[Pick(f, static_cast<int>(h.edges.size()))];
      const Vec3 a = h.vertices[e.a];
      const Vec3 b = h.vertices[e.b];
      const Vec3 dir = NormalizeOrZero(b - a);
      const Vec3 out = NormalizeOrZero(h.faces[e.face_left].normal +
                                       h.faces[e.face_right].normal);
      const float s = f.U(0.0f, 1.0f);
      const Vec3 mid = a + s * (b - a) + NearOffset(f, r, j) * out;
      const float shift = f.U(-half, half);
      p = mid - (half + shift) * dir;
      q = mid + (half - shift) * dir;
      break;
    }
    case 4:    // A point core on or near a vertex, an edge or a face.
    case 7: {  // Zero-length capsules (the same placements).
      Vec3 on;
      Vec3 out;
      if (j % 3 == 0) {
        const int v = Pick(f, static_cast<int>(h.vertices.size()));
        on = h.vertices[v];
        out = NormalizeOrZero(on - h.centroid);
      } else if (j % 3 == 1) {
        const ConvexHull::Edge& e =
            h.edges[Pick(f, static_cast<int>(h.edges.size()))];
        const float s = f.U(0.0f, 1.0f);
        on = h.vertices[e.a] + s * (h.vertices[e.b] - h.vertices[e.a]);
        out = NormalizeOrZero(h.faces[e.face_left].normal +
                              h.faces[e.face_right].normal);
      } else {
        const int face = Pick(f, static_cast<int>(h.faces.size()));
        on = PointOnFace(f, h, face);
        out = h.faces[face].normal;
      }
      p = (j % 5 == 0) ? on : on + NearOffset(f, r, j) * out;
      q = p;
      break;
    }
    case 5: {  // A capsule 1e4 long beside or through a tiny hull.
      const int face = Pick(f, static_cast<int>(h.faces.size()));
      const Vec3 n = h.faces[face].normal;
      const Vec3 on = PointOnFace(f, h, face);
      Vec3 dir = NormalizeOrZero(Cross(n, f.Unit()));
      if (j % 3 == 1) {
        const float tilt = f.LogU(-8.0f, -2.0f);
        dir = NormalizeOrZero(std::cos(tilt) * dir + std::sin(tilt) * n);
      } else if (j % 3 == 2) {
        dir = f.Unit();
      }
      const float len = 1e4f * f.U(0.5f, 1.0f);
      const float shift = f.U(0.05f, 0.95f);
      const Vec3 mid = on + NearOffset(f, r, j) * n;
      p = mid - shift * len * dir;
      q = p + len * dir;
      break;
    }
    case 6: {  // A large hull; the pair far from the origin (below).
      const float dist = f.U(0.0f, 6.0f);
      const Vec3 mid = dist * f.Unit();
      const Vec3 dir = f.Unit();
      p = mid - half * dir;
      q = mid + half * dir;
      break;
    }
  }
  if (!capsule || family == 4) q = p;
  // One draw per statement (the order of the draws is then fixed).
  Pose3 hull_pose;
  hull_pose.position.x = f.U(-10.0f, 10.0f);
  hull_pose.position.y = f.U(-10.0f, 10.0f);
  hull_pose.position.z = f.U(-10.0f, 10.0f);
  hull_pose.rotation = RandomRotation(f);
  if (family == 6) {
    hull_pose.position.x = f.U(9e3f, 1.1e4f);
    hull_pose.position.y = f.U(-1.1e4f, -9e3f);
    hull_pose.position.z = f.U(9e3f, 1.1e4f);
  }
  if (family == 5 && j % 2 == 0) hull_pose = Pose3{};
  // The round shape: its own pose random (or the identity) and its core's
  // points given in that frame so that they land at the hull-frame points.
  Pose3 round_pose{};
  if (j % 2 == 1) {
    round_pose.position = Transform(hull_pose, 0.5f * (p + q));
    round_pose.rotation = RandomRotation(f);
  }
  const Pose3 to_round = MulT(round_pose, hull_pose);
  const Vec3 pr = Transform(to_round, p);
  const Vec3 qr = (q == p) ? pr : Transform(to_round, q);
  ConvexShape3 round;
  if (capsule) {
    round = Capsule3{pr, qr, r};
  } else {
    round = Sphere{r};
    round_pose.position = Transform(hull_pose, p);
    round_pose.rotation = RandomRotation(f);
  }
  Check(round, round_pose, hull, hull_pose, tally, i);
}

void Report(const char* name, const Tally& t) {
  std::printf(
      "%s: %d cases, %d overlapping; beyond the exact answer's tolerance %d "
      "(worst %.2f units)\n",
      name, t.cases, t.overlapping, t.failures, t.worst);
}

// Each pair's reference enumerates the hull's vertex triples in long double.
constexpr int kPairs = sator::testing::ScaledCount(15000);

TEST(RoundHullInternalTest, CapsuleHullMatchesExactDepth) {
  Family f(6801);
  Tally tally;
  for (int i = 0; i < kPairs; ++i) MakePair(f, i, /*capsule=*/true, &tally);
  Report("capsule-hull", tally);
  EXPECT_EQ(tally.cases, 2 * kPairs);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_GT(tally.overlapping, tally.cases / 4);
}

TEST(RoundHullInternalTest, SphereHullMatchesExactDepth) {
  Family f(6802);
  Tally tally;
  for (int i = 0; i < kPairs; ++i) MakePair(f, i, /*capsule=*/false, &tally);
  Report("sphere-hull", tally);
  EXPECT_EQ(tally.cases, 2 * kPairs);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_GT(tally.overlapping, tally.cases / 4);
}

// Floating-point traps off for a scope (the test binary traps overflow):
// the pairs near the top of the float range overflow in the generic code
// too, and only the typed path's agreement with it is checked there.
class FpeOff {
 public:
  FpeOff() {
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
    saved_ = fedisableexcept(FE_ALL_EXCEPT);
#endif
  }
  ~FpeOff() {
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
    feclearexcept(FE_ALL_EXCEPT);
    if (saved_ > 0) feenableexcept(saved_);
#endif
  }
  FpeOff(const FpeOff&) = delete;
  FpeOff& operator=(const FpeOff&) = delete;

 private:
  int saved_ = 0;
};

// The hull record scaled by 2^e (vertices, face offsets and centroid; exact
// unless the result is subnormal) with its structure-of-arrays layout
// refilled: a record MakeConvexHull would not make (it keeps coordinates
// in range), for the typed path's float brackets at the ends of the range.
HullPtr ScaledRecord(const ConvexHull& h, int e) {
  auto out = std::make_shared<ConvexHull>(h);
  for (Vec3& v : out->vertices) {
    v = {std::ldexp(v.x, e), std::ldexp(v.y, e), std::ldexp(v.z, e)};
  }
  for (ConvexHull::Face& face : out->faces) {
    face.offset = std::ldexp(face.offset, e);
  }
  out->centroid = {std::ldexp(h.centroid.x, e), std::ldexp(h.centroid.y, e),
                   std::ldexp(h.centroid.z, e)};
  out->soa.assign(internal::HullSoaSize(static_cast<int>(h.vertices.size()),
                                        static_cast<int>(h.faces.size()),
                                        static_cast<int>(h.edges.size())),
                  0.0f);
  internal::FillHullSoa(*out, out->soa.data(), /*inscribed_ball=*/true);
  return out;
}

// ContactHullRoundLocal and OverlapHullRoundLocal on the hull read in place
// (with its structure-of-arrays vertices, which switch the float brackets
// and the face prefilter on) against ContactRound / OverlapRound on a copy
// without them (every axis and face measured), bit for bit: the prunings
// skip only work that cannot change the answer. Returns false (and reports
// the first few) on a difference.
bool PruningChangesNothing(const ConvexHull& hull, Vec3 p, Vec3 q, float r,
                           bool capsule, const char* what, int* reported) {
  internal::FlatCore core;
  if (capsule) {
    internal::MakeFlatCore(Capsule3{p, q, r}, Pose3{}, &core);
  } else {
    Pose3 at;
    at.position = p;
    internal::MakeFlatCore(Sphere{r}, at, &core);
  }
  ConvexHull plain = hull;
  plain.soa.clear();
  const internal::PolyRef full_ref = internal::HullRef(plain);
  const ContactResult<3> pruned =
      internal::ContactHullRoundLocal(hull, core.ref);
  const ContactResult<3> full = internal::ContactRound(full_ref, core.ref);
  const bool pruned_overlap = internal::OverlapHullRoundLocal(hull, core.ref);
  const bool full_overlap = internal::OverlapRound(full_ref, core.ref);
  if (SameBits(pruned, full) && pruned_overlap == full_overlap) {
    return true;
  }
  if (++*reported <= 5) {
    ADD_FAILURE() << what << ": the pruned answer differs: depth "
                  << pruned.depth << " against " << full.depth << ", normal ("
                  << pruned.normal.x << ", " << pruned.normal.y << ", "
                  << pruned.normal.z << ") against (" << full.normal.x << ", "
                  << full.normal.y << ", " << full.normal.z << "), overlap "
                  << pruned_overlap << " against " << full_overlap << "; p ("
                  << p.x << ", " << p.y << ", " << p.z << "), r " << r;
  }
  return false;
}

// A feature of the hull (a face, an edge or a vertex, by `kind`), a point
// on it and a unit direction out of the hull there.
void PickFeature(Family& f, const ConvexHull& h, int kind, Vec3* on,
                 Vec3* out) {
  if (kind == 0) {
    const int face = Pick(f, static_cast<int>(h.faces.size()));
    *on = PointOnFace(f, h, face);
    *out = h.faces[face].normal;
  } else if (kind == 1) {
    const ConvexHull::Edge& e =
        h.edges[Pick(f, static_cast<int>(h.edges.size()))];
    const float s = f.U(0.0f, 1.0f);
    *on = h.vertices[e.a] + s * (h.vertices[e.b] - h.vertices[e.a]);
    *out = NormalizeOrZero(h.faces[e.face_left].normal +
                           h.faces[e.face_right].normal);
  } else {
    const int v = Pick(f, static_cast<int>(h.vertices.size()));
    *on = h.vertices[v];
    *out = NormalizeOrZero(*on - h.centroid);
  }
}

// Cores at distance r +- k ulp from a face, an edge or a vertex of a hull
// of size `scale` (its points drawn at size 1 and scaled, through
// MakeConvexHull, or by ScaledRecord when `record_exp2` is not 0): the ulp
// of r or of the coordinates (2^-24 scale), k in -8 .. 8; r a fraction of
// the hull's size, or a few ulps of its coordinates (a core within the
// float rounding of the hull's surface). Point cores and capsules across
// the feature's outward direction. Counts the pairs compared in *compared
// (a hull MakeConvexHull refuses is skipped).
int AdversarialFamilies(unsigned seed, float scale, int record_exp2, int pairs,
                        int* compared) {
  Family f(seed);
  *compared = 0;
  int failures = 0;
  int reported = 0;
  for (int i = 0; i < pairs; ++i) {
    const HullPtr unit =
        RandomHull(f, 4 + Pick(f, 29), 1.0f, f.U(0.0f, 2.0f) * f.Unit());
    HullPtr hull;
    if (record_exp2 != 0) {
      hull = ScaledRecord(*unit, record_exp2);
    } else {
      std::vector<Vec3> points;
      for (const Vec3& v : unit->vertices) points.push_back(scale * v);
      auto made = MakeConvexHull(points);
      if (!made.ok()) continue;
      hull = *made;
    }
    const ConvexHull& h = *hull;
    Vec3 on;
    Vec3 out;
    PickFeature(f, h, i % 3, &on, &out);
    const int k = static_cast<int>(f.U(-8.0f, 8.999f));
    const bool tiny = (i / 3) % 2 == 1;
    const float r = tiny ? std::ldexp(f.U(0.5f, 16.0f), -24) * scale
                         : f.U(0.05f, 0.5f) * scale;
    const float unit_step = (i / 6) % 2 == 1 ? std::nextafter(r, 2.0f * r) - r
                                             : std::ldexp(scale, -24);
    const float offset = r + static_cast<float>(k) * unit_step;
    const Vec3 p = on + offset * out;
    const Vec3 side = NormalizeOrZero(Cross(out, f.Unit()));
    const float half = f.U(0.0f, 1.0f) * scale;
    const Vec3 a = p - half * side;
    const Vec3 b = p + half * side;
    char what[96];
    std::snprintf(what, sizeof(what), "scale %g pair %d (kind %d, k %d)",
                  static_cast<double>(scale), i, i % 3, k);
    failures +=
        !PruningChangesNothing(h, p, p, r, /*capsule=*/false, what, &reported);
    failures +=
        !PruningChangesNothing(h, a, b, r, /*capsule=*/true, what, &reported);
    *compared += 2;
  }
  return failures;
}

constexpr int kAdversarialPairs = sator::testing::ScaledCount(5000);

TEST(RoundHullInternalTest, PruningChangesNothingNearTouchingAcrossScales) {
  const float scales[] = {1e-30f, 1e-3f, 1.0f, 1e3f, 1e4f};
  unsigned seed = 7201;
  for (float scale : scales) {
    int compared = 0;
    const int failures =
        AdversarialFamilies(seed++, scale, 0, kAdversarialPairs, &compared);
    std::printf("scale %g: %d of %d pairs changed by the pruning\n",
                static_cast<double>(scale), failures, compared);
    EXPECT_EQ(failures, 0) << "scale " << scale;
    // Nearly every hull is made at every scale: the scale is really tested.
    EXPECT_GE(compared, 2 * kAdversarialPairs * 9 / 10) << "scale " << scale;
  }
}

// Hulls with subnormal coordinates (2^-140, about 7e-43, a record scaled
// from size 1) and with coordinates near the top of the float range
// (2^123 and 2^127: about 1e37 and 3e38), where the float brackets' slack
// must not vanish and their starting values must not bind.
TEST(RoundHullInternalTest, PruningChangesNothingAtRangeEnds) {
  FpeOff fpe_off;
  const int exps[] = {-140, 123, 127};
  unsigned seed = 7211;
  for (int e : exps) {
    const float scale = std::ldexp(1.0f, e);
    int compared = 0;
    const int failures = AdversarialFamilies(seed++, scale, e, 5000, &compared);
    std::printf("2^%d: %d of %d pairs changed by the pruning\n", e, failures,
                compared);
    EXPECT_EQ(failures, 0) << "2^" << e;
    EXPECT_EQ(compared, 10000) << "2^" << e;
  }
}

// HullInA::Ref views B's features placed in A's frame: B's own
// structure-of-arrays vertices (in B's frame) must not be offered with them.
TEST(RoundHullInternalTest, PlacedHullRefHasNoStructureOfArrays) {
  Family f(7221);
  const HullPtr a = RandomHull(f, 12, 1.0f, Vec3{});
  const HullPtr b = RandomHull(f, 12, 1.0f, Vec3{});
  ASSERT_FALSE(b->soa.empty());
  EXPECT_NE(internal::HullRef(*b).vertex_soa, nullptr);
  internal::HullInA placed;
  Pose3 b_in_a;
  b_in_a.position = {0.5f, 0.2f, -0.1f};
  b_in_a.rotation = RandomRotation(f);
  internal::HullHullAxis(*a, *b, b_in_a, /*early_out=*/false, &placed);
  EXPECT_EQ(placed.Ref(*b).vertex_soa, nullptr);
}

// ClosestCorePoints for the segment [a, b] against the hull read in place
// (SegmentSolid may skip edges there) and against a copy without its
// structure-of-arrays vertices (every edge): the distance, the points, their
// difference and every tie, bit for bit.
bool SegmentSolidMatches(const ConvexHull& hull, Vec3 a, Vec3 b) {
  internal::FlatCore core;
  internal::MakeFlatCore(Capsule3{a, b, 1.0f}, Pose3{}, &core);
  ConvexHull plain = hull;
  plain.soa.clear();
  const internal::PolyRef refs[2] = {internal::HullRef(hull),
                                     internal::HullRef(plain)};
  double d[2];
  Vec3 pa[2];
  Vec3 pb[2];
  Vec3 diff[2];
  internal::CorePairs ties[2];
  for (int k = 0; k < 2; ++k) {
    d[k] = internal::ClosestCorePoints(core.ref, refs[k], &pa[k], &pb[k],
                                       &diff[k], &ties[k]);
  }
  bool same = SameDouble(d[0], d[1]) && SameVec(pa[0], pa[1]) &&
              SameVec(pb[0], pb[1]) && SameVec(diff[0], diff[1]) &&
              ties[0].count == ties[1].count;
  for (int i = 0; same && i < ties[0].count; ++i) {
    same = SameVec(ties[0].pa[i], ties[1].pa[i]) &&
           SameVec(ties[0].pb[i], ties[1].pb[i]) &&
           SameVec(ties[0].diffs[i], ties[1].diffs[i]) &&
           SameDouble(ties[0].dist_sqs[i], ties[1].dist_sqs[i]);
  }
  // Overlap's search (no ties) too.
  Vec3 qa[2];
  Vec3 qb[2];
  for (int k = 0; k < 2; ++k) {
    d[k] = internal::ClosestCorePoints(core.ref, refs[k], &qa[k], &qb[k]);
  }
  return same && SameDouble(d[0], d[1]) && SameVec(qa[0], qa[1]) &&
         SameVec(qb[0], qb[1]);
}

// SegmentSolid's edge skipping (for a hull read in place) against the full
// loop, on segments placed to make edges compete: parallel to an edge, or
// to a face (with its edges at equal distances on a box), crossing an
// edge's direction just outside it, from a vertex outwards, and long
// segments past small hulls, at r +- k ulp offsets and scales 1e-30 .. 1e4
// and 2^-140.
TEST(RoundHullInternalTest, SegmentSolidEdgeSkipsMatchFullLoop) {
  Family f(7231);
  int failures = 0;
  int cases = 0;
  const float scales[] = {1e-30f, 1e-3f, 1.0f, 1e3f, 1e4f, 0.0f};
  for (float scale : scales) {
    for (int i = 0; i < sator::testing::ScaledCount(10000); ++i) {
      HullPtr unit;
      if (i % 4 == 3) {
        // A box: parallel edges at exactly equal distances.
        std::vector<Vec3> corners;
        const float hx = f.U(0.2f, 1.0f);
        const float hy = f.U(0.2f, 1.0f);
        const float hz = f.U(0.2f, 1.0f);
        for (int c = 0; c < 8; ++c) {
          corners.push_back(
              {(c & 1) ? hx : -hx, (c & 2) ? hy : -hy, (c & 4) ? hz : -hz});
        }
        unit = *MakeConvexHull(corners);
      } else {
        unit = RandomHull(f, 4 + Pick(f, 29), 1.0f, f.U(0.0f, 2.0f) * f.Unit());
      }
      HullPtr hull;
      float s = scale;
      if (scale == 0.0f) {
        s = std::ldexp(1.0f, -140);
        hull = ScaledRecord(*unit, -140);
      } else {
        std::vector<Vec3> points;
        for (const Vec3& v : unit->vertices) points.push_back(scale * v);
        auto made = MakeConvexHull(points);
        if (!made.ok()) continue;
        hull = *made;
      }
      const ConvexHull& h = *hull;
      const ConvexHull::Edge& e =
          h.edges[Pick(f, static_cast<int>(h.edges.size()))];
      const Vec3 va = h.vertices[e.a];
      const Vec3 vb = h.vertices[e.b];
      const Vec3 out = NormalizeOrZero(h.faces[e.face_left].normal +
                                       h.faces[e.face_right].normal);
      const int k = static_cast<int>(f.U(-8.0f, 8.999f));
      const float gap_unit = (i / 4) % 3 == 0 ? 0.0f : f.U(0.01f, 0.3f) * s;
      const float gap = gap_unit + static_cast<float>(k) * std::ldexp(s, -24);
      Vec3 dir;
      Vec3 mid;
      switch ((i / 12) % 5) {
        case 0:  // Parallel to the edge.
          dir = NormalizeOrZero(vb - va);
          mid = va + f.U(-0.5f, 1.5f) * (vb - va) + gap * out;
          break;
        case 1: {  // Parallel to a face next to the edge.
          const Vec3 n = h.faces[e.face_left].normal;
          dir = NormalizeOrZero(Cross(n, f.Unit()));
          mid = va + f.U(0.0f, 1.0f) * (vb - va) + gap * n;
          break;
        }
        case 2:  // Across the edge's direction, outside it.
          dir = NormalizeOrZero(Cross(vb - va, out));
          mid = va + f.U(0.0f, 1.0f) * (vb - va) + gap * out;
          break;
        case 3: {  // From near a vertex outwards.
          const Vec3 away = NormalizeOrZero(va - h.centroid);
          dir = NormalizeOrZero(away + f.U(0.0f, 0.5f) * f.Unit());
          mid = va + gap * away + (0.5f * s) * dir;
          break;
        }
        default:  // Random, near.
          dir = f.Unit();
          mid = va + gap * out + (0.3f * s) * f.Unit();
          break;
      }
      const float half = (i % 7 == 0 ? 1e4f : f.U(0.05f, 2.0f)) * s;
      const float shift = f.U(-0.5f, 0.5f) * half;
      const Vec3 a = mid + (shift - half) * dir;
      const Vec3 b = mid + (shift + half) * dir;
      ++cases;
      if (!SegmentSolidMatches(h, a, b)) {
        if (++failures <= 5) {
          ADD_FAILURE() << "scale " << s << " case " << i
                        << ": the edge skipping changed ClosestCorePoints";
        }
      }
    }
  }
  std::printf("segment-solid: %d of %d cases not the full loop's\n", failures,
              cases);
  EXPECT_EQ(failures, 0);
  // Nearly every hull is made at every scale: the 60,000 cases really run.
  EXPECT_GE(cases, 6 * sator::testing::ScaledCount(10000) * 9 / 10);
}

}  // namespace
}  // namespace sator
