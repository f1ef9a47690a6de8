// See memory_trimmer.h.
#include "server/overload/memory_trimmer.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <utility>

namespace sator::server {
namespace {

// The resident size from /proc/self/statm (its second field, in pages); 0
// when unreadable.
std::int64_t ResidentBytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  std::int64_t size = 0;
  std::int64_t resident = 0;
  const int read = std::fscanf(statm, "%" SCNd64 " %" SCNd64, &size, &resident);
  std::fclose(statm);
  return read == 2 ? resident * sysconf(_SC_PAGESIZE) : 0;
}

}  // namespace

void ConfigureMalloc() {
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024);
}

MemoryTrimmer::MemoryTrimmer(std::function<std::int64_t()> admitted_bytes,
                             absl::Duration period)
    : admitted_bytes_(std::move(admitted_bytes)),
      period_(period),
      thread_([this] { Run(); }) {}

MemoryTrimmer::~MemoryTrimmer() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  thread_.join();
}

std::int64_t MemoryTrimmer::trims() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return trims_;
}

void MemoryTrimmer::Run() {
  // The lowest resident size seen: what satord needs when idle.
  std::int64_t floor = ResidentBytes();
  // After a trim that freed little (the memory is in use: scenes, or calls
  // in gRPC's hands), the next waits kBackoffPeriods samples.
  constexpr int kBackoffPeriods = 10;
  int skip = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_.wait_for(lock, absl::ToChronoMilliseconds(period_),
                         [this] { return stopping_; })) {
    lock.unlock();
    const std::int64_t resident = ResidentBytes();
    floor = std::min(floor, resident);
    const bool trim = skip == 0 && admitted_bytes_() == 0 &&
                      resident - floor >= kTrimAfterBytes;
    if (skip > 0) --skip;
    if (trim) {
      malloc_trim(0);
      const std::int64_t after = ResidentBytes();
      floor = std::min(floor, after);
      if (resident - after < kTrimAfterBytes / 4) skip = kBackoffPeriods;
    }
    lock.lock();
    if (trim) ++trims_;
  }
}

}  // namespace sator::server
