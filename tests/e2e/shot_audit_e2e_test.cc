// The audit trail of shot verdicts against the real satord, through
// sator::Client: the ring's bound and overwrite count, paging and every
// filter of ListShotVerdicts with its errors, and WatchShotVerdicts in
// order, with a gap for a subscriber that does not keep up, ending on
// cancel and on the server's drain; with --data_dir, the same records in
// rotating JSON Lines files.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/v1/shot_audit.pb.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using ::sator::testing::HttpGet;
using ::sator::testing::SatordProcess;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// The fixture's flags.
constexpr int kRingSize = 64;
constexpr int kWatchBuffer = 4;
constexpr int kMaxShots = 1000;

// Players (one sphere each): the shooter at the origin, a target at
// (10, 0, 0), another at (0, 0, 10).
constexpr std::uint64_t kShooter = 1;
constexpr std::uint64_t kTarget = 2;
constexpr std::uint64_t kOther = 3;
constexpr std::int64_t kCurrentTick = 10;

class ShotAuditEndToEnd : public ::testing::Test {
 protected:
  // Flags besides the fixture's.
  virtual std::vector<std::string> ExtraFlags() { return {}; }

  void SetUp() override {
    std::vector<std::string> flags = {
        absl::StrCat("--shot_audit_size=", kRingSize),
        absl::StrCat("--shot_audit_watch_buffer=", kWatchBuffer),
        absl::StrCat("--max_batch_queries=", kMaxShots)};
    for (std::string& flag : ExtraFlags()) flags.push_back(std::move(flag));
    ASSERT_TRUE(satord_.Start(flags).ok()) << satord_.ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = satord_.grpc_target()});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    ASSERT_TRUE(client_
                    ->CreateScene("arena", {.dimension = Dimension::k3D,
                                            .history_ticks = 32,
                                            .tick_rate = 100.0f})
                    .ok());
    std::vector<Body> bodies;
    for (const std::uint64_t group : {kShooter, kTarget, kOther}) {
      bodies.push_back({.id = group * 10,
                        .shape = Sphere{0.5f},
                        .group_id = group,
                        .part = 1});
    }
    ASSERT_TRUE(client_->UpsertBodies("arena", bodies).ok());
    for (std::int64_t tick = 1; tick <= kCurrentTick; ++tick) {
      PoseBatch poses;
      poses.AddGroup(kShooter, Pose3{{0, 0, 0}, {}});
      poses.AddGroup(kTarget, Pose3{{10, 0, 0}, {}});
      poses.AddGroup(kOther, Pose3{{0, 0, 10}, {}});
      ASSERT_TRUE(client_->UpdatePoses("arena", tick, poses).ok());
    }
  }

  // A ray from `shooter`'s centre towards `direction`, 100 long.
  static Shot ShotAt(std::uint64_t id, Vec3 direction,
                     std::uint64_t shooter = kShooter) {
    return {.shot_id = id,
            .shooter_group_id = shooter,
            .origin = Vec3{0, 0, 0},
            .direction = direction,
            .range = 100.0f};
  }

  // `count` hits on the target with ids first..first+count-1.
  void ShootTarget(std::uint64_t first, int count) {
    std::vector<Shot> shots;
    for (int i = 0; i < count; ++i) {
      shots.push_back(ShotAt(first + static_cast<std::uint64_t>(i), {1, 0, 0}));
    }
    absl::StatusOr<ValidateShotsResult> result =
        client_->ValidateShots("arena", shots);
    ASSERT_TRUE(result.ok()) << result.status();
  }

  ShotVerdictPage List(const ShotVerdictPageRequest& request) {
    absl::StatusOr<ShotVerdictPage> page =
        client_->ListShotVerdicts("arena", request);
    EXPECT_TRUE(page.ok()) << page.status();
    return page.ok() ? *std::move(page) : ShotVerdictPage{};
  }

  std::vector<std::uint64_t> ShotIds(const ShotVerdictFilter& filter) {
    std::vector<std::uint64_t> ids;
    for (const ShotVerdictRecord& record :
         List({.filter = filter, .page_size = 1000}).records) {
      ids.push_back(record.shot.shot_id);
    }
    return ids;
  }

  double Metric(absl::string_view name) {
    absl::StatusOr<std::string> response =
        HttpGet(satord_.metrics_port(), "/metrics");
    EXPECT_TRUE(response.ok()) << response.status();
    if (!response.ok()) return -1;
    for (absl::string_view line : absl::StrSplit(*response, '\n')) {
      if (line.substr(0, name.size()) != name || line.size() <= name.size() ||
          line[name.size()] != ' ') {
        continue;
      }
      double value = 0;
      if (absl::SimpleAtod(line.substr(name.size() + 1), &value)) return value;
    }
    ADD_FAILURE() << name << " not in /metrics";
    return -1;
  }

  SatordProcess satord_;
  std::optional<Client> client_;
};

