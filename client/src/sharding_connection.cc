// ShardedConnection: each call to the Connection of the endpoint that owns
// its scene; ListScenes paged across every endpoint.
#include "sator/client/sharding_connection.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "calls_in_flight.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "sator/core/field_status.h"

namespace sator {
namespace {

// ListScenes page tokens: "<endpoint>|<that endpoint's own token>". Endpoint
// names (gRPC targets) never contain '|'.
constexpr char kTokenSeparator = '|';

std::string EncodePageToken(absl::string_view endpoint,
                            absl::string_view inner) {
  return absl::StrCat(endpoint, std::string(1, kTokenSeparator), inner);
}

// Adds the endpoint to errors where it is what the caller needs to know.
absl::Status WithEndpoint(const absl::Status& status,
                          absl::string_view endpoint) {
  if (status.code() != absl::StatusCode::kUnavailable &&
      status.code() != absl::StatusCode::kDeadlineExceeded) {
    return status;
  }
  absl::Status named(status.code(), absl::StrCat("endpoint ", endpoint, ": ",
                                                 status.message()));
  // The payloads (a retry-after, error details) stay.
  status.ForEachPayload(
      [&named](absl::string_view type_url, const absl::Cord& payload) {
        named.SetPayload(type_url, payload);
      });
  return named;
}

template <typename T>
absl::StatusOr<T> WithEndpoint(absl::StatusOr<T> result,
                               absl::string_view endpoint) {
  if (result.ok()) return result;
  return WithEndpoint(result.status(), endpoint);
}

// `done`, given the result with WithEndpoint's prefix.
template <typename Result>
Completion<Result> NamingEndpoint(std::string endpoint,
                                  Completion<Result> done) {
  return [endpoint = std::move(endpoint),
          done = std::move(done)](Result result) mutable {
    std::move(done)(WithEndpoint(std::move(result), endpoint));
  };
}

// What one endpoint's page is in the sharded listing: the page to return
// (its token naming where the next page starts), or none when the endpoint
// had no scenes left and the next one is asked. An endpoint with no scenes
// gives an empty last page, so only the very last page is empty.
std::optional<ListScenesPage> ShardedPage(
    ListScenesPage page, const std::vector<std::string>& endpoints,
    std::size_t index) {
  if (!page.next_page_token.empty()) {
    page.next_page_token =
        EncodePageToken(endpoints[index], page.next_page_token);
    return page;
  }
  if (index + 1 == endpoints.size()) return page;
  if (page.scenes.empty()) return std::nullopt;
  page.next_page_token = EncodePageToken(endpoints[index + 1], "");
  return page;
}

// The scene a JSON request names: its top-level scene_id, or its snapshot's
// (ImportScene); empty when the method is unknown, the request names none,
// or it does not parse. The JSON is parsed as the method's own request
// message (from the generated descriptor pool), so field names are checked
// the way the server will check them.
std::string SceneIdOfJson(const std::string& method,
                          const std::string& request_json) {
  std::string full_name = method;
  std::replace(full_name.begin(), full_name.end(), '/', '.');
  const google::protobuf::MethodDescriptor* descriptor =
      google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
          full_name);
  if (descriptor == nullptr) return "";
  const google::protobuf::Message* prototype =
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(
          descriptor->input_type());
  if (prototype == nullptr) return "";
  std::unique_ptr<google::protobuf::Message> request(prototype->New());
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  if (!google::protobuf::util::JsonStringToMessage(request_json, request.get(),
                                                   options)
           .ok()) {
    return "";
  }
  auto scene_id_of = [](const google::protobuf::Message& message) {
    const google::protobuf::FieldDescriptor* field =
        message.GetDescriptor()->FindFieldByName("scene_id");
    if (field == nullptr || field->is_repeated() ||
        field->type() != google::protobuf::FieldDescriptor::TYPE_STRING) {
      return std::string();
    }
    return message.GetReflection()->GetString(message, field);
  };
  std::string scene_id = scene_id_of(*request);
  if (scene_id.empty()) {
    const google::protobuf::FieldDescriptor* snapshot =
        request->GetDescriptor()->FindFieldByName("snapshot");
    if (snapshot != nullptr && !snapshot->is_repeated() &&
        snapshot->type() == google::protobuf::FieldDescriptor::TYPE_MESSAGE &&
        request->GetReflection()->HasField(*request, snapshot)) {
      scene_id =
          scene_id_of(request->GetReflection()->GetMessage(*request, snapshot));
    }
  }
  return scene_id;
}

}  // namespace

