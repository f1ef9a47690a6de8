// See proximity_hosts.h.
#include "server/proximity/proximity_hosts.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/convert/proximity_convert.h"
#include "sator/core/field_status.h"

namespace sator::server {
namespace {

// The core's snapshot of a hosted scene, of dimension D.
template <int D>
scene::SceneSnapshot<D> SnapshotOf(const HostedScene& scene) {
  if constexpr (D == 2) {
    return scene.scene2()->Snapshot();
  } else {
    return scene.scene3()->Snapshot();
  }
}

// One registration on a state of dimension D: `desc` (converted from the
// request) added against the scene's newest tick. Errors carry `field`
// ("zone", "observer"); the core's RESOURCE_EXHAUSTED becomes
// `limit_message`, which names the flag. OK gives the tick.
template <int D, typename Desc, typename Add>
absl::StatusOr<std::int64_t> Register(const HostedScene& scene,
                                      absl::string_view field,
                                      absl::string_view limit_message,
                                      const absl::StatusOr<Desc>& desc,
                                      Add add) {
  if (!desc.ok()) return PrefixField(field, desc.status());
  const scene::SceneSnapshot<D> snapshot = SnapshotOf<D>(scene);
  if (absl::Status s = add(*desc, snapshot); !s.ok()) {
    if (s.code() == absl::StatusCode::kResourceExhausted) {
      return absl::ResourceExhaustedError(limit_message);
    }
    return PrefixField(field, s);
  }
  return snapshot.tick();
}

}  // namespace

absl::Status ValidateProximityLimits(const ProximityLimits& limits) {
  if (limits.max_zones < 1 || limits.max_zones > kMaxProximityEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_zones_per_scene: must be in [1, ",
                     kMaxProximityEntries, "], got ", limits.max_zones));
  }
  if (limits.max_observers < 1 || limits.max_observers > kMaxProximityEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_observers_per_scene: must be in [1, ",
                     kMaxProximityEntries, "], got ", limits.max_observers));
  }
  if (limits.history < 1 || limits.history > (1u << 20)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--proximity_history: must be in [1, 1048576], got ", limits.history));
  }
  if (limits.watch_buffer < 1 || limits.watch_buffer > limits.history) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--proximity_watch_buffer: must be in [1, ", limits.history,
        "] (--proximity_history), got ", limits.watch_buffer));
  }
  return absl::OkStatus();
}

ProximityHost::ProximityHost(const std::shared_ptr<const HostedScene>& scene,
                             const ProximityLimits& limits)
    : scene_(scene),
      dimension_(scene->dimension()),
      limits_(limits),
      ring_(limits.history) {
  const scene::ProximityOptions options{.max_zones = limits.max_zones,
                                        .max_observers = limits.max_observers};
  // The limits were validated with the flags.
  if (dimension_ == 2) {
    state_ = *scene::ProximityState2::Create(options);
  } else {
    state_ = *scene::ProximityState3::Create(options);
  }
}

absl::Status ProximityHost::CheckZone(
    const sator::v1::Zone& zone, const convert::ShapeLimits& limits) const {
  return PrefixField(
      "zone", dimension_ == 2 ? convert::ToZoneDesc<2>(zone, limits).status()
                              : convert::ToZoneDesc<3>(zone, limits).status());
}

absl::Status ProximityHost::CheckObserver(
    const sator::v1::Observer& observer) const {
  return PrefixField("observer",
                     dimension_ == 2
                         ? convert::ToObserverDesc<2>(observer).status()
                         : convert::ToObserverDesc<3>(observer).status());
}

absl::StatusOr<std::int64_t> ProximityHost::AddZone(
    const HostedScene& scene, const sator::v1::Zone& zone,
    const convert::ShapeLimits& limits, absl::string_view field,
    scene::AnchorPresence presence) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<std::int64_t> tick =
      WithState([&]<int D>(scene::ProximityState<D>& state) {
        return Register<D>(
            scene, field,
            absl::StrCat(field, ": the scene already has its limit of ",
                         limits_.max_zones, " zones (--max_zones_per_scene)"),
            convert::ToZoneDesc<D>(zone, limits),
            [&](const scene::ZoneDesc<D>& desc,
                const scene::SceneSnapshot<D>& snapshot) {
              return state.AddZone(desc, snapshot, presence);
            });
      });
  if (tick.ok()) zones_[zone.id()] = zone;
  return tick;
}

