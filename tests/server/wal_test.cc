// The write-ahead log: CRC-32C vectors, record framing round trip, the
// resynchronising reader (truncated tail, corrupt middle record, bad header,
// garbage), segment files and group commit under many threads.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/durability/crc32c.h"
#include "server/durability/durability_stats.h"
#include "server/durability/file_io.h"
#include "server/durability/record_format.h"
#include "server/durability/wal_writer.h"

namespace sator::server::durability {
namespace {

std::string TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr ? base : "/tmp", "/sator_wal_XXXXXX");
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  return pattern;
}

struct Parsed {
  std::vector<std::uint64_t> lsns;
  std::vector<std::string> payloads;
  std::vector<DamagedRegion> damage;
};

Parsed Parse(absl::string_view bytes) {
  Parsed parsed;
  ParseRecords(
      bytes,
      [&](const Record& record) {
        parsed.lsns.push_back(record.lsn);
        parsed.payloads.emplace_back(record.payload);
      },
      [&](const DamagedRegion& damage) { parsed.damage.push_back(damage); });
  return parsed;
}

// Records 1..n with payloads "payload-<i>" repeated i times.
std::string MakeRecords(int n, std::vector<std::size_t>* offsets = nullptr) {
  std::string bytes;
  for (int i = 1; i <= n; ++i) {
    if (offsets != nullptr) offsets->push_back(bytes.size());
    std::string payload;
    for (int k = 0; k < i; ++k) absl::StrAppend(&payload, "payload-", i);
    AppendRecord(&bytes, RecordType::kUpsertBodies,
                 static_cast<std::uint64_t>(i), payload);
  }
  return bytes;
}

TEST(Crc32c, MatchesRfc3720TestVectors) {
  // RFC 3720, appendix B.4, and the usual check value of "123456789".
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xFF')), 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(Crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
}

TEST(Crc32c, ExtendsAcrossPieces) {
  const std::string text = "write-ahead log record";
  const std::uint32_t first = ExtendCrc32c(0, text.data(), 7);
  EXPECT_EQ(ExtendCrc32c(first, text.data() + 7, text.size() - 7),
            Crc32c(text));
}

TEST(RecordFormat, RoundTripsEveryRecord) {
  const std::string bytes = MakeRecords(50);
  const Parsed parsed = Parse(bytes);
  ASSERT_EQ(parsed.lsns.size(), 50u);
  EXPECT_TRUE(parsed.damage.empty());
  for (int i = 1; i <= 50; ++i) {
    EXPECT_EQ(parsed.lsns[i - 1], static_cast<std::uint64_t>(i));
    EXPECT_EQ(parsed.payloads[i - 1].size(),
              static_cast<std::size_t>(i) * absl::StrCat("payload-", i).size());
  }
}

TEST(RecordFormat, EmptyPayloadRoundTrips) {
  std::string bytes;
  AppendRecord(&bytes, RecordType::kDeleteScene, 7, "");
  const Parsed parsed = Parse(bytes);
  ASSERT_EQ(parsed.lsns, std::vector<std::uint64_t>{7});
  EXPECT_EQ(parsed.payloads[0], "");
}

TEST(RecordFormat, TruncatedTailKeepsEveryWholeRecord) {
  std::vector<std::size_t> offsets;
  const std::string bytes = MakeRecords(10, &offsets);
  // Cut inside the last record's header and inside its payload.
  for (std::size_t cut : {offsets[9] + 3, offsets[9] + kRecordHeaderBytes + 2,
                          bytes.size() - 1}) {
    const Parsed parsed = Parse(absl::string_view(bytes).substr(0, cut));
    ASSERT_EQ(parsed.lsns.size(), 9u) << "cut at " << cut;
    EXPECT_EQ(parsed.lsns.back(), 9u);
    ASSERT_EQ(parsed.damage.size(), 1u);
    EXPECT_EQ(parsed.damage[0].offset, offsets[9]);
    EXPECT_EQ(parsed.damage[0].bytes, cut - offsets[9]);
    EXPECT_TRUE(parsed.damage[0].at_tail);
  }
}

