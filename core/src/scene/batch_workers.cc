// BatchWorkers: a fixed set of threads serving a queue of help requests; see
// batch_workers.h. One mutex guards the queue and every batch's counts, so a
// helper that takes a request has been counted before the batch's caller can
// drop the batch's remaining requests and wait.
#include "sator/core/scene/batch_workers.h"

#include <algorithm>
#include <system_error>

namespace sator::scene {

struct BatchWorkers::Batch {
  explicit Batch(absl::FunctionRef<void()> batch_work) : work(batch_work) {}
  absl::FunctionRef<void()> work;
  int running = 0;  // helpers inside work()
};

BatchWorkers::BatchWorkers(int helpers) {
  const int count = std::clamp(helpers, 0, kMaxBatchHelpers);
  threads_.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    try {
      threads_.emplace_back([this] { HelperLoop(); });
    } catch (const std::system_error&) {
      break;  // fewer helpers; Run still works on its caller
    }
  }
}

BatchWorkers::~BatchWorkers() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void BatchWorkers::Run(int helpers, absl::FunctionRef<void()> work) {
  const int asked = std::clamp(helpers, 0, this->helpers());
  if (asked == 0) {
    work();
    return;
  }
  Batch batch(work);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (int i = 0; i < asked; ++i) requests_.push_back(&batch);
  }
  if (asked == 1) {
    work_ready_.notify_one();
  } else {
    work_ready_.notify_all();
  }
  work();
  std::unique_lock<std::mutex> lock(mutex_);
  std::erase(requests_, &batch);
  helper_done_.wait(lock, [&batch] { return batch.running == 0; });
}

void BatchWorkers::HelperLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    work_ready_.wait(lock, [this] { return stopping_ || !requests_.empty(); });
    if (stopping_) return;
    Batch* batch = requests_.front();
    requests_.pop_front();
    ++batch->running;
    lock.unlock();
    batch->work();
    lock.lock();
    if (--batch->running == 0) helper_done_.notify_all();
  }
}

}  // namespace sator::scene
