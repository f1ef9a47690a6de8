// Private: the point-in-piece test of a level's convex pieces.
#ifndef SATOR_CORE_SRC_COLLIDE2D_LEVEL_PIECE2D_H_
#define SATOR_CORE_SRC_COLLIDE2D_LEVEL_PIECE2D_H_

#include <cmath>

#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide2d/tolerance2d.h"

namespace sator::internal2d {

// True when `point` (level frame) lies in the piece or within the touching
// tolerance of it. The pieces' vertices are rounded when they are centred,
// so two pieces sharing a cut need not meet exactly: the tolerance keeps a
// point on the cut inside one of them.
inline bool InsidePiece(const LevelPiece2& piece, Vec2 point) {
  const ConvexPolygon& polygon = piece.convex();
  const Vec2 local = point - piece.offset;
  const float slack = TouchingTolerance(polygon.extent() + std::fabs(local.x) +
                                        std::fabs(local.y));
  for (int k = 0; k < polygon.count(); ++k) {
    if (Dot(polygon.normal(k), local - polygon.vertex(k)) > slack) return false;
  }
  return true;
}

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_COLLIDE2D_LEVEL_PIECE2D_H_
