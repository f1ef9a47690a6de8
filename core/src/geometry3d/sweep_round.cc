// Rays against rounded polytopes; see sweep_round.h for the method.
#include "geometry3d/sweep_round.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sator::internal {
namespace {

constexpr float kParallel = 1e-20f;
constexpr float kTinySquared = 1e-30f;

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

Vec3 ClosestOnSegmentPoint(Vec3 x, Vec3 p, Vec3 q) {
  const Vec3 u = q - p;
  const float uu = Dot(u, u);
  if (!(uu > kTinySquared)) return p;
  return p + std::clamp(Dot(x - p, u) / uu, 0.0f, 1.0f) * u;
}

void ClosestSegmentPoints(Vec3 p1, Vec3 q1, Vec3 p2, Vec3 q2, Vec3* c1,
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
      const float denom = a * e - b * b;  // >= 0; 0 when parallel
      s = denom > 1e-12f * a * e
              ? std::clamp((b * f - c * e) / denom, 0.0f, 1.0f)
              : 0.0f;
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

bool RayReachesBox(Vec3 origin, Vec3 dir, float t_max, Vec3 lo, Vec3 hi) {
  float t0 = 0.0f;
  float t1 = t_max;
  for (int i = 0; i < 3; ++i) {
    if (std::fabs(dir[i]) < kParallel) {
      if (origin[i] < lo[i] || origin[i] > hi[i]) return false;
      continue;
    }
    float a = (lo[i] - origin[i]) / dir[i];
    float b = (hi[i] - origin[i]) / dir[i];
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
    if (t0 > t1) return false;
  }
  return true;
}

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
    for (int k = 0; k < 4; ++k)
      out->face_vertex_indices[4 * f + k] = kLoops[f][k];
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
  const Vec3 n = NormalizeOrZero(Cross(tri.b - tri.a, tri.c - tri.a));
  out->faces[0] = {n, Dot(n, tri.a), 0, 3};
  out->faces[1] = {-n, -Dot(n, tri.a), 3, 3};
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

void MakeQuadRoundPoly(Vec3 a, Vec3 b, Vec3 c, Vec3 d, Vec3 normal,
                       SmallRoundPoly* out) {
  out->vertices[0] = a;
  out->vertices[1] = b;
  out->vertices[2] = c;
  out->vertices[3] = d;
  const bool flat = LengthSquared(normal) > 0.0f;
  out->faces[0] = {normal, Dot(normal, a), 0, 4};
  out->faces[1] = {-normal, -Dot(normal, a), 4, 4};
  static constexpr std::uint16_t kLoops[8] = {0, 1, 2, 3, 0, 3, 2, 1};
  for (int k = 0; k < 8; ++k) out->face_vertex_indices[k] = kLoops[k];
  for (int k = 0; k < 4; ++k) {
    out->edges[k] = {static_cast<std::uint16_t>(k),
                     static_cast<std::uint16_t>((k + 1) % 4), 0, 1};
  }
  out->view = {out->vertices.data(),
               4,
               out->faces.data(),
               flat ? 2 : 0,
               out->face_vertex_indices.data(),
               out->edges.data(),
               4,
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
    best = std::min(best, LengthSquared(x - ClosestOnSegmentPoint(x, p, q)));
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
  const Vec3 grow{radius, radius, radius};
  for (int e = 0; e < poly.edge_count; ++e) {
    const Vec3 p = poly.vertices[poly.edges[e].a];
    const Vec3 q = poly.vertices[poly.edges[e].b];
    if (!RayReachesBox(origin, dir, best.t, Min(p, q) - grow,
                       Max(p, q) + grow)) {
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
