// sator.v1 hit validation to and from the core's records; see
// shot_convert.h.
#include "proto/convert/shot_convert.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/convert/dimension_convert.h"
#include "proto/convert/query_convert.h"
#include "proto/convert/scene_convert.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/field_status.h"

namespace sator::convert {
namespace {

// The longest view delay a shot may give, either way (the core's bound: far
// beyond any history, and exact in double).
constexpr double kMaxViewDelayMs = 1e12;

// The round shapes a shot may sweep, per dimension.
template <int D>
struct ShotDim;

template <>
struct ShotDim<2> {
  static bool IsRound(const sator::v1::Shape& s) {
    return s.kind_case() == sator::v1::Shape::kCircle ||
           s.kind_case() == sator::v1::Shape::kCapsule2D;
  }
  static constexpr const char* kRoundShapes = "a circle or a capsule2d";
};

template <>
struct ShotDim<3> {
  static bool IsRound(const sator::v1::Shape& s) {
    return s.kind_case() == sator::v1::Shape::kSphere ||
           s.kind_case() == sator::v1::Shape::kCapsule3D;
  }
  static constexpr const char* kRoundShapes = "a sphere or a capsule3d";
};

// The name of the shape's oneof field ("box3d"), or "no shape".
std::string ShapeKindName(const sator::v1::Shape& shape) {
  const google::protobuf::FieldDescriptor* field =
      sator::v1::Shape::descriptor()->FindFieldByNumber(shape.kind_case());
  return field == nullptr ? "no shape" : std::string(field->name());
}

absl::StatusOr<std::variant<scene::Rewind, scene::ViewDelay>> ToViewTime(
    const sator::v1::Shot& shot) {
  switch (shot.view_time_case()) {
    case sator::v1::Shot::kViewTick: {
      const sator::v1::Rewind& rewind = shot.view_tick();
      if (absl::Status s = CheckTick("view_tick.tick", rewind.tick());
          !s.ok()) {
        return s;
      }
      if (!std::isfinite(rewind.fraction())) {
        return FieldError("view_tick.fraction", "not finite");
      }
      if (rewind.fraction() < 0.0f || rewind.fraction() >= 1.0f) {
        return FieldError(
            "view_tick.fraction",
            absl::StrCat("must be in [0, 1), got ", rewind.fraction()));
      }
      return scene::Rewind{rewind.tick(), rewind.fraction()};
    }
    case sator::v1::Shot::kViewDelayMs: {
      const double ms = shot.view_delay_ms();
      if (!std::isfinite(ms)) return FieldError("view_delay_ms", "not finite");
      if (std::fabs(ms) > kMaxViewDelayMs) {
        return FieldError(
            "view_delay_ms",
            absl::StrCat("must be within +-", kMaxViewDelayMs, ", got ", ms));
      }
      return scene::ViewDelay{ms};
    }
    case sator::v1::Shot::VIEW_TIME_NOT_SET:
      break;
  }
  return scene::ViewDelay{0.0};
}

}  // namespace

absl::Status MergeHitPolicy(const sator::v1::HitPolicy& policy,
                            scene::HitPolicy* into) {
  if (policy.has_max_rewind_ms()) into->max_rewind_ms = policy.max_rewind_ms();
  switch (policy.on_too_old()) {
    case sator::v1::REWIND_LIMIT_UNSPECIFIED:
      break;
    case sator::v1::REWIND_LIMIT_CLAMP:
      into->on_too_old = scene::RewindLimit::kClamp;
      break;
    case sator::v1::REWIND_LIMIT_REJECT:
      into->on_too_old = scene::RewindLimit::kReject;
      break;
    default:
      return FieldError("on_too_old",
                        absl::StrCat("unknown value ", policy.on_too_old()));
  }
  if (policy.has_max_origin_distance()) {
    into->max_origin_distance = policy.max_origin_distance();
  }
  if (policy.has_static_blocks()) into->static_blocks = policy.static_blocks();
  return absl::OkStatus();
}

template <int D>
absl::StatusOr<scene::Shot<D>> ToShot(const sator::v1::Shot& shot,
                                      const ShapeLimits& limits) {
  scene::Shot<D> out;
  out.shooter_group = shot.shooter_group_id();
  absl::StatusOr<Vec<D>> origin = Dim<D>::ToVec(shot.origin());
  if (!origin.ok()) return PrefixField("origin", origin.status());
  out.origin = *origin;
  absl::StatusOr<Vec<D>> direction = Dim<D>::ToVec(shot.direction());
  if (!direction.ok()) return PrefixField("direction", direction.status());
  if (absl::Status s = CheckRayDirection(*direction, "direction"); !s.ok()) {
    return s;
  }
  out.direction = *direction;
  if (!std::isfinite(shot.range())) return FieldError("range", "not finite");
  if (!(shot.range() > 0.0f) || shot.range() > kMaxQueryCoordinate) {
    return FieldError("range",
                      absl::StrCat("must be in (0, 1e15], got ", shot.range()));
  }
  out.range = shot.range();
  if (shot.has_shape()) {
    if (!ShotDim<D>::IsRound(shot.shape())) {
      return FieldError(
          "shape",
          absl::StrCat("must be ", ShotDim<D>::kRoundShapes, " in a ", D,
                       "D scene, got ", ShapeKindName(shot.shape())));
    }
    absl::StatusOr<scene::SceneShape<D>> shape =
        Dim<D>::ToShape(shot.shape(), limits);
    if (!shape.ok()) return PrefixField("shape", shape.status());
    out.shape = std::make_shared<const scene::SceneShape<D>>(*std::move(shape));
  }
  if (shot.has_shape_pose()) {
    absl::StatusOr<Pose<D>> pose = Dim<D>::ToPose(shot.shape_pose());
    if (!pose.ok()) return PrefixField("shape_pose", pose.status());
    out.shape_rotation = pose->rotation;
  }
  if (shot.has_target()) {
    out.target = scene::ClaimedTarget{shot.target().group_id(), std::nullopt};
    if (shot.target().has_part()) out.target->part = shot.target().part();
  }
  absl::StatusOr<std::variant<scene::Rewind, scene::ViewDelay>> view_time =
      ToViewTime(shot);
  if (!view_time.ok()) return view_time.status();
  out.view_time = *view_time;
  if (shot.has_layer()) out.layer = shot.layer();
  if (shot.has_mask()) out.mask = shot.mask();
  return out;
}

template <int D>
absl::StatusOr<std::vector<scene::Shot<D>>> ToShots(
    const sator::v1::ValidateShotsRequest& request, const ShapeLimits& limits) {
  std::vector<scene::Shot<D>> shots;
  shots.reserve(static_cast<std::size_t>(request.shots_size()));
  for (int i = 0; i < request.shots_size(); ++i) {
    absl::StatusOr<scene::Shot<D>> shot = ToShot<D>(request.shots(i), limits);
    if (!shot.ok()) return PrefixIndex("shots", i, shot.status());
    shots.push_back(*std::move(shot));
  }
  return shots;
}

sator::v1::ShotOutcome FromShotOutcome(scene::ShotOutcome outcome) {
  switch (outcome) {
    case scene::ShotOutcome::kHit:
      return sator::v1::SHOT_OUTCOME_HIT;
    case scene::ShotOutcome::kMiss:
      return sator::v1::SHOT_OUTCOME_MISS;
    case scene::ShotOutcome::kRejected:
      return sator::v1::SHOT_OUTCOME_REJECTED;
  }
  return sator::v1::SHOT_OUTCOME_UNSPECIFIED;
}

sator::v1::ShotReason FromShotReason(scene::ShotReason reason) {
  switch (reason) {
    case scene::ShotReason::kHit:
      return sator::v1::SHOT_REASON_HIT;
    case scene::ShotReason::kClamped:
      return sator::v1::SHOT_REASON_CLAMPED;
    case scene::ShotReason::kOtherTargetHit:
      return sator::v1::SHOT_REASON_OTHER_TARGET_HIT;
    case scene::ShotReason::kNothingHit:
      return sator::v1::SHOT_REASON_NOTHING_HIT;
    case scene::ShotReason::kBlockedByWorld:
      return sator::v1::SHOT_REASON_BLOCKED_BY_WORLD;
    case scene::ShotReason::kTargetMissed:
      return sator::v1::SHOT_REASON_TARGET_MISSED;
    case scene::ShotReason::kOutOfRange:
      return sator::v1::SHOT_REASON_OUT_OF_RANGE;
    case scene::ShotReason::kTargetTeleported:
      return sator::v1::SHOT_REASON_TARGET_TELEPORTED;
    case scene::ShotReason::kTooOld:
      return sator::v1::SHOT_REASON_TOO_OLD;
    case scene::ShotReason::kInFuture:
      return sator::v1::SHOT_REASON_IN_FUTURE;
    case scene::ShotReason::kUnknownShooter:
      return sator::v1::SHOT_REASON_UNKNOWN_SHOOTER;
    case scene::ShotReason::kOriginTooFar:
      return sator::v1::SHOT_REASON_ORIGIN_TOO_FAR;
    case scene::ShotReason::kUnknownTarget:
      return sator::v1::SHOT_REASON_UNKNOWN_TARGET;
  }
  return sator::v1::SHOT_REASON_UNSPECIFIED;
}

template <int D>
void FromShotVerdict(const scene::ShotVerdict<D>& verdict,
                     std::uint64_t shot_id, sator::v1::ShotVerdict* out) {
  out->set_shot_id(shot_id);
  out->set_outcome(FromShotOutcome(verdict.outcome));
  out->set_reason(FromShotReason(verdict.reason));
  if (verdict.hit.has_value()) {
    FromQueryHit<D>(*verdict.hit, scene::QueryKind::kRaycast,
                    out->mutable_hit());
  }
  out->set_tick(verdict.tick);
  out->set_fraction(verdict.fraction);
  out->set_rewind_ticks(verdict.rewind_ticks);
  out->set_clamped(verdict.clamped);
  if (verdict.target_miss_distance.has_value()) {
    out->set_target_miss_distance(*verdict.target_miss_distance);
  }
}

template absl::StatusOr<scene::Shot<2>> ToShot<2>(const sator::v1::Shot&,
                                                  const ShapeLimits&);
template absl::StatusOr<scene::Shot<3>> ToShot<3>(const sator::v1::Shot&,
                                                  const ShapeLimits&);
template absl::StatusOr<std::vector<scene::Shot<2>>> ToShots<2>(
    const sator::v1::ValidateShotsRequest&, const ShapeLimits&);
template absl::StatusOr<std::vector<scene::Shot<3>>> ToShots<3>(
    const sator::v1::ValidateShotsRequest&, const ShapeLimits&);
template void FromShotVerdict<2>(const scene::ShotVerdict<2>&, std::uint64_t,
                                 sator::v1::ShotVerdict*);
template void FromShotVerdict<3>(const scene::ShotVerdict<3>&, std::uint64_t,
                                 sator::v1::ShotVerdict*);

}  // namespace sator::convert
