// sator::Connection: the transport under sator::Client, one virtual
// method per RPC of the sator.v1 API (in the style of google-cloud-cpp's
// *Connection classes).
//
// sator::Client adds defaults, deadlines, the async calls and, where the
// connection does not retry by itself, retries on top. Three kinds exist:
// - MakeConnection(options): one gRPC channel to one satord (or to whatever
//   the target resolves to); sends `x-scene-id` metadata on every call that
//   names a scene, so that a proxy can route by scene; gRPC retries its
//   idempotent calls by options.retry (retry.h);
// - the sharded connection (sharding_connection.h): one of the above per
//   endpoint, choosing by scene id;
// - MockConnection (mocks/mock_connection.h): for unit tests of game code
//   without a server; one attempt per call, the Client retries.
//
// Every method is safe to call from many threads at once. Errors are
// absl::Status with the gRPC code and the server's message unchanged.
#ifndef SATOR_CLIENT_CONNECTION_H_
#define SATOR_CLIENT_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "sator/client/retry.h"
#include "sator/client/types.h"

namespace sator {

// The metadata key naming the scene of a call.
inline constexpr absl::string_view kSceneIdMetadataKey = "x-scene-id";

// What one attempt of a call carries besides its request.
struct CallContext {
  // The call (every attempt the connection makes) fails with
  // DEADLINE_EXCEEDED past this time.
  absl::Time deadline = absl::InfiniteFuture();
};

// How an async call reports: invoked once, with the call's result.
template <typename Result>
using Completion = absl::AnyInvocable<void(Result) &&>;

// One bidirectional Session stream. Read() and one writer (Write, WritesDone)
// may run on two threads at once; Cancel() may be called from any thread.
class SessionStream {
 public:
  virtual ~SessionStream() = default;
  // Sends one message; false when the stream is broken (Read then ends).
  virtual bool Write(const SessionRequest& request) = 0;
  // Tells the server no more messages come; it ends the stream once it has
  // answered every message.
  virtual bool WritesDone() = 0;
  // Blocks for the next reply; nullopt when the stream has ended.
  virtual std::optional<SessionReply> Read() = 0;
  // After Read() gave nullopt: how the stream ended (OK for a clean close).
  virtual absl::Status Finish() = 0;
  // Ends the stream now; a blocked Read() returns nullopt.
  virtual void Cancel() = 0;
};

// One WatchShotVerdicts stream. Read() on one thread; Cancel() from any.
class ShotVerdictStream {
 public:
  virtual ~ShotVerdictStream() = default;
  // Blocks for the next event; nullopt when the stream has ended.
  virtual std::optional<ShotVerdictEvent> Read() = 0;
  // After Read() gave nullopt: how the stream ended (OK when the server
  // ended it cleanly, CANCELLED after Cancel()).
  virtual absl::Status Finish() = 0;
  // Ends the stream now; a blocked Read() returns nullopt.
  virtual void Cancel() = 0;
};

// One WatchProximity stream. Read() on one thread; Cancel() from any.
class ProximityStream {
 public:
  virtual ~ProximityStream() = default;
  // Blocks for the next message; nullopt when the stream has ended.
  virtual std::optional<ProximityStreamEvent> Read() = 0;
  // After Read() gave nullopt: how the stream ended (OK when the server
  // ended it cleanly, CANCELLED after Cancel()).
  virtual absl::Status Finish() = 0;
  // Ends the stream now; a blocked Read() returns nullopt.
  virtual void Cancel() = 0;
};

class Connection {
 public:
  virtual ~Connection() = default;

  // Whether the connection retries idempotent calls itself (a gRPC channel
  // with a retry policy does). When false, each call is one attempt and
  // sator::Client retries the idempotent ones by ClientOptions::retry.
  virtual bool RetriesIdempotentCalls() const { return false; }

  // Whether the Async* methods below start the call and return without
  // waiting for it (a gRPC connection's do, on gRPC's callback API). When
  // false, sator::Client never calls them: its async calls run the
  // synchronous methods on client threads instead.
  virtual bool HasAsyncCalls() const { return false; }

  // ---- QueryService: service ----
  virtual absl::StatusOr<PingResult> Ping(const std::string& payload,
                                          const CallContext& context) = 0;
  // grpc.health.v1.Health/Check; NOT_FOUND for an unknown service name.
  virtual absl::StatusOr<HealthStatus> CheckHealth(
      const std::string& service, const CallContext& context) = 0;

