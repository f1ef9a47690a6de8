// satorctl's shared flags and helpers (see common.h).
#include "tools/satorctl/common.h"

#include <cstdio>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "satord's gRPC address.");
ABSL_FLAG(absl::Duration, deadline, absl::Seconds(5), "Deadline of each call.");
ABSL_FLAG(std::string, json, "", "The request as JSON.");
ABSL_FLAG(std::string, file, "",
          "Read the request JSON from this file ('-': stdin).");
ABSL_FLAG(std::string, f, "", "Short for --file.");

namespace sator::satorctl {

absl::StatusOr<std::string> ReadRequestJson() {
  const std::string json = absl::GetFlag(FLAGS_json);
  std::string file = absl::GetFlag(FLAGS_file);
  const std::string short_file = absl::GetFlag(FLAGS_f);
  if (!file.empty() && !short_file.empty()) {
    return absl::InvalidArgumentError("give --file or -f, not both");
  }
  if (file.empty()) file = short_file;
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

absl::Status ReadRequest(google::protobuf::Message* message) {
  absl::StatusOr<std::string> json = ReadRequestJson();
  if (!json.ok()) return json.status();
  if (const auto parsed =
          google::protobuf::util::JsonStringToMessage(*json, message);
      !parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("request is not a valid ", message->GetTypeName(), ": ",
                     std::string(parsed.message())));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Client>> Connect() {
  return Client::Create({.target = absl::GetFlag(FLAGS_target),
                         .default_deadline = absl::GetFlag(FLAGS_deadline)});
}

int CallAndPrint(absl::string_view method,
                 const google::protobuf::Message& request) {
  std::string request_json;
  (void)google::protobuf::util::MessageToJsonString(request, &request_json);
  absl::StatusOr<std::unique_ptr<Client>> client = Connect();
  if (!client.ok()) return Fail(client.status());
  absl::StatusOr<std::string> response =
      (*client)->CallJson(method, request_json);
  if (!response.ok()) return Fail(response.status());
  std::printf("%s\n", response->c_str());
  return 0;
}

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

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "satorctl: %s: %s\n",
               absl::StatusCodeToString(status.code()).c_str(),
               std::string(status.message()).c_str());
  return kExitFailed;
}

int UsageError(absl::string_view message, absl::string_view usage) {
  std::fprintf(stderr, "satorctl: %s\n%s", std::string(message).c_str(),
               std::string(usage).c_str());
  return kExitUsage;
}

}  // namespace sator::satorctl
