// satorctl's shared flags and helpers (see common.h).
#include "tools/satorctl/common.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/json_util.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "satord's gRPC address.");
ABSL_FLAG(absl::Duration, deadline, absl::Seconds(5), "Deadline of each call.");
ABSL_FLAG(std::string, json, "", "The request as JSON.");
ABSL_FLAG(std::string, file, "",
          "Read the request JSON from this file ('-': stdin).");
ABSL_FLAG(std::string, f, "", "Short for --file.");
ABSL_FLAG(bool, tls, false,
          "Speak TLS, checking satord's certificate against the system's "
          "roots (implied by any other --tls_* flag).");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM file of the CA that signed satord's certificate (TLS).");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate chain of this client, for mutual TLS (with "
          "--tls_key).");
ABSL_FLAG(std::string, tls_key, "",
          "PEM private key of --tls_cert, for mutual TLS.");
ABSL_FLAG(std::string, tls_server_name, "",
          "Check satord's certificate against this name instead of the "
          "target's host (TLS).");
ABSL_FLAG(std::string, token_file, "",
          "File holding the bearer token sent as `authorization: Bearer` "
          "(the first line, surrounding spaces dropped).");
ABSL_FLAG(std::string, token, "",
          "The bearer token itself. Visible to every user in `ps`: prefer "
          "--token_file.");

namespace sator::satorctl {
namespace {

// The whole file at `path` ('-': stdin).
absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  FILE* in = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (in == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path));
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

// ReadWholeFile for the file named by --`flag`, the flag named in errors.
absl::StatusOr<std::string> ReadFlagFile(absl::string_view flag,
                                         const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    return absl::Status(
        text.status().code(),
        absl::StrCat("--", flag, ": ", text.status().message()));
  }
  return text;
}

absl::Status ReadTlsFlags(client::ClientTls* tls) {
  const std::string ca = absl::GetFlag(FLAGS_tls_ca);
  const std::string cert = absl::GetFlag(FLAGS_tls_cert);
  const std::string key = absl::GetFlag(FLAGS_tls_key);
  tls->server_name_override = absl::GetFlag(FLAGS_tls_server_name);
  if (cert.empty() != key.empty()) {
    return absl::InvalidArgumentError(
        "give --tls_cert and --tls_key together, or neither");
  }
  tls->enabled = absl::GetFlag(FLAGS_tls) || !ca.empty() || !cert.empty() ||
                 !tls->server_name_override.empty();
  if (!ca.empty()) {
    absl::StatusOr<std::string> pem = ReadFlagFile("tls_ca", ca);
    if (!pem.ok()) return pem.status();
    tls->root_certificates_pem = *std::move(pem);
  }
  if (!cert.empty()) {
    absl::StatusOr<std::string> chain = ReadFlagFile("tls_cert", cert);
    if (!chain.ok()) return chain.status();
    absl::StatusOr<std::string> private_key = ReadFlagFile("tls_key", key);
    if (!private_key.ok()) return private_key.status();
    tls->certificate_chain_pem = *std::move(chain);
    tls->private_key_pem = *std::move(private_key);
  }
  return absl::OkStatus();
}

// The token from --token_file (its first line, without surrounding
// whitespace) or --token; "" when neither is given.
absl::StatusOr<std::string> ReadToken() {
  const std::string file = absl::GetFlag(FLAGS_token_file);
  std::string token = absl::GetFlag(FLAGS_token);
  if (!file.empty() && !token.empty()) {
    return absl::InvalidArgumentError("give --token_file or --token, not both");
  }
  if (!file.empty()) {
    absl::StatusOr<std::string> text = ReadFlagFile("token_file", file);
    if (!text.ok()) return text.status();
    const std::vector<absl::string_view> lines = absl::StrSplit(*text, '\n');
    token = std::string(absl::StripAsciiWhitespace(lines.front()));
    if (token.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--token_file: ", file, " has no token on its first line"));
    }
  }
  // Never echo the token: it is a secret.
  for (const char c : token) {
    if (static_cast<unsigned char>(c) <= 0x20 ||
        static_cast<unsigned char>(c) >= 0x7f) {
      return absl::InvalidArgumentError(
          "the bearer token holds a space or a control character");
    }
  }
  return token;
}

}  // namespace

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
  return ReadWholeFile(file);
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

absl::StatusOr<Client> Connect() {
  ClientOptions options;
  options.target = absl::GetFlag(FLAGS_target);
  options.default_deadline = absl::GetFlag(FLAGS_deadline);
  if (absl::Status tls = ReadTlsFlags(&options.tls); !tls.ok()) return tls;
  absl::StatusOr<std::string> token = ReadToken();
  if (!token.ok()) return token.status();
  options.bearer_token = *std::move(token);
  return Client::Make(options);
}

int CallAndPrint(absl::string_view method,
                 const google::protobuf::Message& request) {
  std::string request_json;
  (void)google::protobuf::util::MessageToJsonString(request, &request_json);
  absl::StatusOr<Client> client = Connect();
  if (!client.ok()) return Fail(client.status());
  absl::StatusOr<std::string> response = client->CallJson(method, request_json);
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
