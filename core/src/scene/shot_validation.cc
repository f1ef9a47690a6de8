// ValidateShots: the checks of shot_validation.h, on the public snapshot
// queries (a rewound closest-hit ray or sweep per shot) plus pair queries
// against the shooter's and the claimed target's rewound parts.
//
// The distance a shot passed from a part is found with the narrow phase the
// queries use, not a separate distance routine: a shot inflated by r (a
// sphere of radius r swept along a ray; the sphere or capsule radius plus r
// for a round shot) touches the part exactly when r >= the gap, so the gap
// is the smallest such r, found by bisection (about 20 sweeps, only for a
// claimed target that was missed).
#include "sator/core/scene/shot_validation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/field_status.h"
#include "sator/core/limits.h"
#include "scene/shape_ops.h"

namespace sator::scene {
namespace {

using internal::ShapeOps;

// The smallest radius the cores take for a round shape (3D refuses a radius
// of kMinShapeSize itself).
constexpr float kMinRadius = 2.0f * kMinShapeSize;
// Bisection stops when the bracket is below this times (1 + the part's size).
constexpr float kGapTolerance = 1e-4f;
constexpr int kMaxBisections = 40;

template <int D>
struct Round;

template <>
struct Round<3> {
  // The largest radius a round shape may have.
  static constexpr float kMaxRadius = kMaxShapeCoordinate3;
  static bool Is(const Shape3& shape) {
    return std::holds_alternative<Sphere>(shape) ||
           std::holds_alternative<Capsule3>(shape);
  }
  // `base` (null: a point) grown by `extra`.
  static Shape3 Grow(const Shape3* base, float extra) {
    if (base == nullptr) return Sphere{std::max(extra, kMinRadius)};
    if (const auto* sphere = std::get_if<Sphere>(base)) {
      return Sphere{sphere->radius + extra};
    }
    Capsule3 capsule = std::get<Capsule3>(*base);
    capsule.radius += extra;
    return capsule;
  }
};

template <>
struct Round<2> {
  static constexpr float kMaxRadius = kMaxShapeCoordinate;
  static bool Is(const Shape2& shape) {
    return std::holds_alternative<Circle>(shape) ||
           std::holds_alternative<Capsule2>(shape);
  }
  static Shape2 Grow(const Shape2* base, float extra) {
    if (base == nullptr) return Circle{std::max(extra, kMinRadius)};
    if (const auto* circle = std::get_if<Circle>(base)) {
      return Circle{circle->radius + extra};
    }
    Capsule2 capsule = std::get<Capsule2>(*base);
    capsule.radius += extra;
    return capsule;
  }
};

// Splits a time in ticks into tick + fraction with the fraction in [0, 1)
// after rounding to float.
Rewind SplitTime(double t) {
  Rewind out;
  const double whole = std::floor(t);
  out.tick = static_cast<std::int64_t>(whole);
  out.fraction = static_cast<float>(t - whole);
  if (!(out.fraction < 1.0f)) {
    ++out.tick;
    out.fraction = 0.0f;
  }
  if (out.fraction < 0.0f) out.fraction = 0.0f;
  return out;
}

template <int D>
bool InRange(Vec<D> v) {
  for (int i = 0; i < D; ++i) {
    if (!std::isfinite(v[i]) || std::fabs(v[i]) > kMaxQueryCoordinate) {
      return false;
    }
  }
  return true;
}

template <int D>
absl::Status CheckShot(const Shot<D>& shot, std::size_t i) {
  // The field names are spelled out only for an error: a batch of valid
  // shots builds no string.
  const auto error = [i](absl::string_view field, const absl::Status& s) {
    return PrefixIndex("shots", static_cast<int>(i), PrefixField(field, s));
  };
  if (!InRange<D>(shot.origin)) {
    return error("origin",
                 absl::InvalidArgumentError("must be finite and within 1e15"));
  }
  if (!InRange<D>(shot.direction)) {
    return error("direction",
                 absl::InvalidArgumentError("must be finite and within 1e15"));
  }
  if (NormalizeOrZero(shot.direction, 1e-12f) == Vec<D>{}) {
    return error("direction", absl::InvalidArgumentError("must not be zero"));
  }
  if (std::isnan(shot.range) || shot.range <= 0.0f ||
      shot.range > kMaxQueryCoordinate) {
    return error("range", absl::InvalidArgumentError(absl::StrCat(
                              "must be in (0, 1e15], got ", shot.range)));
  }
  if (shot.shape != nullptr) {
    if (!Round<D>::Is(*shot.shape)) {
      return error("shape",
                   absl::InvalidArgumentError("must be a sphere or a capsule"));
    }
    if (absl::Status s = ShapeOps<D>::ValidateQueryShape(*shot.shape);
        !s.ok()) {
      return error("shape", s);
    }
    Pose<D> pose;
    pose.position = shot.origin;
    pose.rotation = shot.shape_rotation;
    absl::StatusOr<Pose<D>> checked = ShapeOps<D>::CheckPose(pose);
    if (!checked.ok()) {
      return error("shape_rotation", checked.status());
    }
  }
  if (const auto* rewind = std::get_if<Rewind>(&shot.view_time)) {
    if (std::isnan(rewind->fraction) || rewind->fraction < 0.0f ||
        rewind->fraction >= 1.0f) {
      return error("view_time.fraction",
                   absl::InvalidArgumentError(absl::StrCat(
                       "must be in [0, 1), got ", rewind->fraction)));
    }
  } else {
    const double ms = std::get<ViewDelay>(shot.view_time).ms;
    if (!std::isfinite(ms) || std::fabs(ms) > 1e12) {
      return error(
          "view_time.delay_ms",
          absl::InvalidArgumentError(absl::StrCat("must be finite, got ", ms)));
    }
  }
  return absl::OkStatus();
}

// Distance from point p to the segment [a, a + d * length] (d unit).
template <int D>
float PointSegmentDistance(Vec<D> p, Vec<D> a, Vec<D> d, float length) {
  const float s = std::clamp(Dot(p - a, d), 0.0f, length);
  return Length(p - (a + d * s));
}

// The prepared shot: unit direction, its shape's pose.
template <int D>
struct Cast {
  Vec<D> origin{};
  Vec<D> unit{};
  float range = 0.0f;
  const SceneShape<D>* shape = nullptr;  // Null: a ray.
  Pose<D> pose{};                        // The shape's pose at the origin.
  float shape_radius = 0.0f;             // Its bound radius.
};

// Whether the cast, inflated by `extra` (a ray inflated by 0 stays a ray),
// touches `part` within `length` along the shot.
template <int D>
bool Touches(const Cast<D>& cast, float extra, float length,
             const SceneShape<D>& part, const Pose<D>& part_pose) {
  if (cast.shape == nullptr && extra <= 0.0f) {
    absl::StatusOr<RayResult<D>> ray = ShapeOps<D>::RayCast(
        part, part_pose, Ray<D>{cast.origin, cast.unit, length});
    return ray.ok() && ray->hit;
  }
  const SceneShape<D> grown = Round<D>::Grow(cast.shape, extra);
  absl::StatusOr<SweepResult<D>> sweep =
      ShapeOps<D>::Sweep(grown, cast.pose, cast.unit * length, part, part_pose);
  return sweep.ok() && sweep->outcome != SweepOutcome::kMiss;
}

// The gap between the cast (over its range) and the nearest of `parts`.
// Contact with any part is tested first: a shot aimed at one part (often
// stopped by a blocker before it) then costs one test a part, not a
// bisection of the parts before the one it touches.
template <int D>
float GapToParts(const Cast<D>& cast,
                 const std::vector<typename SceneSnapshot<D>::Part>& parts) {
  for (const auto& part : parts) {
    if (Touches(cast, 0.0f, cast.range, *part.shape, part.pose)) return 0.0f;
  }
  float best = std::numeric_limits<float>::infinity();
  for (const auto& part : parts) {
    const float radius = ShapeOps<D>::BoundRadius(*part.shape);
    const float centre = PointSegmentDistance<D>(
        part.pose.position, cast.origin, cast.unit, cast.range);
    const float lower = centre - radius - cast.shape_radius;
    if (lower >= best) continue;
    // The cast grows at most to the largest round shape: a part farther
    // than that reports the gap as that far.
    const float most = Round<D>::kMaxRadius - cast.shape_radius;
    float lo = 0.0f;
    float hi = std::min(centre + radius + kMinRadius, most);
    int grow = 0;
    while (hi < most &&
           !Touches(cast, hi, cast.range, *part.shape, part.pose) &&
           grow++ < 16) {
      lo = hi;
      hi = std::min(2.0f * hi, most);
    }
    const float tolerance = kGapTolerance * (1.0f + radius);
    for (int k = 0; k < kMaxBisections && hi - lo > tolerance; ++k) {
      const float mid = 0.5f * (lo + hi);
      if (Touches(cast, mid, cast.range, *part.shape, part.pose)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    best = std::min(best, hi);
  }
  return best;
}

}  // namespace

std::string_view ShotReasonName(ShotReason reason) {
  switch (reason) {
    case ShotReason::kHit:
      return "hit";
    case ShotReason::kClamped:
      return "clamped";
    case ShotReason::kOtherTargetHit:
      return "other_target_hit";
    case ShotReason::kNothingHit:
      return "nothing_hit";
    case ShotReason::kBlockedByWorld:
      return "blocked_by_world";
    case ShotReason::kTargetMissed:
      return "target_missed";
    case ShotReason::kOutOfRange:
      return "out_of_range";
    case ShotReason::kTargetTeleported:
      return "target_teleported";
    case ShotReason::kTooOld:
      return "too_old";
    case ShotReason::kInFuture:
      return "in_future";
    case ShotReason::kUnknownShooter:
      return "unknown_shooter";
    case ShotReason::kOriginTooFar:
      return "origin_too_far";
    case ShotReason::kUnknownTarget:
      return "unknown_target";
  }
  return "unknown";
}

std::string_view ShotOutcomeName(ShotOutcome outcome) {
  switch (outcome) {
    case ShotOutcome::kHit:
      return "hit";
    case ShotOutcome::kMiss:
      return "miss";
    case ShotOutcome::kRejected:
      return "rejected";
  }
  return "unknown";
}

Rewind ViewDelayToRewind(std::int64_t current_tick, double tick_rate,
                         double delay_ms) {
  return SplitTime(static_cast<double>(current_tick) -
                   delay_ms * tick_rate / 1000.0);
}

absl::Status ValidateHitPolicy(const HitPolicy& policy) {
  if (!std::isfinite(policy.max_rewind_ms) || policy.max_rewind_ms < 0.0f) {
    return FieldError(
        "max_rewind_ms",
        absl::StrCat("must be finite and >= 0, got ", policy.max_rewind_ms));
  }
  if (std::isnan(policy.max_origin_distance) ||
      policy.max_origin_distance < 0.0f) {
    return FieldError(
        "max_origin_distance",
        absl::StrCat("must be >= 0, got ", policy.max_origin_distance));
  }
  if (policy.on_too_old != RewindLimit::kClamp &&
      policy.on_too_old != RewindLimit::kReject) {
    return FieldError("on_too_old", "unknown value");
  }
  return absl::OkStatus();
}

template <int D>
absl::StatusOr<std::vector<ShotVerdict<D>>> ValidateShots(
    const SceneSnapshot<D>& snapshot, absl::Span<const Shot<D>> shots,
    const std::optional<HitPolicy>& policy_override) {
  const HitPolicy& policy =
      policy_override.has_value() ? *policy_override : snapshot.hit_policy();
  if (absl::Status s = ValidateHitPolicy(policy); !s.ok()) {
    return PrefixField("policy", s);
  }
  for (std::size_t i = 0; i < shots.size(); ++i) {
    if (absl::Status s = CheckShot(shots[i], i); !s.ok()) return s;
  }
  const std::int64_t current = snapshot.tick();
  const double rate = snapshot.tick_rate();
  // The oldest time a shot may be judged at, in ticks.
  const double limit =
      std::max(static_cast<double>(snapshot.oldest_tick()),
               static_cast<double>(current) -
                   static_cast<double>(policy.max_rewind_ms) * rate / 1000.0);
  // The ball of max_origin_distance (when finite) the claimed origin must
  // share with the shooter's rewound hitboxes; a distance beyond the largest
  // round shape is that far.
  const SceneShape<D> ball = Round<D>::Grow(
      nullptr, std::isfinite(policy.max_origin_distance)
                   ? std::min(policy.max_origin_distance, Round<D>::kMaxRadius)
                   : 0.0f);
  std::vector<ShotVerdict<D>> verdicts(shots.size());
  for (std::size_t i = 0; i < shots.size(); ++i) {
    const Shot<D>& shot = shots[i];
    ShotVerdict<D>& verdict = verdicts[i];
    auto reject = [&verdict](ShotReason reason) {
      verdict.outcome = ShotOutcome::kRejected;
      verdict.reason = reason;
    };
    Rewind when =
        std::holds_alternative<Rewind>(shot.view_time)
            ? std::get<Rewind>(shot.view_time)
            : ViewDelayToRewind(current, rate,
                                std::get<ViewDelay>(shot.view_time).ms);
    when.on_too_old = RewindLimit::kReject;
    verdict.tick = when.tick;
    verdict.fraction = when.fraction;
    if (when.tick > current || (when.tick == current && when.fraction > 0.0f)) {
      reject(ShotReason::kInFuture);
      continue;
    }
    if (static_cast<double>(when.tick) + when.fraction < limit) {
      if (policy.on_too_old == RewindLimit::kReject) {
        reject(ShotReason::kTooOld);
        continue;
      }
      // The split of `limit` may round just below it; it never leaves the
      // history, since limit >= oldest_tick and the split's tick is
      // floor(limit) (or the next tick, with fraction 0).
      when = SplitTime(limit);
      if (when.tick < snapshot.oldest_tick()) {
        when.tick = snapshot.oldest_tick();
        when.fraction = 0.0f;
      }
      verdict.clamped = true;
    }
    verdict.tick = when.tick;
    verdict.fraction = when.fraction;
    verdict.rewind_ticks = static_cast<double>(current) -
                           (static_cast<double>(when.tick) + when.fraction);

    absl::StatusOr<std::vector<typename SceneSnapshot<D>::Part>> shooter =
        snapshot.GroupParts(shot.shooter_group, when);
    if (!shooter.ok()) return shooter.status();
    if (shot.shooter_group == 0 || shooter->empty()) {
      reject(ShotReason::kUnknownShooter);
      continue;
    }
    if (std::isfinite(policy.max_origin_distance)) {
      Pose<D> at_origin;
      at_origin.position = shot.origin;
      bool near = false;
      for (const auto& part : *shooter) {
        absl::StatusOr<bool> overlap =
            ShapeOps<D>::Overlap(ball, at_origin, *part.shape, part.pose);
        if (overlap.ok() && *overlap) {
          near = true;
          break;
        }
      }
      if (!near) {
        reject(ShotReason::kOriginTooFar);
        continue;
      }
    }
    Cast<D> cast;
    cast.origin = shot.origin;
    cast.unit = NormalizeOrZero(shot.direction, 1e-12f);
    cast.range = shot.range;
    cast.pose.position = shot.origin;
    QueryOptions options;
    options.filter.layer = shot.layer;
    options.filter.mask = shot.mask;
    options.filter.excluded_groups = ExcludedIds::Single(shot.shooter_group);
    options.filter.motion = policy.static_blocks
                                ? MotionSelection::kAll
                                : MotionSelection::kDynamicOnly;
    options.mode = ResultMode::kClosest;
    options.max_hits = 1;
    options.rewind = when;
    absl::StatusOr<QueryResult<D>> result;
    if (shot.shape == nullptr) {
      result = snapshot.RayCast(shot.origin, cast.unit, shot.range, options);
    } else {
      cast.shape = shot.shape.get();
      cast.pose.rotation = shot.shape_rotation;
      cast.pose = *ShapeOps<D>::CheckPose(cast.pose);
      cast.shape_radius = ShapeOps<D>::BoundRadius(*shot.shape);
      result = snapshot.Sweep(*shot.shape, cast.pose, cast.unit * shot.range,
                              options);
      if (result.ok() && !result->hits.empty()) {
        QueryHit<D>& hit = result->hits.front();
        hit.distance = hit.fraction * shot.range;
        hit.flags |= kHitDistance;
      }
    }
    if (!result.ok()) return result.status();
    const bool hit_group =
        !result->hits.empty() && result->hits.front().group_id != 0;
    const bool hit_claimed =
        hit_group && shot.target.has_value() && shot.target->group_id != 0 &&
        result->hits.front().group_id == shot.target->group_id;
    // The claimed target's parts, needed only when the shot did not hit it
    // (a hit proves the target was there): an unknown target is rejected,
    // whatever the cast found.
    std::vector<typename SceneSnapshot<D>::Part> target;
    if (shot.target.has_value() && !hit_claimed) {
      absl::StatusOr<std::vector<typename SceneSnapshot<D>::Part>> parts =
          snapshot.GroupParts(shot.target->group_id, when);
      if (!parts.ok()) return parts.status();
      if (shot.target->group_id == 0 || parts->empty()) {
        reject(ShotReason::kUnknownTarget);
        continue;
      }
      target = *std::move(parts);
    }
    if (!result->hits.empty()) verdict.hit = result->hits.front();
    if (shot.target.has_value() && !hit_claimed) {
      verdict.target_miss_distance = GapToParts<D>(cast, target);
    }
    if (hit_group) {
      verdict.outcome = ShotOutcome::kHit;
      if (shot.target.has_value() && !hit_claimed) {
        verdict.reason = ShotReason::kOtherTargetHit;
      } else {
        verdict.reason =
            verdict.clamped ? ShotReason::kClamped : ShotReason::kHit;
      }
      continue;
    }
    verdict.outcome = ShotOutcome::kMiss;
    if (verdict.hit.has_value()) {
      verdict.reason = ShotReason::kBlockedByWorld;
      continue;
    }
    if (!shot.target.has_value()) {
      verdict.reason = ShotReason::kNothingHit;
      continue;
    }
    if (std::any_of(target.begin(), target.end(),
                    [](const auto& part) { return part.teleported; })) {
      verdict.reason = ShotReason::kTargetTeleported;
      continue;
    }
    // Would the shot have reached the target with no range limit?
    bool beyond = false;
    for (const auto& part : target) {
      const float reach = Length(part.pose.position - shot.origin) +
                          ShapeOps<D>::BoundRadius(*part.shape) +
                          cast.shape_radius + shot.range;
      if (Touches(cast, 0.0f, reach, *part.shape, part.pose)) {
        beyond = true;
        break;
      }
    }
    verdict.reason =
        beyond ? ShotReason::kOutOfRange : ShotReason::kTargetMissed;
  }
  return verdicts;
}

template absl::StatusOr<std::vector<ShotVerdict<2>>> ValidateShots<2>(
    const SceneSnapshot<2>&, absl::Span<const Shot<2>>,
    const std::optional<HitPolicy>&);
template absl::StatusOr<std::vector<ShotVerdict<3>>> ValidateShots<3>(
    const SceneSnapshot<3>&, absl::Span<const Shot<3>>,
    const std::optional<HitPolicy>&);

}  // namespace sator::scene
