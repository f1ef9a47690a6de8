// The token file format: what it accepts, what it refuses (naming the line,
// never repeating the token), and constant-time lookup by digest.
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/auth/token_store.h"

namespace sator::server::auth {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// 64 hex characters, as `openssl rand -hex 32` prints.
constexpr char kReadToken[] =
    "3f1a9c0e7b2d4856a1c3e5f70912b4d6f8091a2b3c4d5e6f708192a3b4c5d6e7";
constexpr char kWriteToken[] =
    "c0ffee11d00d4badbeef5eed1234567890abcdef0fedcba9876543210aa55bb7";
constexpr char kAdminToken[] =
    "Zm9vYmFyYmF6cXV4LXRva2VuLWZvci1hZG1pbnMtb25seQ==";

TEST(TokenStore, ParsesRolesNamesCommentsAndBlankLines) {
  const std::string file = absl::StrCat(
      "# satord tokens\n"
      "\n"
      "read ",
      kReadToken,
      " game-servers\n"
      "  write\t",
      kWriteToken,
      "\r\n"
      "admin ",
      kAdminToken, " ops");  // No final newline.
  absl::StatusOr<TokenStore> store = TokenStore::Parse(file, "tokens.txt");
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_EQ(store->entries().size(), 3u);
  EXPECT_EQ(store->entries()[0].role, Role::kRead);
  EXPECT_EQ(store->entries()[0].name, "game-servers");
  EXPECT_EQ(store->entries()[0].line, 3);
  EXPECT_EQ(store->entries()[1].role, Role::kWrite);
  EXPECT_EQ(store->entries()[1].name, "line-4");
  EXPECT_EQ(store->entries()[2].role, Role::kAdmin);
  EXPECT_EQ(store->entries()[2].name, "ops");

  const TokenEntry* read = store->Find(kReadToken);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->role, Role::kRead);
  const TokenEntry* admin = store->Find(kAdminToken);
  ASSERT_NE(admin, nullptr);
  EXPECT_EQ(admin->role, Role::kAdmin);
}

TEST(TokenStore, FindRefusesNearMissesAndPrefixes) {
  absl::StatusOr<TokenStore> store =
      TokenStore::Parse(absl::StrCat("read ", kReadToken, "\n"), "t");
  ASSERT_TRUE(store.ok()) << store.status();
  std::string last_changed = kReadToken;
  last_changed.back() = last_changed.back() == '7' ? '8' : '7';
  EXPECT_EQ(store->Find(last_changed), nullptr);
  EXPECT_EQ(store->Find(std::string(kReadToken).substr(0, 63)), nullptr);
  EXPECT_EQ(store->Find(absl::StrCat(kReadToken, "0")), nullptr);
  EXPECT_EQ(store->Find(""), nullptr);
  EXPECT_EQ(store->Find(absl::AsciiStrToUpper(kReadToken)), nullptr);
}

TEST(TokenStore, KeepsOnlyDigests) {
  absl::StatusOr<TokenStore> store =
      TokenStore::Parse(absl::StrCat("read ", kReadToken, "\n"), "t");
  ASSERT_TRUE(store.ok());
  // SHA-256("abc") from FIPS 180-2, appendix B.1: the digest is SHA-256.
  const TokenDigest abc = DigestToken("abc");
  EXPECT_EQ(abc[0], 0xba);
  EXPECT_EQ(abc[1], 0x78);
  EXPECT_EQ(abc[31], 0xad);
  EXPECT_EQ(store->entries()[0].digest, DigestToken(kReadToken));
}

struct BadFile {
  std::string name;
  std::string contents;
  std::string expected_message;
};

class TokenStoreRefuses : public ::testing::TestWithParam<BadFile> {};

TEST_P(TokenStoreRefuses, NamingTheLineAndNeverTheToken) {
  const BadFile& bad = GetParam();
  absl::StatusOr<TokenStore> store =
      TokenStore::Parse(bad.contents, "/etc/sator/tokens");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(store.status().message(), HasSubstr(bad.expected_message));
  EXPECT_THAT(store.status().message(), HasSubstr("/etc/sator/tokens"));
  // No token-like field of the file is repeated in the message.
  for (const absl::string_view token :
       {absl::string_view(kReadToken), absl::string_view(kWriteToken),
        absl::string_view("short-token-123"),
        absl::string_view("aaaaaaaabbbbbbbbaaaaaaaabbbbbbbbaaaa")}) {
    EXPECT_THAT(store.status().message(), Not(HasSubstr(token)));
  }
}

INSTANTIATE_TEST_SUITE_P(
    BadFiles, TokenStoreRefuses,
    ::testing::Values(
        BadFile{"Empty", "", "no tokens"},
        BadFile{"OnlyComments", "# nothing\n\n   \n", "no tokens"},
        BadFile{
            "UnknownRole",
            absl::StrCat("read ", kReadToken, "\nreader ", kWriteToken, "\n"),
            "line 2: the first field must be read, write or admin"},
        BadFile{"SwappedFields", absl::StrCat("\n", kReadToken, " read\n"),
                "line 2: the first field must be read, write or admin"},
        BadFile{"MissingToken", "# a\n# b\nadmin\n",
                "line 3: expected '<role> <token> [<name>]'"},
        BadFile{"TooManyFields",
                absl::StrCat("write ", kWriteToken, " name extra\n"),
                "line 1: expected"},
        BadFile{"ShortToken", "\n\nread short-token-123\n",
                "line 3: token too short"},
        BadFile{"LowVariety", "admin aaaaaaaabbbbbbbbaaaaaaaabbbbbbbbaaaa\n",
                "line 1: token looks weak"},
        BadFile{"BadCharacter",
                absl::StrCat("read ", std::string(kReadToken).substr(0, 40),
                             "\"quoted\"\n"),
                "line 1: token has a character outside"},
        BadFile{"BadName", absl::StrCat("read ", kReadToken, " who?\n"),
                "line 1: the name must be"},
        BadFile{"DuplicateToken",
                absl::StrCat("read ", kReadToken, "\nadmin ", kReadToken, "\n"),
                "line 2: the same token as line 1"}),
    [](const ::testing::TestParamInfo<BadFile>& param_info) {
      return param_info.param.name;
    });

TEST(TokenStore, LoadNamesAnUnreadableFile) {
  absl::StatusOr<TokenStore> store =
      TokenStore::Load("/nonexistent/sator/tokens");
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("/nonexistent/sator/tokens"));
}

}  // namespace
}  // namespace sator::server::auth
