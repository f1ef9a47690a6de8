// Private: the OBB-OBB separating axis test with its 15 axes.
#ifndef SATOR_CORE_SRC_GEOMETRY3D_BOX_BOX_H_
#define SATOR_CORE_SRC_GEOMETRY3D_BOX_BOX_H_

#include "sat_polytope.h"
#include "sator/core/geometry3d/shapes3d.h"
#include "sator/core/pose.h"

namespace sator::internal {

// The axis of least penetration (greatest separation) of two boxes, B posed
// in A's frame, with the index conventions of MakeBoxData (faces +x, -x,
// +y, -y, +z, -z; edges 4 along x, 4 along y, 4 along z).
SatAxis BoxBoxAxis(const Box3& a, const Box3& b, const Pose3& b_in_a);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_GEOMETRY3D_BOX_BOX_H_
