// satorctl: talk to satord from the command line. Answers are JSON on stdout;
// errors go to stderr as "satorctl: CODE: message" with exit status 1.
//
//   satorctl ping [--payload=TEXT]
//   satorctl health [--service=NAME]
//   satorctl call sator.v1.SceneService/GetScene --json='{"scene_id":"arena"}'
//   satorctl pair --file=pair.json [--local]
//
// `call` makes any unary RPC with its request and response in protobuf's JSON
// mapping; `pair` is `call sator.v1.QueryService/PairQuery`, or with --local
// answers in-process through the same code the server runs, with no server.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "sator/client/client.h"
#include "sator/v1/query_service.pb.h"
#include "server/pair_query.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "satord's gRPC address.");
ABSL_FLAG(absl::Duration, deadline, absl::Seconds(5), "Deadline of each call.");
ABSL_FLAG(std::string, payload, "", "ping: the payload to echo.");
ABSL_FLAG(std::string, service, "", "health: the service name to check.");
ABSL_FLAG(std::string, json, "", "call, pair: the request as JSON.");
ABSL_FLAG(std::string, file, "",
          "call, pair: read the request JSON from this file ('-': stdin).");
ABSL_FLAG(bool, local, false,
          "pair: answer in-process with the server's code, no server.");

namespace {

constexpr char kUsage[] =
    "satorctl COMMAND [--flags]\n"
    "Commands:\n"
    "  ping     call Ping; prints {\"payload\":...,\"server_version\":...}\n"
    "  health   call grpc.health.v1 Check; prints {\"status\":...}\n"
    "  call M   call the unary RPC M (e.g. sator.v1.QueryService/PairQuery)\n"
    "           with --json or --file; prints the response as JSON\n"
    "  pair     a PairQuery (--json or --file); --local needs no server\n";

std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, "\\u00", absl::Hex(c, absl::kZeroPad2));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

absl::StatusOr<std::string> ReadRequestJson() {
  const std::string json = absl::GetFlag(FLAGS_json);
  const std::string file = absl::GetFlag(FLAGS_file);
  if (!json.empty() && !file.empty()) {
    return absl::InvalidArgumentError("give --json or --file, not both");
  }
  if (!json.empty()) return json;
  if (file.empty()) return std::string("{}");
  FILE* in = file == "-" ? stdin : std::fopen(file.c_str(), "rb");
  if (in == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot read ", file));
  }
  std::string text;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), in)) > 0) {
    text.append(buffer, n);
  }
  if (in != stdin) std::fclose(in);
  return text;
}

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
  if (absl::Status status = sator::server::RunPairQuery(request, {}, &response);
      !status.ok()) {
    return status;
  }
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(response, &json, options);
  return json;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "satorctl: %s: %s\n",
               absl::StatusCodeToString(status.code()).c_str(),
               std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() < 2) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  const std::string command = positional[1];
  if (command == "pair" && absl::GetFlag(FLAGS_local)) {
    absl::StatusOr<std::string> request = ReadRequestJson();
    if (!request.ok()) return Fail(request.status());
    absl::StatusOr<std::string> response = LocalPairQuery(*request);
    if (!response.ok()) return Fail(response.status());
    std::printf("%s\n", response->c_str());
    return 0;
  }

  absl::StatusOr<std::unique_ptr<sator::Client>> client = sator::Client::Create(
      {.target = absl::GetFlag(FLAGS_target),
       .default_deadline = absl::GetFlag(FLAGS_deadline)});
  if (!client.ok()) return Fail(client.status());

  if (command == "ping") {
    absl::StatusOr<sator::PingResult> result =
        (*client)->Ping(absl::GetFlag(FLAGS_payload));
    if (!result.ok()) return Fail(result.status());
    std::printf("{\"payload\":%s,\"server_version\":%s}\n",
                JsonString(result->payload).c_str(),
                JsonString(result->server_version).c_str());
    return 0;
  }
  if (command == "health") {
    absl::StatusOr<sator::HealthStatus> result =
        (*client)->CheckHealth(absl::GetFlag(FLAGS_service));
    if (!result.ok()) return Fail(result.status());
    const char* name = *result == sator::HealthStatus::kServing ? "SERVING"
                       : *result == sator::HealthStatus::kNotServing
                           ? "NOT_SERVING"
                           : "UNKNOWN";
    std::printf("{\"status\":\"%s\"}\n", name);
    return 0;
  }
  if (command == "call" || command == "pair") {
    std::string method = "sator.v1.QueryService/PairQuery";
    if (command == "call") {
      if (positional.size() != 3) {
        std::fprintf(stderr, "satorctl: call needs a method name\n%s", kUsage);
        return 2;
      }
      method = positional[2];
    }
    absl::StatusOr<std::string> request = ReadRequestJson();
    if (!request.ok()) return Fail(request.status());
    absl::StatusOr<std::string> response =
        (*client)->CallJson(method, *request);
    if (!response.ok()) return Fail(response.status());
    std::printf("%s\n", response->c_str());
    return 0;
  }
  std::fprintf(stderr, "satorctl: unknown command '%s'\n%s", command.c_str(),
               kUsage);
  return 2;
}
