// sator::Client: the C++ client that game servers link to talk to satord.
//
// Every RPC of the sator.v1 API is a synchronous call returning absl::Status
// or absl::StatusOr<T>, and, but for the audit-trail and proximity calls, an
// Async* twin in two forms: one taking a completion callback (every argument
// spelled out, the callback last) and one returning a std::future of the
// same. Every call has a deadline
// (the call's own, or the client's default) that bounds all its attempts
// together; idempotent calls are retried on UNAVAILABLE and on
// RESOURCE_EXHAUSTED that the server marks as load shed, by gRPC's retry policy
// over a gRPC channel and by the client's own loop over a mock (retry.h says
// exactly when). Errors keep the gRPC code and the server's message, e.g.
// INVALID_ARGUMENT "bodies[3].shape.polygon.vertices[2].x: not finite".
//
// A Client is a plain object: construct it and call it.
//
//   sator::Client client({.target = "127.0.0.1:50051"});
//   absl::StatusOr<sator::PingResult> pong = client.Ping("hello");
//
// The connection is made lazily, on the first call. Options that cannot work
// (an empty target, a negative deadline) do not throw: every call of that
// client fails with INVALID_ARGUMENT naming the option, and status() says it
// at once; Client::Make() returns the error instead of the client.
//
// No gRPC or protobuf type appears here: shapes, poses and results are
// sator's core value types and the records of types.h, all in namespace
// sator. The transport is a sator::Connection (connection.h); tests of game
// code can give the constructor a MockConnection (mocks/mock_connection.h)
// instead of a server.
//
// The async calls. Over a gRPC connection (and a ShardedConnection of
// them) they are gRPC's callback API: the
// call is started and Async* returns; no client thread waits for it, so
// thousands can be in flight at once. The completion runs once, on a gRPC
// thread (keep it short, never block in it, and never destroy the client
// from it); a call refused before it is sent (a bad option or argument)
// completes at once, on the caller's thread. A game loop that wants its
// answers on its own thread, with no locks on its state, takes the future
// form and collects them at a point of its choosing (future::get, or
// wait_for(0) to poll). Over a connection without async calls
// (Connection::HasAsyncCalls false: a MockConnection, a ShardedConnection
// whose factory makes such connections, with endpoints_async = false)
// an async call runs the synchronous one, retries included, on a client
// thread, started as needed up to ClientOptions::async_threads (more wait
// their turn). The client's destructor waits for every async call it
// started. The per-tick hot path is a Session (session.h) or a QueryBatch.
#ifndef SATOR_CLIENT_CLIENT_H_
#define SATOR_CLIENT_CLIENT_H_

#include <cstdint>
#include <functional>
#include <future>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "sator/client/clock.h"
#include "sator/client/connection.h"
#include "sator/client/field_violations.h"
#include "sator/client/retry.h"
#include "sator/client/session.h"
#include "sator/client/types.h"
#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"

namespace sator {

namespace client_internal {
class ClientState;
class ClientFactory;
}  // namespace client_internal

struct ClientOptions {
  // A gRPC target: "host:port", "dns:///name:port", "unix:/path"... Ignored
  // by Create(connection, options).
  std::string target = "127.0.0.1:50051";
  // The deadline of a call whose CallOptions name none; it bounds all the
  // attempts of the call together.
  absl::Duration default_deadline = absl::Seconds(5);
  // Retries of idempotent calls (retry.h): the gRPC channel's retry policy
  // (ConnectionOptions::retry) for a client made from a target, the
  // client's own loop over a given connection that does not retry by
  // itself (Connection::RetriesIdempotentCalls). {.max_attempts = 1}: none.
  RetryPolicy retry{};
  // Channel settings (see ConnectionOptions).
  absl::Duration keepalive_time = absl::Seconds(330);
  absl::Duration keepalive_timeout = absl::Seconds(20);
  int max_message_bytes = 4 * 1024 * 1024;
  absl::Duration max_reconnect_backoff = absl::Seconds(5);
  // TLS and a bearer token (see ConnectionOptions in connection.h).
  ClientTls tls{};
  std::string bearer_token{};
  // The most threads running Async* calls over a connection without async
  // calls of its own (started as needed, kept until the client is
  // destroyed); calls beyond wait for a free one.
  int async_threads = 16;
  // The time the client keeps (clock.h): null for the real clock; a
  // FakeClock for tests over a given connection. A client made from a
  // target refuses one.
  std::shared_ptr<Clock> clock{};
};

struct CallOptions {
  // Overrides ClientOptions::default_deadline for this call.
  std::optional<absl::Duration> deadline{};
  // Scene queries only: run at this past tick and fraction, overriding the
  // query's own QueryOptions::rewind (per QueryBatch entry too).
  std::optional<Rewind> rewind{};
};

// All scenes, fetched a page at a time as the loop advances:
//   for (const absl::StatusOr<SceneInfo>& scene :
//        client->ListAllScenes()) {
//     if (!scene.ok()) return scene.status();  // the last element
//     ...
//   }
class SceneRange {
 public:
  using PageFetcher = std::function<absl::StatusOr<ListScenesPage>(
      const std::string& page_token)>;

