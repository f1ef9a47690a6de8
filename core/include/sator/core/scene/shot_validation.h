// Server-side hit validation: did a shot hit, as the shooter saw the world?
//
// The model (docs/HIT_VALIDATION.md has the reasons with examples):
// - Players and vehicles are hitbox groups (BodyDesc::group_id), their parts
//   labelled (BodyDesc::part). The shooter is a group.
// - A client renders the world some time in the past (interpolation delay
//   plus latency). A shot names that view time, as a tick + fraction or as a
//   delay in milliseconds before the scene's current tick
//   (SceneOptions::tick_rate converts it). The scene rewinds to it: every
//   part is where the history puts it then (group pose and local pose
//   interpolated and composed; never across a teleport).
// - The shot is a ray, or a sphere or capsule swept along the same segment
//   (thick bullets, melee), from the claimed origin along the direction for
//   `range`. The shooter's own group is skipped; the shot's layer and mask
//   skip friendly groups (QueryFilter's test); static bodies block unless the
//   policy says otherwise, and dynamic bodies outside any group always do.
// - The policy bounds what a client may claim: how far back it may rewind
//   (clamp or reject), and how far its origin may lie from its own hitboxes.
//
// Each shot gets a verdict (hit, miss, rejected) and exactly one reason:
//   rejected: kTooOld, kInFuture, kUnknownShooter, kOriginTooFar,
//             kUnknownTarget;
//   hit:      kHit, kClamped (a hit judged at the clamped time),
//             kOtherTargetHit (a group other than the claimed one was hit
//             first);
//   miss:     kNothingHit, kBlockedByWorld, kTargetMissed, kOutOfRange,
//             kTargetTeleported.
// Checks run in that order (rejections first, from the view time on), and
// the first that applies gives the reason.
#ifndef SATOR_CORE_SCENE_SHOT_VALIDATION_H_
#define SATOR_CORE_SCENE_SHOT_VALIDATION_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sator/core/scene/scene.h"
#include "sator/core/scene/scene_types.h"

namespace sator::scene {

// A view time given as a delay: `ms` milliseconds before the scene's current
// tick. Finite; a negative delay is a view time in the future (rejected).
struct ViewDelay {
  double ms = 0.0;
};

// The group (and optionally part) the client says it hit.
struct ClaimedTarget {
  std::uint64_t group_id = 0;
  // The part label, or nullopt for any part. Reported, not enforced: the
  // verdict's hit says which part the shot reached.
  std::optional<std::int32_t> part;
};

template <int D>
using Rotation = decltype(Pose<D>{}.rotation);

template <int D>
struct Shot {
  std::uint64_t shooter_group = 0;
  Vec<D> origin{};
  Vec<D> direction{};  // Need not be unit length; must not be zero.
  float range = 0.0f;  // In (0, 1e15].
  // Null for a ray; else a Sphere or a Capsule (2D: Circle or Capsule2)
  // placed at `origin` with `shape_rotation` and swept by direction * range.
  ShapePtr<D> shape;
  Rotation<D> shape_rotation{};
  std::optional<ClaimedTarget> target;
  // Tick + fraction (fraction in [0, 1); on_too_old is ignored: the policy
  // decides), or a delay before the current tick.
  std::variant<Rewind, ViewDelay> view_time = ViewDelay{0.0};
  // The shot's filter: groups whose layer & mask is 0 are friendly.
  std::uint64_t layer = ~std::uint64_t{0};
  std::uint64_t mask = ~std::uint64_t{0};
};

enum class ShotOutcome : std::uint8_t { kHit = 0, kMiss, kRejected };

enum class ShotReason : std::uint8_t {
  kHit = 0,
  kClamped,
  kOtherTargetHit,
  kNothingHit,
  kBlockedByWorld,
  kTargetMissed,
  kOutOfRange,
  kTargetTeleported,
  kTooOld,
  kInFuture,
  kUnknownShooter,
  kOriginTooFar,
  kUnknownTarget,
};
inline constexpr int kShotReasonCount = 13;

// Stable lower_snake names ("too_old"), for logs and metric labels.
std::string_view ShotReasonName(ShotReason reason);
std::string_view ShotOutcomeName(ShotOutcome outcome);

template <int D>
struct ShotVerdict {
  ShotOutcome outcome = ShotOutcome::kMiss;
  ShotReason reason = ShotReason::kNothingHit;
  // The first thing the shot hit (a group's part or a blocker): body, group,
  // part, point, normal, distance along the shot (0 when it started inside).
  std::optional<QueryHit<D>> hit;
  // The time the shot was judged at (after clamping), and how many ticks
  // before the current tick that is.
  std::int64_t tick = 0;
  float fraction = 0.0f;
  double rewind_ticks = 0.0;
  bool clamped = false;
  // For a claimed target the shot did not hit (kTargetMissed, kOutOfRange,
  // kTargetTeleported, kBlockedByWorld, kOtherTargetHit, kNothingHit): the
  // gap between the shot (its segment, or its swept shape's surface) and the
  // target's nearest part at the view time, ignoring blockers; within
  // 1e-4 of the parts' size. Favour-the-shooter tolerances compare it.
  std::optional<float> target_miss_distance;
};

// Turns a view delay into the tick + fraction it names: t = current_tick -
// delay_ms * tick_rate / 1000, split into floor(t) and t - floor(t), in
// double. The fraction is never 1.0: a value that rounds to 1.0f moves to
// the next tick with fraction 0.
Rewind ViewDelayToRewind(std::int64_t current_tick, double tick_rate,
                         double delay_ms);

// INVALID_ARGUMENT naming the field ("max_rewind_ms: ...") for a policy out
// of range.
absl::Status ValidateHitPolicy(const HitPolicy& policy);

// Judges every shot against `snapshot`, with `policy` (the scene's,
// snapshot.hit_policy(), when absent). INVALID_ARGUMENT naming the field
// ("shots[2].direction: ...") for a malformed shot: a non-finite or zero
// vector, a range out of (0, 1e15], a shape other than a sphere or capsule,
// a fraction outside [0, 1), a non-finite delay. Well-formed shots that are
// implausible are verdicts with outcome kRejected.
template <int D>
absl::StatusOr<std::vector<ShotVerdict<D>>> ValidateShots(
    const SceneSnapshot<D>& snapshot, absl::Span<const Shot<D>> shots,
    const std::optional<HitPolicy>& policy = std::nullopt);

}  // namespace sator::scene

#endif  // SATOR_CORE_SCENE_SHOT_VALIDATION_H_