absl::StatusOr<std::shared_ptr<ShardedConnection>> ShardedConnection::Create(
    ShardedConnectionOptions options) {
  absl::StatusOr<RendezvousRouter> router =
      RendezvousRouter::Create(std::move(options.endpoints));
  if (!router.ok()) return router.status();
  EndpointConnectionFactory factory = std::move(options.connection_factory);
  const bool endpoints_async =
      options.endpoints_async.value_or(factory == nullptr);
  if (!factory) {
    factory = [connection_options =
                   options.connection](const std::string& endpoint)
        -> absl::StatusOr<std::shared_ptr<Connection>> {
      ConnectionOptions endpoint_options = connection_options;
      endpoint_options.target = endpoint;
      return MakeConnection(endpoint_options);
    };
  }
  return std::shared_ptr<ShardedConnection>(
      new ShardedConnection(*std::move(router), std::move(factory),
                            options.endpoints_retry, endpoints_async));
}

ShardedConnection::ShardedConnection(RendezvousRouter router,
                                     EndpointConnectionFactory factory,
                                     bool endpoints_retry, bool endpoints_async)
    : factory_(std::move(factory)),
      endpoints_retry_(endpoints_retry),
      endpoints_async_(endpoints_async),
      router_(std::make_shared<const RendezvousRouter>(std::move(router))),
      random_(std::random_device{}()),
      in_flight_(std::make_unique<client_internal::CallsInFlight>()) {}

ShardedConnection::~ShardedConnection() { in_flight_->WaitUntilNone(); }

absl::Status ShardedConnection::SetEndpoints(
    std::vector<std::string> endpoints) {
  absl::StatusOr<RendezvousRouter> router =
      RendezvousRouter::Create(std::move(endpoints));
  if (!router.ok()) return router.status();
  auto next = std::make_shared<const RendezvousRouter>(*std::move(router));
  std::lock_guard<std::mutex> lock(mutex_);
  // Drop the connections of endpoints no longer listed.
  for (auto it = connections_.begin(); it != connections_.end();) {
    const auto& listed = next->endpoints();
    if (std::find(listed.begin(), listed.end(), it->first) == listed.end()) {
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
  router_ = std::move(next);
  return absl::OkStatus();
}

std::shared_ptr<const RendezvousRouter> ShardedConnection::router() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return router_;
}

std::string ShardedConnection::OwnerOf(const std::string& scene_id) const {
  return router()->Owner(scene_id);
}

std::vector<std::string> ShardedConnection::endpoints() const {
  return router()->endpoints();
}

absl::StatusOr<ShardedConnection::Route> ShardedConnection::RouteTo(
    const std::string& endpoint) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = connections_.find(endpoint);
  if (it == connections_.end()) {
    absl::StatusOr<std::shared_ptr<Connection>> connection = factory_(endpoint);
    if (!connection.ok()) return connection.status();
    it = connections_.emplace(endpoint, *std::move(connection)).first;
  }
  return Route{endpoint, it->second};
}

absl::StatusOr<ShardedConnection::Route> ShardedConnection::RouteScene(
    const std::string& scene_id) {
  return RouteTo(router()->Owner(scene_id));
}

absl::StatusOr<ShardedConnection::Route> ShardedConnection::RouteAny() {
  std::shared_ptr<const RendezvousRouter> current = router();
  const std::uint64_t turn = next_any_.fetch_add(1, std::memory_order_relaxed);
  return RouteTo(current->endpoints()[turn % current->endpoints().size()]);
}

std::string ShardedConnection::NewSceneId() {
  std::lock_guard<std::mutex> lock(mutex_);
  return absl::StrFormat("scene-%016x", random_());
}

// ---- Calls without a scene
// -----------------------------------------------------

absl::StatusOr<PingResult> ShardedConnection::Ping(const std::string& payload,
                                                   const CallContext& context) {
  absl::StatusOr<Route> route = RouteAny();
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->Ping(payload, context),
                      route->endpoint);
}

