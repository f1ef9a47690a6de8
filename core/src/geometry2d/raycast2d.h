// Private: ray casts against cores in the shape's own frame. (A polygon is
// read in place by the public RayCastPolygon, queries2d.h, which
// raycast2d.cc defines.)
#ifndef SATOR_CORE_SRC_GEOMETRY2D_RAYCAST2D_H_
#define SATOR_CORE_SRC_GEOMETRY2D_RAYCAST2D_H_

#include "geometry2d/core2d.h"
#include "sator/core/query_types.h"

namespace sator::internal2d {

// `ray` in the core's frame (unit direction).
RayResult<2> RayCastCore(const Core& core, const Ray<2>& ray);

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_GEOMETRY2D_RAYCAST2D_H_
