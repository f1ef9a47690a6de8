// The threads that run sator::Client's Async* calls: started when a call
// finds none idle, up to a maximum, and kept until the client goes. The
// destructor runs what was submitted, then joins.
#ifndef SATOR_CLIENT_SRC_EXECUTOR_H_
#define SATOR_CLIENT_SRC_EXECUTOR_H_

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"

namespace sator::client_internal {

class Executor {
 public:
  explicit Executor(int max_threads) : max_threads_(max_threads) {}
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs `task` on a pool thread.
  void Post(absl::AnyInvocable<void() &&> task);

 private:
  void Work();

  const int max_threads_;
  int idle_ = 0;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<absl::AnyInvocable<void() &&>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_EXECUTOR_H_