absl::StatusOr<HealthStatus> ShardedConnection::CheckHealth(
    const std::string& service, const CallContext& context) {
  absl::StatusOr<Route> route = RouteAny();
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->CheckHealth(service, context),
                      route->endpoint);
}

absl::StatusOr<PairQueryResult> ShardedConnection::PairQuery(
    const PairQueryRequest& request, const CallContext& context) {
  absl::StatusOr<Route> route = RouteAny();
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->PairQuery(request, context),
                      route->endpoint);
}

absl::StatusOr<std::string> ShardedConnection::CallJson(
    const std::string& method, const std::string& request_json,
    const CallContext& context) {
  const std::string scene_id = SceneIdOfJson(method, request_json);
  absl::StatusOr<Route> route =
      scene_id.empty() ? RouteAny() : RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->CallJson(method, request_json, context),
      route->endpoint);
}

// ---- Scenes
// --------------------------------------------------------------------

absl::StatusOr<SceneInfo> ShardedConnection::CreateScene(
    const std::string& scene_id, const SceneSettings& settings,
    const CallContext& context) {
  const std::string id = scene_id.empty() ? NewSceneId() : scene_id;
  absl::StatusOr<Route> route = RouteScene(id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->CreateScene(id, settings, context),
                      route->endpoint);
}

absl::Status ShardedConnection::DeleteScene(const std::string& scene_id,
                                            const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->DeleteScene(scene_id, context),
                      route->endpoint);
}

absl::StatusOr<ShardedConnection::ListCursor> ShardedConnection::ListCursorOf(
    const std::string& page_token) const {
  ListCursor cursor{.router = router(), .index = 0, .inner_token = ""};
  if (page_token.empty()) return cursor;
  const std::vector<std::string>& endpoints = cursor.router->endpoints();
  const std::size_t separator = page_token.find(kTokenSeparator);
  if (separator == std::string::npos) {
    return FieldError("page_token", "not a token of this sharded connection");
  }
  const std::string endpoint = page_token.substr(0, separator);
  cursor.inner_token = page_token.substr(separator + 1);
  const auto it = std::find(endpoints.begin(), endpoints.end(), endpoint);
  if (it == endpoints.end()) {
    return FieldError("page_token",
                      absl::StrCat("endpoint ", endpoint,
                                   " is no longer in the endpoint list"));
  }
  cursor.index = static_cast<std::size_t>(it - endpoints.begin());
  return cursor;
}

absl::StatusOr<ListScenesPage> ShardedConnection::ListScenes(
    std::uint32_t page_size, const std::string& page_token,
    const CallContext& context) {
  absl::StatusOr<ListCursor> cursor = ListCursorOf(page_token);
  if (!cursor.ok()) return cursor.status();
  const std::vector<std::string>& endpoints = cursor->router->endpoints();
  while (true) {
    absl::StatusOr<Route> route = RouteTo(endpoints[cursor->index]);
    if (!route.ok()) return route.status();
    absl::StatusOr<ListScenesPage> page =
        route->connection->ListScenes(page_size, cursor->inner_token, context);
    if (!page.ok()) return WithEndpoint(page.status(), route->endpoint);
    if (std::optional<ListScenesPage> out =
            ShardedPage(*std::move(page), endpoints, cursor->index)) {
      return *std::move(out);
    }
    ++cursor->index;
    cursor->inner_token.clear();
  }
}

absl::StatusOr<SceneInfo> ShardedConnection::GetScene(
    const std::string& scene_id, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->GetScene(scene_id, context),
                      route->endpoint);
}

absl::StatusOr<SceneSnapshot> ShardedConnection::ExportScene(
    const std::string& scene_id, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->ExportScene(scene_id, context),
                      route->endpoint);
}

absl::StatusOr<SceneInfo> ShardedConnection::ImportScene(
    const SceneSnapshot& snapshot, const CallContext& context) {
  if (snapshot.scene_id.empty()) {
    return FieldError("snapshot.scene_id",
                      "empty (a sharded connection routes by it)");
  }
  absl::StatusOr<Route> route = RouteScene(snapshot.scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->ImportScene(snapshot, context),
                      route->endpoint);
}

// ---- Bodies
// --------------------------------------------------------------------

absl::StatusOr<UpsertBodiesResult> ShardedConnection::UpsertBodies(
    const std::string& scene_id, const std::vector<Body>& bodies,
    const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->UpsertBodies(scene_id, bodies, context),
      route->endpoint);
}

