// Threads that help run batches.
//
// A batch is split by its own work function, which pulls items from a shared
// counter until none are left (self-scheduling). Run() runs that function on
// the calling thread and on as many idle helpers as asked, and returns once
// every run has returned. The caller always works, so a batch finishes even
// when every helper is busy with other batches: helpers are never waited
// for, only those that started on this batch. The helper threads are started
// once, so a batch pays a queue hand-off per helper, not a thread start.
#ifndef SATOR_CORE_SCENE_BATCH_WORKERS_H_
#define SATOR_CORE_SCENE_BATCH_WORKERS_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"

namespace sator::scene {

class BatchWorkers {
 public:
  // Starts `helpers` threads (clamped to [0, kMaxBatchHelpers]); with 0,
  // every Run works on the calling thread alone.
  explicit BatchWorkers(int helpers);
  // Stops and joins the helpers; no Run may be in progress.
  ~BatchWorkers();
  BatchWorkers(const BatchWorkers&) = delete;
  BatchWorkers& operator=(const BatchWorkers&) = delete;

  int helpers() const { return static_cast<int>(threads_.size()); }

  // Runs `work` on this thread and on up to `helpers` helper threads that are
  // idle meanwhile, and returns when every run of it has returned. `work`
  // must be safe to run on several threads at once and must return once the
  // batch has nothing left to take: it may run on this thread alone.
  void Run(int helpers, absl::FunctionRef<void()> work);

  static constexpr int kMaxBatchHelpers = 255;

 private:
  struct Batch;

  void HelperLoop();

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable helper_done_;
  // One entry per help asked for; a batch's entries are dropped when its
  // caller has finished its own run.
  std::deque<Batch*> requests_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace sator::scene

#endif  // SATOR_CORE_SCENE_BATCH_WORKERS_H_
