// Private: the OBB-OBB separating axis test with its 15 axes.
#ifndef SATOR_CORE_SRC_COLLIDE3D_BOX_BOX_H_
#define SATOR_CORE_SRC_COLLIDE3D_BOX_BOX_H_

#include "sat_polytope.h"
#include "sator/core/collide3d/shapes3d.h"
#include "sator/core/pose.h"

namespace sator::internal {

// The axis of least penetration (greatest separation) of two boxes, B posed
// in A's frame, with the index conventions of MakeBoxData (faces +x, -x,
// +y, -y, +z, -z; edges 4 along x, 4 along y, 4 along z).
SatAxis BoxBoxAxis(const Box3& a, const Box3& b, const Pose3& b_in_a);

// The separation ContactBoxBox measures (<= 0 when it reports overlap), for
// B's rotation matrix r (r[i][j] = A_i . B_j) and centre t in A's frame: the
// overlap tests' decision where Ericson's epsilon is too coarse
// (box_overlap_axes.h).
float BoxBoxSeparation(Vec3 ha, Vec3 hb, const float (&r)[3][3], Vec3 t);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_BOX_BOX_H_