absl::StatusOr<std::uint32_t> ShardedConnection::RemoveBodies(
    const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
    const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->RemoveBodies(scene_id, body_ids, context),
      route->endpoint);
}

absl::StatusOr<std::int64_t> ShardedConnection::UpdatePoses(
    const std::string& scene_id, std::int64_t tick, const PoseBatch& poses,
    const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->UpdatePoses(scene_id, tick, poses, context),
      route->endpoint);
}

// ---- Scene queries
// -------------------------------------------------------------

absl::StatusOr<QueryResult> ShardedConnection::Overlap(
    const std::string& scene_id, const OverlapQuery& query,
    const QueryOptions& options, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->Overlap(scene_id, query, options, context),
      route->endpoint);
}

absl::StatusOr<QueryResult> ShardedConnection::Contacts(
    const std::string& scene_id, const ContactsQuery& query,
    const QueryOptions& options, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->Contacts(scene_id, query, options, context),
      route->endpoint);
}

absl::StatusOr<QueryResult> ShardedConnection::Sweep(
    const std::string& scene_id, const SweepQuery& query,
    const QueryOptions& options, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->Sweep(scene_id, query, options, context),
      route->endpoint);
}

absl::StatusOr<QueryResult> ShardedConnection::Raycast(
    const std::string& scene_id, const RaycastQuery& query,
    const QueryOptions& options, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->Raycast(scene_id, query, options, context),
      route->endpoint);
}

absl::StatusOr<QueryResult> ShardedConnection::PointQuery(
    const std::string& scene_id, const ::sator::PointQuery& query,
    const QueryOptions& options, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->PointQuery(scene_id, query, options, context),
      route->endpoint);
}

absl::StatusOr<std::vector<BatchEntry>> ShardedConnection::QueryBatch(
    const std::string& scene_id, const std::vector<Query>& queries,
    const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->QueryBatch(scene_id, queries, context),
                      route->endpoint);
}

absl::StatusOr<RaycastBatchResult> ShardedConnection::RaycastBatch(
    const std::string& scene_id, absl::Span<const RaycastQuery> rays,
    const QueryOptions& options, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->RaycastBatch(scene_id, rays, options, context),
      route->endpoint);
}

absl::StatusOr<ValidateShotsResult> ShardedConnection::ValidateShots(
    const std::string& scene_id, absl::Span<const Shot> shots,
    const HitPolicy& policy, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->ValidateShots(scene_id, shots, policy, context),
      route->endpoint);
}

absl::StatusOr<ShotVerdictPage> ShardedConnection::ListShotVerdicts(
    const std::string& scene_id, const ShotVerdictPageRequest& request,
    const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->ListShotVerdicts(scene_id, request, context),
      route->endpoint);
}

absl::StatusOr<std::unique_ptr<ShotVerdictStream>>
ShardedConnection::WatchShotVerdicts(
    const std::string& scene_id, std::optional<std::uint64_t> from_sequence) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->WatchShotVerdicts(scene_id, from_sequence),
      route->endpoint);
}

absl::StatusOr<std::int64_t> ShardedConnection::AddZone(
    const std::string& scene_id, const Zone& zone, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->AddZone(scene_id, zone, context),
                      route->endpoint);
}

absl::StatusOr<std::int64_t> ShardedConnection::AddObserver(
    const std::string& scene_id, const Observer& observer,
    const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->AddObserver(scene_id, observer, context),
      route->endpoint);
}

absl::Status ShardedConnection::RemoveZone(const std::string& scene_id,
                                           std::uint64_t zone_id,
                                           const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->RemoveZone(scene_id, zone_id, context),
                      route->endpoint);
}

absl::Status ShardedConnection::RemoveObserver(const std::string& scene_id,
                                               std::uint64_t observer_id,
                                               const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(
      route->connection->RemoveObserver(scene_id, observer_id, context),
      route->endpoint);
}

absl::StatusOr<ProximityState> ShardedConnection::GetProximity(
    const std::string& scene_id, const CallContext& context) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->GetProximity(scene_id, context),
                      route->endpoint);
}

