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
// agree to float precision).
struct Best {
  float dist_sq = 0.0f;
  Vec3 pa{};
  Vec3 pb{};
  bool set = false;
  CorePairs* ties = nullptr;
  void Offer(Vec3 a, Vec3 b) {
    const float d = LengthSquared(b - a);
    if (!set || d < dist_sq) {
      dist_sq = d;
      pa = a;
      pb = b;
      set = true;
    }
    if (ties != nullptr) ties->Offer(a, b, d);
  }
};

// The closest point of the solid polytope `s` to `p`; returns false (and
// leaves *out alone) when p is inside or on it. The closest point lies on a
// face whose plane has p in front, so only those faces are searched, each as
// a fan of triangles.
bool ClosestPointOnSolid(const PolyRef& s, Vec3 p, Vec3* out) {
  bool found = false;
  float best = 0.0f;
  for (int f = 0; f < s.face_count; ++f) {
    const ConvexHull::Face& face = s.faces[f];
    if (Dot(face.normal, p) - face.offset <= 0.0f) continue;
    const Vec3 v0 = s.FaceVertex(f, 0);
    for (int i = 1; i + 1 < face.vertex_count; ++i) {
      const Vec3 q = ClosestPointOnTriangle(p, v0, s.FaceVertex(f, i),
                                            s.FaceVertex(f, i + 1));
      const float d = LengthSquared(q - p);
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
  switch (b.kind) {
    case CoreKind::kPoint:
      best->Offer(p, b.vertices[0]);
      return;
    case CoreKind::kSegment:
      best->Offer(p, ClosestPointOnSegment(p, b.vertices[0], b.vertices[1]));
      return;
    case CoreKind::kTriangle:
      best->Offer(p, ClosestPointOnTriangle(p, b.vertices[0], b.vertices[1],
                                            b.vertices[2]));
      return;
    case CoreKind::kSolid: {
      Vec3 q = p;
      ClosestPointOnSolid(b, p, &q);
      best->Offer(p, q);
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
  const Vec3 n = t.faces[0].normal;
  const float dp = Dot(n, p - a);
  const float dq = Dot(n, q - a);
  if ((dp <= 0.0f && dq >= 0.0f) || (dp >= 0.0f && dq <= 0.0f)) {
    const float denom = dp - dq;
    if (denom != 0.0f) {
      const Vec3 x = p + Clamp01(dp / denom) * (q - p);
      best->Offer(x, ClosestPointOnTriangle(x, a, b, c));
    }
  }
  best->Offer(p, ClosestPointOnTriangle(p, a, b, c));
  best->Offer(q, ClosestPointOnTriangle(q, a, b, c));
  const Vec3 v[3] = {a, b, c};
  for (int i = 0; i < 3; ++i) {
    Vec3 c1;
    Vec3 c2;
    ClosestPointsSegmentSegment(p, q, v[i], v[(i + 1) % 3], &c1, &c2);
    best->Offer(c1, c2);
  }
}

// Segment [p, q] against a solid polytope. Cyrus-Beck clipping finds
// whether the segment enters the solid; otherwise the closest pair involves a
// segment endpoint or a polytope edge (a segment interior point facing a face
// interior is parallel to that face, so an endpoint or a face edge does as
// well).
void SegmentSolid(Vec3 p, Vec3 q, const PolyRef& s, Best* best) {
  const Vec3 d = q - p;
  float t_enter = 0.0f;
  float t_exit = 1.0f;
  bool hit = true;
  for (int f = 0; f < s.face_count && hit; ++f) {
    const ConvexHull::Face& face = s.faces[f];
    const float denom = Dot(face.normal, d);
    const float dist = face.offset - Dot(face.normal, p);
    if (std::fabs(denom) < 1e-30f) {
      if (dist < 0.0f) hit = false;
      continue;
    }
    const float t = dist / denom;
    if (denom < 0.0f) {
      t_enter = std::max(t_enter, t);
    } else {
      t_exit = std::min(t_exit, t);
    }
    if (t_enter > t_exit) hit = false;
  }
  if (hit) {
    const Vec3 x = p + t_enter * d;
    best->Offer(x, x);
    return;
  }
  PointCore(p, s, best);
  PointCore(q, s, best);
  for (int e = 0; e < s.edge_count; ++e) {
    Vec3 c1;
    Vec3 c2;
    ClosestPointsSegmentSegment(p, q, s.vertices[s.edges[e].a],
                                s.vertices[s.edges[e].b], &c1, &c2);
    best->Offer(c1, c2);
  }
}

}  // namespace

Vec3 ClosestPointOnSegment(Vec3 p, Vec3 a, Vec3 b) {
  const Vec3 ab = b - a;
  const float len_sq = LengthSquared(ab);
  if (len_sq <= 0.0f) return a;
  return a + Clamp01(Dot(p - a, ab) / len_sq) * ab;
}

// Ericson 5.1.5: classify p against the Voronoi regions of the vertices,
// edges and face of the triangle with barycentric quantities. The
// quantities run in double: the region tests vc, vb and va are differences
// of products that cancel in float on a sliver triangle (a width of 6e-5
// against a length of 2 flipped a sign and put the point 7.7e-3 off the
// face; tests/fuzz/seeds/core_pair/regression_mesh_ray_sliver_triangle.bin).
Vec3 ClosestPointOnTriangle(Vec3 p, Vec3 a, Vec3 b, Vec3 c) {
  struct D {
    double x, y, z;
  };
  auto sub = [](Vec3 u, Vec3 v) {
    return D{static_cast<double>(u.x) - v.x, static_cast<double>(u.y) - v.y,
             static_cast<double>(u.z) - v.z};
  };
  auto dot = [](D u, D v) { return u.x * v.x + u.y * v.y + u.z * v.z; };
  // a + s * u + t * v, rounded once to float.
  auto at = [&](double s, D u, double t, D v) {
    return Vec3{static_cast<float>(a.x + s * u.x + t * v.x),
                static_cast<float>(a.y + s * u.y + t * v.y),
                static_cast<float>(a.z + s * u.z + t * v.z)};
  };
  const D ab = sub(b, a);
  const D ac = sub(c, a);
  const D ap = sub(p, a);
  const double d1 = dot(ab, ap);
  const double d2 = dot(ac, ap);
  if (d1 <= 0.0 && d2 <= 0.0) return a;
  const D bp = sub(p, b);
  const double d3 = dot(ab, bp);
  const double d4 = dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    const double denom = d1 - d3;
    return denom > 0.0 ? at(d1 / denom, ab, 0.0, ac) : a;
  }
  const D cp = sub(p, c);
  const double d5 = dot(ab, cp);
  const double d6 = dot(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    const double denom = d2 - d6;
    return denom > 0.0 ? at(0.0, ab, d2 / denom, ac) : a;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
    const double denom = (d4 - d3) + (d5 - d6);
    if (!(denom > 0.0)) return b;
    // b + w (c - b) = a + (1 - w) ab + w ac.
    const double w = (d4 - d3) / denom;
    return at(1.0 - w, ab, w, ac);
  }
  const double sum = va + vb + vc;
  if (!(sum > 0.0)) return a;  // Degenerate triangle (refused upstream).
  return at(vb / sum, ab, vc / sum, ac);
}

// Ericson 5.1.9: minimise |p1 + s d1 - (p2 + t d2)|^2 over the unit square,
// clamping s, recomputing t, and clamping again. The 2x2 solve runs in
// double: its determinant a e - b^2 = |d1|^2 |d2|^2 sin^2(angle) cancels
// catastrophically in float for nearly parallel segments, and the error of
// s then tilts the direction between the closest points.
void ClosestPointsSegmentSegment(Vec3 p1, Vec3 q1, Vec3 p2, Vec3 q2, Vec3* c1,
                                 Vec3* c2) {
  const double d1[3] = {static_cast<double>(q1.x) - p1.x,
                        static_cast<double>(q1.y) - p1.y,
                        static_cast<double>(q1.z) - p1.z};
  const double d2[3] = {static_cast<double>(q2.x) - p2.x,
                        static_cast<double>(q2.y) - p2.y,
                        static_cast<double>(q2.z) - p2.z};
  const double r[3] = {static_cast<double>(p1.x) - p2.x,
                       static_cast<double>(p1.y) - p2.y,
                       static_cast<double>(p1.z) - p2.z};
  auto dot = [](const double* u, const double* v) {
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  };
  auto clamp01 = [](double x) { return std::clamp(x, 0.0, 1.0); };
  const double a = dot(d1, d1);
  const double e = dot(d2, d2);
  const double f = dot(d2, r);
  double s = 0.0;
  double t = 0.0;
  if (a <= 0.0 && e <= 0.0) {
    // Both degenerate to points.
  } else if (a <= 0.0) {
    t = clamp01(f / e);
  } else {
    const double c = dot(d1, r);
    if (e <= 0.0) {
      s = clamp01(-c / a);
    } else {
      const double b = dot(d1, d2);
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
  *c1 = {static_cast<float>(p1.x + s * d1[0]),
         static_cast<float>(p1.y + s * d1[1]),
         static_cast<float>(p1.z + s * d1[2])};
  *c2 = {static_cast<float>(p2.x + t * d2[0]),
         static_cast<float>(p2.y + t * d2[1]),
         static_cast<float>(p2.z + t * d2[2])};
}

void CorePairs::Offer(Vec3 a, Vec3 b, float dist_sq) {
  if (count < kMaxCorePairs) {
    pa[count] = a;
    pb[count] = b;
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
    dist_sqs[worst] = dist_sq;
  }
}

void CorePairs::KeepNear(float best_dist_sq, float slack) {
  int kept = 0;
  for (int i = 0; i < count; ++i) {
    if (dist_sqs[i] <= best_dist_sq + slack) {
      pa[kept] = pa[i];
      pb[kept] = pb[i];
      dist_sqs[kept] = dist_sqs[i];
      ++kept;
    }
  }
  count = kept;
}

float ClosestCorePoints(const PolyRef& a, const PolyRef& b, Vec3* pa, Vec3* pb,
                        CorePairs* ties) {
  const bool a_round =
      a.kind == CoreKind::kPoint || a.kind == CoreKind::kSegment;
  if (!a_round) {
    // Solve with the roles swapped.
    const float d = ClosestCorePoints(b, a, pb, pa, ties);
    if (ties != nullptr) {
      for (int i = 0; i < ties->count; ++i) std::swap(ties->pa[i], ties->pb[i]);
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
        const Vec3 c = ClosestPointOnSegment(b.vertices[0], p, q);
        best.Offer(c, b.vertices[0]);
        break;
      }
      case CoreKind::kSegment: {
        Vec3 c1;
        Vec3 c2;
        ClosestPointsSegmentSegment(p, q, b.vertices[0], b.vertices[1], &c1,
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
  *pa = best.pa;
  *pb = best.pb;
  if (ties != nullptr) {
    // Lengths within a few float ulps of the best (relative 1e-5 of d^2,
    // plus an absolute floor for touching cores).
    ties->KeepNear(best.dist_sq, 1e-5f * best.dist_sq + 1e-12f);
  }
  return std::sqrt(best.dist_sq);
}

}  // namespace sator::internal
