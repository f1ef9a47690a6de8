// sator::Client: every call as options, deadline and retries around one
// Connection method, and its Async* twin on the client's thread pool.
#include "sator/client/client.h"

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client_factory.h"
#include "client_impl.h"
#include "dimension_check.h"
#include "sator/core/field_status.h"

namespace sator {

using client_internal::ClientState;

namespace {

// Idempotent calls may be retried; mutations never are.
constexpr bool kIdempotent = true;
constexpr bool kMutation = false;

QueryOptions WithRewind(QueryOptions options, const CallOptions& call_options) {
  if (call_options.rewind.has_value()) options.rewind = call_options.rewind;
  return options;
}

absl::Status ValidateOptions(const ClientOptions& options) {
  if (options.default_deadline <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "ClientOptions.default_deadline: must be positive");
  }
  if (options.async_threads < 1) {
    return absl::InvalidArgumentError(
        "ClientOptions.async_threads: must be at least 1");
  }
  return ValidateRetryPolicy(options.retry, "ClientOptions.retry");
}

// A gRPC channel's deadlines and backoffs are real time, so a connection that
// retries by itself cannot follow a fake clock.
absl::Status ClockRefused() {
  return absl::InvalidArgumentError(
      "ClientOptions.clock: only for a connection that does not retry by "
      "itself, such as a MockConnection (a gRPC channel keeps real time)");
}

absl::StatusOr<std::shared_ptr<Connection>> ConnectionFor(
    const ClientOptions& options) {
  if (options.target.empty()) {
    return absl::InvalidArgumentError("ClientOptions.target: empty");
  }
  if (options.clock != nullptr) return ClockRefused();
  if (absl::Status valid = ValidateOptions(options); !valid.ok()) return valid;
  return MakeConnection({.target = options.target,
                         .keepalive_time = options.keepalive_time,
                         .keepalive_timeout = options.keepalive_timeout,
                         .max_message_bytes = options.max_message_bytes,
                         .retry = options.retry,
                         .max_reconnect_backoff = options.max_reconnect_backoff,
                         .tls = options.tls,
                         .bearer_token = options.bearer_token});
}

}  // namespace

namespace client_internal {

Client ClientFactory::Make(
    absl::StatusOr<std::shared_ptr<Connection>> connection,
    const ClientOptions& options, RetryEnvironment environment) {
  absl::Status status = ValidateOptions(options);
  if (status.ok() && !connection.ok()) status = connection.status();
  if (status.ok() && *connection == nullptr) {
    status = FieldError("connection", "null");
  }
  if (status.ok() && options.clock != nullptr &&
      (*connection)->RetriesIdempotentCalls()) {
    status = ClockRefused();
  }
  if (options.clock != nullptr) {
    environment.now = [clock = options.clock] { return clock->Now(); };
    environment.sleep = [clock = options.clock](absl::Duration delay) {
      clock->SleepFor(delay);
    };
  }
  return Client(std::make_shared<ClientState>(
      options, connection.ok() ? *std::move(connection) : nullptr,
      std::move(environment), std::move(status)));
}

Client ClientFactory::Borrow(ClientState* state) {
  return Client(
      std::shared_ptr<ClientState>(std::shared_ptr<ClientState>(), state));
}

}  // namespace client_internal

namespace {

// A future of the result `start` reports to the completion it is given.
template <typename Result, typename Start>
std::future<Result> Promised(const Start& start) {
  std::promise<Result> promise;
  std::future<Result> future = promise.get_future();
  start(
      Completion<Result>([promise = std::move(promise)](Result result) mutable {
        promise.set_value(std::move(result));
      }));
  return future;
}

}  // namespace

bool SceneRange::Advance() {
  if (done_) return false;
  while (next_in_page_ >= page_.size()) {
    if (fetched_any_ && next_token_.empty()) {
      done_ = true;
      return false;
    }
    absl::StatusOr<ListScenesPage> page = fetch_(next_token_);
    fetched_any_ = true;
    if (!page.ok()) {
      // The error is the last element.
      current_ = page.status();
      page_.clear();
      next_in_page_ = 0;
      next_token_.clear();
      return true;
    }
    page_ = std::move(page->scenes);
    next_in_page_ = 0;
    next_token_ = std::move(page->next_page_token);
  }
  current_ = std::move(page_[next_in_page_++]);
  return true;
}

Client::Client(std::shared_ptr<ClientState> impl) : impl_(std::move(impl)) {}

