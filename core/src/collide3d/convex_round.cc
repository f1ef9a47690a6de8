// Round shapes by the closest-feature axis; Ericson, "Real-Time Collision
// Detection" (2005), 4.3.2 and chapter 5.
#include "convex_round.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "convex_closest.h"
#include "double_vec3.h"
#include "simd/float4.h"

namespace sator::internal {
namespace {

// The interval of the polytope's vertices projected on u, in float from the
// structure-of-arrays layout (`padded` entries per coordinate, the padding
// copies of a vertex): a cheap bracket of the double interval that
// RoundPolySatD measures (see there for its error). The minimum and maximum
// start from +-infinity, so that every projection counts whatever its size.
void FloatInterval(const float* soa, int padded, D3 u, float* lo, float* hi) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const auto ux = static_cast<float>(u.x);
  const auto uy = static_cast<float>(u.y);
  const auto uz = static_cast<float>(u.z);
  using simd::Float4;
  const Float4 vx = Float4::Splat(ux);
  const Float4 vy = Float4::Splat(uy);
  const Float4 vz = Float4::Splat(uz);
  Float4 mn = Float4::Splat(kInf);
  Float4 mx = Float4::Splat(-kInf);
  for (int k = 0; k < padded; k += 4) {
    const Float4 d =
        (vx * Float4::Load(soa + k) + vy * Float4::Load(soa + padded + k)) +
        vz * Float4::Load(soa + 2 * padded + k);
    mn = simd::Min(mn, d);
    mx = simd::Max(mx, d);
  }
  *lo = simd::MinLane(mn);
  *hi = simd::MaxLane(mx);
}

// The interval of the core's vertices projected on the unit axis u, in
// double: a product of two floats is exact there, so the interval is good to
// about 1e-16 of the coordinates, where float's (Project) carries a few
// ulps of them, as much as the whole tolerance of the depth.
void ProjectD3(const PolyRef& p, Vec3 u, double* lo, double* hi) {
  const D3 ud = ToD3(u);
  double min_v = Dot(ud, ToD3(p.vertices[0]));
  double max_v = min_v;
  for (int i = 1; i < p.vertex_count; ++i) {
    const double d = Dot(ud, ToD3(p.vertices[i]));
    min_v = d < min_v ? d : min_v;
    max_v = d > max_v ? d : max_v;
  }
  *lo = min_v;
  *hi = max_v;
}

// The gap between the cores along the unit direction u (B's lowest point
// minus A's highest; negative when their projections overlap).
double CoreGap(const PolyRef& a, const PolyRef& b, Vec3 u) {
  double a_lo;
  double a_hi;
  double b_lo;
  double b_hi;
  ProjectD3(a, u, &a_lo, &a_hi);
  ProjectD3(b, u, &b_lo, &b_hi);
  return b_lo - a_hi;
}

// The unit direction of tie i's difference (from its point of A to its
// point of B); false for a pair of coincident points.
bool TieDirection(const CorePairs& ties, int i, Vec3* u) {
  const float len = Length(ties.diffs[i]);
  if (!(len > 0.0f)) return false;
  *u = (1.0f / len) * ties.diffs[i];
  return true;
}

// Both cores points or segments. The axis perpendicular to both (unit, in
// either orientation): the normal d_a x d_b of their parallelogram, formed in
// double from the edge vectors (differences of floats, exact there), so its
// direction is good to about 1e-16 / sin(angle) at any angle (in float the
// cross product of nearly parallel edges is off by about 1e-7 / sin(angle),
// which, times the segments' length, the overlap measured along it gained).
// For parallel segments, or a point and a segment, the closest points'
// difference with its part along the segment removed; for two points, the
// difference, or z.
//
// The part along the segment is removed by projecting the difference on two
// unit vectors e1, e2 that complete the segment's direction to an
// orthonormal frame, not by subtracting the part along it: when the
// difference lies along the segment (a point on the segment's line, its
// difference from its closest point mere round-off), the subtraction leaves
// a residual of round-off that points along the segment too, and the
// overlap measured along that axis was the segment's length past the point,
// deeper than r_a + r_b. The frame's vectors are perpendicular to the
// segment to double precision whatever the difference is; when its
// perpendicular part is nothing but round-off (below 1e-9 of its length,
// so that its direction would carry that round-off), e1 serves: the cores'
// gap along any perpendicular is then within that part of d.
Vec3 FlatCoresAxis(const PolyRef& a, const PolyRef& b, Vec3 diff) {
  D3 ua{};
  D3 ub{};
  if (a.kind == CoreKind::kSegment) {
    ua = ToD3(a.vertices[1]) - ToD3(a.vertices[0]);
  }
  if (b.kind == CoreKind::kSegment) {
    ub = ToD3(b.vertices[1]) - ToD3(b.vertices[0]);
  }
  const D3 c = Cross(ua, ub);
  const double c2 = Dot(c, c);
  if (c2 > 0.0) return ToVec3((1.0 / std::sqrt(c2)) * c);
  const D3 u = Dot(ua, ua) > 0.0 ? ua : ub;
  const double uu = Dot(u, u);
  const D3 w = ToD3(diff);
  const double ww = Dot(w, w);
  if (!(uu > 0.0)) {
    if (ww > 0.0) return ToVec3((1.0 / std::sqrt(ww)) * w);
    return {0.0f, 0.0f, 1.0f};
  }
  const D3 e0 = (1.0 / std::sqrt(uu)) * u;
  // e1: e0 crossed with the coordinate axis least aligned with it.
  const D3 m{std::fabs(e0.x), std::fabs(e0.y), std::fabs(e0.z)};
  D3 axis{1.0, 0.0, 0.0};
  if (m.y < m.x && m.y <= m.z) {
    axis = {0.0, 1.0, 0.0};
  } else if (m.z < m.x && m.z < m.y) {
    axis = {0.0, 0.0, 1.0};
  }
  D3 e1 = Cross(e0, axis);
  e1 = (1.0 / Len(e1)) * e1;
  const D3 e2 = Cross(e0, e1);
  const double s1 = Dot(w, e1);
  const double s2 = Dot(w, e2);
  const double perpendicular2 = s1 * s1 + s2 * s2;
  if (!(perpendicular2 > 1e-18 * ww)) return ToVec3(e1);
  return ToVec3((1.0 / std::sqrt(perpendicular2)) * (s1 * e1 + s2 * e2));
}

// r_a + r_b minus the cores' gap along the better orientation of the unit
// axis *u (the one with the larger gap, left in *u).
double AlongBetterSign(const PolyRef& a, const PolyRef& b, double radii,
                       Vec3* u) {
  double a_lo;
  double a_hi;
  double b_lo;
  double b_hi;
  ProjectD3(a, *u, &a_lo, &a_hi);
  ProjectD3(b, *u, &b_lo, &b_hi);
  const double plus = b_lo - a_hi;
  const double minus = a_lo - b_hi;
  if (minus > plus) {
    *u = -*u;
    return radii - minus;
  }
  return radii - plus;
}

// The cores' SAT in double for a point or segment core (`round`) against a
// polytope core (`poly`; a box, hull or triangle), for cores within
// kCoreContactFraction of each other or intersecting. The axes are the
// polytope's face normals and, for a segment, the cross products of its
// direction with every polytope edge: for a segment (or a point) and a
// polytope these are all the face normals of their Minkowski difference
// (the polytope's faces, and the parallelograms of the segment and an
// edge), so the least overlap over them is the cores' penetration depth.
// The edge axes are formed in double from the float vertices (their
// differences are exact there), so a segment nearly parallel to an edge
// keeps an axis good to about 1e-16 / sin(angle) (in float it is off by
// about 1e-7 / sin(angle), or skipped below a sine of kParallelSine, and a
// long segment beside an edge would be reported far too deep), and every axis
// is measured by projecting both cores in double. Returns r_a + r_b minus
// the largest gap over the axes, and that axis from A to B in *n.
//
// With a `floor` gap and a point `on_poly` of the polytope (for a hull read
// in place: the cores' closest point on it), for a caller that uses the
// answer only when the largest gap is above the floor: axes whose gap
// cannot exceed it are skipped too. Their gap is at most the round core's
// distance from on_poly along the axis (on_poly lies between the
// polytope's lowest and highest points along it, within float_slack for
// its rounding to float: 2^-24 of each coordinate, or 2^-150 absolutely
// for a subnormal one, below the slack's 1e-44), which for cores apart by d is
// at most d |cos| of the axis's angle to the closest points' direction. When
// the largest gap is above the floor the axis that first reaches it is measured
// and the answer is the full loop's; otherwise both answers lie at or below the
// floor and the caller ignores either.
double RoundPolySatD(const PolyRef& a, const PolyRef& b, double radii, Vec3* n,
                     double floor = -3.0e300, const Vec3* on_poly = nullptr) {
  const bool a_round = IsRound(a);
  const PolyRef& round = a_round ? a : b;
  const PolyRef& poly = a_round ? b : a;
  // The polytope's vertices in double once (a hull has up to 64).
  D3 pv[kMaxPolyVertices];
  for (int i = 0; i < poly.vertex_count; ++i) pv[i] = ToD3(poly.vertices[i]);
  const D3 r0 = ToD3(round.vertices[0]);
  const D3 r1 = round.kind == CoreKind::kSegment ? ToD3(round.vertices[1]) : r0;
  double best_gap = -3.0e300;
  D3 best_axis{0.0, 0.0, 1.0};
  // For a hull read in place with its structure-of-arrays vertices, an axis
  // is first bracketed in float: the float projections of the vertices
  // (u rounded to float, then three products and two sums) are within
  // 5 x 2^-24 (|u_x x| + |u_y y| + |u_z z|) <= 9e-7 max|coordinate| of the
  // double ones while the products and sums are normal floats; where they
  // are subnormal each of the three products and two sums rounds by up to
  // 2^-150 absolutely (7e-46), however small the coordinates. So with the
  // slack `float_slack` (4e-6 max|coordinate| plus 1e-44, and 1e-14 of the
  // round core's projections for the double sums' rounding) the bracket's
  // gap is at least the axis's double gap. An axis whose bracket's gap is
  // at most the best gap so far cannot be kept (only a larger gap is), so
  // it is skipped: the result is the full loop's, bit for bit, for a
  // fraction of the cost of the axes that lose. Coordinates beyond 1e37
  // are not bracketed: there a float sum of three projections (up to
  // sqrt(3) max|coordinate|) could overflow.
  const float* soa = poly.vertex_soa;
  const int padded = (poly.vertex_count + 3) & ~3;
  double float_slack = 0.0;
  if (soa != nullptr) {
    // The vertices' largest |coordinate|, stored after their x, y and z,
    // the face planes and the inscribed ball (HullSoaSize, hull_sat.h).
    const float m = soa[3 * padded + 4 * ((poly.face_count + 3) & ~3) + 7];
    float_slack = 4e-6 * static_cast<double>(m) + 1e-44;
    if (!(m <= 1e37f)) soa = nullptr;
  }
  // The gap between the cores along the unit axis u in its better
  // orientation (B above A), kept if it is the largest so far.
  const D3 point = on_poly != nullptr ? ToD3(*on_poly) : D3{};
  const auto measure = [&](D3 u) {
    const double bar = best_gap > floor ? best_gap : floor;
    if (soa != nullptr && bar > -1.0e300) {
      const double d0 = Dot(u, r0);
      const double d1 = Dot(u, r1);
      const double r_lo = d0 < d1 ? d0 : d1;
      const double r_hi = d0 < d1 ? d1 : d0;
      const double slack =
          float_slack + 1e-14 * (std::fabs(r_lo) + std::fabs(r_hi));
      if (on_poly != nullptr && floor > -1.0e300) {
        const double c = Dot(u, point);
        const double above = (c + slack) - r_hi;
        const double below = r_lo - (c - slack);
        if ((above > below ? above : below) <= bar) return;
      }
      float f_lo;
      float f_hi;
      FloatInterval(soa, padded, u, &f_lo, &f_hi);
      const double above = (static_cast<double>(f_lo) + slack) - r_hi;
      const double below = r_lo - (static_cast<double>(f_hi) - slack);
      if ((above > below ? above : below) <= bar) return;
    }
    double p_lo = Dot(u, pv[0]);
    double p_hi = p_lo;
    for (int i = 1; i < poly.vertex_count; ++i) {
      const double d = Dot(u, pv[i]);
      p_lo = d < p_lo ? d : p_lo;
      p_hi = d > p_hi ? d : p_hi;
    }
    const double d0 = Dot(u, r0);
    const double d1 = Dot(u, r1);
    const double r_lo = d0 < d1 ? d0 : d1;
    const double r_hi = d0 < d1 ? d1 : d0;
    // Gap with the polytope above the round core, and below it.
    const double above = p_lo - r_hi;
    const double below = r_lo - p_hi;
    const double gap = above > below ? above : below;
    if (gap > best_gap) {
      best_gap = gap;
      // From A to B: B above A along u.
      const bool b_above = a_round ? above >= below : below > above;
      best_axis = b_above ? u : -1.0 * u;
    }
  };
  for (int f = 0; f < poly.face_count; ++f) {
    measure(ToD3(poly.faces[f].normal));
  }
  if (round.kind == CoreKind::kSegment) {
    const D3 dr = r1 - r0;
    for (int e = 0; e < poly.edge_count; ++e) {
      const D3 c = Cross(dr, pv[poly.edges[e].b] - pv[poly.edges[e].a]);
      const double c2 = Dot(c, c);
      if (c2 > 0.0) measure((1.0 / std::sqrt(c2)) * c);
    }
  }
  *n = ToVec3(best_axis);
  return radii - best_gap;
}

// Whether the distance d between a segment core and a polytope is below
// 1e-7 of the segment's length, where a direction taken from a point in
// the segment's interior (good to 1e-16 of the coordinates, in double)
// turns by enough over d that the segment's extent along it grows past
// a tenth of FLT_EPSILON x M.
bool FarBelowLength(const PolyRef& round, double d) {
  if (round.kind != CoreKind::kSegment) return false;
  const D3 s = ToD3(round.vertices[1]) - ToD3(round.vertices[0]);
  return d * d < 1e-14 * Dot(s, s);
}

// For a point core and a polytope (either order), the normal of the
// polytope's face the point is farthest in front of, from A to B; false
// for a polytope without faces.
bool FrontFaceNormal(const PolyRef& a, const PolyRef& b, Vec3* u) {
  const bool a_round = IsRound(a);
  const PolyRef& poly = a_round ? b : a;
  const D3 p = ToD3((a_round ? a : b).vertices[0]);
  double best = -3.0e300;
  for (int f = 0; f < poly.face_count; ++f) {
    const double h = Dot(ToD3(poly.faces[f].normal), p) - poly.faces[f].offset;
    if (h > best) {
      best = h;
      *u = poly.faces[f].normal;
    }
  }
  if (a_round) *u = -*u;
  return poly.face_count > 0;
}

// The point of a point or segment core deepest along u, or `closest` for a
// segment lying across u (DeepestCorePoint).
Vec3 RoundCorePoint(const PolyRef& round, Vec3 u, Vec3 closest) {
  const bool segment = round.kind == CoreKind::kSegment;
  return DeepestCorePoint(round.vertices[0], round.vertices[segment ? 1 : 0],
                          segment, u, closest);
}

}  // namespace

