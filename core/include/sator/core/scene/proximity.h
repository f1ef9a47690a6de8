// Proximity: standing queries on a scene, evaluated after every tick, that
// report what changed as ENTER and EXIT events.
//
// - A zone is a shape at a fixed world pose, or attached to a body or a
//   hitbox group (its pose is then the anchor's pose times the zone's local
//   pose: an aura, a trigger carried by a vehicle). It holds the bodies (or
//   groups) that overlap or touch its shape and pass its filter, exactly as
//   SceneSnapshot::Overlap with that shape, pose and filter would find them.
// - An observer (an area of interest) is a body or a group with a radius r
//   and a hysteresis margin h. An object enters its visible set when its
//   shape comes within r of the observer's position (a circle or sphere of
//   radius r there overlaps or touches it), and leaves only once it is
//   farther than r + h: an object moving back and forth in the band between
//   the two gives no events.
//
// Objects: with ProximityReport::kPerBody each body is an object (identified
// by its id and its group id); with kPerGroup each hitbox group is one
// object (any of its parts counts) and each body outside a group is one.
// The anchor of a zone or observer is never one of its objects.
//
// A ProximityState keeps the zones, the observers and their sets as of the
// last evaluation. Evaluate(snapshot) computes the sets at the snapshot's
// newest tick in one pass (proximity_pass.cc: one tree over every zone and
// observer, traversed once against the scene's broad phase) and returns the
// differences as events. Bodies added, removed or teleported between two
// evaluations need nothing special: a body removed while inside gives EXIT,
// a teleported one is judged where it landed. A zone or observer whose
// anchor is gone (body removed, group with no parts) holds nothing until the
// anchor is back.
//
// The state is not thread-safe: one caller (the tick loop) owns it.
#ifndef SATOR_CORE_SCENE_PROXIMITY_H_
#define SATOR_CORE_SCENE_PROXIMITY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sator/core/broadphase/tree_stats.h"
#include "sator/core/scene/scene.h"
#include "sator/core/scene/scene_types.h"

namespace sator::scene {

namespace internal {
template <int D>
struct ProximityData;
}  // namespace internal

enum class ProximityReport : std::uint8_t { kPerBody = 0, kPerGroup };

// What a zone or observer moves with.
enum class AnchorKind : std::uint8_t {
  kWorld = 0,  // Nothing: a fixed world pose (zones only).
  kBody,       // The body `id`.
  kGroup,      // The hitbox group `id` (its group pose).
};
struct Anchor {
  AnchorKind kind = AnchorKind::kWorld;
  std::uint64_t id = 0;
};

template <int D>
struct ZoneDesc {
  // Non-zero, unique among the state's zones.
  std::uint64_t id = 0;
  // A query shape (convex in 3D), as SceneSnapshot::Overlap takes.
  ShapePtr<D> shape;
  // The world pose (kWorld) or the pose in the anchor's frame.
  Pose<D> pose{};
  Anchor anchor;
  QueryFilter filter;
  ProximityReport report = ProximityReport::kPerBody;
  // Also an INSIDE event, every evaluation, for each object still inside.
  bool report_inside = false;
};

template <int D>
struct ObserverDesc {
  // Non-zero, unique among the state's observers (zone ids are apart).
  std::uint64_t id = 0;
  // kBody or kGroup: the observer's position is the body's world position
  // or the group's pose position.
  Anchor anchor;
  // r, finite and > 0, and h, finite and >= 0, in the scene's length unit.
  float radius = 0.0f;
  float hysteresis = 0.0f;
  QueryFilter filter;
  ProximityReport report = ProximityReport::kPerBody;
};

// The limits a state enforces (RESOURCE_EXHAUSTED beyond), each in
// [1, kMaxProximityEntries].
struct ProximityOptions {
  int max_zones = 4096;
  int max_observers = 65536;
};

// One member of a set: a body (body_id != 0; group_id its group, 0 when it
// has none) or, in kPerGroup sets, a group (body_id 0). Ordered by body id,
// then group id.
struct ProximityObject {
  std::uint64_t body_id = 0;
  std::uint64_t group_id = 0;
  friend bool operator==(const ProximityObject&,
                         const ProximityObject&) = default;
  friend bool operator<(const ProximityObject& a, const ProximityObject& b) {
    return a.body_id != b.body_id ? a.body_id < b.body_id
                                  : a.group_id < b.group_id;
  }
};

enum class ProximityEventKind : std::uint8_t { kEnter = 0, kExit, kInside };
enum class ProximitySource : std::uint8_t { kZone = 0, kObserver };

struct ProximityEvent {
  std::int64_t tick = 0;
  ProximityEventKind kind = ProximityEventKind::kEnter;
  ProximitySource source = ProximitySource::kZone;
  std::uint64_t source_id = 0;  // The zone's or the observer's id.
  ProximityObject object;
  friend bool operator==(const ProximityEvent&,
                         const ProximityEvent&) = default;
};

// A zone's or observer's whole set (for a subscriber that resyncs).
struct ProximitySet {
  ProximitySource source = ProximitySource::kZone;
  std::uint64_t source_id = 0;
  std::vector<ProximityObject> objects;  // Ascending.
};

struct ProximityStats {
  // (zone or observer, body) pairs the pass could not rule out by their
  // bounds, the exact shape tests run on them, and the visits of the tree
  // of zones and observers that bodies too wide for the pass's grid query.
  std::int64_t candidate_pairs = 0;
  std::int64_t narrow_tests = 0;
  broadphase::TreeStats tree;
};

// One evaluation. Events come zones first, then observers, each by
// ascending id, and within one zone or observer by ascending object; an
// object has at most one event per zone or observer and tick.
struct ProximityTick {
  std::int64_t tick = 0;
  std::vector<ProximityEvent> events;
  ProximityStats stats;
};

// Whether registering a zone or observer requires its anchor in the scene.
enum class AnchorPresence {
  // NOT_FOUND for an anchor the scene does not have (a new registration).
  kRequired,
  // Accepted, holding nothing until the anchor is there: a zone or observer
  // restored from a snapshot, whose anchor may have gone after it was
  // registered.
  kMayBeAbsent,
};

template <int D>
class ProximityState {
 public:
  // INVALID_ARGUMENT naming the option out of range.
  static absl::StatusOr<std::unique_ptr<ProximityState>> Create(
      const ProximityOptions& options = {});
  ~ProximityState();
  ProximityState(const ProximityState&) = delete;
  ProximityState& operator=(const ProximityState&) = delete;

