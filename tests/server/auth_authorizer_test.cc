// The method -> role table covers every sator.v1 RPC, and the authorizer
// answers UNAUTHENTICATED / PERMISSION_DENIED / OK as the roles say, without
// ever logging a token.
#include <filesystem>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "server/auth/authorizer.h"
#include "server/auth/roles.h"
#include "server/logging.h"

namespace sator::server::auth {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Every service of every .proto file in proto/sator/v1 (read from the source
// folder, so a new file counts too; the test links all generated code).
std::vector<const google::protobuf::ServiceDescriptor*> SatorServices() {
  std::vector<const google::protobuf::ServiceDescriptor*> services;
  for (const auto& entry :
       std::filesystem::directory_iterator(SATOR_PROTO_DIR "/sator/v1")) {
    if (entry.path().extension() != ".proto") continue;
    const std::string name =
        absl::StrCat("sator/v1/", entry.path().filename().string());
    const google::protobuf::FileDescriptor* file =
        google::protobuf::DescriptorPool::generated_pool()->FindFileByName(
            name);
    EXPECT_NE(file, nullptr) << name << " is not linked into the test";
    if (file == nullptr) continue;
    for (int i = 0; i < file->service_count(); ++i) {
      services.push_back(file->service(i));
    }
  }
  return services;
}

TEST(MethodRoleTable, NamesEveryMethodOfEverySatorService) {
  const std::vector<const google::protobuf::ServiceDescriptor*> services =
      SatorServices();
  // The three services known today, at least.
  ASSERT_GE(services.size(), 3u);
  std::set<std::string> in_table;
  for (const auto& [method, role] : MethodRoleTable()) {
    EXPECT_TRUE(in_table.emplace(method).second) << "twice: " << method;
  }
  int methods = 0;
  for (const google::protobuf::ServiceDescriptor* service : services) {
    for (int i = 0; i < service->method_count(); ++i) {
      const std::string path = absl::StrCat("/", service->full_name(), "/",
                                            service->method(i)->name());
      ++methods;
      EXPECT_EQ(in_table.count(path), 1u)
          << path << " has no role in server/auth/roles.cc";
    }
  }
  EXPECT_GE(methods, 18);
}

TEST(MethodRoleTable, NamesNoMethodThatDoesNotExist) {
  std::set<std::string> existing;
  for (const google::protobuf::ServiceDescriptor* service : SatorServices()) {
    for (int i = 0; i < service->method_count(); ++i) {
      existing.insert(absl::StrCat("/", service->full_name(), "/",
                                   service->method(i)->name()));
    }
  }
  for (const auto& [method, role] : MethodRoleTable()) {
    if (absl::string_view(method).substr(0, 10) != "/sator.v1.") continue;
    EXPECT_EQ(existing.count(std::string(method)), 1u) << method;
  }
}

TEST(RequiredRole, MapsEachMethodToTheRoleInTheOperationsGuide) {
  EXPECT_EQ(RequiredRole("/sator.v1.QueryService/Ping"), Role::kRead);
  EXPECT_EQ(RequiredRole("/sator.v1.QueryService/Raycast"), Role::kRead);
  EXPECT_EQ(RequiredRole("/sator.v1.QueryService/PairQuery"), Role::kRead);
  EXPECT_EQ(RequiredRole("/sator.v1.SceneService/ListScenes"), Role::kRead);
  EXPECT_EQ(RequiredRole("/sator.v1.SceneService/GetScene"), Role::kRead);
  EXPECT_EQ(RequiredRole("/sator.v1.BodyService/UpdatePoses"), Role::kWrite);
  EXPECT_EQ(RequiredRole("/sator.v1.BodyService/UpsertBodies"), Role::kWrite);
  EXPECT_EQ(RequiredRole("/sator.v1.QueryService/Session"), Role::kWrite);
  EXPECT_EQ(RequiredRole("/sator.v1.SceneService/CreateScene"), Role::kAdmin);
  EXPECT_EQ(RequiredRole("/sator.v1.SceneService/ExportScene"), Role::kAdmin);
  EXPECT_EQ(RequiredRole("/sator.v1.SceneService/ImportScene"), Role::kAdmin);
  EXPECT_EQ(RequiredRole("/sator.v1.SceneService/DeleteScene"), Role::kAdmin);
}

TEST(RequiredRole, HealthIsOpenAndUnknownMethodsNeedAdmin) {
  EXPECT_EQ(RequiredRole("/grpc.health.v1.Health/Check"), std::nullopt);
  EXPECT_EQ(RequiredRole("/grpc.health.v1.Health/Watch"), std::nullopt);
  EXPECT_EQ(RequiredRole("/sator.v1.QueryService/NotYetWritten"), Role::kAdmin);
  EXPECT_EQ(RequiredRole("/grpc.health.v1.HealthX/Check"), Role::kAdmin);
  EXPECT_EQ(RequiredRole("/grpc.health.v1.Health"), Role::kAdmin);
  EXPECT_EQ(RequiredRole(""), Role::kAdmin);
}

TEST(BearerToken, ParsesTheSchemeCaseInsensitively) {
  EXPECT_EQ(BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(BearerToken("bearer  abc "), "abc");
  EXPECT_EQ(BearerToken("BEARER abc"), "abc");
  EXPECT_EQ(BearerToken("Bearer"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer   "), std::nullopt);
  EXPECT_EQ(BearerToken("Bearerabc"), std::nullopt);
  EXPECT_EQ(BearerToken("Basic abc"), std::nullopt);
  EXPECT_EQ(BearerToken("abc"), std::nullopt);
}

constexpr char kRead[] =
    "3f1a9c0e7b2d4856a1c3e5f70912b4d6f8091a2b3c4d5e6f708192a3b4c5d6e7";
constexpr char kWrite[] =
    "c0ffee11d00d4badbeef5eed1234567890abcdef0fedcba9876543210aa55bb7";
constexpr char kAdmin[] = "Zm9vYmFyYmF6cXV4LXRva2VuLWZvci1hZG1pbnMtb25seQ==";
// Well formed, but not in the file.
constexpr char kStranger[] =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

Authorizer MakeAuthorizer() {
  absl::StatusOr<TokenStore> tokens =
      TokenStore::Parse(absl::StrCat("read ", kRead, " reader\nwrite ", kWrite,
                                     " writer\nadmin ", kAdmin, " admin\n"),
                        "test");
  EXPECT_TRUE(tokens.ok()) << tokens.status();
  return Authorizer(*std::move(tokens));
}

std::string Bearer(absl::string_view token) {
  return absl::StrCat("Bearer ", token);
}

TEST(Authorizer, EachRoleAgainstMethodsItMayAndMayNotCall) {
  const Authorizer authorizer = MakeAuthorizer();
  const std::string read = Bearer(kRead);
  const std::string write = Bearer(kWrite);
  const std::string admin = Bearer(kAdmin);
  constexpr char kPing[] = "/sator.v1.QueryService/Ping";
  constexpr char kPoses[] = "/sator.v1.BodyService/UpdatePoses";
  constexpr char kCreate[] = "/sator.v1.SceneService/CreateScene";

  EXPECT_TRUE(authorizer.Check(kPing, read).ok());
  EXPECT_EQ(authorizer.Check(kPoses, read).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(authorizer.Check(kCreate, read).code(),
            absl::StatusCode::kPermissionDenied);

  EXPECT_TRUE(authorizer.Check(kPing, write).ok());
  EXPECT_TRUE(authorizer.Check(kPoses, write).ok());
  EXPECT_EQ(authorizer.Check(kCreate, write).code(),
            absl::StatusCode::kPermissionDenied);

  EXPECT_TRUE(authorizer.Check(kPing, admin).ok());
  EXPECT_TRUE(authorizer.Check(kPoses, admin).ok());
  EXPECT_TRUE(authorizer.Check(kCreate, admin).ok());

  const absl::Status denied = authorizer.Check(kCreate, write);
  EXPECT_THAT(denied.message(), HasSubstr("role write"));
  EXPECT_THAT(denied.message(), HasSubstr("requires admin"));
}

TEST(Authorizer, NoValidTokenIsUnauthenticated) {
  const Authorizer authorizer = MakeAuthorizer();
  constexpr char kPing[] = "/sator.v1.QueryService/Ping";
  EXPECT_EQ(authorizer.Check(kPing, std::nullopt).code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authorizer.Check(kPing, "").code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authorizer.Check(kPing, kRead).code(),  // No scheme.
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authorizer.Check(kPing, absl::StrCat("Basic ", kRead)).code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authorizer.Check(kPing, Bearer(kStranger)).code(),
            absl::StatusCode::kUnauthenticated);
  // An unknown token is UNAUTHENTICATED even for a method no role may call.
  EXPECT_EQ(
      authorizer.Check("/sator.v1.SceneService/DeleteScene", Bearer(kStranger))
          .code(),
      absl::StatusCode::kUnauthenticated);
}

TEST(Authorizer, HealthNeedsNoToken) {
  const Authorizer authorizer = MakeAuthorizer();
  EXPECT_TRUE(
      authorizer.Check("/grpc.health.v1.Health/Check", std::nullopt).ok());
  EXPECT_TRUE(
      authorizer.Check("/grpc.health.v1.Health/Watch", Bearer(kStranger)).ok());
}

TEST(Authorizer, NeverLogsATokenEvenAtDebugLevel) {
  const Authorizer authorizer = MakeAuthorizer();
  SetMinLogLevel(LogLevel::kDebug);
  ::testing::internal::CaptureStderr();
  for (const char* token : {kRead, kWrite, kAdmin, kStranger}) {
    for (const char* method :
         {"/sator.v1.QueryService/Ping", "/sator.v1.BodyService/UpdatePoses",
          "/sator.v1.SceneService/CreateScene"}) {
      (void)authorizer.Check(method, Bearer(token));
      (void)authorizer.Check(method, token);
    }
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  SetMinLogLevel(LogLevel::kInfo);
  // The denials were logged (so the check below looks at real lines)...
  EXPECT_THAT(log, HasSubstr("auth_denied"));
  EXPECT_THAT(log, HasSubstr("\"token_name\":\"reader\""));
  // ...and no token, nor a 16-character piece of one, is in them.
  for (const absl::string_view token : {kRead, kWrite, kAdmin, kStranger}) {
    for (size_t at = 0; at + 16 <= token.size(); at += 8) {
      EXPECT_THAT(log, Not(HasSubstr(token.substr(at, 16))));
    }
  }
}

}  // namespace
}  // namespace sator::server::auth