TEST(RecordFormat, CorruptMiddleRecordIsSkippedAndLaterOnesKept) {
  std::vector<std::size_t> offsets;
  const std::string clean = MakeRecords(10, &offsets);
  // One flipped bit in the payload, in the length, in the header checksum,
  // in the LSN.
  for (std::size_t flip : {offsets[4] + kRecordHeaderBytes + 5, offsets[4] + 4,
                           offsets[4] + 1, offsets[4] + 10}) {
    std::string bytes = clean;
    bytes[flip] = static_cast<char>(bytes[flip] ^ 0x10);
    const Parsed parsed = Parse(bytes);
    EXPECT_EQ(parsed.lsns,
              (std::vector<std::uint64_t>{1, 2, 3, 4, 6, 7, 8, 9, 10}))
        << "flip at " << flip;
    ASSERT_EQ(parsed.damage.size(), 1u);
    EXPECT_EQ(parsed.damage[0].offset, offsets[4]);
    EXPECT_EQ(parsed.damage[0].bytes, offsets[5] - offsets[4]);
    EXPECT_FALSE(parsed.damage[0].at_tail);
  }
}

TEST(RecordFormat, GarbageBetweenRecordsIsSkipped) {
  std::vector<std::size_t> offsets;
  const std::string clean = MakeRecords(4, &offsets);
  std::string bytes = clean.substr(0, offsets[2]);
  bytes += std::string(1000, '\x5A');
  bytes += clean.substr(offsets[2]);
  const Parsed parsed = Parse(bytes);
  EXPECT_EQ(parsed.lsns, (std::vector<std::uint64_t>{1, 2, 3, 4}));
  ASSERT_EQ(parsed.damage.size(), 1u);
  EXPECT_EQ(parsed.damage[0].bytes, 1000u);
}

TEST(RecordFormat, ZeroFilledTailIsDamageNotRecords) {
  // What a file system may leave after a crash: the size grew, the data not.
  std::string bytes = MakeRecords(3);
  bytes += std::string(4096, '\0');
  const Parsed parsed = Parse(bytes);
  EXPECT_EQ(parsed.lsns.size(), 3u);
  ASSERT_EQ(parsed.damage.size(), 1u);
  EXPECT_TRUE(parsed.damage[0].at_tail);
}