Client::Client(const ClientOptions& options)
    : Client(client_internal::ClientFactory::Make(
          ConnectionFor(options), options,
          client_internal::DefaultRetryEnvironment())) {}

Client::Client(std::shared_ptr<Connection> connection,
               const ClientOptions& options)
    : Client(client_internal::ClientFactory::Make(
          std::move(connection), options,
          client_internal::DefaultRetryEnvironment())) {}

absl::StatusOr<Client> Client::Make(const ClientOptions& options) {
  Client client(options);
  if (!client.status().ok()) return client.status();
  return client;
}

absl::StatusOr<Client> Client::Make(std::shared_ptr<Connection> connection,
                                    const ClientOptions& options) {
  Client client(std::move(connection), options);
  if (!client.status().ok()) return client.status();
  return client;
}

Client::~Client() = default;
Client::Client(Client&& other) noexcept = default;
Client& Client::operator=(Client&& other) noexcept = default;

absl::Status Client::status() const { return impl_->status(); }

const std::shared_ptr<Connection>& Client::connection() const {
  return impl_->shared_connection();
}

// ---- Service ----

absl::StatusOr<PingResult> Client::Ping(absl::string_view payload,
                                        const CallOptions& call_options) {
  const std::string request(payload);
  return impl_->Call<absl::StatusOr<PingResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().Ping(request, context);
      });
}

void Client::AsyncPing(std::string payload, const CallOptions& call_options,
                       Completion<absl::StatusOr<PingResult>> done) {
  impl_->CallAsync<absl::StatusOr<PingResult>>(
      kIdempotent, call_options, &Connection::Ping, &Connection::AsyncPing,
      std::move(done), std::move(payload));
}

std::future<absl::StatusOr<PingResult>> Client::AsyncPing(
    std::string payload, const CallOptions& call_options) {
  return Promised<absl::StatusOr<PingResult>>(
      [&](Completion<absl::StatusOr<PingResult>> done) {
        AsyncPing(std::move(payload), call_options, std::move(done));
      });
}

absl::StatusOr<HealthStatus> Client::CheckHealth(
    absl::string_view service, const CallOptions& call_options) {
  const std::string request(service);
  return impl_->Call<absl::StatusOr<HealthStatus>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().CheckHealth(request, context);
      });
}

absl::StatusOr<std::string> Client::CallJson(absl::string_view method,
                                             absl::string_view request_json,
                                             const CallOptions& call_options) {
  const std::string method_name(method);
  const std::string json(request_json);
  return impl_->Call<absl::StatusOr<std::string>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().CallJson(method_name, json, context);
      });
}

// ---- Scenes ----

absl::StatusOr<SceneInfo> Client::CreateScene(const std::string& scene_id,
                                              const SceneSettings& settings,
                                              const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<SceneInfo>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().CreateScene(scene_id, settings, context);
      });
}

void Client::AsyncCreateScene(std::string scene_id, SceneSettings settings,
                              const CallOptions& call_options,
                              Completion<absl::StatusOr<SceneInfo>> done) {
  impl_->CallAsync<absl::StatusOr<SceneInfo>>(
      kMutation, call_options, &Connection::CreateScene,
      &Connection::AsyncCreateScene, std::move(done), std::move(scene_id),
      settings);
}

std::future<absl::StatusOr<SceneInfo>> Client::AsyncCreateScene(
    std::string scene_id, SceneSettings settings,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<SceneInfo>>(
      [&](Completion<absl::StatusOr<SceneInfo>> done) {
        AsyncCreateScene(std::move(scene_id), settings, call_options,
                         std::move(done));
      });
}

absl::Status Client::DeleteScene(const std::string& scene_id,
                                 const CallOptions& call_options) {
  return impl_->Call<absl::Status>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().DeleteScene(scene_id, context);
      });
}

void Client::AsyncDeleteScene(std::string scene_id,
                              const CallOptions& call_options,
                              Completion<absl::Status> done) {
  impl_->CallAsync<absl::Status>(
      kMutation, call_options, &Connection::DeleteScene,
      &Connection::AsyncDeleteScene, std::move(done), std::move(scene_id));
}

std::future<absl::Status> Client::AsyncDeleteScene(
    std::string scene_id, const CallOptions& call_options) {
  return Promised<absl::Status>([&](Completion<absl::Status> done) {
    AsyncDeleteScene(std::move(scene_id), call_options, std::move(done));
  });
}

absl::StatusOr<ListScenesPage> Client::ListScenes(
    std::uint32_t page_size, const std::string& page_token,
    const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<ListScenesPage>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().ListScenes(page_size, page_token, context);
      });
}

