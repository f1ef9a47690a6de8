// ProximityState<D>: validation and bookkeeping of zones and observers; the
// evaluation itself is the pass of proximity_pass.cc.
#include "sator/core/scene/proximity.h"

#include <cmath>
#include <map>
#include <memory>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sator/core/field_status.h"
#include "scene/proximity_data.h"
#include "scene/shape_ops.h"
#include "scene/snapshot_access.h"

namespace sator::scene {

using internal::ProximityData;
using internal::ProximityEntry;
using internal::ShapeOps;

namespace {

template <int D>
ShapePtr<D> RoundShape(float radius) {
  if constexpr (D == 2) {
    return std::make_shared<const SceneShape<2>>(Circle{radius});
  } else {
    return std::make_shared<const SceneShape<3>>(Sphere{radius});
  }
}

// The radius of a circle or sphere shape, 0 for the other kinds.
template <int D>
float RoundRadius(const SceneShape<D>& shape) {
  if constexpr (D == 2) {
    const auto* circle = std::get_if<Circle>(&shape);
    return circle != nullptr ? circle->radius : 0.0f;
  } else {
    const auto* sphere = std::get_if<Sphere>(&shape);
    return sphere != nullptr ? sphere->radius : 0.0f;
  }
}

// NOT_FOUND unless `scene` has the anchor at its newest tick (or the anchor
// may be absent).
template <int D>
absl::Status CheckAnchor(const Anchor& anchor, const SceneSnapshot<D>& scene,
                         bool world_allowed, AnchorPresence presence,
                         internal::BodyIndex<D>* index) {
  switch (anchor.kind) {
    case AnchorKind::kWorld:
      if (world_allowed) return absl::OkStatus();
      return FieldError("anchor.kind", "an observer follows a body or a group");
    case AnchorKind::kBody:
    case AnchorKind::kGroup:
      break;
    default:
      return FieldError(
          "anchor.kind",
          absl::StrCat("unknown kind ", static_cast<int>(anchor.kind)));
  }
  if (anchor.id == 0) {
    return FieldError("anchor.id", "must not be 0");
  }
  if (presence == AnchorPresence::kMayBeAbsent) return absl::OkStatus();
  const internal::SnapshotData<D>* data =
      internal::SnapshotAccess<D>::Find(scene);
  if (data != nullptr) {
    internal::AnchorResolver<D> resolver(*data, index);
    std::uint32_t slot = internal::kNoSlot;
    if (resolver.Resolve(anchor, &slot).has_value()) return absl::OkStatus();
  }
  return FieldError(
      absl::StatusCode::kNotFound, "anchor.id",
      absl::StrCat("the scene has no ",
                   anchor.kind == AnchorKind::kBody ? "body " : "group ",
                   anchor.id));
}

absl::Status CheckNewId(std::uint64_t id, bool in_use, const char* what,
                        std::size_t count, int limit) {
  if (id == 0) return FieldError("id", "must not be 0");
  if (in_use) {
    return FieldError(absl::StatusCode::kAlreadyExists, "id",
                      absl::StrCat(what, " ", id, " already exists"));
  }
  if (count >= static_cast<std::size_t>(limit)) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, "s: the limit of ", limit, " is reached"));
  }
  return absl::OkStatus();
}

}  // namespace

template <int D>
absl::StatusOr<std::unique_ptr<ProximityState<D>>> ProximityState<D>::Create(
    const ProximityOptions& options) {
  for (const auto& [name, value] :
       {std::pair{"max_zones", options.max_zones},
        std::pair{"max_observers", options.max_observers}}) {
    if (value < 1 || value > kMaxProximityEntries) {
      return FieldError(
          name, absl::StrCat("must be in [1, ", kMaxProximityEntries, "], got ",
                             value));
    }
  }
  return std::unique_ptr<ProximityState<D>>(new ProximityState<D>(options));
}

template <int D>
ProximityState<D>::ProximityState(const ProximityOptions& options)
    : data_(std::make_unique<ProximityData<D>>()) {
  data_->options = options;
}

template <int D>
ProximityState<D>::~ProximityState() = default;

template <int D>
absl::Status ProximityState<D>::AddZone(const ZoneDesc<D>& zone,
                                        const SceneSnapshot<D>& scene,
                                        AnchorPresence presence) {
  if (absl::Status s =
          CheckNewId(zone.id, data_->zones.contains(zone.id), "zone",
                     data_->zones.size(), data_->options.max_zones);
      !s.ok()) {
    return s;
  }
  if (zone.shape == nullptr) {
    return FieldError("shape", "is null");
  }
  if (absl::Status s = ShapeOps<D>::ValidateQueryShape(*zone.shape); !s.ok()) {
    return PrefixField("shape", s);
  }
  absl::StatusOr<Pose<D>> pose = ShapeOps<D>::CheckPose(zone.pose);
  if (!pose.ok()) {
    return PrefixField("pose", pose.status());
  }
  if (absl::Status s = CheckAnchor<D>(zone.anchor, scene, true, presence,
                                      &data_->body_index);
      !s.ok()) {
    return s;
  }
  ProximityEntry<D> entry;
  entry.source = ProximitySource::kZone;
  entry.id = zone.id;
  entry.shape = zone.shape;
  entry.round_radius = RoundRadius<D>(*zone.shape);
  entry.pose = *pose;
  entry.anchor = zone.anchor;
  entry.filter = zone.filter;
  entry.report = zone.report;
  entry.report_inside = zone.report_inside;
  data_->zones.emplace(zone.id, std::move(entry));
  return absl::OkStatus();
}

