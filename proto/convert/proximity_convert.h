// sator.v1 proximity messages (proximity.proto) to and from the core's
// zones, observers, events and sets (sator/core/scene/proximity.h).
#ifndef SATOR_PROTO_CONVERT_PROXIMITY_CONVERT_H_
#define SATOR_PROTO_CONVERT_PROXIMITY_CONVERT_H_

#include <vector>

#include "absl/status/statusor.h"
#include "proto/convert/geometry_convert.h"
#include "sator/core/scene/proximity.h"
#include "sator/v1/proximity.pb.h"

namespace sator::convert {

// The fields the core checks against the scene (an anchor it does not have,
// a radius out of range, an id in use) are left to it; these refuse what
// cannot be converted: a bad shape ("shape...."), pose ("pose....") or
// filter ("filter...."), an unknown report.
template <int D>
absl::StatusOr<scene::ZoneDesc<D>> ToZoneDesc(const sator::v1::Zone& zone,
                                              const ShapeLimits& limits);
template <int D>
absl::StatusOr<scene::ObserverDesc<D>> ToObserverDesc(
    const sator::v1::Observer& observer);

void FromProximityEvent(const scene::ProximityEvent& event,
                        sator::v1::ProximityEvent* out);
void FromProximitySets(
    const std::vector<scene::ProximitySet>& sets,
    google::protobuf::RepeatedPtrField<sator::v1::ProximitySet>* out);

}  // namespace sator::convert

#endif  // SATOR_PROTO_CONVERT_PROXIMITY_CONVERT_H_
