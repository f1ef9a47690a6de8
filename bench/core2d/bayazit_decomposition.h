// Bayazit's convex decomposition of a simple polygon, in double, as the
// benchmark's comparison for the level's decomposition (ear clipping merged
// by Hertel-Mehlhorn, core/src/collide2d/level_decompose2d.cc).
//
// Method (M. Bayazit, "Poly Decomp", 2005; after Keil and Snoeyink's
// optimal-decomposition ideas): take a reflex vertex, extend its two edges
// into the polygon and find where each extension first meets the boundary.
// If no vertex lies on the boundary between those two points, cut from the
// reflex vertex to a new (Steiner) point midway between them; otherwise
// cut to the visible vertex there that scores best (near, and reflex
// vertices first, since a cut at a reflex vertex can resolve both). Recurse
// on the two halves; a polygon without a reflex vertex is a piece.
#ifndef SATOR_BENCH_CORE2D_BAYAZIT_DECOMPOSITION_H_
#define SATOR_BENCH_CORE2D_BAYAZIT_DECOMPOSITION_H_

#include <vector>

namespace sator::bench {

struct PointD {
  double x;
  double y;
};

// The convex pieces of the simple counter-clockwise polygon `polygon`
// (no holes). Pieces may have corners that are not polygon vertices.
std::vector<std::vector<PointD>> BayazitDecompose(
    const std::vector<PointD>& polygon);

}  // namespace sator::bench

#endif  // SATOR_BENCH_CORE2D_BAYAZIT_DECOMPOSITION_H_
