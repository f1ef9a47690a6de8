// The client's proximity types to and from sator.v1 (proximity.proto).
#ifndef SATOR_CLIENT_SRC_PROXIMITY_WIRE_H_
#define SATOR_CLIENT_SRC_PROXIMITY_WIRE_H_

#include "absl/status/statusor.h"
#include "sator/client/types.h"
#include "sator/v1/proximity.pb.h"

namespace sator::client_internal {

void WriteZone(const Zone& zone, sator::v1::Zone* out);
void WriteObserver(const Observer& observer, sator::v1::Observer* out);

ProximityTickEvents ReadTickEvents(
    const sator::v1::ProximityTickEvents& events);
ProximityResync ReadResync(const sator::v1::ProximityResync& resync);
// INTERNAL when a zone's shape or pose does not read back.
absl::StatusOr<ProximityState> ReadProximityState(
    const sator::v1::GetProximityResponse& response);

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_PROXIMITY_WIRE_H_
