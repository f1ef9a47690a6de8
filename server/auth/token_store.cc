// Parsing and constant-time lookup of bearer tokens (see token_store.h).
#include "server/auth/token_store.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <bitset>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sator::server::auth {
namespace {

// RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~"
// / "+" / "/" ) *"=".
bool IsTokenCharacter(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' ||
         c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
}

bool IsB64Token(absl::string_view token) {
  size_t end = token.size();
  while (end > 0 && token[end - 1] == '=') --end;
  if (end == 0) return false;
  for (size_t i = 0; i < end; ++i) {
    if (!IsTokenCharacter(token[i])) return false;
  }
  return true;
}

bool IsValidName(absl::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (const char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' &&
        c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

size_t DistinctCharacters(absl::string_view text) {
  std::bitset<256> seen;
  for (const char c : text) seen.set(static_cast<unsigned char>(c));
  return seen.count();
}

// Checks one token; the message never contains the token.
absl::Status CheckTokenStrength(absl::string_view token) {
  if (token.size() < kMinTokenLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        "token too short (", token.size(), " characters; at least ",
        kMinTokenLength, ", e.g. from `openssl rand -hex 32`)"));
  }
  if (token.size() > kMaxTokenLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("token too long (at most ", kMaxTokenLength, ")"));
  }
  if (!IsB64Token(token)) {
    return absl::InvalidArgumentError(
        "token has a character outside A-Z a-z 0-9 - . _ ~ + / (and "
        "trailing =)");
  }
  if (DistinctCharacters(token) < kMinDistinctTokenCharacters) {
    return absl::InvalidArgumentError(
        absl::StrCat("token looks weak (fewer than ",
                     kMinDistinctTokenCharacters, " distinct characters)"));
  }
  return absl::OkStatus();
}

}  // namespace

TokenDigest DigestToken(absl::string_view token) {
  TokenDigest digest{};
  unsigned int length = 0;
  // SHA-256 cannot fail on a memory buffer with the default provider.
  EVP_Digest(token.data(), token.size(), digest.data(), &length, EVP_sha256(),
             nullptr);
  return digest;
}

absl::StatusOr<TokenStore> TokenStore::Parse(absl::string_view contents,
                                             absl::string_view source) {
  TokenStore store;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(contents, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);  // Also a Windows '\r'.
    if (line.empty() || line[0] == '#') continue;
    const std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    const auto error = [&](absl::string_view what) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, " line ", line_number, ": ", what));
    };
    if (fields.size() < 2 || fields.size() > 3) {
      return error("expected '<role> <token> [<name>]'");
    }
    // Never echo a field: a line with its fields swapped would print the
    // token.
    absl::StatusOr<Role> role = ParseRole(fields[0]);
    if (!role.ok()) {
      return error("the first field must be read, write or admin");
    }
    if (absl::Status strength = CheckTokenStrength(fields[1]); !strength.ok()) {
      return error(strength.message());
    }
    if (fields.size() == 3 && !IsValidName(fields[2])) {
      return error("the name must be 1 to 64 of A-Z a-z 0-9 . _ -");
    }
    TokenEntry entry;
    entry.role = *role;
    entry.line = line_number;
    entry.name = fields.size() == 3 ? std::string(fields[2])
                                    : absl::StrCat("line-", line_number);
    entry.digest = DigestToken(fields[1]);
    for (const TokenEntry& earlier : store.entries_) {
      if (earlier.digest == entry.digest) {
        return error(absl::StrCat("the same token as line ", earlier.line));
      }
    }
    store.entries_.push_back(std::move(entry));
  }
  if (store.entries_.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source,
                     ": no tokens (expected lines '<role> <token> "
                     "[<name>]')"));
  }
  return store;
}

absl::StatusOr<TokenStore> TokenStore::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot read token file ", path, ": ", std::strerror(errno)));
  }
  std::stringstream contents;
  contents << in.rdbuf();
  if (in.bad()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read token file ", path));
  }
  return Parse(contents.str(), path);
}

const TokenEntry* TokenStore::Find(absl::string_view token) const {
  const TokenDigest digest = DigestToken(token);
  const TokenEntry* found = nullptr;
  // Every entry is compared, whether or not an earlier one matched.
  for (const TokenEntry& entry : entries_) {
    const bool equal =
        CRYPTO_memcmp(digest.data(), entry.digest.data(), digest.size()) == 0;
    if (equal && found == nullptr) found = &entry;
  }
  return found;
}

}  // namespace sator::server::auth