TEST(RecordFormat, FileHeaderChecks) {
  const std::string wal = EncodeFileHeader(FileKind::kWalSegment);
  ASSERT_EQ(wal.size(), kFileHeaderBytes);
  EXPECT_TRUE(CheckFileHeader(wal, FileKind::kWalSegment).ok());
  EXPECT_EQ(CheckFileHeader(wal, FileKind::kSnapshot).code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(CheckFileHeader(wal.substr(0, 10), FileKind::kWalSegment).code(),
            absl::StatusCode::kDataLoss);
  std::string flipped = wal;
  flipped[13] = static_cast<char>(flipped[13] ^ 1);
  EXPECT_EQ(CheckFileHeader(flipped, FileKind::kWalSegment).code(),
            absl::StatusCode::kDataLoss);
  // A valid header of another version says "version".
  std::string version2 = wal.substr(0, 8);
  version2 += std::string("\x02\0\0\0", 4);
  const std::uint32_t crc = Crc32c(version2);
  for (int i = 0; i < 4; ++i) {
    version2.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
  }
  const absl::Status status = CheckFileHeader(version2, FileKind::kWalSegment);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(status.message().find("version 2"), std::string::npos)
      << status.message();
}

TEST(WalSegmentName, RoundTrips) {
  EXPECT_EQ(WalSegmentName(42), "wal-00000000000000000042.log");
  std::uint64_t lsn = 0;
  EXPECT_TRUE(ParseWalSegmentName("wal-00000000000000000042.log", &lsn));
  EXPECT_EQ(lsn, 42u);
  EXPECT_FALSE(ParseWalSegmentName("wal-42.log", &lsn));
  EXPECT_FALSE(ParseWalSegmentName("wal-0000000000000000004x.log", &lsn));
  EXPECT_FALSE(ParseWalSegmentName("wal-00000000000000000042.log.tmp", &lsn));
}

// Every record of every segment in `dir`, in name order.
std::vector<std::uint64_t> ReadAllLsns(const std::string& dir,
                                       std::size_t* segments = nullptr) {
  std::vector<std::uint64_t> lsns;
  absl::StatusOr<std::vector<std::string>> names = ListFiles(dir);
  EXPECT_TRUE(names.ok());
  std::size_t count = 0;
  for (const std::string& name : *names) {
    std::uint64_t first = 0;
    if (!ParseWalSegmentName(name, &first)) continue;
    ++count;
    absl::StatusOr<std::string> bytes = ReadWholeFile(dir + "/" + name);
    EXPECT_TRUE(bytes.ok());
    EXPECT_TRUE(CheckFileHeader(*bytes, FileKind::kWalSegment).ok()) << name;
    const Parsed parsed = Parse(absl::string_view(*bytes).substr(16));
    EXPECT_TRUE(parsed.damage.empty()) << name;
    if (!parsed.lsns.empty()) {
      EXPECT_EQ(parsed.lsns.front(), first) << name;
    }
    lsns.insert(lsns.end(), parsed.lsns.begin(), parsed.lsns.end());
  }
  if (segments != nullptr) *segments = count;
  return lsns;
}

TEST(WalWriter, AppendsDurableRecordsInLsnOrder) {
  const std::string dir = TempDir();
  {
    absl::StatusOr<std::unique_ptr<WalWriter>> wal = WalWriter::Open(dir, 5);
    ASSERT_TRUE(wal.ok()) << wal.status();
    for (int i = 0; i < 20; ++i) {
      absl::StatusOr<std::uint64_t> lsn =
          (*wal)->Append(RecordType::kCreateScene, absl::StrCat("scene-", i));
      ASSERT_TRUE(lsn.ok()) << lsn.status();
      EXPECT_EQ(*lsn, 5u + static_cast<std::uint64_t>(i));
    }
    EXPECT_EQ((*wal)->last_lsn(), 24u);
    // Sequential appends: one sync each.
    EXPECT_EQ((*wal)->syncs(), 20u);
  }
  std::vector<std::uint64_t> expected;
  for (std::uint64_t lsn = 5; lsn < 25; ++lsn) expected.push_back(lsn);
  EXPECT_EQ(ReadAllLsns(dir), expected);
  std::filesystem::remove_all(dir);
}

TEST(WalWriter, RotatesBySizeAndOnRequest) {
  const std::string dir = TempDir();
  {
    WalWriterOptions options;
    options.segment_bytes = 100;  // Less than one record: one per segment.
    absl::StatusOr<std::unique_ptr<WalWriter>> wal =
        WalWriter::Open(dir, 1, options);
    ASSERT_TRUE(wal.ok()) << wal.status();
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE((*wal)
                      ->Append(RecordType::kUpsertBodies, std::string(100, 'x'))
                      .ok());
    }
    absl::StatusOr<std::uint64_t> next = (*wal)->Rotate();
    ASSERT_TRUE(next.ok());
    // The size rule already started a fresh segment: no second rotation.
    EXPECT_EQ(*next, 11u);
    ASSERT_TRUE((*wal)->Append(RecordType::kDeleteScene, "a").ok());
    next = (*wal)->Rotate();
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(*next, 12u);
  }
  std::size_t segments = 0;
  const std::vector<std::uint64_t> lsns = ReadAllLsns(dir, &segments);
  ASSERT_EQ(lsns.size(), 11u);
  for (std::size_t i = 0; i < lsns.size(); ++i) EXPECT_EQ(lsns[i], i + 1);
  // 10 segments of one record, one with LSN 11, and the empty one at 12.
  EXPECT_EQ(segments, 12u);
  std::filesystem::remove_all(dir);
}

