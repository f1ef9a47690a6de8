// The flood mode of sator-soak (--flood): a closed loop of large unary calls,
// many in flight at once, to check that satord sheds what it cannot serve in
// time instead of queueing it. Each of `calls` threads sends a PairQuery of
// about `request_bytes` (a sphere against a small grid mesh whose vertex
// list is padded to that size, so the work is mostly the request's receipt
// and parsing), one after another,
// until `duration` has passed. A refusal with RESOURCE_EXHAUSTED is a shed
// call: the thread waits for the server's pushback (grpc-retry-pushback-ms,
// else retry-after-ms, at most 10 s) before its next call, as gRPC's retry
// policy would. UNAVAILABLE is a connection gRPC closed (under memory
// pressure its quota's reclaimer sends GOAWAY to connections with no stream
// open; docs/DESIGN.md, "Admission"): the thread waits 100 ms and calls
// again, waiting for the channel to reconnect (wait_for_ready). Every call has
// a 10 s deadline, so the loop ends by itself.
#ifndef SATOR_TOOLS_SATOR_SOAK_FLOOD_H_
#define SATOR_TOOLS_SATOR_SOAK_FLOOD_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "tools/sator-bench/latency_histogram.h"

namespace sator::soak {

struct FloodOptions {
  std::string target;
  int calls = 100;  // Threads, each with one call in flight.
  std::int64_t request_bytes = 1 << 20;
  absl::Duration duration = absl::Seconds(10);
};

struct FloodResult {
  std::int64_t ok = 0;
  std::int64_t shed = 0;                // RESOURCE_EXHAUSTED.
  std::int64_t shed_with_pushback = 0;  // ... with grpc-retry-pushback-ms.
  // DEADLINE_EXCEEDED: the call waited 10 s (its upload and gRPC's queue
  // included) without an answer.
  std::int64_t deadline_exceeded = 0;
  // UNAVAILABLE: the call's connection was closed (GOAWAY) under memory
  // pressure.
  std::int64_t unavailable = 0;
  std::int64_t failed = 0;  // Any other code.
  std::string first_failure;
  std::int64_t request_bytes = 0;    // The size of the request sent.
  bench::LatencyHistogram accepted;  // Latency of the calls answered OK.
};

FloodResult RunFlood(const FloodOptions& options);

// One line of JSON with the counts and the accepted calls' p50, p99 and max
// in milliseconds (read by tests/e2e/overload_e2e_test.cc).
std::string FloodResultJson(const FloodResult& result);

}  // namespace sator::soak

#endif  // SATOR_TOOLS_SATOR_SOAK_FLOOD_H_
