// Closest points between round-shape cores and other cores.
// Ericson, "Real-Time Collision Detection" (2005), 5.1.2, 5.1.5 and 5.1.9.
#include "convex_closest.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace sator::internal {
namespace {

float Clamp01(float x) { return std::clamp(x, 0.0f, 1.0f); }

// Keeps the closest candidate point pair, and the candidates that tie with
// it within round-off (their directions can differ although their lengths
// agree to float precision). Candidates come in double and their length
// and direction are taken before rounding (see ClosestCorePoints).
struct Best {
  double dist_sq = 0.0;
  D3 pa{};
  D3 pb{};
  bool set = false;
  CorePairs* ties = nullptr;
  void Offer(D3 a, D3 b) {
    const D3 diff = b - a;
    const double d = Dot(diff, diff);
    if (!set || d < dist_sq) {
      dist_sq = d;
      pa = a;
      pb = b;
      set = true;
    }
    if (ties != nullptr) ties->Offer(ToVec3(a), ToVec3(b), ToVec3(diff), d);
  }
};

// The closest point to p on [a, b], in double.
D3 ClosestOnSegmentD3(D3 p, D3 a, D3 b) {
  const D3 ab = b - a;
  const double len_sq = Dot(ab, ab);
  if (!(len_sq > 0.0)) return a;
  return a + std::clamp(Dot(p - a, ab) / len_sq, 0.0, 1.0) * ab;
}

// The closest point of the solid polytope `s` to `p`; returns false (and
// leaves *out alone) when p is inside or on it. The closest point lies on a
// face whose plane has p in front, so only those faces are searched, each as
// a fan of triangles.
bool ClosestPointOnSolid(const PolyRef& s, Vec3 p, D3* out) {
  bool found = false;
  double best = 0.0;
  const D3 pd = ToD3(p);
  for (int f = 0; f < s.face_count; ++f) {
    const ConvexHull::Face& face = s.faces[f];
    if (Dot(face.normal, p) - face.offset <= 0.0f) continue;
    const Vec3 v0 = s.FaceVertex(f, 0);
    for (int i = 1; i + 1 < face.vertex_count; ++i) {
      const D3 q = ClosestPointOnTriangleD3(p, v0, s.FaceVertex(f, i),
                                            s.FaceVertex(f, i + 1));
      const double d = Dot(q - pd, q - pd);
      if (!found || d < best) {
        best = d;
        *out = q;
        found = true;
      }
    }
  }
  return found;
}

// Point against any core.
void PointCore(Vec3 p, const PolyRef& b, Best* best) {
  const D3 pd = ToD3(p);
  switch (b.kind) {
    case CoreKind::kPoint:
      best->Offer(pd, ToD3(b.vertices[0]));
      return;
    case CoreKind::kSegment:
      best->Offer(
          pd, ClosestOnSegmentD3(pd, ToD3(b.vertices[0]), ToD3(b.vertices[1])));
      return;
    case CoreKind::kTriangle:
      best->Offer(pd, ClosestPointOnTriangleD3(p, b.vertices[0], b.vertices[1],
                                               b.vertices[2]));
      return;
    case CoreKind::kSolid: {
      D3 q = pd;
      ClosestPointOnSolid(b, p, &q);
      best->Offer(pd, q);
      return;
    }
  }
}

// Segment [p, q] against a triangle: the crossing of the triangle's plane
// (when the segment crosses it), both endpoints, and the three edges. The
// closest pair is among these: if the segment does not pierce the triangle,
// the distance is reached at a segment endpoint or on a triangle edge.
void SegmentTriangle(Vec3 p, Vec3 q, const PolyRef& t, Best* best) {
  const Vec3 a = t.vertices[0];
  const Vec3 b = t.vertices[1];
  const Vec3 c = t.vertices[2];
  // The crossing in double: in float the point p + t (q - p) is off the
  // segment's line by an ulp of the coordinates, so on a long segment
  // passing a small triangle that candidate would come out nearer than the
  // segment itself, pointing along it (a capsule 1e4 long 1.3e-5 from a
  // 1e-3 triangle was given a normal 0.58 off the perpendicular, its
  // overlap along it 2271 for a depth of -4.6e-6).
  const D3 nd = ToD3(t.faces[0].normal);
  const D3 pd = ToD3(p);
  const D3 qd = ToD3(q);
  const D3 ad = ToD3(a);
  const double dp = Dot(nd, pd - ad);
  const double dq = Dot(nd, qd - ad);
  if ((dp <= 0.0 && dq >= 0.0) || (dp >= 0.0 && dq <= 0.0)) {
    const double denom = dp - dq;
    if (denom != 0.0) {
      const D3 x = pd + std::clamp(dp / denom, 0.0, 1.0) * (qd - pd);
      best->Offer(x, ClosestPointOnTriangleD3(x, a, b, c));
    }
  }
  best->Offer(ToD3(p), ClosestPointOnTriangleD3(p, a, b, c));
  best->Offer(ToD3(q), ClosestPointOnTriangleD3(q, a, b, c));
  const Vec3 v[3] = {a, b, c};
  for (int i = 0; i < 3; ++i) {
    D3 c1;
    D3 c2;
    ClosestPointsSegmentSegmentD3(p, q, v[i], v[(i + 1) % 3], &c1, &c2);
    best->Offer(c1, c2);
  }
}

// Segment [p, q] against a solid polytope. Cyrus-Beck clipping finds
// whether the segment enters the solid; otherwise the closest pair involves a
// segment endpoint or a polytope edge (a segment interior point facing a face
// interior is parallel to that face, so an endpoint or a face edge does as
// well).
void SegmentSolid(Vec3 p, Vec3 q, const PolyRef& s, Best* best) {
  // The clipping runs in double: in float, n . p carries an ulp of the
  // coordinates and q - p is rounded, so a segment 1e4 long crossing a
  // hull 1e-3 across by 3.7e-4 would be found to miss it, its cores given a
  // distance of 1.4e-6 and the depth r - d along the closest points'
  // direction, along which the shapes overlap by 4.3 FLT_EPSILON x M more.
  const D3 pd = ToD3(p);
  const D3 d = ToD3(q) - pd;
  double t_enter = 0.0;
  double t_exit = 1.0;
  bool hit = true;
  for (int f = 0; f < s.face_count && hit; ++f) {
    const ConvexHull::Face& face = s.faces[f];
    const D3 n = ToD3(face.normal);
    const double denom = Dot(n, d);
    const double dist = face.offset - Dot(n, pd);
    if (std::fabs(denom) < 1e-30) {
      if (dist < 0.0) hit = false;
      continue;
    }
    const double t = dist / denom;
    if (denom < 0.0) {
      t_enter = std::max(t_enter, t);
    } else {
      t_exit = std::min(t_exit, t);
    }
    if (t_enter > t_exit) hit = false;
  }
  if (hit) {
    const D3 x = pd + t_enter * d;
    best->Offer(x, x);
    return;
  }
  PointCore(p, s, best);
  PointCore(q, s, best);
  // For a hull read in place (vertex_soa set), the edges that cannot change
  // the answer are skipped: those whose distance from the segment is at
  // least the best candidate's (Offer keeps only a shorter one) and, while
  // ties are collected, at least the farthest of a full set of ties
  // (CorePairs::Offer then changes nothing either), so the result is the
  // full loop's bit for bit. The distance is bounded below by the gap
  // between the segment and the edge projected on the unit direction u
  // from the hull's closest point so far to the segment's (any unit axis
  // bounds the distance, Ericson 5.2.1's separating axis), in double, less
  // a slack of 1e-12 of the largest coordinate for the rounding of the
  // projections and of the candidate's own points and length (about 1e-16
  // of the coordinates); its square is compared with a margin of 1e-9.
  const bool prune = s.vertex_soa != nullptr && best->dist_sq > 0.0;
  double pu[kMaxPolyVertices];
  double s_lo = 0.0;
  double slack = 0.0;
  if (prune) {
    const D3 u = (1.0 / std::sqrt(best->dist_sq)) * (best->pa - best->pb);
    const D3 qd = ToD3(q);
    s_lo = std::min(Dot(u, pd), Dot(u, qd));
    float m = std::max({std::fabs(p.x), std::fabs(p.y), std::fabs(p.z),
                        std::fabs(q.x), std::fabs(q.y), std::fabs(q.z)});
    for (int i = 0; i < s.vertex_count; ++i) {
      const Vec3 v = s.vertices[i];
      pu[i] = Dot(u, ToD3(v));
      m = std::max({m, std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
    }
    slack = 1e-12 * static_cast<double>(m);
  }
  for (int e = 0; e < s.edge_count; ++e) {
    const ConvexHull::Edge& edge = s.edges[e];
    if (prune) {
      const double lb = (s_lo - std::max(pu[edge.a], pu[edge.b])) - slack;
      if (lb > 0.0) {
        double bar = best->dist_sq;
        if (best->ties != nullptr) {
          const CorePairs& t = *best->ties;
          bar = -1.0;  // A set of ties with room takes every candidate.
          if (t.count == kMaxCorePairs) {
            bar = t.dist_sqs[0];
            for (int i = 1; i < t.count; ++i) {
              bar = std::max(bar, t.dist_sqs[i]);
            }
          }
        }
        if (bar >= 0.0 && lb * lb > bar * (1.0 + 1e-9)) continue;
      }
    }
    D3 c1;
    D3 c2;
    ClosestPointsSegmentSegmentD3(p, q, s.vertices[edge.a], s.vertices[edge.b],
                                  &c1, &c2);
    best->Offer(c1, c2);
  }
}

}  // namespace

Vec3 ClosestPointOnSegment(Vec3 p, Vec3 a, Vec3 b) {
  const Vec3 ab = b - a;
  const float len_sq = LengthSquared(ab);
  // A segment shorter than 1e-15 is its first end (the quotient below would
  // lose every digit).
  if (!(len_sq > 1e-30f)) return a;
  return a + Clamp01(Dot(p - a, ab) / len_sq) * ab;
}

// Ericson 5.1.5: classify p against the Voronoi regions of the vertices,
// edges and face of the triangle with barycentric quantities. The
// quantities run in double: the region tests vc, vb and va are differences
// of products that cancel in float on a sliver triangle (a width of 6e-5
// against a length of 2 flipped a sign and put the point 7.7e-3 off the
// face; tests/fuzz/seeds/core_pair/regression_mesh_ray_sliver_triangle.bin).
D3 ClosestPointOnTriangleD3(D3 p, Vec3 a, Vec3 b, Vec3 c) {
  const D3 ad = ToD3(a);
  // a + s * u + t * v.
  auto at = [&](double s, D3 u, double t, D3 v) { return ad + s * u + t * v; };
  const D3 ab = ToD3(b) - ad;
  const D3 ac = ToD3(c) - ad;
  const D3 ap = p - ad;
  const double d1 = Dot(ab, ap);
  const double d2 = Dot(ac, ap);
  if (d1 <= 0.0 && d2 <= 0.0) return ad;
  const D3 bp = p - ToD3(b);
  const double d3 = Dot(ab, bp);
  const double d4 = Dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) return ToD3(b);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    const double denom = d1 - d3;
    return denom > 0.0 ? at(d1 / denom, ab, 0.0, ac) : ad;
  }
  const D3 cp = p - ToD3(c);
  const double d5 = Dot(ab, cp);
  const double d6 = Dot(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) return ToD3(c);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    const double denom = d2 - d6;
    return denom > 0.0 ? at(0.0, ab, d2 / denom, ac) : ad;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
    const double denom = (d4 - d3) + (d5 - d6);
    if (!(denom > 0.0)) return ToD3(b);
    // b + w (c - b) = a + (1 - w) ab + w ac.
    const double w = (d4 - d3) / denom;
    return at(1.0 - w, ab, w, ac);
  }
  const double sum = va + vb + vc;
  if (!(sum > 0.0)) return ad;  // Degenerate triangle (refused upstream).
  return at(vb / sum, ab, vc / sum, ac);
}