TEST(WalWriter, GroupCommitsConcurrentAppends) {
  const std::string dir = TempDir();
  constexpr int kThreads = 16;
  constexpr int kPerThread = 40;
  std::uint64_t syncs = 0;
  {
    absl::StatusOr<std::unique_ptr<WalWriter>> wal = WalWriter::Open(dir, 1);
    ASSERT_TRUE(wal.ok()) << wal.status();
    std::vector<std::vector<std::uint64_t>> lsns(kThreads);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          absl::StatusOr<std::uint64_t> lsn = (*wal)->Append(
              RecordType::kUpsertBodies, absl::StrCat("thread-", t, "-", i));
          if (!lsn.ok()) {
            failures.fetch_add(1);
            return;
          }
          lsns[t].push_back(*lsn);
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    ASSERT_EQ(failures.load(), 0);
    // Each thread's LSNs increase; together they are 1..N exactly once.
    std::vector<int> seen(kThreads * kPerThread + 1, 0);
    for (const std::vector<std::uint64_t>& mine : lsns) {
      ASSERT_EQ(mine.size(), static_cast<std::size_t>(kPerThread));
      for (std::size_t i = 0; i < mine.size(); ++i) {
        if (i > 0) {
          EXPECT_LT(mine[i - 1], mine[i]);
        }
        ASSERT_GE(mine[i], 1u);
        ASSERT_LE(mine[i], static_cast<std::uint64_t>(kThreads * kPerThread));
        ++seen[mine[i]];
      }
    }
    for (std::size_t lsn = 1; lsn < seen.size(); ++lsn) {
      EXPECT_EQ(seen[lsn], 1) << lsn;
    }
    syncs = (*wal)->syncs();
    EXPECT_EQ((*wal)->records_written(),
              static_cast<std::uint64_t>(kThreads * kPerThread));
  }
  // Followers share the leader's fsync: fewer syncs than records (with 16
  // writers blocked on each fsync, far fewer; one per record would mean no
  // batching at all).
  EXPECT_LT(syncs, static_cast<std::uint64_t>(kThreads * kPerThread));
  const std::vector<std::uint64_t> on_disk = ReadAllLsns(dir);
  ASSERT_EQ(on_disk.size(), static_cast<std::size_t>(kThreads * kPerThread));
  for (std::size_t i = 0; i < on_disk.size(); ++i) {
    EXPECT_EQ(on_disk[i], i + 1);
  }
  std::filesystem::remove_all(dir);
}

TEST(WalWriter, FailedWriteIsStickyError) {
  const std::string dir = TempDir();
  absl::StatusOr<std::unique_ptr<WalWriter>> wal = WalWriter::Open(dir, 1);
  ASSERT_TRUE(wal.ok());
  ASSERT_TRUE((*wal)->Append(RecordType::kCreateScene, "ok").ok());
  // Rotation into a directory that is gone fails, and so does every later
  // append.
  std::filesystem::remove_all(dir);
  ASSERT_TRUE((*wal)->Append(RecordType::kCreateScene, "one").ok());
  EXPECT_FALSE((*wal)->stats().failed);
  EXPECT_FALSE((*wal)->Rotate().ok());
  EXPECT_FALSE((*wal)->Append(RecordType::kCreateScene, "two").ok());
  EXPECT_TRUE((*wal)->stats().failed);
}

// A batch whose write fails (here: EFBIG past RLIMIT_FSIZE, which lets a
// write land partly and refuses the rest) is not counted in the bytes: the
// counter stays at what was written whole before, the writer is failed, and
// later appends fail too. Runs in a child process (the limit and the ignored
// SIGXFSZ are the whole process's); the child's exit code names the first
// check that failed.
int WriteFailureScenario(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<WalWriter>> wal = WalWriter::Open(dir, 1);
  if (!wal.ok()) return 10;
  if (!(*wal)->Append(RecordType::kCreateScene, "whole").ok()) return 11;
  const WalStats before = (*wal)->stats();
  std::uint64_t on_disk = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    on_disk += std::filesystem::file_size(entry.path());
  }
  if (before.bytes != on_disk || before.failed) return 12;
  // Room for 16 more bytes in any file: the next record (larger) is cut.
  std::signal(SIGXFSZ, SIG_IGN);
  const rlimit limit{static_cast<rlim_t>(on_disk + 16),
                     static_cast<rlim_t>(on_disk + 16)};
  if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 13;
  if ((*wal)->Append(RecordType::kUpsertBodies, std::string(256, 'p')).ok()) {
    return 14;
  }
  const WalStats after = (*wal)->stats();
  if (after.bytes != before.bytes) return 15;
  if (!after.failed) return 16;
  if (after.syncs != before.syncs + 1) return 17;
  if ((*wal)->Append(RecordType::kCreateScene, "later").ok()) return 18;
  return 0;
}

