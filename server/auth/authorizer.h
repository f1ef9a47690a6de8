// Decides whether a call may proceed: its bearer token (from the
// `authorization: Bearer <token>` metadata) against the role its method
// requires (roles.h).
//
//   open method (health)                 -> OK, token or not
//   no or malformed authorization header -> UNAUTHENTICATED
//   token not in the token file          -> UNAUTHENTICATED
//   token's role below the method's      -> PERMISSION_DENIED
//   otherwise                            -> OK
//
// Messages never contain the token.
#ifndef SATOR_SERVER_AUTH_AUTHORIZER_H_
#define SATOR_SERVER_AUTH_AUTHORIZER_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "server/auth/token_store.h"

namespace sator::server::auth {

// The token of an "authorization" header value "Bearer <token>" (the scheme is
// case-insensitive, RFC 7235 section 2.1); std::nullopt if the value has
// another form.
std::optional<absl::string_view> BearerToken(absl::string_view authorization);

class Authorizer {
 public:
  explicit Authorizer(TokenStore tokens) : tokens_(std::move(tokens)) {}

  // `authorization` is the header's value, std::nullopt if absent.
  absl::Status Check(absl::string_view full_method,
                     std::optional<absl::string_view> authorization) const;

  const TokenStore& tokens() const { return tokens_; }

 private:
  TokenStore tokens_;
};

}  // namespace sator::server::auth

#endif  // SATOR_SERVER_AUTH_AUTHORIZER_H_