  // Named as the standard library names a range's iterator type (Google
  // style allows STL-like names for STL-like types).
  class iterator {  // NOLINT(readability-identifier-naming)
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = absl::StatusOr<SceneInfo>;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;

    iterator() = default;
    reference operator*() const { return range_->current_; }
    pointer operator->() const { return &range_->current_; }
    iterator& operator++() {
      if (!range_->Advance()) range_ = nullptr;
      return *this;
    }
    bool operator==(const iterator& other) const {
      return range_ == other.range_;
    }

   private:
    friend class SceneRange;
    explicit iterator(SceneRange* range) : range_(range) {}
    SceneRange* range_ = nullptr;
  };

  explicit SceneRange(PageFetcher fetch) : fetch_(std::move(fetch)) {}
  // Starts the walk (single pass: call once).
  iterator begin() { return iterator(Advance() ? this : nullptr); }
  iterator end() { return iterator(); }

 private:
  // Moves to the next scene (fetching a page if needed); false at the end.
  bool Advance();

  PageFetcher fetch_;
  std::vector<SceneInfo> page_;
  std::size_t next_in_page_ = 0;
  std::string next_token_;
  bool fetched_any_ = false;
  bool done_ = false;
  absl::StatusOr<SceneInfo> current_;
};

class Client {
 public:
  // A client over a new gRPC connection to options.target, made lazily on
  // the first call. A bad option makes every call fail with INVALID_ARGUMENT
  // naming it (see status()).
  explicit Client(const ClientOptions& options = {});
  // A client over a given connection: a sharded one, or a MockConnection in
  // tests. A null connection or a bad option fails every call, as above.
  explicit Client(std::shared_ptr<Connection> connection,
                  const ClientOptions& options = {});
  // The same, but a bad option is returned here instead of at the first
  // call.
  static absl::StatusOr<Client> Make(const ClientOptions& options = {});
  static absl::StatusOr<Client> Make(std::shared_ptr<Connection> connection,
                                     const ClientOptions& options = {});

  // Waits for the async calls already started to complete.
  ~Client();
  // Movable (a moved-from client may only be assigned to or destroyed), not
  // copyable: it owns the threads of its async calls.
  Client(Client&& other) noexcept;
  Client& operator=(Client&& other) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // OK, or why every call of this client fails (a bad option).
  absl::Status status() const;

  const std::shared_ptr<Connection>& connection() const;

  // ---- Service ----
  // Echoes `payload` through the server's Ping RPC.
  absl::StatusOr<PingResult> Ping(absl::string_view payload,
                                  const CallOptions& call_options = {});
  std::future<absl::StatusOr<PingResult>> AsyncPing(
      std::string payload, const CallOptions& call_options = {});
  void AsyncPing(std::string payload, const CallOptions& call_options,
                 Completion<absl::StatusOr<PingResult>> done);

  // Asks grpc.health.v1.Health/Check about `service` ("" is the whole
  // server). NOT_FOUND when the server does not know the service name.
  absl::StatusOr<HealthStatus> CheckHealth(
      absl::string_view service = "", const CallOptions& call_options = {});

