// Runs one of the example programs (examples/) as a child process for the
// end-to-end tests, with a bounded time, and collects its exit code and
// output.
#ifndef SATOR_TESTS_E2E_EXAMPLE_PROGRAM_H_
#define SATOR_TESTS_E2E_EXAMPLE_PROGRAM_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sator::testing {

struct ProgramResult {
  // The exit code, or 128 + the signal number if a signal ended it.
  int exit_code = -1;
  // Everything the program wrote to stdout and stderr.
  std::string output;
};

// Runs `path` with `args`; SIGKILLs it and returns DEADLINE_EXCEEDED if it has
// not exited within `timeout`.
absl::StatusOr<ProgramResult> RunProgram(
    const std::string& path, const std::vector<std::string>& args,
    absl::Duration timeout = absl::Seconds(60));

}  // namespace sator::testing

#endif  // SATOR_TESTS_E2E_EXAMPLE_PROGRAM_H_
