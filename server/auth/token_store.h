// Bearer tokens for satord, read from the file named by --auth_token_file.
//
// The file holds one token per line:
//
//   # Comments start with '#'; blank lines are ignored.
//   <role> <token> [<name>]
//   read   4f1c...e9   game-servers
//   admin  9a07...3b   ops
//
// role is read, write or admin (see roles.h). token is 32 to 512 characters
// of RFC 6750's b64token alphabet (A-Z a-z 0-9 - . _ ~ + / and trailing =),
// with at least 8 distinct characters: `openssl rand -hex 32` makes a good
// one. name is an optional label ([A-Za-z0-9._-], at most 64 characters)
// that satord may log in place of the token; it defaults to "line-N". A token
// may appear once. Errors name the line and never repeat the token.
//
// Only SHA-256 digests of the tokens are kept in memory; a presented token is
// hashed and compared with every digest with CRYPTO_memcmp, so the time taken
// says nothing about how much of a token matched.
#ifndef SATOR_SERVER_AUTH_TOKEN_STORE_H_
#define SATOR_SERVER_AUTH_TOKEN_STORE_H_

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "server/auth/roles.h"

namespace sator::server::auth {

inline constexpr size_t kMinTokenLength = 32;
inline constexpr size_t kMaxTokenLength = 512;
inline constexpr size_t kMinDistinctTokenCharacters = 8;

using TokenDigest = std::array<unsigned char, 32>;

// SHA-256 of `token`.
TokenDigest DigestToken(absl::string_view token);

struct TokenEntry {
  Role role = Role::kRead;
  // A label for logs: the name field, or "line-N".
  std::string name;
  int line = 0;
  TokenDigest digest{};
};

class TokenStore {
 public:
  // Parses a token file's contents. `source` (the path) prefixes error
  // messages: "<source> line 3: ...". INVALID_ARGUMENT on any bad line or if
  // there is no token at all.
  static absl::StatusOr<TokenStore> Parse(absl::string_view contents,
                                          absl::string_view source);
  // Reads and parses the file at `path`; FAILED_PRECONDITION if unreadable.
  static absl::StatusOr<TokenStore> Load(const std::string& path);

  // The entry of `token`, or nullptr. Compares the digest of `token` with
  // every entry's digest in constant time per entry.
  const TokenEntry* Find(absl::string_view token) const;

  const std::vector<TokenEntry>& entries() const { return entries_; }

 private:
  std::vector<TokenEntry> entries_;
};

}  // namespace sator::server::auth

#endif  // SATOR_SERVER_AUTH_TOKEN_STORE_H_
