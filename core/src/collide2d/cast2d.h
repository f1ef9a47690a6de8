// Private: casting a moving point against a circle or a capsule (a segment
// inflated by a radius), the building block of ray casts against round
// shapes and of sweeps of round shapes.
//
// Circle: solve |m + t d|^2 = r^2 with m = o - c (Ericson, "Real-Time
// Collision Detection", 5.3.2), taking the smaller root in the cancellation-
// free form t = c / (-b + sqrt(b^2 - a c)), the discriminant computed as
// a r^2 - (m x d)^2. Capsule: the union of the two end
// circles and the two sides (lines offset by r along the segment's normals,
// limited to the segment's extent); the first hit of any of the four.
#ifndef SATOR_CORE_SRC_COLLIDE2D_CAST2D_H_
#define SATOR_CORE_SRC_COLLIDE2D_CAST2D_H_

#include <cmath>

#include "sator/core/vec.h"

namespace sator::internal2d {

struct CastHit {
  bool hit = false;
  float t = 0.0f;
  Vec2 normal{};     // Unit outward normal of the target at the hit.
  int feature = -1;  // 0 the side, -1 a cap.
};

// First t in [0, t_max] with |o + t d - c| <= r, for o outside the circle.
// A point already inside gives t = 0.
inline CastHit CastPointCircle(Vec2 o, Vec2 d, Vec2 c, float r, float t_max) {
  CastHit out;
  const Vec2 m = o - c;
  const float cc = Dot(m, m) - r * r;
  if (cc <= 0.0f) {
    out.hit = true;
    out.t = 0.0f;
    out.normal = NormalizeOrZero(m);
    return out;
  }
  const float b = Dot(m, d);
  if (b >= 0.0f) return out;  // Moving away (or tangentially).
  const float a = Dot(d, d);
  // b^2 - a c, rewritten with Lagrange's identity |m|^2 |d|^2 - (m.d)^2 =
  // (m x d)^2 so that it does not cancel for grazing casts.
  const float cross = Cross(m, d);
  const float disc = a * r * r - cross * cross;
  if (disc < 0.0f) return out;
  // t = cc / q > t_max is decided before dividing: for a very slow point
  // (|d| near 1e-38) the quotient would overflow (FE_OVERFLOW). The product
  // is formed in double (exact for two floats, no overflow): t_max may be
  // FLT_MAX and q exceeds 1 for a unit ray more than half a unit away.
  const float q = -b + std::sqrt(disc);
  if (!(static_cast<double>(cc) <= static_cast<double>(t_max) * q)) return out;
  const float t = cc / q;
  out.hit = true;
  out.t = t;
  out.normal = NormalizeOrZero(m + t * d);
  return out;
}

// First t in [0, t_max] where o + t d comes within r of the segment [a, b].
inline CastHit CastPointCapsule(Vec2 o, Vec2 d, Vec2 a, Vec2 b, float r,
                                float t_max) {
  CastHit best = CastPointCircle(o, d, a, r, t_max);
  const CastHit hb = CastPointCircle(o, d, b, r, t_max);
  if (hb.hit && (!best.hit || hb.t < best.t)) best = hb;
  const Vec2 e = b - a;
  const float length = Length(e);
  if (!(length > 0.0f)) return best;
  const Vec2 u = (1.0f / length) * e;
  const Vec2 n = RightPerp(u);
  for (int side = 0; side < 2; ++side) {
    const Vec2 m = side == 0 ? n : -n;
    const float height = Dot(m, o - a) - r;
    const float rate = Dot(m, d);
    // Reaching the side after t_max is decided before dividing (as above).
    if (height < 0.0f || rate >= 0.0f ||
        static_cast<double>(height) > static_cast<double>(t_max) * -rate) {
      continue;
    }
    const float t = height / -rate;
    if (best.hit && t >= best.t) continue;
    const float along = Dot(u, o + t * d - a);
    if (along < 0.0f || along > length) continue;
    best.hit = true;
    best.t = t;
    best.normal = m;
    best.feature = 0;
  }
  return best;
}

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_COLLIDE2D_CAST2D_H_