  // Registers a zone; it starts empty, so the next evaluation gives ENTER
  // for what it holds. INVALID_ARGUMENT naming the field (id 0, a null or
  // invalid shape, an invalid pose, an unknown anchor kind); ALREADY_EXISTS
  // for an id in use; NOT_FOUND for an anchor body or group that `scene`
  // does not have at its newest tick (unless `presence` is kMayBeAbsent);
  // RESOURCE_EXHAUSTED beyond max_zones.
  absl::Status AddZone(const ZoneDesc<D>& zone, const SceneSnapshot<D>& scene,
                       AnchorPresence presence = AnchorPresence::kRequired);
  // Forgets a zone and its set (no events). NOT_FOUND for an unknown id.
  absl::Status RemoveZone(std::uint64_t id);
  // The same for observers: INVALID_ARGUMENT for id 0, an anchor that is
  // not a body or group, a radius or hysteresis out of range ("radius: must
  // be finite and > 0, got nan"); ALREADY_EXISTS, NOT_FOUND and
  // RESOURCE_EXHAUSTED (max_observers) as for zones.
  absl::Status AddObserver(const ObserverDesc<D>& observer,
                           const SceneSnapshot<D>& scene,
                           AnchorPresence presence = AnchorPresence::kRequired);
  absl::Status RemoveObserver(std::uint64_t id);

  // The sets at `scene`'s newest tick and the events that lead there from
  // the previous evaluation's. The same tick may be evaluated again (after
  // an amendment); FAILED_PRECONDITION for a tick below the last one
  // evaluated or an empty (default-constructed) snapshot.
  absl::StatusOr<ProximityTick> Evaluate(const SceneSnapshot<D>& scene);

  // Every zone's and observer's set as of the last evaluation (zones, then
  // observers, by ascending id; a zone added since is empty).
  std::vector<ProximitySet> CurrentSets() const;
  // The last tick evaluated; -1 before the first evaluation.
  std::int64_t last_tick() const;
  std::size_t zone_count() const;
  std::size_t observer_count() const;

 private:
  explicit ProximityState(const ProximityOptions& options);
  std::unique_ptr<internal::ProximityData<D>> data_;
};

extern template class ProximityState<2>;
extern template class ProximityState<3>;
using ProximityState2 = ProximityState<2>;
using ProximityState3 = ProximityState<3>;

}  // namespace sator::scene

#endif  // SATOR_CORE_SCENE_PROXIMITY_H_
