// Box against box fast paths: contact (MTV with clipped manifold) and sweep.
//
// Separating axes of two oriented boxes in 2D (Gottschalk, Lin, Manocha,
// "OBBTree", SIGGRAPH 1996; Ericson, "Real-Time Collision Detection" (2005),
// 4.4.1): A's axes x, y and B's axes u, v (the columns of B's rotation R in
// A's frame). On axis L with B's centre d, the boxes' projections are
// centred |d.L| apart with radii r_A(L) = sum_k hA_k |a_k . L| and
// r_B(L) likewise, so the separation is |d.L| - r_A(L) - r_B(L), in closed
// form, without building any vertex. The best axis gives the MTV (A's axis
// unless B's separates more by kFaceBias x tolerance, as sat2d.cc); the
// reference face is that axis' face of its box towards the other, the
// incident face the other box's face most anti-parallel to it. The clip is
// done in the reference box's own frame (A's, or B's with A mapped into it),
// in coordinates (n, t) along the reference normal and its face: the face is
// n = h_n, |t| <= h_t, so clipping the incident face to the slab is one
// interval intersection on its parameter, and a point's penetration is
// h_n - n (Catto's reference/incident clipping, GDC 2007, specialised to
// axis-aligned reference faces; our own code). The incident face runs along
// the axis f perpendicular to its normal e, and |e.n| >= 1/sqrt(2) for the
// most anti-parallel face, so |f.t| = |e.n| is never small: one division,
// well conditioned, no special case for an end-on edge.
//
// Sweep: SAT over time on the same four axes (Ericson 5.5.8; Eberly,
// "Intersection of Convex Objects: The Method of Separating Axes"): on axis
// L the centre distance moves as d.L + t v.L and the projections overlap
// while |d.L + t v.L| <= r_A(L) + r_B(L), an interval of t; the time of
// impact is the latest interval start if it precedes the earliest end. A
// miss that may still pass within the touching tolerance goes to the general
// graze rule (sweep2d.cc SweepGraze) on the box cores.
// GCC's SLP vectoriser packs these small scalar pose and result updates into
// vector loads of values just stored as scalars, which stalls on store
// forwarding (measured: generic Contact 2x slower); keep them scalar.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

#include <algorithm>
#include <cmath>
#include <cstring>

#include "geometry2d/core2d.h"
#include "geometry2d/distance2d.h"
#include "geometry2d/sat2d.h"
#include "geometry2d/sweep2d.h"
#include "sator/core/geometry2d/queries2d.h"

