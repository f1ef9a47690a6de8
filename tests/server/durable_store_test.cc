// The data directory store: snapshot plus later log on recovery, atomic
// snapshots (leftover temporary files, a damaged newest snapshot), compaction,
// the directory lock, unknown versions, damaged logs, and the consistency of
// snapshots taken while many threads log mutations.
#include "server/durability/durable_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "server/durability/crc32c.h"
#include "server/durability/file_io.h"
#include "server/durability/record_format.h"
#include "server/durability/snapshot_file.h"
#include "server/durability/wal_writer.h"

namespace sator::server::durability {
namespace {

// Removes the directories the tests made when the program ends.
class TempDirs : public ::testing::Environment {
 public:
  void TearDown() override {
    for (const std::string& dir : dirs_) std::filesystem::remove_all(dir);
  }
  std::string Make() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        absl::StrCat(base != nullptr ? base : "/tmp", "/sator_store_XXXXXX");
    EXPECT_NE(mkdtemp(pattern.data()), nullptr);
    dirs_.push_back(pattern);
    return pattern;
  }

 private:
  std::vector<std::string> dirs_;
};

TempDirs* const temp_dirs =
    dynamic_cast<TempDirs*>(::testing::AddGlobalTestEnvironment(new TempDirs));

std::string TempDir() { return temp_dirs->Make(); }

// What a recovery handed to the handlers.
struct Recovered {
  std::vector<std::string> scenes;
  std::vector<std::pair<RecordType, std::string>> records;
  RecoveryReport report;
  std::unique_ptr<DurableStore> store;
};

Recovered OpenAndRecover(const std::string& dir, int snapshots_kept = 2,
                         absl::Status record_result = absl::OkStatus()) {
  Recovered recovered;
  DurableStoreOptions options;
  options.dir = dir;
  options.snapshots_kept = snapshots_kept;
  absl::StatusOr<std::unique_ptr<DurableStore>> store = DurableStore::Open(
      options,
      [&](absl::string_view scene) {
        recovered.scenes.emplace_back(scene);
        return absl::OkStatus();
      },
      [&](RecordType type, absl::string_view payload) {
        recovered.records.emplace_back(type, std::string(payload));
        return record_result;
      },
      &recovered.report);
  EXPECT_TRUE(store.ok()) << store.status();
  if (store.ok()) recovered.store = *std::move(store);
  return recovered;
}

void LogOne(DurableStore& store, RecordType type, const std::string& payload) {
  DurableStore::MutationScope scope(store);
  ASSERT_TRUE(store.LogMutation(type, payload).ok());
}

DurableStore::Capture CaptureOf(std::vector<std::string> scenes) {
  return [scenes = std::move(scenes)] {
    std::vector<DurableStore::SceneSerializer> serializers;
    for (const std::string& scene : scenes) {
      serializers.push_back(
          [scene]() -> absl::StatusOr<std::string> { return scene; });
    }
    return serializers;
  };
}

std::vector<std::string> FilesMatching(const std::string& dir,
                                       absl::string_view prefix) {
  std::vector<std::string> matching;
  const absl::StatusOr<std::vector<std::string>> names = ListFiles(dir);
  EXPECT_TRUE(names.ok()) << names.status();
  if (!names.ok()) return matching;
  for (const std::string& name : *names) {
    if (absl::StartsWith(name, prefix)) matching.push_back(name);
  }
  return matching;
}

std::string OnlySegmentWithRecords(const std::string& dir) {
  std::string found;
  for (const std::string& name : FilesMatching(dir, "wal-")) {
    if (std::filesystem::file_size(dir + "/" + name) > kFileHeaderBytes) {
      EXPECT_TRUE(found.empty()) << "more than one segment with records";
      found = dir + "/" + name;
    }
  }
  return found;
}

TEST(DurableStore, EmptyDirectoryRecoversNothingAndLogsFromOne) {
  const std::string dir = TempDir() + "/nested/data";
  Recovered recovered = OpenAndRecover(dir);
  ASSERT_NE(recovered.store, nullptr);
  EXPECT_FALSE(recovered.report.snapshot_found);
  EXPECT_TRUE(recovered.scenes.empty());
  EXPECT_TRUE(recovered.records.empty());
  EXPECT_EQ(recovered.report.next_lsn, 1u);
  LogOne(*recovered.store, RecordType::kCreateScene, "a");
  EXPECT_EQ(recovered.store->wal().last_lsn(), 1u);
}

TEST(DurableStore, RecoversNewestSnapshotThenTheLogAfterIt) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    LogOne(*first.store, RecordType::kCreateScene, "create a");
    LogOne(*first.store, RecordType::kUpsertBodies, "upsert a");
    ASSERT_TRUE(first.store->WriteSnapshot(CaptureOf({"A1", "B1"})).ok());
    LogOne(*first.store, RecordType::kRemoveBodies, "remove a");
    LogOne(*first.store, RecordType::kDeleteScene, "delete b");
  }
  Recovered second = OpenAndRecover(dir);
  EXPECT_TRUE(second.report.snapshot_found);
  EXPECT_EQ(second.report.snapshot_lsn, 2u);
  EXPECT_EQ(second.scenes, (std::vector<std::string>{"A1", "B1"}));
  ASSERT_EQ(second.records.size(), 2u);
  EXPECT_EQ(second.records[0].first, RecordType::kRemoveBodies);
  EXPECT_EQ(second.records[0].second, "remove a");
  EXPECT_EQ(second.records[1].first, RecordType::kDeleteScene);
  EXPECT_EQ(second.records[1].second, "delete b");
  EXPECT_EQ(second.report.next_lsn, 5u);
  EXPECT_EQ(second.report.damaged_regions, 0u);
  // New records continue the sequence.
  LogOne(*second.store, RecordType::kCreateScene, "create c");
  EXPECT_EQ(second.store->wal().last_lsn(), 5u);
}