D3 ClosestPointOnTriangleD3(Vec3 p, Vec3 a, Vec3 b, Vec3 c) {
  return ClosestPointOnTriangleD3(ToD3(p), a, b, c);
}

Vec3 ClosestPointOnTriangle(Vec3 p, Vec3 a, Vec3 b, Vec3 c) {
  return ToVec3(ClosestPointOnTriangleD3(p, a, b, c));
}

// Ericson 5.1.9: minimise |p1 + s d1 - (p2 + t d2)|^2 over the unit square,
// clamping s, recomputing t, and clamping again. The 2x2 solve runs in
// double: its determinant a e - b^2 = |d1|^2 |d2|^2 sin^2(angle) cancels
// catastrophically in float for nearly parallel segments, and the error of
// s then tilts the direction between the closest points.
//
// What error in s remains is harmless to that direction: with t following
// s (t = (b s + f) / e), moving s by delta moves c1 - c2 by delta times the
// part of d1 perpendicular to d2, of length |d1| sin(angle). The distance
// changes only to second order, and the direction turns by an angle whose
// projection on the segments is at most sin(angle), so their extent along
// it grows by at most |d1| sin(angle) delta; below the parallel cut-off
// (sin^2 < 1e-14, s = 0) that is 1e-7 of the length.
//
// Rounding is the other loss: the points were rounded to float here and
// their difference taken afterwards, which moves each by up to half an ulp
// of the coordinates in any direction, along the segments too, and tilts
// c2 - c1 by about an ulp over the distance: that tilt, times the length,
// is added to the segments' extent along the direction (Ericson's routine
// returns the points, whose difference is exact only in exact arithmetic).
// The D3 version returns the points unrounded so that the caller takes the
// difference first (ClosestCorePoints).
void ClosestPointsSegmentSegmentD3(Vec3 p1, Vec3 q1, Vec3 p2, Vec3 q2, D3* c1,
                                   D3* c2) {
  const D3 d1 = ToD3(q1) - ToD3(p1);
  const D3 d2 = ToD3(q2) - ToD3(p2);
  const D3 r = ToD3(p1) - ToD3(p2);
  auto clamp01 = [](double x) { return std::clamp(x, 0.0, 1.0); };
  const double a = Dot(d1, d1);
  const double e = Dot(d2, d2);
  const double f = Dot(d2, r);
  double s = 0.0;
  double t = 0.0;
  if (a <= 0.0 && e <= 0.0) {
    // Both degenerate to points.
  } else if (a <= 0.0) {
    t = clamp01(f / e);
  } else {
    const double c = Dot(d1, r);
    if (e <= 0.0) {
      s = clamp01(-c / a);
    } else {
      const double b = Dot(d1, d2);
      const double denom = a * e - b * b;  // >= 0; 0 when parallel.
      // Parallel segments: any s works; start at 0 and let the clamps below
      // pick the point.
      s = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0.0;
      const double t_num = b * s + f;
      if (t_num < 0.0) {
        t = 0.0;
        s = clamp01(-c / a);
      } else if (t_num > e) {
        t = 1.0;
        s = clamp01((b - c) / a);
      } else {
        t = t_num / e;
      }
    }
  }
  *c1 = ToD3(p1) + s * d1;
  *c2 = ToD3(p2) + t * d2;
}