TEST_F(ShotAuditEndToEnd, KeepsTheNewestRingSizeVerdictsWithTheirInputs) {
  ShootTarget(1, 100);
  const ShotVerdictPage page = List({.page_size = 1000});
  ASSERT_EQ(page.records.size(), static_cast<std::size_t>(kRingSize));
  EXPECT_EQ(page.oldest_sequence, 100u - kRingSize + 1);
  EXPECT_EQ(page.overwritten, 100u - kRingSize);
  EXPECT_EQ(page.skipped, 100u - kRingSize);
  EXPECT_EQ(page.next_page_token, "");
  EXPECT_EQ(page.resume_sequence, 101u);
  for (std::size_t i = 0; i < page.records.size(); ++i) {
    const ShotVerdictRecord& record = page.records[i];
    const std::uint64_t sequence = 100 - kRingSize + 1 + i;
    EXPECT_EQ(record.sequence, sequence);
    // Shot i was the i-th recorded.
    EXPECT_EQ(record.shot.shot_id, sequence);
    EXPECT_EQ(record.scene_id, "arena");
    EXPECT_EQ(record.shot.shooter_group_id, kShooter);
    EXPECT_EQ(std::get<Vec3>(record.shot.direction), (Vec3{1, 0, 0}));
    EXPECT_EQ(record.shot.range, 100.0f);
    EXPECT_EQ(record.verdict.shot_id, sequence);
    EXPECT_EQ(record.verdict.outcome, ShotOutcome::kHit);
    ASSERT_TRUE(record.verdict.hit.has_value());
    EXPECT_EQ(record.verdict.hit->group_id, kTarget);
    EXPECT_EQ(record.current_tick, kCurrentTick);
    EXPECT_GT(record.recorded_unix_micros, 0);
  }
  EXPECT_EQ(Metric("sator_shot_audit_overwritten_total"), 100 - kRingSize);
}

TEST_F(ShotAuditEndToEnd, PagesFollowTheirTokensAndResumeAfterNewVerdicts) {
  ShootTarget(1, 10);
  std::vector<std::uint64_t> ids;
  std::vector<std::size_t> sizes;
  std::string token;
  for (int page_number = 0; page_number < 10; ++page_number) {
    const ShotVerdictPage page = List({.page_size = 3, .page_token = token});
    sizes.push_back(page.records.size());
    for (const ShotVerdictRecord& record : page.records) {
      ids.push_back(record.shot.shot_id);
    }
    token = page.next_page_token;
    if (token.empty()) {
      EXPECT_EQ(page.resume_sequence, 11u);
      break;
    }
  }
  EXPECT_THAT(sizes, ::testing::ElementsAre(3, 3, 3, 1));
  EXPECT_THAT(ids, ::testing::ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));

  ShootTarget(11, 2);
  const ShotVerdictPage later = List({.page_token = "11"});
  ASSERT_EQ(later.records.size(), 2u);
  EXPECT_EQ(later.records[0].shot.shot_id, 11u);
  EXPECT_EQ(later.records[1].shot.shot_id, 12u);
  EXPECT_EQ(later.skipped, 0u);
}

TEST_F(ShotAuditEndToEnd, ASceneCreatedAgainStartsATrailOfItsOwn) {
  ShootTarget(1, 3);
  ASSERT_EQ(List({}).records.size(), 3u);
  ASSERT_TRUE(client_->DeleteScene("arena").ok());
  ASSERT_TRUE(
      client_->CreateScene("arena", {.dimension = Dimension::k3D}).ok());
  const ShotVerdictPage page = List({});
  EXPECT_TRUE(page.records.empty());
  EXPECT_EQ(page.oldest_sequence, 0u);
  EXPECT_EQ(page.overwritten, 0u);
}

