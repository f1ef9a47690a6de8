// The closed set of convex 3D shapes every pair query accepts.
//
// A ConvexShape3 is one of the records of shapes3d.h, or a shared, immutable
// convex hull built by MakeConvexHull / MakeConvexHullFromFaces
// (convex_hull.h). The static triangle mesh is not a convex shape: mesh
// queries live in mesh_queries.h.
#ifndef SATOR_CORE_COLLIDE3D_SHAPE3D_H_
#define SATOR_CORE_COLLIDE3D_SHAPE3D_H_

#include <memory>
#include <variant>

#include "sator/core/collide3d/shapes3d.h"

namespace sator {

using ConvexShape3 = std::variant<Sphere, Box3, Capsule3, Triangle3,
                                  std::shared_ptr<const ConvexHull>>;

// The kinds of ConvexShape3, in the order of the variant's alternatives.
enum class ShapeKind3 : int {
  kSphere = 0,
  kBox = 1,
  kCapsule = 2,
  kTriangle = 3,
  kHull = 4,
};

inline ShapeKind3 KindOf(const ConvexShape3& shape) {
  return static_cast<ShapeKind3>(shape.index());
}

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_SHAPE3D_H_