namespace {

constexpr float kTinySquared = 1e-30f;
// The sine between two segments below which ClosestPointsSegmentSegment solves
// in double: its float solve puts the point about 1e-7 / sin of the lengths off
// the other segment (below), 1e-6 at this sine.
constexpr float kFloatSolveSine = 0.1f;

// ClosestPointsSegmentSegment for nearly parallel segments, in double; out of
// line and cold (for randomly turned shapes about one edge-edge contact in
// 200, see kFloatSolveSine). The float endpoints and their differences are
// exact in double, so the determinant a e - b^2 keeps about 1e-16 / sin^2
// of relative error instead of FLT_EPSILON / sin^2, and s is good to about
// 1e-16 / sin^2 (Ericson 5.1.9). Parallel segments (sin^2 <= 1e-14, double's
// own cut-off) have no single closest pair: the middle of their common
// stretch (where the projections of the segments onto each other overlap),
// else the nearest ends (ClosestPointsSegmentSegmentD3's clamps).
[[gnu::cold, gnu::noinline]] void ClosestPointsSegmentSegmentDouble(
    Vec3 p1, Vec3 q1, Vec3 p2, Vec3 q2, Vec3* c1, Vec3* c2) {
  const D3 d1 = ToD3(q1) - ToD3(p1);
  const D3 d2 = ToD3(q2) - ToD3(p2);
  const double a = Dot(d1, d1);
  const double e = Dot(d2, d2);
  const double b = Dot(d1, d2);
  if (a > 0.0 && e > 0.0 && a * e - b * b <= 1e-14 * a * e) {
    // p2 and q2 projected on p1q1's line, as parameters of p1 + s d1.
    const double s_p2 = Dot(d1, ToD3(p2) - ToD3(p1)) / a;
    const double s_q2 = s_p2 + b / a;
    const double lo = std::max(0.0, std::min(s_p2, s_q2));
    const double hi = std::min(1.0, std::max(s_p2, s_q2));
    if (lo <= hi) {
      const D3 x1 = ToD3(p1) + (0.5 * (lo + hi)) * d1;
      const double t = std::clamp(Dot(d2, x1 - ToD3(p2)) / e, 0.0, 1.0);
      *c1 = ToVec3(x1);
      *c2 = ToVec3(ToD3(p2) + t * d2);
      return;
    }
  }
  D3 x1;
  D3 x2;
  ClosestPointsSegmentSegmentD3(p1, q1, p2, q2, &x1, &x2);
  *c1 = ToVec3(x1);
  *c2 = ToVec3(x2);
}

}  // namespace