void Client::AsyncListScenes(std::uint32_t page_size, std::string page_token,
                             const CallOptions& call_options,
                             Completion<absl::StatusOr<ListScenesPage>> done) {
  impl_->CallAsync<absl::StatusOr<ListScenesPage>>(
      kIdempotent, call_options, &Connection::ListScenes,
      &Connection::AsyncListScenes, std::move(done), page_size,
      std::move(page_token));
}

std::future<absl::StatusOr<ListScenesPage>> Client::AsyncListScenes(
    std::uint32_t page_size, std::string page_token,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<ListScenesPage>>(
      [&](Completion<absl::StatusOr<ListScenesPage>> done) {
        AsyncListScenes(page_size, std::move(page_token), call_options,
                        std::move(done));
      });
}

SceneRange Client::ListAllScenes(std::uint32_t page_size,
                                 const CallOptions& call_options) {
  return SceneRange(
      [state = impl_.get(), page_size, call_options](const std::string& token) {
        return client_internal::ClientFactory::Borrow(state).ListScenes(
            page_size, token, call_options);
      });
}

absl::StatusOr<SceneInfo> Client::GetScene(const std::string& scene_id,
                                           const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<SceneInfo>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().GetScene(scene_id, context);
      });
}

void Client::AsyncGetScene(std::string scene_id,
                           const CallOptions& call_options,
                           Completion<absl::StatusOr<SceneInfo>> done) {
  impl_->CallAsync<absl::StatusOr<SceneInfo>>(
      kIdempotent, call_options, &Connection::GetScene,
      &Connection::AsyncGetScene, std::move(done), std::move(scene_id));
}

std::future<absl::StatusOr<SceneInfo>> Client::AsyncGetScene(
    std::string scene_id, const CallOptions& call_options) {
  return Promised<absl::StatusOr<SceneInfo>>(
      [&](Completion<absl::StatusOr<SceneInfo>> done) {
        AsyncGetScene(std::move(scene_id), call_options, std::move(done));
      });
}

absl::StatusOr<SceneSnapshot> Client::ExportScene(
    const std::string& scene_id, const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<SceneSnapshot>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().ExportScene(scene_id, context);
      });
}

void Client::AsyncExportScene(std::string scene_id,
                              const CallOptions& call_options,
                              Completion<absl::StatusOr<SceneSnapshot>> done) {
  impl_->CallAsync<absl::StatusOr<SceneSnapshot>>(
      kIdempotent, call_options, &Connection::ExportScene,
      &Connection::AsyncExportScene, std::move(done), std::move(scene_id));
}

std::future<absl::StatusOr<SceneSnapshot>> Client::AsyncExportScene(
    std::string scene_id, const CallOptions& call_options) {
  return Promised<absl::StatusOr<SceneSnapshot>>(
      [&](Completion<absl::StatusOr<SceneSnapshot>> done) {
        AsyncExportScene(std::move(scene_id), call_options, std::move(done));
      });
}

absl::StatusOr<SceneInfo> Client::ImportScene(const SceneSnapshot& snapshot,
                                              const CallOptions& call_options) {
  if (absl::Status valid =
          client_internal::CheckBodies(snapshot.bodies, "snapshot.");
      !valid.ok()) {
    return valid;
  }
  return impl_->Call<absl::StatusOr<SceneInfo>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().ImportScene(snapshot, context);
      });
}

void Client::AsyncImportScene(SceneSnapshot snapshot,
                              const CallOptions& call_options,
                              Completion<absl::StatusOr<SceneInfo>> done) {
  if (absl::Status valid =
          client_internal::CheckBodies(snapshot.bodies, "snapshot.");
      !valid.ok()) {
    std::move(done)(std::move(valid));
    return;
  }
  impl_->CallAsync<absl::StatusOr<SceneInfo>>(
      kMutation, call_options, &Connection::ImportScene,
      &Connection::AsyncImportScene, std::move(done), std::move(snapshot));
}

std::future<absl::StatusOr<SceneInfo>> Client::AsyncImportScene(
    SceneSnapshot snapshot, const CallOptions& call_options) {
  return Promised<absl::StatusOr<SceneInfo>>(
      [&](Completion<absl::StatusOr<SceneInfo>> done) {
        AsyncImportScene(std::move(snapshot), call_options, std::move(done));
      });
}

// ---- Bodies ----

