// satorctl's general commands: ping, health, call (any unary RPC as JSON) and
// pair (a PairQuery, remote or --local in-process).
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "proto/convert/pair_query.h"
#include "sator/v1/query_service.pb.h"
#include "tools/satorctl/commands.h"
#include "tools/satorctl/common.h"

ABSL_FLAG(std::string, payload, "", "ping: the payload to echo.");
ABSL_FLAG(std::string, service, "", "health: the service name to check.");
ABSL_FLAG(bool, local, false,
          "pair: answer in-process with the server's code, no server.");

namespace sator::satorctl {
namespace {

// PairQuery in-process: the same validation and core calls as satord.
absl::StatusOr<std::string> LocalPairQuery(const std::string& request_json) {
  sator::v1::PairQueryRequest request;
  if (const auto parsed =
          google::protobuf::util::JsonStringToMessage(request_json, &request);
      !parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("request is not a valid sator.v1.PairQueryRequest: ",
                     std::string(parsed.message())));
  }
  sator::v1::PairQueryResponse response;
  if (absl::Status status =
          sator::convert::RunPairQuery(request, {}, &response);
      !status.ok()) {
    return status;
  }
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(response, &json, options);
  return json;
}

int CallJsonAndPrint(const std::string& method) {
  absl::StatusOr<std::string> request = ReadRequestJson();
  if (!request.ok()) return Fail(request.status());
  absl::StatusOr<Client> client = Connect();
  if (!client.ok()) return Fail(client.status());
  absl::StatusOr<std::string> response = client->CallJson(method, *request);
  if (!response.ok()) return Fail(response.status());
  std::printf("%s\n", response->c_str());
  return 0;
}

}  // namespace

int RunPing(const Args& /*args*/) {
  absl::StatusOr<Client> client = Connect();
  if (!client.ok()) return Fail(client.status());
  absl::StatusOr<PingResult> result =
      client->Ping(absl::GetFlag(FLAGS_payload));
  if (!result.ok()) return Fail(result.status());
  std::printf("{\"payload\":%s,\"server_version\":%s}\n",
              JsonString(result->payload).c_str(),
              JsonString(result->server_version).c_str());
  return 0;
}

int RunHealth(const Args& /*args*/) {
  absl::StatusOr<Client> client = Connect();
  if (!client.ok()) return Fail(client.status());
  absl::StatusOr<HealthStatus> result =
      client->CheckHealth(absl::GetFlag(FLAGS_service));
  if (!result.ok()) return Fail(result.status());
  const char* name = *result == HealthStatus::kServing      ? "SERVING"
                     : *result == HealthStatus::kNotServing ? "NOT_SERVING"
                                                            : "UNKNOWN";
  std::printf("{\"status\":\"%s\"}\n", name);
  return 0;
}

int RunCall(const Args& args) {
  if (args.size() != 1) {
    return UsageError("call needs a method name", kCallUsage);
  }
  return CallJsonAndPrint(args[0]);
}

int RunPair(const Args& /*args*/) {
  if (absl::GetFlag(FLAGS_local)) {
    absl::StatusOr<std::string> request = ReadRequestJson();
    if (!request.ok()) return Fail(request.status());
    absl::StatusOr<std::string> response = LocalPairQuery(*request);
    if (!response.ok()) return Fail(response.status());
    std::printf("%s\n", response->c_str());
    return 0;
  }
  return CallJsonAndPrint("sator.v1.QueryService/PairQuery");
}

}  // namespace sator::satorctl
