// The async calls an object has started and not yet completed, so that its
// destructor can wait for them.
//
// Why the owners wait instead of letting each call own what it needs: a
// completion runs on one of gRPC's callback threads, and the thread that
// drops the last reference to the process's last channel shuts those threads
// down and joins them. On one of them it would join itself, and gRPC 1.51
// then frees the completion queue the thread is still reading. So a call in
// flight holds no reference to a channel or a connection; the connection's
// destructor, on the caller's thread, waits here, and a connection must not
// be destroyed from within one of its own completions.
#ifndef SATOR_CLIENT_SRC_CALLS_IN_FLIGHT_H_
#define SATOR_CLIENT_SRC_CALLS_IN_FLIGHT_H_

#include <condition_variable>
#include <mutex>

namespace sator::client_internal {

class CallsInFlight {
 public:
  CallsInFlight() = default;
  CallsInFlight(const CallsInFlight&) = delete;
  CallsInFlight& operator=(const CallsInFlight&) = delete;

  // A call started.
  void Enter() {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
  }
  // A call completed; the last waits end once none is left.
  void Leave() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (--count_ == 0) none_left_.notify_all();
  }
  // Returns once every call that entered has left.
  void WaitUntilNone() {
    std::unique_lock<std::mutex> lock(mutex_);
    none_left_.wait(lock, [this] { return count_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable none_left_;
  int count_ = 0;  // guarded by mutex_
};

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_CALLS_IN_FLIGHT_H_