  // Calls any unary RPC of the sator.v1 API by name ("sator.v1.QueryService/
  // PairQuery" or "sator.v1.QueryService.PairQuery") with a request in
  // protobuf's JSON mapping, and returns the response in the same mapping.
  // For operators' tools (satorctl); programs should use the typed calls.
  // NOT_FOUND for an unknown method, INVALID_ARGUMENT for JSON that does not
  // parse as the request message, UNIMPLEMENTED for streaming methods. A
  // gRPC channel retries it when the method is idempotent (retry.h); the
  // client's own loop never does (the method may be a mutation).
  absl::StatusOr<std::string> CallJson(absl::string_view method,
                                       absl::string_view request_json,
                                       const CallOptions& call_options = {});

  // ---- Scenes ----
  // An empty `scene_id` asks the server to choose one (returned in the
  // SceneInfo). ALREADY_EXISTS if the id is taken.
  absl::StatusOr<SceneInfo> CreateScene(const std::string& scene_id,
                                        const SceneSettings& settings,
                                        const CallOptions& call_options = {});
  std::future<absl::StatusOr<SceneInfo>> AsyncCreateScene(
      std::string scene_id, SceneSettings settings,
      const CallOptions& call_options = {});
  void AsyncCreateScene(std::string scene_id, SceneSettings settings,
                        const CallOptions& call_options,
                        Completion<absl::StatusOr<SceneInfo>> done);
  absl::Status DeleteScene(const std::string& scene_id,
                           const CallOptions& call_options = {});
  std::future<absl::Status> AsyncDeleteScene(
      std::string scene_id, const CallOptions& call_options = {});
  void AsyncDeleteScene(std::string scene_id, const CallOptions& call_options,
                        Completion<absl::Status> done);
  // One page of scenes in id order (page_size 0: the server's default).
  absl::StatusOr<ListScenesPage> ListScenes(
      std::uint32_t page_size = 0, const std::string& page_token = "",
      const CallOptions& call_options = {});
  std::future<absl::StatusOr<ListScenesPage>> AsyncListScenes(
      std::uint32_t page_size = 0, std::string page_token = "",
      const CallOptions& call_options = {});
  void AsyncListScenes(std::uint32_t page_size, std::string page_token,
                       const CallOptions& call_options,
                       Completion<absl::StatusOr<ListScenesPage>> done);
  // Every scene, page after page (each page a call with `call_options`).
  SceneRange ListAllScenes(std::uint32_t page_size = 0,
                           const CallOptions& call_options = {});
  absl::StatusOr<SceneInfo> GetScene(const std::string& scene_id,
                                     const CallOptions& call_options = {});
  std::future<absl::StatusOr<SceneInfo>> AsyncGetScene(
      std::string scene_id, const CallOptions& call_options = {});
  void AsyncGetScene(std::string scene_id, const CallOptions& call_options,
                     Completion<absl::StatusOr<SceneInfo>> done);
  absl::StatusOr<SceneSnapshot> ExportScene(
      const std::string& scene_id, const CallOptions& call_options = {});
  std::future<absl::StatusOr<SceneSnapshot>> AsyncExportScene(
      std::string scene_id, const CallOptions& call_options = {});
  void AsyncExportScene(std::string scene_id, const CallOptions& call_options,
                        Completion<absl::StatusOr<SceneSnapshot>> done);
  absl::StatusOr<SceneInfo> ImportScene(const SceneSnapshot& snapshot,
                                        const CallOptions& call_options = {});
  std::future<absl::StatusOr<SceneInfo>> AsyncImportScene(
      SceneSnapshot snapshot, const CallOptions& call_options = {});
  void AsyncImportScene(SceneSnapshot snapshot, const CallOptions& call_options,
                        Completion<absl::StatusOr<SceneInfo>> done);

