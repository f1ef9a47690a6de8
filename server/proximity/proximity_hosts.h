// The zones and observers of every scene (docs/PROXIMITY.md): one
// ProximityHost per scene that has any, holding the core's ProximityState,
// the zones and observers as they were given, and a SequencedRing of the
// evaluations' events that WatchProximity subscribers follow.
//
// Every write of a scene (bodies upserted or removed, poses updated) is
// followed, under the scene's write lock, by one evaluation of its host
// (SceneOpsOptions::on_scene_written), so events come in tick order and a
// zone sees every tick the scene was written at. A scene with no zones or
// observers costs one map lookup per write.
//
// Thread safety: every method may be called from any thread. A host's own
// mutex orders its evaluations, its registrations and the resync snapshots
// its watches take; registration and evaluation also run under the scene's
// write lock (the callers hold it), so they see the scene as it is written.
#ifndef SATOR_SERVER_PROXIMITY_PROXIMITY_HOSTS_H_
#define SATOR_SERVER_PROXIMITY_PROXIMITY_HOSTS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "proto/convert/geometry_convert.h"
#include "sator/core/scene/proximity.h"
#include "sator/v1/proximity.pb.h"
#include "sator/v1/scene_service.pb.h"
#include "server/scenes/scene_registry.h"
#include "server/streams/sequenced_ring.h"

namespace sator::server {

struct ProximityLimits {
  // Zones and observers per scene (RESOURCE_EXHAUSTED beyond;
  // --max_zones_per_scene, --max_observers_per_scene).
  int max_zones = 4096;
  int max_observers = 65536;
  // Evaluations with events kept per scene for subscribers that resume from
  // a tick or fall behind (--proximity_history).
  std::size_t history = 1024;
  // Evaluations a subscriber may lag behind before it gets a resync
  // (--proximity_watch_buffer), at most `history`.
  std::uint64_t watch_buffer = 256;
};

// INVALID_ARGUMENT naming the flag when a limit is out of range.
absl::Status ValidateProximityLimits(const ProximityLimits& limits);

using ProximityRing = SequencedRing<sator::v1::ProximityTickEvents>;

class ProximityHost {
 public:
  // The host of `scene`; `limits` were checked by ValidateProximityLimits.
  ProximityHost(const std::shared_ptr<const HostedScene>& scene,
                const ProximityLimits& limits);

  // Whether this is the host of `scene` (not of an earlier scene of the
  // same id).
  bool BelongsTo(const HostedScene& scene) const;

  // What a zone or observer converts to, without registering it: the
  // INVALID_ARGUMENT a registration would give for a malformed request
  // ("zone.shape.sphere.radius: ..."), checked before it is logged.
  absl::Status CheckZone(const sator::v1::Zone& zone,
                         const convert::ShapeLimits& limits) const;
  absl::Status CheckObserver(const sator::v1::Observer& observer) const;

  // Registration, with the scene's write lock held. The errors of
  // ProximityState::AddZone / AddObserver, under the field path `field`
  // ("zone.shape.sphere.radius: ...", "observer.radius: ..."). OK gives the
  // scene's tick.
  absl::StatusOr<std::int64_t> AddZone(
      const HostedScene& scene, const sator::v1::Zone& zone,
      const convert::ShapeLimits& limits, absl::string_view field,
      scene::AnchorPresence presence = scene::AnchorPresence::kRequired);
  absl::StatusOr<std::int64_t> AddObserver(
      const HostedScene& scene, const sator::v1::Observer& observer,
      absl::string_view field,
      scene::AnchorPresence presence = scene::AnchorPresence::kRequired);
  // NOT_FOUND naming "zone_id" / "observer_id" for an unknown id.
  absl::Status RemoveZone(std::uint64_t id);
  absl::Status RemoveObserver(std::uint64_t id);
  bool HasZone(std::uint64_t id) const;
  bool HasObserver(std::uint64_t id) const;

  // Evaluates the zones and observers at the scene's newest tick (with its
  // write lock held), appends the events, if any, to the ring and wakes the
  // subscribers. Returns how many events there were.
  std::size_t Evaluate(const HostedScene& scene);

  void Describe(sator::v1::GetProximityResponse* out) const;
  // The zones and observers, by ascending id, into a scene's snapshot.
  void ExportTo(sator::v1::SceneSnapshot* out) const;

  // Every set as of the last evaluation, and the sequence of the next
  // events after it: what a subscriber that lost events starts again from.
  void Resync(sator::v1::ProximityResync* out) const;

  // The sequence of the first kept evaluation at or after `tick`; the next
  // sequence when there is none yet. `*lost` is set when evaluations at or
  // after `tick` are no longer kept.
  std::uint64_t FirstSequenceAtOrAfter(std::int64_t tick, bool* lost) const;

  // The scene was deleted: watches end (with OK) at their next wake-up,
  // which this gives them.
  void Close();
  bool closed() const { return closed_.load(std::memory_order_acquire); }

  ProximityRing& ring() { return ring_; }
  const ProximityLimits& limits() const { return limits_; }
  bool empty() const;

 private:
  // The last evaluation's tick and sets, and the next sequence, into a
  // GetProximityResponse or a ProximityResync; with mu_ held.
  template <typename Message>
  void FillSets(Message* out) const;

  // Calls `visit` on the state of this host's dimension, with mu_ held.
  template <typename Visit>
  auto WithState(Visit visit) {
    return dimension_ == 2 ? visit.template operator()<2>(*std::get<0>(state_))
                           : visit.template operator()<3>(*std::get<1>(state_));
  }

  const std::weak_ptr<const HostedScene> scene_;
  const int dimension_;
  const ProximityLimits limits_;
  ProximityRing ring_;
  std::atomic<bool> closed_{false};

  mutable std::mutex mu_;
  // Guarded by mu_.
  std::variant<std::unique_ptr<scene::ProximityState2>,
               std::unique_ptr<scene::ProximityState3>>
      state_;
  std::map<std::uint64_t, sator::v1::Zone> zones_;
  std::map<std::uint64_t, sator::v1::Observer> observers_;
};

// Counts kept across every host (sator_proximity_* in /metrics).
struct ProximityCounters {
  std::atomic<std::uint64_t> evaluations{0};
  std::atomic<std::uint64_t> events{0};
  std::atomic<std::uint64_t> resyncs{0};
  std::atomic<std::uint64_t> evaluation_micros{0};
  std::atomic<std::int64_t> watches{0};
};

class ProximityHosts final : public prometheus::Collectable {
 public:
  explicit ProximityHosts(const ProximityLimits& limits) : limits_(limits) {}

  const ProximityLimits& limits() const { return limits_; }

  // The scene's host, made on first use (with the scene's write lock held
  // and the scene not deleted, so that a host is never made for a scene
  // already gone). A host left under the id by a deleted scene is closed
  // and replaced.
  std::shared_ptr<ProximityHost> Host(
      const std::shared_ptr<const HostedScene>& scene);
  // The scene's host; null when it has none.
  std::shared_ptr<ProximityHost> Find(const HostedScene& scene) const;
  // The scene was deleted: its host goes and its watches end. A host of a
  // newer scene of the same id stays.
  void Forget(const HostedScene& scene);

  // After a write of `scene`, with its write lock held.
  void OnSceneWritten(const HostedScene& scene);

  ProximityCounters& counters() { return counters_; }

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const ProximityLimits limits_;
  ProximityCounters counters_;
  mutable std::mutex mu_;
  // Guarded by mu_.
  std::map<std::string, std::shared_ptr<ProximityHost>, std::less<>> hosts_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_PROXIMITY_PROXIMITY_HOSTS_H_