void ClosestPointsSegmentSegment(Vec3 p1, Vec3 q1, Vec3 p2, Vec3 q2, Vec3* c1,
                                 Vec3* c2) {
  // Minimise |p1 + s d1 - (p2 + t d2)|^2 over [0, 1]^2: solve the 2x2
  // normal equations for s, clamp, recompute t for that s, clamp, and
  // recompute s for the clamped t.
  const Vec3 d1 = q1 - p1;
  const Vec3 d2 = q2 - p2;
  const Vec3 r = p1 - p2;
  const float a = Dot(d1, d1);
  const float e = Dot(d2, d2);
  const float f = Dot(d2, r);
  float s = 0.0f;
  float t = 0.0f;
  if (!(a > kTinySquared) && !(e > kTinySquared)) {
    *c1 = p1;
    *c2 = p2;
    return;
  }
  if (!(a > kTinySquared)) {
    t = std::clamp(f / e, 0.0f, 1.0f);
  } else {
    const float c = Dot(d1, r);
    if (!(e > kTinySquared)) {
      s = std::clamp(-c / a, 0.0f, 1.0f);
    } else {
      const float b = Dot(d1, d2);
      const float denom = a * e - b * b;  // a e sin^2; 0 when parallel.
      // In float the determinant carries round-off of a few FLT_EPSILON
      // a e, so s is off by about FLT_EPSILON / sin^2 and the point, moved
      // along one segment by that, leaves the other by that times its
      // length times sin: 1e-7 / sin of the lengths. Nearly parallel
      // segments go to the double solve.
      if (!(denom > kFloatSolveSine * kFloatSolveSine * a * e)) {
        ClosestPointsSegmentSegmentDouble(p1, q1, p2, q2, c1, c2);
        return;
      }
      s = std::clamp((b * f - c * e) / denom, 0.0f, 1.0f);
      t = (b * s + f) / e;
      if (t < 0.0f) {
        t = 0.0f;
        s = std::clamp(-c / a, 0.0f, 1.0f);
      } else if (t > 1.0f) {
        t = 1.0f;
        s = std::clamp((b - c) / a, 0.0f, 1.0f);
      }
    }
  }
  *c1 = p1 + s * d1;
  *c2 = p2 + t * d2;
}