// The statistics behind sator_snapshot_*: written and failed snapshots, the
// newest one's scene bytes and time.
TEST(DurableStore, SnapshotStatsCountWrittenAndFailedSnapshots) {
  const std::string dir = TempDir();
  Recovered recovered = OpenAndRecover(dir);
  ASSERT_NE(recovered.store, nullptr);
  DurableStore& store = *recovered.store;
  EXPECT_EQ(store.snapshot_stats().written, 0u);
  EXPECT_EQ(store.snapshot_stats().last_written_unix_seconds, 0.0);

  LogOne(store, RecordType::kCreateScene, "a");
  const double before = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
  ASSERT_TRUE(store.WriteSnapshot(CaptureOf({"12345", "1234567"})).ok());
  SnapshotStats stats = store.snapshot_stats();
  EXPECT_EQ(stats.written, 1u);
  EXPECT_EQ(stats.failed, 0u);
  EXPECT_EQ(stats.last_bytes, 12u);
  EXPECT_GE(stats.last_written_unix_seconds, before);
  EXPECT_EQ(stats.seconds.count(), 1u);

  // A scene that cannot be serialized fails the snapshot: counted, and the
  // newest good one's figures stay.
  const DurableStore::Capture failing = [] {
    std::vector<DurableStore::SceneSerializer> serializers;
    serializers.push_back([]() -> absl::StatusOr<std::string> {
      return absl::InternalError("cannot serialize");
    });
    return serializers;
  };
  EXPECT_FALSE(store.WriteSnapshot(failing).ok());
  stats = store.snapshot_stats();
  EXPECT_EQ(stats.written, 1u);
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.last_bytes, 12u);
  EXPECT_EQ(stats.seconds.count(), 1u);
  EXPECT_EQ(store.snapshots_written(), 1u);
}

TEST(DurableStore, SnapshotWithNoLogChangeReplacesTheSameLsn) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    LogOne(*first.store, RecordType::kCreateScene, "create a");
    ASSERT_TRUE(first.store->WriteSnapshot(CaptureOf({"poses 1"})).ok());
    // Poses changed, the log did not: the snapshot at LSN 1 is replaced.
    ASSERT_TRUE(first.store->WriteSnapshot(CaptureOf({"poses 2"})).ok());
  }
  EXPECT_EQ(FilesMatching(dir, "snapshot-").size(), 1u);
  Recovered second = OpenAndRecover(dir);
  EXPECT_EQ(second.scenes, std::vector<std::string>{"poses 2"});
  EXPECT_TRUE(second.records.empty());
}