namespace sator {
namespace {

float SignOf(float x) { return x < 0.0f ? -1.0f : 1.0f; }

using internal2d::F4;
using I4 = int __attribute__((vector_size(16)));

// Lane-wise std::max(a, b) and std::min(a, b): the same operand returned
// for ties and NaN.
F4 Max4(F4 a, F4 b) { return a < b ? b : a; }
F4 Min4(F4 a, F4 b) { return b < a ? b : a; }

// |x| lane-wise by clearing the sign bits (one and; x < 0 ? -x : x took a
// compare and a blend). It differs from that only in giving +0 for -0 and
// positive NaNs, and no result here depends on either sign.
F4 Abs4(F4 x) {
  I4 bits;
  std::memcpy(&bits, &x, sizeof(bits));
  bits &= 0x7fffffff;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}

// The lanes set in a vector compare, as bits 0-3 (one movemask on SSE).
template <typename M>
int LaneBits(M mask) {
#if defined(__SSE2__)
  F4 bits;
  std::memcpy(&bits, &mask, sizeof(bits));
  return _mm_movemask_ps(bits);
#else
  return (mask[0] & 1) | (mask[1] & 2) | (mask[2] & 4) | (mask[3] & 8);
#endif
}

// The contact of boxes with half extents ha and hb, B at `b_in_a`, from
// their separations on A's axes x, y (sep0, sep1) and B's axes u, v (sep2,
// sep3), B's centre along u and v being du and dv. Forced inline: as a call
// (ten arguments, the separations taken apart from the sweep's lanes, and
// the registers it saves) it cost the sweep 32 of its 354 instructions on a
// start within the tolerance.
[[gnu::always_inline]] inline ContactResult<2> ContactFromSeparations(
    Vec2 ha, Vec2 hb, const Pose2& b_in_a, float du, float dv, float sep0,
    float sep1, float sep2, float sep3, float tolerance) {
  const Vec2 d = b_in_a.position;
  const float c = b_in_a.rotation.c;
  const float s = b_in_a.rotation.s;
  const bool a_y = sep1 > sep0;
  const bool b_v = sep3 > sep2;
  const float sep_a = a_y ? sep1 : sep0;
  const float sep_b = b_v ? sep3 : sep2;
  // A's face unless B's is better by a tenth of the tolerance (sat2d.cc);
  // the verdict, and the axis of a separated pair, from the larger
  // separation itself (as ContactSat), and in the band (0, tolerance] from
  // the exact distance (sat2d.h, PolygonsOverlap).
  const float best = std::max(sep_a, sep_b);
  bool touching = -best >= -tolerance;
  if (touching && best > 0.0f) {
    touching = internal2d::BoxesTouch(ha, hb, b_in_a, tolerance);
  }
  const bool flip = touching ? sep_b > sep_a + internal2d::kFaceBias * tolerance
                             : sep_b > sep_a;
  ContactResult<2> result;
  result.depth = -(flip ? sep_b : sep_a);
  // The normal from A to B: the winning axis, signed by B's side.
  const float dist = flip ? (b_v ? dv : du) : (a_y ? d.y : d.x);
  const float sign = SignOf(dist);
  const Vec2 axis = flip ? (b_v ? Vec2{-s, c} : Vec2{c, s})
                         : (a_y ? Vec2{0.0f, 1.0f} : Vec2{1.0f, 0.0f});
  result.normal = sign * axis;
  // depth >= -tolerance, but in the band, where the exact distance decides.
  result.overlapping = touching;
  if (!result.overlapping) return result;
  // Clip in the reference box's frame: A's, or B's, where A has centre
  // (-du, -dv) and rotation (c, -s). The reference face's outward normal is
  // ref_sign * e_k there (towards the other box's centre).
  const Vec2 h_ref = flip ? hb : ha;
  const Vec2 h_inc = flip ? ha : hb;
  const Vec2 centre = flip ? Vec2{-du, -dv} : d;
  const float rs = flip ? -s : s;
  const bool ky = flip ? b_v : a_y;
  const float ref_sign = flip ? -sign : sign;
  // Coordinates (n, t): n along the reference normal (ref_sign * e_k), t
  // along the other axis; the reference face is n = hn, |t| <= ht.
  const float hn = ky ? h_ref.y : h_ref.x;
  const float ht = ky ? h_ref.x : h_ref.y;
  const float mn0 = ref_sign * (ky ? centre.y : centre.x);
  const float mt0 = ky ? centre.x : centre.y;
  // The incident box's axes u = (c, rs), v = (-rs, c) in (n, t).
  const float un = ref_sign * (ky ? rs : c);
  const float ut = ky ? c : rs;
  const float vn = ref_sign * (ky ? c : -rs);
  const float vt = ky ? -rs : c;
  // Incident face: the one most anti-parallel to n, i.e. on the axis e with
  // the larger |e.n|, at -sign(e.n) h_e e from the centre; it runs along
  // the other axis f, over lambda in [-h_f, h_f].
  const bool on_u = std::fabs(un) >= std::fabs(vn);
  const float en = on_u ? un : vn;
  const float et = on_u ? ut : vt;
  const float he = on_u ? h_inc.x : h_inc.y;
  const float fn = on_u ? vn : un;
  const float ft = on_u ? vt : ut;
  const float hf = on_u ? h_inc.y : h_inc.x;
  const float g = en < 0.0f ? -he : he;
  const float mn = mn0 - g * en;
  const float mt = mt0 - g * et;
  // Clip t(lambda) = mt + lambda ft to [-ht, ht]. f is perpendicular to e
  // and |e.n| >= 1/sqrt(2), so |ft| = |en| >= 1/sqrt(2): no division by a
  // small number.
  const float inv = 1.0f / ft;
  const float la = (-ht - mt) * inv;
  const float lb = (ht - mt) * inv;
  float lo = std::max(-hf, std::min(la, lb));
  float hi = std::min(hf, std::max(la, lb));
  // Ranges apart (a corner contact within the tolerance): the deepest
  // incident vertex alone.
  const bool apart = lo > hi;
  const float deepest = fn > 0.0f ? -hf : hf;
  lo = apart ? deepest : lo;
  hi = apart ? deepest : hi;
  const float n1 = mn + lo * fn;
  const float n2 = mn + hi * fn;
  const bool keep2 = hi > lo && hn - n2 >= -tolerance;
  // Neither deep enough (a touch within the tolerance whose clipped part
  // lies just past -tolerance): the deeper end alone, as ClipIncidentEdge.
  const bool keep1 = hn - n1 >= -tolerance || (!keep2 && n1 <= n2);
  // Midway between the surfaces: n = (hn + n_i) / 2.
  const float pn1 = 0.5f * (hn + n1);
  const float pn2 = 0.5f * (hn + n2);
  const float pt1 = mt + lo * ft;
  const float pt2 = mt + hi * ft;
  // Back to the reference box's frame, then to A's.
  const float sn1 = ref_sign * pn1;
  const float sn2 = ref_sign * pn2;
  const Vec2 r1 = ky ? Vec2{pt1, sn1} : Vec2{sn1, pt1};
  const Vec2 r2 = ky ? Vec2{pt2, sn2} : Vec2{sn2, pt2};
  const Vec2 q1 = flip ? Transform(b_in_a, r1) : r1;
  const Vec2 q2 = flip ? Transform(b_in_a, r2) : r2;
  result.points[0] = keep1 ? q1 : q2;
  result.points[1] = q2;
  result.point_count =
      std::max(1, static_cast<int>(keep1) + static_cast<int>(keep2));
  return result;
}

}  // namespace

ContactResult<2> ContactBoxBox(const Box2& a, const Box2& b,
                               const Pose2& b_in_a) {
  const Vec2 ha = a.half_extents;
  const Vec2 hb = b.half_extents;
  const Vec2 d = b_in_a.position;
  const float c = b_in_a.rotation.c;
  const float s = b_in_a.rotation.s;
  const float ac = std::fabs(c);
  const float as = std::fabs(s);
  // B's centre along B's own axes u = (c, s) and v = (-s, c).
  const float du = c * d.x + s * d.y;
  const float dv = c * d.y - s * d.x;
  const float sep0 = std::fabs(d.x) - (ha.x + hb.x * ac + hb.y * as);
  const float sep1 = std::fabs(d.y) - (ha.y + hb.x * as + hb.y * ac);
  const float sep2 = std::fabs(du) - (hb.x + ha.x * ac + ha.y * as);
  const float sep3 = std::fabs(dv) - (hb.y + ha.x * as + ha.y * ac);
  const float tolerance =
      TouchingTolerance(ha.x + ha.y + hb.x + hb.y + Length(d));
  return ContactFromSeparations(ha, hb, b_in_a, du, dv, sep0, sep1, sep2, sep3,
                                tolerance);
}

SweepResult<2> SweepBoxBox(const Box2& a, const Box2& b, const Pose2& b_in_a,
                           Vec2 motion) {
  using internal2d::F4;
  const Vec2 ha = a.half_extents;
  const Vec2 hb = b.half_extents;
  const Vec2 d = b_in_a.position;
  const float c = b_in_a.rotation.c;
  const float s = b_in_a.rotation.s;
  const float ac = std::fabs(c);
  const float as = std::fabs(s);
  const float tolerance =
      TouchingTolerance(ha.x + ha.y + hb.x + hb.y + Length(d));
  SweepResult<2> result;
  // The four axes L = x, y, u = (c, s), v = (-s, c) at once, branch-free
  // (on random inputs every data-dependent branch here mispredicts about
  // half the time, which costs more than the math): centre distance d.L,
  // projected radii r_A(L) + r_B(L), rate v.L, and two vector divisions
  // for every axis' interval. Built from scalars in registers (a vector load of
  // values just stored as scalars would stall on store forwarding). The
  // lanes are computed exactly as ContactBoxBox computes its separations,
  // so a start within the tolerance gives the same contact.
  const F4 dist{d.x, d.y, c * d.x + s * d.y, c * d.y - s * d.x};
  // radius_L = (h_L + p_L |.|) + q_L |.|, lane by lane the sums
  // ha.x + hb.x ac + hb.y as, ha.y + hb.x as + hb.y ac, and with A and B
  // swapped for u and v, in the same order of operations as ContactBoxBox.
  // h from scalars: copying the two extents into it with memcpy made GCC
  // assemble it on the stack and reload 16 bytes, a store-forwarding stall
  // (35 against 22 ns per sweep).
  const F4 h{ha.x, ha.y, hb.x, hb.y};
  const F4 cs{ac, as, ac, as};
  const F4 radius = (h + __builtin_shufflevector(h, h, 2, 2, 0, 0) * cs) +
                    __builtin_shufflevector(h, h, 3, 3, 1, 1) *
                        __builtin_shufflevector(cs, cs, 1, 0, 1, 0);
  const F4 rate{motion.x, motion.y, c * motion.x + s * motion.y,
                c * motion.y - s * motion.x};
  const F4 abs_dist = Abs4(dist);
  const auto inside = abs_dist <= radius + tolerance;
  // Within the tolerance on every axis, and not apart on any (or, in the
  // band, within it in exact distance, as ContactFromSeparations decides).
  if (LaneBits(inside) == 0xF &&
      (!internal2d::AnyLane(abs_dist > radius) ||
       internal2d::BoxesTouch(ha, hb, b_in_a, tolerance))) {
    const F4 sep = abs_dist - radius;
    result.outcome = SweepOutcome::kStartedOverlapping;
    result.initial =
        ContactFromSeparations(ha, hb, b_in_a, dist[2], dist[3], sep[0], sep[1],
                               sep[2], sep[3], tolerance);
    return result;
  }
  // No motion along L: overlapping on L for all t, or never.
  const auto still = rate == 0.0f;
  const auto apart = still & (abs_dist > radius);
  const bool never = internal2d::AnyLane(apart);
  // Each axis' interval, [t0, t1] or [t1, t0]. A quotient can overflow
  // (FE_OVERFLOW) only for a rate below 1, and there the numerators are
  // clamped to 2 |rate|, so the times to [-2, 2]. That changes no outcome:
  // clamping is monotone, so it keeps every order except by making times
  // beyond 2 (or below -2) equal; a hit needs its entry in [0, 1], and
  // then the entering axis (the latest entry) and the earliest exit, if it
  // precedes 1, are unclamped. Zero rates divide by 1 (their lanes are
  // replaced below).
  const F4 one = internal2d::Splat(1.0f);
  const F4 inf = internal2d::Splat(internal2d::kInfinity);
  const F4 abs_rate = Abs4(rate);
  const auto slow = abs_rate < one;
  const F4 capped = slow ? abs_rate : one;  // 2 |rate| must not overflow.
  const F4 limit = slow ? capped + capped : inf;
  const auto clamp = [&](F4 x) {
    x = x < -limit ? -limit : x;
    return x > limit ? limit : x;
  };
  const F4 divisor = still ? one : rate;
  const F4 t0 = clamp(-radius - dist) / divisor;
  const F4 t1 = clamp(radius - dist) / divisor;
  const F4 lo = still ? -inf : (t0 < t1 ? t0 : t1);
  const F4 hi = still ? inf : (t0 < t1 ? t1 : t0);
  // enter = max(max(lo0, lo1), max(lo2, lo3)) and exit likewise with min,
  // as std::max / std::min (the same operands, so the same result for ties
  // and NaN), two lane-wise steps instead of lane extractions.
  // (__builtin_shufflevector, not GCC's __builtin_shuffle: the fuzz and
  // tidy builds compile this file with clang.)
  const F4 lo2 = Max4(lo, __builtin_shufflevector(lo, lo, 1, 0, 3, 2));
  const F4 hi2 = Min4(hi, __builtin_shufflevector(hi, hi, 1, 0, 3, 2));
  const float enter =
      Max4(lo2, __builtin_shufflevector(lo2, lo2, 2, 3, 0, 1))[0];
  const float exit =
      Min4(hi2, __builtin_shufflevector(hi2, hi2, 2, 3, 0, 1))[0];
  // Written so that a NaN (from non-finite input) is a miss.
  if (never || !(enter <= exit && enter <= 1.0f && exit >= 0.0f) ||
      enter == -internal2d::kInfinity) {
    // No touch at separation 0. A graze (within the tolerance on the way,
    // sweep2d.cc SweepGraze) needs every axis' gap within the tolerance at
    // one time t_g in [0, 1]: on axis L that widens the interval by e_L =
    // tol / |rate_L| at each end (still axes: |d.L| <= r_L + tol), so
    // enter - E <= t_g <= exit + E with E = tol / min |rate| (times clamped
    // to +-2 still bracket t_g), whence the margin max(enter - exit, enter
    // - 1, -exit) <= 2 E, i.e. margin x |rate_L| <= 2 tol on some moving
    // axis. A miss by more than that (nearly every miss; the test is a few
    // vector instructions, no horizontal reduction) is final; the rest go
    // to the cold graze on the box cores. No motion at all (enter = -inf):
    // no graze. (Past that test the margin is finite, as some axis moves,
    // or NaN from non-finite input, a miss.)
    if (enter == -internal2d::kInfinity ||
        internal2d::AnyLane(still & ~inside)) {
      return result;  // kMiss
    }
    const float margin = std::max(std::max(enter - exit, enter - 1.0f), -exit);
    const auto close = (margin * abs_rate <= 3.0f * tolerance) & ~still;
    if (!internal2d::AnyLane(close)) [[likely]] {
      return result;  // kMiss
    }
    // Assigned, not returned: one named result keeps the return value
    // optimisation (returning another object here made every return copy
    // `result` from the stack: +1.3 ns on the generic sweep).
    result = internal2d::GrazeBoxBox(ha, hb, b_in_a, motion, tolerance);
    return result;
  }
  // The first axis whose entry is the latest (some lane equals the max).
  const int k = __builtin_ctz(static_cast<unsigned>(LaneBits(lo == enter)));
  const float t = std::max(enter, 0.0f);
  // B approaches from the side it starts on: the normal n = side * L_k.
  const float side = SignOf(dist[k]);
  const float axis_x[4] = {1.0f, 0.0f, c, -s};
  const float axis_y[4] = {0.0f, 1.0f, s, c};
  result.outcome = SweepOutcome::kHit;
  result.fraction = t;
  result.normal = {side * axis_x[k], side * axis_y[k]};
  // Contact point: the reference face (the entering axis' face of its box,
  // towards the other box) meets the other box's support feature at time t,
  // a vertex, or an edge when that edge is (within the tolerance)
  // parallel to the face; the point is the midpoint of the two features'
  // overlap along the face, on the face. Worked out branch-free in the
  // reference box's frame, in coordinates (n, t) as ContactFromSeparations: the
  // face is n = hn, |t| <= ht. A's axes enter for k < 2; for B's, A is the
  // incident box, with centre -R^T dt and rotation (c, -s) in B's frame.
  const Vec2 dt = d + t * motion;
  const bool flip = k >= 2;
  const bool ky = (k & 1) != 0;
  const Vec2 h_ref = flip ? hb : ha;
  const Vec2 h_inc = flip ? ha : hb;
  const Vec2 centre =
      flip ? Vec2{-(c * dt.x + s * dt.y), s * dt.x - c * dt.y} : dt;
  const float rs = flip ? -s : s;
  const float ref_sign = flip ? -side : side;
  const float hn = ky ? h_ref.y : h_ref.x;
  const float ht = ky ? h_ref.x : h_ref.y;
  const float mt = ky ? centre.x : centre.y;
  // The incident box's axes u = (c, rs), v = (-rs, c) in (n, t).
  const float un = ref_sign * (ky ? rs : c);
  const float ut = ky ? c : rs;
  const float vn = ref_sign * (ky ? c : -rs);
  const float vt = ky ? -rs : c;
  // Its support vertex towards -n (smallest n), and the neighbour along u,
  // else along v, when that edge's ends differ in n by at most the
  // tolerance.
  const float su = h_inc.x * SignOf(un);
  const float sv = h_inc.y * SignOf(vn);
  const float pt0 = mt - su * ut - sv * vt;
  const bool along_u = 2.0f * std::fabs(un) * h_inc.x <= tolerance;
  const bool along_v = !along_u && 2.0f * std::fabs(vn) * h_inc.y <= tolerance;
  const float pt1 = pt0 + (along_u ? 2.0f * su * ut : 0.0f) +
                    (along_v ? 2.0f * sv * vt : 0.0f);
  const float ilo = std::min(pt0, pt1);
  const float ihi = std::max(pt0, pt1);
  const float lo_t = std::max(-ht, ilo);
  const float hi_t = std::min(ht, ihi);
  // The ranges meet at the exact time of impact; lo_t > hi_t only under
  // round-off (two nearly parallel axes entering at nearly the same time),
  // and then the end of the face nearest the incident feature is the
  // contact (the incident point itself could lie off the reference box by
  // the round-off gap times the edge length).
  const float mid =
      lo_t <= hi_t ? 0.5f * (lo_t + hi_t) : (ihi < lo_t ? lo_t : hi_t);
  const float pn = ref_sign * hn;
  const Vec2 on_face = ky ? Vec2{mid, pn} : Vec2{pn, mid};
  result.point =
      flip ? Transform(Pose2{dt, b_in_a.rotation}, on_face) : on_face;
  return result;
}

}  // namespace sator