  // ---- Bodies (never retried) ----
  absl::StatusOr<UpsertBodiesResult> UpsertBodies(
      const std::string& scene_id, const std::vector<Body>& bodies,
      const CallOptions& call_options = {});
  std::future<absl::StatusOr<UpsertBodiesResult>> AsyncUpsertBodies(
      std::string scene_id, std::vector<Body> bodies,
      const CallOptions& call_options = {});
  void AsyncUpsertBodies(std::string scene_id, std::vector<Body> bodies,
                         const CallOptions& call_options,
                         Completion<absl::StatusOr<UpsertBodiesResult>> done);
  // Returns how many were removed; NOT_FOUND (none removed) for an unknown id.
  absl::StatusOr<std::uint32_t> RemoveBodies(
      const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
      const CallOptions& call_options = {});
  std::future<absl::StatusOr<std::uint32_t>> AsyncRemoveBodies(
      std::string scene_id, std::vector<std::uint64_t> body_ids,
      const CallOptions& call_options = {});
  void AsyncRemoveBodies(std::string scene_id,
                         std::vector<std::uint64_t> body_ids,
                         const CallOptions& call_options,
                         Completion<absl::StatusOr<std::uint32_t>> done);
  // The poses of `tick`; returns the scene's current tick after the update.
  // FAILED_PRECONDITION for a tick older than the current one.
  absl::StatusOr<std::int64_t> UpdatePoses(
      const std::string& scene_id, std::int64_t tick, const PoseBatch& poses,
      const CallOptions& call_options = {});
  std::future<absl::StatusOr<std::int64_t>> AsyncUpdatePoses(
      std::string scene_id, std::int64_t tick, PoseBatch poses,
      const CallOptions& call_options = {});
  void AsyncUpdatePoses(std::string scene_id, std::int64_t tick,
                        PoseBatch poses, const CallOptions& call_options,
                        Completion<absl::StatusOr<std::int64_t>> done);

  // ---- Scene queries ----
  // CallOptions::rewind overrides options.rewind.
  absl::StatusOr<QueryResult> Overlap(const std::string& scene_id,
                                      const OverlapQuery& query,
                                      const QueryOptions& options = {},
                                      const CallOptions& call_options = {});
  std::future<absl::StatusOr<QueryResult>> AsyncOverlap(
      std::string scene_id, OverlapQuery query, QueryOptions options = {},
      const CallOptions& call_options = {});
  void AsyncOverlap(std::string scene_id, OverlapQuery query,
                    QueryOptions options, const CallOptions& call_options,
                    Completion<absl::StatusOr<QueryResult>> done);
  absl::StatusOr<QueryResult> Contacts(const std::string& scene_id,
                                       const ContactsQuery& query,
                                       const QueryOptions& options = {},
                                       const CallOptions& call_options = {});
  std::future<absl::StatusOr<QueryResult>> AsyncContacts(
      std::string scene_id, ContactsQuery query, QueryOptions options = {},
      const CallOptions& call_options = {});
  void AsyncContacts(std::string scene_id, ContactsQuery query,
                     QueryOptions options, const CallOptions& call_options,
                     Completion<absl::StatusOr<QueryResult>> done);
  absl::StatusOr<QueryResult> Sweep(const std::string& scene_id,
                                    const SweepQuery& query,
                                    const QueryOptions& options = {},
                                    const CallOptions& call_options = {});
  std::future<absl::StatusOr<QueryResult>> AsyncSweep(
      std::string scene_id, SweepQuery query, QueryOptions options = {},
      const CallOptions& call_options = {});
  void AsyncSweep(std::string scene_id, SweepQuery query, QueryOptions options,
                  const CallOptions& call_options,
                  Completion<absl::StatusOr<QueryResult>> done);
  absl::StatusOr<QueryResult> Raycast(const std::string& scene_id,
                                      const RaycastQuery& query,
                                      const QueryOptions& options = {},
                                      const CallOptions& call_options = {});
  std::future<absl::StatusOr<QueryResult>> AsyncRaycast(
      std::string scene_id, RaycastQuery query, QueryOptions options = {},
      const CallOptions& call_options = {});
  void AsyncRaycast(std::string scene_id, RaycastQuery query,
                    QueryOptions options, const CallOptions& call_options,
                    Completion<absl::StatusOr<QueryResult>> done);
  absl::StatusOr<QueryResult> PointQuery(const std::string& scene_id,
                                         const ::sator::PointQuery& query,
                                         const QueryOptions& options = {},
                                         const CallOptions& call_options = {});
  std::future<absl::StatusOr<QueryResult>> AsyncPointQuery(
      std::string scene_id, ::sator::PointQuery query,
      QueryOptions options = {}, const CallOptions& call_options = {});
  void AsyncPointQuery(std::string scene_id, ::sator::PointQuery query,
                       QueryOptions options, const CallOptions& call_options,
                       Completion<absl::StatusOr<QueryResult>> done);
  // Many queries of mixed kinds, answered in order, each entry with its own
  // status.
  absl::StatusOr<std::vector<BatchEntry>> QueryBatch(
      const std::string& scene_id, const std::vector<Query>& queries,
      const CallOptions& call_options = {});
  std::future<absl::StatusOr<std::vector<BatchEntry>>> AsyncQueryBatch(
      std::string scene_id, std::vector<Query> queries,
      const CallOptions& call_options = {});
  void AsyncQueryBatch(
      std::string scene_id, std::vector<Query> queries,
      const CallOptions& call_options,
      Completion<absl::StatusOr<std::vector<BatchEntry>>> done);
  // Many rays with one set of options, sent in the packed form (flat float
  // arrays; docs/QUERIES.md, "RaycastBatch"): the cheapest way to cast
  // hundreds of rays. All rays must be of one dimension (INVALID_ARGUMENT
  // "rays[i].origin: ..." otherwise, before anything is sent); all or
  // nothing: one bad ray fails the call with INVALID_ARGUMENT naming its
  // array element ("directions[3..5]: zero length").
  absl::StatusOr<RaycastBatchResult> RaycastBatch(
      const std::string& scene_id, absl::Span<const RaycastQuery> rays,
      const QueryOptions& options = {}, const CallOptions& call_options = {});
  std::future<absl::StatusOr<RaycastBatchResult>> AsyncRaycastBatch(
      std::string scene_id, std::vector<RaycastQuery> rays,
      QueryOptions options = {}, const CallOptions& call_options = {});
  void AsyncRaycastBatch(std::string scene_id, std::vector<RaycastQuery> rays,
                         QueryOptions options, const CallOptions& call_options,
                         Completion<absl::StatusOr<RaycastBatchResult>> done);