  // ---- SceneService ----
  virtual absl::StatusOr<SceneInfo> CreateScene(const std::string& scene_id,
                                                const SceneSettings& settings,
                                                const CallContext& context) = 0;
  virtual absl::Status DeleteScene(const std::string& scene_id,
                                   const CallContext& context) = 0;
  virtual absl::StatusOr<ListScenesPage> ListScenes(
      std::uint32_t page_size, const std::string& page_token,
      const CallContext& context) = 0;
  virtual absl::StatusOr<SceneInfo> GetScene(const std::string& scene_id,
                                             const CallContext& context) = 0;
  virtual absl::StatusOr<SceneSnapshot> ExportScene(
      const std::string& scene_id, const CallContext& context) = 0;
  virtual absl::StatusOr<SceneInfo> ImportScene(const SceneSnapshot& snapshot,
                                                const CallContext& context) = 0;

  // ---- BodyService ----
  virtual absl::StatusOr<UpsertBodiesResult> UpsertBodies(
      const std::string& scene_id, const std::vector<Body>& bodies,
      const CallContext& context) = 0;
  // Returns how many bodies were removed.
  virtual absl::StatusOr<std::uint32_t> RemoveBodies(
      const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
      const CallContext& context) = 0;
  // Returns the scene's current tick after the update.
  virtual absl::StatusOr<std::int64_t> UpdatePoses(
      const std::string& scene_id, std::int64_t tick, const PoseBatch& poses,
      const CallContext& context) = 0;

  // ---- QueryService: scene queries ----
  virtual absl::StatusOr<QueryResult> Overlap(const std::string& scene_id,
                                              const OverlapQuery& query,
                                              const QueryOptions& options,
                                              const CallContext& context) = 0;
  virtual absl::StatusOr<QueryResult> Contacts(const std::string& scene_id,
                                               const ContactsQuery& query,
                                               const QueryOptions& options,
                                               const CallContext& context) = 0;
  virtual absl::StatusOr<QueryResult> Sweep(const std::string& scene_id,
                                            const SweepQuery& query,
                                            const QueryOptions& options,
                                            const CallContext& context) = 0;
  virtual absl::StatusOr<QueryResult> Raycast(const std::string& scene_id,
                                              const RaycastQuery& query,
                                              const QueryOptions& options,
                                              const CallContext& context) = 0;
  virtual absl::StatusOr<QueryResult> PointQuery(
      const std::string& scene_id, const ::sator::PointQuery& query,
      const QueryOptions& options, const CallContext& context) = 0;
  // One entry per query, in order; the call fails as a whole only when the
  // batch cannot be run at all (unknown scene, batch over the limit...).
  virtual absl::StatusOr<std::vector<BatchEntry>> QueryBatch(
      const std::string& scene_id, const std::vector<Query>& queries,
      const CallContext& context) = 0;
  // Many rays of one dimension with shared options, in the packed form;
  // all or nothing (a bad ray fails the call, naming its array element).
  virtual absl::StatusOr<RaycastBatchResult> RaycastBatch(
      const std::string& scene_id, absl::Span<const RaycastQuery> rays,
      const QueryOptions& options, const CallContext& context) = 0;
  virtual absl::StatusOr<PairQueryResult> PairQuery(
      const PairQueryRequest& request, const CallContext& context) = 0;
  // Judges shots on one snapshot of the scene (docs/HIT_VALIDATION.md): one
  // verdict per shot, in order; a malformed shot fails the call.
  virtual absl::StatusOr<ValidateShotsResult> ValidateShots(
      const std::string& scene_id, absl::Span<const Shot> shots,
      const HitPolicy& policy, const CallContext& context) = 0;

  // A page of the scene's audit trail of verdicts.
  virtual absl::StatusOr<ShotVerdictPage> ListShotVerdicts(
      const std::string& scene_id, const ShotVerdictPageRequest& request,
      const CallContext& context) = 0;
  // Follows the scene's verdicts as they are recorded (from `from_sequence`
  // when set). The stream has no deadline. Errors (NOT_FOUND,
  // INVALID_ARGUMENT "from_sequence: ...") come from Finish().
  virtual absl::StatusOr<std::unique_ptr<ShotVerdictStream>> WatchShotVerdicts(
      const std::string& scene_id,
      std::optional<std::uint64_t> from_sequence) = 0;

