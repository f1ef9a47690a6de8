// A local cluster: three satord processes on loopback ports play
// the three pods of the StatefulSet, and the sharded client drives them.
//
// The client is given the pods' real DNS names (StatefulSetPodEndpoints:
// satord-<i>.satord.sator.svc.cluster.local:50051); the test's connection
// factory resolves each name to its process's loopback port, as cluster DNS
// would. Names, not ports, decide the owners, so the spread of the fixed
// scene ids below is the same in every run.
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/client/sharding.h"
#include "sator/client/sharding_connection.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using ::sator::testing::SatordProcess;

constexpr int kPods = 3;
constexpr int kScenes = 60;
// "About a third each": every pod owns between 10 and 30 of the 60 scenes
// (a third is 20; a binomial(60, 1/3) count is within 10 of it with
// probability 0.994, and the ids and names are fixed, so this either always
// holds or never does).
constexpr int kMinScenesPerPod = 10;
constexpr int kMaxScenesPerPod = 30;

std::string SceneId(int i) { return absl::StrCat("match-", i); }
// Each scene holds one box at a position of its own.
Vec2 BoxPosition(int i) { return {static_cast<float>(i), 0.0f}; }

class ShardedCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::vector<std::string>> names =
        client::StatefulSetPodEndpoints({.replicas = kPods});
    ASSERT_TRUE(names.ok()) << names.status();
    names_ = *names;
    for (int i = 0; i < kPods; ++i) {
      // Each pod's volume.
      data_dirs_.push_back(sator::testing::MakeTempDir("pod-data"));
      pods_.push_back(std::make_unique<SatordProcess>());
      ASSERT_TRUE(pods_.back()->Start({"--data_dir=" + data_dirs_.back()}).ok())
          << pods_.back()->ReadLog();
    }
    absl::StatusOr<std::shared_ptr<client::ShardedConnection>> sharded =
        client::ShardedConnection::Create(
            {.endpoints = names_,
             .connection_factory = [this](const std::string& name)
                 -> absl::StatusOr<std::shared_ptr<client::Connection>> {
               // Unthrottled retries: while a restarted pod's channel
               // reconnects, each call's retry backoff paces the tests'
               // bounded loops (throttled, a call to a down pod fails at
               // once).
               return client::MakeConnection(
                   {.target = TargetOf(name),
                    .retry = {.throttle_max_tokens = 0}});
             },
             .endpoints_async = true});
    ASSERT_TRUE(sharded.ok()) << sharded.status();
    sharded_ = *sharded;
    absl::StatusOr<Client> client = Client::Make(sharded_);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  // "Cluster DNS": pod name -> the loopback port of its process.
  std::string TargetOf(const std::string& name) const {
    for (int i = 0; i < kPods; ++i) {
      if (names_[static_cast<size_t>(i)] == name) {
        return pods_[static_cast<size_t>(i)]->grpc_target();
      }
    }
    return "127.0.0.1:1";
  }

  // A client of one pod alone, to see what that process really holds.
  std::unique_ptr<Client> DirectClient(int pod) {
    absl::StatusOr<Client> client = Client::Make(
        {.target = pods_[static_cast<size_t>(pod)]->grpc_target()});
    EXPECT_TRUE(client.ok());
    return std::make_unique<Client>(*std::move(client));
  }

  int PodIndex(const std::string& name) const {
    for (int i = 0; i < kPods; ++i) {
      if (names_[static_cast<size_t>(i)] == name) return i;
    }
    return -1;
  }

  // Creates the scenes, each with its box, through the sharded client.
  void CreateScenes() {
    for (int i = 0; i < kScenes; ++i) {
      absl::StatusOr<client::SceneInfo> created = client_->CreateScene(
          SceneId(i), {.dimension = client::Dimension::k2D});
      ASSERT_TRUE(created.ok()) << SceneId(i) << ": " << created.status();
      absl::StatusOr<client::UpsertBodiesResult> upserted =
          client_->UpsertBodies(
              SceneId(i),
              {{.id = static_cast<std::uint64_t>(i + 1),
                .shape = Shape2(Box2{.half_extents = {0.25f, 0.25f}}),
                .pose = Pose2{.position = BoxPosition(i), .rotation = {}},
                .motion = client::MotionType::kStatic}});
      ASSERT_TRUE(upserted.ok()) << SceneId(i) << ": " << upserted.status();
    }
  }

  std::vector<std::string> names_;
  std::vector<std::string> data_dirs_;
  std::vector<std::unique_ptr<SatordProcess>> pods_;
  std::shared_ptr<client::ShardedConnection> sharded_;
  std::optional<Client> client_;
};

