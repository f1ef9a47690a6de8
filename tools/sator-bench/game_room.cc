#include "tools/sator-bench/game_room.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace sator::bench {
namespace {

constexpr float kArenaHalf = 40.0f;    // Players stay in [-40, 40]^2.
constexpr float kMaxSpeed = 6.0f;      // m/s.
constexpr float kSpeedChange = 0.5f;   // Up to this many m/s a tick, per axis.
constexpr float kEyeHeight = 1.6f;     // Shots start here...
constexpr float kTorsoHeight = 1.2f;   // ...and aim here.
constexpr float kContactSink = 0.01f;  // Contacts: 1 cm into the floor.
constexpr float kSweepLift = 0.02f;    // Sweeps start 2 cm above it...
constexpr float kSweepSnap = 0.05f;    // ...and probe 5 cm down.
constexpr int kViewDelayTicks = 6;     // kShotViewDelayMs at 60 Hz.

static_assert(kViewDelayTicks * 1000.0 == kShotViewDelayMs * kGameTickRate);

Quat Yaw(float radians) {
  return {0.0f, std::sin(0.5f * radians), 0.0f, std::cos(0.5f * radians)};
}

// The 8 corners of a box of half extents (hx, h / 2, hz) on the floor at
// `centre`, turned by `heading`, and its 12 outward triangles.
void AddBox(Vec3 centre, float hx, float hz, float height, float heading,
            std::vector<Vec3>* vertices, std::vector<std::uint32_t>* indices) {
  const auto base = static_cast<std::uint32_t>(vertices->size());
  const Quat turn = Yaw(heading);
  for (int k = 0; k < 8; ++k) {
    const Vec3 local{(k & 1) != 0 ? hx : -hx, (k & 2) != 0 ? height : 0.0f,
                     (k & 4) != 0 ? hz : -hz};
    vertices->push_back(centre + Rotate(turn, local));
  }
  // Corner k has x bit 1, y bit 2, z bit 4; faces wound outward.
  constexpr std::array<std::uint32_t, 36> kFaces = {
      0, 4, 6, 0, 6, 2,  // -x
      1, 3, 7, 1, 7, 5,  // +x
      0, 1, 5, 0, 5, 4,  // -y
      2, 6, 7, 2, 7, 3,  // +y
      0, 2, 3, 0, 3, 1,  // -z
      4, 5, 7, 4, 7, 6,  // +z
  };
  for (const std::uint32_t corner : kFaces) indices->push_back(base + corner);
}

std::shared_ptr<const TriangleMesh> BuildLevel() {
  std::vector<Vec3> vertices;
  std::vector<std::uint32_t> indices;
  constexpr int kCells = 40;
  constexpr float kHalf = 60.0f;
  constexpr float kStep = 2.0f * kHalf / kCells;
  for (int z = 0; z <= kCells; ++z) {
    for (int x = 0; x <= kCells; ++x) {
      vertices.push_back({-kHalf + kStep * static_cast<float>(x), 0.0f,
                          -kHalf + kStep * static_cast<float>(z)});
    }
  }
  for (std::uint32_t z = 0; z < kCells; ++z) {
    for (std::uint32_t x = 0; x < kCells; ++x) {
      const std::uint32_t a = z * (kCells + 1) + x;
      const std::uint32_t b = a + 1;
      const std::uint32_t c = a + kCells + 1;
      const std::uint32_t d = c + 1;
      indices.insert(indices.end(), {a, c, b, b, c, d});
    }
  }
  std::mt19937_64 random(7);
  std::uniform_real_distribution<float> place(-36.0f, 36.0f);
  std::uniform_real_distribution<float> half(0.5f, 2.0f);
  std::uniform_real_distribution<float> height(1.0f, 3.0f);
  std::uniform_real_distribution<float> heading(0.0f, 3.1415926f);
  for (int box = 0; box < 24; ++box) {
    const Vec3 centre{place(random), 0.0f, place(random)};
    const float hx = half(random);
    const float hz = half(random);
    const float h = height(random);
    AddBox(centre, hx, hz, h, heading(random), &vertices, &indices);
  }
  // The input is well-formed by construction.
  return MakeTriangleMesh(std::move(vertices), std::move(indices)).value();
}

// Reflects a coordinate that left [-kArenaHalf, kArenaHalf] back inside,
// and its velocity with it.
void Bounce(float* coordinate, float* velocity) {
  if (*coordinate > kArenaHalf) {
    *coordinate = 2.0f * kArenaHalf - *coordinate;
    *velocity = -*velocity;
  } else if (*coordinate < -kArenaHalf) {
    *coordinate = -2.0f * kArenaHalf - *coordinate;
    *velocity = -*velocity;
  }
}

}  // namespace

