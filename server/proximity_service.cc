// sator.v1.ProximityService handlers.
#include "server/proximity_service.h"

#include <memory>
#include <utility>

#include "server/scene_service.h"
#include "server/status_mapping.h"

namespace sator::server {
namespace {

// A WatchProximity refused before it started: finishes with `status`.
class RefusedProximityWatch final
    : public grpc::ServerWriteReactor<sator::v1::WatchProximityResponse> {
 public:
  explicit RefusedProximityWatch(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerUnaryReactor* ProximityService::AddZone(
    grpc::CallbackServerContext* context,
    const sator::v1::AddZoneRequest* request,
    sator::v1::AddZoneResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::AddZone(scenes_, hosts_, options_, *request);
  });
}

grpc::ServerUnaryReactor* ProximityService::AddObserver(
    grpc::CallbackServerContext* context,
    const sator::v1::AddObserverRequest* request,
    sator::v1::AddObserverResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::AddObserver(scenes_, hosts_, options_, *request);
  });
}

grpc::ServerUnaryReactor* ProximityService::RemoveZone(
    grpc::CallbackServerContext* context,
    const sator::v1::RemoveZoneRequest* request,
    sator::v1::RemoveZoneResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::RemoveZone(scenes_, hosts_, options_, *request);
  });
}

grpc::ServerUnaryReactor* ProximityService::RemoveObserver(
    grpc::CallbackServerContext* context,
    const sator::v1::RemoveObserverRequest* request,
    sator::v1::RemoveObserverResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::RemoveObserver(scenes_, hosts_, options_, *request);
  });
}

grpc::ServerUnaryReactor* ProximityService::GetProximity(
    grpc::CallbackServerContext* context,
    const sator::v1::GetProximityRequest* request,
    sator::v1::GetProximityResponse* response) {
  return RunGatedUnary(
      drain_gate_, context, *request, response,
      [&]() -> absl::StatusOr<sator::v1::GetProximityResponse> {
        absl::StatusOr<std::shared_ptr<HostedScene>> scene =
            scenes_.Find(request->scene_id());
        if (!scene.ok()) return scene.status();
        sator::v1::GetProximityResponse described;
        if (const std::shared_ptr<ProximityHost> host = hosts_.Find(**scene)) {
          host->Describe(&described);
        } else {
          described.set_tick(-1);
          described.set_next_sequence(1);
        }
        return described;
      });
}

grpc::ServerWriteReactor<sator::v1::WatchProximityResponse>*
ProximityService::WatchProximity(
    grpc::CallbackServerContext* context,
    const sator::v1::WatchProximityRequest* request) {
  DrainGate::Pass pass = drain_gate_.EnterStream();
  if (!pass.admitted()) {
    return new RefusedProximityWatch(ToGrpcStatus(pass.refusal()));
  }
  absl::StatusOr<ProximityCursor> cursor =
      StartProximityWatch(scenes_, hosts_, request->scene_id(), *request);
  if (!cursor.ok()) {
    return new RefusedProximityWatch(ToGrpcStatus(cursor.status()));
  }
  return new ProximityWatch(*std::move(cursor), watches_, std::move(pass),
                            *context);
}

}  // namespace sator::server
