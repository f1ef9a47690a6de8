// CPU time of a process, read from procfs, for CPU-per-work figures.
#ifndef SATOR_TOOLS_SATOR_BENCH_PROCESS_CPU_H_
#define SATOR_TOOLS_SATOR_BENCH_PROCESS_CPU_H_

#include <cstdint>
#include <optional>

namespace sator::bench {

// The CPU time (user + system) of process `pid` from /proc/<pid>/stat, in
// seconds (clock-tick resolution); unset if it cannot be read.
std::optional<double> ProcessCpuSeconds(int pid);

// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), in nanoseconds.
std::int64_t ThreadCpuNanoseconds();

}  // namespace sator::bench

#endif  // SATOR_TOOLS_SATOR_BENCH_PROCESS_CPU_H_