TEST(WalWriterDeathTest, FailedWriteIsNotCountedInBytes) {
  const std::string style = GTEST_FLAG_GET(death_test_style);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The child makes and removes its own directory (with the threadsafe
  // style it runs this test from the start, then the statement).
  EXPECT_EXIT(
      {
        const std::string dir = TempDir();
        const int code = WriteFailureScenario(dir);
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
        std::_Exit(code);
      },
      ::testing::ExitedWithCode(0), "");
  GTEST_FLAG_SET(death_test_style, style);
}

// The statistics behind sator_wal_*: records, bytes equal to what is on
// disk, one latency observation per sync.
TEST(WalWriter, StatsCountRecordsBytesAndSyncs) {
  const std::string dir = TempDir();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 25;
  WalStats stats;
  {
    WalWriterOptions options;
    options.segment_bytes = 2048;  // Several segments, headers included.
    absl::StatusOr<std::unique_ptr<WalWriter>> wal =
        WalWriter::Open(dir, 1, options);
    ASSERT_TRUE(wal.ok()) << wal.status();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          EXPECT_TRUE((*wal)
                          ->Append(RecordType::kUpsertBodies,
                                   std::string(static_cast<std::size_t>(
                                                   10 + (t * kPerThread + i)),
                                               'p'))
                          .ok());
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    stats = (*wal)->stats();
  }
  EXPECT_EQ(stats.records, static_cast<std::uint64_t>(kThreads * kPerThread));
  EXPECT_GE(stats.syncs, 1u);
  EXPECT_LE(stats.syncs, stats.records);
  EXPECT_EQ(stats.sync_seconds.count(), stats.syncs);
  std::uint64_t in_buckets = 0;
  for (std::uint64_t count : stats.sync_seconds.counts()) in_buckets += count;
  EXPECT_EQ(in_buckets, stats.syncs);
  EXPECT_GT(stats.sync_seconds.sum_seconds(), 0.0);
  EXPECT_FALSE(stats.failed);
  std::uint64_t on_disk = 0;
  std::size_t segments = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    on_disk += std::filesystem::file_size(entry.path());
    ++segments;
  }
  EXPECT_GT(segments, 2u);
  EXPECT_EQ(stats.bytes, on_disk);
  std::filesystem::remove_all(dir);
}

TEST(DurationHistogram, BucketsFollowPrometheusLessOrEqual) {
  DurationHistogram histogram;
  const auto& bounds = DurationHistogram::kBoundsSeconds;
  histogram.Observe(0.0);        // First bucket.
  histogram.Observe(bounds[0]);  // On a bound: that bucket (le).
  histogram.Observe(0.00011);    // Just above the first bound: the second.
  histogram.Observe(bounds.back());
  histogram.Observe(11.0);  // Above every bound: +Inf.
  EXPECT_EQ(histogram.counts()[0], 2u);
  EXPECT_EQ(histogram.counts()[1], 1u);
  EXPECT_EQ(histogram.counts()[bounds.size() - 1], 1u);
  EXPECT_EQ(histogram.counts()[bounds.size()], 1u);
  EXPECT_EQ(histogram.count(), 5u);
  EXPECT_DOUBLE_EQ(histogram.sum_seconds(),
                   0.0 + bounds[0] + 0.00011 + bounds.back() + 11.0);
}

}  // namespace
}  // namespace sator::server::durability
