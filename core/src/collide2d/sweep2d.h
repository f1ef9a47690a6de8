// Private: sweeps of cores in A's frame.
#ifndef SATOR_CORE_SRC_COLLIDE2D_SWEEP2D_H_
#define SATOR_CORE_SRC_COLLIDE2D_SWEEP2D_H_

#include "collide2d/core2d.h"
#include "sator/core/query_types.h"

namespace sator::internal2d {

// B (already in A's frame) moves by `motion` relative to A over t in [0, 1].
// Results in A's frame at the time of impact (A does not move in its own
// frame).
SweepResult<2> SweepCores(const Core& a, const Core& b, Vec2 motion,
                          float tolerance);

// The graze rule of a sweep whose separation never reaches 0 (sweep2d.cc):
// kHit at the first t in [0, 1] at which the cores' distance is at most
// r_A + r_B + tolerance, else kMiss. Out of line and cold: polytope sweeps
// call it only when they miss at separation 0 with every SAT axis within
// the tolerance at one time (round sweeps apply the rule inline: their
// casts are their main path).
[[gnu::cold, gnu::noinline]] SweepResult<2> SweepGraze(const Core& a,
                                                       const Core& b,
                                                       Vec2 motion,
                                                       float tolerance);

// Midpoint of the overlap, along the reference edge's tangent, of the
// reference edge [r1, r2] (outward normal n) and one or two incident points,
// projected onto the reference line: the contact point of a sweep.
Vec2 FeatureMidpoint(Vec2 r1, Vec2 r2, Vec2 n, const Vec2* inc, int inc_count);

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_COLLIDE2D_SWEEP2D_H_
