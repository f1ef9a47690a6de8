// Tests of rendezvous sharding: the properties that make it safe to add and
// remove satord pods (what moves, and where), an even spread, the same owners
// in every process, SipHash-2-4 against its reference vectors, and the
// endpoint sources.
#include "sator/client/sharding.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

extern char** environ;  // NOLINT: POSIX, for posix_spawn.

namespace sator {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int kSceneCount = 10000;

std::vector<std::string> SceneIds(int count) {
  std::vector<std::string> ids;
  ids.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) ids.push_back(absl::StrCat("scene-", i));
  return ids;
}

std::vector<std::string> PodNames(int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    names.push_back(
        absl::StrCat("satord-", i, ".satord.sator.svc.cluster.local:50051"));
  }
  return names;
}

RendezvousRouter MakeRouter(std::vector<std::string> endpoints) {
  absl::StatusOr<RendezvousRouter> router =
      RendezvousRouter::Create(std::move(endpoints));
  EXPECT_TRUE(router.ok()) << router.status();
  return *std::move(router);
}

// Five standard deviations of a binomial count: the tolerance of every
// "about k/n" check below. The inputs are fixed, so a check either always
// passes or always fails; the width says how unlikely a failure would be for
// a hash that behaves like a random function (about 6e-7 per check).
double FiveSigma(int trials, double p) {
  return 5.0 * std::sqrt(static_cast<double>(trials) * p * (1.0 - p));
}

// --- SipHash-2-4 against the reference vectors ------------------------------

// The vectors of the SipHash authors' reference code (vectors.h, "sip64"):
// key 00 01 .. 0f, message 00 01 .. (len - 1), output as a little-endian
// 64-bit number.
TEST(SipHash24, MatchesTheReferenceVectors) {
  const uint64_t k0 = 0x0706050403020100;
  const uint64_t k1 = 0x0f0e0d0c0b0a0908;
  const std::map<int, uint64_t> expected = {
      {0, 0x726fdb47dd0e0e31},  {1, 0x74f839c593dc67fd},
      {7, 0xab0200f58b01d137},  {8, 0x93f5f5799a932462},
      {15, 0xa129ca6149be45e5}, {16, 0x3f2acc7f57c29bdb},
      {63, 0x958a324ceb064572},
  };
  for (const auto& [length, output] : expected) {
    std::string message;
    for (int i = 0; i < length; ++i) message.push_back(static_cast<char>(i));
    EXPECT_EQ(SipHash24(k0, k1, message), output) << "length " << length;
  }
}

TEST(RendezvousWeight, SeparatesTheEndpointFromTheSceneId) {
  EXPECT_NE(RendezvousWeight("ab", "c"), RendezvousWeight("a", "bc"));
  EXPECT_NE(RendezvousWeight("a", "b"), RendezvousWeight("b", "a"));
}

// --- Router properties
// --------------------------------------------------------

