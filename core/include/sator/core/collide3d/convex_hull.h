// Convex hulls: the validating factories.
//
// MakeConvexHull builds the hull of a point cloud with quickhull (Barber,
// Dobkin and Huhdanpaa, "The Quickhull Algorithm for Convex Hulls", ACM TOMS
// 1996; Gregorius, "Implementing Quickhull", GDC 2014), merges coplanar
// faces, and precomputes everything SAT needs (see ConvexHull in
// shapes3d.h). MakeConvexHullFromFaces checks a polytope given as vertices
// and faces instead of building one.
#ifndef SATOR_CORE_COLLIDE3D_CONVEX_HULL_H_
#define SATOR_CORE_COLLIDE3D_CONVEX_HULL_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sator/core/collide3d/shapes3d.h"
#include "sator/core/vec.h"

namespace sator {

// The hull of `points` (any number of points; duplicates and interior points
// are fine). Refuses with kInvalidArgument: a non-finite coordinate, one
// beyond kMaxShapeCoordinate3 (limits.h) in magnitude, fewer
// than 4 points, a degenerate set (all points coincident, collinear or
// coplanar within a tolerance relative to the set's extent), a hull with
// more than kMaxHullVertices vertices.
absl::StatusOr<std::shared_ptr<const ConvexHull>> MakeConvexHull(
    absl::Span<const Vec3> points);

// A hull from a polytope given explicitly: `faces[i]` lists the vertex
// indices of face i counter-clockwise seen from outside. Refuses with
// kInvalidArgument anything that is not a closed, strictly convex polytope:
// non-finite vertices, a vertex coordinate beyond kMaxShapeCoordinate3 in
// magnitude, more than kMaxHullVertices vertices, unused vertices,
// faces with fewer than 3 vertices or out-of-range indices, non-planar faces,
// inward faces, open or non-manifold edges, a vertex in front of a face's
// plane (non-convex), two adjacent coplanar faces, or vertices that are all
// coincident, collinear or coplanar (no volume), by MakeConvexHull's own test
// and tolerance, so both factories refuse the same flat vertex sets.
absl::StatusOr<std::shared_ptr<const ConvexHull>> MakeConvexHullFromFaces(
    absl::Span<const Vec3> vertices, absl::Span<const std::vector<int>> faces);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_CONVEX_HULL_H_