TEST_F(ShardedCluster, ScenesSpreadOverEveryPodAndLiveOnlyOnTheirOwner) {
  ASSERT_NO_FATAL_FAILURE(CreateScenes());

  // What each process holds, asked directly.
  std::vector<std::set<std::string>> held(kPods);
  for (int pod = 0; pod < kPods; ++pod) {
    std::unique_ptr<Client> direct = DirectClient(pod);
    absl::StatusOr<client::ListScenesPage> page = direct->ListScenes(1000, "");
    ASSERT_TRUE(page.ok()) << page.status();
    EXPECT_TRUE(page->next_page_token.empty());
    for (const client::SceneInfo& scene : page->scenes) {
      held[static_cast<size_t>(pod)].insert(scene.scene_id);
    }
  }
  int total = 0;
  for (int pod = 0; pod < kPods; ++pod) {
    const int count = static_cast<int>(held[static_cast<size_t>(pod)].size());
    EXPECT_GE(count, kMinScenesPerPod) << names_[static_cast<size_t>(pod)];
    EXPECT_LE(count, kMaxScenesPerPod) << names_[static_cast<size_t>(pod)];
    total += count;
  }
  EXPECT_EQ(total, kScenes) << "a scene was created twice or lost";
  for (int i = 0; i < kScenes; ++i) {
    const int owner = PodIndex(sharded_->OwnerOf(SceneId(i)));
    ASSERT_GE(owner, 0);
    EXPECT_TRUE(held[static_cast<size_t>(owner)].count(SceneId(i)))
        << SceneId(i) << " is not on its owner " << names_[owner];
  }

  // The sharded client lists every scene, across the pods.
  std::set<std::string> listed;
  for (const absl::StatusOr<client::SceneInfo>& scene :
       client_->ListAllScenes(7)) {
    ASSERT_TRUE(scene.ok()) << scene.status();
    EXPECT_TRUE(listed.insert(scene->scene_id).second) << scene->scene_id;
  }
  EXPECT_EQ(listed.size(), static_cast<size_t>(kScenes));
}

TEST_F(ShardedCluster, EverySceneAnswersQueriesFromItsOwner) {
  ASSERT_NO_FATAL_FAILURE(CreateScenes());
  for (int i = 0; i < kScenes; ++i) {
    // A point on the scene's own box hits it; the other scenes' boxes are
    // elsewhere, so the answer also proves which scene answered.
    absl::StatusOr<client::QueryResult> at_box =
        client_->PointQuery(SceneId(i), {.point = BoxPosition(i)},
                            {.mode = client::ResultMode::kAll});
    ASSERT_TRUE(at_box.ok()) << SceneId(i) << ": " << at_box.status();
    ASSERT_EQ(at_box->hits.size(), 1u) << SceneId(i);
    EXPECT_EQ(at_box->hits[0].body_id, static_cast<std::uint64_t>(i + 1));
    absl::StatusOr<client::QueryResult> beside = client_->PointQuery(
        SceneId(i), {.point = BoxPosition(i) + Vec2{0.5f, 0.0f}},
        {.mode = client::ResultMode::kAll});
    ASSERT_TRUE(beside.ok()) << beside.status();
    EXPECT_TRUE(beside->hits.empty()) << SceneId(i);
  }
  // A pod that does not own a scene does not know it.
  for (int i = 0; i < kScenes; i += 7) {
    const int owner = PodIndex(sharded_->OwnerOf(SceneId(i)));
    const int other = (owner + 1) % kPods;
    std::unique_ptr<Client> direct = DirectClient(other);
    EXPECT_EQ(direct->GetScene(SceneId(i)).status().code(),
              absl::StatusCode::kNotFound)
        << SceneId(i) << " on " << names_[static_cast<size_t>(other)];
  }
}

