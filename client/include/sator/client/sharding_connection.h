// sator::ShardedConnection: one Connection over many satord pods,
// each scene routed to the pod that owns it (rendezvous hashing, sharding.h).
//
//   absl::StatusOr<std::vector<std::string>> pods =
//       sator::StatefulSetPodEndpoints({.replicas = 3});
//   absl::StatusOr<std::shared_ptr<sator::ShardedConnection>> shards =
//       sator::ShardedConnection::Create({.endpoints = *pods});
//   sator::Client client(*shards);
//
// Routing:
// - every call that names a scene (scene, body and query calls, sessions,
//   ImportScene by its snapshot's id) goes to the scene's owner, through that
//   endpoint's own Connection, which sends `x-scene-id` metadata;
// - CreateScene with an empty id: the id is chosen here ("scene-" and 16
//   random hex digits) instead of by the server, because the owner depends on
//   the id;
// - ListScenes fans out: it pages through the endpoints one after the other
//   (by id within an endpoint; not a global id order); the page token says
//   which endpoint comes next;
// - Ping, CheckHealth and PairQuery (no scene) go to the endpoints in turn;
//   CallJson goes to the owner of the request's `scene_id` (or
//   `snapshot.scene_id`) when it names one, else to the next endpoint in turn.
// UNAVAILABLE and DEADLINE_EXCEEDED errors are prefixed with the endpoint
// that gave them ("endpoint satord-1...: "); other errors are the server's,
// unchanged.
//
// One Connection (one gRPC channel) per endpoint, made on first use and kept
// for the life of the ShardedConnection. SetEndpoints() replaces the list when
// pods are added or removed; connections to endpoints still listed are kept.
// Every method is safe to call from many threads at once.
#ifndef SATOR_CLIENT_SHARDING_CONNECTION_H_
#define SATOR_CLIENT_SHARDING_CONNECTION_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sator/client/connection.h"
#include "sator/client/sharding.h"
#include "sator/client/types.h"

namespace sator {
namespace client_internal {
class CallsInFlight;
}  // namespace client_internal

// Makes the Connection to one endpoint.
using EndpointConnectionFactory =
    std::function<absl::StatusOr<std::shared_ptr<Connection>>(
        const std::string& endpoint)>;

struct ShardedConnectionOptions {
  // gRPC targets, e.g. from StatefulSetPodEndpoints (recommended) or
  // ResolveHeadlessService. Must be non-empty and distinct.
  std::vector<std::string> endpoints{};
  // The settings of every endpoint's connection (`target` is replaced by the
  // endpoint).
  ConnectionOptions connection{};
  // Overrides how an endpoint's connection is made (tests pass mocks); unset:
  // MakeConnection(connection with target = endpoint).
  EndpointConnectionFactory connection_factory{};
  // Whether the endpoints' connections retry idempotent calls by themselves,
  // as MakeConnection's do (gRPC's retry policy, connection.retry). Set it
  // to false when connection_factory makes connections that do not (mocks):
  // sator::Client then retries over the sharded connection.
  bool endpoints_retry = true;
  // Whether the endpoints' connections start async calls without waiting, as
  // MakeConnection's do (gRPC's callback API; Connection::HasAsyncCalls).
  // Unset: true without a connection_factory, false with one (a factory's
  // connections, mocks say, may run an async call on the caller's thread;
  // sator::Client then runs its async calls on its own threads). Set it to
  // true for a factory that makes MakeConnection's connections.
  std::optional<bool> endpoints_async{};
};

class ShardedConnection : public Connection {
 public:
  // INVALID_ARGUMENT for a bad endpoint list (see RendezvousRouter::Create).
  static absl::StatusOr<std::shared_ptr<ShardedConnection>> Create(
      ShardedConnectionOptions options);
  // Waits for the async calls in flight; must not run within one of their
  // completions.
  ~ShardedConnection() override;
  ShardedConnection(const ShardedConnection&) = delete;
  ShardedConnection& operator=(const ShardedConnection&) = delete;

  // ShardedConnectionOptions::endpoints_retry.
  bool RetriesIdempotentCalls() const override { return endpoints_retry_; }
  // ShardedConnectionOptions::endpoints_async: the Async* calls then start
  // the owner's own async call and return.
  bool HasAsyncCalls() const override { return endpoints_async_; }

  // Replaces the endpoint list, e.g. after a StatefulSet is scaled. Scenes
  // whose owner changes are NOT moved: export them from the old owner and
  // import them on the new one before switching (docs/CLIENT.md).
  absl::Status SetEndpoints(std::vector<std::string> endpoints);

  // The endpoint that owns `scene_id` under the current list.
  std::string OwnerOf(const std::string& scene_id) const;
  std::vector<std::string> endpoints() const;

