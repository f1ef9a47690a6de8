// hitscan: the collision side of a shooter's game server, with lag
// compensation by ValidateShots.
//
//   hitscan [target[,target...]]      (default 127.0.0.1:50051)
//
// 1. Uploads a 3D level: a static triangle mesh (the floor) and a wall.
// 2. Uploads three players as hitbox groups (head, torso and legs parts,
//    placed in the group's frame), opens a Session and streams one pose per
//    player each tick, as a game server does after each simulation step.
//    Player 2 strafes along +x; player 3 stands still behind the wall.
// 3. At tick 30, player 1's client reports six shots. Its screen shows the
//    world 100 ms in the past (6 ticks at 60 Hz), so each shot carries that
//    view delay and one ValidateShots call judges them all as the shooter
//    saw the world. Each verdict is printed with its reason.
// Exits 0 when every verdict is the one the scenario implies. Several
// targets (comma-separated) are used as shards (sharding_connection.h).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "sator/client/client.h"
#include "sator/client/session.h"
#include "sator/client/sharding_connection.h"

namespace {

using sator::Pose3;
using sator::Quat;
using sator::ShotOutcome;
using sator::ShotReason;
using sator::Vec3;

constexpr int kTicks = 30;
constexpr double kTickRate = 60.0;
// What the shooter's screen shows: 100 ms behind the server (6 ticks).
constexpr double kViewDelayMs = 100.0;
constexpr float kRange = 100.0f;

// Level bodies have ids below 100; player p is hitbox group p, and its part
// k is body 100 p + k.
constexpr std::uint64_t kFloorId = 1;
constexpr std::uint64_t kWallId = 2;
enum Part : std::int32_t { kHead = 1, kTorso = 2, kLegs = 3 };

const char* PartName(std::int32_t part) {
  switch (part) {
    case kHead:
      return "head";
    case kTorso:
      return "torso";
    case kLegs:
      return "legs";
    default:
      return "?";
  }
}

Pose3 At(Vec3 position) { return {.position = position, .rotation = Quat{}}; }

// Where each player's feet are at `tick` (y up). Player 1 stands at the
// origin; player 2 strafes along +x at 0.25 units a tick, 20 units away
// (x = 0 at tick 24); player 3 stands behind the wall.
Vec3 PlayerPosition(int player, double tick) {
  switch (player) {
    case 1:
      return {0.0f, 0.0f, 0.0f};
    case 2:
      return {-6.0f + 0.25f * static_cast<float>(tick), 0.0f, 20.0f};
    default:
      return {8.0f, 0.0f, 20.0f};
  }
}

// Part offsets in the group's frame.
constexpr Vec3 kHeadCentre{0, 1.75f, 0};
constexpr Vec3 kTorsoCentre{0, 1.2f, 0};
constexpr Vec3 kEye{0, 1.6f, 0};

// The level: a 100 x 100 floor of two triangles, and a wall 4 wide, 3 high
// and 0.5 thick across the line from player 1 to player 3.
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
      {.id = kWallId,
       .shape = sator::Shape3(sator::Box3{.half_extents = {2, 1.5f, 0.25f}}),
       .pose = At({6, 1.5f, 12}),
       .motion = sator::MotionType::kStatic},
  };
}

// A player's hitbox group: a head sphere, a torso capsule and a legs box,
// posed in the group's frame (feet at its origin).
std::vector<sator::Body> Hitboxes(int player) {
  const auto group = static_cast<std::uint64_t>(player);
  auto part = [&](Part label, sator::Shape3 shape, Vec3 offset) {
    return sator::Body{.id = 100u * group + static_cast<std::uint64_t>(label),
                       .shape = std::move(shape),
                       .pose = At(offset),
                       .motion = sator::MotionType::kDynamic,
                       .group_id = group,
                       .part = label};
  };
  return {
      part(kHead, sator::Sphere{.radius = 0.2f}, kHeadCentre),
      part(
          kTorso,
          sator::Capsule3{.a = {0, 1.0f, 0}, .b = {0, 1.4f, 0}, .radius = 0.3f},
          {0, 0, 0}),
      part(kLegs, sator::Box3{.half_extents = {0.25f, 0.4f, 0.15f}},
           {0, 0.45f, 0}),
  };
}

// What player 1 reports: a shot from `origin` at `aim`, claiming `target`,
// seen `delay_ms` before the server's current tick.
sator::Shot Report(std::uint64_t shot_id, Vec3 origin, Vec3 aim,
                   std::uint64_t target, double delay_ms) {
  return {.shot_id = shot_id,
          .shooter_group_id = 1,
          .origin = origin,
          .direction = aim - origin,
          .range = kRange,
          .target = sator::ShotTarget{.group_id = target},
          .view_time = sator::ViewDelay{.ms = delay_ms}};
}

