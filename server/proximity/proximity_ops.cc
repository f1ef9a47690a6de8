// See proximity_ops.h.
#include "server/proximity/proximity_ops.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "sator/core/field_status.h"

namespace sator::server {
namespace {

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
    return FieldError(absl::StatusCode::kNotFound, "scene_id",
                      absl::StrCat("scene '", scene_id, "' was deleted"));
  }
  return change(**scene, hosts.Host(*scene));
}

// `apply` through the durability hook, if there is one.
absl::Status Logged(const ProximityOpsOptions& options,
                    const std::string& scene_id,
                    const google::protobuf::Message& request,
                    absl::FunctionRef<absl::Status()> apply) {
  if (!options.on_mutation) return apply();
  return options.on_mutation(scene_id, request, apply);
}

// The tick a registration gave, as its response.
template <typename Response>
absl::StatusOr<Response> WithTick(const absl::Status& status,
                                  std::int64_t tick) {
  if (!status.ok()) return status;
  Response response;
  response.set_tick(tick);
  return response;
}

}  // namespace

absl::StatusOr<sator::v1::AddZoneResponse> AddZone(
    const SceneRegistry& scenes, ProximityHosts& hosts,
    const ProximityOpsOptions& options,
    const sator::v1::AddZoneRequest& request) {
  return UnderWriteLock(
      scenes, hosts, request.scene_id(),
      [&](HostedScene& scene, const std::shared_ptr<ProximityHost>& host)
          -> absl::StatusOr<sator::v1::AddZoneResponse> {
        if (absl::Status s =
                host->CheckZone(request.zone(), options.shape_limits);
            !s.ok()) {
          return s;
        }
        std::int64_t tick = 0;
        const absl::Status added =
            Logged(options, scene.id(), request, [&]() -> absl::Status {
              absl::StatusOr<std::int64_t> at = host->AddZone(
                  scene, request.zone(), options.shape_limits, "zone");
              if (!at.ok()) return at.status();
              tick = *at;
              return absl::OkStatus();
            });
        return WithTick<sator::v1::AddZoneResponse>(added, tick);
      });
}

absl::StatusOr<sator::v1::AddObserverResponse> AddObserver(
    const SceneRegistry& scenes, ProximityHosts& hosts,
    const ProximityOpsOptions& options,
    const sator::v1::AddObserverRequest& request) {
  return UnderWriteLock(
      scenes, hosts, request.scene_id(),
      [&](HostedScene& scene, const std::shared_ptr<ProximityHost>& host)
          -> absl::StatusOr<sator::v1::AddObserverResponse> {
        if (absl::Status s = host->CheckObserver(request.observer()); !s.ok()) {
          return s;
        }
        std::int64_t tick = 0;
        const absl::Status added =
            Logged(options, scene.id(), request, [&]() -> absl::Status {
              absl::StatusOr<std::int64_t> at =
                  host->AddObserver(scene, request.observer(), "observer");
              if (!at.ok()) return at.status();
              tick = *at;
              return absl::OkStatus();
            });
        return WithTick<sator::v1::AddObserverResponse>(added, tick);
      });
}

absl::StatusOr<sator::v1::RemoveZoneResponse> RemoveZone(
    const SceneRegistry& scenes, ProximityHosts& hosts,
    const ProximityOpsOptions& options,
    const sator::v1::RemoveZoneRequest& request) {
  return UnderWriteLock(
      scenes, hosts, request.scene_id(),
      [&](HostedScene& scene, const std::shared_ptr<ProximityHost>& host)
          -> absl::StatusOr<sator::v1::RemoveZoneResponse> {
        if (!host->HasZone(request.zone_id())) {
          return FieldError(absl::StatusCode::kNotFound, "zone_id",
                            absl::StrCat("no zone ", request.zone_id()));
        }
        absl::Status removed = Logged(options, scene.id(), request, [&] {
          return host->RemoveZone(request.zone_id());
        });
        if (!removed.ok()) return removed;
        return sator::v1::RemoveZoneResponse();
      });
}

