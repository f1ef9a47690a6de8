// Private: the cells of the 3D dispatch tables (dispatch3d.cc), one
// function per pair family, each taking the shapes (of the kinds its name
// gives, A first) with their world poses and answering in world terms.
// They live in the file of their query: overlap3d.cc, contact3d.cc,
// sweep3d.cc.
#ifndef SATOR_CORE_SRC_COLLIDE3D_PAIRS3D_H_
#define SATOR_CORE_SRC_COLLIDE3D_PAIRS3D_H_

#include "sator/core/collide3d/shape3d.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"

namespace sator::internal {

using OverlapFn3 = bool (*)(const ConvexShape3& a, const Pose3& pose_a,
                            const ConvexShape3& b, const Pose3& pose_b);
using ContactFn3 = ContactResult<3> (*)(const ConvexShape3& a,
                                        const Pose3& pose_a,
                                        const ConvexShape3& b,
                                        const Pose3& pose_b);
using SweepFn3 = SweepResult<3> (*)(const ConvexShape3& a, const Pose3& pose_a,
                                    Vec3 displacement_a, const ConvexShape3& b,
                                    const Pose3& pose_b, Vec3 displacement_b);

// Round means a sphere or a capsule.
namespace overlap3d {
bool SphereSphere(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                  const Pose3&);
bool SphereBox(const ConvexShape3&, const Pose3&, const ConvexShape3&,
               const Pose3&);
bool BoxSphere(const ConvexShape3&, const Pose3&, const ConvexShape3&,
               const Pose3&);
bool BoxBox(const ConvexShape3&, const Pose3&, const ConvexShape3&,
            const Pose3&);
bool BoxTriangle(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                 const Pose3&);
bool TriangleBox(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                 const Pose3&);
bool CapsuleCapsule(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                    const Pose3&);
bool CapsuleBox(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                const Pose3&);
bool BoxCapsule(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                const Pose3&);
bool SphereCapsule(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                   const Pose3&);
bool CapsuleSphere(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                   const Pose3&);
bool RoundTriangle(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                   const Pose3&);
bool TriangleRound(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                   const Pose3&);
bool HullHull(const ConvexShape3&, const Pose3&, const ConvexShape3&,
              const Pose3&);
bool RoundHull(const ConvexShape3&, const Pose3&, const ConvexShape3&,
               const Pose3&);
bool HullRound(const ConvexShape3&, const Pose3&, const ConvexShape3&,
               const Pose3&);
// Any other pair: the SAT over polytopes, or the round-shape distance.
bool Generic(const ConvexShape3&, const Pose3&, const ConvexShape3&,
             const Pose3&);
}  // namespace overlap3d

namespace contact3d {
ContactResult<3> BoxBox(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                        const Pose3&);
ContactResult<3> HullHull(const ConvexShape3&, const Pose3&,
                          const ConvexShape3&, const Pose3&);
ContactResult<3> RoundRound(const ConvexShape3&, const Pose3&,
                            const ConvexShape3&, const Pose3&);
ContactResult<3> RoundBox(const ConvexShape3&, const Pose3&,
                          const ConvexShape3&, const Pose3&);
ContactResult<3> BoxRound(const ConvexShape3&, const Pose3&,
                          const ConvexShape3&, const Pose3&);
ContactResult<3> RoundTriangle(const ConvexShape3&, const Pose3&,
                               const ConvexShape3&, const Pose3&);
ContactResult<3> TriangleRound(const ConvexShape3&, const Pose3&,
                               const ConvexShape3&, const Pose3&);
// A round shape and a hull, in either order.
ContactResult<3> HullAndRound(const ConvexShape3&, const Pose3&,
                              const ConvexShape3&, const Pose3&);
ContactResult<3> Generic(const ConvexShape3&, const Pose3&, const ConvexShape3&,
                         const Pose3&);
}  // namespace contact3d

namespace sweep3d {
// A round A against any B, and any A against a round B.
SweepResult<3> RoundAny(const ConvexShape3&, const Pose3&, Vec3,
                        const ConvexShape3&, const Pose3&, Vec3);
SweepResult<3> AnyRound(const ConvexShape3&, const Pose3&, Vec3,
                        const ConvexShape3&, const Pose3&, Vec3);
SweepResult<3> BoxBox(const ConvexShape3&, const Pose3&, Vec3,
                      const ConvexShape3&, const Pose3&, Vec3);
SweepResult<3> BoxTriangle(const ConvexShape3&, const Pose3&, Vec3,
                           const ConvexShape3&, const Pose3&, Vec3);
// Any other pair of polytopes: the SAT over time.
SweepResult<3> Polytopes(const ConvexShape3&, const Pose3&, Vec3,
                         const ConvexShape3&, const Pose3&, Vec3);
}  // namespace sweep3d

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_PAIRS3D_H_