  // ---- Hit validation (docs/HIT_VALIDATION.md) ----
  // Judges every shot on one snapshot of the scene, as each shooter saw it:
  // one verdict per shot, in order. `policy` overrides the scene's for this
  // call (set fields replace; unset ones keep the scene's). All or nothing:
  // a malformed shot fails the call with INVALID_ARGUMENT naming it
  // ("shots[2].direction: ..."); an implausible one gets a rejected verdict.
  // RESOURCE_EXHAUSTED beyond the server's --max_batch_queries shots.
  // Retried like the other queries (judging changes nothing);
  // CallOptions::rewind does not apply (each shot names its view time).
  absl::StatusOr<ValidateShotsResult> ValidateShots(
      const std::string& scene_id, absl::Span<const Shot> shots,
      const HitPolicy& policy = {}, const CallOptions& call_options = {});
  std::future<absl::StatusOr<ValidateShotsResult>> AsyncValidateShots(
      std::string scene_id, std::vector<Shot> shots, HitPolicy policy = {},
      const CallOptions& call_options = {});
  void AsyncValidateShots(std::string scene_id, std::vector<Shot> shots,
                          HitPolicy policy, const CallOptions& call_options,
                          Completion<absl::StatusOr<ValidateShotsResult>> done);

  // The scene's audit trail of verdicts (docs/HIT_VALIDATION.md, "Audit
  // trail"): one page, oldest first, filtered. NOT_FOUND for an unknown
  // scene, INVALID_ARGUMENT naming "page_size", "page_token" or
  // "filter....". Retried like the queries (it changes nothing).
  absl::StatusOr<ShotVerdictPage> ListShotVerdicts(
      const std::string& scene_id, const ShotVerdictPageRequest& request = {},
      const CallOptions& call_options = {});
  // Follows the scene's verdicts as they are recorded (from `from_sequence`
  // when set, if still kept): Read() each event (a record, or a gap saying
  // how many this watch missed) until nullopt, then Finish() for how it
  // ended (OK when the server drained). Cancel() from any thread ends it.
  // Not retried: a broken watch is reopened by the caller from the last
  // sequence it read + 1.
  absl::StatusOr<std::unique_ptr<ShotVerdictStream>> WatchShotVerdicts(
      const std::string& scene_id,
      std::optional<std::uint64_t> from_sequence = std::nullopt);

