// The audit ring's bound, numbering and gaps, and its behaviour under many
// writers, readers, followers and subscribers at once (run under TSan too).
#include "server/audit/shot_audit_ring.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/test_scale.h"

namespace sator::server {
namespace {

std::unique_ptr<sator::v1::ShotVerdictRecord> MakeRecord(
    std::uint64_t shot_id) {
  auto record = std::make_unique<sator::v1::ShotVerdictRecord>();
  record->mutable_shot()->set_shot_id(shot_id);
  return record;
}

TEST(ShotAuditRing, KeepsTheNewestCapacityRecordsAndCountsTheOverwritten) {
  ShotAuditRing ring(4);
  EXPECT_EQ(ring.oldest_sequence(), 0u);
  EXPECT_EQ(ring.next_sequence(), 1u);
  for (std::uint64_t i = 1; i <= 10; ++i) {
    EXPECT_EQ(ring.Append(MakeRecord(100 + i)), i);
  }
  EXPECT_EQ(ring.oldest_sequence(), 7u);
  EXPECT_EQ(ring.next_sequence(), 11u);
  EXPECT_EQ(ring.overwritten(), 6u);
  const std::vector<ShotAuditRing::Record> records = ring.ReadFrom(1, 100);
  ASSERT_EQ(records.size(), 4u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i]->sequence(), 7 + i);
    EXPECT_EQ(records[i]->shot().shot_id(), 107 + i);
  }
  EXPECT_EQ(ring.ReadFrom(9, 1).front()->sequence(), 9u);
  EXPECT_TRUE(ring.ReadFrom(11, 5).empty());
}

TEST(ShotAuditRing, NextForReportsOverwrittenAndLaggingRecordsAsGaps) {
  ShotAuditRing ring(8);
  for (int i = 0; i < 20; ++i) ring.Append(MakeRecord(i));
  // Sequences 13..20 are kept; 1..12 were overwritten.
  ShotAuditRing::Next next = ring.NextFor(1, 100);
  EXPECT_TRUE(next.record == nullptr);
  EXPECT_EQ(next.gap_first, 1u);
  EXPECT_EQ(next.gap_dropped, 12u);
  // Kept, but more than 3 behind the newest (20): skipped to 18.
  next = ring.NextFor(14, 3);
  EXPECT_EQ(next.gap_first, 14u);
  EXPECT_EQ(next.gap_dropped, 4u);
  next = ring.NextFor(18, 3);
  ASSERT_TRUE(next.record != nullptr);
  EXPECT_EQ(next.record->sequence(), 18u);
  next = ring.NextFor(21, 3);
  EXPECT_TRUE(next.record == nullptr);
  EXPECT_EQ(next.gap_dropped, 0u);
}

class CountingSubscriber final : public ShotAuditSubscriber {
 public:
  void OnRecorded() override { calls.fetch_add(1); }
  std::atomic<std::int64_t> calls{0};
};

TEST(ShotAuditRingConcurrency, WritersReadersAndFollowersSeeOneOrder) {
  constexpr int kWriters = 4;
  const int per_writer = testing::ScaledCount(20000);
  constexpr std::size_t kCapacity = 512;
  ShotAuditRing ring(kCapacity);
  auto subscriber = std::make_shared<CountingSubscriber>();
  ring.Subscribe(subscriber);
  std::atomic<bool> writing{true};
  std::atomic<int> reader_failures{0};

  std::vector<std::thread> readers;
  // Pages: consecutive sequences, each record numbered as its slot says.
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      for (int round = 0; round < 100000 && writing.load(); ++round) {
        const std::vector<ShotAuditRing::Record> page =
            ring.ReadFrom(ring.oldest_sequence(), 64);
        for (std::size_t i = 1; i < page.size(); ++i) {
          if (page[i]->sequence() != page[i - 1]->sequence() + 1) {
            reader_failures.fetch_add(1);
          }
        }
      }
    });
  }
  // A follower: every sequence is either received or inside a gap, once.
  std::atomic<std::uint64_t> followed{0};
  readers.emplace_back([&] {
    std::uint64_t cursor = 1;
    std::uint64_t covered = 0;
    const std::uint64_t total = static_cast<std::uint64_t>(kWriters) *
                                static_cast<std::uint64_t>(per_writer);
    for (int round = 0; round < 50000000 && covered < total; ++round) {
      const ShotAuditRing::Next next = ring.NextFor(cursor, 64);
      if (next.gap_dropped > 0) {
        if (next.gap_first != cursor) reader_failures.fetch_add(1);
        cursor += next.gap_dropped;
        covered += next.gap_dropped;
      } else if (next.record != nullptr) {
        if (next.record->sequence() != cursor) reader_failures.fetch_add(1);
        ++cursor;
        ++covered;
      } else if (!writing.load() && ring.next_sequence() == cursor) {
        break;
      }
    }
    followed.store(covered);
  });

  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < per_writer; ++i) {
        ring.Append(MakeRecord(static_cast<std::uint64_t>(w) << 32 |
                               static_cast<std::uint64_t>(i)));
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  writing.store(false);
  for (std::thread& reader : readers) reader.join();

  const std::uint64_t total = static_cast<std::uint64_t>(kWriters) *
                              static_cast<std::uint64_t>(per_writer);
  EXPECT_EQ(reader_failures.load(), 0);
  EXPECT_EQ(ring.next_sequence(), total + 1);
  EXPECT_EQ(ring.overwritten(), total - kCapacity);
  EXPECT_EQ(subscriber->calls.load(), static_cast<std::int64_t>(total));
  EXPECT_EQ(followed.load(), total);
  // Each writer's records stay in its own order.
  const std::vector<ShotAuditRing::Record> kept = ring.ReadFrom(1, kCapacity);
  ASSERT_EQ(kept.size(), kCapacity);
  std::vector<std::int64_t> last(kWriters, -1);
  for (const ShotAuditRing::Record& record : kept) {
    const std::uint64_t id = record->shot().shot_id();
    const int writer = static_cast<int>(id >> 32);
    const auto index = static_cast<std::int64_t>(id & 0xffffffffu);
    ASSERT_LT(writer, kWriters);
    EXPECT_GT(index, last[writer]);
    last[writer] = index;
  }
  ring.Unsubscribe(subscriber.get());
  ring.Append(MakeRecord(0));
  EXPECT_EQ(subscriber->calls.load(), static_cast<std::int64_t>(total));
}

}  // namespace
}  // namespace sator::server
