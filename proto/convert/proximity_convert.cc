// See proximity_convert.h.
#include "proto/convert/proximity_convert.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/convert/query_convert.h"
#include "sator/core/field_status.h"

namespace sator::convert {
namespace {

scene::Anchor ToAnchor(const sator::v1::ProximityAnchor& anchor) {
  switch (anchor.kind_case()) {
    case sator::v1::ProximityAnchor::kBodyId:
      return {.kind = scene::AnchorKind::kBody, .id = anchor.body_id()};
    case sator::v1::ProximityAnchor::kGroupId:
      return {.kind = scene::AnchorKind::kGroup, .id = anchor.group_id()};
    case sator::v1::ProximityAnchor::KIND_NOT_SET:
      break;
  }
  return {};
}

absl::StatusOr<scene::ProximityReport> ToReport(
    sator::v1::ProximityReport report) {
  switch (report) {
    case sator::v1::PROXIMITY_REPORT_UNSPECIFIED:
      return scene::ProximityReport::kPerBody;
    case sator::v1::PROXIMITY_REPORT_PER_GROUP:
      return scene::ProximityReport::kPerGroup;
    default:
      return FieldError("report", absl::StrCat("unknown value ", report));
  }
}

sator::v1::ProximitySource FromSource(scene::ProximitySource source) {
  return source == scene::ProximitySource::kZone
             ? sator::v1::PROXIMITY_SOURCE_ZONE
             : sator::v1::PROXIMITY_SOURCE_OBSERVER;
}

sator::v1::ProximityEventKind FromKind(scene::ProximityEventKind kind) {
  switch (kind) {
    case scene::ProximityEventKind::kEnter:
      return sator::v1::PROXIMITY_EVENT_KIND_ENTER;
    case scene::ProximityEventKind::kExit:
      return sator::v1::PROXIMITY_EVENT_KIND_EXIT;
    case scene::ProximityEventKind::kInside:
      return sator::v1::PROXIMITY_EVENT_KIND_INSIDE;
  }
  return sator::v1::PROXIMITY_EVENT_KIND_UNSPECIFIED;
}

void FromObject(const scene::ProximityObject& object,
                sator::v1::ProximityObject* out) {
  out->set_body_id(object.body_id);
  out->set_group_id(object.group_id);
}

}  // namespace

template <int D>
absl::StatusOr<scene::ZoneDesc<D>> ToZoneDesc(const sator::v1::Zone& zone,
                                              const ShapeLimits& limits) {
  scene::ZoneDesc<D> out;
  out.id = zone.id();
  absl::StatusOr<PlacedShape<D>> placed =
      ToPlacedShape<D>(zone.shape(), zone.pose(), limits);
  if (!placed.ok()) return placed.status();
  out.shape = std::move(placed->shape);
  out.pose = placed->pose;
  out.anchor = ToAnchor(zone.anchor());
  if (absl::Status s = ToQueryFilter(zone.filter(), &out.filter); !s.ok()) {
    return PrefixField("filter", s);
  }
  absl::StatusOr<scene::ProximityReport> report = ToReport(zone.report());
  if (!report.ok()) return report.status();
  out.report = *report;
  out.report_inside = zone.report_inside();
  return out;
}

template <int D>
absl::StatusOr<scene::ObserverDesc<D>> ToObserverDesc(
    const sator::v1::Observer& observer) {
  scene::ObserverDesc<D> out;
  out.id = observer.id();
  if (observer.anchor().kind_case() ==
      sator::v1::ProximityAnchor::KIND_NOT_SET) {
    return FieldError("anchor", "an observer needs a body_id or a group_id");
  }
  out.anchor = ToAnchor(observer.anchor());
  out.radius = observer.radius();
  out.hysteresis = observer.hysteresis();
  if (absl::Status s = ToQueryFilter(observer.filter(), &out.filter); !s.ok()) {
    return PrefixField("filter", s);
  }
  absl::StatusOr<scene::ProximityReport> report = ToReport(observer.report());
  if (!report.ok()) return report.status();
  out.report = *report;
  return out;
}

template absl::StatusOr<scene::ZoneDesc<2>> ToZoneDesc<2>(
    const sator::v1::Zone&, const ShapeLimits&);
template absl::StatusOr<scene::ZoneDesc<3>> ToZoneDesc<3>(
    const sator::v1::Zone&, const ShapeLimits&);
template absl::StatusOr<scene::ObserverDesc<2>> ToObserverDesc<2>(
    const sator::v1::Observer&);
template absl::StatusOr<scene::ObserverDesc<3>> ToObserverDesc<3>(
    const sator::v1::Observer&);

void FromProximityEvent(const scene::ProximityEvent& event,
                        sator::v1::ProximityEvent* out) {
  out->set_kind(FromKind(event.kind));
  out->set_source(FromSource(event.source));
  out->set_source_id(event.source_id);
  FromObject(event.object, out->mutable_object());
}

void FromProximitySets(
    const std::vector<scene::ProximitySet>& sets,
    google::protobuf::RepeatedPtrField<sator::v1::ProximitySet>* out) {
  out->Reserve(static_cast<int>(sets.size()));
  for (const scene::ProximitySet& set : sets) {
    sator::v1::ProximitySet* added = out->Add();
    added->set_source(FromSource(set.source));
    added->set_source_id(set.source_id);
    added->mutable_objects()->Reserve(static_cast<int>(set.objects.size()));
    for (const scene::ProximityObject& object : set.objects) {
      FromObject(object, added->add_objects());
    }
  }
}

}  // namespace sator::convert
