// ShardedConnection over mock connections: every scene-scoped call reaches
// the endpoint with the highest rendezvous weight for its scene and no other,
// connections are made once per endpoint and kept, ListScenes pages through
// every endpoint, and what cannot be routed by a scene is handled as
// documented.
#include "sator/client/sharding_connection.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client_factory.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/client/mocks/mock_connection.h"

namespace sator {
namespace {

using ::testing::_;
using ::testing::HasSubstr;
using ::testing::Invoke;
using ::testing::NiceMock;
using ::testing::Return;
using ::testing::StartsWith;

const std::vector<std::string> kEndpoints = {"pod-0:50051", "pod-1:50051",
                                             "pod-2:50051"};

// The endpoint whose weight for `scene_id` is the highest, computed here
// from RendezvousWeight directly (not through the router).
std::string HighestWeight(const std::vector<std::string>& endpoints,
                          const std::string& scene_id) {
  std::string best = endpoints[0];
  for (const std::string& endpoint : endpoints) {
    if (RendezvousWeight(endpoint, scene_id) > RendezvousWeight(best, scene_id))
      best = endpoint;
  }
  return best;
}

// Mocks per endpoint, made by the factory the ShardedConnection is given.
class ShardedConnectionTest : public ::testing::Test {
 protected:
  std::shared_ptr<ShardedConnection> Make(
      const std::vector<std::string>& endpoints, bool endpoints_retry = true,
      std::optional<bool> endpoints_async = std::nullopt) {
    absl::StatusOr<std::shared_ptr<ShardedConnection>> sharded =
        ShardedConnection::Create(
            {.endpoints = endpoints,
             .connection_factory = [this](const std::string& endpoint)
                 -> absl::StatusOr<std::shared_ptr<Connection>> {
               ++factory_calls_[endpoint];
               auto& mock = mocks_[endpoint];
               if (!mock) mock = std::make_shared<NiceMock<MockConnection>>();
               return mock;
             },
             .endpoints_retry = endpoints_retry,
             .endpoints_async = endpoints_async});
    EXPECT_TRUE(sharded.ok()) << sharded.status();
    return *sharded;
  }

  MockConnection& MockOf(const std::string& endpoint) {
    auto& mock = mocks_[endpoint];
    if (!mock) mock = std::make_shared<NiceMock<MockConnection>>();
    return *mock;
  }