// "hit (hit) at tick 24: player 2's torso at 19.70", "miss (target_missed)
// at tick 30, 1.20 from the target", ...
std::string Describe(const sator::ShotVerdict& verdict) {
  std::string out = std::string(sator::ShotOutcomeName(verdict.outcome)) +
                    " (" + std::string(sator::ShotReasonName(verdict.reason)) +
                    ")";
  if (verdict.outcome == ShotOutcome::kRejected) return out;
  out += " at tick " + std::to_string(verdict.tick);
  char number[32];
  if (verdict.hit.has_value()) {
    std::snprintf(number, sizeof number, "%.2f", verdict.hit->distance);
    if (verdict.hit->group_id != 0) {
      out += ": player " + std::to_string(verdict.hit->group_id) + "'s " +
             PartName(verdict.hit->part) + " at " + number;
    } else {
      out += ": level body " + std::to_string(verdict.hit->body_id) + " at " +
             number;
    }
  }
  if (verdict.target_miss_distance.has_value()) {
    std::snprintf(number, sizeof number, "%.2f", *verdict.target_miss_distance);
    out += std::string(", ") + number + " from the target";
  }
  return out;
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

struct Expected {
  ShotOutcome outcome;
  ShotReason reason;
  std::uint64_t hit_group;  // 0: no player hit.
};

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<sator::Client> client =
      Connect(argc > 1 ? argv[1] : "127.0.0.1:50051");
  if (!client.ok()) return Fail("connect", client.status());

  // 1. The scene, its level and the players' hitbox groups. The hit policy
  //    is the default one: shots may rewind 250 ms (older ones are judged
  //    at that limit) and must start within 2 units of the shooter.
  const std::string scene = "hitscan-demo";
  (void)client->DeleteScene(scene);  // Left over from an earlier run?
  absl::StatusOr<sator::SceneInfo> created =
      client->CreateScene(scene, {.dimension = sator::Dimension::k3D,
                                  .history_ticks = 64,
                                  .tick_rate = static_cast<float>(kTickRate)});
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

  // 2. The game loop: after each simulation step, one pose per player.
  absl::StatusOr<std::unique_ptr<sator::Session>> session =
      client->OpenSession(scene);
  if (!session.ok()) return Fail("OpenSession", session.status());
  for (std::int64_t tick = 1; tick <= kTicks; ++tick) {
    sator::PoseBatch poses;
    for (int player = 1; player <= 3; ++player) {
      poses.AddGroup(static_cast<std::uint64_t>(player),
                     At(PlayerPosition(player, static_cast<double>(tick))));
    }
    // A real server would not wait here; it collects the answer later.
    absl::StatusOr<std::int64_t> applied =
        (*session)->SubmitPoses(tick, std::move(poses)).get();
    if (!applied.ok()) return Fail("poses", applied.status());
  }
  (void)(*session)->Close();

  // 3. Player 1's shots at tick 30. Its screen showed tick 24, where
  //    player 2 stood at x = 0.
  const double seen = kTicks - kViewDelayMs * kTickRate / 1000.0;
  const Vec3 eye = PlayerPosition(1, seen) + kEye;
  const Vec3 torso_2 = PlayerPosition(2, seen) + kTorsoCentre;
  const Vec3 torso_3 = PlayerPosition(3, seen) + kTorsoCentre;
  // 500 ms is beyond the 250 ms the policy allows: judged at tick 15, where
  // player 2's head was (a client that shows the world that old aims at
  // what it shows; the server judges at its limit).
  const Vec3 head_2_at_15 = PlayerPosition(2, 15) + kHeadCentre;
  const std::vector<sator::Shot> shots = {
      Report(1, eye, torso_2, 2, kViewDelayMs),
      // The same shot judged at the current tick: no lag compensation.
      Report(2, eye, torso_2, 2, 0.0),
      Report(3, eye, torso_3, 3, kViewDelayMs),
      Report(4, eye, head_2_at_15, 2, 500.0),
      // A claimed origin 30 units from the shooter's hitboxes.
      Report(5, eye + Vec3{30, 0, 0}, torso_2, 2, kViewDelayMs),
      // A view time 50 ms after the server's current tick.
      Report(6, eye, torso_2, 2, -50.0),
  };
  const char* const what[] = {
      "at player 2's torso, seen 100 ms ago",
      "the same, judged at the current tick",
      "at player 3, behind the wall",
      "at player 2's head, seen 500 ms ago",
      "from 30 units away",
      "seen 50 ms in the future",
  };
  absl::StatusOr<sator::ValidateShotsResult> judged =
      client->ValidateShots(scene, shots);
  if (!judged.ok()) return Fail("ValidateShots", judged.status());
  (void)client->DeleteScene(scene);

  const Expected expected[] = {
      {ShotOutcome::kHit, ShotReason::kHit, 2},
      {ShotOutcome::kMiss, ShotReason::kTargetMissed, 0},
      {ShotOutcome::kMiss, ShotReason::kBlockedByWorld, 0},
      {ShotOutcome::kHit, ShotReason::kClamped, 2},
      {ShotOutcome::kRejected, ShotReason::kOriginTooFar, 0},
      {ShotOutcome::kRejected, ShotReason::kInFuture, 0},
  };
  bool as_expected = judged->verdicts.size() == shots.size();
  std::cout << "tick " << judged->current_tick << ": "
            << judged->verdicts.size() << " shots judged\n";
  for (std::size_t i = 0; i < judged->verdicts.size() && i < shots.size();
       ++i) {
    const sator::ShotVerdict& verdict = judged->verdicts[i];
    std::cout << "shot " << verdict.shot_id << " (" << what[i]
              << "): " << Describe(verdict) << "\n";
    const std::uint64_t hit_group =
        verdict.hit.has_value() ? verdict.hit->group_id : 0;
    as_expected = as_expected && verdict.outcome == expected[i].outcome &&
                  verdict.reason == expected[i].reason &&
                  hit_group == expected[i].hit_group;
  }
  return as_expected ? 0 : 2;
}