absl::StatusOr<std::unique_ptr<ProximityStream>>
ShardedConnection::WatchProximity(const std::string& scene_id,
                                  const ProximityWatchStart& start) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->WatchProximity(scene_id, start),
                      route->endpoint);
}

absl::StatusOr<std::unique_ptr<SessionStream>> ShardedConnection::OpenSession(
    const std::string& scene_id) {
  absl::StatusOr<Route> route = RouteScene(scene_id);
  if (!route.ok()) return route.status();
  return WithEndpoint(route->connection->OpenSession(scene_id),
                      route->endpoint);
}

// Runs `start` on the routed endpoint's connection with `done` naming the
// endpoint, or gives `done` the routing error.
template <typename Result, typename StartCall>
void ShardedConnection::Start(absl::StatusOr<Route> route,
                              Completion<Result> done, StartCall start) {
  if (!route.ok()) {
    std::move(done)(route.status());
    return;
  }
  start(*route->connection, NamingEndpoint(route->endpoint, std::move(done)));
}

// ---- Async calls: routed as above, then the endpoint connection's own
// ------------------------------------------------------------------------

void ShardedConnection::AsyncPing(const std::string& payload,
                                  const CallContext& context,
                                  Completion<absl::StatusOr<PingResult>> done) {
  Start(RouteAny(), std::move(done), [&](Connection& connection, auto named) {
    connection.AsyncPing(payload, context, std::move(named));
  });
}

void ShardedConnection::AsyncCreateScene(
    const std::string& scene_id, const SceneSettings& settings,
    const CallContext& context, Completion<absl::StatusOr<SceneInfo>> done) {
  const std::string id = scene_id.empty() ? NewSceneId() : scene_id;
  Start(RouteScene(id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncCreateScene(id, settings, context, std::move(named));
        });
}

void ShardedConnection::AsyncDeleteScene(const std::string& scene_id,
                                         const CallContext& context,
                                         Completion<absl::Status> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncDeleteScene(scene_id, context, std::move(named));
        });
}

void ShardedConnection::AsyncListScenes(
    std::uint32_t page_size, const std::string& page_token,
    const CallContext& context,
    Completion<absl::StatusOr<ListScenesPage>> done) {
  absl::StatusOr<ListCursor> cursor = ListCursorOf(page_token);
  if (!cursor.ok()) {
    std::move(done)(cursor.status());
    return;
  }
  // Counted until `done` runs: the listing may go on from the completion of
  // its call to one endpoint with a call to the next.
  in_flight_->Enter();
  AsyncListScenesFrom(*std::move(cursor), page_size, context,
                      [in_flight = in_flight_.get(), done = std::move(done)](
                          absl::StatusOr<ListScenesPage> page) mutable {
                        in_flight->Leave();
                        std::move(done)(std::move(page));
                      });
}

void ShardedConnection::AsyncListScenesFrom(
    ListCursor cursor, std::uint32_t page_size, const CallContext& context,
    Completion<absl::StatusOr<ListScenesPage>> done) {
  absl::StatusOr<Route> route =
      RouteTo(cursor.router->endpoints()[cursor.index]);
  if (!route.ok()) {
    std::move(done)(route.status());
    return;
  }
  const std::string inner_token = cursor.inner_token;
  route->connection->AsyncListScenes(
      page_size, inner_token, context,
      [this, cursor = std::move(cursor), page_size, context,
       endpoint = route->endpoint,
       done = std::move(done)](absl::StatusOr<ListScenesPage> page) mutable {
        if (!page.ok()) {
          std::move(done)(WithEndpoint(page.status(), endpoint));
          return;
        }
        if (std::optional<ListScenesPage> out = ShardedPage(
                *std::move(page), cursor.router->endpoints(), cursor.index)) {
          std::move(done)(*std::move(out));
          return;
        }
        ++cursor.index;
        cursor.inner_token.clear();
        AsyncListScenesFrom(std::move(cursor), page_size, context,
                            std::move(done));
      });
}

void ShardedConnection::AsyncGetScene(
    const std::string& scene_id, const CallContext& context,
    Completion<absl::StatusOr<SceneInfo>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncGetScene(scene_id, context, std::move(named));
        });
}

void ShardedConnection::AsyncExportScene(
    const std::string& scene_id, const CallContext& context,
    Completion<absl::StatusOr<SceneSnapshot>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncExportScene(scene_id, context, std::move(named));
        });
}

