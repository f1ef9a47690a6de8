// The method -> role table (see roles.h).
#include "server/auth/roles.h"

#include "absl/container/flat_hash_map.h"

namespace sator::server::auth {

absl::string_view RoleName(Role role) {
  switch (role) {
    case Role::kRead:
      return "read";
    case Role::kWrite:
      return "write";
    case Role::kAdmin:
      return "admin";
  }
  return "unknown";
}

absl::StatusOr<Role> ParseRole(absl::string_view name) {
  for (const Role role : {Role::kRead, Role::kWrite, Role::kAdmin}) {
    if (name == RoleName(role)) return role;
  }
  return absl::NotFoundError("not a role (read, write or admin)");
}

const std::vector<std::pair<absl::string_view, Role>>& MethodRoleTable() {
  // Read: queries, Ping, PairQuery, reading scenes. Write: read plus body
  // mutations, pose updates and sessions (which carry pose updates). Admin:
  // everything, including creating, deleting, exporting and importing scenes.
  static const auto* const table =
      new std::vector<std::pair<absl::string_view, Role>>{
          {"/sator.v1.QueryService/Ping", Role::kRead},
          {"/sator.v1.QueryService/Overlap", Role::kRead},
          {"/sator.v1.QueryService/Contacts", Role::kRead},
          {"/sator.v1.QueryService/Sweep", Role::kRead},
          {"/sator.v1.QueryService/Raycast", Role::kRead},
          {"/sator.v1.QueryService/PointQuery", Role::kRead},
          {"/sator.v1.QueryService/QueryBatch", Role::kRead},
          {"/sator.v1.QueryService/RaycastBatch", Role::kRead},
          {"/sator.v1.QueryService/PairQuery", Role::kRead},
          {"/sator.v1.QueryService/ValidateShots", Role::kRead},
          // The audit trail holds only verdicts already answered to callers
          // of ValidateShots (read): reading it needs no more.
          {"/sator.v1.QueryService/ListShotVerdicts", Role::kRead},
          {"/sator.v1.QueryService/WatchShotVerdicts", Role::kRead},
          {"/sator.v1.QueryService/Session", Role::kWrite},
          {"/sator.v1.SceneService/ListScenes", Role::kRead},
          {"/sator.v1.SceneService/GetScene", Role::kRead},
          {"/sator.v1.SceneService/CreateScene", Role::kAdmin},
          {"/sator.v1.SceneService/DeleteScene", Role::kAdmin},
          {"/sator.v1.SceneService/ExportScene", Role::kAdmin},
          {"/sator.v1.SceneService/ImportScene", Role::kAdmin},
          {"/sator.v1.BodyService/UpsertBodies", Role::kWrite},
          {"/sator.v1.BodyService/RemoveBodies", Role::kWrite},
          {"/sator.v1.BodyService/UpdatePoses", Role::kWrite},
          // Zones and observers change what a scene reports, as bodies
          // change what it holds; their events and sets are reads.
          {"/sator.v1.ProximityService/AddZone", Role::kWrite},
          {"/sator.v1.ProximityService/AddObserver", Role::kWrite},
          {"/sator.v1.ProximityService/RemoveZone", Role::kWrite},
          {"/sator.v1.ProximityService/RemoveObserver", Role::kWrite},
          {"/sator.v1.ProximityService/GetProximity", Role::kRead},
          {"/sator.v1.ProximityService/WatchProximity", Role::kRead},
          // Reflection describes the API only; any valid token may use it
          // (and --reflection=false removes it).
          {"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
           Role::kRead},
      };
  return *table;
}

const std::vector<absl::string_view>& OpenServices() {
  static const auto* const services =
      new std::vector<absl::string_view>{"grpc.health.v1.Health"};
  return *services;
}

std::optional<Role> RequiredRole(absl::string_view full_method) {
  // "/" + service + "/" + method.
  for (const absl::string_view service : OpenServices()) {
    if (full_method.size() > service.size() + 2 && full_method[0] == '/' &&
        full_method.substr(1, service.size()) == service &&
        full_method[service.size() + 1] == '/') {
      return std::nullopt;
    }
  }
  static const auto* const by_method = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, Role>();
    for (const auto& [method, role] : MethodRoleTable()) {
      map->emplace(method, role);
    }
    return map;
  }();
  if (const auto entry = by_method->find(full_method);
      entry != by_method->end()) {
    return entry->second;
  }
  return Role::kAdmin;
}

}  // namespace sator::server::auth