absl::StatusOr<UpsertBodiesResult> Client::UpsertBodies(
    const std::string& scene_id, const std::vector<Body>& bodies,
    const CallOptions& call_options) {
  if (absl::Status valid = client_internal::CheckBodies(bodies, "");
      !valid.ok()) {
    return valid;
  }
  return impl_->Call<absl::StatusOr<UpsertBodiesResult>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().UpsertBodies(scene_id, bodies, context);
      });
}

void Client::AsyncUpsertBodies(
    std::string scene_id, std::vector<Body> bodies,
    const CallOptions& call_options,
    Completion<absl::StatusOr<UpsertBodiesResult>> done) {
  if (absl::Status valid = client_internal::CheckBodies(bodies, "");
      !valid.ok()) {
    std::move(done)(std::move(valid));
    return;
  }
  impl_->CallAsync<absl::StatusOr<UpsertBodiesResult>>(
      kMutation, call_options, &Connection::UpsertBodies,
      &Connection::AsyncUpsertBodies, std::move(done), std::move(scene_id),
      std::move(bodies));
}

std::future<absl::StatusOr<UpsertBodiesResult>> Client::AsyncUpsertBodies(
    std::string scene_id, std::vector<Body> bodies,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<UpsertBodiesResult>>(
      [&](Completion<absl::StatusOr<UpsertBodiesResult>> done) {
        AsyncUpsertBodies(std::move(scene_id), std::move(bodies), call_options,
                          std::move(done));
      });
}

absl::StatusOr<std::uint32_t> Client::RemoveBodies(
    const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
    const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<std::uint32_t>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().RemoveBodies(scene_id, body_ids, context);
      });
}

void Client::AsyncRemoveBodies(std::string scene_id,
                               std::vector<std::uint64_t> body_ids,
                               const CallOptions& call_options,
                               Completion<absl::StatusOr<std::uint32_t>> done) {
  impl_->CallAsync<absl::StatusOr<std::uint32_t>>(
      kMutation, call_options, &Connection::RemoveBodies,
      &Connection::AsyncRemoveBodies, std::move(done), std::move(scene_id),
      std::move(body_ids));
}

std::future<absl::StatusOr<std::uint32_t>> Client::AsyncRemoveBodies(
    std::string scene_id, std::vector<std::uint64_t> body_ids,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<std::uint32_t>>(
      [&](Completion<absl::StatusOr<std::uint32_t>> done) {
        AsyncRemoveBodies(std::move(scene_id), std::move(body_ids),
                          call_options, std::move(done));
      });
}

absl::StatusOr<std::int64_t> Client::UpdatePoses(
    const std::string& scene_id, std::int64_t tick, const PoseBatch& poses,
    const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<std::int64_t>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().UpdatePoses(scene_id, tick, poses, context);
      });
}

void Client::AsyncUpdatePoses(std::string scene_id, std::int64_t tick,
                              PoseBatch poses, const CallOptions& call_options,
                              Completion<absl::StatusOr<std::int64_t>> done) {
  impl_->CallAsync<absl::StatusOr<std::int64_t>>(
      kMutation, call_options, &Connection::UpdatePoses,
      &Connection::AsyncUpdatePoses, std::move(done), std::move(scene_id), tick,
      std::move(poses));
}

std::future<absl::StatusOr<std::int64_t>> Client::AsyncUpdatePoses(
    std::string scene_id, std::int64_t tick, PoseBatch poses,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<std::int64_t>>(
      [&](Completion<absl::StatusOr<std::int64_t>> done) {
        AsyncUpdatePoses(std::move(scene_id), tick, std::move(poses),
                         call_options, std::move(done));
      });
}

// ---- Scene queries ----

absl::StatusOr<QueryResult> Client::Overlap(const std::string& scene_id,
                                            const OverlapQuery& query,
                                            const QueryOptions& options,
                                            const CallOptions& call_options) {
  if (absl::Status valid = client_internal::CheckQuery(query, "query.");
      !valid.ok()) {
    return valid;
  }
  const QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<QueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().Overlap(scene_id, query, effective, context);
      });
}

void Client::AsyncOverlap(std::string scene_id, OverlapQuery query,
                          QueryOptions options, const CallOptions& call_options,
                          Completion<absl::StatusOr<QueryResult>> done) {
  if (absl::Status valid = client_internal::CheckQuery(query, "query.");
      !valid.ok()) {
    std::move(done)(std::move(valid));
    return;
  }
  impl_->CallAsync<absl::StatusOr<QueryResult>>(
      kIdempotent, call_options, &Connection::Overlap,
      &Connection::AsyncOverlap, std::move(done), std::move(scene_id),
      std::move(query), WithRewind(std::move(options), call_options));
}