TEST(DurableStore, LeftoverTemporarySnapshotIsIgnoredAndRemoved) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    LogOne(*first.store, RecordType::kCreateScene, "create a");
    ASSERT_TRUE(first.store->WriteSnapshot(CaptureOf({"A"})).ok());
    LogOne(*first.store, RecordType::kUpsertBodies, "upsert a");
  }
  // A crash in the middle of writing the next snapshot leaves its .tmp.
  {
    std::ofstream partial(dir + "/" + SnapshotFileName(2) + ".tmp",
                          std::ios::binary);
    partial << "SATORSNP half a snapshot";
  }
  Recovered second = OpenAndRecover(dir);
  EXPECT_EQ(second.scenes, std::vector<std::string>{"A"});
  ASSERT_EQ(second.records.size(), 1u);
  EXPECT_EQ(second.records[0].second, "upsert a");
  EXPECT_TRUE(FilesMatching(dir, SnapshotFileName(2)).empty());
}

TEST(DurableStore, DamagedNewestSnapshotFallsBackToTheOlderOne) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    LogOne(*first.store, RecordType::kCreateScene, "create a");
    ASSERT_TRUE(first.store->WriteSnapshot(CaptureOf({"A at 1"})).ok());
    LogOne(*first.store, RecordType::kUpsertBodies, "upsert a");
    ASSERT_TRUE(first.store->WriteSnapshot(CaptureOf({"A at 2"})).ok());
    LogOne(*first.store, RecordType::kRemoveBodies, "remove a");
  }
  // Truncate the newest snapshot (as a disk might lose its tail).
  const std::string newest = dir + "/" + SnapshotFileName(2);
  std::filesystem::resize_file(newest, std::filesystem::file_size(newest) - 5);
  Recovered second = OpenAndRecover(dir);
  EXPECT_EQ(second.report.snapshots_rejected, 1u);
  EXPECT_EQ(second.report.snapshot_lsn, 1u);
  EXPECT_EQ(second.scenes, std::vector<std::string>{"A at 1"});
  ASSERT_EQ(second.records.size(), 2u);
  EXPECT_EQ(second.records[0].second, "upsert a");
  EXPECT_EQ(second.records[1].second, "remove a");
}

TEST(DurableStore, CompactionKeepsTwoSnapshotsAndTheLogTheyNeed) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    for (int round = 1; round <= 4; ++round) {
      LogOne(*first.store, RecordType::kUpsertBodies,
             absl::StrCat("upsert ", round));
      ASSERT_TRUE(
          first.store->WriteSnapshot(CaptureOf({absl::StrCat("state ", round)}))
              .ok());
    }
    LogOne(*first.store, RecordType::kUpsertBodies, "upsert 5");
    EXPECT_EQ(first.store->snapshots_written(), 4u);
  }
  EXPECT_EQ(
      FilesMatching(dir, "snapshot-"),
      (std::vector<std::string>{SnapshotFileName(3), SnapshotFileName(4)}));
  // Segments before the older snapshot kept (LSN 3) are gone: what is left
  // starts at LSN 4 (the record after snapshot 3) or later.
  for (const std::string& name : FilesMatching(dir, "wal-")) {
    std::uint64_t first_lsn = 0;
    ASSERT_TRUE(ParseWalSegmentName(name, &first_lsn));
    EXPECT_GE(first_lsn, 4u) << name;
  }
  Recovered second = OpenAndRecover(dir);
  EXPECT_EQ(second.scenes, std::vector<std::string>{"state 4"});
  ASSERT_EQ(second.records.size(), 1u);
  EXPECT_EQ(second.records[0].second, "upsert 5");
}