  // ---- Connection ----
  absl::StatusOr<PingResult> Ping(const std::string& payload,
                                  const CallContext& context) override;
  absl::StatusOr<HealthStatus> CheckHealth(const std::string& service,
                                           const CallContext& context) override;
  absl::StatusOr<SceneInfo> CreateScene(const std::string& scene_id,
                                        const SceneSettings& settings,
                                        const CallContext& context) override;
  absl::Status DeleteScene(const std::string& scene_id,
                           const CallContext& context) override;
  absl::StatusOr<ListScenesPage> ListScenes(
      std::uint32_t page_size, const std::string& page_token,
      const CallContext& context) override;
  absl::StatusOr<SceneInfo> GetScene(const std::string& scene_id,
                                     const CallContext& context) override;
  absl::StatusOr<SceneSnapshot> ExportScene(
      const std::string& scene_id, const CallContext& context) override;
  absl::StatusOr<SceneInfo> ImportScene(const SceneSnapshot& snapshot,
                                        const CallContext& context) override;
  absl::StatusOr<UpsertBodiesResult> UpsertBodies(
      const std::string& scene_id, const std::vector<Body>& bodies,
      const CallContext& context) override;
  absl::StatusOr<std::uint32_t> RemoveBodies(
      const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
      const CallContext& context) override;
  absl::StatusOr<std::int64_t> UpdatePoses(const std::string& scene_id,
                                           std::int64_t tick,
                                           const PoseBatch& poses,
                                           const CallContext& context) override;
  absl::StatusOr<QueryResult> Overlap(const std::string& scene_id,
                                      const OverlapQuery& query,
                                      const QueryOptions& options,
                                      const CallContext& context) override;
  absl::StatusOr<QueryResult> Contacts(const std::string& scene_id,
                                       const ContactsQuery& query,
                                       const QueryOptions& options,
                                       const CallContext& context) override;
  absl::StatusOr<QueryResult> Sweep(const std::string& scene_id,
                                    const SweepQuery& query,
                                    const QueryOptions& options,
                                    const CallContext& context) override;
  absl::StatusOr<QueryResult> Raycast(const std::string& scene_id,
                                      const RaycastQuery& query,
                                      const QueryOptions& options,
                                      const CallContext& context) override;
  absl::StatusOr<QueryResult> PointQuery(const std::string& scene_id,
                                         const ::sator::PointQuery& query,
                                         const QueryOptions& options,
                                         const CallContext& context) override;
  absl::StatusOr<std::vector<BatchEntry>> QueryBatch(
      const std::string& scene_id, const std::vector<Query>& queries,
      const CallContext& context) override;
  absl::StatusOr<RaycastBatchResult> RaycastBatch(
      const std::string& scene_id, absl::Span<const RaycastQuery> rays,
      const QueryOptions& options, const CallContext& context) override;
  absl::StatusOr<PairQueryResult> PairQuery(
      const PairQueryRequest& request, const CallContext& context) override;
  absl::StatusOr<ValidateShotsResult> ValidateShots(
      const std::string& scene_id, absl::Span<const Shot> shots,
      const HitPolicy& policy, const CallContext& context) override;
  absl::StatusOr<ShotVerdictPage> ListShotVerdicts(
      const std::string& scene_id, const ShotVerdictPageRequest& request,
      const CallContext& context) override;
  absl::StatusOr<std::unique_ptr<ShotVerdictStream>> WatchShotVerdicts(
      const std::string& scene_id,
      std::optional<std::uint64_t> from_sequence) override;
  absl::StatusOr<std::int64_t> AddZone(const std::string& scene_id,
                                       const Zone& zone,
                                       const CallContext& context) override;
  absl::StatusOr<std::int64_t> AddObserver(const std::string& scene_id,
                                           const Observer& observer,
                                           const CallContext& context) override;
  absl::Status RemoveZone(const std::string& scene_id, std::uint64_t zone_id,
                          const CallContext& context) override;
  absl::Status RemoveObserver(const std::string& scene_id,
                              std::uint64_t observer_id,
                              const CallContext& context) override;
  absl::StatusOr<ProximityState> GetProximity(
      const std::string& scene_id, const CallContext& context) override;
  absl::StatusOr<std::unique_ptr<ProximityStream>> WatchProximity(
      const std::string& scene_id, const ProximityWatchStart& start) override;
  absl::StatusOr<std::unique_ptr<SessionStream>> OpenSession(
      const std::string& scene_id) override;
  absl::StatusOr<std::string> CallJson(const std::string& method,
                                       const std::string& request_json,
                                       const CallContext& context) override;

