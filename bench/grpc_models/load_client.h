// A closed-loop load generator for the echo servers (echo_servers.h):
// `concurrency` calls in flight, each followed by the next as soon as it is
// answered, through the callback client API on one channel (one HTTP/2
// connection, as satord's client library uses). Unary: Ping with a payload.
// Stream: `concurrency` Session streams, each writing one message and
// waiting for its answer before the next (ping-pong).
#ifndef SATOR_BENCH_GRPC_MODELS_LOAD_CLIENT_H_
#define SATOR_BENCH_GRPC_MODELS_LOAD_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"

namespace sator::bench {

enum class LoadKind { kUnary, kStream };

// "unary" or "stream".
absl::StatusOr<LoadKind> ParseLoadKind(absl::string_view name);

struct LoadOptions {
  LoadKind kind = LoadKind::kUnary;
  int concurrency = 1;
  // Calls answered during the warm-up are not recorded.
  absl::Duration warmup = absl::Milliseconds(500);
  // The measured window; the run also ends once `max_calls` are recorded
  // (0: no bound).
  absl::Duration duration = absl::Seconds(3);
  std::int64_t max_calls = 0;
  int payload_bytes = 16;
  // Each call's deadline.
  absl::Duration call_deadline = absl::Seconds(10);
};

struct LoadResult {
  // Calls (or stream messages) answered correctly in the measured window.
  std::int64_t calls = 0;
  // Failed calls, and answers that did not echo what was sent.
  std::int64_t errors = 0;
  std::int64_t mismatches = 0;
  std::string first_error;
  double seconds = 0.0;
  // Round-trip times of the recorded calls, sorted, in nanoseconds.
  std::vector<std::int64_t> latencies_ns;

  double calls_per_second() const;
  // The q-quantile (0 < q < 1) of latencies_ns, in microseconds (0 if
  // none).
  double QuantileMicros(double q) const;
};

// Runs the load; INVALID_ARGUMENT for a bad option. The run is bounded by
// warmup + duration + call_deadline.
absl::StatusOr<LoadResult> RunLoad(
    const std::shared_ptr<grpc::Channel>& channel, const LoadOptions& options);

}  // namespace sator::bench

#endif  // SATOR_BENCH_GRPC_MODELS_LOAD_CLIENT_H_