TEST(DurableStore, SecondOpenOfALockedDirectoryIsRefused) {
  const std::string dir = TempDir();
  Recovered first = OpenAndRecover(dir);
  DurableStoreOptions options;
  options.dir = dir;
  auto ignore_scene = [](absl::string_view) { return absl::OkStatus(); };
  auto ignore_record = [](RecordType, absl::string_view) {
    return absl::OkStatus();
  };
  absl::StatusOr<std::unique_ptr<DurableStore>> second =
      DurableStore::Open(options, ignore_scene, ignore_record);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition)
      << second.status();
  first.store.reset();
  EXPECT_TRUE(DurableStore::Open(options, ignore_scene, ignore_record).ok());
}

TEST(DurableStore, SegmentOfUnknownVersionRefusesToStart) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    LogOne(*first.store, RecordType::kCreateScene, "a");
  }
  // Rewrite the header as version 2, with a valid checksum.
  const std::string path = OnlySegmentWithRecords(dir);
  std::string bytes = *ReadWholeFile(path);
  bytes[8] = 2;
  std::string header = bytes.substr(0, 12);
  const std::uint32_t crc = Crc32c(header);
  for (int i = 0; i < 4; ++i) {
    bytes[12 + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  DurableStoreOptions options;
  options.dir = dir;
  absl::StatusOr<std::unique_ptr<DurableStore>> store = DurableStore::Open(
      options, [](absl::string_view) { return absl::OkStatus(); },
      [](RecordType, absl::string_view) { return absl::OkStatus(); });
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("version 2"), std::string::npos)
      << store.status();
}

TEST(DurableStore, DamagedSegmentHeaderStillYieldsItsRecords) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    LogOne(*first.store, RecordType::kCreateScene, "a");
    LogOne(*first.store, RecordType::kCreateScene, "b");
  }
  const std::string path = OnlySegmentWithRecords(dir);
  std::string bytes = *ReadWholeFile(path);
  bytes[0] = 'X';  // Magic damaged: the header fails its checks.
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  Recovered second = OpenAndRecover(dir);
  ASSERT_EQ(second.records.size(), 2u);
  EXPECT_EQ(second.records[1].second, "b");
}

TEST(DurableStore, CorruptMiddleRecordIsSkippedAndLaterRecordsReplayed) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    for (int i = 1; i <= 5; ++i) {
      LogOne(*first.store, RecordType::kUpsertBodies,
             absl::StrCat("record ", i, " ", std::string(40, 'p')));
    }
  }
  const std::string path = OnlySegmentWithRecords(dir);
  std::string bytes = *ReadWholeFile(path);
  const std::size_t record_bytes = kRecordHeaderBytes + 49;
  // The third record's payload.
  bytes[kFileHeaderBytes + 2 * record_bytes + kRecordHeaderBytes + 3] ^= 0x01;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  Recovered second = OpenAndRecover(dir);
  ASSERT_EQ(second.records.size(), 4u);
  EXPECT_EQ(second.records[1].second.substr(0, 8), "record 2");
  EXPECT_EQ(second.records[2].second.substr(0, 8), "record 4");
  EXPECT_EQ(second.records[3].second.substr(0, 8), "record 5");
  EXPECT_EQ(second.report.damaged_regions, 1u);
  EXPECT_EQ(second.report.damaged_bytes, record_bytes);
  EXPECT_EQ(second.report.next_lsn, 6u);
  // Record 3 was acknowledged: its loss is a gap.
  EXPECT_EQ(second.report.records_lost, 1u);
}

TEST(DurableStore, TruncatedTailKeepsEarlierRecordsAndLoggingGoesOn) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    for (int i = 1; i <= 3; ++i) {
      LogOne(*first.store, RecordType::kUpsertBodies, absl::StrCat("r", i));
    }
  }
  const std::string path = OnlySegmentWithRecords(dir);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 1);
  {
    Recovered second = OpenAndRecover(dir);
    ASSERT_EQ(second.records.size(), 2u);
    EXPECT_EQ(second.report.damaged_regions, 1u);
    EXPECT_EQ(second.report.next_lsn, 3u);
    LogOne(*second.store, RecordType::kUpsertBodies, "r3 again");
  }
  Recovered third = OpenAndRecover(dir);
  ASSERT_EQ(third.records.size(), 3u);
  EXPECT_EQ(third.records[2].second, "r3 again");
}

