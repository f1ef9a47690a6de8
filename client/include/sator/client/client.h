// sator::Client: the C++ client that game servers link to talk to satord.
//
// Every call has a deadline (the call's own, or the client's default) and
// returns absl::Status or absl::StatusOr; gRPC status codes map one to one to
// absl status codes. No gRPC or protobuf type appears in this header: shapes,
// poses and results are sator::core's own value types, so code written
// against the in-process core moves to the service unchanged.
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
#include "sator/core/geometry2d/shapes2d.h"
#include "sator/core/geometry3d/shape3d_queries.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"

namespace sator {

namespace client_internal {
class ClientState;
}  // namespace client_internal

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

  // Calls any unary RPC of the sator.v1 API by name ("sator.v1.QueryService/
  // PairQuery" or "sator.v1.QueryService.PairQuery") with a request in
  // protobuf's JSON mapping, and returns the response in the same mapping.
  // For operators' tools (satorctl); programs should use the typed calls.
  // NOT_FOUND for an unknown method, INVALID_ARGUMENT for JSON that does not
  // parse as the request message, UNIMPLEMENTED for streaming methods.
  absl::StatusOr<std::string> CallJson(absl::string_view method,
                                       absl::string_view request_json,
                                       const CallOptions& call_options = {});

  // Pair queries, answered by the server (QueryService/PairQuery) between two
  // given shapes, with no scene. They give the answers of the core functions
  // of the same names (queries2d.h, shape3d_queries.h). INVALID_ARGUMENT
  // names the offending field, e.g. "shape_a.circle.radius: not finite".
  absl::StatusOr<bool> Overlap(const Shape2& a, const Pose2& pose_a,
                               const Shape2& b, const Pose2& pose_b,
                               const CallOptions& call_options = {});
  absl::StatusOr<ContactResult<2>> Contact(
      const Shape2& a, const Pose2& pose_a, const Shape2& b,
      const Pose2& pose_b, const CallOptions& call_options = {});
  absl::StatusOr<SweepResult<2>> Sweep(const Shape2& a, const Pose2& pose_a,
                                       Vec2 displacement_a, const Shape2& b,
                                       const Pose2& pose_b, Vec2 displacement_b,
                                       const CallOptions& call_options = {});
  absl::StatusOr<RayResult<2>> RayCast(const Shape2& shape, const Pose2& pose,
                                       const Ray<2>& ray,
                                       const CallOptions& call_options = {});

  absl::StatusOr<bool> Overlap(const Shape3& a, const Pose3& pose_a,
                               const Shape3& b, const Pose3& pose_b,
                               const CallOptions& call_options = {});
  absl::StatusOr<ContactResult<3>> Contact(
      const Shape3& a, const Pose3& pose_a, const Shape3& b,
      const Pose3& pose_b, const CallOptions& call_options = {});
  absl::StatusOr<SweepResult<3>> Sweep(const Shape3& a, const Pose3& pose_a,
                                       Vec3 displacement_a, const Shape3& b,
                                       const Pose3& pose_b, Vec3 displacement_b,
                                       const CallOptions& call_options = {});
  absl::StatusOr<RayResult<3>> RayCast(const Shape3& shape, const Pose3& pose,
                                       const Ray<3>& ray,
                                       const CallOptions& call_options = {});

 private:
  explicit Client(std::unique_ptr<client_internal::ClientState> impl);
  std::unique_ptr<client_internal::ClientState> impl_;
};

}  // namespace sator

#endif  // SATOR_CLIENT_CLIENT_H_
