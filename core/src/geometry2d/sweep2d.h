// Private: sweeps of cores in A's frame.
#ifndef SATOR_CORE_SRC_GEOMETRY2D_SWEEP2D_H_
#define SATOR_CORE_SRC_GEOMETRY2D_SWEEP2D_H_

#include "geometry2d/core2d.h"
#include "sator/core/query_types.h"

namespace sator::internal2d {

// B (already in A's frame) moves by `motion` relative to A over t in [0, 1].
// Results in A's frame at the time of impact (A does not move in its own
// frame).
SweepResult<2> SweepCores(const Core& a, const Core& b, Vec2 motion,
                          float tolerance);

// Contact of any two cores in A's frame (dispatches to SAT or the exact
// small-core distance).
ContactResult<2> ContactCores(const Core& a, const Core& b, float tolerance);

}  // namespace sator::internal2d

#endif  // SATOR_CORE_SRC_GEOMETRY2D_SWEEP2D_H_