template <int D>
absl::Status ProximityState<D>::RemoveZone(std::uint64_t id) {
  if (data_->zones.erase(id) == 0) {
    return FieldError(absl::StatusCode::kNotFound, "id",
                      absl::StrCat("no zone ", id));
  }
  return absl::OkStatus();
}

template <int D>
absl::Status ProximityState<D>::AddObserver(const ObserverDesc<D>& observer,
                                            const SceneSnapshot<D>& scene,
                                            AnchorPresence presence) {
  if (absl::Status s = CheckNewId(
          observer.id, data_->observers.contains(observer.id), "observer",
          data_->observers.size(), data_->options.max_observers);
      !s.ok()) {
    return s;
  }
  // isfinite first: an ordered comparison with a NaN raises FE_INVALID.
  if (!std::isfinite(observer.radius) || observer.radius <= 0.0f) {
    return FieldError("radius", absl::StrCat("must be finite and > 0, got ",
                                             observer.radius));
  }
  if (!std::isfinite(observer.hysteresis) || observer.hysteresis < 0.0f) {
    return FieldError(
        "hysteresis",
        absl::StrCat("must be finite and >= 0, got ", observer.hysteresis));
  }
  const float outer = observer.radius + observer.hysteresis;
  ShapePtr<D> outer_shape = RoundShape<D>(outer);
  if (absl::Status s = ShapeOps<D>::ValidateQueryShape(*outer_shape); !s.ok()) {
    return FieldError("radius",
                      absl::StrCat("with the hysteresis, ", s.message()));
  }
  // The inner ball (the enter radius) is a query shape of its own.
  ShapePtr<D> inner_shape;
  if (observer.hysteresis > 0.0f) {
    inner_shape = RoundShape<D>(observer.radius);
    if (absl::Status s = ShapeOps<D>::ValidateQueryShape(*inner_shape);
        !s.ok()) {
      return PrefixField("radius", s);
    }
  }
  if (absl::Status s = CheckAnchor<D>(observer.anchor, scene, false, presence,
                                      &data_->body_index);
      !s.ok()) {
    return s;
  }
  ProximityEntry<D> entry;
  entry.source = ProximitySource::kObserver;
  entry.id = observer.id;
  entry.shape = std::move(outer_shape);
  entry.round_radius = outer;
  entry.inner_radius = observer.radius;
  entry.inner = std::move(inner_shape);
  entry.anchor = observer.anchor;
  entry.filter = observer.filter;
  entry.report = observer.report;
  data_->observers.emplace(observer.id, std::move(entry));
  return absl::OkStatus();
}

template <int D>
absl::Status ProximityState<D>::RemoveObserver(std::uint64_t id) {
  if (data_->observers.erase(id) == 0) {
    return FieldError(absl::StatusCode::kNotFound, "id",
                      absl::StrCat("no observer ", id));
  }
  return absl::OkStatus();
}

template <int D>
absl::StatusOr<ProximityTick> ProximityState<D>::Evaluate(
    const SceneSnapshot<D>& scene) {
  const internal::SnapshotData<D>* data =
      internal::SnapshotAccess<D>::Find(scene);
  if (data == nullptr) {
    return FieldError(absl::StatusCode::kFailedPrecondition, "scene",
                      "an empty snapshot");
  }
  const std::int64_t tick = data->tick();
  if (tick < data_->last_tick) {
    return FieldError(absl::StatusCode::kFailedPrecondition, "tick",
                      absl::StrCat(tick, " is below the last tick evaluated, ",
                                   data_->last_tick));
  }
  ProximityTick result;
  result.tick = tick;
  result.stats =
      internal::RunProximityPass<D>(*data, *data_, tick, &result.events);
  data_->last_tick = tick;
  return result;
}

template <int D>
std::vector<ProximitySet> ProximityState<D>::CurrentSets() const {
  std::vector<ProximitySet> sets;
  sets.reserve(data_->zones.size() + data_->observers.size());
  for (const auto* entries : {&data_->zones, &data_->observers}) {
    for (const auto& [id, entry] : *entries) {
      sets.push_back({entry.source, id, entry.set});
    }
  }
  return sets;
}

template <int D>
std::int64_t ProximityState<D>::last_tick() const {
  return data_->last_tick;
}

template <int D>
std::size_t ProximityState<D>::zone_count() const {
  return data_->zones.size();
}

template <int D>
std::size_t ProximityState<D>::observer_count() const {
  return data_->observers.size();
}

template class ProximityState<2>;
template class ProximityState<3>;

}  // namespace sator::scene