  // ---- ProximityService ----
  // The scene's tick when the zone or observer was added.
  virtual absl::StatusOr<std::int64_t> AddZone(const std::string& scene_id,
                                               const Zone& zone,
                                               const CallContext& context) = 0;
  virtual absl::StatusOr<std::int64_t> AddObserver(
      const std::string& scene_id, const Observer& observer,
      const CallContext& context) = 0;
  virtual absl::Status RemoveZone(const std::string& scene_id,
                                  std::uint64_t zone_id,
                                  const CallContext& context) = 0;
  virtual absl::Status RemoveObserver(const std::string& scene_id,
                                      std::uint64_t observer_id,
                                      const CallContext& context) = 0;
  virtual absl::StatusOr<ProximityState> GetProximity(
      const std::string& scene_id, const CallContext& context) = 0;
  // Follows the scene's evaluations from `start`. The stream has no deadline;
  // errors come from Finish().
  virtual absl::StatusOr<std::unique_ptr<ProximityStream>> WatchProximity(
      const std::string& scene_id, const ProximityWatchStart& start) = 0;

  // Opens a Session stream for `scene_id` (sent as metadata; the caller
  // writes the SessionOpen message). The stream has no deadline.
  virtual absl::StatusOr<std::unique_ptr<SessionStream>> OpenSession(
      const std::string& scene_id) = 0;

  // Any unary RPC by name with a request in protobuf's JSON mapping (for
  // operators' tools). UNIMPLEMENTED where the connection cannot do it.
  virtual absl::StatusOr<std::string> CallJson(const std::string& method,
                                               const std::string& request_json,
                                               const CallContext& context) = 0;

