// Token and role checks for every call (see authorizer.h).
#include "server/auth/authorizer.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/logging.h"

namespace sator::server::auth {

std::optional<absl::string_view> BearerToken(absl::string_view authorization) {
  constexpr absl::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size() ||
      !absl::EqualsIgnoreCase(authorization.substr(0, kScheme.size()),
                              kScheme) ||
      authorization[kScheme.size()] != ' ') {
    return std::nullopt;
  }
  absl::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty()) return std::nullopt;
  return token;
}

absl::Status Authorizer::Check(
    absl::string_view full_method,
    std::optional<absl::string_view> authorization) const {
  const std::optional<Role> required = RequiredRole(full_method);
  if (!required.has_value()) return absl::OkStatus();
  if (!authorization.has_value()) {
    Log(LogLevel::kDebug, "auth_denied",
        {{"method", full_method}, {"reason", "no authorization metadata"}});
    return absl::UnauthenticatedError(
        "missing 'authorization: Bearer <token>' metadata");
  }
  const std::optional<absl::string_view> token = BearerToken(*authorization);
  if (!token.has_value()) {
    Log(LogLevel::kDebug, "auth_denied",
        {{"method", full_method}, {"reason", "not a bearer token"}});
    return absl::UnauthenticatedError(
        "the authorization metadata is not 'Bearer <token>'");
  }
  const TokenEntry* entry = tokens_.Find(*token);
  if (entry == nullptr) {
    Log(LogLevel::kDebug, "auth_denied",
        {{"method", full_method}, {"reason", "unknown token"}});
    return absl::UnauthenticatedError("invalid token");
  }
  if (!RoleAllows(entry->role, *required)) {
    Log(LogLevel::kDebug, "auth_denied",
        {{"method", full_method},
         {"token_name", entry->name},
         {"role", RoleName(entry->role)},
         {"required", RoleName(*required)}});
    return absl::PermissionDeniedError(
        absl::StrCat("role ", RoleName(entry->role), " may not call ",
                     full_method, " (requires ", RoleName(*required), ")"));
  }
  return absl::OkStatus();
}

}  // namespace sator::server::auth