  // Routed as the calls of the same name; `done` runs on the endpoint
  // connection's thread. AsyncListScenes asks the next endpoint from the
  // completion of the one before.
  void AsyncPing(const std::string& payload, const CallContext& context,
                 Completion<absl::StatusOr<PingResult>> done) override;
  void AsyncCreateScene(const std::string& scene_id,
                        const SceneSettings& settings,
                        const CallContext& context,
                        Completion<absl::StatusOr<SceneInfo>> done) override;
  void AsyncDeleteScene(const std::string& scene_id, const CallContext& context,
                        Completion<absl::Status> done) override;
  void AsyncListScenes(
      std::uint32_t page_size, const std::string& page_token,
      const CallContext& context,
      Completion<absl::StatusOr<ListScenesPage>> done) override;
  void AsyncGetScene(const std::string& scene_id, const CallContext& context,
                     Completion<absl::StatusOr<SceneInfo>> done) override;
  void AsyncExportScene(
      const std::string& scene_id, const CallContext& context,
      Completion<absl::StatusOr<SceneSnapshot>> done) override;
  void AsyncImportScene(const SceneSnapshot& snapshot,
                        const CallContext& context,
                        Completion<absl::StatusOr<SceneInfo>> done) override;
  void AsyncUpsertBodies(
      const std::string& scene_id, const std::vector<Body>& bodies,
      const CallContext& context,
      Completion<absl::StatusOr<UpsertBodiesResult>> done) override;
  void AsyncRemoveBodies(
      const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
      const CallContext& context,
      Completion<absl::StatusOr<std::uint32_t>> done) override;
  void AsyncUpdatePoses(const std::string& scene_id, std::int64_t tick,
                        const PoseBatch& poses, const CallContext& context,
                        Completion<absl::StatusOr<std::int64_t>> done) override;
  void AsyncOverlap(const std::string& scene_id, const OverlapQuery& query,
                    const QueryOptions& options, const CallContext& context,
                    Completion<absl::StatusOr<QueryResult>> done) override;
  void AsyncContacts(const std::string& scene_id, const ContactsQuery& query,
                     const QueryOptions& options, const CallContext& context,
                     Completion<absl::StatusOr<QueryResult>> done) override;
  void AsyncSweep(const std::string& scene_id, const SweepQuery& query,
                  const QueryOptions& options, const CallContext& context,
                  Completion<absl::StatusOr<QueryResult>> done) override;
  void AsyncRaycast(const std::string& scene_id, const RaycastQuery& query,
                    const QueryOptions& options, const CallContext& context,
                    Completion<absl::StatusOr<QueryResult>> done) override;
  void AsyncPointQuery(const std::string& scene_id,
                       const ::sator::PointQuery& query,
                       const QueryOptions& options, const CallContext& context,
                       Completion<absl::StatusOr<QueryResult>> done) override;
  void AsyncQueryBatch(
      const std::string& scene_id, const std::vector<Query>& queries,
      const CallContext& context,
      Completion<absl::StatusOr<std::vector<BatchEntry>>> done) override;
  void AsyncRaycastBatch(
      const std::string& scene_id, absl::Span<const RaycastQuery> rays,
      const QueryOptions& options, const CallContext& context,
      Completion<absl::StatusOr<RaycastBatchResult>> done) override;
  void AsyncPairQuery(
      const PairQueryRequest& request, const CallContext& context,
      Completion<absl::StatusOr<PairQueryResult>> done) override;
  void AsyncValidateShots(
      const std::string& scene_id, absl::Span<const Shot> shots,
      const HitPolicy& policy, const CallContext& context,
      Completion<absl::StatusOr<ValidateShotsResult>> done) override;

 private:
  struct Route {
    std::string endpoint;
    std::shared_ptr<Connection> connection;
  };
  // Where a ListScenes page starts: an endpoint of a list and its own token.
  struct ListCursor {
    std::shared_ptr<const RendezvousRouter> router;
    std::size_t index = 0;
    std::string inner_token;
  };

  ShardedConnection(RendezvousRouter router, EndpointConnectionFactory factory,
                    bool endpoints_retry, bool endpoints_async);

  template <typename Result, typename StartCall>
  static void Start(absl::StatusOr<Route> route, Completion<Result> done,
                    StartCall start);
  absl::StatusOr<ListCursor> ListCursorOf(const std::string& page_token) const;
  void AsyncListScenesFrom(ListCursor cursor, std::uint32_t page_size,
                           const CallContext& context,
                           Completion<absl::StatusOr<ListScenesPage>> done);

  std::shared_ptr<const RendezvousRouter> router() const;
  absl::StatusOr<Route> RouteTo(const std::string& endpoint);
  absl::StatusOr<Route> RouteScene(const std::string& scene_id);
  absl::StatusOr<Route> RouteAny();
  std::string NewSceneId();

  const EndpointConnectionFactory factory_;
  const bool endpoints_retry_;
  const bool endpoints_async_;
  mutable std::mutex mutex_;
  std::shared_ptr<const RendezvousRouter> router_;  // guarded by mutex_
  std::map<std::string, std::shared_ptr<Connection>>
      connections_;         // guarded by mutex_
  std::mt19937_64 random_;  // guarded by mutex_
  std::atomic<std::uint64_t> next_any_{0};
  // The async listings not yet completed (each may span several endpoints'
  // calls); the endpoints' connections count their own calls.
  std::unique_ptr<client_internal::CallsInFlight> in_flight_;
};

}  // namespace sator

#endif  // SATOR_CLIENT_SHARDING_CONNECTION_H_