ContactResult<3> ContactRound(const PolyRef& a, const PolyRef& b) {
  ContactResult<3> result;
  Vec3 pa;
  Vec3 pb;
  Vec3 diff;
  CorePairs ties;
  // The distance d and the direction come from the closest points'
  // difference taken in double before the points are rounded
  // (ClosestCorePoints; Ericson 5.1.2, 5.1.5, 5.1.9): rounding them first
  // tilted the direction by about an ulp of the coordinates over d, also
  // along a long segment, whose extent along the direction then grew by its
  // length times that tilt, and the depth measured below with it.
  const double d = ClosestCorePoints(a, b, &pa, &pb, &diff, &ties);
  const double radii = static_cast<double>(a.radius) + b.radius;
  // Two point or segment cores: their Minkowski difference (a point, a
  // segment or a parallelogram) has no interior, so the cores' penetration
  // is 0 and the depth is r_a + r_b - d however small d is, with no SAT.
  const bool flat = IsRound(a) && IsRound(b);
  if (flat || d > kCoreContactFraction * radii) {
    Vec3 n{0.0f, 0.0f, 1.0f};
    const float diff_len = Length(diff);
    if (diff_len > 0.0f) n = (1.0f / diff_len) * diff;
    double depth = radii - d;
    if (depth >= 0.0 && (a.kind != CoreKind::kPoint ||
                         b.kind != CoreKind::kPoint || d == 0.0)) {
      // Near-ties among the candidate pairs (a vertex and a point of an
      // edge next to it, say) have lengths equal to round-off but
      // directions apart by the offset over d. So measure each candidate's
      // axis by projection, measure one more axis (the cores' SAT axis, or
      // for two flat cores the axis perpendicular to both), and keep the
      // one with less overlap: each is exact along its own axis, so the
      // depth reported is the overlap along the normal reported. (Apart,
      // the closest points give the exact distance, which SAT only bounds.)
      // Along the true direction the overlap is r_a + r_b - d; along its
      // float rounding (about 6e-8 off) at most the cores' extent times
      // that more.
      bool measured = false;
      for (int i = 0; i < ties.count; ++i) {
        Vec3 u;
        if (!TieDirection(ties, i, &u)) continue;
        const double along = radii - CoreGap(a, b, u);
        if (!measured || along < depth) {
          depth = along;
          n = u;
          pa = ties.pa[i];
          pb = ties.pb[i];
          measured = true;
        }
      }
      if (flat) {
        // When d is small the closest points' direction carries their
        // round-off over d; the axis perpendicular to both cores does not,
        // and along it the gap is d whenever the closest points are
        // interior (and 0 for crossing segments).
        Vec3 u = FlatCoresAxis(a, b, diff);
        const double along = AlongBetterSign(a, b, radii, &u);
        if (!measured || along < depth) {
          depth = along;
          n = u;
        }
      } else {
        // The cores' SAT in double: it bounds the distance from below, so
        // it never beats an exact closest-point direction, but where the
        // cores cross by round-off (a segment along a triangle's edge) the
        // closest points report a gap below an ulp of the coordinates in a
        // direction along which the cores overlap by far more.
        // Used only below the depth so far: a floor for the SAT's gap a
        // margin of 1e-12 of the magnitudes below radii - depth, well
        // beyond that difference's rounding.
        Vec3 u;
        const double floor =
            (radii - depth) - 1e-12 * (std::fabs(radii) + std::fabs(depth));
        const double along =
            RoundPolySatD(a, b, radii, &u, floor, IsRound(a) ? &pb : &pa);
        if (along < depth) {
          n = u;
          depth = along;
        }
      }
    } else if (depth < 0.0) {
      // Apart, the distance is exact, but near-tied candidate pairs (a point
      // where the segment crosses a triangle's plane and the exact
      // edge-edge pair, say) point apart by their offset over d. The true
      // direction separates the cores by the distance and every other by
      // less, so keep the pair whose direction separates them most.
      double best_gap = -3.0e38;
      if (ties.count > 1) {
        for (int i = 0; i < ties.count; ++i) {
          Vec3 u;
          if (!TieDirection(ties, i, &u)) continue;
          const double gap = CoreGap(a, b, u);
          if (gap > best_gap) {
            best_gap = gap;
            n = u;
            pa = ties.pa[i];
            pb = ties.pb[i];
          }
        }
      }
      if (!flat && FarBelowLength(IsRound(a) ? a : b, d)) {
        // A segment's interior point closest: its double coordinates
        // carry 1e-16 of the coordinates, which over d tilts the
        // direction, and across the segment's length L the overlap along
        // it grows by L times that tilt (a capsule 8714 long 2.3e-6 from
        // a hull 1e-3 across: 0.0044, 7.4 FLT_EPSILON x M). The closest
        // pair is then a segment interior point and a polytope edge or
        // face, whose direction is a SAT axis (the segment crossed with
        // the edge, or the face's normal), measured exactly: keep it if
        // it separates the cores more.
        if (!(best_gap > -3.0e38)) best_gap = CoreGap(a, b, n);
        Vec3 u;
        const double gap = radii - RoundPolySatD(a, b, radii, &u);
        if (gap > best_gap) n = u;
      } else if (!flat && (IsRound(a) ? a : b).kind == CoreKind::kPoint) {
        // A point core: the closest point on a sliver face (or fan
        // triangle) carries the round-off of its barycentric products,
        // 1e-16 of the face's length squared over its area, along the
        // face, which over d tilts the direction (a point 3.7e-4 from a
        // box face 20 long and 0.012 wide: 2.4e-6, the box's extent along
        // it 32 FLT_EPSILON x M more). Where a face is closest its normal
        // is the direction: measure the face the point is farthest in
        // front of and keep it if it separates the cores more.
        if (!(best_gap > -3.0e38)) best_gap = CoreGap(a, b, n);
        Vec3 u;
        if (FrontFaceNormal(a, b, &u)) {
          const double gap = CoreGap(a, b, u);
          if (gap > best_gap) n = u;
        }
      }
    }
    result.normal = n;
    result.depth = static_cast<float>(depth);
    result.overlapping = result.depth >= 0.0f;
    if (result.overlapping) {
      // Midway between A's surface point and B's.
      result.points[0] = 0.5f * ((pa + a.radius * n) + (pb - b.radius * n));
      result.point_count = 1;
    }
    return result;
  }
  // The cores touch or intersect (one is a point or a segment, the other a
  // polytope): the cores' SAT in double, plus the radii (growing both
  // shapes by balls grows the Minkowski difference by a ball of the summed
  // radius).
  Vec3 n;
  double depth = RoundPolySatD(a, b, radii, &n);
  // While the cores are apart, the closest points' direction too: where the
  // closest features are a vertex and a vertex or an edge, no SAT axis
  // points along it, and the SAT's largest gap is less than the distance.
  if (d > 0.0) {
    for (int i = 0; i < ties.count; ++i) {
      Vec3 u;
      if (!TieDirection(ties, i, &u)) continue;
      const double along = radii - CoreGap(a, b, u);
      if (along < depth) {
        depth = along;
        n = u;
      }
    }
  }
  result.normal = n;
  result.depth = static_cast<float>(depth);
  result.overlapping = result.depth >= 0.0f;
  if (result.overlapping) {
    // The round shape's deepest surface point towards the polytope, moved
    // half the depth back: midway between the surfaces. (Taken from the
    // polytope, whose support along the normal is often a face, the point
    // was that face's first vertex, anywhere across the face.)
    result.points[0] =
        IsRound(b)
            ? RoundCorePoint(b, -n, pb) - (b.radius - 0.5f * result.depth) * n
            : RoundCorePoint(a, n, pa) + (a.radius - 0.5f * result.depth) * n;
    result.point_count = 1;
  }
  return result;
}

bool OverlapRound(const PolyRef& a, const PolyRef& b) {
  Vec3 pa;
  Vec3 pb;
  return ClosestCorePoints(a, b, &pa, &pb) <=
         static_cast<double>(a.radius) + b.radius;
}

}  // namespace sator::internal