absl::StatusOr<std::int64_t> ProximityHost::AddObserver(
    const HostedScene& scene, const sator::v1::Observer& observer,
    absl::string_view field, scene::AnchorPresence presence) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<std::int64_t> tick =
      WithState([&]<int D>(scene::ProximityState<D>& state) {
        return Register<D>(
            scene, field,
            absl::StrCat(field, ": the scene already has its limit of ",
                         limits_.max_observers,
                         " observers (--max_observers_per_scene)"),
            convert::ToObserverDesc<D>(observer),
            [&](const scene::ObserverDesc<D>& desc,
                const scene::SceneSnapshot<D>& snapshot) {
              return state.AddObserver(desc, snapshot, presence);
            });
      });
  if (tick.ok()) observers_[observer.id()] = observer;
  return tick;
}

absl::Status ProximityHost::RemoveZone(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Status removed =
      std::visit([id](auto& state) { return state->RemoveZone(id); }, state_);
  if (!removed.ok()) {
    return FieldError(absl::StatusCode::kNotFound, "zone_id",
                      absl::StrCat("no zone ", id));
  }
  zones_.erase(id);
  return absl::OkStatus();
}

absl::Status ProximityHost::RemoveObserver(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Status removed = std::visit(
      [id](auto& state) { return state->RemoveObserver(id); }, state_);
  if (!removed.ok()) {
    return FieldError(absl::StatusCode::kNotFound, "observer_id",
                      absl::StrCat("no observer ", id));
  }
  observers_.erase(id);
  return absl::OkStatus();
}

bool ProximityHost::HasZone(std::uint64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return zones_.contains(id);
}

bool ProximityHost::HasObserver(std::uint64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return observers_.contains(id);
}

bool ProximityHost::BelongsTo(const HostedScene& scene) const {
  // Alive, the scene's address is its identity.
  const std::shared_ptr<const HostedScene> mine = scene_.lock();
  return mine.get() == &scene;
}

bool ProximityHost::empty() const {
  std::lock_guard<std::mutex> lock(mu_);
  return zones_.empty() && observers_.empty();
}

std::size_t ProximityHost::Evaluate(const HostedScene& scene) {
  std::size_t events = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (zones_.empty() && observers_.empty()) return 0;
    absl::StatusOr<scene::ProximityTick> tick =
        WithState([&]<int D>(scene::ProximityState<D>& state) {
          return state.Evaluate(SnapshotOf<D>(scene));
        });
    // Ticks only move forward under the scene's write lock, so the core
    // cannot refuse the evaluation.
    if (!tick.ok() || tick->events.empty()) return 0;
    auto record = std::make_unique<sator::v1::ProximityTickEvents>();
    record->set_tick(tick->tick);
    record->mutable_events()->Reserve(static_cast<int>(tick->events.size()));
    for (const scene::ProximityEvent& event : tick->events) {
      convert::FromProximityEvent(event, record->add_events());
    }
    events = tick->events.size();
    // Under mu_, so that a resync's sets and next sequence agree.
    ring_.AppendWithoutWaking(std::move(record));
  }
  ring_.WakeSubscribers();
  return events;
}

void ProximityHost::Describe(sator::v1::GetProximityResponse* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, zone] : zones_) *out->add_zones() = zone;
  for (const auto& [id, observer] : observers_) {
    *out->add_observers() = observer;
  }
  FillSets(out);
}

void ProximityHost::ExportTo(sator::v1::SceneSnapshot* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, zone] : zones_) *out->add_zones() = zone;
  for (const auto& [id, observer] : observers_) {
    *out->add_observers() = observer;
  }
}

void ProximityHost::Resync(sator::v1::ProximityResync* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  FillSets(out);
}

template <typename Message>
void ProximityHost::FillSets(Message* out) const {
  std::visit(
      [out](const auto& state) {
        out->set_tick(state->last_tick());
        convert::FromProximitySets(state->CurrentSets(), out->mutable_sets());
      },
      state_);
  out->set_next_sequence(ring_.next_sequence());
}

