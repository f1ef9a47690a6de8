// The touching tolerance of the 2D core.
//
// Two shapes "touch" (and so overlap, for Overlap, Contact and the start of a
// Sweep, and a Sweep that passes that close hits) when their signed
// separation -- their exact distance when apart -- is at most
// TouchingTolerance(scale), where `scale` is the size of the problem in A's
// frame:
//
//   scale = extent(A) + extent(B) + |offset|
//
// extent is max(|x| + |y|) over the shape's local points (a circle's radius,
// a box's hx + hy, ...), and offset is B's position relative to A (its
// Euclidean length, so the tolerance is the same seen from A or from B). The
// tolerance is relative, so a 1 mm shape and a 1 km shape behave alike; world
// coordinates do not enter it because the queries work in A's frame (the
// difference of two nearby world positions is exact in float).
// kTouchingRelativeTolerance = 1e-5 is about 80 float ulps of the scale: well
// above the round-off of the few operations a query does, and far below any
// gap a caller means.
#ifndef SATOR_CORE_COLLIDE2D_TOLERANCE2D_H_
#define SATOR_CORE_COLLIDE2D_TOLERANCE2D_H_

namespace sator {

inline constexpr float kTouchingRelativeTolerance = 1e-5f;

inline constexpr float TouchingTolerance(float scale) {
  return kTouchingRelativeTolerance * scale;
}

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE2D_TOLERANCE2D_H_