TEST_F(ShotAuditEndToEnd, EachFilterSelectsItsRecords) {
  std::vector<Shot> shots;
  // 1: claims and hits the target, at tick 5.
  Shot claimed = ShotAt(1, {1, 0, 0});
  claimed.target = ShotTarget{.group_id = kTarget};
  claimed.view_time = Rewind{.tick = 5};
  shots.push_back(claimed);
  // 2: hits the other player without a claim, at tick 8.
  Shot other = ShotAt(2, {0, 0, 1});
  other.view_time = Rewind{.tick = 8};
  shots.push_back(other);
  // 3: the other player shoots the target (from its own centre).
  Shot by_other = ShotAt(3, {1, 0, -1}, kOther);
  by_other.origin = Vec3{0, 0, 10};
  shots.push_back(by_other);
  // 4: into the sky: a miss.
  shots.push_back(ShotAt(4, {0, 1, 0}));
  // 5: an unknown shooter: rejected.
  shots.push_back(ShotAt(5, {1, 0, 0}, 99));
  absl::StatusOr<ValidateShotsResult> result =
      client_->ValidateShots("arena", shots);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->verdicts[2].outcome, ShotOutcome::kHit);

  EXPECT_THAT(ShotIds({}), ::testing::ElementsAre(1, 2, 3, 4, 5));
  EXPECT_THAT(ShotIds({.shooter_group_id = kOther}), ::testing::ElementsAre(3));
  EXPECT_THAT(ShotIds({.target_group_id = kTarget}),
              ::testing::ElementsAre(1, 3));
  EXPECT_THAT(ShotIds({.target_group_id = kOther}), ::testing::ElementsAre(2));
  EXPECT_THAT(ShotIds({.outcome = ShotOutcome::kMiss}),
              ::testing::ElementsAre(4));
  EXPECT_THAT(ShotIds({.outcome = ShotOutcome::kRejected}),
              ::testing::ElementsAre(5));
  EXPECT_THAT(ShotIds({.reason = ShotReason::kUnknownShooter}),
              ::testing::ElementsAre(5));
  EXPECT_THAT(ShotIds({.reason = ShotReason::kNothingHit}),
              ::testing::ElementsAre(4));
  EXPECT_THAT(ShotIds({.min_tick = 6, .max_tick = 8}),
              ::testing::ElementsAre(2));
  EXPECT_THAT(ShotIds({.max_tick = 5}), ::testing::ElementsAre(1));
  EXPECT_THAT(
      ShotIds({.shooter_group_id = kShooter, .outcome = ShotOutcome::kHit}),
      ::testing::ElementsAre(1, 2));
  // A filtered page still ends where the ring does.
  const ShotVerdictPage page =
      List({.filter = {.shooter_group_id = kOther}, .page_size = 1});
  ASSERT_EQ(page.records.size(), 1u);
  EXPECT_EQ(page.next_page_token, "4");
}