std::future<absl::StatusOr<QueryResult>> Client::AsyncOverlap(
    std::string scene_id, OverlapQuery query, QueryOptions options,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<QueryResult>>(
      [&](Completion<absl::StatusOr<QueryResult>> done) {
        AsyncOverlap(std::move(scene_id), std::move(query), std::move(options),
                     call_options, std::move(done));
      });
}

absl::StatusOr<QueryResult> Client::Contacts(const std::string& scene_id,
                                             const ContactsQuery& query,
                                             const QueryOptions& options,
                                             const CallOptions& call_options) {
  if (absl::Status valid = client_internal::CheckQuery(query, "query.");
      !valid.ok()) {
    return valid;
  }
  const QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<QueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().Contacts(scene_id, query, effective,
                                            context);
      });
}

void Client::AsyncContacts(std::string scene_id, ContactsQuery query,
                           QueryOptions options,
                           const CallOptions& call_options,
                           Completion<absl::StatusOr<QueryResult>> done) {
  if (absl::Status valid = client_internal::CheckQuery(query, "query.");
      !valid.ok()) {
    std::move(done)(std::move(valid));
    return;
  }
  impl_->CallAsync<absl::StatusOr<QueryResult>>(
      kIdempotent, call_options, &Connection::Contacts,
      &Connection::AsyncContacts, std::move(done), std::move(scene_id),
      std::move(query), WithRewind(std::move(options), call_options));
}

std::future<absl::StatusOr<QueryResult>> Client::AsyncContacts(
    std::string scene_id, ContactsQuery query, QueryOptions options,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<QueryResult>>(
      [&](Completion<absl::StatusOr<QueryResult>> done) {
        AsyncContacts(std::move(scene_id), std::move(query), std::move(options),
                      call_options, std::move(done));
      });
}

absl::StatusOr<QueryResult> Client::Sweep(const std::string& scene_id,
                                          const SweepQuery& query,
                                          const QueryOptions& options,
                                          const CallOptions& call_options) {
  if (absl::Status valid = client_internal::CheckQuery(query, "query.");
      !valid.ok()) {
    return valid;
  }
  const QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<QueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().Sweep(scene_id, query, effective, context);
      });
}

void Client::AsyncSweep(std::string scene_id, SweepQuery query,
                        QueryOptions options, const CallOptions& call_options,
                        Completion<absl::StatusOr<QueryResult>> done) {
  if (absl::Status valid = client_internal::CheckQuery(query, "query.");
      !valid.ok()) {
    std::move(done)(std::move(valid));
    return;
  }
  impl_->CallAsync<absl::StatusOr<QueryResult>>(
      kIdempotent, call_options, &Connection::Sweep, &Connection::AsyncSweep,
      std::move(done), std::move(scene_id), std::move(query),
      WithRewind(std::move(options), call_options));
}

std::future<absl::StatusOr<QueryResult>> Client::AsyncSweep(
    std::string scene_id, SweepQuery query, QueryOptions options,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<QueryResult>>(
      [&](Completion<absl::StatusOr<QueryResult>> done) {
        AsyncSweep(std::move(scene_id), std::move(query), std::move(options),
                   call_options, std::move(done));
      });
}

absl::StatusOr<QueryResult> Client::Raycast(const std::string& scene_id,
                                            const RaycastQuery& query,
                                            const QueryOptions& options,
                                            const CallOptions& call_options) {
  if (absl::Status valid = client_internal::CheckQuery(query, "query.");
      !valid.ok()) {
    return valid;
  }
  const QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<QueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().Raycast(scene_id, query, effective, context);
      });
}

void Client::AsyncRaycast(std::string scene_id, RaycastQuery query,
                          QueryOptions options, const CallOptions& call_options,
                          Completion<absl::StatusOr<QueryResult>> done) {
  if (absl::Status valid = client_internal::CheckQuery(query, "query.");
      !valid.ok()) {
    std::move(done)(std::move(valid));
    return;
  }
  impl_->CallAsync<absl::StatusOr<QueryResult>>(
      kIdempotent, call_options, &Connection::Raycast,
      &Connection::AsyncRaycast, std::move(done), std::move(scene_id), query,
      WithRewind(std::move(options), call_options));
}

std::future<absl::StatusOr<QueryResult>> Client::AsyncRaycast(
    std::string scene_id, RaycastQuery query, QueryOptions options,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<QueryResult>>(
      [&](Completion<absl::StatusOr<QueryResult>> done) {
        AsyncRaycast(std::move(scene_id), query, std::move(options),
                     call_options, std::move(done));
      });
}

