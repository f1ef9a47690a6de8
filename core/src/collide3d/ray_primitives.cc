// Ray tests against primitive solids; sources are cited in ray_primitives.h.
#include "collide3d/ray_primitives.h"

#include <algorithm>
#include <cmath>

#include "collide3d/convex_closest.h"
#include "collide3d/double_vec3.h"

namespace sator::internal {
namespace {

// A direction component (or squared length) below this is "parallel": the
// ray cannot reach anything at finite coordinates by moving that little, and
// dividing by it could overflow.
constexpr float kParallel = 1e-20f;
constexpr float kTinySquared = 1e-30f;

}  // namespace

RayStatus RaySphere(Vec3 origin, Vec3 dir, float t_max, Vec3 center,
                    float radius, PrimitiveHit* hit) {
  const Vec3 m = origin - center;
  const float r2 = radius * radius;
  const float c = Dot(m, m) - r2;  // > 0 outside
  if (c <= 0.0f) {
    hit->t = 0.0f;
    return RayStatus::kInside;
  }
  const float b = Dot(m, dir);
  const float a = Dot(dir, dir);
  if (b >= 0.0f || !(a > kTinySquared)) return RayStatus::kMiss;
  // l: from the centre to the point of the line closest to it.
  const Vec3 l = m - (b / a) * dir;
  const float s = r2 - Dot(l, l);
  if (s < 0.0f) return RayStatus::kMiss;
  // The smaller root, c / q with q = -b + sqrt(b^2 - a c) > 0.
  const float t = c / (-b + std::sqrt(a * s));
  if (t > t_max) return RayStatus::kMiss;
  hit->t = t;
  hit->normal = NormalizeOrZero(m + t * dir);
  hit->feature = 0;
  return RayStatus::kHit;
}

RayStatus RayCapsule(Vec3 origin, Vec3 dir, float t_max, Vec3 p, Vec3 q,
                     float radius, PrimitiveHit* hit) {
  const Vec3 closest = ClosestPointOnSegment(origin, p, q);
  if (LengthSquared(origin - closest) <= radius * radius) {
    hit->t = 0.0f;
    return RayStatus::kInside;
  }
  bool found = false;
  PrimitiveHit best;
  best.t = t_max;
  PrimitiveHit h;
  if (RaySphere(origin, dir, best.t, p, radius, &h) == RayStatus::kHit) {
    best = h;
    best.feature = 1;
    found = true;
  }
  if (RaySphere(origin, dir, best.t, q, radius, &h) == RayStatus::kHit) {
    best = h;
    best.feature = 2;
    found = true;
  }
  // Lateral surface of the infinite cylinder around pq: remove the axial
  // components of m = origin - p and of dir, then solve the 2D circle
  // problem |m_p + t d_p|^2 = r^2 with the same stable root as the sphere.
  const Vec3 u = q - p;
  const float uu = Dot(u, u);
  if (uu > kTinySquared) {
    const Vec3 m = origin - p;
    const float km = Dot(m, u) / uu;
    const float kd = Dot(dir, u) / uu;
    const Vec3 mp = m - km * u;
    const Vec3 dp = dir - kd * u;
    const float a = Dot(dp, dp);
    const float b = Dot(mp, dp);
    const float r2 = radius * radius;
    const float c = Dot(mp, mp) - r2;
    if (a > kTinySquared && b < 0.0f && c > 0.0f) {
      const Vec3 l = mp - (b / a) * dp;
      const float s = r2 - Dot(l, l);
      if (s >= 0.0f) {
        const float t = c / (-b + std::sqrt(a * s));
        const float axial = km + t * kd;
        if (t <= best.t && axial >= 0.0f && axial <= 1.0f) {
          best.t = t;
          best.normal = NormalizeOrZero(mp + t * dp);
          best.feature = 0;
          found = true;
        }
      }
    }
  }
  if (!found) return RayStatus::kMiss;
  *hit = best;
  return RayStatus::kHit;
}

RayStatus RayBox(Vec3 origin, Vec3 dir, float t_max, Vec3 half_extents,
                 PrimitiveHit* hit) {
  if (std::fabs(origin.x) <= half_extents.x &&
      std::fabs(origin.y) <= half_extents.y &&
      std::fabs(origin.z) <= half_extents.z) {
    hit->t = 0.0f;
    return RayStatus::kInside;
  }
  float t_enter = 0.0f;
  float t_exit = t_max;
  int enter_axis = -1;
  for (int i = 0; i < 3; ++i) {
    const float o = origin[i];
    const float d = dir[i];
    const float h = half_extents[i];
    if (std::fabs(d) < kParallel) {
      if (std::fabs(o) > h) return RayStatus::kMiss;
      continue;
    }
    float t_near = (-h - o) / d;
    float t_far = (h - o) / d;
    if (t_near > t_far) std::swap(t_near, t_far);
    if (t_near > t_enter) {
      t_enter = t_near;
      enter_axis = i;
    }
    t_exit = std::min(t_exit, t_far);
    if (t_enter > t_exit) return RayStatus::kMiss;
  }
  if (enter_axis < 0) return RayStatus::kMiss;
  hit->t = t_enter;
  hit->normal = Vec3{};
  const bool positive_face = dir[enter_axis] < 0.0f;
  hit->normal[enter_axis] = positive_face ? 1.0f : -1.0f;
  hit->feature = 2 * enter_axis + (positive_face ? 0 : 1);
  return RayStatus::kHit;
}

TriangleRay MakeTriangleRay(Vec3 origin, Vec3 dir) {
  TriangleRay r;
  r.origin = origin;
  const Vec3 ad = Abs(dir);
  r.kz = ad.x > ad.y ? (ad.x > ad.z ? 0 : 2) : (ad.y > ad.z ? 1 : 2);
  if (!(ad[r.kz] > 0.0f)) return r;  // Zero direction: valid stays false.
  r.kx = r.kz == 2 ? 0 : r.kz + 1;
  r.ky = r.kx == 2 ? 0 : r.kx + 1;
  // Keep the winding: swap x and y when the dominant component is negative.
  if (dir[r.kz] < 0.0f) std::swap(r.kx, r.ky);
  // |dir[kz]| is the largest component, so these quotients are at most 1.
  r.sx = dir[r.kx] / dir[r.kz];
  r.sy = dir[r.ky] / dir[r.kz];
  r.sz = 1.0f / dir[r.kz];
  r.valid = true;
  return r;
}

RayStatus RayTriangleT(const TriangleRay& ray, float t_max,
                       const MeshTriangle& tri, float* t_hit) {
  if (!ray.valid) return RayStatus::kMiss;
  // Vertices relative to the origin, sheared so the ray runs along +z.
  const Vec3 a = tri.a - ray.origin;
  const Vec3 b = tri.b - ray.origin;
  const Vec3 c = tri.c - ray.origin;
  const float ax = a[ray.kx] - ray.sx * a[ray.kz];
  const float ay = a[ray.ky] - ray.sy * a[ray.kz];
  const float bx = b[ray.kx] - ray.sx * b[ray.kz];
  const float by = b[ray.ky] - ray.sy * b[ray.kz];
  const float cx = c[ray.kx] - ray.sx * c[ray.kz];
  const float cy = c[ray.ky] - ray.sy * c[ray.kz];
  // Scaled barycentrics: the 2D edge functions at the sheared origin.
  float u = cx * by - cy * bx;
  float v = ax * cy - ay * cx;
  float w = bx * ay - by * ax;
  if (u == 0.0f || v == 0.0f || w == 0.0f) {
    // On an edge within float precision: decide in double, as the paper
    // does, so that the sign is exact.
    u = static_cast<float>(static_cast<double>(cx) * by -
                           static_cast<double>(cy) * bx);
    v = static_cast<float>(static_cast<double>(ax) * cy -
                           static_cast<double>(ay) * cx);
    w = static_cast<float>(static_cast<double>(bx) * ay -
                           static_cast<double>(by) * ax);
  }
  if ((u < 0.0f || v < 0.0f || w < 0.0f) &&
      (u > 0.0f || v > 0.0f || w > 0.0f)) {
    return RayStatus::kMiss;
  }
  float det = u + v + w;
  if (det == 0.0f) return RayStatus::kMiss;  // In the triangle's plane.
  const float az = ray.sz * a[ray.kz];
  const float bz = ray.sz * b[ray.kz];
  const float cz = ray.sz * c[ray.kz];
  float t = u * az + v * bz + w * cz;
  if (det < 0.0f) {
    det = -det;
    t = -t;
  }
  // t / det in [0, t_max], compared before dividing. The product is formed
  // in double, where a product of two floats is exact and cannot overflow
  // (t_max may be FLT_MAX and det exceeds 1 for most triangles).
  if (t < 0.0f || static_cast<double>(t) > static_cast<double>(t_max) * det) {
    return RayStatus::kMiss;
  }
  *t_hit = std::min(t / det, t_max);
  return RayStatus::kHit;
}

Vec3 TriangleHitNormal(const MeshTriangle& tri, Vec3 dir) {
  Vec3 n = TriangleNormal(tri.a, tri.b, tri.c);
  if (Dot(n, dir) > 0.0f) n = -n;
  return n;
}

RayStatus RayTriangle(const TriangleRay& ray, Vec3 dir, float t_max,
                      const MeshTriangle& tri, PrimitiveHit* hit) {
  float t = 0.0f;
  const RayStatus status = RayTriangleT(ray, t_max, tri, &t);
  if (status != RayStatus::kHit) return status;
  hit->t = t;
  hit->normal = TriangleHitNormal(tri, dir);
  hit->feature = 0;
  return RayStatus::kHit;
}

RayStatus RayHull(Vec3 origin, Vec3 dir, float t_max, const ConvexHull& hull,
                  PrimitiveHit* hit) {
  float t_enter = 0.0f;
  float t_exit = t_max;
  int enter_face = -1;
  bool inside = true;
  for (std::size_t f = 0; f < hull.faces.size(); ++f) {
    const ConvexHull::Face& face = hull.faces[f];
    const float dist = face.offset - Dot(face.normal, origin);  // >= 0 inside
    const float denom = Dot(face.normal, dir);
    if (dist < 0.0f) inside = false;
    if (std::fabs(denom) < kParallel) {
      if (dist < 0.0f) return RayStatus::kMiss;
      continue;
    }
    const float t = dist / denom;
    if (denom < 0.0f) {  // Moving against the outward normal: entering.
      if (t > t_enter) {
        t_enter = t;
        enter_face = static_cast<int>(f);
      }
    } else {
      t_exit = std::min(t_exit, t);
    }
    if (t_enter > t_exit) return RayStatus::kMiss;
  }
  if (inside) {
    hit->t = 0.0f;
    return RayStatus::kInside;
  }
  if (enter_face < 0) return RayStatus::kMiss;
  hit->t = t_enter;
  hit->normal = hull.faces[enter_face].normal;
  hit->feature = enter_face;
  return RayStatus::kHit;
}

}  // namespace sator::internal
