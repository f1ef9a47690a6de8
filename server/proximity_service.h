// sator.v1.ProximityService over gRPC's callback API: the changes of zones
// and observers through proximity/proximity_ops.h (under the scene's write
// lock, logged), GetProximity, and WatchProximity streams
// (proximity/proximity_watch.h).
#ifndef SATOR_SERVER_PROXIMITY_SERVICE_H_
#define SATOR_SERVER_PROXIMITY_SERVICE_H_

#include <utility>

#include "sator/v1/proximity.grpc.pb.h"
#include "server/drain_gate.h"
#include "server/proximity/proximity_hosts.h"
#include "server/proximity/proximity_ops.h"
#include "server/proximity/proximity_watch.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

class ProximityService final
    : public sator::v1::ProximityService::CallbackService {
 public:
  ProximityService(DrainGate& drain_gate, const SceneRegistry& scenes,
                   ProximityOpsOptions options, ProximityHosts& hosts,
                   int max_watches)
      : drain_gate_(drain_gate),
        scenes_(scenes),
        options_(std::move(options)),
        hosts_(hosts),
        watches_(ProximityWatchLimit(max_watches), &hosts.counters().watches) {
    // Open watches end themselves when the drain closes the gate.
    drain_gate_.OnClose([this] { watches_.CloseAll(); });
  }

  void set_overload_limiter(OverloadLimiter* limiter) {
    watches_.set_overload_limiter(limiter);
  }
  grpc::ServerUnaryReactor* AddZone(
      grpc::CallbackServerContext* context,
      const sator::v1::AddZoneRequest* request,
      sator::v1::AddZoneResponse* response) override;
  grpc::ServerUnaryReactor* AddObserver(
      grpc::CallbackServerContext* context,
      const sator::v1::AddObserverRequest* request,
      sator::v1::AddObserverResponse* response) override;
  grpc::ServerUnaryReactor* RemoveZone(
      grpc::CallbackServerContext* context,
      const sator::v1::RemoveZoneRequest* request,
      sator::v1::RemoveZoneResponse* response) override;
  grpc::ServerUnaryReactor* RemoveObserver(
      grpc::CallbackServerContext* context,
      const sator::v1::RemoveObserverRequest* request,
      sator::v1::RemoveObserverResponse* response) override;
  grpc::ServerUnaryReactor* GetProximity(
      grpc::CallbackServerContext* context,
      const sator::v1::GetProximityRequest* request,
      sator::v1::GetProximityResponse* response) override;
  grpc::ServerWriteReactor<sator::v1::WatchProximityResponse>* WatchProximity(
      grpc::CallbackServerContext* context,
      const sator::v1::WatchProximityRequest* request) override;

 private:
  DrainGate& drain_gate_;
  const SceneRegistry& scenes_;
  const ProximityOpsOptions options_;
  ProximityHosts& hosts_;
  ProximityWatches watches_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_PROXIMITY_SERVICE_H_
