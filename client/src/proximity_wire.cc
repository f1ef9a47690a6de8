// See proximity_wire.h.
#include "client/src/proximity_wire.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/src/wire_convert.h"
#include "proto/convert/geometry_convert.h"

namespace sator::client_internal {
namespace {

void WriteAnchor(const ProximityAnchor& anchor,
                 sator::v1::ProximityAnchor* out) {
  switch (anchor.kind) {
    case ProximityAnchor::Kind::kBody:
      out->set_body_id(anchor.id);
      break;
    case ProximityAnchor::Kind::kGroup:
      out->set_group_id(anchor.id);
      break;
    case ProximityAnchor::Kind::kWorld:
      break;
  }
}

ProximityAnchor ReadAnchor(const sator::v1::ProximityAnchor& anchor) {
  switch (anchor.kind_case()) {
    case sator::v1::ProximityAnchor::kBodyId:
      return {.kind = ProximityAnchor::Kind::kBody, .id = anchor.body_id()};
    case sator::v1::ProximityAnchor::kGroupId:
      return {.kind = ProximityAnchor::Kind::kGroup, .id = anchor.group_id()};
    case sator::v1::ProximityAnchor::KIND_NOT_SET:
      break;
  }
  return {};
}

QueryFilter ReadFilter(const sator::v1::QueryFilter& filter) {
  QueryFilter out;
  if (filter.has_layer()) out.layer = filter.layer();
  if (filter.has_mask()) out.mask = filter.mask();
  out.exclude_body_ids.assign(filter.exclude_body_ids().begin(),
                              filter.exclude_body_ids().end());
  out.motion = static_cast<MotionFilter>(filter.motion());
  return out;
}

sator::v1::ProximityReport WriteReport(ProximityReport report) {
  return report == ProximityReport::kPerGroup
             ? sator::v1::PROXIMITY_REPORT_PER_GROUP
             : sator::v1::PROXIMITY_REPORT_UNSPECIFIED;
}

ProximityReport ReadReport(sator::v1::ProximityReport report) {
  return report == sator::v1::PROXIMITY_REPORT_PER_GROUP
             ? ProximityReport::kPerGroup
             : ProximityReport::kPerBody;
}

ProximitySource ReadSource(sator::v1::ProximitySource source) {
  return source == sator::v1::PROXIMITY_SOURCE_OBSERVER
             ? ProximitySource::kObserver
             : ProximitySource::kZone;
}

ProximityObject ReadObject(const sator::v1::ProximityObject& object) {
  return {.body_id = object.body_id(), .group_id = object.group_id()};
}

ProximityEventKind ReadKind(sator::v1::ProximityEventKind kind) {
  switch (kind) {
    case sator::v1::PROXIMITY_EVENT_KIND_EXIT:
      return ProximityEventKind::kExit;
    case sator::v1::PROXIMITY_EVENT_KIND_INSIDE:
      return ProximityEventKind::kInside;
    default:
      return ProximityEventKind::kEnter;
  }
}

std::vector<ProximitySet> ReadSets(
    const google::protobuf::RepeatedPtrField<sator::v1::ProximitySet>& sets) {
  std::vector<ProximitySet> out;
  out.reserve(static_cast<std::size_t>(sets.size()));
  for (const sator::v1::ProximitySet& set : sets) {
    ProximitySet& read = out.emplace_back();
    read.source = ReadSource(set.source());
    read.source_id = set.source_id();
    read.objects.reserve(static_cast<std::size_t>(set.objects_size()));
    for (const sator::v1::ProximityObject& object : set.objects()) {
      read.objects.push_back(ReadObject(object));
    }
  }
  return out;
}

constexpr convert::ShapeLimits kNoLimits{
    .max_hull_points = std::numeric_limits<std::uint32_t>::max(),
    .max_mesh_triangles = std::numeric_limits<std::uint32_t>::max(),
    .max_mesh_vertices = std::numeric_limits<std::uint32_t>::max()};

absl::StatusOr<Zone> ReadZone(const sator::v1::Zone& zone) {
  Zone out;
  out.id = zone.id();
  if (convert::ShapeDimension(zone.shape()) == 2) {
    absl::StatusOr<Shape2> shape = convert::ToShape2(zone.shape(), kNoLimits);
    if (!shape.ok()) return shape.status();
    absl::StatusOr<Pose2> pose = convert::ToPose2(zone.pose());
    if (!pose.ok()) return pose.status();
    out.shape = *std::move(shape);
    out.pose = *pose;
  } else {
    absl::StatusOr<Shape3> shape = convert::ToShape3(zone.shape(), kNoLimits);
    if (!shape.ok()) return shape.status();
    absl::StatusOr<Pose3> pose = convert::ToPose3(zone.pose());
    if (!pose.ok()) return pose.status();
    out.shape = *std::move(shape);
    out.pose = *pose;
  }
  out.anchor = ReadAnchor(zone.anchor());
  out.filter = ReadFilter(zone.filter());
  out.report = ReadReport(zone.report());
  out.report_inside = zone.report_inside();
  return out;
}

}  // namespace

void WriteZone(const Zone& zone, sator::v1::Zone* out) {
  out->set_id(zone.id);
  WriteShape(zone.shape, out->mutable_shape());
  WritePose(zone.pose, zone.shape, out->mutable_pose());
  WriteAnchor(zone.anchor, out->mutable_anchor());
  WriteQueryFilter(zone.filter, out->mutable_filter());
  out->set_report(WriteReport(zone.report));
  out->set_report_inside(zone.report_inside);
}

void WriteObserver(const Observer& observer, sator::v1::Observer* out) {
  out->set_id(observer.id);
  WriteAnchor(observer.anchor, out->mutable_anchor());
  out->set_radius(observer.radius);
  out->set_hysteresis(observer.hysteresis);
  WriteQueryFilter(observer.filter, out->mutable_filter());
  out->set_report(WriteReport(observer.report));
}

ProximityTickEvents ReadTickEvents(
    const sator::v1::ProximityTickEvents& events) {
  ProximityTickEvents out;
  out.sequence = events.sequence();
  out.tick = events.tick();
  out.events.reserve(static_cast<std::size_t>(events.events_size()));
  for (const sator::v1::ProximityEvent& event : events.events()) {
    out.events.push_back({.kind = ReadKind(event.kind()),
                          .source = ReadSource(event.source()),
                          .source_id = event.source_id(),
                          .object = ReadObject(event.object())});
  }
  return out;
}

ProximityResync ReadResync(const sator::v1::ProximityResync& resync) {
  return {.tick = resync.tick(),
          .sets = ReadSets(resync.sets()),
          .dropped = resync.dropped(),
          .next_sequence = resync.next_sequence()};
}

absl::StatusOr<ProximityState> ReadProximityState(
    const sator::v1::GetProximityResponse& response) {
  ProximityState out;
  for (int i = 0; i < response.zones_size(); ++i) {
    absl::StatusOr<Zone> zone = ReadZone(response.zones(i));
    if (!zone.ok()) {
      return absl::InternalError(absl::StrCat("GetProximity: zones[", i, "].",
                                              zone.status().message()));
    }
    out.zones.push_back(*std::move(zone));
  }
  for (const sator::v1::Observer& observer : response.observers()) {
    out.observers.push_back({.id = observer.id(),
                             .anchor = ReadAnchor(observer.anchor()),
                             .radius = observer.radius(),
                             .hysteresis = observer.hysteresis(),
                             .filter = ReadFilter(observer.filter()),
                             .report = ReadReport(observer.report())});
  }
  out.tick = response.tick();
  out.sets = ReadSets(response.sets());
  out.next_sequence = response.next_sequence();
  return out;
}

}  // namespace sator::client_internal
