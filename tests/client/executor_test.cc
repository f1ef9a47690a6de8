// The async calls' thread pool: it runs tasks concurrently up to its maximum
// (a task waiting for its peers is not stuck behind them), never beyond it,
// and runs everything submitted before it is destroyed.
#include "executor.h"

#include <algorithm>
#include <condition_variable>
#include <future>
#include <mutex>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace sator::client_internal {
namespace {

// Counts tasks running at once; each task waits (bounded) until `gather`
// tasks are running together or the time runs out.
class Rendezvous {
 public:
  explicit Rendezvous(int gather) : gather_(gather) {}

  // True if `gather` tasks were running together.
  bool Arrive() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++running_;
    peak_ = std::max(peak_, running_);
    all_here_.notify_all();
    const bool met = all_here_.wait_for(lock, std::chrono::seconds(10),
                                        [this] { return peak_ >= gather_; });
    --running_;
    return met;
  }
  int peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    return peak_;
  }

 private:
  const int gather_;
  std::mutex mutex_;
  std::condition_variable all_here_;
  int running_ = 0;
  int peak_ = 0;
};

// Posts one Arrive(); the future gives its answer.
std::future<bool> Submit(Executor& executor, Rendezvous& rendezvous) {
  std::promise<bool> arrived;
  std::future<bool> future = arrived.get_future();
  executor.Post([&rendezvous, arrived = std::move(arrived)]() mutable {
    arrived.set_value(rendezvous.Arrive());
  });
  return future;
}

TEST(Executor, RunsTasksConcurrentlyUpToItsMaximum) {
  Executor executor(4);
  Rendezvous rendezvous(4);
  std::vector<std::future<bool>> arrivals;
  for (int i = 0; i < 4; ++i) {
    arrivals.push_back(Submit(executor, rendezvous));
  }
  for (std::future<bool>& arrived : arrivals) EXPECT_TRUE(arrived.get());
  EXPECT_EQ(rendezvous.peak(), 4);
}

TEST(Executor, NeverRunsMoreThanItsMaximumAtOnce) {
  Rendezvous rendezvous(2);
  std::vector<std::future<bool>> arrivals;
  {
    Executor executor(2);
    for (int i = 0; i < 6; ++i) {
      arrivals.push_back(Submit(executor, rendezvous));
    }
  }  // The destructor runs every task submitted.
  for (std::future<bool>& arrived : arrivals) {
    ASSERT_EQ(arrived.wait_for(std::chrono::seconds(0)),
              std::future_status::ready);
    EXPECT_TRUE(arrived.get());
  }
  EXPECT_EQ(rendezvous.peak(), 2);
}

TEST(Executor, RunsAMoveOnlyTask) {
  Executor executor(1);
  std::promise<int> answer;
  std::future<int> future = answer.get_future();
  executor.Post(
      [answer = std::move(answer)]() mutable { answer.set_value(42); });
  EXPECT_EQ(future.get(), 42);
}

}  // namespace
}  // namespace sator::client_internal