  // ---- Proximity (docs/PROXIMITY.md) ----

  // Registers a zone or an observer on the scene; it holds nothing until
  // the scene's next write, whose evaluation gives ENTER for what it holds.
  // Returns the scene's tick. INVALID_ARGUMENT naming the field
  // ("zone.shape...", "observer.radius: ..."), ALREADY_EXISTS for an id in
  // use, NOT_FOUND for the scene or an anchor it does not have,
  // RESOURCE_EXHAUSTED beyond the server's per-scene limit. Not retried.
  absl::StatusOr<std::int64_t> AddZone(const std::string& scene_id,
                                       const Zone& zone,
                                       const CallOptions& call_options = {});
  absl::StatusOr<std::int64_t> AddObserver(
      const std::string& scene_id, const Observer& observer,
      const CallOptions& call_options = {});
  // NOT_FOUND naming "zone_id" / "observer_id" for an unknown id.
  absl::Status RemoveZone(const std::string& scene_id, std::uint64_t zone_id,
                          const CallOptions& call_options = {});
  absl::Status RemoveObserver(const std::string& scene_id,
                              std::uint64_t observer_id,
                              const CallOptions& call_options = {});
  // The zones, the observers and the last evaluation's sets. Retried.
  absl::StatusOr<ProximityState> GetProximity(
      const std::string& scene_id, const CallOptions& call_options = {});
  // Follows the scene's evaluations: Read() each message (an evaluation's
  // events, or a resync with every set where the watch fell behind) until
  // nullopt, then Finish() for how it ended (OK at the server's drain, or
  // at the scene's deletion once the events before it are sent). From
  // `start`: a tick (the first kept evaluation at or after it) or a
  // sequence; one no longer kept starts with a resync. Cancel() from any
  // thread ends it. Not retried: reopen with `.sequence` one after the last
  // ProximityTickEvents read (or a resync's next_sequence).
  absl::StatusOr<std::unique_ptr<ProximityStream>> WatchProximity(
      const std::string& scene_id, const ProximityWatchStart& start = {});

  // ---- Sessions ----
  // Opens a Session on `scene_id` over this client's connection.
  absl::StatusOr<std::unique_ptr<Session>> OpenSession(
      const std::string& scene_id, const SessionOptions& options = {});

  // ---- Pair queries (no scene) ----
  absl::StatusOr<PairQueryResult> PairQuery(
      const PairQueryRequest& request, const CallOptions& call_options = {});
  std::future<absl::StatusOr<PairQueryResult>> AsyncPairQuery(
      PairQueryRequest request, const CallOptions& call_options = {});
  void AsyncPairQuery(PairQueryRequest request, const CallOptions& call_options,
                      Completion<absl::StatusOr<PairQueryResult>> done);

  // Typed pair queries over PairQuery. They give the answers of the core
  // functions of the same names (queries2d.h, shape3d_queries.h).
  // INVALID_ARGUMENT names the offending field, e.g.
  // "shape_a.circle.radius: not finite".
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
  absl::StatusOr<RayResult<2>> Raycast(const Shape2& shape, const Pose2& pose,
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
  absl::StatusOr<RayResult<3>> Raycast(const Shape3& shape, const Pose3& pose,
                                       const Ray<3>& ray,
                                       const CallOptions& call_options = {});

  // The former spelling of the pair Raycast. Deprecated: call Raycast.
  template <typename Shape, typename PoseType, int D>
  [[deprecated("use Raycast")]] absl::StatusOr<RayResult<D>> RayCast(
      const Shape& shape, const PoseType& pose, const Ray<D>& ray,
      const CallOptions& call_options = {}) {
    return Raycast(shape, pose, ray, call_options);
  }

 private:
  friend class client_internal::ClientFactory;
  explicit Client(std::shared_ptr<client_internal::ClientState> impl);
  // Owned, except in the non-owning copies the async tasks use.
  std::shared_ptr<client_internal::ClientState> impl_;
};

}  // namespace sator

#endif  // SATOR_CLIENT_CLIENT_H_