void ShardedConnection::AsyncImportScene(
    const SceneSnapshot& snapshot, const CallContext& context,
    Completion<absl::StatusOr<SceneInfo>> done) {
  if (snapshot.scene_id.empty()) {
    std::move(done)(FieldError("snapshot.scene_id",
                               "empty (a sharded connection routes by it)"));
    return;
  }
  Start(RouteScene(snapshot.scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncImportScene(snapshot, context, std::move(named));
        });
}

void ShardedConnection::AsyncUpsertBodies(
    const std::string& scene_id, const std::vector<Body>& bodies,
    const CallContext& context,
    Completion<absl::StatusOr<UpsertBodiesResult>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncUpsertBodies(scene_id, bodies, context,
                                       std::move(named));
        });
}

void ShardedConnection::AsyncRemoveBodies(
    const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
    const CallContext& context,
    Completion<absl::StatusOr<std::uint32_t>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncRemoveBodies(scene_id, body_ids, context,
                                       std::move(named));
        });
}

void ShardedConnection::AsyncUpdatePoses(
    const std::string& scene_id, std::int64_t tick, const PoseBatch& poses,
    const CallContext& context, Completion<absl::StatusOr<std::int64_t>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncUpdatePoses(scene_id, tick, poses, context,
                                      std::move(named));
        });
}

void ShardedConnection::AsyncOverlap(
    const std::string& scene_id, const OverlapQuery& query,
    const QueryOptions& options, const CallContext& context,
    Completion<absl::StatusOr<QueryResult>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncOverlap(scene_id, query, options, context,
                                  std::move(named));
        });
}

void ShardedConnection::AsyncContacts(
    const std::string& scene_id, const ContactsQuery& query,
    const QueryOptions& options, const CallContext& context,
    Completion<absl::StatusOr<QueryResult>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncContacts(scene_id, query, options, context,
                                   std::move(named));
        });
}

void ShardedConnection::AsyncSweep(
    const std::string& scene_id, const SweepQuery& query,
    const QueryOptions& options, const CallContext& context,
    Completion<absl::StatusOr<QueryResult>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncSweep(scene_id, query, options, context,
                                std::move(named));
        });
}

void ShardedConnection::AsyncRaycast(
    const std::string& scene_id, const RaycastQuery& query,
    const QueryOptions& options, const CallContext& context,
    Completion<absl::StatusOr<QueryResult>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncRaycast(scene_id, query, options, context,
                                  std::move(named));
        });
}

void ShardedConnection::AsyncPointQuery(
    const std::string& scene_id, const ::sator::PointQuery& query,
    const QueryOptions& options, const CallContext& context,
    Completion<absl::StatusOr<QueryResult>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncPointQuery(scene_id, query, options, context,
                                     std::move(named));
        });
}

void ShardedConnection::AsyncQueryBatch(
    const std::string& scene_id, const std::vector<Query>& queries,
    const CallContext& context,
    Completion<absl::StatusOr<std::vector<BatchEntry>>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncQueryBatch(scene_id, queries, context,
                                     std::move(named));
        });
}

void ShardedConnection::AsyncRaycastBatch(
    const std::string& scene_id, absl::Span<const RaycastQuery> rays,
    const QueryOptions& options, const CallContext& context,
    Completion<absl::StatusOr<RaycastBatchResult>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncRaycastBatch(scene_id, rays, options, context,
                                       std::move(named));
        });
}

void ShardedConnection::AsyncPairQuery(
    const PairQueryRequest& request, const CallContext& context,
    Completion<absl::StatusOr<PairQueryResult>> done) {
  Start(RouteAny(), std::move(done), [&](Connection& connection, auto named) {
    connection.AsyncPairQuery(request, context, std::move(named));
  });
}

void ShardedConnection::AsyncValidateShots(
    const std::string& scene_id, absl::Span<const Shot> shots,
    const HitPolicy& policy, const CallContext& context,
    Completion<absl::StatusOr<ValidateShotsResult>> done) {
  Start(RouteScene(scene_id), std::move(done),
        [&](Connection& connection, auto named) {
          connection.AsyncValidateShots(scene_id, shots, policy, context,
                                        std::move(named));
        });
}

}  // namespace sator
