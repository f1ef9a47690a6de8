#include "tools/sator-bench/process_cpu.h"

#include <unistd.h>

#include <cstdint>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

namespace sator::bench {

std::optional<double> ProcessCpuSeconds(int pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(file, line)) return std::nullopt;
  // The command name, in parentheses, may hold spaces: fields are counted
  // from the last ')'. After it come state (field 3) ... utime (14), stime
  // (15), in clock ticks.
  const std::size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  double ticks = 0.0;
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index >= 14) ticks += std::stod(field);
  }
  const std::int64_t per_second = sysconf(_SC_CLK_TCK);
  if (per_second <= 0) return std::nullopt;
  return ticks / static_cast<double>(per_second);
}

std::int64_t ThreadCpuNanoseconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

}  // namespace sator::bench