void CorePairs::Offer(Vec3 a, Vec3 b, Vec3 diff, double dist_sq) {
  if (count < kMaxCorePairs) {
    pa[count] = a;
    pb[count] = b;
    diffs[count] = diff;
    dist_sqs[count] = dist_sq;
    ++count;
    return;
  }
  // Replace the farthest kept pair.
  int worst = 0;
  for (int i = 1; i < count; ++i) {
    if (dist_sqs[i] > dist_sqs[worst]) worst = i;
  }
  if (dist_sq < dist_sqs[worst]) {
    pa[worst] = a;
    pb[worst] = b;
    diffs[worst] = diff;
    dist_sqs[worst] = dist_sq;
  }
}

void CorePairs::KeepNear(double best_dist_sq, double slack) {
  if (count <= 1) return;  // The closest pair is always kept.
  int kept = 0;
  for (int i = 0; i < count; ++i) {
    if (dist_sqs[i] <= best_dist_sq + slack) {
      pa[kept] = pa[i];
      pb[kept] = pb[i];
      diffs[kept] = diffs[i];
      dist_sqs[kept] = dist_sqs[i];
      ++kept;
    }
  }
  count = kept;
}

double ClosestCorePoints(const PolyRef& a, const PolyRef& b, Vec3* pa, Vec3* pb,
                         Vec3* diff, CorePairs* ties) {
  const bool a_round =
      a.kind == CoreKind::kPoint || a.kind == CoreKind::kSegment;
  if (!a_round) {
    // Solve with the roles swapped.
    const double d = ClosestCorePoints(b, a, pb, pa, diff, ties);
    if (diff != nullptr) *diff = -*diff;
    if (ties != nullptr) {
      for (int i = 0; i < ties->count; ++i) {
        std::swap(ties->pa[i], ties->pb[i]);
        ties->diffs[i] = -ties->diffs[i];
      }
    }
    return d;
  }
  if (ties != nullptr) ties->count = 0;
  Best best;
  best.ties = ties;
  if (a.kind == CoreKind::kPoint) {
    PointCore(a.vertices[0], b, &best);
  } else {
    const Vec3 p = a.vertices[0];
    const Vec3 q = a.vertices[1];
    switch (b.kind) {
      case CoreKind::kPoint: {
        const D3 x = ToD3(b.vertices[0]);
        best.Offer(ClosestOnSegmentD3(x, ToD3(p), ToD3(q)), x);
        break;
      }
      case CoreKind::kSegment: {
        D3 c1;
        D3 c2;
        ClosestPointsSegmentSegmentD3(p, q, b.vertices[0], b.vertices[1], &c1,
                                      &c2);
        best.Offer(c1, c2);
        break;
      }
      case CoreKind::kTriangle:
        SegmentTriangle(p, q, b, &best);
        break;
      case CoreKind::kSolid:
        SegmentSolid(p, q, b, &best);
        break;
    }
  }
  *pa = ToVec3(best.pa);
  *pb = ToVec3(best.pb);
  if (diff != nullptr) *diff = ToVec3(best.pb - best.pa);
  if (ties != nullptr) {
    // Lengths within a few float ulps of the best (relative 1e-5 of d^2,
    // plus an absolute floor for touching cores).
    ties->KeepNear(best.dist_sq, 1e-5 * best.dist_sq + 1e-12);
  }
  return std::sqrt(best.dist_sq);
}

}  // namespace sator::internal