// ---- continuity: what recovery should have found ---------------------------

// Two runs on one directory: the first logs records 1 to 5 (in
// wal-...01.log), the second 6 to 8 (in wal-...06.log); the path of the first
// run's segment is returned.
std::string TwoRunsOfRecords(const std::string& dir) {
  {
    Recovered first = OpenAndRecover(dir);
    for (int i = 1; i <= 5; ++i) {
      LogOne(*first.store, RecordType::kUpsertBodies, absl::StrCat("r", i));
    }
  }
  {
    Recovered second = OpenAndRecover(dir);
    for (int i = 6; i <= 8; ++i) {
      LogOne(*second.store, RecordType::kUpsertBodies, absl::StrCat("r", i));
    }
  }
  return dir + "/" + WalSegmentName(1);
}

// The offsets of the records of a segment file.
std::vector<std::size_t> RecordOffsets(const std::string& path) {
  std::vector<std::size_t> offsets;
  const std::string bytes = *ReadWholeFile(path);
  ParseRecords(
      absl::string_view(bytes).substr(kFileHeaderBytes),
      [&](const Record& record) {
        offsets.push_back(kFileHeaderBytes + record.offset);
      },
      [](const DamagedRegion&) {});
  return offsets;
}

void ExpectOneGap(const RecoveryReport& report, std::uint64_t first,
                  std::uint64_t last, const std::string& reason,
                  const std::string& file) {
  EXPECT_EQ(report.records_lost, last - first + 1);
  ASSERT_EQ(report.gaps.size(), 1u);
  EXPECT_EQ(report.gaps[0].first_lsn, first);
  EXPECT_EQ(report.gaps[0].last_lsn, last);
  EXPECT_EQ(report.gaps[0].reason, reason);
  EXPECT_EQ(report.gaps[0].file, file);
}

TEST(DurableStore, WholeLogHasNoGap) {
  const std::string dir = TempDir();
  TwoRunsOfRecords(dir);
  Recovered third = OpenAndRecover(dir);
  EXPECT_EQ(third.records.size(), 8u);
  EXPECT_EQ(third.report.records_lost, 0u);
  EXPECT_TRUE(third.report.gaps.empty());
}

// Records 4 and 5 cut off at a record boundary: no damaged byte, but the
// next segment's name says the log reached 5.
TEST(DurableStore, LogCutAtARecordBoundaryIsAGap) {
  const std::string dir = TempDir();
  const std::string segment = TwoRunsOfRecords(dir);
  const std::vector<std::size_t> offsets = RecordOffsets(segment);
  ASSERT_EQ(offsets.size(), 5u);
  std::filesystem::resize_file(segment, offsets[3]);
  Recovered third = OpenAndRecover(dir);
  EXPECT_EQ(third.records.size(), 6u);
  EXPECT_EQ(third.report.damaged_regions, 0u);
  ExpectOneGap(third.report, 4, 5, "before_segment", WalSegmentName(6));
  EXPECT_EQ(third.report.next_lsn, 9u);
}

TEST(DurableStore, LogCutToItsHeaderIsAGap) {
  const std::string dir = TempDir();
  const std::string segment = TwoRunsOfRecords(dir);
  std::filesystem::resize_file(segment, kFileHeaderBytes);
  Recovered third = OpenAndRecover(dir);
  EXPECT_EQ(third.records.size(), 3u);
  ExpectOneGap(third.report, 1, 5, "before_segment", WalSegmentName(6));
}

// The newest segment holding records deleted: the segment a later start
// opened (still empty) names the records it followed.
TEST(DurableStore, LastSegmentWithRecordsDeletedIsAGap) {
  const std::string dir = TempDir();
  TwoRunsOfRecords(dir);
  { Recovered third = OpenAndRecover(dir); }  // Opens wal-9, writes nothing.
  std::filesystem::remove(dir + "/" + WalSegmentName(6));
  Recovered fourth = OpenAndRecover(dir);
  EXPECT_EQ(fourth.records.size(), 5u);
  ExpectOneGap(fourth.report, 6, 8, "before_segment", WalSegmentName(9));
}

