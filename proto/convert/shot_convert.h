// sator.v1 hit validation (shot.proto) to and from the core's records
// (sator/core/scene/shot_validation.h), validating every field.
//
// Errors name the field relative to the message converted ("direction: zero
// length" for a Shot, "max_rewind_ms: ..." for a HitPolicy); callers add
// their prefix ("shots[2].", "policy.").
#ifndef SATOR_PROTO_CONVERT_SHOT_CONVERT_H_
#define SATOR_PROTO_CONVERT_SHOT_CONVERT_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/convert/geometry_convert.h"
#include "sator/core/scene/shot_validation.h"
#include "sator/v1/scene_service.pb.h"
#include "sator/v1/shot.pb.h"

namespace sator::convert {

// Writes the fields `policy` sets over `into`: set optionals replace, unset
// ones and REWIND_LIMIT_UNSPECIFIED keep what `into` holds. INVALID_ARGUMENT
// "on_too_old: unknown value" for an enum value outside RewindLimit; the
// ranges are scene::ValidateHitPolicy's to check, on the merged policy.
absl::Status MergeHitPolicy(const sator::v1::HitPolicy& policy,
                            scene::HitPolicy* into);

// One shot for a scene of dimension D. origin and direction as ToVec2 /
// ToVec3 (direction by CheckRayDirection); range finite in (0, 1e15]; shape
// unset (a ray) or a sphere or capsule3d in 3D, a circle or capsule2d in 2D
// ("shape: ..."), checked by ToShape2 / ToShape3; shape_pose's rotation as
// ToPose2 / ToPose3 ("shape_pose...."); view_tick's tick in [0, kMaxTick]
// and fraction in [0, 1) ("view_tick.fraction: ..."), view_delay_ms finite
// and within 1e12 ("view_delay_ms: ..."); unset view time: delay 0, the
// scene's current tick. A shooter or target group 0 is well-formed: the
// verdict rejects it (unknown_shooter, unknown_target).
template <int D>
absl::StatusOr<scene::Shot<D>> ToShot(const sator::v1::Shot& shot,
                                      const ShapeLimits& limits);

// Every shot of the request, errors prefixed "shots[i].".
template <int D>
absl::StatusOr<std::vector<scene::Shot<D>>> ToShots(
    const sator::v1::ValidateShotsRequest& request, const ShapeLimits& limits);

sator::v1::ShotOutcome FromShotOutcome(scene::ShotOutcome outcome);
sator::v1::ShotReason FromShotReason(scene::ShotReason reason);

// One verdict, with the shot's id echoed; the hit as FromQueryHit gives a
// ray's (distance along the shot).
template <int D>
void FromShotVerdict(const scene::ShotVerdict<D>& verdict,
                     std::uint64_t shot_id, sator::v1::ShotVerdict* out);

extern template absl::StatusOr<scene::Shot<2>> ToShot<2>(const sator::v1::Shot&,
                                                         const ShapeLimits&);
extern template absl::StatusOr<scene::Shot<3>> ToShot<3>(const sator::v1::Shot&,
                                                         const ShapeLimits&);
extern template absl::StatusOr<std::vector<scene::Shot<2>>> ToShots<2>(
    const sator::v1::ValidateShotsRequest&, const ShapeLimits&);
extern template absl::StatusOr<std::vector<scene::Shot<3>>> ToShots<3>(
    const sator::v1::ValidateShotsRequest&, const ShapeLimits&);
extern template void FromShotVerdict<2>(const scene::ShotVerdict<2>&,
                                        std::uint64_t, sator::v1::ShotVerdict*);
extern template void FromShotVerdict<3>(const scene::ShotVerdict<3>&,
                                        std::uint64_t, sator::v1::ShotVerdict*);

}  // namespace sator::convert

#endif  // SATOR_PROTO_CONVERT_SHOT_CONVERT_H_
