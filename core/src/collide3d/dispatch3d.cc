// Who answers each 3D pair of convex shapes: one table per query, rows A's
// kind and columns B's, both in ConvexShape3's order. A cell names the
// pair family's function (pairs3d.h); Generic is the SAT over polytopes or
// the round-shape distance, which answers every pair.
#include "collide3d/pairs3d.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/sweep3d.h"

namespace sator {
namespace {

namespace ov = internal::overlap3d;
namespace ct = internal::contact3d;
namespace sw = internal::sweep3d;

constexpr int kKinds = 5;
static_assert(std::variant_size_v<ConvexShape3> == kKinds);
static_assert(static_cast<int>(ShapeKind3::kSphere) == 0 &&
              static_cast<int>(ShapeKind3::kBox) == 1 &&
              static_cast<int>(ShapeKind3::kCapsule) == 2 &&
              static_cast<int>(ShapeKind3::kTriangle) == 3 &&
              static_cast<int>(ShapeKind3::kHull) == 4);

// clang-format off
constexpr internal::OverlapFn3 kOverlaps[kKinds][kKinds] = {
  // B: Sphere             Box               Capsule             Triangle            Hull              A:
     {ov::SphereSphere,    ov::SphereBox,    ov::SphereCapsule,  ov::RoundTriangle,  ov::RoundHull},   // Sphere
     {ov::BoxSphere,       ov::BoxBox,       ov::BoxCapsule,     ov::BoxTriangle,    ov::Generic},     // Box
     {ov::CapsuleSphere,   ov::CapsuleBox,   ov::CapsuleCapsule, ov::RoundTriangle,  ov::RoundHull},   // Capsule
     {ov::TriangleRound,   ov::TriangleBox,  ov::TriangleRound,  ov::Generic,        ov::Generic},     // Triangle
     {ov::HullRound,       ov::Generic,      ov::HullRound,      ov::Generic,        ov::HullHull},    // Hull
};

constexpr internal::ContactFn3 kContacts[kKinds][kKinds] = {
  // B: Sphere             Box               Capsule             Triangle            Hull              A:
     {ct::RoundRound,      ct::RoundBox,     ct::RoundRound,     ct::RoundTriangle,  ct::HullAndRound},  // Sphere
     {ct::BoxRound,        ct::BoxBox,       ct::BoxRound,       ct::Generic,        ct::Generic},       // Box
     {ct::RoundRound,      ct::RoundBox,     ct::RoundRound,     ct::RoundTriangle,  ct::HullAndRound},  // Capsule
     {ct::TriangleRound,   ct::Generic,      ct::TriangleRound,  ct::Generic,        ct::Generic},       // Triangle
     {ct::HullAndRound,    ct::Generic,      ct::HullAndRound,   ct::Generic,        ct::HullHull},      // Hull
};

constexpr internal::SweepFn3 kSweeps[kKinds][kKinds] = {
  // B: Sphere             Box               Capsule             Triangle            Hull              A:
     {sw::RoundAny,        sw::RoundAny,     sw::RoundAny,       sw::RoundAny,       sw::RoundAny},    // Sphere
     {sw::AnyRound,        sw::BoxBox,       sw::AnyRound,       sw::BoxTriangle,    sw::Polytopes},   // Box
     {sw::RoundAny,        sw::RoundAny,     sw::RoundAny,       sw::RoundAny,       sw::RoundAny},    // Capsule
     {sw::AnyRound,        sw::Polytopes,    sw::AnyRound,       sw::Polytopes,      sw::Polytopes},   // Triangle
     {sw::AnyRound,        sw::Polytopes,    sw::AnyRound,       sw::Polytopes,      sw::Polytopes},   // Hull
};
// clang-format on

}  // namespace

bool Overlap(const ConvexShape3& a, const Pose3& pose_a, const ConvexShape3& b,
             const Pose3& pose_b) {
  return kOverlaps[a.index()][b.index()](a, pose_a, b, pose_b);
}

ContactResult<3> Contact(const ConvexShape3& a, const Pose3& pose_a,
                         const ConvexShape3& b, const Pose3& pose_b) {
  return kContacts[a.index()][b.index()](a, pose_a, b, pose_b);
}

SweepResult<3> Sweep(const ConvexShape3& a, const Pose3& pose_a,
                     Vec3 displacement_a, const ConvexShape3& b,
                     const Pose3& pose_b, Vec3 displacement_b) {
  return kSweeps[a.index()][b.index()](a, pose_a, displacement_a, b, pose_b,
                                       displacement_b);
}

}  // namespace sator
