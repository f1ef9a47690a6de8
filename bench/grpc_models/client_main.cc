// grpc_models_client: closed-loop load on an echo server (load_client.h);
// prints one JSON line: {"kind", "concurrency", "calls", "seconds", "qps",
// "p50_us", "p99_us", "errors", "mismatches"}. Exit 1 if any call failed or
// was answered wrongly.
//
//   grpc_models_client --target=127.0.0.1:PORT --kind=unary --concurrency=64
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "bench/grpc_models/load_client.h"
#include "grpcpp/create_channel.h"

ABSL_FLAG(std::string, target, "", "The server, host:port.");
ABSL_FLAG(std::string, kind, "unary", "unary (Ping) or stream (Session).");
ABSL_FLAG(int, concurrency, 1, "Calls (or streams) in flight.");
ABSL_FLAG(absl::Duration, warmup, absl::Milliseconds(500),
          "Answers in this first stretch are not recorded.");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(3), "The measured window.");
ABSL_FLAG(int64_t, max_calls, 0, "Stop after this many (0: no bound).");
ABSL_FLAG(int, payload_bytes, 16, "Ping payload size.");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const absl::StatusOr<sator::bench::LoadKind> kind =
      sator::bench::ParseLoadKind(absl::GetFlag(FLAGS_kind));
  if (!kind.ok() || absl::GetFlag(FLAGS_target).empty()) {
    std::fprintf(stderr, "need --target and --kind=unary|stream\n");
    return 2;
  }
  sator::bench::LoadOptions options;
  options.kind = *kind;
  options.concurrency = absl::GetFlag(FLAGS_concurrency);
  options.warmup = absl::GetFlag(FLAGS_warmup);
  options.duration = absl::GetFlag(FLAGS_duration);
  options.max_calls = absl::GetFlag(FLAGS_max_calls);
  options.payload_bytes = absl::GetFlag(FLAGS_payload_bytes);
  const absl::StatusOr<sator::bench::LoadResult> result = sator::bench::RunLoad(
      grpc::CreateChannel(absl::GetFlag(FLAGS_target),
                          grpc::InsecureChannelCredentials()),
      options);
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
    return 2;
  }
  std::printf("%s\n",
              absl::StrFormat(
                  R"({"kind":"%s","concurrency":%d,"calls":%d,"seconds":%.3f,)"
                  R"("qps":%.0f,"p50_us":%.1f,"p99_us":%.1f,"errors":%d,)"
                  R"("mismatches":%d})",
                  absl::GetFlag(FLAGS_kind), options.concurrency, result->calls,
                  result->seconds, result->calls_per_second(),
                  result->QuantileMicros(0.5), result->QuantileMicros(0.99),
                  result->errors, result->mismatches)
                  .c_str());
  if (result->errors > 0) {
    std::fprintf(stderr, "first error: %s\n", result->first_error.c_str());
  }
  return result->errors == 0 && result->mismatches == 0 ? 0 : 1;
}