std::uint64_t ProximityHost::FirstSequenceAtOrAfter(std::int64_t tick,
                                                    bool* lost) const {
  *lost = false;
  // One read of the ring: what it keeps, oldest first, as of one moment.
  const std::vector<ProximityRing::Record> kept =
      ring_.ReadFrom(0, ring_.capacity());
  if (kept.empty()) return ring_.next_sequence();
  const std::uint64_t next = kept.back()->sequence() + 1;
  // Evaluations overwritten in the ring had ticks up to the oldest kept
  // one's: any of them may have been at or after `tick`.
  if (kept.front()->sequence() > 1 && tick <= kept.front()->tick()) {
    *lost = true;
    return kept.front()->sequence();
  }
  // Evaluations are appended in tick order.
  for (const ProximityRing::Record& record : kept) {
    if (record->tick() >= tick) return record->sequence();
  }
  return next;
}

void ProximityHost::Close() {
  closed_.store(true, std::memory_order_release);
  ring_.WakeSubscribers();
}

std::shared_ptr<ProximityHost> ProximityHosts::Host(
    const std::shared_ptr<const HostedScene>& scene) {
  std::shared_ptr<ProximityHost> stale;  // Closed after unlocking.
  std::shared_ptr<ProximityHost> host;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::shared_ptr<ProximityHost>& slot = hosts_[scene->id()];
    if (slot != nullptr && !slot->BelongsTo(*scene)) stale = std::move(slot);
    if (slot == nullptr) slot = std::make_shared<ProximityHost>(scene, limits_);
    host = slot;
  }
  if (stale != nullptr) stale->Close();
  return host;
}

std::shared_ptr<ProximityHost> ProximityHosts::Find(
    const HostedScene& scene) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto found = hosts_.find(scene.id());
  if (found == hosts_.end() || !found->second->BelongsTo(scene)) return nullptr;
  return found->second;
}

void ProximityHosts::Forget(const HostedScene& scene) {
  std::shared_ptr<ProximityHost> host;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto found = hosts_.find(scene.id());
    if (found == hosts_.end() || !found->second->BelongsTo(scene)) return;
    host = std::move(found->second);
    hosts_.erase(found);
  }
  host->Close();
}

void ProximityHosts::OnSceneWritten(const HostedScene& scene) {
  const std::shared_ptr<ProximityHost> host = Find(scene);
  if (host == nullptr || host->empty()) return;
  const auto started = std::chrono::steady_clock::now();
  const std::size_t events = host->Evaluate(scene);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
  counters_.evaluations.fetch_add(1, std::memory_order_relaxed);
  counters_.events.fetch_add(events, std::memory_order_relaxed);
  counters_.evaluation_micros.fetch_add(static_cast<std::uint64_t>(micros),
                                        std::memory_order_relaxed);
}

std::vector<prometheus::MetricFamily> ProximityHosts::Collect() const {
  std::vector<prometheus::MetricFamily> families(5);
  const auto fill = [](prometheus::MetricFamily& family, const char* name,
                       const char* help, prometheus::MetricType type,
                       double value) {
    family.name = name;
    family.help = help;
    family.type = type;
    family.metric.emplace_back();
    if (type == prometheus::MetricType::Gauge) {
      family.metric.back().gauge.value = value;
    } else {
      family.metric.back().counter.value = value;
    }
  };
  const auto load = [](const auto& counter) {
    return static_cast<double>(counter.load(std::memory_order_relaxed));
  };
  fill(families[0], "sator_proximity_evaluations_total",
       "Evaluations of a scene's zones and observers (one per write of a "
       "scene that has any).",
       prometheus::MetricType::Counter, load(counters_.evaluations));
  fill(families[1], "sator_proximity_events_total",
       "ENTER, EXIT and INSIDE events the evaluations gave.",
       prometheus::MetricType::Counter, load(counters_.events));
  fill(families[2], "sator_proximity_evaluation_seconds_total",
       "Time spent evaluating zones and observers, under the scenes' write "
       "locks.",
       prometheus::MetricType::Counter,
       load(counters_.evaluation_micros) * 1e-6);
  fill(families[3], "sator_proximity_resyncs_total",
       "Resyncs sent to WatchProximity subscribers in place of events they "
       "fell too far behind for (--proximity_watch_buffer) or that were no "
       "longer kept (--proximity_history).",
       prometheus::MetricType::Counter, load(counters_.resyncs));
  fill(families[4], "sator_proximity_watches", "WatchProximity streams open.",
       prometheus::MetricType::Gauge, load(counters_.watches));
  return families;
}

}  // namespace sator::server