// Record 3 spliced out whole (its bytes removed): the records around it
// parse cleanly, and the jump from 2 to 4 is the gap.
TEST(DurableStore, RecordSplicedOutIsAGap) {
  const std::string dir = TempDir();
  const std::string segment = TwoRunsOfRecords(dir);
  const std::vector<std::size_t> offsets = RecordOffsets(segment);
  ASSERT_EQ(offsets.size(), 5u);
  std::string bytes = *ReadWholeFile(segment);
  bytes.erase(offsets[2], offsets[3] - offsets[2]);
  std::ofstream(segment, std::ios::binary | std::ios::trunc) << bytes;
  Recovered third = OpenAndRecover(dir);
  EXPECT_EQ(third.records.size(), 7u);
  EXPECT_EQ(third.report.damaged_regions, 0u);
  ExpectOneGap(third.report, 3, 3, "inside_segment", WalSegmentName(1));
}

// The log after the older snapshot must reach the LSN the newer, damaged
// one names, even with every segment after the older snapshot gone.
TEST(DurableStore, LogEndingBeforeADamagedSnapshotsLsnIsAGap) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    LogOne(*first.store, RecordType::kCreateScene, "create a");
    ASSERT_TRUE(first.store->WriteSnapshot(CaptureOf({"A at 1"})).ok());
    LogOne(*first.store, RecordType::kUpsertBodies, "upsert a");
    LogOne(*first.store, RecordType::kUpsertBodies, "upsert b");
    ASSERT_TRUE(first.store->WriteSnapshot(CaptureOf({"A at 3"})).ok());
  }
  const std::string newest = dir + "/" + SnapshotFileName(3);
  std::filesystem::resize_file(newest, std::filesystem::file_size(newest) - 5);
  for (const std::string& name : FilesMatching(dir, "wal-")) {
    std::filesystem::remove(dir + "/" + name);
  }
  Recovered second = OpenAndRecover(dir);
  EXPECT_EQ(second.report.snapshot_lsn, 1u);
  EXPECT_EQ(second.report.snapshots_rejected, 1u);
  ExpectOneGap(second.report, 2, 3, "after_log", SnapshotFileName(3));
  // New records never reuse a number a file names.
  EXPECT_EQ(second.report.next_lsn, 4u);
}

// Both snapshots damaged: recovery starts from LSN 1, and the log, compacted
// up to the older snapshot, does not reach back that far.
TEST(DurableStore, BothSnapshotsDamagedIsAGapFromTheFirstRecord) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    LogOne(*first.store, RecordType::kCreateScene, "create a");
    ASSERT_TRUE(first.store->WriteSnapshot(CaptureOf({"A at 1"})).ok());
    LogOne(*first.store, RecordType::kUpsertBodies, "upsert a");
    ASSERT_TRUE(first.store->WriteSnapshot(CaptureOf({"A at 2"})).ok());
    LogOne(*first.store, RecordType::kUpsertBodies, "upsert b");
  }
  ASSERT_FALSE(std::filesystem::exists(dir + "/" + WalSegmentName(1)));
  for (const std::uint64_t lsn : {1u, 2u}) {
    const std::string path = dir + "/" + SnapshotFileName(lsn);
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 5);
  }
  Recovered second = OpenAndRecover(dir);
  EXPECT_FALSE(second.report.snapshot_found);
  EXPECT_EQ(second.report.snapshots_rejected, 2u);
  ExpectOneGap(second.report, 1, 1, "before_segment", WalSegmentName(2));
}

TEST(DurableStore, HandlerErrorsAreCountedNotFatal) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    LogOne(*first.store, RecordType::kCreateScene, "a");
    LogOne(*first.store, RecordType::kCreateScene, "b");
  }
  Recovered second =
      OpenAndRecover(dir, 2, absl::AlreadyExistsError("scene exists"));
  EXPECT_EQ(second.records.size(), 2u);
  EXPECT_EQ(second.report.records_failed, 2u);
  EXPECT_EQ(second.report.records_replayed, 0u);
}