// Over MakeConnection's channels the sharded connection starts each async
// call on its owner's channel (gRPC's callback API) and returns.
TEST_F(ShardedCluster, AsyncCallsAnswerFromTheOwnerAndListEveryScene) {
  ASSERT_NO_FATAL_FAILURE(CreateScenes());
  ASSERT_TRUE(sharded_->HasAsyncCalls());
  std::mutex mutex;
  std::condition_variable changed;
  int completions = 0;
  int answered_by_owner = 0;
  for (int i = 0; i < kScenes; ++i) {
    client_->AsyncPointQuery(
        SceneId(i), {.point = BoxPosition(i)},
        {.mode = client::ResultMode::kAll}, {},
        [&, i](absl::StatusOr<client::QueryResult> result) {
          const std::lock_guard<std::mutex> lock(mutex);
          if (result.ok() && result->hits.size() == 1 &&
              result->hits[0].body_id == static_cast<std::uint64_t>(i + 1)) {
            ++answered_by_owner;
          }
          ++completions;
          changed.notify_all();
        });
  }
  {
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(20),
                                 [&] { return completions == kScenes; }))
        << completions << " of " << kScenes << " completions";
  }
  EXPECT_EQ(answered_by_owner, kScenes);

  // Every scene once, page after page, across the pods.
  auto list_async = [&] {
    std::set<std::string> listed;
    std::string token;
    for (int pages = 0; pages < 2 * kScenes; ++pages) {
      absl::StatusOr<client::ListScenesPage> page =
          client_->AsyncListScenes(7, token).get();
      EXPECT_TRUE(page.ok()) << page.status();
      if (!page.ok()) break;
      for (const client::SceneInfo& scene : page->scenes) {
        EXPECT_TRUE(listed.insert(scene.scene_id).second) << scene.scene_id;
      }
      token = page->next_page_token;
      if (token.empty()) break;
    }
    EXPECT_TRUE(token.empty()) << "paging does not end";
    return listed;
  };
  EXPECT_EQ(list_async().size(), static_cast<size_t>(kScenes));
  // With the first pod empty, its empty page makes the listing ask the next
  // pod from the completion of the call to the first.
  const std::string first_pod = sharded_->endpoints()[0];
  int kept = 0;
  for (int i = 0; i < kScenes; ++i) {
    if (sharded_->OwnerOf(SceneId(i)) == first_pod) {
      ASSERT_TRUE(client_->DeleteScene(SceneId(i)).ok()) << SceneId(i);
    } else {
      ++kept;
    }
  }
  ASSERT_LT(kept, kScenes);
  EXPECT_EQ(list_async().size(), static_cast<size_t>(kept));
}

TEST_F(ShardedCluster, SessionsOpenOnTheOwner) {
  ASSERT_NO_FATAL_FAILURE(CreateScenes());
  // One scene per pod: a dynamic body moved through a session, then found
  // where it was moved.
  std::set<int> pods_seen;
  for (int i = 0; i < kScenes && pods_seen.size() < kPods; ++i) {
    const int owner = PodIndex(sharded_->OwnerOf(SceneId(i)));
    if (!pods_seen.insert(owner).second) continue;
    const std::uint64_t mover = 1000;
    ASSERT_TRUE(
        client_
            ->UpsertBodies(SceneId(i),
                           {{.id = mover,
                             .shape = Shape2(Circle{.radius = 0.5f}),
                             .pose = Pose2{.position = {0, 50}, .rotation = {}},
                             .motion = client::MotionType::kDynamic}})
            .ok());
    absl::StatusOr<std::unique_ptr<client::Session>> session =
        client_->OpenSession(SceneId(i));
    ASSERT_TRUE(session.ok()) << session.status();
    client::PoseBatch poses;
    poses.Add(mover, Pose2{.position = {0, -50}, .rotation = {}});
    absl::StatusOr<std::int64_t> applied =
        (*session)->SubmitPoses(1, std::move(poses)).get();
    ASSERT_TRUE(applied.ok()) << applied.status();
    absl::StatusOr<client::QueryResult> found =
        (*session)
            ->SubmitQuery({.kind = client::PointQuery{.point = Vec2{0, -50}}})
            .get();
    ASSERT_TRUE(found.ok()) << found.status();
    ASSERT_EQ(found->hits.size(), 1u);
    EXPECT_EQ(found->hits[0].body_id, mover);
    EXPECT_TRUE((*session)->Close().ok());
  }
  EXPECT_EQ(pods_seen.size(), static_cast<size_t>(kPods));
}

