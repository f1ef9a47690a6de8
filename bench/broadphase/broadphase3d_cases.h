// 3D broad-phase cases, side by side with Bullet's btDbvt.
#ifndef SATOR_BENCH_BROADPHASE_BROADPHASE3D_CASES_H_
#define SATOR_BENCH_BROADPHASE_BROADPHASE3D_CASES_H_

#include <string>

namespace sator::broadphase {

// Registers Build, AabbQuery, Raycast and Update_Dynamic cases for n boxes
// in 3D, named `<case><tag>_3d_<structure>/<sator|bullet>`.
void Register3d(int n, const std::string& tag);

}  // namespace sator::broadphase

#endif  // SATOR_BENCH_BROADPHASE_BROADPHASE3D_CASES_H_
