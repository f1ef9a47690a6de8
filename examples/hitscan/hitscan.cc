// hitscan: the collision side of a shooter's game server, with lag
// compensation.
//
//   hitscan [target[,target...]]      (default 127.0.0.1:50051)
//
// 1. Uploads a 3D level: a static triangle mesh (the floor) and a crate.
// 2. Opens a Session on the scene and streams every player's hitboxes (a
//    capsule for the body, a box for the head) each tick, as a game server
//    does after each simulation step.
// 3. Player 1 fires at tick 30. Their client showed the world as it was at
//    tick 24 (100 ms of latency at 60 Hz), so the server validates the shot
//    with a raycast rewound to tick 24: what the shooter saw is what counts.
//    Player 2 was strafing: the rewound ray hits them, the same ray at the
//    current tick misses. A second shot, at player 3 hiding behind the crate,
//    hits the crate first.
// Exits 0 when all three outcomes are the expected ones. Several targets
// (comma-separated) are used as shards (sharding_connection.h).
#include <cstdint>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_split.h"
#include "sator/client/client.h"
#include "sator/client/session.h"
#include "sator/client/sharding_connection.h"

namespace {

using sator::Pose3;
using sator::Quat;
using sator::Vec3;

constexpr int kTicks = 30;
// What the shooter's screen showed when they fired: 6 ticks behind.
constexpr int kViewLatencyTicks = 6;
// Body ids: level bodies below 100; player p has 100 p (capsule) and
// 100 p + 1 (head). Each hitbox's user_data is its player's number.
constexpr std::uint64_t kFloorId = 1;
constexpr std::uint64_t kCrateId = 2;
std::uint64_t CapsuleId(int player) { return 100u * player; }
std::uint64_t HeadId(int player) { return 100u * player + 1; }

Pose3 At(Vec3 position) { return {.position = position, .rotation = Quat{}}; }

// Where each player stands at `tick` (feet on the floor, y up). Player 1
// shoots from the origin; player 2 strafes along +x at 0.25 units a tick,
// 20 units away; player 3 stands still behind the crate.
Vec3 PlayerPosition(int player, std::int64_t tick) {
  switch (player) {
    case 1:
      return {0.0f, 0.0f, 0.0f};
    case 2:
      return {-6.0f + 0.25f * static_cast<float>(tick), 0.0f, 20.0f};
    default:
      return {8.0f, 0.0f, 20.0f};
  }
}

// The level: a 100 x 100 floor of two triangles, and a 2-unit crate between
// the shooter and player 3.
absl::StatusOr<std::vector<sator::Body>> Level() {
  absl::StatusOr<std::shared_ptr<const sator::TriangleMesh>> floor =
      sator::MakeTriangleMesh(
          {{-50, 0, -50}, {50, 0, -50}, {50, 0, 50}, {-50, 0, 50}},
          {0, 2, 1, 0, 3, 2});
  if (!floor.ok()) return floor.status();
  return std::vector<sator::Body>{
      {.id = kFloorId,
       .shape = sator::Shape3(*floor),
       .pose = At({0, 0, 0}),
       .motion = sator::MotionType::kStatic},
      {.id = kCrateId,
       .shape = sator::Shape3(sator::Box3{.half_extents = {1, 1, 1}}),
       .pose = At({6, 1, 12}),
       .motion = sator::MotionType::kStatic},
  };
}

// A player's hitboxes: a capsule from knee to chest and a head box.
std::vector<sator::Body> Hitboxes(int player) {
  const Vec3 feet = PlayerPosition(player, 0);
  const auto user_data = static_cast<std::uint64_t>(player);
  return {
      {.id = CapsuleId(player),
       .shape = sator::Shape3(sator::Capsule3{
           .a = {0, 0.4f, 0}, .b = {0, 1.4f, 0}, .radius = 0.4f}),
       .pose = At(feet),
       .motion = sator::MotionType::kDynamic,
       .user_data = user_data},
      {.id = HeadId(player),
       .shape = sator::Shape3(sator::Box3{.half_extents = {0.2f, 0.2f, 0.2f}}),
       .pose = At(feet + Vec3{0, 1.75f, 0}),
       .motion = sator::MotionType::kDynamic,
       .user_data = user_data},
  };
}

// A shot from player 1's eye towards `aim`, validated at `view_tick` (or at
// the current tick when unset), ignoring the shooter's own hitboxes.
sator::Query Shot(Vec3 aim, std::optional<std::int64_t> view_tick) {
  const Vec3 eye = PlayerPosition(1, 0) + Vec3{0, 1.6f, 0};
  sator::QueryOptions options{
      .filter = {.exclude_body_ids = {CapsuleId(1), HeadId(1)}},
      .mode = sator::ResultMode::kClosest};
  if (view_tick) options.rewind = sator::Rewind{.tick = *view_tick};
  return {.kind = sator::RaycastQuery{.origin = eye,
                                      .direction = aim - eye,
                                      .max_distance = 100.0f},
          .options = options};
}

std::string Describe(const sator::QueryResult& result) {
  if (result.hits.empty()) return "miss";
  const sator::Hit& hit = result.hits.front();
  if (hit.user_data != 0) {
    return "hit player " + std::to_string(hit.user_data) + " (body " +
           std::to_string(hit.body_id) + ") at distance " +
           std::to_string(hit.distance);
  }
  return "hit level body " + std::to_string(hit.body_id) + " at distance " +
         std::to_string(hit.distance);
}

absl::StatusOr<sator::Client> Connect(const std::string& targets) {
  const std::vector<std::string> endpoints =
      absl::StrSplit(targets, ',', absl::SkipEmpty());
  if (endpoints.size() == 1) {
    return sator::Client::Make({.target = endpoints.front()});
  }
  absl::StatusOr<std::shared_ptr<sator::ShardedConnection>> shards =
      sator::ShardedConnection::Create({.endpoints = endpoints});
  if (!shards.ok()) return shards.status();
  return sator::Client::Make(*shards);
}

int Fail(const std::string& what, const absl::Status& status) {
  std::cerr << what << ": " << status << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<sator::Client> client =
      Connect(argc > 1 ? argv[1] : "127.0.0.1:50051");
  if (!client.ok()) return Fail("connect", client.status());

  // 1. The scene and its level.
  const std::string scene = "hitscan-demo";
  (void)client->DeleteScene(scene);  // Left over from an earlier run?
  absl::StatusOr<sator::SceneInfo> created = client->CreateScene(
      scene, {.dimension = sator::Dimension::k3D, .history_ticks = 64});
  if (!created.ok()) return Fail("CreateScene", created.status());
  absl::StatusOr<std::vector<sator::Body>> bodies = Level();
  if (!bodies.ok()) return Fail("level", bodies.status());
  for (int player = 1; player <= 3; ++player) {
    for (sator::Body& hitbox : Hitboxes(player)) {
      bodies->push_back(std::move(hitbox));
    }
  }
  absl::StatusOr<sator::UpsertBodiesResult> upserted =
      client->UpsertBodies(scene, *bodies);
  if (!upserted.ok()) return Fail("UpsertBodies", upserted.status());
  std::cout << "level and " << upserted->created << " bodies uploaded to "
            << scene << "\n";

  // 2. The game loop: after each simulation step, the hitboxes' poses.
  absl::StatusOr<std::unique_ptr<sator::Session>> session =
      client->OpenSession(scene);
  if (!session.ok()) return Fail("OpenSession", session.status());
  for (std::int64_t tick = 1; tick <= kTicks; ++tick) {
    sator::PoseBatch poses;
    for (int player = 1; player <= 3; ++player) {
      const Vec3 feet = PlayerPosition(player, tick);
      poses.Add(CapsuleId(player), At(feet));
      poses.Add(HeadId(player), At(feet + Vec3{0, 1.75f, 0}));
    }
    // A real server would not wait here; it collects the answer later.
    absl::StatusOr<std::int64_t> applied =
        (*session)->SubmitPoses(tick, std::move(poses)).get();
    if (!applied.ok()) return Fail("poses", applied.status());
  }

  // 3. Player 1 fires at tick 30, at what their screen showed at tick 24:
  //    player 2's chest, and player 3's chest behind the crate.
  const std::int64_t view_tick = kTicks - kViewLatencyTicks;
  const Vec3 chest{0, 1.0f, 0};
  const Vec3 aim_at_2 = PlayerPosition(2, view_tick) + chest;
  const Vec3 aim_at_3 = PlayerPosition(3, view_tick) + chest;
  std::future<absl::StatusOr<sator::QueryResult>> rewound =
      (*session)->SubmitQuery(Shot(aim_at_2, view_tick));
  std::future<absl::StatusOr<sator::QueryResult>> unrewound =
      (*session)->SubmitQuery(Shot(aim_at_2, std::nullopt));
  std::future<absl::StatusOr<sator::QueryResult>> blocked =
      (*session)->SubmitQuery(Shot(aim_at_3, view_tick));
  absl::StatusOr<sator::QueryResult> shot = rewound.get();
  absl::StatusOr<sator::QueryResult> naive = unrewound.get();
  absl::StatusOr<sator::QueryResult> covered = blocked.get();
  if (!shot.ok()) return Fail("shot at player 2", shot.status());
  if (!naive.ok()) return Fail("unrewound shot", naive.status());
  if (!covered.ok()) return Fail("shot at player 3", covered.status());

  std::cout << "tick " << kTicks << ", shot at player 2 seen at tick "
            << shot->tick << ": " << Describe(*shot) << "\n";
  std::cout << "the same shot at tick " << naive->tick
            << " (no lag compensation): " << Describe(*naive) << "\n";
  std::cout << "shot at player 3 seen at tick " << covered->tick << ": "
            << Describe(*covered) << "\n";

  (void)(*session)->Close();
  (void)client->DeleteScene(scene);

  const bool hit_player_2 =
      !shot->hits.empty() && shot->hits.front().user_data == 2;
  const bool naive_missed_2 =
      naive->hits.empty() || naive->hits.front().user_data != 2;
  const bool crate_blocked =
      !covered->hits.empty() && covered->hits.front().body_id == kCrateId;
  return hit_player_2 && naive_missed_2 && crate_blocked ? 0 : 2;
}
