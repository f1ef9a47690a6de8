// The operations of sator.v1.ProximityService that change a scene's zones
// and observers, free of gRPC types, and the way those travel with the
// scene: the gRPC handlers and the write-ahead log's replay call the same
// functions (as scene_ops does for scenes and bodies), and ExportScene,
// ImportScene and the data directory's snapshots carry the zones and
// observers through ExportProximity / ImportProximity.
//
// Each change runs under the scene's write lock, the scene not deleted,
// through the durability hook (MutationHook): a request that does not
// convert is refused before it is logged; a refusal the core gives after
// (an id in use, an unknown anchor, a limit) is logged as refused, as for
// bodies.
#ifndef SATOR_SERVER_PROXIMITY_PROXIMITY_OPS_H_
#define SATOR_SERVER_PROXIMITY_PROXIMITY_OPS_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/convert/geometry_convert.h"
#include "sator/v1/proximity.pb.h"
#include "sator/v1/scene_service.pb.h"
#include "server/proximity/proximity_cursor.h"
#include "server/proximity/proximity_hosts.h"
#include "server/scenes/scene_ops.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

struct ProximityOpsOptions {
  convert::ShapeLimits shape_limits;
  // Empty: no hook (replay).
  MutationHook on_mutation;
};

absl::StatusOr<sator::v1::AddZoneResponse> AddZone(
    const SceneRegistry& scenes, ProximityHosts& hosts,
    const ProximityOpsOptions& options,
    const sator::v1::AddZoneRequest& request);
absl::StatusOr<sator::v1::AddObserverResponse> AddObserver(
    const SceneRegistry& scenes, ProximityHosts& hosts,
    const ProximityOpsOptions& options,
    const sator::v1::AddObserverRequest& request);
absl::StatusOr<sator::v1::RemoveZoneResponse> RemoveZone(
    const SceneRegistry& scenes, ProximityHosts& hosts,
    const ProximityOpsOptions& options,
    const sator::v1::RemoveZoneRequest& request);
absl::StatusOr<sator::v1::RemoveObserverResponse> RemoveObserver(
    const SceneRegistry& scenes, ProximityHosts& hosts,
    const ProximityOpsOptions& options,
    const sator::v1::RemoveObserverRequest& request);

// Where a watch of `scene_id`'s evaluations starts (WatchProximity, or a
// Session's watch_proximity, whose request.scene_id is not read): the
// scene's host (made if it has none, under the scene's write lock with the
// scene not deleted, so a DeleteScene after it closes this host and the
// watch ends) and a cursor at request.from_tick or from_sequence.
// INVALID_ARGUMENT naming from_tick / from_sequence; NOT_FOUND for an
// unknown or deleted scene.
absl::StatusOr<ProximityCursor> StartProximityWatch(
    const SceneRegistry& scenes, ProximityHosts& hosts,
    const std::string& scene_id,
    const sator::v1::WatchProximityRequest& request);

// SceneOpsOptions::export_companion: the scene's zones and observers.
void ExportProximity(const ProximityHosts& hosts, const HostedScene& scene,
                     sator::v1::SceneSnapshot* out);

// SceneOpsOptions::import_companion: registers the snapshot's zones and
// observers on the scene being imported (its anchors may be absent: a
// snapshot can hold a zone whose body was removed since), then evaluates
// them once, so the sets hold what is inside from the imported tick on.
// The first refusal, naming `zones[i]` or `observers[i]` (ImportScene puts
// `snapshot.` before it), refuses the import and drops the host.
absl::Status ImportProximity(ProximityHosts& hosts,
                             const convert::ShapeLimits& shape_limits,
                             HostedScene& scene,
                             const sator::v1::SceneSnapshot& snapshot);

}  // namespace sator::server

#endif  // SATOR_SERVER_PROXIMITY_PROXIMITY_OPS_H_
