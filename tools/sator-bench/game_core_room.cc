#include "tools/sator-bench/game_core_room.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "tools/sator-bench/process_cpu.h"

namespace sator::bench {
absl::StatusOr<std::unique_ptr<CoreRoom>> CoreRoom::Create(std::uint64_t seed) {
  std::unique_ptr<CoreRoom> room(new CoreRoom(seed));
  scene::SceneOptions options;
  options.history_ticks = kGameHistoryTicks;
  options.tick_rate = kGameTickRate;
  absl::StatusOr<std::unique_ptr<scene::Scene3>> made =
      scene::Scene3::Create(options);
  if (!made.ok()) return made.status();
  room->scene_ = *std::move(made);

  std::vector<scene::BodyDesc<3>> bodies;
  bodies.push_back({.id = kLevelBodyId,
                    .shape = std::make_shared<const Shape3>(GameLevelMesh()),
                    .motion = scene::MotionType::kStatic});
  for (int p = 0; p < kPlayersPerRoom; ++p) {
    for (int k = 0; k < kPartsPerPlayer; ++k) {
      const HitboxPart& part = PlayerParts()[static_cast<std::size_t>(k)];
      bodies.push_back({.id = PartBodyId(p, k),
                        .shape = std::make_shared<const Shape3>(part.shape),
                        .pose = part.local,
                        .group_id = PlayerGroupId(p),
                        .part = part.part});
    }
  }
  if (absl::Status s = room->scene_->UpsertBodies(bodies); !s.ok()) return s;
  std::vector<scene::GroupPoseUpdate<3>> initial;
  initial.reserve(kPlayersPerRoom);
  const std::vector<Pose3> poses = room->room_.InitialPoses();
  for (int p = 0; p < kPlayersPerRoom; ++p) {
    initial.push_back({.group_id = PlayerGroupId(p),
                       .pose = poses[static_cast<std::size_t>(p)]});
  }
  if (absl::Status s = room->scene_->UpdatePoses(0, {}, initial); !s.ok()) {
    return s;
  }

  room->capsule_ = CharacterCapsule();
  room->contact_options_.filter.motion = scene::MotionSelection::kStaticOnly;
  room->contact_options_.mode = scene::ResultMode::kAllUpToN;
  room->contact_options_.max_hits = kContactMaxHits;
  room->sweep_options_.filter.motion = scene::MotionSelection::kStaticOnly;
  room->sweep_options_.mode = scene::ResultMode::kClosest;
  room->groups_.resize(kPlayersPerRoom);
  room->shots_.resize(kShotsPerTick);
  return room;
}

absl::Status CoreRoom::Run(const GameTick& tick, CoreTickCpu* cpu) {
  std::int64_t mark = ThreadCpuNanoseconds();
  // Adds the CPU time since the last mark to `part`.
  auto lap = [&mark](std::int64_t* part) {
    const std::int64_t now = ThreadCpuNanoseconds();
    *part += now - mark;
    mark = now;
  };
  for (int p = 0; p < kPlayersPerRoom; ++p) {
    const auto i = static_cast<std::size_t>(p);
    groups_[i] = {.group_id = PlayerGroupId(p), .pose = tick.group_poses[i]};
  }
  if (absl::Status s = scene_->UpdatePoses(tick.tick, {}, groups_); !s.ok()) {
    return s;
  }
  const scene::SceneSnapshot<3> snapshot = scene_->Snapshot();
  lap(&cpu->poses);
  for (const Pose3& pose : tick.contacts) {
    absl::StatusOr<scene::QueryResult<3>> contacts =
        snapshot.Contacts(capsule_, pose, contact_options_);
    if (!contacts.ok()) return contacts.status();
  }
  lap(&cpu->contacts);
  for (const CharacterSweep& sweep : tick.sweeps) {
    absl::StatusOr<scene::QueryResult<3>> swept = snapshot.Sweep(
        capsule_, sweep.start, sweep.displacement, sweep_options_);
    if (!swept.ok()) return swept.status();
  }
  lap(&cpu->sweeps);
  for (std::size_t k = 0; k < tick.shots.size(); ++k) {
    const GameShot& shot = tick.shots[k];
    scene::Shot<3>& out = shots_[k];
    out.shooter_group = shot.shooter_group;
    out.origin = shot.origin;
    out.direction = shot.direction;
    out.range = kShotRange;
    out.target =
        scene::ClaimedTarget{.group_id = shot.target_group, .part = {}};
    out.view_time = scene::ViewDelay{kShotViewDelayMs};
  }
  absl::StatusOr<std::vector<scene::ShotVerdict<3>>> verdicts =
      scene::ValidateShots<3>(snapshot, shots_);
  if (!verdicts.ok()) return verdicts.status();
  for (const scene::ShotVerdict<3>& verdict : *verdicts) {
    shot_hits_ += verdict.outcome == scene::ShotOutcome::kHit ? 1 : 0;
  }
  lap(&cpu->shots);
  return absl::OkStatus();
}

absl::StatusOr<CoreTickCpu> CoreRoom::RunNextTick() {
  const GameTick& tick = room_.Next();
  CoreTickCpu cpu;
  if (absl::Status status = Run(tick, &cpu); !status.ok()) return status;
  return cpu;
}

CoreTiming RunCoreTicks(int rooms, std::int64_t ticks, std::uint64_t seed,
                        bool paced) {
  CoreTiming timing;
  timing.rooms = std::max(1, rooms);
  timing.paced = paced;
  std::vector<std::unique_ptr<CoreRoom>> made;
  for (int r = 0; r < timing.rooms; ++r) {
    absl::StatusOr<std::unique_ptr<CoreRoom>> room =
        CoreRoom::Create(RoomSeed(seed, r));
    if (!room.ok()) {
      ++timing.errors;
      timing.first_error = room.status().ToString();
      return timing;
    }
    made.push_back(*std::move(room));
  }
  const auto interval =
      std::chrono::duration<double>(1.0 / (kGameTickRate * timing.rooms));
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t t = 0; t < ticks; ++t) {
    if (paced) {
      // Scheduling, not a timing assertion.
      std::this_thread::sleep_until(
          start + std::chrono::duration_cast<std::chrono::nanoseconds>(
                      interval * static_cast<double>(t)));
    }
    CoreRoom& room = *made[static_cast<std::size_t>(t % timing.rooms)];
    absl::StatusOr<CoreTickCpu> cpu = room.RunNextTick();
    if (!cpu.ok()) {
      if (timing.errors++ == 0) timing.first_error = cpu.status().ToString();
      continue;
    }
    timing.cpu.Record(cpu->total());
    timing.parts.poses += cpu->poses;
    timing.parts.contacts += cpu->contacts;
    timing.parts.sweeps += cpu->sweeps;
    timing.parts.shots += cpu->shots;
    ++timing.ticks;
  }
  for (const auto& room : made) timing.shot_hits += room->shot_hits();
  timing.shots = timing.ticks * kShotsPerTick;
  return timing;
}

}  // namespace sator::bench
