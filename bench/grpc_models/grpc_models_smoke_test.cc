// Each server model answers, correctly, unary calls and stream messages at
// concurrency 1 and 8 (not timed: the measurement is run_grpc_models.sh).
#include <memory>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "bench/grpc_models/echo_servers.h"
#include "bench/grpc_models/load_client.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"

namespace sator::bench {
namespace {

constexpr int kCalls = 300;

class GrpcModelsSmokeTest
    : public ::testing::TestWithParam<std::tuple<ServerModel, LoadKind, int>> {
};

TEST_P(GrpcModelsSmokeTest, AnswersEveryCall) {
  const auto [model, kind, concurrency] = GetParam();
  absl::StatusOr<std::unique_ptr<EchoServer>> server =
      StartEchoServer(model, "127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status();
  LoadOptions options;
  options.kind = kind;
  options.concurrency = concurrency;
  options.warmup = absl::ZeroDuration();
  // Ends after kCalls answers; the duration only bounds a broken server.
  options.duration = absl::Seconds(60);
  options.max_calls = kCalls;
  const absl::StatusOr<LoadResult> result =
      RunLoad(grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*server)->port()),
                                  grpc::InsecureChannelCredentials()),
              options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->errors, 0) << result->first_error;
  EXPECT_EQ(result->mismatches, 0);
  EXPECT_EQ(result->calls, kCalls);
  ASSERT_EQ(result->latencies_ns.size(), static_cast<std::size_t>(kCalls));
  EXPECT_GT(result->latencies_ns.front(), 0);
  EXPECT_LE(result->QuantileMicros(0.5), result->QuantileMicros(0.99));
  (*server)->Shutdown();
}

INSTANTIATE_TEST_SUITE_P(
    AllModels, GrpcModelsSmokeTest,
    ::testing::Combine(::testing::Values(ServerModel::kSync,
                                         ServerModel::kCallback,
                                         ServerModel::kAsync),
                       ::testing::Values(LoadKind::kUnary, LoadKind::kStream),
                       ::testing::Values(1, 8)),
    [](const auto& param_info) {
      return absl::StrCat(ServerModelName(std::get<0>(param_info.param)),
                          std::get<1>(param_info.param) == LoadKind::kUnary
                              ? "Unary"
                              : "Stream",
                          "Concurrency", std::get<2>(param_info.param));
    });

TEST(GrpcModelsOptionsTest, RefusesBadNamesAndOptions) {
  EXPECT_EQ(ParseServerModel("threads").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseLoadKind("client_stream").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      StartEchoServer(ServerModel::kAsync, "127.0.0.1:0", 0).status().code(),
      absl::StatusCode::kInvalidArgument);
  LoadOptions options;
  options.concurrency = 0;
  EXPECT_EQ(RunLoad(grpc::CreateChannel("127.0.0.1:1",
                                        grpc::InsecureChannelCredentials()),
                    options)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sator::bench