TEST(RendezvousRouter, RefusesBadEndpointLists) {
  EXPECT_EQ(RendezvousRouter::Create({}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<RendezvousRouter> empty_name =
      RendezvousRouter::Create({"a:1", ""});
  EXPECT_EQ(empty_name.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty_name.status().message(), HasSubstr("endpoints[1]"));
  absl::StatusOr<RendezvousRouter> duplicate =
      RendezvousRouter::Create({"a:1", "b:1", "a:1"});
  EXPECT_EQ(duplicate.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(duplicate.status().message(), HasSubstr("endpoints[2]"));
}

TEST(RendezvousRouter, OwnerIsTheEndpointWithTheHighestWeight) {
  const RendezvousRouter router = MakeRouter(PodNames(5));
  for (const std::string& scene : SceneIds(200)) {
    const std::string& owner = router.Owner(scene);
    for (const std::string& endpoint : router.endpoints()) {
      EXPECT_GE(RendezvousWeight(owner, scene),
                RendezvousWeight(endpoint, scene))
          << scene;
    }
  }
}

TEST(RendezvousRouter, OwnersDoNotDependOnTheOrderOfTheList) {
  std::vector<std::string> endpoints = PodNames(6);
  const RendezvousRouter router = MakeRouter(endpoints);
  std::mt19937 random(7);
  std::shuffle(endpoints.begin(), endpoints.end(), random);
  const RendezvousRouter shuffled = MakeRouter(endpoints);
  for (const std::string& scene : SceneIds(kSceneCount)) {
    ASSERT_EQ(router.Owner(scene), shuffled.Owner(scene)) << scene;
  }
}

TEST(RendezvousRouter, SpreadsScenesEvenly) {
  for (int pods : {2, 3, 7}) {
    const RendezvousRouter router = MakeRouter(PodNames(pods));
    std::vector<int> counts(static_cast<size_t>(pods), 0);
    for (const std::string& scene : SceneIds(kSceneCount)) {
      ++counts[router.OwnerIndex(scene)];
    }
    const double expected = static_cast<double>(kSceneCount) / pods;
    const double tolerance = FiveSigma(kSceneCount, 1.0 / pods);
    for (int i = 0; i < pods; ++i) {
      EXPECT_NEAR(counts[static_cast<size_t>(i)], expected, tolerance)
          << "pod " << i << " of " << pods;
    }
  }
}

TEST(RendezvousRouter, AddingAnEndpointMovesAboutOneInNPlusOneOnlyOntoIt) {
  for (int pods : {1, 3, 4, 9}) {
    const RendezvousRouter before = MakeRouter(PodNames(pods));
    const RendezvousRouter after = MakeRouter(PodNames(pods + 1));
    const std::string& added = after.endpoints().back();
    int moved = 0;
    for (const std::string& scene : SceneIds(kSceneCount)) {
      if (before.Owner(scene) == after.Owner(scene)) continue;
      ++moved;
      ASSERT_EQ(after.Owner(scene), added)
          << scene << " moved to an old endpoint when " << pods + 1
          << "th was added";
    }
    const double p = 1.0 / (pods + 1);
    EXPECT_NEAR(moved, kSceneCount * p, FiveSigma(kSceneCount, p))
        << "adding endpoint " << pods + 1;
  }
}

TEST(RendezvousRouter, RemovingAnEndpointMovesOnlyItsScenesAndSpreadsThem) {
  const int pods = 5;
  const std::vector<std::string> all = PodNames(pods);
  const RendezvousRouter before = MakeRouter(all);
  for (int removed = 0; removed < pods; ++removed) {
    std::vector<std::string> rest = all;
    rest.erase(rest.begin() + removed);
    const RendezvousRouter after = MakeRouter(rest);
    std::map<std::string, int> received;
    int orphans = 0;
    for (const std::string& scene : SceneIds(kSceneCount)) {
      if (before.Owner(scene) == all[static_cast<size_t>(removed)]) {
        ++orphans;
        ++received[after.Owner(scene)];
      } else {
        ASSERT_EQ(before.Owner(scene), after.Owner(scene))
            << scene << " moved although its owner stayed";
      }
    }
    // The orphans spread over the remaining pods like any other scenes.
    ASSERT_EQ(received.size(), static_cast<size_t>(pods - 1));
    for (const auto& [endpoint, count] : received) {
      const double p = 1.0 / (pods - 1);
      EXPECT_NEAR(count, orphans * p, FiveSigma(orphans, p)) << endpoint;
    }
  }
}

// --- The same owners in every process
// -----------------------------------------

constexpr char kDumpEnv[] = "SATOR_SHARDING_TEST_DUMP";

std::string Mapping(const RendezvousRouter& router, int scenes) {
  std::ostringstream out;
  for (const std::string& scene : SceneIds(scenes)) {
    out << scene << ' ' << router.OwnerIndex(scene) << ' '
        << RendezvousWeight(router.endpoints()[0], scene) << '\n';
  }
  return out.str();
}

// Disabled: runs only in the child process that the test below starts, and
// writes the mapping to the file named by the environment.
TEST(RendezvousRouterChild, DISABLED_DumpMapping) {
  const char* path = std::getenv(kDumpEnv);
  ASSERT_NE(path, nullptr) << kDumpEnv << " unset";
  std::ofstream(path) << Mapping(MakeRouter(PodNames(4)), 2000);
}

// A hash seeded per process (absl::Hash, std::hash on some libraries) or one
// that reads addresses would give another mapping in another process (with
// another address-space layout); every game server must agree on the owners.
TEST(RendezvousRouter, GivesTheSameOwnersInAnotherProcess) {
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/sharding_mapping_", getpid());
  const std::string env = absl::StrCat(kDumpEnv, "=", path);
  std::vector<std::string> args = {
      "/proc/self/exe", "--gtest_also_run_disabled_tests",
      "--gtest_filter=RendezvousRouterChild.DISABLED_DumpMapping"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  std::string env_copy = env;
  envp.push_back(env_copy.data());
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  envp.push_back(nullptr);
  pid_t child = 0;
  ASSERT_EQ(posix_spawn(&child, "/proc/self/exe", nullptr, nullptr, argv.data(),
                        envp.data()),
            0);
  int wait_status = 0;
  ASSERT_EQ(waitpid(child, &wait_status, 0), child);
  ASSERT_TRUE(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
  std::ifstream in(path);
  std::stringstream child_mapping;
  child_mapping << in.rdbuf();
  std::remove(path.c_str());
  EXPECT_EQ(child_mapping.str(), Mapping(MakeRouter(PodNames(4)), 2000));
}

// --- Endpoint sources
// ----------------------------------------------------------

TEST(StatefulSetPodEndpoints, NamesEveryPodByOrdinal) {
  absl::StatusOr<std::vector<std::string>> endpoints =
      StatefulSetPodEndpoints({.statefulset = "satord",
                               .headless_service = "satord",
                               .kubernetes_namespace = "sator",
                               .cluster_domain = "cluster.local",
                               .replicas = 3,
                               .port = 50051});
  ASSERT_TRUE(endpoints.ok()) << endpoints.status();
  EXPECT_THAT(*endpoints,
              ElementsAre("satord-0.satord.sator.svc.cluster.local:50051",
                          "satord-1.satord.sator.svc.cluster.local:50051",
                          "satord-2.satord.sator.svc.cluster.local:50051"));
}

TEST(StatefulSetPodEndpoints, ShortFormWithoutANamespace) {
  absl::StatusOr<std::vector<std::string>> endpoints =
      StatefulSetPodEndpoints({.statefulset = "sator",
                               .headless_service = "sator-grpc",
                               .kubernetes_namespace = "",
                               .replicas = 2,
                               .port = 7000});
  ASSERT_TRUE(endpoints.ok()) << endpoints.status();
  EXPECT_THAT(*endpoints, ElementsAre("sator-0.sator-grpc:7000",
                                      "sator-1.sator-grpc:7000"));
}

TEST(StatefulSetPodEndpoints, RefusesBadFieldsNamingThem) {
  struct Case {
    StatefulSetEndpoints input;
    std::string field;
  };
  const std::vector<Case> cases = {
      {{.statefulset = "Satord"}, "statefulset"},
      {{.statefulset = "-satord"}, "statefulset"},
      {{.headless_service = ""}, "headless_service"},
      {{.headless_service = "a.b"}, "headless_service"},
      {{.kubernetes_namespace = "ns_1"}, "kubernetes_namespace"},
      {{.cluster_domain = "cluster..local"}, "cluster_domain"},
      {{.replicas = 0}, "replicas"},
      {{.port = 0}, "port"},
      {{.port = 65536}, "port"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<std::string>> endpoints =
        StatefulSetPodEndpoints(c.input);
    EXPECT_EQ(endpoints.status().code(), absl::StatusCode::kInvalidArgument)
        << c.field;
    EXPECT_THAT(endpoints.status().message(), HasSubstr(c.field + ":"));
  }
}

TEST(ResolveHeadlessService, ANumericAddressIsItself) {
  absl::StatusOr<std::vector<std::string>> endpoints =
      ResolveHeadlessService("127.0.0.1", 7);
  ASSERT_TRUE(endpoints.ok()) << endpoints.status();
  EXPECT_THAT(*endpoints, ElementsAre("127.0.0.1:7"));
  endpoints = ResolveHeadlessService("::1", 8);
  ASSERT_TRUE(endpoints.ok()) << endpoints.status();
  EXPECT_THAT(*endpoints, ElementsAre("[::1]:8"));
}

TEST(ResolveHeadlessService, LocalhostGivesSortedDistinctLoopbackTargets) {
  absl::StatusOr<std::vector<std::string>> endpoints =
      ResolveHeadlessService("localhost", 50051);
  ASSERT_TRUE(endpoints.ok()) << endpoints.status();
  EXPECT_THAT(*endpoints, Contains("127.0.0.1:50051"));
  EXPECT_TRUE(std::is_sorted(endpoints->begin(), endpoints->end()));
  EXPECT_EQ(std::adjacent_find(endpoints->begin(), endpoints->end()),
            endpoints->end());
  for (const std::string& endpoint : *endpoints) {
    EXPECT_TRUE(endpoint == "127.0.0.1:50051" || endpoint == "[::1]:50051")
        << endpoint;
  }
}

TEST(ResolveHeadlessService, RefusesBadArguments) {
  EXPECT_EQ(ResolveHeadlessService("", 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ResolveHeadlessService("localhost", 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sator
