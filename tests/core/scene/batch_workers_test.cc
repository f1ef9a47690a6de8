// BatchWorkers: every item of every batch runs exactly once whatever the
// helpers and however many callers share them, and a batch finishes on its
// caller alone while every helper is busy elsewhere. Runs under
// ThreadSanitizer (label tsan); bounded in batches, never in time.
#include "sator/core/scene/batch_workers.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <future>
#include <latch>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace sator::scene {
namespace {

// Runs a batch of `items` on `workers`, each item counted in `counts`.
void CountBatch(BatchWorkers& workers, int helpers, int items,
                std::vector<std::atomic<int>>& counts) {
  std::atomic<int> next{0};
  workers.Run(helpers, [&] {
    while (true) {
      const int begin = next.fetch_add(8);
      if (begin >= items) return;
      for (int i = begin; i < std::min(items, begin + 8); ++i) {
        counts[static_cast<std::size_t>(i)].fetch_add(1);
      }
    }
  });
}

TEST(BatchWorkersTest, EveryItemRunsOnceWhateverTheHelpers) {
  constexpr int kItems = 500;
  for (const int pool : {0, 1, 3}) {
    BatchWorkers workers(pool);
    EXPECT_EQ(workers.helpers(), pool);
    for (const int asked : {0, 1, 2, 8}) {
      std::vector<std::atomic<int>> counts(kItems);
      CountBatch(workers, asked, kItems, counts);
      for (int i = 0; i < kItems; ++i) {
        ASSERT_EQ(counts[static_cast<std::size_t>(i)].load(), 1)
            << "item " << i << ", " << pool << " helpers, " << asked
            << " asked";
      }
    }
  }
}

TEST(BatchWorkersTest, CallersSharingTheHelpersEachGetTheirWholeBatch) {
  constexpr int kCallers = 4;
  constexpr int kBatches = 40;
  constexpr int kItems = 300;
  BatchWorkers workers(2);
  std::vector<int> failures(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&workers, &failures, c] {
      for (int b = 0; b < kBatches; ++b) {
        std::vector<std::atomic<int>> counts(kItems);
        CountBatch(workers, 2, kItems, counts);
        failures[static_cast<std::size_t>(c)] += static_cast<int>(
            std::count_if(counts.begin(), counts.end(),
                          [](const std::atomic<int>& n) { return n != 1; }));
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  for (int c = 0; c < kCallers; ++c) {
    EXPECT_EQ(failures[static_cast<std::size_t>(c)], 0) << "caller " << c;
  }
}

TEST(BatchWorkersTest, ABatchFinishesOnItsCallerWhileTheHelperIsBusy) {
  BatchWorkers workers(1);
  // Batch A holds both its caller and the one helper until released.
  std::latch both_inside(2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::thread holder([&] {
    workers.Run(1, [&] {
      both_inside.count_down();
      released.wait();
    });
  });
  both_inside.wait();
  // Batch B asks for the busy helper; its caller does all the work and
  // returns without waiting for it.
  std::vector<std::atomic<int>> counts(100);
  CountBatch(workers, 1, 100, counts);
  for (const std::atomic<int>& n : counts) EXPECT_EQ(n.load(), 1);
  release.set_value();
  holder.join();
}

}  // namespace
}  // namespace sator::scene