absl::StatusOr<QueryResult> Client::PointQuery(
    const std::string& scene_id, const ::sator::PointQuery& query,
    const QueryOptions& options, const CallOptions& call_options) {
  const QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<QueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().PointQuery(scene_id, query, effective,
                                              context);
      });
}

void Client::AsyncPointQuery(std::string scene_id, ::sator::PointQuery query,
                             QueryOptions options,
                             const CallOptions& call_options,
                             Completion<absl::StatusOr<QueryResult>> done) {
  impl_->CallAsync<absl::StatusOr<QueryResult>>(
      kIdempotent, call_options, &Connection::PointQuery,
      &Connection::AsyncPointQuery, std::move(done), std::move(scene_id), query,
      WithRewind(std::move(options), call_options));
}

std::future<absl::StatusOr<QueryResult>> Client::AsyncPointQuery(
    std::string scene_id, ::sator::PointQuery query, QueryOptions options,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<QueryResult>>(
      [&](Completion<absl::StatusOr<QueryResult>> done) {
        AsyncPointQuery(std::move(scene_id), query, std::move(options),
                        call_options, std::move(done));
      });
}

absl::StatusOr<std::vector<BatchEntry>> Client::QueryBatch(
    const std::string& scene_id, const std::vector<Query>& queries,
    const CallOptions& call_options) {
  if (absl::Status valid = client_internal::CheckQueries(queries);
      !valid.ok()) {
    return valid;
  }
  std::vector<Query> rewound;
  const std::vector<Query>* to_send = &queries;
  if (call_options.rewind.has_value()) {
    rewound = queries;
    for (Query& query : rewound) {
      query.options.rewind = call_options.rewind;
    }
    to_send = &rewound;
  }
  return impl_->Call<absl::StatusOr<std::vector<BatchEntry>>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().QueryBatch(scene_id, *to_send, context);
      });
}

void Client::AsyncQueryBatch(
    std::string scene_id, std::vector<Query> queries,
    const CallOptions& call_options,
    Completion<absl::StatusOr<std::vector<BatchEntry>>> done) {
  if (absl::Status valid = client_internal::CheckQueries(queries);
      !valid.ok()) {
    std::move(done)(std::move(valid));
    return;
  }
  if (call_options.rewind.has_value()) {
    for (Query& query : queries) query.options.rewind = call_options.rewind;
  }
  impl_->CallAsync<absl::StatusOr<std::vector<BatchEntry>>>(
      kIdempotent, call_options, &Connection::QueryBatch,
      &Connection::AsyncQueryBatch, std::move(done), std::move(scene_id),
      std::move(queries));
}

std::future<absl::StatusOr<std::vector<BatchEntry>>> Client::AsyncQueryBatch(
    std::string scene_id, std::vector<Query> queries,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<std::vector<BatchEntry>>>(
      [&](Completion<absl::StatusOr<std::vector<BatchEntry>>> done) {
        AsyncQueryBatch(std::move(scene_id), std::move(queries), call_options,
                        std::move(done));
      });
}

absl::StatusOr<RaycastBatchResult> Client::RaycastBatch(
    const std::string& scene_id, absl::Span<const RaycastQuery> rays,
    const QueryOptions& options, const CallOptions& call_options) {
  const QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<RaycastBatchResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().RaycastBatch(scene_id, rays, effective,
                                                context);
      });
}

void Client::AsyncRaycastBatch(
    std::string scene_id, std::vector<RaycastQuery> rays, QueryOptions options,
    const CallOptions& call_options,
    Completion<absl::StatusOr<RaycastBatchResult>> done) {
  impl_->CallAsync<absl::StatusOr<RaycastBatchResult>>(
      kIdempotent, call_options, &Connection::RaycastBatch,
      &Connection::AsyncRaycastBatch, std::move(done), std::move(scene_id),
      std::move(rays), WithRewind(std::move(options), call_options));
}

std::future<absl::StatusOr<RaycastBatchResult>> Client::AsyncRaycastBatch(
    std::string scene_id, std::vector<RaycastQuery> rays, QueryOptions options,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<RaycastBatchResult>>(
      [&](Completion<absl::StatusOr<RaycastBatchResult>> done) {
        AsyncRaycastBatch(std::move(scene_id), std::move(rays),
                          std::move(options), call_options, std::move(done));
      });
}

// ---- Hit validation ----

