// The flood mode; see flood.h.
#include "tools/sator-soak/flood.h"

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "sator/v1/query_service.grpc.pb.h"

namespace sator::soak {
namespace {

// A sphere against a flat 16 x 16 grid mesh (512 triangles), its vertex list
// padded with copies of a grid vertex, which no triangle uses, until the
// request is at least `bytes` long: a call of that size whose work is mostly
// receiving and parsing it.
sator::v1::PairQueryRequest MeshRequest(std::int64_t bytes) {
  constexpr int kGrid = 16;
  sator::v1::PairQueryRequest request;
  auto* mesh = request.mutable_shape_a()->mutable_mesh();
  for (int i = 0; i <= kGrid; ++i) {
    for (int j = 0; j <= kGrid; ++j) {
      sator::v1::Vector* v = mesh->add_vertices();
      v->set_x(static_cast<float>(i));
      v->set_z(static_cast<float>(j));
    }
  }
  for (int i = 0; i < kGrid; ++i) {
    for (int j = 0; j < kGrid; ++j) {
      const auto corner = static_cast<std::uint32_t>(i * (kGrid + 1) + j);
      const std::uint32_t right = corner + std::uint32_t{kGrid + 1};
      for (std::uint32_t index :
           {corner, corner + 1, right, right, corner + 1, right + 1}) {
        mesh->add_indices(index);
      }
    }
  }
  request.mutable_shape_b()->mutable_sphere()->set_radius(1.0f);
  request.mutable_pose_b()->mutable_position()->set_y(0.5f);
  request.mutable_overlap();
  // Each padding vertex is 12 bytes on the wire (two floats and framing).
  const std::int64_t missing =
      bytes - static_cast<std::int64_t>(request.ByteSizeLong());
  for (std::int64_t k = 0; k < missing / 12 + 1; ++k) {
    sator::v1::Vector* v = mesh->add_vertices();
    v->set_x(1.0f);
    v->set_z(1.0f);
  }
  return request;
}

// The pushback a refusal asks for: grpc-retry-pushback-ms, else
// retry-after-ms, else 50 ms; at most 10 s. Sets `with_pushback` when the
// gRPC trailer was there.
absl::Duration Pushback(const grpc::ClientContext& context,
                        bool& with_pushback) {
  const auto& trailers = context.GetServerTrailingMetadata();
  std::int64_t milliseconds = 50;
  for (const char* key : {"retry-after-ms", "grpc-retry-pushback-ms"}) {
    auto it = trailers.find(key);
    std::int64_t value = 0;
    if (it != trailers.end() &&
        absl::SimpleAtoi(
            absl::string_view(it->second.data(), it->second.size()), &value) &&
        value >= 0) {
      milliseconds = value;
      with_pushback = std::string_view(key) == "grpc-retry-pushback-ms";
    }
  }
  return absl::Milliseconds(std::min<std::int64_t>(milliseconds, 10000));
}

}  // namespace

FloodResult RunFlood(const FloodOptions& options) {
  const sator::v1::PairQueryRequest request =
      MeshRequest(options.request_bytes);
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(64 << 20);
  args.SetMaxReceiveMessageSize(64 << 20);
  auto channel = grpc::CreateCustomChannel(
      options.target, grpc::InsecureChannelCredentials(), args);
  auto stub = sator::v1::QueryService::NewStub(channel);

  FloodResult total;
  total.request_bytes = static_cast<std::int64_t>(request.ByteSizeLong());
  std::mutex mutex;
  const absl::Time end = absl::Now() + options.duration;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(std::max(1, options.calls)));
  for (int t = 0; t < std::max(1, options.calls); ++t) {
    threads.emplace_back([&] {
      FloodResult mine;
      // Bounded by time; each call by its deadline.
      while (absl::Now() < end) {
        grpc::ClientContext context;
        context.set_deadline(
            absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
        // A call made while the channel reconnects waits for it.
        context.set_wait_for_ready(true);
        sator::v1::PairQueryResponse response;
        const absl::Time start = absl::Now();
        const grpc::Status status =
            stub->PairQuery(&context, request, &response);
        const absl::Duration took = absl::Now() - start;
        if (status.ok()) {
          ++mine.ok;
          mine.accepted.Record(absl::ToInt64Nanoseconds(took));
        } else if (status.error_code() ==
                   grpc::StatusCode::RESOURCE_EXHAUSTED) {
          ++mine.shed;
          bool with_pushback = false;
          const absl::Duration wait = Pushback(context, with_pushback);
          if (with_pushback) ++mine.shed_with_pushback;
          absl::SleepFor(std::min(wait, end - absl::Now()));
        } else if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
          ++mine.deadline_exceeded;
        } else if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
          ++mine.unavailable;
          absl::SleepFor(std::min(absl::Milliseconds(100), end - absl::Now()));
        } else {
          ++mine.failed;
          if (mine.first_failure.empty()) {
            mine.first_failure = absl::StrFormat(
                "code %d: %s", static_cast<int>(status.error_code()),
                status.error_message());
          }
        }
      }
      const std::lock_guard<std::mutex> lock(mutex);
      total.ok += mine.ok;
      total.shed += mine.shed;
      total.shed_with_pushback += mine.shed_with_pushback;
      total.deadline_exceeded += mine.deadline_exceeded;
      total.unavailable += mine.unavailable;
      total.failed += mine.failed;
      if (total.first_failure.empty()) total.first_failure = mine.first_failure;
      total.accepted.Merge(mine.accepted);
    });
  }
  for (std::thread& thread : threads) thread.join();
  return total;
}

std::string FloodResultJson(const FloodResult& result) {
  std::string failure;
  for (char c : result.first_failure) {
    if (c == '"' || c == '\\') failure.push_back('\\');
    failure.push_back(c >= ' ' ? c : ' ');
  }
  return absl::StrFormat(
      "{\"ok\":%d,\"shed\":%d,\"shed_with_pushback\":%d,"
      "\"deadline_exceeded\":%d,\"unavailable\":%d,\"failed\":%d,"
      "\"request_bytes\":%d,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,"
      "\"first_failure\":\"%s\"}",
      result.ok, result.shed, result.shed_with_pushback,
      result.deadline_exceeded, result.unavailable, result.failed,
      result.request_bytes,
      static_cast<double>(result.accepted.ValueAtQuantile(0.5)) / 1e6,
      static_cast<double>(result.accepted.ValueAtQuantile(0.99)) / 1e6,
      static_cast<double>(result.accepted.max()) / 1e6, failure);
}

}  // namespace sator::soak
