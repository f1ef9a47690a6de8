// An exact reference in long double for a point or segment core of radius
// r against a polytope core (a convex hull's vertices or a triangle), from
// the floats a path reads in A's frame, written from the definitions:
// the polytope is the convex hull of its vertices, its faces every vertex
// triple with all vertices on one side. Cores crossing (the largest gap
// over the SAT axes at most 0): r plus the least overlap over the faces'
// normals and the segment crossed with every vertex pair (a superset of the
// Minkowski difference's face normals, so the least overlap is the
// penetration depth; for a triangle also its normal crossed with its edges
// and the segment, its in-plane normals); cores apart: r minus the distance
// between the segment and the polytope's boundary triangles (Ericson,
// "Real-Time Collision Detection" (2005), 5.1.5 and 5.1.9, in long double).
// Shared by round_generic_reference_test and round_triangle_internal_test.
#ifndef SATOR_TESTS_CORE_COLLIDE3D_ROUND_REFERENCE3D_H_
#define SATOR_TESTS_CORE_COLLIDE3D_ROUND_REFERENCE3D_H_

#include <algorithm>
#include <cmath>
#include <vector>

#include "sator/core/vec.h"

namespace sator::test3d {

using Ld = long double;

struct L3 {
  Ld x = 0.0L;
  Ld y = 0.0L;
  Ld z = 0.0L;
};
inline L3 ToL3(Vec3 v) { return {v.x, v.y, v.z}; }
inline L3 operator+(L3 a, L3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline L3 operator-(L3 a, L3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline L3 operator*(Ld s, L3 a) { return {s * a.x, s * a.y, s * a.z}; }
inline Ld Dot(L3 a, L3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline L3 Cross(L3 a, L3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline Ld Clamp01(Ld t) { return t < 0.0L ? 0.0L : (t > 1.0L ? 1.0L : t); }

// Ericson 5.1.5: the closest point on triangle abc to p.
inline L3 ClosestOnTriangle(L3 p, L3 a, L3 b, L3 c) {
  const L3 ab = b - a;
  const L3 ac = c - a;
  const L3 ap = p - a;
  const Ld d1 = Dot(ab, ap);
  const Ld d2 = Dot(ac, ap);
  if (d1 <= 0.0L && d2 <= 0.0L) return a;
  const L3 bp = p - b;
  const Ld d3 = Dot(ab, bp);
  const Ld d4 = Dot(ac, bp);
  if (d3 >= 0.0L && d4 <= d3) return b;
  const Ld vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0L && d1 >= 0.0L && d3 <= 0.0L) {
    return a + (d1 / (d1 - d3)) * ab;
  }
  const L3 cp = p - c;
  const Ld d5 = Dot(ab, cp);
  const Ld d6 = Dot(ac, cp);
  if (d6 >= 0.0L && d5 <= d6) return c;
  const Ld vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0L && d2 >= 0.0L && d6 <= 0.0L) {
    return a + (d2 / (d2 - d6)) * ac;
  }
  const Ld va = d3 * d6 - d5 * d4;
  if (va <= 0.0L && (d4 - d3) >= 0.0L && (d5 - d6) >= 0.0L) {
    return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  }
  const Ld denom = 1.0L / (va + vb + vc);
  return a + (vb * denom) * ab + (vc * denom) * ac;
}

inline Ld Len(L3 a) { return std::sqrt(Dot(a, a)); }

// Ericson 5.1.9: the distance between segments [p1, q1] and [p2, q2].
inline Ld SegmentSegment(L3 p1, L3 q1, L3 p2, L3 q2) {
  const L3 d1 = q1 - p1;
  const L3 d2 = q2 - p2;
  const L3 r = p1 - p2;
  const Ld a = Dot(d1, d1);
  const Ld e = Dot(d2, d2);
  const Ld f = Dot(d2, r);
  Ld s = 0.0L;
  Ld t = 0.0L;
  if (a <= 0.0L && e <= 0.0L) return Len(r);
  if (a <= 0.0L) {
    t = Clamp01(f / e);
  } else {
    const Ld c = Dot(d1, r);
    if (e <= 0.0L) {
      s = Clamp01(-c / a);
    } else {
      const Ld b = Dot(d1, d2);
      const Ld denom = a * e - b * b;
      s = denom > 0.0L ? Clamp01((b * f - c * e) / denom) : 0.0L;
      t = (b * s + f) / e;
      if (t < 0.0L) {
        t = 0.0L;
        s = Clamp01(-c / a);
      } else if (t > 1.0L) {
        t = 1.0L;
        s = Clamp01((b - c) / a);
      }
    }
  }
  return Len((p1 + s * d1) - (p2 + t * d2));
}

inline Ld SegmentTriangle(L3 p, L3 q, L3 a, L3 b, L3 c) {
  return std::min({Len(p - ClosestOnTriangle(p, a, b, c)),
                   Len(q - ClosestOnTriangle(q, a, b, c)),
                   SegmentSegment(p, q, a, b), SegmentSegment(p, q, b, c),
                   SegmentSegment(p, q, c, a)});
}

// A point or segment core [p, q] of radius r and a polytope (vertices v),
// all in one frame.
struct Pair {
  L3 p;
  L3 q;
  Ld r = 0.0L;
  std::vector<L3> v;
  bool triangle = false;
};

// The cores' gap along unit u, the polytope's side given by `poly_above`.
inline Ld GapAlong(const Pair& c, L3 u) {
  Ld lo = Dot(u, c.v[0]);
  Ld hi = lo;
  for (const L3& x : c.v) {
    lo = std::min(lo, Dot(u, x));
    hi = std::max(hi, Dot(u, x));
  }
  const Ld dp = Dot(u, c.p);
  const Ld dq = Dot(u, c.q);
  return std::max(lo - std::max(dp, dq), std::min(dp, dq) - hi);
}

// The exact depth (r minus the distance, or r plus the penetration).
inline Ld Reference(const Pair& c) {
  const int n = static_cast<int>(c.v.size());
  std::vector<L3> axes;
  std::vector<int> faces;  // Triples.
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      for (int k = j + 1; k < n; ++k) {
        const L3 nn = Cross(c.v[j] - c.v[i], c.v[k] - c.v[i]);
        if (!(Dot(nn, nn) > 0.0L)) continue;
        // Vertices off the plane by round-off count as on it.
        const Ld tol = 1e-15L * Len(nn) * Len(c.v[j] - c.v[i]);
        bool above = false;
        bool below = false;
        for (int m = 0; m < n; ++m) {
          const Ld s = Dot(nn, c.v[m] - c.v[i]);
          above = above || s > tol;
          below = below || s < -tol;
        }
        if (above && below) continue;
        axes.push_back(nn);
        faces.insert(faces.end(), {i, j, k});
      }
    }
  }
  const L3 d = c.q - c.p;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      axes.push_back(Cross(d, c.v[j] - c.v[i]));
      if (c.triangle) axes.push_back(Cross(axes[0], c.v[j] - c.v[i]));
    }
  }
  if (c.triangle) axes.push_back(Cross(axes[0], d));
  Ld best_gap = -3e300L;
  for (const L3& a : axes) {
    const Ld len = Len(a);
    if (!(len > 0.0L)) continue;
    best_gap = std::max(best_gap, GapAlong(c, (1.0L / len) * a));
  }
  if (best_gap <= 0.0L && !faces.empty()) return c.r - best_gap;
  Ld dist = 3e300L;
  if (faces.empty()) {
    // The vertices collinear or coincident (a hull collapsed by rounding
    // to A's frame far away): the segment between its extreme ones.
    for (int i = 0; i < n; ++i) {
      for (int j = i; j < n; ++j) {
        dist = std::min(dist, SegmentSegment(c.p, c.q, c.v[i], c.v[j]));
      }
    }
  }
  for (size_t f = 0; f < faces.size(); f += 3) {
    dist =
        std::min(dist, SegmentTriangle(c.p, c.q, c.v[faces[f]],
                                       c.v[faces[f + 1]], c.v[faces[f + 2]]));
  }
  return c.r - dist;
}

}  // namespace sator::test3d

#endif  // SATOR_TESTS_CORE_COLLIDE3D_ROUND_REFERENCE3D_H_