std::shared_ptr<const TriangleMesh> GameLevelMesh() {
  static const auto* const level =
      new std::shared_ptr<const TriangleMesh>(BuildLevel());
  return *level;
}

const std::array<HitboxPart, kPartsPerPlayer>& PlayerParts() {
  static const auto* const parts = new std::array<HitboxPart, kPartsPerPlayer>{{
      {Sphere{0.15f}, Pose3{{0.0f, 1.7f, 0.0f}, {}}, 0},
      {Capsule3{{0.0f, 1.0f, 0.0f}, {0.0f, 1.4f, 0.0f}, 0.25f}, Pose3{}, 1},
      {Capsule3{{0.0f, 0.15f, 0.0f}, {0.0f, 0.75f, 0.0f}, 0.2f}, Pose3{}, 2},
  }};
  return *parts;
}

Capsule3 CharacterCapsule() {
  return Capsule3{{0.0f, 0.35f, 0.0f}, {0.0f, 1.47f, 0.0f}, 0.35f};
}

GameRoom::GameRoom(std::uint64_t seed) : random_(seed) {
  std::uniform_real_distribution<float> place(-kArenaHalf + 2.0f,
                                              kArenaHalf - 2.0f);
  std::uniform_real_distribution<float> speed(-kMaxSpeed / 2, kMaxSpeed / 2);
  for (int p = 0; p < kPlayersPerRoom; ++p) {
    positions_.push_back({place(random_), 0.0f, place(random_)});
    velocities_.push_back({speed(random_), 0.0f, speed(random_)});
  }
  ring_[0] = positions_;
  tick_.group_poses.resize(kPlayersPerRoom);
  tick_.contacts.resize(kPlayersPerRoom);
  tick_.sweeps.resize(kPlayersPerRoom);
  tick_.shots.resize(kShotsPerTick);
}

std::vector<Pose3> GameRoom::InitialPoses() const {
  std::vector<Pose3> poses;
  poses.reserve(kPlayersPerRoom);
  for (int p = 0; p < kPlayersPerRoom; ++p) {
    poses.push_back({ring_[0][static_cast<std::size_t>(p)], {}});
  }
  return poses;
}

Vec3 GameRoom::PositionAt(std::int64_t tick, int player) const {
  const std::int64_t t = std::max<std::int64_t>(0, tick);
  return ring_[static_cast<std::size_t>(t % kRing)]
              [static_cast<std::size_t>(player)];
}

Pose3 GameRoom::PoseOf(int player) const {
  const Vec3 v = velocities_[static_cast<std::size_t>(player)];
  return {positions_[static_cast<std::size_t>(player)],
          Yaw(std::atan2(v.x, v.z))};
}

const GameTick& GameRoom::Next() {
  const std::int64_t tick = ++tick_.tick;
  std::uniform_real_distribution<float> change(-kSpeedChange, kSpeedChange);
  constexpr float kDt = 1.0f / static_cast<float>(kGameTickRate);
  for (int p = 0; p < kPlayersPerRoom; ++p) {
    const auto i = static_cast<std::size_t>(p);
    Vec3& v = velocities_[i];
    v.x += change(random_);
    v.z += change(random_);
    if (const float speed = Length(v); speed > kMaxSpeed) {
      v *= kMaxSpeed / speed;
    }
    Vec3& x = positions_[i];
    x += v * kDt;
    Bounce(&x.x, &v.x);
    Bounce(&x.z, &v.z);
    const Vec3 previous = PositionAt(tick - 1, p);
    tick_.group_poses[i] = PoseOf(p);
    tick_.contacts[i] = {x - Vec3{0.0f, kContactSink, 0.0f}, {}};
    tick_.sweeps[i] = {{previous + Vec3{0.0f, kSweepLift, 0.0f}, {}},
                       x - previous - Vec3{0.0f, kSweepSnap, 0.0f}};
  }
  ring_[static_cast<std::size_t>(tick % kRing)] = positions_;

  std::uniform_int_distribution<int> shooter_of(0, kPlayersPerRoom - 1);
  std::uniform_int_distribution<int> offset(1, kPlayersPerRoom - 1);
  const std::int64_t view = tick - kViewDelayTicks;
  for (GameShot& shot : tick_.shots) {
    const int shooter = shooter_of(random_);
    const int target = (shooter + offset(random_)) % kPlayersPerRoom;
    shot.shot_id = next_shot_id_++;
    shot.shooter_group = PlayerGroupId(shooter);
    shot.target_group = PlayerGroupId(target);
    shot.origin = PositionAt(view, shooter) + Vec3{0.0f, kEyeHeight, 0.0f};
    shot.direction =
        PositionAt(view, target) + Vec3{0.0f, kTorsoHeight, 0.0f} - shot.origin;
  }
  return tick_;
}

}  // namespace sator::bench
