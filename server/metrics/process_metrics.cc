#include "server/metrics/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

namespace sator::server {
namespace {

prometheus::MetricFamily Single(const char* name, const char* help,
                                prometheus::MetricType type, double value) {
  prometheus::MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = type;
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(metric);
  return family;
}

double OpenFileDescriptors() {
  std::error_code error;
  double count = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", error), end;
       !error && it != end; it.increment(error)) {
    ++count;
  }
  // Less the descriptor the listing itself held open.
  return count > 0 ? count - 1 : 0;
}

}  // namespace

ProcessMetrics::ProcessMetrics() {
  start_time_seconds_ = std::chrono::duration<double>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
}

std::vector<prometheus::MetricFamily> ProcessMetrics::Collect() const {
  std::vector<prometheus::MetricFamily> families;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu_seconds =
      static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
      static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) *
          1e-6;
  families.push_back(Single("process_cpu_seconds_total",
                            "User and system CPU time spent, in seconds.",
                            prometheus::MetricType::Counter, cpu_seconds));

  // /proc/self/statm: total program size and resident set, in pages.
  std::int64_t pages_total = 0;
  std::int64_t pages_resident = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%" SCNd64 " %" SCNd64, &pages_total,
                    &pages_resident) != 2) {
      pages_total = pages_resident = 0;
    }
    std::fclose(statm);
  }
  const auto page_size = static_cast<double>(sysconf(_SC_PAGESIZE));
  families.push_back(Single("process_resident_memory_bytes",
                            "Resident memory size, in bytes.",
                            prometheus::MetricType::Gauge,
                            static_cast<double>(pages_resident) * page_size));
  families.push_back(Single("process_virtual_memory_bytes",
                            "Virtual memory size, in bytes.",
                            prometheus::MetricType::Gauge,
                            static_cast<double>(pages_total) * page_size));
  families.push_back(Single("process_open_fds", "Open file descriptors.",
                            prometheus::MetricType::Gauge,
                            OpenFileDescriptors()));
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  families.push_back(Single(
      "process_max_fds", "The most file descriptors the process may open.",
      prometheus::MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
  families.push_back(
      Single("process_start_time_seconds",
             "Start time of the process since the Unix epoch, in seconds.",
             prometheus::MetricType::Gauge, start_time_seconds_));
  return families;
}

}  // namespace sator::server