// A pod is killed (SIGKILL: a crash, not a drain) and restarted on its
// volume under the same name (in the cluster, the same DNS name; here the
// same loopback address): while it is down only its own scenes fail, and
// once it is back its scenes are there again and answer queries.
TEST_F(ShardedCluster, AKilledPodComesBackWithItsScenes) {
  ASSERT_NO_FATAL_FAILURE(CreateScenes());
  const int victim = 1;
  std::vector<int> victim_scenes;
  int other_scene = -1;
  for (int i = 0; i < kScenes; ++i) {
    if (PodIndex(sharded_->OwnerOf(SceneId(i))) == victim) {
      victim_scenes.push_back(i);
    } else {
      other_scene = i;
    }
  }
  ASSERT_FALSE(victim_scenes.empty());
  ASSERT_GE(other_scene, 0);

  const int port = pods_[victim]->grpc_port();
  ASSERT_TRUE(pods_[victim]->Signal(SIGKILL).ok());
  absl::StatusOr<int> exit_code = pods_[victim]->WaitForExit(absl::Seconds(10));
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();

  const CallOptions quick{.deadline = absl::Seconds(2)};
  absl::StatusOr<client::SceneInfo> down =
      client_->GetScene(SceneId(victim_scenes.front()), quick);
  EXPECT_TRUE(down.status().code() == absl::StatusCode::kUnavailable ||
              down.status().code() == absl::StatusCode::kDeadlineExceeded)
      << down.status();
  EXPECT_TRUE(client_->GetScene(SceneId(other_scene), quick).ok())
      << "a scene on a live pod failed while another pod was down";

  ASSERT_TRUE(pods_[victim]
                  ->Start({absl::StrCat("--grpc_address=127.0.0.1:", port),
                           "--data_dir=" + data_dirs_[victim]})
                  .ok())
      << pods_[victim]->ReadLog();
  // The channel reconnects within its backoff (at most 5 s by default),
  // which can outlast the retries of one call (4 attempts, about 350 ms of
  // backoff): until the pod answers, at most 100 calls and 20 s. Every scene
  // of the pod is back with its body where it was.
  const CallOptions patient{.deadline = absl::Seconds(20)};
  const absl::Time back_by = absl::Now() + absl::Seconds(20);
  absl::StatusOr<client::SceneInfo> back =
      client_->GetScene(SceneId(victim_scenes.front()), patient);
  for (int call = 0; call < 100 && absl::Now() < back_by &&
                     back.status().code() == absl::StatusCode::kUnavailable;
       ++call) {
    back = client_->GetScene(SceneId(victim_scenes.front()), patient);
  }
  ASSERT_TRUE(back.ok()) << back.status();
  for (int i : victim_scenes) {
    absl::StatusOr<client::SceneSnapshot> snapshot =
        client_->ExportScene(SceneId(i), patient);
    ASSERT_TRUE(snapshot.ok()) << SceneId(i) << ": " << snapshot.status();
    ASSERT_EQ(snapshot->bodies.size(), 1u) << SceneId(i);
    EXPECT_EQ(snapshot->bodies[0].id, static_cast<std::uint64_t>(i + 1));
    const Pose2* pose = std::get_if<Pose2>(&*snapshot->bodies[0].pose);
    ASSERT_NE(pose, nullptr) << SceneId(i);
    EXPECT_EQ(pose->position, BoxPosition(i)) << SceneId(i);
  }
  std::set<std::string> listed;
  for (const absl::StatusOr<client::SceneInfo>& scene :
       client_->ListAllScenes(0, patient)) {
    ASSERT_TRUE(scene.ok()) << scene.status();
    listed.insert(scene->scene_id);
  }
  EXPECT_EQ(listed.size(), static_cast<size_t>(kScenes));
}

}  // namespace
}  // namespace sator
