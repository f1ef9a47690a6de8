// The service config that makes a gRPC channel retry (retry.h), read back
// with protobuf's JSON parser: it names exactly the idempotent methods, its
// retryPolicy carries the RetryPolicy's numbers, and every RPC of the API is
// either in it or a known mutation or stream.
#include "retry_service_config.h"

#include <set>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "sator/v1/body_service.grpc.pb.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "sator/v1/scene_service.grpc.pb.h"

namespace sator::client_internal {
namespace {

using ::testing::UnorderedElementsAre;

google::protobuf::Struct Parse(const std::string& json) {
  google::protobuf::Struct parsed;
  const auto status =
      google::protobuf::util::JsonStringToMessage(json, &parsed);
  EXPECT_TRUE(status.ok()) << status.message() << " in " << json;
  return parsed;
}

const google::protobuf::Value& Field(const google::protobuf::Struct& object,
                                     const std::string& name) {
  static const google::protobuf::Value* const missing =
      new google::protobuf::Value;
  const auto it = object.fields().find(name);
  EXPECT_NE(it, object.fields().end()) << "no field " << name;
  return it == object.fields().end() ? *missing : it->second;
}

TEST(RetryServiceConfig, OneMethodConfigWithTheRetryPolicy) {
  const google::protobuf::Struct config =
      Parse(RetryServiceConfigJson({.max_attempts = 5,
                                    .initial_backoff = absl::Milliseconds(25),
                                    .max_backoff = absl::Seconds(3),
                                    .backoff_multiplier = 1.5}));
  const google::protobuf::ListValue& method_configs =
      Field(config, "methodConfig").list_value();
  ASSERT_EQ(method_configs.values_size(), 1);
  const google::protobuf::Struct& method_config =
      method_configs.values(0).struct_value();
  const google::protobuf::Struct& policy =
      Field(method_config, "retryPolicy").struct_value();
  EXPECT_EQ(Field(policy, "maxAttempts").number_value(), 5);
  EXPECT_EQ(Field(policy, "initialBackoff").string_value(), "0.025000000s");
  EXPECT_EQ(Field(policy, "maxBackoff").string_value(), "3.000000000s");
  EXPECT_EQ(Field(policy, "backoffMultiplier").number_value(), 1.5);
  std::set<std::string> codes;
  for (const google::protobuf::Value& code :
       Field(policy, "retryableStatusCodes").list_value().values()) {
    codes.insert(code.string_value());
  }
  EXPECT_THAT(codes, UnorderedElementsAre("UNAVAILABLE", "RESOURCE_EXHAUSTED"));

  std::set<std::string> names;
  for (const google::protobuf::Value& name :
       Field(method_config, "name").list_value().values()) {
    names.insert(Field(name.struct_value(), "service").string_value() + "/" +
                 Field(name.struct_value(), "method").string_value());
  }
  EXPECT_THAT(
      names,
      UnorderedElementsAre(
          "sator.v1.QueryService/Ping", "sator.v1.QueryService/Overlap",
          "sator.v1.QueryService/Contacts", "sator.v1.QueryService/Sweep",
          "sator.v1.QueryService/Raycast", "sator.v1.QueryService/PointQuery",
          "sator.v1.QueryService/QueryBatch",
          "sator.v1.QueryService/RaycastBatch",
          "sator.v1.QueryService/PairQuery",
          "sator.v1.QueryService/ValidateShots",
          "sator.v1.QueryService/ListShotVerdicts",
          "sator.v1.SceneService/ListScenes", "sator.v1.SceneService/GetScene",
          "sator.v1.SceneService/ExportScene",
          "sator.v1.ProximityService/GetProximity",
          "grpc.health.v1.Health/Check"));
}

TEST(RetryServiceConfig, RetryThrottlingCarriesThePolicysTokens) {
  const google::protobuf::Struct config = Parse(RetryServiceConfigJson(
      {.throttle_max_tokens = 20, .throttle_token_ratio = 0.25}));
  const google::protobuf::Struct& throttling =
      Field(config, "retryThrottling").struct_value();
  EXPECT_EQ(Field(throttling, "maxTokens").number_value(), 20);
  EXPECT_EQ(Field(throttling, "tokenRatio").number_value(), 0.25);
  const google::protobuf::Struct off =
      Parse(RetryServiceConfigJson({.throttle_max_tokens = 0}));
  EXPECT_FALSE(off.fields().contains("retryThrottling"));
  EXPECT_TRUE(off.fields().contains("methodConfig"));
}

TEST(RetryServiceConfig, NoMethodConfigForASingleAttempt) {
  EXPECT_EQ(Parse(RetryServiceConfigJson({.max_attempts = 1})).fields_size(),
            0);
}

// A new RPC must be classified: retried here, or a mutation or stream below.
TEST(RetryServiceConfig, EveryRpcIsRetriedOrAKnownMutationOrStream) {
  std::set<std::string> retried;
  for (const MethodName& name : IdempotentMethods()) {
    retried.insert(std::string(name.service) + "/" + name.method);
  }
  const std::set<std::string> never_retried = {
      "sator.v1.QueryService/Session",
      "sator.v1.SceneService/CreateScene",
      "sator.v1.SceneService/DeleteScene",
      "sator.v1.SceneService/ImportScene",
      "sator.v1.BodyService/UpsertBodies",
      "sator.v1.BodyService/RemoveBodies",
      "sator.v1.BodyService/UpdatePoses",
      "grpc.health.v1.Health/Watch",
      "sator.v1.QueryService/WatchShotVerdicts"};
  // A message of each file links its services' descriptors in.
  for (const google::protobuf::FileDescriptor* file :
       {sator::v1::PingRequest::descriptor()->file(),
        sator::v1::GetSceneRequest::descriptor()->file(),
        sator::v1::UpsertBodiesRequest::descriptor()->file(),
        grpc::health::v1::HealthCheckRequest::descriptor()->file()}) {
    ASSERT_EQ(file->service_count(), 1) << file->name();
  }
  for (const char* service_name :
       {"sator.v1.QueryService", "sator.v1.SceneService",
        "sator.v1.BodyService", "grpc.health.v1.Health"}) {
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
            service_name);
    ASSERT_NE(service, nullptr) << service_name;
    for (int i = 0; i < service->method_count(); ++i) {
      const std::string name =
          service->full_name() + "/" + service->method(i)->name();
      EXPECT_NE(retried.contains(name), never_retried.contains(name)) << name;
    }
  }
  for (const std::string& name : retried) {
    const std::size_t slash = name.find('/');
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
            name.substr(0, slash));
    ASSERT_NE(service, nullptr) << name;
    EXPECT_NE(service->FindMethodByName(name.substr(slash + 1)), nullptr)
        << name << " is not an RPC";
  }
}

}  // namespace
}  // namespace sator::client_internal
