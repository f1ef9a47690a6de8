// The content of one game room for sator-bench's game mode: the same scene
// and the same ticks whether they are served by satord (game_served_room.h)
// or run on the core in process (game_core_room.h).
//
// A room is a 3D scene at 60 Hz:
// - a static level, one triangle mesh of 3,488 triangles: a 120 x 120 m
//   floor (40 x 40 quads, 3,200 triangles) and 24 boxes (12 triangles each,
//   1 to 3 m high) standing among the players;
// - 64 players, each a hitbox group of 3 parts: head (sphere), torso
//   (capsule) and legs (capsule).
// Players walk a seeded random walk inside [-40, 40]^2 (speed up to 6 m/s,
// turned to face where they go); they do not collide, so a player may stand
// inside a box and its contact query finds it.
//
// Each tick (GameRoom::Next) holds:
// - the 64 group poses of the tick;
// - 64 character contacts: a character capsule (radius 0.35 m, 1.82 m tall)
//   at each player, its bottom 1 cm into the floor, against the level
//   (static bodies; every hit, at most 4: the contacts and depenetration a
//   character controller applies);
// - 64 sweeps: the same capsule, 2 cm above the floor, from each player's
//   previous position by its motion this tick plus 5 cm down (a step with
//   ground snapping), against the level (the closest hit);
// - 20 shots (hitscan rays, 200 m): a random shooter fires from its eye
//   (1.6 m up) at the torso (1.2 m up) of a random other player, both where
//   they were 100 ms (6 ticks) ago, claiming that player as its target, with
//   a view delay of 100 ms, so the shot is judged rewound 6 ticks.
#ifndef SATOR_TOOLS_SATOR_BENCH_GAME_ROOM_H_
#define SATOR_TOOLS_SATOR_BENCH_GAME_ROOM_H_

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator::bench {

inline constexpr int kPlayersPerRoom = 64;
inline constexpr int kPartsPerPlayer = 3;
inline constexpr int kShotsPerTick = 20;
inline constexpr double kGameTickRate = 60.0;
inline constexpr int kGameHistoryTicks = 64;
inline constexpr double kShotViewDelayMs = 100.0;
inline constexpr float kShotRange = 200.0f;
// Character contacts: at most this many hits each.
inline constexpr int kContactMaxHits = 4;
// Queries and shot messages per tick, for rates: contacts, sweeps, shots.
inline constexpr int kQueriesPerTick = 2 * kPlayersPerRoom;

// The level every room uses (built once, shared).
std::shared_ptr<const TriangleMesh> GameLevelMesh();

// One part of a player's hitbox group: its shape, pose in the group's frame
// and label (0 head, 1 torso, 2 legs).
struct HitboxPart {
  Shape3 shape;
  Pose3 local;
  std::int32_t part = 0;
};
const std::array<HitboxPart, kPartsPerPlayer>& PlayerParts();

// The character controller's capsule, in the player's frame (bottom at the
// player's feet).
Capsule3 CharacterCapsule();

// Body and group ids: the level is body 1; player p (0-based) is group
// p + 1, and its part k is body 2 + 3p + k.
inline constexpr std::uint64_t kLevelBodyId = 1;
constexpr std::uint64_t PlayerGroupId(int player) {
  return static_cast<std::uint64_t>(player) + 1;
}
constexpr std::uint64_t PartBodyId(int player, int part) {
  return 2 + static_cast<std::uint64_t>(player) * kPartsPerPlayer +
         static_cast<std::uint64_t>(part);
}

struct CharacterSweep {
  Pose3 start;
  Vec3 displacement;
};

struct GameShot {
  std::uint64_t shot_id = 0;
  std::uint64_t shooter_group = 0;
  std::uint64_t target_group = 0;
  Vec3 origin;
  Vec3 direction;
};

struct GameTick {
  std::int64_t tick = 0;
  // Indexed by player.
  std::vector<Pose3> group_poses;
  // Character capsule poses (CharacterCapsule in this frame).
  std::vector<Pose3> contacts;
  std::vector<CharacterSweep> sweeps;
  std::vector<GameShot> shots;
};

// The seed of room `room` (0-based) of a run seeded with `seed`.
constexpr std::uint64_t RoomSeed(std::uint64_t seed, int room) {
  return seed * 1000003 + static_cast<std::uint64_t>(room);
}

// A room's deterministic ticks: the same seed gives the same ticks.
class GameRoom {
 public:
  explicit GameRoom(std::uint64_t seed);

  // The group poses at tick 0 (set before the first tick: a group starts at
  // the identity pose).
  std::vector<Pose3> InitialPoses() const;
  // Advances to the next tick (1, 2, ...) and returns it; valid until the
  // next call.
  const GameTick& Next();

 private:
  static constexpr int kRing = 16;  // Past positions kept, > view delay.

  Vec3 PositionAt(std::int64_t tick, int player) const;
  Pose3 PoseOf(int player) const;

  std::mt19937_64 random_;
  std::vector<Vec3> positions_;
  std::vector<Vec3> velocities_;
  // positions at tick t are ring_[t % kRing] (t >= 0, within kRing ticks).
  std::array<std::vector<Vec3>, kRing> ring_;
  std::uint64_t next_shot_id_ = 1;
  GameTick tick_;
};

}  // namespace sator::bench

#endif  // SATOR_TOOLS_SATOR_BENCH_GAME_ROOM_H_