absl::StatusOr<sator::v1::RemoveObserverResponse> RemoveObserver(
    const SceneRegistry& scenes, ProximityHosts& hosts,
    const ProximityOpsOptions& options,
    const sator::v1::RemoveObserverRequest& request) {
  return UnderWriteLock(
      scenes, hosts, request.scene_id(),
      [&](HostedScene& scene, const std::shared_ptr<ProximityHost>& host)
          -> absl::StatusOr<sator::v1::RemoveObserverResponse> {
        if (!host->HasObserver(request.observer_id())) {
          return FieldError(
              absl::StatusCode::kNotFound, "observer_id",
              absl::StrCat("no observer ", request.observer_id()));
        }
        absl::Status removed = Logged(options, scene.id(), request, [&] {
          return host->RemoveObserver(request.observer_id());
        });
        if (!removed.ok()) return removed;
        return sator::v1::RemoveObserverResponse();
      });
}

absl::StatusOr<ProximityCursor> StartProximityWatch(
    const SceneRegistry& scenes, ProximityHosts& hosts,
    const std::string& scene_id,
    const sator::v1::WatchProximityRequest& request) {
  if (request.has_from_tick() && request.has_from_sequence()) {
    return FieldError("from_sequence",
                      "give from_tick or from_sequence, not both");
  }
  if (request.has_from_tick() && request.from_tick() < 0) {
    return FieldError("from_tick",
                      absl::StrCat("must be >= 0, got ", request.from_tick()));
  }
  if (request.has_from_sequence() && request.from_sequence() == 0) {
    return FieldError("from_sequence", "must be >= 1");
  }
  absl::StatusOr<std::shared_ptr<ProximityHost>> host = UnderWriteLock(
      scenes, hosts, scene_id,
      [](HostedScene&, const std::shared_ptr<ProximityHost>& found)
          -> absl::StatusOr<std::shared_ptr<ProximityHost>> { return found; });
  if (!host.ok()) return host.status();
  bool lost = false;
  std::uint64_t from = (*host)->ring().next_sequence();
  if (request.has_from_tick()) {
    from = (*host)->FirstSequenceAtOrAfter(request.from_tick(), &lost);
  } else if (request.has_from_sequence()) {
    from = request.from_sequence();
    if (from > (*host)->ring().next_sequence()) {
      return FieldError(
          "from_sequence",
          absl::StrCat("must be at most ", (*host)->ring().next_sequence(),
                       " (the next to be given), got ", from));
    }
    // Older than the oldest kept (the ring's gap check would resync it too,
    // with the same count).
    const std::uint64_t oldest = (*host)->ring().oldest_sequence();
    lost = oldest != 0 && from < oldest;
  }
  return ProximityCursor(*std::move(host), from, lost, hosts.counters());
}

void ExportProximity(const ProximityHosts& hosts, const HostedScene& scene,
                     sator::v1::SceneSnapshot* out) {
  if (const std::shared_ptr<ProximityHost> host = hosts.Find(scene)) {
    host->ExportTo(out);
  }
}

absl::Status ImportProximity(ProximityHosts& hosts,
                             const convert::ShapeLimits& shape_limits,
                             HostedScene& scene,
                             const sator::v1::SceneSnapshot& snapshot) {
  if (snapshot.zones().empty() && snapshot.observers().empty()) {
    return absl::OkStatus();
  }
  const std::shared_ptr<ProximityHost> host =
      hosts.Host(scene.shared_from_this());
  absl::Status refused;
  for (int i = 0; i < snapshot.zones_size() && refused.ok(); ++i) {
    refused = host->AddZone(scene, snapshot.zones(i), shape_limits,
                            absl::StrCat("zones[", i, "]"),
                            scene::AnchorPresence::kMayBeAbsent)
                  .status();
  }
  for (int i = 0; i < snapshot.observers_size() && refused.ok(); ++i) {
    refused = host->AddObserver(scene, snapshot.observers(i),
                                absl::StrCat("observers[", i, "]"),
                                scene::AnchorPresence::kMayBeAbsent)
                  .status();
  }
  if (!refused.ok()) {
    hosts.Forget(scene);
    return refused;
  }
  hosts.OnSceneWritten(scene);
  return absl::OkStatus();
}

}  // namespace sator::server
