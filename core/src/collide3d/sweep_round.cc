// Rays against rounded polytopes; see sweep_round.h for the method.
#include "collide3d/sweep_round.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collide3d/convex_closest.h"
#include "collide3d/double_vec3.h"
#include "sator/core/broadphase/casts.h"

namespace sator::internal {
namespace {

constexpr float kParallel = 1e-20f;
// True when q, on face f's plane, lies inside (or on the boundary of) its
// counter-clockwise polygon.
bool InsideFace(const RoundPoly& poly, int f, Vec3 q) {
  const ConvexHull::Face& face = poly.faces[f];
  const int n = face.vertex_count;
  for (int i = 0; i < n; ++i) {
    const Vec3 a =
        poly.vertices[poly.face_vertex_indices[face.first_index + i]];
    const Vec3 b =
        poly.vertices[poly.face_vertex_indices[face.first_index + (i + 1) % n]];
    if (Dot(Cross(b - a, q - a), face.normal) < 0.0f) return false;
  }
  return true;
}

}  // namespace

RoundPoly HullRoundPoly(const ConvexHull& hull) {
  RoundPoly p;
  p.vertices = hull.vertices.data();
  p.vertex_count = static_cast<int>(hull.vertices.size());
  p.faces = hull.faces.data();
  p.face_count = static_cast<int>(hull.faces.size());
  p.face_vertex_indices = hull.face_vertex_indices.data();
  p.edges = hull.edges.data();
  p.edge_count = static_cast<int>(hull.edges.size());
  p.solid = true;
  return p;
}

void MakeBoxRoundPoly(const Box3& box, SmallRoundPoly* out) {
  const Vec3 h = box.half_extents;
  // Vertex i has coordinate signs from its bits: x bit 0, y bit 1, z bit 2.
  for (int i = 0; i < 8; ++i) {
    out->vertices[i] = {(i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y,
                        (i & 4) ? h.z : -h.z};
  }
  // Faces counter-clockwise seen from outside.
  static constexpr std::uint16_t kLoops[6][4] = {
      {1, 3, 7, 5},  // +x
      {0, 4, 6, 2},  // -x
      {2, 6, 7, 3},  // +y
      {0, 1, 5, 4},  // -y
      {4, 5, 7, 6},  // +z
      {0, 2, 3, 1},  // -z
  };
  for (int f = 0; f < 6; ++f) {
    const int axis = f / 2;
    Vec3 n{};
    n[axis] = (f % 2 == 0) ? 1.0f : -1.0f;
    out->faces[f] = {n, h[axis], static_cast<std::uint16_t>(4 * f), 4};
    for (int k = 0; k < 4; ++k) {
      out->face_vertex_indices[4 * f + k] = kLoops[f][k];
    }
  }
  // The 12 edges: pairs of vertices differing in one bit.
  int e = 0;
  for (int i = 0; i < 8; ++i) {
    for (int bit = 1; bit < 8; bit <<= 1) {
      if ((i & bit) == 0) {
        out->edges[e++] = {static_cast<std::uint16_t>(i),
                           static_cast<std::uint16_t>(i | bit), 0, 0};
      }
    }
  }
  out->view = {out->vertices.data(),
               8,
               out->faces.data(),
               6,
               out->face_vertex_indices.data(),
               out->edges.data(),
               12,
               true};
}

void MakeTriangleRoundPoly(const Triangle3& tri, SmallRoundPoly* out) {
  out->vertices[0] = tri.a;
  out->vertices[1] = tri.b;
  out->vertices[2] = tri.c;
  // The face normal in double (see TriangleNormal: in float a sliver's is
  // off by up to 0.1 radians, and the pushed-out face plane then stands
  // above the true one by that angle times the triangle's length: a sphere
  // swept at a sliver hit its face prism early); the offset too.
  const Vec3 n = TriangleNormal(tri.a, tri.b, tri.c);
  const double offset = Dot(ToD3(n), ToD3(tri.a));
  out->faces[0] = {n, static_cast<float>(offset), 0, 3};
  out->faces[1] = {-n, static_cast<float>(-offset), 3, 3};
  static constexpr std::uint16_t kLoops[6] = {0, 1, 2, 0, 2, 1};
  for (int k = 0; k < 6; ++k) out->face_vertex_indices[k] = kLoops[k];
  out->edges[0] = {0, 1, 0, 1};
  out->edges[1] = {1, 2, 0, 1};
  out->edges[2] = {2, 0, 0, 1};
  out->view = {out->vertices.data(),
               3,
               out->faces.data(),
               2,
               out->face_vertex_indices.data(),
               out->edges.data(),
               3,
               false};
}

float SquaredDistanceToPoly(Vec3 x, const RoundPoly& poly) {
  bool inside = poly.solid;
  float best = std::numeric_limits<float>::max();
  for (int f = 0; f < poly.face_count; ++f) {
    const ConvexHull::Face& face = poly.faces[f];
    const float dist = Dot(face.normal, x) - face.offset;  // > 0 outside
    if (dist > 0.0f) inside = false;
    if (dist >= 0.0f && InsideFace(poly, f, x - dist * face.normal)) {
      best = std::min(best, dist * dist);
    }
  }
  if (inside) return 0.0f;
  for (int e = 0; e < poly.edge_count; ++e) {
    const Vec3 p = poly.vertices[poly.edges[e].a];
    const Vec3 q = poly.vertices[poly.edges[e].b];
    best = std::min(best, LengthSquared(x - ClosestPointOnSegment(x, p, q)));
  }
  return best;
}

RayStatus RayRoundPoly(Vec3 origin, Vec3 dir, float t_max,
                       const RoundPoly& poly, float radius, PrimitiveHit* hit) {
  if (SquaredDistanceToPoly(origin, poly) <= radius * radius) {
    hit->t = 0.0f;
    return RayStatus::kInside;
  }
  bool found = false;
  PrimitiveHit best;
  best.t = t_max;
  for (int f = 0; f < poly.face_count; ++f) {
    const ConvexHull::Face& face = poly.faces[f];
    const float denom = Dot(face.normal, dir);
    if (!(denom < -kParallel)) continue;  // Not moving into the face.
    // Plane of the pushed-out face: dot(n, x) = offset + radius.
    const float num = face.offset + radius - Dot(face.normal, origin);
    if (num > 0.0f) continue;            // Already past the plane.
    if (num < best.t * denom) continue;  // Beyond the best so far.
    const float t = num / denom;
    const Vec3 q = origin + t * dir - radius * face.normal;
    if (!InsideFace(poly, f, q)) continue;
    best.t = t;
    best.normal = face.normal;
    best.feature = f;
    found = true;
  }
  // The edges whose capsule's box the ray cannot reach before the best hit
  // so far are skipped (t runs to at most 1, the segment's end).
  const broadphase::Segment<3> segment(origin, dir);
  const Vec3 grow{radius, radius, radius};
  for (int e = 0; e < poly.edge_count; ++e) {
    const Vec3 p = poly.vertices[poly.edges[e].a];
    const Vec3 q = poly.vertices[poly.edges[e].b];
    float entry = 0.0f;
    if (!segment.Hits(Aabb3{Min(p, q), Max(p, q)}, grow, best.t, &entry)) {
      continue;
    }
    PrimitiveHit h;
    const RayStatus s = RayCapsule(origin, dir, best.t, p, q, radius, &h);
    if (s == RayStatus::kInside) {  // Round-off at the boundary.
      hit->t = 0.0f;
      return RayStatus::kInside;
    }
    if (s == RayStatus::kHit && h.t <= best.t) {
      best = h;
      best.feature = poly.face_count + e;
      found = true;
    }
  }
  if (!found) return RayStatus::kMiss;
  *hit = best;
  return RayStatus::kHit;
}

}  // namespace sator::internal

namespace sator::internal {
namespace {

// The entry t in (0, t_max] of o + t d into the ball |x - m0|^2 <= r2, with
// m = o - m0 (the stable root of RaySphere), or -1 (no entry, or the origin
// not outside).
double EnterBall(D3 m, D3 d, double r2, double t_max) {
  const double c = Dot(m, m) - r2;
  if (!(c > 0.0)) return -1.0;  // Not outside: no entry.
  const double b = Dot(m, d);
  const double a = Dot(d, d);
  if (b >= 0.0 || !(a > 0.0)) return -1.0;
  const D3 l = m - (b / a) * d;
  const double s = r2 - Dot(l, l);
  if (s < 0.0) return -1.0;
  const double t = c / (-b + std::sqrt(a * s));
  return t <= t_max ? t : -1.0;
}

// RayCapsule in double, for an origin outside the capsule around segment
// pq: the least entry into the end balls and the lateral surface. The
// parallelogram's edges are as long as the segments and lie as far from the
// origin, so in float the lateral offset m - (m.u / u.u) u cancels to about
// 1e-7 of their length, which can be the radius itself.
bool EnterCapsule(D3 o, D3 d, D3 p, D3 q, double r, double t_max, double* t,
                  D3* normal) {
  const double r2 = r * r;
  bool found = false;
  for (const D3 c : {p, q}) {
    const double tc = EnterBall(o - c, d, r2, t_max);
    if (tc >= 0.0 && (!found || tc < *t)) {
      *t = tc;
      *normal = (o + tc * d) - c;
      found = true;
    }
  }
  const D3 u = q - p;
  const double uu = Dot(u, u);
  if (uu > 0.0) {
    const D3 m = o - p;
    const double km = Dot(m, u) / uu;
    const double kd = Dot(d, u) / uu;
    const D3 mp = m - km * u;
    const D3 dp = d - kd * u;
    const double tc = EnterBall(mp, dp, r2, found ? *t : t_max);
    if (tc >= 0.0) {
      const double axial = km + tc * kd;
      if (axial >= 0.0 && axial <= 1.0) {
        *t = tc;
        *normal = mp + tc * dp;
        found = true;
      }
    }
  }
  return found;
}

// Squared distance from x to segment pq.
double SquaredDistanceToSegment(D3 x, D3 p, D3 q) {
  const D3 u = q - p;
  const double uu = Dot(u, u);
  double s = uu > 0.0 ? Dot(x - p, u) / uu : 0.0;
  s = std::clamp(s, 0.0, 1.0);
  const D3 e = x - (p + s * u);
  return Dot(e, e);
}

}  // namespace

RayStatus RayRoundSegmentDifference(Vec3 origin, Vec3 dir, float t_max, Vec3 p,
                                    Vec3 q, Vec3 c1, Vec3 c2, float radius,
                                    PrimitiveHit* hit) {
  // The parallelogram v0 + a e1 + b e2, a, b in [0, 1], counter-clockwise
  // about n = e1 x e2 (edges +e1 = c2 - c1, +e2 = p - q, -e1, -e2).
  const Vec3 e1f = c2 - c1;
  const Vec3 e2f = p - q;
  const D3 e1 = ToD3(e1f);
  const D3 e2 = ToD3(e2f);
  // Float components, so every product is exact in double and each
  // component of n is rounded once: its direction is good to about 1e-16.
  const D3 n = Cross(e1, e2);
  const double nn = Dot(n, n);
  bool found = false;
  PrimitiveHit best;
  best.t = t_max;
  if (nn > 0.0) {
    const D3 m = (1.0 / std::sqrt(nn)) * n;
    const D3 v0 = ToD3(c1) - ToD3(p);
    const D3 w0 = ToD3(origin) - v0;
    const D3 d = ToD3(dir);
    // Is x (relative to v0; its component along m is ignored) over the
    // parallelogram? With x = a e1 + b e2 + h m: x x e2 = a n + h m x e2 and
    // e1 x x = b n + h e1 x m, so a = (x x e2).n / nn, b = (e1 x x).n / nn.
    // a |e1| sin(theta) is x's distance from the side along e2, computed to
    // about 1e-16 |x|; comparing a with 0 and 1 is comparing distances.
    const auto over = [&](D3 x) {
      const double a = Dot(Cross(x, e2), n);
      const double b = Dot(Cross(e1, x), n);
      return a >= 0.0 && a <= nn && b >= 0.0 && b <= nn;
    };
    const double h0 = Dot(m, w0);  // The origin's height over the plane.
    if (std::fabs(h0) <= radius && over(w0)) {
      hit->t = 0.0f;
      return RayStatus::kInside;
    }
    // Only the face on the origin's side can be entered, through its plane
    // pushed out by the radius: height = |h0| - radius above it, closing at
    // `rate` (< 0). An origin within the slab but beside the parallelogram
    // reaches the slab's interior through an edge capsule first.
    const double side = h0 > 0.0 ? 1.0 : -1.0;
    const double height = side * h0 - radius;
    const double rate = side * Dot(m, d);
    if (height > 0.0 && rate < 0.0 && height <= -rate * t_max) {
      const double t = height / -rate;
      if (over(w0 + t * d)) {
        const auto tf = static_cast<float>(t);
        if (!(tf > 0.0f)) {  // Touching within float: started touching.
          hit->t = 0.0f;
          return RayStatus::kInside;
        }
        best.t = std::min(tf, t_max);
        best.normal = NormalizeOrZero(Vec3{static_cast<float>(side * m.x),
                                           static_cast<float>(side * m.y),
                                           static_cast<float>(side * m.z)});
        best.feature = h0 > 0.0 ? 0 : 1;
        found = true;
      }
    }
  }
  // The four edge capsules (the whole answer when the segments are parallel
  // in float: the parallelogram is then a segment, covered by its edges),
  // in double like the faces (see EnterCapsule).
  const D3 o = ToD3(origin);
  const D3 dd = ToD3(dir);
  const D3 corners[4] = {ToD3(c1) - ToD3(p), ToD3(c2) - ToD3(p),
                         ToD3(c2) - ToD3(q), ToD3(c1) - ToD3(q)};
  const double r = radius;
  for (int k = 0; k < 4; ++k) {
    if (SquaredDistanceToSegment(o, corners[k], corners[(k + 1) % 4]) <=
        r * r) {
      hit->t = 0.0f;
      return RayStatus::kInside;
    }
  }
  double t_edge = 0.0;
  D3 normal;
  int edge = -1;
  for (int k = 0; k < 4; ++k) {
    const double limit = edge >= 0 ? t_edge : static_cast<double>(best.t);
    double t = 0.0;
    D3 nk;
    if (EnterCapsule(o, dd, corners[k], corners[(k + 1) % 4], r, limit, &t,
                     &nk) &&
        (edge < 0 || t < t_edge)) {
      t_edge = t;
      normal = nk;
      edge = k;
    }
  }
  if (edge >= 0 && (!found || t_edge < best.t)) {
    const auto tf = static_cast<float>(t_edge);
    if (!(tf > 0.0f)) {  // Touching within float: started touching.
      hit->t = 0.0f;
      return RayStatus::kInside;
    }
    best.t = std::min(tf, t_max);
    best.normal = NormalizeOrZero(Vec3{static_cast<float>(normal.x),
                                       static_cast<float>(normal.y),
                                       static_cast<float>(normal.z)});
    best.feature = 2 + edge;
    found = true;
  }
  if (!found) return RayStatus::kMiss;
  *hit = best;
  return RayStatus::kHit;
}

}  // namespace sator::internal
