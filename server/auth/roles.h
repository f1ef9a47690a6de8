// Roles and the method -> required role table of satord's bearer-token
// authorization.
//
// Roles are ordered: read < write < admin, and a role may call every method
// that a lesser role may. The table names every method of every sator.v1
// service explicitly (a test checks it against the service descriptors, so a
// new RPC cannot be forgotten); a method not in the table requires admin (fail
// closed). grpc.health.v1 is open: Kubernetes probes carry no token.
#ifndef SATOR_SERVER_AUTH_ROLES_H_
#define SATOR_SERVER_AUTH_ROLES_H_

#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sator::server::auth {

enum class Role { kRead = 1, kWrite = 2, kAdmin = 3 };

// "read", "write" or "admin".
absl::string_view RoleName(Role role);
// The role named `name` (exactly one of the names above); NOT_FOUND otherwise.
absl::StatusOr<Role> ParseRole(absl::string_view name);

// Whether a caller holding `granted` may call a method requiring `required`.
constexpr bool RoleAllows(Role granted, Role required) {
  return static_cast<int>(granted) >= static_cast<int>(required);
}

// The role a call to `full_method` ("/package.Service/Method", as in HTTP/2's
// :path) requires; std::nullopt if the method is open to callers without a
// token. Methods outside the table require admin.
std::optional<Role> RequiredRole(absl::string_view full_method);

// The explicit table: every sator.v1 method (and server reflection) with the
// role it requires, as "/package.Service/Method".
const std::vector<std::pair<absl::string_view, Role>>& MethodRoleTable();

// Services whose every method is open (no token): the health service.
const std::vector<absl::string_view>& OpenServices();

}  // namespace sator::server::auth

#endif  // SATOR_SERVER_AUTH_ROLES_H_
