// FakeClock (see clock.h).
#include "sator/client/clock.h"

#include <mutex>
#include <vector>

namespace sator {

absl::Time FakeClock::Now() {
  std::lock_guard<std::mutex> lock(mutex_);
  return now_;
}

void FakeClock::SleepFor(absl::Duration delay) {
  std::lock_guard<std::mutex> lock(mutex_);
  sleeps_.push_back(delay);
  if (delay > absl::ZeroDuration()) now_ += delay;
}

void FakeClock::Advance(absl::Duration delay) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (delay > absl::ZeroDuration()) now_ += delay;
}

std::vector<absl::Duration> FakeClock::sleeps() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sleeps_;
}

}  // namespace sator
