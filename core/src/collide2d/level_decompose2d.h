// Private: a simple polygon with holes cut into convex pieces.
//
// Method: every hole is bridged into the outline, rightmost hole first,
// through a vertex the hole's rightmost vertex sees along +x (Eberly,
// "Triangulation by Ear Clipping", 2002, section 3). The one ring left is
// triangulated by ear clipping (the best-shaped of the next few ears each
// time); then
// Hertel-Mehlhorn merging removes every diagonal whose two pieces form a
// convex polygon of at most `max_vertices` vertices (Hertel and Mehlhorn,
// "Fast triangulation of simple polygons", 1983: at most four times the
// fewest convex pieces). Predicates are evaluated in double on the float
// input; the pieces' vertices are input vertices, unchanged.
#ifndef SATOR_CORE_SRC_COLLIDE2D_LEVEL_DECOMPOSE2D_H_
#define SATOR_CORE_SRC_COLLIDE2D_LEVEL_DECOMPOSE2D_H_

#include <vector>

#include "absl/status/statusor.h"
#include "sator/core/vec.h"

namespace sator::internal2d {

// `outline` counter-clockwise and `holes` clockwise, already validated as
// one simple polygon (rings disjoint, holes inside the outline and outside
// each other, no repeated or collinear consecutive points). The pieces are
// counter-clockwise and strictly convex. kInternal when the ring cannot be
// cut (round-off on a polygon at the limits of validation).
absl::StatusOr<std::vector<std::vector<Vec2>>> DecomposePolygon(
    const std::vector<Vec2>& outline,
    const std::vector<std::vector<Vec2>>& holes, int max_vertices);

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_COLLIDE2D_LEVEL_DECOMPOSE2D_H_