absl::StatusOr<ValidateShotsResult> Client::ValidateShots(
    const std::string& scene_id, absl::Span<const Shot> shots,
    const HitPolicy& policy, const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<ValidateShotsResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().ValidateShots(scene_id, shots, policy,
                                                 context);
      });
}

void Client::AsyncValidateShots(
    std::string scene_id, std::vector<Shot> shots, HitPolicy policy,
    const CallOptions& call_options,
    Completion<absl::StatusOr<ValidateShotsResult>> done) {
  impl_->CallAsync<absl::StatusOr<ValidateShotsResult>>(
      kIdempotent, call_options, &Connection::ValidateShots,
      &Connection::AsyncValidateShots, std::move(done), std::move(scene_id),
      std::move(shots), policy);
}

std::future<absl::StatusOr<ValidateShotsResult>> Client::AsyncValidateShots(
    std::string scene_id, std::vector<Shot> shots, HitPolicy policy,
    const CallOptions& call_options) {
  return Promised<absl::StatusOr<ValidateShotsResult>>(
      [&](Completion<absl::StatusOr<ValidateShotsResult>> done) {
        AsyncValidateShots(std::move(scene_id), std::move(shots), policy,
                           call_options, std::move(done));
      });
}

absl::StatusOr<ShotVerdictPage> Client::ListShotVerdicts(
    const std::string& scene_id, const ShotVerdictPageRequest& request,
    const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<ShotVerdictPage>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().ListShotVerdicts(scene_id, request, context);
      });
}

absl::StatusOr<std::unique_ptr<ShotVerdictStream>> Client::WatchShotVerdicts(
    const std::string& scene_id, std::optional<std::uint64_t> from_sequence) {
  if (!impl_->status().ok()) return impl_->status();
  return impl_->connection().WatchShotVerdicts(scene_id, from_sequence);
}

// ---- Proximity ----

absl::StatusOr<std::int64_t> Client::AddZone(const std::string& scene_id,
                                             const Zone& zone,
                                             const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<std::int64_t>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().AddZone(scene_id, zone, context);
      });
}

absl::StatusOr<std::int64_t> Client::AddObserver(
    const std::string& scene_id, const Observer& observer,
    const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<std::int64_t>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().AddObserver(scene_id, observer, context);
      });
}

absl::Status Client::RemoveZone(const std::string& scene_id,
                                std::uint64_t zone_id,
                                const CallOptions& call_options) {
  return impl_->Call<absl::Status>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().RemoveZone(scene_id, zone_id, context);
      });
}

absl::Status Client::RemoveObserver(const std::string& scene_id,
                                    std::uint64_t observer_id,
                                    const CallOptions& call_options) {
  return impl_->Call<absl::Status>(kMutation, call_options,
                                   [&](const CallContext& context) {
                                     return impl_->connection().RemoveObserver(
                                         scene_id, observer_id, context);
                                   });
}

absl::StatusOr<ProximityState> Client::GetProximity(
    const std::string& scene_id, const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<ProximityState>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().GetProximity(scene_id, context);
      });
}

absl::StatusOr<std::unique_ptr<ProximityStream>> Client::WatchProximity(
    const std::string& scene_id, const ProximityWatchStart& start) {
  if (!impl_->status().ok()) return impl_->status();
  return impl_->connection().WatchProximity(scene_id, start);
}

// ---- Sessions ----

absl::StatusOr<std::unique_ptr<Session>> Client::OpenSession(
    const std::string& scene_id, const SessionOptions& options) {
  if (!impl_->status().ok()) return impl_->status();
  return Session::Open(impl_->shared_connection(), scene_id, options);
}

// ---- Pair queries ----

absl::StatusOr<PairQueryResult> Client::PairQuery(
    const PairQueryRequest& request, const CallOptions& call_options) {
  if (absl::Status valid = client_internal::CheckPairQuery(request);
      !valid.ok()) {
    return valid;
  }
  return impl_->Call<absl::StatusOr<PairQueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().PairQuery(request, context);
      });
}

void Client::AsyncPairQuery(PairQueryRequest request,
                            const CallOptions& call_options,
                            Completion<absl::StatusOr<PairQueryResult>> done) {
  if (absl::Status valid = client_internal::CheckPairQuery(request);
      !valid.ok()) {
    std::move(done)(std::move(valid));
    return;
  }
  impl_->CallAsync<absl::StatusOr<PairQueryResult>>(
      kIdempotent, call_options, &Connection::PairQuery,
      &Connection::AsyncPairQuery, std::move(done), std::move(request));
}