TEST_F(ShotAuditEndToEnd, BadRequestsNameTheirField) {
  ShootTarget(1, 3);
  const auto status_of = [&](const ShotVerdictPageRequest& request,
                             const std::string& scene = "arena") {
    return client_->ListShotVerdicts(scene, request).status();
  };
  absl::Status status = status_of({.filter = {.min_tick = 9, .max_tick = 3}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("filter.max_tick: "));
  status = status_of({.filter = {.outcome = static_cast<ShotOutcome>(77)}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("filter.outcome: "));
  status = status_of({.filter = {.reason = static_cast<ShotReason>(77)}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("filter.reason: "));
  for (const std::string token : {"abc", "0", "-1", "99"}) {
    status = status_of({.page_token = token});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << token;
    EXPECT_THAT(std::string(status.message()), StartsWith("page_token: "))
        << token;
  }
  for (const int size : {-1, 1001}) {
    status = status_of({.page_size = size});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << size;
    EXPECT_THAT(std::string(status.message()), StartsWith("page_size: "))
        << size;
  }
  status = status_of({}, "nowhere");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr("nowhere"));

  absl::StatusOr<std::unique_ptr<ShotVerdictStream>> watch =
      client_->WatchShotVerdicts("nowhere");
  ASSERT_TRUE(watch.ok()) << watch.status();
  EXPECT_FALSE((*watch)->Read().has_value());
  EXPECT_EQ((*watch)->Finish().code(), absl::StatusCode::kNotFound);
  watch = client_->WatchShotVerdicts("arena", 5);
  ASSERT_TRUE(watch.ok()) << watch.status();
  EXPECT_FALSE((*watch)->Read().has_value());
  status = (*watch)->Finish();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("from_sequence: "));
}

// The next record of `stream`, failing the test on a gap or the end.
std::optional<ShotVerdictRecord> NextRecord(ShotVerdictStream& stream) {
  std::optional<ShotVerdictEvent> event = stream.Read();
  if (!event.has_value()) {
    ADD_FAILURE() << "the watch ended: " << stream.Finish();
    return std::nullopt;
  }
  if (const auto* record = std::get_if<ShotVerdictRecord>(&*event)) {
    return *record;
  }
  ADD_FAILURE() << "a gap where a record was expected";
  return std::nullopt;
}

TEST_F(ShotAuditEndToEnd, WatchReceivesVerdictsInOrderAndEndsOnCancel) {
  ShootTarget(1, 2);
  // From a sequence still kept: the two recorded, then what comes.
  absl::StatusOr<std::unique_ptr<ShotVerdictStream>> watch =
      client_->WatchShotVerdicts("arena", 1);
  ASSERT_TRUE(watch.ok()) << watch.status();
  for (std::uint64_t id = 1; id <= 2; ++id) {
    std::optional<ShotVerdictRecord> record = NextRecord(**watch);
    ASSERT_TRUE(record.has_value());
    EXPECT_EQ(record->sequence, id);
    EXPECT_EQ(record->shot.shot_id, id);
  }
  for (std::uint64_t batch = 0; batch < 3; ++batch) {
    ShootTarget(3 + batch * 2, 2);
    for (std::uint64_t i = 0; i < 2; ++i) {
      std::optional<ShotVerdictRecord> record = NextRecord(**watch);
      ASSERT_TRUE(record.has_value());
      EXPECT_EQ(record->sequence, 3 + batch * 2 + i);
      EXPECT_EQ(record->shot.shot_id, 3 + batch * 2 + i);
      EXPECT_EQ(record->verdict.outcome, ShotOutcome::kHit);
    }
  }
  (*watch)->Cancel();
  EXPECT_FALSE((*watch)->Read().has_value());
  EXPECT_EQ((*watch)->Finish().code(), absl::StatusCode::kCancelled);
}

TEST_F(ShotAuditEndToEnd, ASubscriberThatFallsBehindIsToldHowManyItMissed) {
  // The watch starts at sequence 1 and reads nothing while 5000 verdicts
  // are recorded: far more than its buffer (4) and the ring (64), and more
  // bytes than the HTTP/2 windows hold.
  absl::StatusOr<std::unique_ptr<ShotVerdictStream>> watch =
      client_->WatchShotVerdicts("arena", 1);
  ASSERT_TRUE(watch.ok()) << watch.status();
  constexpr int kShots = 5000;
  for (int first = 1; first <= kShots; first += kMaxShots) {
    ShootTarget(static_cast<std::uint64_t>(first), kMaxShots);
  }
  std::uint64_t next = 1;
  std::uint64_t records = 0;
  std::uint64_t dropped = 0;
  int gaps = 0;
  for (int event_number = 0; event_number < kShots && next <= kShots;
       ++event_number) {
    std::optional<ShotVerdictEvent> event = (*watch)->Read();
    ASSERT_TRUE(event.has_value()) << (*watch)->Finish();
    if (const auto* gap = std::get_if<ShotVerdictGap>(&*event)) {
      EXPECT_EQ(gap->first_sequence, next);
      EXPECT_GT(gap->dropped, 0u);
      next += gap->dropped;
      dropped += gap->dropped;
      ++gaps;
    } else {
      const ShotVerdictRecord& record = std::get<ShotVerdictRecord>(*event);
      EXPECT_EQ(record.sequence, next);
      EXPECT_EQ(record.shot.shot_id, next);
      ++next;
      ++records;
    }
  }
  EXPECT_EQ(next, kShots + 1u);
  EXPECT_EQ(records + dropped, static_cast<std::uint64_t>(kShots));
  EXPECT_GE(gaps, 1);
  EXPECT_EQ(Metric("sator_shot_audit_dropped_total"),
            static_cast<double>(dropped));
  (*watch)->Cancel();
  while ((*watch)->Read().has_value()) {
  }
  (void)(*watch)->Finish();
}

TEST_F(ShotAuditEndToEnd, WatchEndsCleanlyWhenTheServerDrains) {
  absl::StatusOr<std::unique_ptr<ShotVerdictStream>> watch =
      client_->WatchShotVerdicts("arena", 1);
  ASSERT_TRUE(watch.ok()) << watch.status();
  // One record read: the watch is open on the server.
  ShootTarget(1, 1);
  ASSERT_TRUE(NextRecord(**watch).has_value());
  ASSERT_TRUE(satord_.Signal(SIGTERM).ok());
  EXPECT_FALSE((*watch)->Read().has_value());
  EXPECT_TRUE((*watch)->Finish().ok());
}

// Every verdict also in the data directory's JSON Lines files: 100 verdicts
// of about 400 bytes each through files of 4 KiB, 2 kept.
class ShotAuditFilesEndToEnd : public ShotAuditEndToEnd {
 protected:
  std::vector<std::string> ExtraFlags() override {
    data_dir_ = std::filesystem::path(::testing::TempDir()) /
                absl::StrCat("shot_audit_files_e2e_", ::getpid());
    std::filesystem::remove_all(data_dir_);
    return {absl::StrCat("--data_dir=", data_dir_.string()),
            "--shot_audit_files=2", "--shot_audit_file_bytes=4096"};
  }
  void TearDown() override { std::filesystem::remove_all(data_dir_); }

  std::filesystem::path data_dir_;
};

TEST_F(ShotAuditFilesEndToEnd, TheFilesHoldTheNewestVerdictsInOrder) {
  ShootTarget(1, 100);
  // The writer runs behind the queries; the drain writes what is left.
  ASSERT_TRUE(satord_.Signal(SIGTERM).ok());
  const absl::StatusOr<int> exit_code = satord_.WaitForExit(absl::Seconds(20));
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0) << satord_.ReadLog();
  const std::filesystem::path dir = data_dir_ / "shot_audit" / "scene-arena";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 2u) << "the oldest beyond 2 are removed";
  EXPECT_GT(files[0].filename().string(), "00000001.jsonl");
  std::uint64_t expected = 0;
  std::uint64_t lines = 0;
  for (const std::filesystem::path& file : files) {
    EXPECT_LE(std::filesystem::file_size(file), 4096u);
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      sator::v1::WatchShotVerdictsResponse event;
      ASSERT_TRUE(
          google::protobuf::util::JsonStringToMessage(line, &event).ok())
          << line;
      ASSERT_TRUE(event.has_record()) << line;
      if (expected != 0) {
        EXPECT_EQ(event.record().sequence(), expected);
      }
      expected = event.record().sequence() + 1;
      EXPECT_EQ(event.record().scene_id(), "arena");
      EXPECT_EQ(event.record().verdict().outcome(),
                sator::v1::SHOT_OUTCOME_HIT);
      EXPECT_EQ(event.record().shot().shot_id(), event.record().sequence());
      ++lines;
    }
  }
  EXPECT_EQ(expected, 101u);
  EXPECT_GT(lines, 4u);
  EXPECT_THAT(satord_.ReadLog(), Not(HasSubstr("shot_audit_file_error")));
}

TEST(ShotAuditFilesFlags, FilesWithoutADataDirectoryAreRefused) {
  SatordProcess satord;
  EXPECT_FALSE(satord.Start({"--shot_audit_files=2"}).ok());
  EXPECT_THAT(satord.ReadLog(),
              HasSubstr("--shot_audit_files: needs --data_dir"));
}

}  // namespace
}  // namespace sator
