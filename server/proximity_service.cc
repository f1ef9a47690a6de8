// sator.v1.ProximityService handlers.
#include "server/proximity_service.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/convert/field_path.h"
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
  const auto refuse = [](const absl::Status& status) {
    return new RefusedProximityWatch(ToGrpcStatus(status));
  };
  if (request->has_from_tick() && request->has_from_sequence()) {
    return refuse(convert::FieldError(
        "from_sequence", "give from_tick or from_sequence, not both"));
  }
  if (request->has_from_tick() && request->from_tick() < 0) {
    return refuse(convert::FieldError(
        "from_tick", absl::StrCat("must be >= 0, got ", request->from_tick())));
  }
  if (request->has_from_sequence() && request->from_sequence() == 0) {
    return refuse(convert::FieldError("from_sequence", "must be >= 1"));
  }
  absl::StatusOr<std::shared_ptr<ProximityHost>> host =
      HostToWatch(scenes_, hosts_, request->scene_id());
  if (!host.ok()) return refuse(host.status());
  bool lost = false;
  std::uint64_t from = (*host)->ring().next_sequence();
  if (request->has_from_tick()) {
    from = (*host)->FirstSequenceAtOrAfter(request->from_tick(), &lost);
  } else if (request->has_from_sequence()) {
    from = request->from_sequence();
    if (from > (*host)->ring().next_sequence()) {
      return refuse(convert::FieldError(
          "from_sequence",
          absl::StrCat("must be at most ", (*host)->ring().next_sequence(),
                       " (the next to be given), got ", from)));
    }
    // Older than the oldest kept (the ring's gap check would resync it too,
    // with the same count).
    const std::uint64_t oldest = (*host)->ring().oldest_sequence();
    lost = oldest != 0 && from < oldest;
  }
  return new ProximityWatch(*std::move(host), from, lost, watches_,
                            hosts_.counters(), std::move(pass), *context);
}

}  // namespace sator::server