  // ---- Async calls (one attempt each, like the methods above) ----
  // Each starts the call of the same name and returns; `done` runs once
  // with the result, on a thread of the connection (gRPC's), possibly
  // before the method returns. The arguments are read before it returns.
  // The defaults make the synchronous call, then run `done`, on the
  // caller's thread (HasAsyncCalls() false). MakeConnection's and
  // ShardedConnection's destructors wait for the calls in flight, so the
  // last reference to a connection must not be dropped within one of its
  // own completions.
  virtual void AsyncPing(const std::string& payload, const CallContext& context,
                         Completion<absl::StatusOr<PingResult>> done);
  virtual void AsyncCreateScene(const std::string& scene_id,
                                const SceneSettings& settings,
                                const CallContext& context,
                                Completion<absl::StatusOr<SceneInfo>> done);
  virtual void AsyncDeleteScene(const std::string& scene_id,
                                const CallContext& context,
                                Completion<absl::Status> done);
  virtual void AsyncListScenes(std::uint32_t page_size,
                               const std::string& page_token,
                               const CallContext& context,
                               Completion<absl::StatusOr<ListScenesPage>> done);
  virtual void AsyncGetScene(const std::string& scene_id,
                             const CallContext& context,
                             Completion<absl::StatusOr<SceneInfo>> done);
  virtual void AsyncExportScene(const std::string& scene_id,
                                const CallContext& context,
                                Completion<absl::StatusOr<SceneSnapshot>> done);
  virtual void AsyncImportScene(const SceneSnapshot& snapshot,
                                const CallContext& context,
                                Completion<absl::StatusOr<SceneInfo>> done);
  virtual void AsyncUpsertBodies(
      const std::string& scene_id, const std::vector<Body>& bodies,
      const CallContext& context,
      Completion<absl::StatusOr<UpsertBodiesResult>> done);
  virtual void AsyncRemoveBodies(
      const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
      const CallContext& context,
      Completion<absl::StatusOr<std::uint32_t>> done);
  virtual void AsyncUpdatePoses(const std::string& scene_id, std::int64_t tick,
                                const PoseBatch& poses,
                                const CallContext& context,
                                Completion<absl::StatusOr<std::int64_t>> done);
  virtual void AsyncOverlap(const std::string& scene_id,
                            const OverlapQuery& query,
                            const QueryOptions& options,
                            const CallContext& context,
                            Completion<absl::StatusOr<QueryResult>> done);
  virtual void AsyncContacts(const std::string& scene_id,
                             const ContactsQuery& query,
                             const QueryOptions& options,
                             const CallContext& context,
                             Completion<absl::StatusOr<QueryResult>> done);
  virtual void AsyncSweep(const std::string& scene_id, const SweepQuery& query,
                          const QueryOptions& options,
                          const CallContext& context,
                          Completion<absl::StatusOr<QueryResult>> done);
  virtual void AsyncRaycast(const std::string& scene_id,
                            const RaycastQuery& query,
                            const QueryOptions& options,
                            const CallContext& context,
                            Completion<absl::StatusOr<QueryResult>> done);
  virtual void AsyncPointQuery(const std::string& scene_id,
                               const ::sator::PointQuery& query,
                               const QueryOptions& options,
                               const CallContext& context,
                               Completion<absl::StatusOr<QueryResult>> done);
  virtual void AsyncQueryBatch(
      const std::string& scene_id, const std::vector<Query>& queries,
      const CallContext& context,
      Completion<absl::StatusOr<std::vector<BatchEntry>>> done);
  virtual void AsyncRaycastBatch(
      const std::string& scene_id, absl::Span<const RaycastQuery> rays,
      const QueryOptions& options, const CallContext& context,
      Completion<absl::StatusOr<RaycastBatchResult>> done);
  virtual void AsyncPairQuery(const PairQueryRequest& request,
                              const CallContext& context,
                              Completion<absl::StatusOr<PairQueryResult>> done);
  virtual void AsyncValidateShots(
      const std::string& scene_id, absl::Span<const Shot> shots,
      const HitPolicy& policy, const CallContext& context,
      Completion<absl::StatusOr<ValidateShotsResult>> done);
};

// How the client speaks TLS. PEM contents, not file names (read them with
// your own secret handling).
struct ClientTls {
  bool enabled = false;
  // The CA that signed satord's certificate; empty: the system's roots.
  std::string root_certificates_pem{};
  // For mutual TLS (--tls_client_ca_file): this client's chain and key.
  std::string certificate_chain_pem{};
  std::string private_key_pem{};
  // Checks the server certificate against this name instead of the
  // target's host (for addresses that are not in the certificate).
  std::string server_name_override{};
};

struct ConnectionOptions {
  // A gRPC target: "host:port", "dns:///name:port", "unix:/path"...
  std::string target = "127.0.0.1:50051";
  // HTTP/2 keepalive: while calls or sessions are open, a ping after this
  // long without traffic, and the connection is dropped (calls fail with
  // UNAVAILABLE) if no answer comes within keepalive_timeout; a dead server
  // behind an idle Session is noticed this way. The server must allow pings
  // this often: satord keeps gRPC's default minimum of 5 minutes, and a
  // server treats pings sent more often as abuse (GOAWAY "too_many_pings").
  // Zero disables keepalive.
  absl::Duration keepalive_time = absl::Seconds(330);
  absl::Duration keepalive_timeout = absl::Seconds(20);
  // The largest message sent or received (satord's default is 4 MiB). Also
  // the retry buffer of a call: gRPC keeps a request up to this size to
  // send it again.
  int max_message_bytes = 4 * 1024 * 1024;
  // gRPC's retries of the idempotent calls (retry.h): the channel's service
  // config. {.max_attempts = 1} turns them off.
  RetryPolicy retry{};
  // The longest wait between two attempts to reconnect a lost connection
  // (gRPC's default is 120 s; a game server wants its collision service back
  // sooner).
  absl::Duration max_reconnect_backoff = absl::Seconds(5);
  // TLS to a satord started with --tls_cert_file (docs/OPERATIONS.md).
  ClientTls tls{};
  // Sent as `authorization: Bearer <token>` on every call, to a satord
  // started with --auth_token_file. Works over TLS and plaintext alike, but
  // in plaintext the token crosses the network readable: use TLS.
  std::string bearer_token{};
};

// A Connection over one gRPC channel (TLS when options.tls.enabled) that
// retries its idempotent calls by options.retry. The channel connects
// lazily, on the first call. INVALID_ARGUMENT names a bad option.
absl::StatusOr<std::shared_ptr<Connection>> MakeConnection(
    const ConnectionOptions& options);

}  // namespace sator

#endif  // SATOR_CLIENT_CONNECTION_H_