TEST(DurableStore, RefusalRecordsExplainRefusalsOnReplay) {
  const std::string dir = TempDir();
  {
    Recovered first = OpenAndRecover(dir);
    DurableStore::MutationScope scope(*first.store);
    absl::StatusOr<std::uint64_t> refused =
        first.store->LogMutation(RecordType::kRemoveBodies, "unknown body");
    ASSERT_TRUE(refused.ok());
    ASSERT_TRUE(first.store->LogRefusal(*refused).ok());
    ASSERT_TRUE(
        first.store->LogMutation(RecordType::kRemoveBodies, "refused later")
            .ok());
  }
  // The handler refuses both: the first as expected, the second not.
  Recovered second =
      OpenAndRecover(dir, 2, absl::NotFoundError("body not found"));
  EXPECT_EQ(second.records.size(), 2u);  // The refusal is not handed out.
  EXPECT_EQ(second.report.records_refused, 1u);
  EXPECT_EQ(second.report.records_failed, 1u);
  EXPECT_EQ(second.report.next_lsn, 4u);
}

// Many threads log "key=value" mutations and apply them to a map inside
// their MutationScope while another thread snapshots the map. Whatever the
// interleaving, recovery (the newest snapshot plus the log after it) must
// rebuild exactly the final map: no mutation lost, none applied twice out of
// order.
TEST(DurableStore, SnapshotsTakenDuringConcurrentMutationsRecoverExactly) {
  const std::string dir = TempDir();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 25;
  std::map<std::string, std::string> final_state;
  {
    Recovered first = OpenAndRecover(dir);
    DurableStore& store = *first.store;
    std::mutex state_mutex;
    std::map<std::string, std::string> state;
    // One writer per key at a time, across log and apply, as satord holds a
    // scene's write lock across both: without it two threads could log in
    // one order and apply in the other, and no store could recover that.
    std::array<std::mutex, 10> key_mutexes;
    std::atomic<int> mutators_left{kThreads};
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          // Keys shared between threads, so order matters.
          const int key_index = (t + i) % 10;
          const std::string key = absl::StrCat("k", key_index);
          const std::string value = absl::StrCat(t, ".", i);
          std::lock_guard<std::mutex> key_lock(
              key_mutexes[static_cast<std::size_t>(key_index)]);
          DurableStore::MutationScope scope(store);
          if (!store
                   .LogMutation(RecordType::kUpsertBodies,
                                absl::StrCat(key, "=", value))
                   .ok()) {
            failures.fetch_add(1);
            return;
          }
          std::lock_guard<std::mutex> lock(state_mutex);
          state[key] = value;
        }
        mutators_left.fetch_sub(1);
      });
    }
    int snapshots = 0;
    std::thread snapshotter([&] {
      // Bounded: at most 50 snapshots, ending when the mutators end.
      while (mutators_left.load() > 0 && snapshots < 50) {
        absl::Status written = store.WriteSnapshot([&] {
          std::vector<DurableStore::SceneSerializer> serializers;
          std::lock_guard<std::mutex> lock(state_mutex);
          for (const auto& [key, value] : state) {
            serializers.push_back(
                [entry = absl::StrCat(key, "=", value)]()
                    -> absl::StatusOr<std::string> { return entry; });
          }
          return serializers;
        });
        if (!written.ok()) failures.fetch_add(1);
        ++snapshots;
      }
    });
    for (std::thread& thread : threads) thread.join();
    snapshotter.join();
    ASSERT_EQ(failures.load(), 0);
    EXPECT_GT(snapshots, 0);
    final_state = state;
  }
  Recovered second = OpenAndRecover(dir);
  std::map<std::string, std::string> rebuilt;
  auto apply = [&rebuilt](const std::string& entry) {
    std::vector<std::string> parts = absl::StrSplit(entry, '=');
    ASSERT_EQ(parts.size(), 2u);
    rebuilt[parts[0]] = parts[1];
  };
  for (const std::string& scene : second.scenes) apply(scene);
  for (const auto& [type, payload] : second.records) apply(payload);
  EXPECT_EQ(rebuilt, final_state);
  EXPECT_EQ(second.report.damaged_regions, 0u);
}

}  // namespace
}  // namespace sator::server::durability
