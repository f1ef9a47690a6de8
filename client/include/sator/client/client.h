// sator::Client: the C++ client that game servers link to talk to satord.
//
// Every call has a deadline (the call's own, or the client's default) and
// returns absl::Status or absl::StatusOr; gRPC status codes map one to one to
// absl status codes. No gRPC or protobuf type appears in this header.
//
//   absl::StatusOr<std::unique_ptr<sator::Client>> client =
//       sator::Client::Create({.target = "127.0.0.1:50051"});
//   absl::StatusOr<sator::PingResult> pong = (*client)->Ping("hello");
#ifndef SATOR_CLIENT_CLIENT_H_
#define SATOR_CLIENT_CLIENT_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sator {

struct ClientOptions {
  // A gRPC target: "host:port", "dns:///name:port", "unix:/path"...
  std::string target = "127.0.0.1:50051";
  // The deadline of a call whose CallOptions name none.
  absl::Duration default_deadline = absl::Seconds(5);
};

struct CallOptions {
  // Overrides ClientOptions::default_deadline for this call.
  std::optional<absl::Duration> deadline;
};

struct PingResult {
  std::string payload;
  std::string server_version;
};

enum class HealthStatus {
  kUnknown,
  kServing,
  kNotServing,
};

class Client {
 public:
  // Creates a client; the connection is made lazily on the first call.
  static absl::StatusOr<std::unique_ptr<Client>> Create(
      const ClientOptions& options);

  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Echoes `payload` through the server's Ping RPC.
  absl::StatusOr<PingResult> Ping(absl::string_view payload,
                                  const CallOptions& call_options = {});

  // Asks grpc.health.v1.Health/Check about `service` ("" is the whole
  // server). NOT_FOUND when the server does not know the service name.
  absl::StatusOr<HealthStatus> CheckHealth(
      absl::string_view service = "", const CallOptions& call_options = {});

 private:
  class Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sator

#endif  // SATOR_CLIENT_CLIENT_H_