  std::map<std::string, std::shared_ptr<NiceMock<MockConnection>>> mocks_;
  std::map<std::string, int> factory_calls_;
};

// The Client retries over the sharded connection only when its endpoints'
// connections do not retry by themselves (as mocks do not); the retry loop
// runs on a clock that never sleeps.
TEST_F(ShardedConnectionTest, TheClientRetriesOnlyOverEndpointsThatDoNotRetry) {
  for (const bool endpoints_retry : {true, false}) {
    mocks_.clear();
    std::shared_ptr<ShardedConnection> sharded =
        Make(kEndpoints, endpoints_retry);
    EXPECT_EQ(sharded->RetriesIdempotentCalls(), endpoints_retry);
    int attempts = 0;
    for (const std::string& endpoint : kEndpoints) {
      ON_CALL(MockOf(endpoint), Ping(_, _))
          .WillByDefault(Invoke([&](const std::string&, const CallContext&) {
            ++attempts;
            return absl::StatusOr<PingResult>(absl::UnavailableError("down"));
          }));
    }
    absl::Time now = absl::FromUnixSeconds(1000);
    Client client = client_internal::ClientFactory::Make(
        sharded, {.retry = {.max_attempts = 3}},
        {.now = [&] { return now; },
         .sleep = [&](absl::Duration delay) { now += delay; },
         .uniform01 = [] { return 0.5; }});
    EXPECT_EQ(client.Ping("x").status().code(), absl::StatusCode::kUnavailable);
    EXPECT_EQ(attempts, endpoints_retry ? 1 : 3) << endpoints_retry;
  }
}

TEST_F(ShardedConnectionTest, SceneCallsReachOnlyTheOwner) {
  std::map<std::string, std::vector<std::string>> received;
  for (const std::string& endpoint : kEndpoints) {
    ON_CALL(MockOf(endpoint), GetScene(_, _))
        .WillByDefault(Invoke(
            [&received, endpoint](const std::string& id, const CallContext&) {
              received[endpoint].push_back(id);
              return SceneInfo{.scene_id = id};
            }));
  }
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  std::set<std::string> used;
  for (int i = 0; i < 60; ++i) {
    const std::string scene = absl::StrCat("arena-", i);
    ASSERT_TRUE(sharded->GetScene(scene, {}).ok());
    const std::string owner = HighestWeight(kEndpoints, scene);
    EXPECT_EQ(sharded->OwnerOf(scene), owner);
    ASSERT_FALSE(received[owner].empty());
    EXPECT_EQ(received[owner].back(), scene);
    used.insert(owner);
  }
  int total = 0;
  for (const auto& [endpoint, scenes] : received) {
    for (const std::string& scene : scenes) {
      EXPECT_EQ(HighestWeight(kEndpoints, scene), endpoint) << scene;
    }
    total += static_cast<int>(scenes.size());
  }
  EXPECT_EQ(total, 60);
  EXPECT_EQ(used.size(), kEndpoints.size());
}

TEST_F(ShardedConnectionTest, EveryKindOfSceneCallIsRouted) {
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  const std::string scene = "arena-7";
  MockConnection& owner = MockOf(HighestWeight(kEndpoints, scene));
  EXPECT_CALL(owner, CreateScene(scene, _, _))
      .WillOnce(Return(SceneInfo{.scene_id = scene}));
  EXPECT_CALL(owner, DeleteScene(scene, _)).WillOnce(Return(absl::OkStatus()));
  EXPECT_CALL(owner, ExportScene(scene, _))
      .WillOnce(Return(SceneSnapshot{.scene_id = scene}));
  EXPECT_CALL(owner, ImportScene(_, _))
      .WillOnce(Return(SceneInfo{.scene_id = scene}));
  EXPECT_CALL(owner, UpsertBodies(scene, _, _))
      .WillOnce(Return(UpsertBodiesResult{.created = 1}));
  EXPECT_CALL(owner, RemoveBodies(scene, _, _)).WillOnce(Return(1u));
  EXPECT_CALL(owner, UpdatePoses(scene, 3, _, _)).WillOnce(Return(3));
  EXPECT_CALL(owner, Overlap(scene, _, _, _)).WillOnce(Return(QueryResult{}));
  EXPECT_CALL(owner, Contacts(scene, _, _, _)).WillOnce(Return(QueryResult{}));
  EXPECT_CALL(owner, Sweep(scene, _, _, _)).WillOnce(Return(QueryResult{}));
  EXPECT_CALL(owner, Raycast(scene, _, _, _)).WillOnce(Return(QueryResult{}));
  EXPECT_CALL(owner, PointQuery(scene, _, _, _))
      .WillOnce(Return(QueryResult{}));
  EXPECT_CALL(owner, QueryBatch(scene, _, _))
      .WillOnce(Return(std::vector<BatchEntry>{}));
  EXPECT_CALL(owner, RaycastBatch(scene, _, _, _))
      .WillOnce(Return(RaycastBatchResult{}));
  EXPECT_CALL(owner, OpenSession(scene))
      .WillOnce(Return(absl::UnimplementedError("mock: no stream")));
  EXPECT_TRUE(sharded->CreateScene(scene, {}, {}).ok());
  EXPECT_TRUE(sharded->DeleteScene(scene, {}).ok());
  EXPECT_TRUE(sharded->ExportScene(scene, {}).ok());
  EXPECT_TRUE(sharded->ImportScene(SceneSnapshot{.scene_id = scene}, {}).ok());
  EXPECT_TRUE(sharded->UpsertBodies(scene, {}, {}).ok());
  EXPECT_TRUE(sharded->RemoveBodies(scene, {1}, {}).ok());
  EXPECT_TRUE(sharded->UpdatePoses(scene, 3, {}, {}).ok());
  EXPECT_TRUE(sharded->Overlap(scene, {}, {}, {}).ok());
  EXPECT_TRUE(sharded->Contacts(scene, {}, {}, {}).ok());
  EXPECT_TRUE(sharded->Sweep(scene, {}, {}, {}).ok());
  EXPECT_TRUE(sharded->Raycast(scene, {}, {}, {}).ok());
  EXPECT_TRUE(sharded->PointQuery(scene, {}, {}, {}).ok());
  EXPECT_TRUE(sharded->QueryBatch(scene, {}, {}).ok());
  EXPECT_TRUE(sharded->RaycastBatch(scene, {}, {}, {}).ok());
  EXPECT_EQ(sharded->OpenSession(scene).status().code(),
            absl::StatusCode::kUnimplemented);
  // No other endpoint saw any call (the NiceMocks would accept them, so
  // count the connections made instead: only the owner's).
  EXPECT_EQ(factory_calls_.size(), 1u);
}

TEST_F(ShardedConnectionTest, MakesOneConnectionPerEndpointLazilyAndKeepsIt) {
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  EXPECT_TRUE(factory_calls_.empty()) << "connections made before any call";
  for (int i = 0; i < 300; ++i) {
    (void)sharded->GetScene(absl::StrCat("s", i), {});
  }
  ASSERT_EQ(factory_calls_.size(), kEndpoints.size());
  for (const auto& [endpoint, calls] : factory_calls_) {
    EXPECT_EQ(calls, 1) << endpoint;
  }
}

TEST_F(ShardedConnectionTest, CreateSceneWithoutAnIdChoosesOneAndRoutesByIt) {
  std::string created_on;
  std::string created_id;
  for (const std::string& endpoint : kEndpoints) {
    ON_CALL(MockOf(endpoint), CreateScene(_, _, _))
        .WillByDefault(
            Invoke([&, endpoint](const std::string& id, const SceneSettings&,
                                 const CallContext&) {
              created_on = endpoint;
              created_id = id;
              return SceneInfo{.scene_id = id};
            }));
  }
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  absl::StatusOr<SceneInfo> info = sharded->CreateScene("", {}, {});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_THAT(created_id, StartsWith("scene-"));
  EXPECT_EQ(created_id.size(), std::string("scene-").size() + 16);
  EXPECT_EQ(created_on, HighestWeight(kEndpoints, created_id));
  absl::StatusOr<SceneInfo> second = sharded->CreateScene("", {}, {});
  ASSERT_TRUE(second.ok());
  EXPECT_NE(second->scene_id, info->scene_id);
}

TEST_F(ShardedConnectionTest, ImportSceneNeedsTheSnapshotsId) {
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  absl::StatusOr<SceneInfo> info = sharded->ImportScene(SceneSnapshot{}, {});
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr("snapshot.scene_id"));
}

// Each mock endpoint serves its own scenes in pages of two, tokens "p<n>".
void ServeScenes(MockConnection& mock, std::vector<std::string> scenes) {
  ON_CALL(mock, ListScenes(_, _, _))
      .WillByDefault(Invoke([scenes](std::uint32_t, const std::string& token,
                                     const CallContext&) {
        const size_t start = token.empty() ? 0 : std::stoul(token.substr(1));
        ListScenesPage page;
        for (size_t i = start; i < scenes.size() && i < start + 2; ++i) {
          page.scenes.push_back(SceneInfo{.scene_id = scenes[i]});
        }
        if (start + 2 < scenes.size()) {
          page.next_page_token = absl::StrCat("p", start + 2);
        }
        return absl::StatusOr<ListScenesPage>(page);
      }));
}

// The page of a sharded ListScenes, asked by the sync call or the async one.
absl::StatusOr<ListScenesPage> ListPage(ShardedConnection& sharded,
                                        const std::string& token, bool async) {
  if (!async) return sharded.ListScenes(2, token, {});
  std::optional<absl::StatusOr<ListScenesPage>> answer;
  int completions = 0;
  sharded.AsyncListScenes(2, token, {},
                          [&](absl::StatusOr<ListScenesPage> page) {
                            ++completions;
                            answer = std::move(page);
                          });
  // The mocks' async calls run the sync call on this thread.
  EXPECT_EQ(completions, 1);
  if (!answer.has_value()) return absl::InternalError("no completion");
  return *std::move(answer);
}

TEST_F(ShardedConnectionTest, ListScenesPagesThroughEveryEndpoint) {
  ServeScenes(MockOf(kEndpoints[0]), {"a", "b", "c"});
  ServeScenes(MockOf(kEndpoints[1]), {});
  ServeScenes(MockOf(kEndpoints[2]), {"d", "e"});
  // The mocks' async calls run the sync call on this thread.
  std::shared_ptr<ShardedConnection> sharded =
      Make(kEndpoints, /*endpoints_retry=*/true, /*endpoints_async=*/true);
  for (const bool async : {false, true}) {
    std::vector<std::string> listed;
    std::string token;
    int pages = 0;
    do {
      absl::StatusOr<ListScenesPage> page = ListPage(*sharded, token, async);
      ASSERT_TRUE(page.ok()) << page.status();
      for (const SceneInfo& scene : page->scenes)
        listed.push_back(scene.scene_id);
      token = page->next_page_token;
      ASSERT_LT(++pages, 10) << "paging does not end";
      if (!token.empty()) {
        EXPECT_FALSE(page->scenes.empty()) << "an empty page before the last";
      }
    } while (!token.empty());
    EXPECT_EQ(listed, (std::vector<std::string>{"a", "b", "c", "d", "e"}))
        << (async ? "async" : "sync");
  }
}

TEST_F(ShardedConnectionTest, AsyncListScenesEndsWithTheEndpointsError) {
  ServeScenes(MockOf(kEndpoints[0]), {});
  EXPECT_CALL(MockOf(kEndpoints[1]), ListScenes(_, _, _))
      .WillOnce(Return(absl::UnavailableError("connection refused")));
  std::shared_ptr<ShardedConnection> sharded =
      Make(kEndpoints, /*endpoints_retry=*/true, /*endpoints_async=*/true);
  const absl::StatusOr<ListScenesPage> page =
      ListPage(*sharded, "", /*async=*/true);
  EXPECT_EQ(page.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(page.status().message(),
            absl::StrCat("endpoint ", kEndpoints[1], ": connection refused"));
  EXPECT_EQ(ListPage(*sharded, "garbage", /*async=*/true).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ShardedConnectionTest, AsyncCallsAreNativeOnlyOverMakeConnections) {
  absl::StatusOr<std::shared_ptr<ShardedConnection>> own =
      ShardedConnection::Create({.endpoints = kEndpoints});
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_TRUE((*own)->HasAsyncCalls());
  EXPECT_FALSE(Make(kEndpoints)->HasAsyncCalls());
  EXPECT_TRUE(
      Make(kEndpoints, true, /*endpoints_async=*/true)->HasAsyncCalls());
}

TEST_F(ShardedConnectionTest, AsyncCallsReachTheOwnerAndNameItWhenUnavailable) {
  std::shared_ptr<ShardedConnection> sharded =
      Make(kEndpoints, /*endpoints_retry=*/true, /*endpoints_async=*/true);
  const std::string scene = "arena-7";
  const std::string owner = HighestWeight(kEndpoints, scene);
  EXPECT_CALL(MockOf(owner), Raycast(scene, _, _, _))
      .WillOnce(Return(QueryResult{.tick = 4}));
  absl::Status refused = absl::UnavailableError("connection refused");
  SetRetryAfter(refused, absl::Milliseconds(30));
  EXPECT_CALL(MockOf(owner), GetScene(scene, _)).WillOnce(Return(refused));
  EXPECT_CALL(MockOf(owner), DeleteScene(scene, _))
      .WillOnce(Return(absl::NotFoundError("scene_id: unknown")));
  std::optional<absl::StatusOr<QueryResult>> ray;
  sharded->AsyncRaycast(
      scene, {.origin = Vec2{0, 0}, .direction = Vec2{1, 0}, .max_distance = 1},
      {}, {}, [&](absl::StatusOr<QueryResult> result) { ray = result; });
  ASSERT_TRUE(ray.has_value());
  ASSERT_TRUE(ray->ok()) << ray->status();
  EXPECT_EQ((*ray)->tick, 4);
  std::optional<absl::Status> got;
  sharded->AsyncGetScene(
      scene, {}, [&](absl::StatusOr<SceneInfo> info) { got = info.status(); });
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->message(),
            absl::StrCat("endpoint ", owner, ": connection refused"));
  // The error's payloads stay.
  EXPECT_EQ(RetryAfter(*got), absl::Milliseconds(30));
  std::optional<absl::Status> deleted;
  sharded->AsyncDeleteScene(scene, {},
                            [&](absl::Status status) { deleted = status; });
  EXPECT_EQ(deleted, absl::NotFoundError("scene_id: unknown"));
  // Only the owner was asked.
  EXPECT_EQ(factory_calls_.size(), 1u);
}

TEST_F(ShardedConnectionTest, ListScenesRefusesAForeignToken) {
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  EXPECT_EQ(sharded->ListScenes(2, "garbage", {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sharded->ListScenes(2, "gone:1|p2", {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ShardedConnectionTest, CallJsonGoesToTheOwnerOfTheNamedScene) {
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  const std::string scene = "arena-12";
  MockConnection& owner = MockOf(HighestWeight(kEndpoints, scene));
  EXPECT_CALL(owner, CallJson("sator.v1.SceneService/GetScene", _, _))
      .Times(2)
      .WillRepeatedly(Return(std::string("{}")));
  EXPECT_CALL(owner, CallJson("sator.v1.SceneService/ImportScene", _, _))
      .WillOnce(Return(std::string("{}")));
  EXPECT_TRUE(sharded
                  ->CallJson("sator.v1.SceneService/GetScene",
                             R"({"scene_id": "arena-12"})", {})
                  .ok());
  EXPECT_TRUE(sharded
                  ->CallJson("sator.v1.SceneService/GetScene",
                             R"({"sceneId": "arena-12"})", {})
                  .ok());
  EXPECT_TRUE(sharded
                  ->CallJson("sator.v1.SceneService/ImportScene",
                             R"({"snapshot": {"sceneId": "arena-12"}})", {})
                  .ok());
  EXPECT_EQ(factory_calls_.size(), 1u);
}

TEST_F(ShardedConnectionTest, CallsWithoutASceneTakeTurns) {
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  for (const std::string& endpoint : kEndpoints) {
    EXPECT_CALL(MockOf(endpoint), Ping("x", _))
        .Times(2)
        .WillRepeatedly(Return(PingResult{.payload = "x"}));
  }
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(sharded->Ping("x", {}).ok());
}

TEST_F(ShardedConnectionTest, UnavailableNamesTheEndpoint) {
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  const std::string scene = "arena-3";
  const std::string owner = HighestWeight(kEndpoints, scene);
  EXPECT_CALL(MockOf(owner), GetScene(scene, _))
      .WillOnce(Return(absl::UnavailableError("connection refused")));
  EXPECT_CALL(MockOf(owner), DeleteScene(scene, _))
      .WillOnce(Return(absl::NotFoundError("scene_id: unknown")));
  absl::StatusOr<SceneInfo> info = sharded->GetScene(scene, {});
  EXPECT_EQ(info.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(info.status().message(),
            absl::StrCat("endpoint ", owner, ": connection refused"));
  // Other errors are the server's, unchanged.
  EXPECT_EQ(sharded->DeleteScene(scene, {}),
            absl::NotFoundError("scene_id: unknown"));
}

TEST_F(ShardedConnectionTest, SetEndpointsMovesOnlyScenesOfTheNewEndpoint) {
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  std::map<std::string, std::string> before;
  for (int i = 0; i < 1000; ++i) {
    const std::string scene = absl::StrCat("s", i);
    before[scene] = sharded->OwnerOf(scene);
  }
  std::vector<std::string> more = kEndpoints;
  more.push_back("pod-3:50051");
  ASSERT_TRUE(sharded->SetEndpoints(more).ok());
  EXPECT_EQ(sharded->endpoints(), more);
  int moved = 0;
  for (const auto& [scene, owner] : before) {
    if (sharded->OwnerOf(scene) != owner) {
      ++moved;
      EXPECT_EQ(sharded->OwnerOf(scene), "pod-3:50051");
    }
  }
  EXPECT_GT(moved, 0);
  EXPECT_EQ(sharded->SetEndpoints({}).code(),
            absl::StatusCode::kInvalidArgument);
}

// Calls from several threads while the endpoint list changes under them
// (run under ThreadSanitizer in CI): every call reaches the owner of its
// scene under the old list or the new one, never another endpoint.
TEST_F(ShardedConnectionTest, ConcurrentCallsAndEndpointChanges) {
  std::vector<std::string> more = kEndpoints;
  more.push_back("pod-3:50051");
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> received;  // endpoint, id
  for (const std::string& endpoint : more) {
    ON_CALL(MockOf(endpoint), GetScene(_, _))
        .WillByDefault(
            Invoke([&, endpoint](const std::string& id, const CallContext&) {
              std::lock_guard<std::mutex> lock(mutex);
              received.emplace_back(endpoint, id);
              return SceneInfo{.scene_id = id};
            }));
  }
  std::shared_ptr<ShardedConnection> sharded = Make(kEndpoints);
  constexpr int kThreads = 4;
  constexpr int kCallsPerThread = 300;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&sharded, t] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        EXPECT_TRUE(
            sharded->GetScene(absl::StrCat("t", t, "-", i % 50), {}).ok());
      }
    });
  }
  for (int flip = 0; flip < 50; ++flip) {
    ASSERT_TRUE(sharded->SetEndpoints(flip % 2 == 0 ? more : kEndpoints).ok());
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_EQ(received.size(), static_cast<size_t>(kThreads * kCallsPerThread));
  for (const auto& [endpoint, id] : received) {
    EXPECT_TRUE(endpoint == HighestWeight(kEndpoints, id) ||
                endpoint == HighestWeight(more, id))
        << id << " reached " << endpoint;
  }
}

}  // namespace
}  // namespace sator