std::future<absl::StatusOr<PairQueryResult>> Client::AsyncPairQuery(
    PairQueryRequest request, const CallOptions& call_options) {
  return Promised<absl::StatusOr<PairQueryResult>>(
      [&](Completion<absl::StatusOr<PairQueryResult>> done) {
        AsyncPairQuery(std::move(request), call_options, std::move(done));
      });
}

namespace {

// The pair answer of the expected kind, or INTERNAL if the server answered
// another one.
template <typename T>
absl::StatusOr<T> Expect(absl::StatusOr<PairQueryResult> result) {
  if (!result.ok()) return result.status();
  if (T* value = std::get_if<T>(&*result)) return std::move(*value);
  return absl::InternalError("PairQuery answered a different query kind");
}

// The request of a pair query between `a` and `b` (2D or 3D alike).
template <typename Shape, typename PoseType, typename Kind>
PairQueryRequest PairRequest(const Shape& a, const PoseType& pose_a,
                             const Shape& b, const PoseType& pose_b,
                             Kind kind) {
  return {.shape_a = a,
          .pose_a = pose_a,
          .shape_b = b,
          .pose_b = pose_b,
          .kind = std::move(kind)};
}

// A ray against `shape` alone (shape_b repeats it; the server ignores it).
template <typename Shape, typename PoseType, typename RayType>
PairQueryRequest RayRequest(const Shape& shape, const PoseType& pose,
                            const RayType& ray) {
  return PairRequest(shape, pose, shape, pose,
                     PairRaycast{.origin = ray.origin,
                                 .direction = ray.direction,
                                 .max_distance = ray.max_distance});
}

}  // namespace

absl::StatusOr<bool> Client::Overlap(const Shape2& a, const Pose2& pose_a,
                                     const Shape2& b, const Pose2& pose_b,
                                     const CallOptions& call_options) {
  return Expect<bool>(PairQuery(
      PairRequest(a, pose_a, b, pose_b, PairOverlap{}), call_options));
}

absl::StatusOr<ContactResult<2>> Client::Contact(
    const Shape2& a, const Pose2& pose_a, const Shape2& b, const Pose2& pose_b,
    const CallOptions& call_options) {
  return Expect<ContactResult<2>>(PairQuery(
      PairRequest(a, pose_a, b, pose_b, PairContact{}), call_options));
}

absl::StatusOr<SweepResult<2>> Client::Sweep(
    const Shape2& a, const Pose2& pose_a, Vec2 displacement_a, const Shape2& b,
    const Pose2& pose_b, Vec2 displacement_b, const CallOptions& call_options) {
  return Expect<SweepResult<2>>(
      PairQuery(PairRequest(a, pose_a, b, pose_b,
                            PairSweep{.displacement_a = displacement_a,
                                      .displacement_b = displacement_b}),
                call_options));
}

absl::StatusOr<RayResult<2>> Client::Raycast(const Shape2& shape,
                                             const Pose2& pose,
                                             const Ray<2>& ray,
                                             const CallOptions& call_options) {
  return Expect<RayResult<2>>(
      PairQuery(RayRequest(shape, pose, ray), call_options));
}

absl::StatusOr<bool> Client::Overlap(const Shape3& a, const Pose3& pose_a,
                                     const Shape3& b, const Pose3& pose_b,
                                     const CallOptions& call_options) {
  return Expect<bool>(PairQuery(
      PairRequest(a, pose_a, b, pose_b, PairOverlap{}), call_options));
}

absl::StatusOr<ContactResult<3>> Client::Contact(
    const Shape3& a, const Pose3& pose_a, const Shape3& b, const Pose3& pose_b,
    const CallOptions& call_options) {
  return Expect<ContactResult<3>>(PairQuery(
      PairRequest(a, pose_a, b, pose_b, PairContact{}), call_options));
}

absl::StatusOr<SweepResult<3>> Client::Sweep(
    const Shape3& a, const Pose3& pose_a, Vec3 displacement_a, const Shape3& b,
    const Pose3& pose_b, Vec3 displacement_b, const CallOptions& call_options) {
  return Expect<SweepResult<3>>(
      PairQuery(PairRequest(a, pose_a, b, pose_b,
                            PairSweep{.displacement_a = displacement_a,
                                      .displacement_b = displacement_b}),
                call_options));
}

absl::StatusOr<RayResult<3>> Client::Raycast(const Shape3& shape,
                                             const Pose3& pose,
                                             const Ray<3>& ray,
                                             const CallOptions& call_options) {
  return Expect<RayResult<3>>(
      PairQuery(RayRequest(shape, pose, ray), call_options));
}

}  // namespace sator
