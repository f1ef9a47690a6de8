// sator.v1.ProximityService handlers.
#include "server/proximity_service.h"

#include <memory>
#include <mutex>
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

// Runs `change` on the scene's host under the scene's write lock, with the
// scene still hosted; NOT_FOUND for an unknown or deleted scene.
template <typename Change>
auto UnderWriteLock(const SceneRegistry& scenes, ProximityHosts& hosts,
                    const std::string& scene_id, Change change)
    -> decltype(change(std::declval<HostedScene&>(),
                       std::declval<const std::shared_ptr<ProximityHost>&>())) {
  absl::StatusOr<std::shared_ptr<HostedScene>> scene = scenes.Find(scene_id);
  if (!scene.ok()) return scene.status();
  std::lock_guard<std::mutex> lock((*scene)->write_mutex());
  if ((*scene)->deleted()) {
    return absl::NotFoundError(
        absl::StrCat("scene_id: scene '", scene_id, "' was deleted"));
  }
  return change(**scene, hosts.Host(*scene));
}

}  // namespace

grpc::ServerUnaryReactor* ProximityService::AddZone(
    grpc::CallbackServerContext* context,
    const sator::v1::AddZoneRequest* request,
    sator::v1::AddZoneResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return UnderWriteLock(
        scenes_, hosts_, request->scene_id(),
        [&](HostedScene& scene, const std::shared_ptr<ProximityHost>& host)
            -> absl::StatusOr<sator::v1::AddZoneResponse> {
          absl::StatusOr<std::int64_t> tick =
              host->AddZone(scene, request->zone(), shape_limits_);
          if (!tick.ok()) return tick.status();
          sator::v1::AddZoneResponse added;
          added.set_tick(*tick);
          return added;
        });
  });
}

grpc::ServerUnaryReactor* ProximityService::AddObserver(
    grpc::CallbackServerContext* context,
    const sator::v1::AddObserverRequest* request,
    sator::v1::AddObserverResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return UnderWriteLock(
        scenes_, hosts_, request->scene_id(),
        [&](HostedScene& scene, const std::shared_ptr<ProximityHost>& host)
            -> absl::StatusOr<sator::v1::AddObserverResponse> {
          absl::StatusOr<std::int64_t> tick =
              host->AddObserver(scene, request->observer());
          if (!tick.ok()) return tick.status();
          sator::v1::AddObserverResponse added;
          added.set_tick(*tick);
          return added;
        });
  });
}

grpc::ServerUnaryReactor* ProximityService::RemoveZone(
    grpc::CallbackServerContext* context,
    const sator::v1::RemoveZoneRequest* request,
    sator::v1::RemoveZoneResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return UnderWriteLock(
        scenes_, hosts_, request->scene_id(),
        [&](HostedScene&, const std::shared_ptr<ProximityHost>& host)
            -> absl::StatusOr<sator::v1::RemoveZoneResponse> {
          if (absl::Status s = host->RemoveZone(request->zone_id()); !s.ok()) {
            return s;
          }
          return sator::v1::RemoveZoneResponse();
        });
  });
}

grpc::ServerUnaryReactor* ProximityService::RemoveObserver(
    grpc::CallbackServerContext* context,
    const sator::v1::RemoveObserverRequest* request,
    sator::v1::RemoveObserverResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return UnderWriteLock(
        scenes_, hosts_, request->scene_id(),
        [&](HostedScene&, const std::shared_ptr<ProximityHost>& host)
            -> absl::StatusOr<sator::v1::RemoveObserverResponse> {
          if (absl::Status s = host->RemoveObserver(request->observer_id());
              !s.ok()) {
            return s;
          }
          return sator::v1::RemoveObserverResponse();
        });
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
  // The host is taken under the scene's write lock, the scene not deleted:
  // a DeleteScene after it closes this host, so the watch ends.
  absl::StatusOr<std::shared_ptr<ProximityHost>> host = UnderWriteLock(
      scenes_, hosts_, request->scene_id(),
      [&](HostedScene&, const std::shared_ptr<ProximityHost>& found)
          -> absl::StatusOr<std::shared_ptr<ProximityHost>> { return found; });
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
