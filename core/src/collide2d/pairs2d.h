// Private: the functions of the 2D dispatch table (queries2d.cc), one per
// pair family, each defined in its family's file. Every one takes the
// shapes as Shape2 (of the kinds its table cell names) and B's pose in A's
// frame, and answers in A's frame, with the semantics of the public
// *Local queries (queries2d.h).
#ifndef SATOR_CORE_SRC_COLLIDE2D_PAIRS2D_H_
#define SATOR_CORE_SRC_COLLIDE2D_PAIRS2D_H_

#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"

namespace sator::internal2d {

using OverlapFn = bool (*)(const Shape2& a, const Shape2& b,
                           const Pose2& b_in_a);
using ContactFn = ContactResult<2> (*)(const Shape2& a, const Shape2& b,
                                       const Pose2& b_in_a);
// `motion`: B's displacement relative to A, in A's frame.
using SweepFn = SweepResult<2> (*)(const Shape2& a, const Shape2& b,
                                   const Pose2& b_in_a, Vec2 motion);
// The ray in the shape's frame.
using RayCastFn = RayResult<2> (*)(const Shape2& shape, const Ray<2>& ray);

// Any pair, on the shapes' rounded cores (core2d.h): the SAT for two
// polytopes, the exact distance when one core is a point or a segment
// (sat2d.cc); SAT over time or feature casts (sweep2d.cc); clipping or
// casts against one core (raycast2d.cc).
bool OverlapGeneral(const Shape2& a, const Shape2& b, const Pose2& b_in_a);
ContactResult<2> ContactGeneral(const Shape2& a, const Shape2& b,
                                const Pose2& b_in_a);
SweepResult<2> SweepGeneral(const Shape2& a, const Shape2& b,
                            const Pose2& b_in_a, Vec2 motion);
RayResult<2> RayCastGeneral(const Shape2& shape, const Ray<2>& ray);

// Two polygons: the SAT with A read in place, B's used lanes mapped into
// A's frame (sat2d.cc).
bool OverlapPolygons(const Shape2& a, const Shape2& b, const Pose2& b_in_a);
ContactResult<2> ContactPolygons(const Shape2& a, const Shape2& b,
                                 const Pose2& b_in_a);

// A polygon and a circle, either way round: one pass over the polygon's
// edges (polygon_circle2d.cc).
bool OverlapPolygonCircle(const Shape2& a, const Shape2& b,
                          const Pose2& b_in_a);
bool OverlapCirclePolygon(const Shape2& a, const Shape2& b,
                          const Pose2& b_in_a);
ContactResult<2> ContactPolygonCircle(const Shape2& a, const Shape2& b,
                                      const Pose2& b_in_a);
ContactResult<2> ContactCirclePolygon(const Shape2& a, const Shape2& b,
                                      const Pose2& b_in_a);

// A polygon read in place after a bounding-disc reject (raycast2d.cc).
RayResult<2> RayCastPolygon(const Shape2& shape, const Ray<2>& ray);

// A convex shape and a level, either way round, and two levels (not
// answered: the callers refuse the pair) (level_queries2d.cc).
bool OverlapConvexLevel(const Shape2& a, const Shape2& b, const Pose2& b_in_a);
bool OverlapLevelConvex(const Shape2& a, const Shape2& b, const Pose2& b_in_a);
bool OverlapLevels(const Shape2& a, const Shape2& b, const Pose2& b_in_a);
ContactResult<2> ContactConvexLevel(const Shape2& a, const Shape2& b,
                                    const Pose2& b_in_a);
ContactResult<2> ContactLevelConvex(const Shape2& a, const Shape2& b,
                                    const Pose2& b_in_a);
ContactResult<2> ContactLevels(const Shape2& a, const Shape2& b,
                               const Pose2& b_in_a);
SweepResult<2> SweepConvexLevel(const Shape2& a, const Shape2& b,
                                const Pose2& b_in_a, Vec2 motion);
SweepResult<2> SweepLevelConvex(const Shape2& a, const Shape2& b,
                                const Pose2& b_in_a, Vec2 motion);
SweepResult<2> SweepLevels(const Shape2& a, const Shape2& b,
                           const Pose2& b_in_a, Vec2 motion);
// A ray in the level's frame: its outline and chain edges, the pieces for
// an origin inside a polygon.
RayResult<2> RayCastLevel(const Shape2& shape, const Ray<2>& ray);

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_COLLIDE2D_PAIRS2D_H_
