// Gives the memory of a flood back to the system once it is over.
//
// glibc's malloc keeps freed memory in its heaps, so after a burst of large
// calls satord's resident size would stay near its peak. Two measures: main
// fixes malloc's mmap threshold (ConfigureMalloc), so that buffers of
// 256 KiB and more are mapped and unmapped on their own rather than carved
// out of the heaps (glibc raises the threshold by itself after the first
// large free, which sends every later large message to a heap), and a
// background thread calls malloc_trim when no admitted call holds memory
// (the admitted bytes are 0) and the resident size is kTrimAfterBytes above
// the lowest seen, so smaller freed blocks go back too. After a trim that
// frees less than a quarter of that (the memory is in use: scenes, or calls
// still in gRPC's hands) the next waits ten samples (5 s). Trimming walks
// every heap under its lock, so it runs only after such growth, at most once
// per 5 s while the memory stays in use.
#ifndef SATOR_SERVER_OVERLOAD_MEMORY_TRIMMER_H_
#define SATOR_SERVER_OVERLOAD_MEMORY_TRIMMER_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/time/time.h"

namespace sator::server {

// Sets malloc's mmap threshold to 256 KiB (and the trim threshold to 8 MiB).
void ConfigureMalloc();

class MemoryTrimmer {
 public:
  static constexpr std::int64_t kTrimAfterBytes = std::int64_t{32} << 20;

  // `admitted_bytes` reads the bytes held by admitted calls now; it and the
  // resident size are sampled every `period`.
  explicit MemoryTrimmer(std::function<std::int64_t()> admitted_bytes,
                         absl::Duration period = absl::Milliseconds(500));
  ~MemoryTrimmer();  // Stops the thread.
  MemoryTrimmer(const MemoryTrimmer&) = delete;
  MemoryTrimmer& operator=(const MemoryTrimmer&) = delete;

  std::int64_t trims() const;

 private:
  void Run();

  const std::function<std::int64_t()> admitted_bytes_;
  const absl::Duration period_;
  mutable std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;   // Guarded by mutex_.
  std::int64_t trims_ = 0;  // Guarded by mutex_.
  std::thread thread_;      // Last: starts once the rest is set.
};

}  // namespace sator::server

#endif  // SATOR_SERVER_OVERLOAD_MEMORY_TRIMMER_H_
