#include "tools/sator-bench/game_served_room.h"

#include <future>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sator::bench {
namespace {

// A query answered at another tick than its pose update's ran before the
// update was applied (or after a later one).
absl::Status CheckTick(const QueryResult& result, std::int64_t tick) {
  if (result.tick == tick) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      "a query of tick ", tick, " was answered at tick ", result.tick));
}

// A batch's answer: one entry per query, each answered at the tick.
absl::Status CheckEntries(
    const absl::StatusOr<std::vector<BatchEntry>>& entries, std::int64_t tick) {
  if (!entries.ok()) return entries.status();
  if (entries->size() != static_cast<std::size_t>(kQueriesPerTick)) {
    return absl::InternalError(absl::StrCat("a batch of ", kQueriesPerTick,
                                            " queries got ", entries->size(),
                                            " answers"));
  }
  for (const BatchEntry& entry : *entries) {
    if (!entry.ok()) return entry.status();
    if (absl::Status s = CheckTick(*entry, tick); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CheckShots(const absl::StatusOr<ValidateShotsResult>& judged,
                        std::size_t shots) {
  if (!judged.ok()) return judged.status();
  if (judged->verdicts.size() != shots) {
    return absl::InternalError(
        absl::StrCat("ValidateShots: ", judged->verdicts.size(),
                     " verdicts for ", shots, " shots"));
  }
  return absl::OkStatus();
}

}  // namespace

ServedRoom::ServedRoom(Client& client, std::string scene_id, std::uint64_t seed,
                       GameTransport transport)
    : client_(client),
      scene_id_(std::move(scene_id)),
      transport_(transport),
      room_(seed),
      capsule_(CharacterCapsule()) {}

ServedRoom::~ServedRoom() { Close(); }

absl::StatusOr<std::unique_ptr<ServedRoom>> ServedRoom::Create(
    Client& client, std::string scene_id, std::uint64_t seed,
    GameTransport transport) {
  std::unique_ptr<ServedRoom> room(
      new ServedRoom(client, std::move(scene_id), seed, transport));
  if (absl::Status s = room->Setup(); !s.ok()) {
    room->Close();
    return s;
  }
  return room;
}

absl::Status ServedRoom::Setup() {
  (void)client_.DeleteScene(scene_id_);
  SceneSettings settings;
  settings.dimension = Dimension::k3D;
  settings.history_ticks = kGameHistoryTicks;
  settings.tick_rate = static_cast<float>(kGameTickRate);
  if (auto created = client_.CreateScene(scene_id_, settings); !created.ok()) {
    return created.status();
  }
  std::vector<Body> bodies;
  Body level;
  level.id = kLevelBodyId;
  level.shape = Shape3{GameLevelMesh()};
  level.motion = MotionType::kStatic;
  bodies.push_back(std::move(level));
  for (int p = 0; p < kPlayersPerRoom; ++p) {
    for (int k = 0; k < kPartsPerPlayer; ++k) {
      const HitboxPart& part = PlayerParts()[static_cast<std::size_t>(k)];
      Body body;
      body.id = PartBodyId(p, k);
      body.shape = part.shape;
      body.pose = part.local;
      body.motion = MotionType::kDynamic;
      body.group_id = PlayerGroupId(p);
      body.part = part.part;
      bodies.push_back(std::move(body));
    }
  }
  CallOptions call;
  call.deadline = absl::Seconds(60);
  if (auto upserted = client_.UpsertBodies(scene_id_, bodies, call);
      !upserted.ok()) {
    return upserted.status();
  }
  PoseBatch initial;
  const std::vector<Pose3> poses = room_.InitialPoses();
  for (int p = 0; p < kPlayersPerRoom; ++p) {
    initial.AddGroup(PlayerGroupId(p), poses[static_cast<std::size_t>(p)]);
  }
  if (auto updated = client_.UpdatePoses(scene_id_, 0, initial);
      !updated.ok()) {
    return updated.status();
  }
  absl::StatusOr<std::unique_ptr<Session>> session =
      client_.OpenSession(scene_id_);
  if (!session.ok()) return session.status();
  session_ = *std::move(session);
  return absl::OkStatus();
}

void ServedRoom::Close() {
  if (closed_) return;
  closed_ = true;
  if (session_ != nullptr) (void)session_->Close();
  session_.reset();
  (void)client_.DeleteScene(scene_id_);
}

PoseBatch ServedRoom::Poses(const GameTick& tick) const {
  PoseBatch batch;
  for (int p = 0; p < kPlayersPerRoom; ++p) {
    batch.AddGroup(PlayerGroupId(p),
                   tick.group_poses[static_cast<std::size_t>(p)]);
  }
  return batch;
}

std::vector<Query> ServedRoom::Queries(const GameTick& tick) const {
  std::vector<Query> queries;
  queries.reserve(static_cast<std::size_t>(kQueriesPerTick));
  QueryOptions contact_options;
  contact_options.filter.motion = MotionFilter::kStaticOnly;
  contact_options.mode = ResultMode::kAll;
  contact_options.max_hits = kContactMaxHits;
  QueryOptions sweep_options;
  sweep_options.filter.motion = MotionFilter::kStaticOnly;
  sweep_options.mode = ResultMode::kClosest;
  for (const Pose3& pose : tick.contacts) {
    queries.push_back({ContactsQuery{capsule_, pose}, contact_options});
  }
  for (const CharacterSweep& sweep : tick.sweeps) {
    queries.push_back(
        {SweepQuery{capsule_, sweep.start, sweep.displacement}, sweep_options});
  }
  return queries;
}

std::vector<Shot> ServedRoom::Shots(const GameTick& tick) const {
  std::vector<Shot> shots;
  shots.reserve(tick.shots.size());
  for (const GameShot& game_shot : tick.shots) {
    Shot shot;
    shot.shot_id = game_shot.shot_id;
    shot.shooter_group_id = game_shot.shooter_group;
    shot.origin = game_shot.origin;
    shot.direction = game_shot.direction;
    shot.range = kShotRange;
    shot.target = ShotTarget{.group_id = game_shot.target_group};
    shot.view_time = ViewDelay{kShotViewDelayMs};
    shots.push_back(std::move(shot));
  }
  return shots;
}

absl::Status ServedRoom::Send(const GameTick& tick) {
  if (session_ == nullptr) {
    return absl::FailedPreconditionError("the room is closed");
  }
  return transport_ == GameTransport::kSession ? SendOnSession(tick)
                                               : SendWithBatch(tick);
}

absl::Status ServedRoom::SendOnSession(const GameTick& tick) {
  std::future<absl::StatusOr<std::int64_t>> applied =
      session_->SubmitPoses(tick.tick, Poses(tick));
  std::future<absl::StatusOr<std::vector<BatchEntry>>> answered =
      session_->SubmitBatch(Queries(tick));
  std::future<absl::StatusOr<ValidateShotsResult>> judged =
      session_->SubmitShots(Shots(tick));
  // Every future is waited for, so none outlives the tick.
  absl::Status status = applied.get().status();
  absl::StatusOr<std::vector<BatchEntry>> entries = answered.get();
  if (status.ok()) status = CheckEntries(entries, tick.tick);
  const absl::Status shots = CheckShots(judged.get(), tick.shots.size());
  return status.ok() ? shots : status;
}

absl::Status ServedRoom::SendWithBatch(const GameTick& tick) {
  std::future<absl::StatusOr<std::int64_t>> applied =
      session_->SubmitPoses(tick.tick, Poses(tick));
  // Ordered after the poses on the stream, so judged at this tick, while
  // the batch below is answered.
  std::future<absl::StatusOr<ValidateShotsResult>> judged =
      session_->SubmitShots(Shots(tick));
  const std::vector<Query> queries = Queries(tick);
  absl::Status status = applied.get().status();
  if (status.ok()) {
    status = CheckEntries(client_.QueryBatch(scene_id_, queries), tick.tick);
  }
  const absl::Status shots = CheckShots(judged.get(), tick.shots.size());
  return status.ok() ? shots : status;
}

}  // namespace sator::bench
