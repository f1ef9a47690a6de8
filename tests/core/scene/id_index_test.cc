// IdIndex (the scene writer's open-addressing id -> slot map) against
// std::unordered_map under random inserts, erases and lookups, including
// ids that collide in the table and long runs that backward-shift deletion
// has to repair.
#include "scene/id_index.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "gtest/gtest.h"

namespace sator::scene::internal {
namespace {

void ExpectSame(const IdIndex& index,
                const std::unordered_map<std::uint64_t, std::uint32_t>& model,
                const std::vector<std::uint64_t>& probes) {
  ASSERT_EQ(index.size(), model.size());
  for (const std::uint64_t id : probes) {
    const auto it = model.find(id);
    ASSERT_EQ(index.Find(id), it == model.end() ? IdIndex::kNone : it->second)
        << "id " << id;
  }
}

TEST(IdIndexTest, EmptyFindsNothing) {
  IdIndex index;
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.Find(0), IdIndex::kNone);
  EXPECT_FALSE(index.Contains(~std::uint64_t{0}));
  EXPECT_FALSE(index.Erase(7));
  EXPECT_EQ(index.MemoryBytes(), 0u);
}

TEST(IdIndexTest, MatchesUnorderedMapUnderChurn) {
  for (const std::uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    IdIndex index;
    std::unordered_map<std::uint64_t, std::uint32_t> model;
    // Ids from a small pool (many repeats, erases of present and absent
    // ids), including 0 and the largest uint64, and sequential ids.
    std::vector<std::uint64_t> pool = {0, 1, ~std::uint64_t{0}};
    for (std::uint64_t i = 0; i < 300; ++i) pool.push_back(1000 + i);
    for (int i = 0; i < 300; ++i) pool.push_back(rng());
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    std::uint32_t next_slot = 0;
    for (int step = 0; step < 20000; ++step) {
      const std::uint64_t id = pool[pick(rng)];
      int op = static_cast<int>(rng() % 4);
      if (op == 3 && model.contains(id)) op = 0;
      if (op == 0 && !model.contains(id)) {
        index.Insert(id, next_slot);
        model[id] = next_slot++;
      } else if (op == 0) {
        // Present: FindOrInsert returns the slot it has and changes nothing.
        ASSERT_EQ(index.FindOrInsert(id, next_slot), model[id]);
      } else if (op == 3) {
        ASSERT_EQ(index.FindOrInsert(id, next_slot), IdIndex::kNone);
        model[id] = next_slot++;
      } else if (op == 1) {
        EXPECT_EQ(index.Erase(id), model.erase(id) == 1);
      } else {
        const auto it = model.find(id);
        ASSERT_EQ(index.Find(id),
                  it == model.end() ? IdIndex::kNone : it->second);
      }
      if (step % 1000 == 0) {
        ExpectSame(index, model, pool);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
    ExpectSame(index, model, pool);
    // The table stays at most 70 % full.
    EXPECT_LE(index.size() * 10, index.capacity() * 7);
  }
}

// Ids that all hash to few buckets would be rare in practice; a table of
// 16 buckets filled to its limit and emptied in every order forms runs that
// wrap around the end of the table.
TEST(IdIndexTest, FullSmallTableWrapsAndShiftsBack) {
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    std::mt19937_64 rng(seed);
    IdIndex index;
    std::unordered_map<std::uint64_t, std::uint32_t> model;
    std::vector<std::uint64_t> ids;
    for (std::uint32_t i = 0; i < 11; ++i) {
      const std::uint64_t id = rng() % 64;
      if (model.contains(id)) continue;
      index.Insert(id, i);
      model[id] = i;
      ids.push_back(id);
    }
    ASSERT_EQ(index.capacity(), 16u);
    std::shuffle(ids.begin(), ids.end(), rng);
    std::vector<std::uint64_t> probes(64);
    for (std::uint64_t i = 0; i < 64; ++i) probes[i] = i;
    for (const std::uint64_t id : ids) {
      ASSERT_TRUE(index.Erase(id));
      model.erase(id);
      ExpectSame(index, model, probes);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace sator::scene::internal
