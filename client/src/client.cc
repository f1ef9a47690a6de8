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

namespace sator {

using client::CallContext;
using client_internal::ClientState;

namespace {

// Idempotent calls may be retried; mutations never are.
constexpr bool kIdempotent = true;
constexpr bool kMutation = false;

client::QueryOptions WithRewind(client::QueryOptions options,
                                const CallOptions& call_options) {
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
  return client::ValidateRetryPolicy(options.retry, "ClientOptions.retry");
}

}  // namespace

namespace client_internal {

absl::StatusOr<std::unique_ptr<Client>> ClientFactory::Create(
    std::shared_ptr<client::Connection> connection,
    const ClientOptions& options, RetryEnvironment environment) {
  if (connection == nullptr) {
    return absl::InvalidArgumentError("connection: null");
  }
  if (absl::Status valid = ValidateOptions(options); !valid.ok()) return valid;
  return std::unique_ptr<Client>(new Client(std::make_unique<ClientState>(
      options, std::move(connection), std::move(environment))));
}

}  // namespace client_internal

bool SceneRange::Advance() {
  if (done_) return false;
  while (next_in_page_ >= page_.size()) {
    if (fetched_any_ && next_token_.empty()) {
      done_ = true;
      return false;
    }
    absl::StatusOr<client::ListScenesPage> page = fetch_(next_token_);
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

Client::Client(std::unique_ptr<ClientState> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

absl::StatusOr<std::unique_ptr<Client>> Client::Create(
    const ClientOptions& options) {
  if (options.target.empty()) {
    return absl::InvalidArgumentError("ClientOptions.target: empty");
  }
  if (absl::Status valid = ValidateOptions(options); !valid.ok()) return valid;
  absl::StatusOr<std::shared_ptr<client::Connection>> connection =
      client::MakeConnection(
          {.target = options.target,
           .keepalive_time = options.keepalive_time,
           .keepalive_timeout = options.keepalive_timeout,
           .max_message_bytes = options.max_message_bytes,
           .max_reconnect_backoff = options.max_reconnect_backoff,
           .tls = options.tls,
           .bearer_token = options.bearer_token});
  if (!connection.ok()) return connection.status();
  return Create(*std::move(connection), options);
}

absl::StatusOr<std::unique_ptr<Client>> Client::Create(
    std::shared_ptr<client::Connection> connection,
    const ClientOptions& options) {
  return client_internal::ClientFactory::Create(
      std::move(connection), options,
      client_internal::DefaultRetryEnvironment());
}

const std::shared_ptr<client::Connection>& Client::connection() const {
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

std::future<absl::StatusOr<PingResult>> Client::AsyncPing(
    std::string payload, const CallOptions& call_options) {
  return impl_->Async([this, payload = std::move(payload), call_options] {
    return Ping(payload, call_options);
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

absl::StatusOr<client::SceneInfo> Client::CreateScene(
    const std::string& scene_id, const client::SceneSettings& settings,
    const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<client::SceneInfo>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().CreateScene(scene_id, settings, context);
      });
}

std::future<absl::StatusOr<client::SceneInfo>> Client::AsyncCreateScene(
    std::string scene_id, client::SceneSettings settings,
    const CallOptions& call_options) {
  return impl_->Async(
      [this, scene_id = std::move(scene_id), settings, call_options] {
        return CreateScene(scene_id, settings, call_options);
      });
}

absl::Status Client::DeleteScene(const std::string& scene_id,
                                 const CallOptions& call_options) {
  return impl_->Call<absl::Status>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().DeleteScene(scene_id, context);
      });
}

std::future<absl::Status> Client::AsyncDeleteScene(
    std::string scene_id, const CallOptions& call_options) {
  return impl_->Async([this, scene_id = std::move(scene_id), call_options] {
    return DeleteScene(scene_id, call_options);
  });
}

absl::StatusOr<client::ListScenesPage> Client::ListScenes(
    std::uint32_t page_size, const std::string& page_token,
    const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<client::ListScenesPage>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().ListScenes(page_size, page_token, context);
      });
}

std::future<absl::StatusOr<client::ListScenesPage>> Client::AsyncListScenes(
    std::uint32_t page_size, std::string page_token,
    const CallOptions& call_options) {
  return impl_->Async(
      [this, page_size, page_token = std::move(page_token), call_options] {
        return ListScenes(page_size, page_token, call_options);
      });
}

SceneRange Client::ListAllScenes(std::uint32_t page_size,
                                 const CallOptions& call_options) {
  return SceneRange([this, page_size, call_options](const std::string& token) {
    return ListScenes(page_size, token, call_options);
  });
}

absl::StatusOr<client::SceneInfo> Client::GetScene(
    const std::string& scene_id, const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<client::SceneInfo>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().GetScene(scene_id, context);
      });
}

std::future<absl::StatusOr<client::SceneInfo>> Client::AsyncGetScene(
    std::string scene_id, const CallOptions& call_options) {
  return impl_->Async([this, scene_id = std::move(scene_id), call_options] {
    return GetScene(scene_id, call_options);
  });
}

absl::StatusOr<client::SceneSnapshot> Client::ExportScene(
    const std::string& scene_id, const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<client::SceneSnapshot>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().ExportScene(scene_id, context);
      });
}

std::future<absl::StatusOr<client::SceneSnapshot>> Client::AsyncExportScene(
    std::string scene_id, const CallOptions& call_options) {
  return impl_->Async([this, scene_id = std::move(scene_id), call_options] {
    return ExportScene(scene_id, call_options);
  });
}

absl::StatusOr<client::SceneInfo> Client::ImportScene(
    const client::SceneSnapshot& snapshot, const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<client::SceneInfo>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().ImportScene(snapshot, context);
      });
}

std::future<absl::StatusOr<client::SceneInfo>> Client::AsyncImportScene(
    client::SceneSnapshot snapshot, const CallOptions& call_options) {
  return impl_->Async([this, snapshot = std::move(snapshot), call_options] {
    return ImportScene(snapshot, call_options);
  });
}

// ---- Bodies ----

absl::StatusOr<client::UpsertBodiesResult> Client::UpsertBodies(
    const std::string& scene_id, const std::vector<client::Body>& bodies,
    const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<client::UpsertBodiesResult>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().UpsertBodies(scene_id, bodies, context);
      });
}

std::future<absl::StatusOr<client::UpsertBodiesResult>>
Client::AsyncUpsertBodies(std::string scene_id,
                          std::vector<client::Body> bodies,
                          const CallOptions& call_options) {
  return impl_->Async(
      [this, scene_id = std::move(scene_id), bodies = std::move(bodies),
       call_options] { return UpsertBodies(scene_id, bodies, call_options); });
}

absl::StatusOr<std::uint32_t> Client::RemoveBodies(
    const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
    const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<std::uint32_t>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().RemoveBodies(scene_id, body_ids, context);
      });
}

std::future<absl::StatusOr<std::uint32_t>> Client::AsyncRemoveBodies(
    std::string scene_id, std::vector<std::uint64_t> body_ids,
    const CallOptions& call_options) {
  return impl_->Async([this, scene_id = std::move(scene_id),
                       body_ids = std::move(body_ids), call_options] {
    return RemoveBodies(scene_id, body_ids, call_options);
  });
}

absl::StatusOr<std::int64_t> Client::UpdatePoses(
    const std::string& scene_id, std::int64_t tick,
    const client::PoseBatch& poses, const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<std::int64_t>>(
      kMutation, call_options, [&](const CallContext& context) {
        return impl_->connection().UpdatePoses(scene_id, tick, poses, context);
      });
}

std::future<absl::StatusOr<std::int64_t>> Client::AsyncUpdatePoses(
    std::string scene_id, std::int64_t tick, client::PoseBatch poses,
    const CallOptions& call_options) {
  return impl_->Async([this, scene_id = std::move(scene_id), tick,
                       poses = std::move(poses), call_options] {
    return UpdatePoses(scene_id, tick, poses, call_options);
  });
}

// ---- Scene queries ----

absl::StatusOr<client::QueryResult> Client::Overlap(
    const std::string& scene_id, const client::OverlapQuery& query,
    const client::QueryOptions& options, const CallOptions& call_options) {
  const client::QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<client::QueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().Overlap(scene_id, query, effective, context);
      });
}

std::future<absl::StatusOr<client::QueryResult>> Client::AsyncOverlap(
    std::string scene_id, client::OverlapQuery query,
    client::QueryOptions options, const CallOptions& call_options) {
  return impl_->Async([this, scene_id = std::move(scene_id),
                       query = std::move(query), options = std::move(options),
                       call_options] {
    return Overlap(scene_id, query, options, call_options);
  });
}

absl::StatusOr<client::QueryResult> Client::Contacts(
    const std::string& scene_id, const client::ContactsQuery& query,
    const client::QueryOptions& options, const CallOptions& call_options) {
  const client::QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<client::QueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().Contacts(scene_id, query, effective,
                                            context);
      });
}

std::future<absl::StatusOr<client::QueryResult>> Client::AsyncContacts(
    std::string scene_id, client::ContactsQuery query,
    client::QueryOptions options, const CallOptions& call_options) {
  return impl_->Async([this, scene_id = std::move(scene_id),
                       query = std::move(query), options = std::move(options),
                       call_options] {
    return Contacts(scene_id, query, options, call_options);
  });
}

absl::StatusOr<client::QueryResult> Client::Sweep(
    const std::string& scene_id, const client::SweepQuery& query,
    const client::QueryOptions& options, const CallOptions& call_options) {
  const client::QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<client::QueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().Sweep(scene_id, query, effective, context);
      });
}

std::future<absl::StatusOr<client::QueryResult>> Client::AsyncSweep(
    std::string scene_id, client::SweepQuery query,
    client::QueryOptions options, const CallOptions& call_options) {
  return impl_->Async(
      [this, scene_id = std::move(scene_id), query = std::move(query),
       options = std::move(options),
       call_options] { return Sweep(scene_id, query, options, call_options); });
}

absl::StatusOr<client::QueryResult> Client::Raycast(
    const std::string& scene_id, const client::RaycastQuery& query,
    const client::QueryOptions& options, const CallOptions& call_options) {
  const client::QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<client::QueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().Raycast(scene_id, query, effective, context);
      });
}

std::future<absl::StatusOr<client::QueryResult>> Client::AsyncRaycast(
    std::string scene_id, client::RaycastQuery query,
    client::QueryOptions options, const CallOptions& call_options) {
  return impl_->Async([this, scene_id = std::move(scene_id), query,
                       options = std::move(options), call_options] {
    return Raycast(scene_id, query, options, call_options);
  });
}

absl::StatusOr<client::QueryResult> Client::PointQuery(
    const std::string& scene_id, const client::PointQuery& query,
    const client::QueryOptions& options, const CallOptions& call_options) {
  const client::QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<client::QueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().PointQuery(scene_id, query, effective,
                                              context);
      });
}

std::future<absl::StatusOr<client::QueryResult>> Client::AsyncPointQuery(
    std::string scene_id, client::PointQuery query,
    client::QueryOptions options, const CallOptions& call_options) {
  return impl_->Async([this, scene_id = std::move(scene_id), query,
                       options = std::move(options), call_options] {
    return PointQuery(scene_id, query, options, call_options);
  });
}

absl::StatusOr<std::vector<client::BatchEntry>> Client::QueryBatch(
    const std::string& scene_id, const std::vector<client::Query>& queries,
    const CallOptions& call_options) {
  std::vector<client::Query> rewound;
  const std::vector<client::Query>* to_send = &queries;
  if (call_options.rewind.has_value()) {
    rewound = queries;
    for (client::Query& query : rewound) {
      query.options.rewind = call_options.rewind;
    }
    to_send = &rewound;
  }
  return impl_->Call<absl::StatusOr<std::vector<client::BatchEntry>>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().QueryBatch(scene_id, *to_send, context);
      });
}

std::future<absl::StatusOr<std::vector<client::BatchEntry>>>
Client::AsyncQueryBatch(std::string scene_id,
                        std::vector<client::Query> queries,
                        const CallOptions& call_options) {
  return impl_->Async(
      [this, scene_id = std::move(scene_id), queries = std::move(queries),
       call_options] { return QueryBatch(scene_id, queries, call_options); });
}

absl::StatusOr<client::RaycastBatchResult> Client::RaycastBatch(
    const std::string& scene_id, absl::Span<const client::RaycastQuery> rays,
    const client::QueryOptions& options, const CallOptions& call_options) {
  const client::QueryOptions effective = WithRewind(options, call_options);
  return impl_->Call<absl::StatusOr<client::RaycastBatchResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().RaycastBatch(scene_id, rays, effective,
                                                context);
      });
}

std::future<absl::StatusOr<client::RaycastBatchResult>>
Client::AsyncRaycastBatch(std::string scene_id,
                          std::vector<client::RaycastQuery> rays,
                          client::QueryOptions options,
                          const CallOptions& call_options) {
  return impl_->Async([this, scene_id = std::move(scene_id),
                       rays = std::move(rays), options = std::move(options),
                       call_options] {
    return RaycastBatch(scene_id, rays, options, call_options);
  });
}

// ---- Sessions ----

absl::StatusOr<std::unique_ptr<client::Session>> Client::OpenSession(
    const std::string& scene_id, const client::SessionOptions& options) {
  return client::Session::Open(impl_->shared_connection(), scene_id, options);
}

// ---- Pair queries ----

absl::StatusOr<client::PairQueryResult> Client::PairQuery(
    const client::PairQueryRequest& request, const CallOptions& call_options) {
  return impl_->Call<absl::StatusOr<client::PairQueryResult>>(
      kIdempotent, call_options, [&](const CallContext& context) {
        return impl_->connection().PairQuery(request, context);
      });
}

std::future<absl::StatusOr<client::PairQueryResult>> Client::AsyncPairQuery(
    client::PairQueryRequest request, const CallOptions& call_options) {
  return impl_->Async([this, request = std::move(request), call_options] {
    return PairQuery(request, call_options);
  });
}

namespace {

// The pair answer of the expected kind, or INTERNAL if the server answered
// another one.
template <typename T>
absl::StatusOr<T> Expect(absl::StatusOr<client::PairQueryResult> result) {
  if (!result.ok()) return result.status();
  if (T* value = std::get_if<T>(&*result)) return std::move(*value);
  return absl::InternalError("PairQuery answered a different query kind");
}

// The request of a pair query between `a` and `b` (2D or 3D alike).
template <typename Shape, typename PoseType, typename Kind>
client::PairQueryRequest PairRequest(const Shape& a, const PoseType& pose_a,
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
client::PairQueryRequest RayRequest(const Shape& shape, const PoseType& pose,
                                    const RayType& ray) {
  return PairRequest(shape, pose, shape, pose,
                     client::PairRaycast{.origin = ray.origin,
                                         .direction = ray.direction,
                                         .max_distance = ray.max_distance});
}

}  // namespace

absl::StatusOr<bool> Client::Overlap(const Shape2& a, const Pose2& pose_a,
                                     const Shape2& b, const Pose2& pose_b,
                                     const CallOptions& call_options) {
  return Expect<bool>(PairQuery(
      PairRequest(a, pose_a, b, pose_b, client::PairOverlap{}), call_options));
}

absl::StatusOr<ContactResult<2>> Client::Contact(
    const Shape2& a, const Pose2& pose_a, const Shape2& b, const Pose2& pose_b,
    const CallOptions& call_options) {
  return Expect<ContactResult<2>>(PairQuery(
      PairRequest(a, pose_a, b, pose_b, client::PairContact{}), call_options));
}

absl::StatusOr<SweepResult<2>> Client::Sweep(
    const Shape2& a, const Pose2& pose_a, Vec2 displacement_a, const Shape2& b,
    const Pose2& pose_b, Vec2 displacement_b, const CallOptions& call_options) {
  return Expect<SweepResult<2>>(PairQuery(
      PairRequest(a, pose_a, b, pose_b,
                  client::PairSweep{.displacement_a = displacement_a,
                                    .displacement_b = displacement_b}),
      call_options));
}

absl::StatusOr<RayResult<2>> Client::RayCast(const Shape2& shape,
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
      PairRequest(a, pose_a, b, pose_b, client::PairOverlap{}), call_options));
}

absl::StatusOr<ContactResult<3>> Client::Contact(
    const Shape3& a, const Pose3& pose_a, const Shape3& b, const Pose3& pose_b,
    const CallOptions& call_options) {
  return Expect<ContactResult<3>>(PairQuery(
      PairRequest(a, pose_a, b, pose_b, client::PairContact{}), call_options));
}

absl::StatusOr<SweepResult<3>> Client::Sweep(
    const Shape3& a, const Pose3& pose_a, Vec3 displacement_a, const Shape3& b,
    const Pose3& pose_b, Vec3 displacement_b, const CallOptions& call_options) {
  return Expect<SweepResult<3>>(PairQuery(
      PairRequest(a, pose_a, b, pose_b,
                  client::PairSweep{.displacement_a = displacement_a,
                                    .displacement_b = displacement_b}),
      call_options));
}

absl::StatusOr<RayResult<3>> Client::RayCast(const Shape3& shape,
                                             const Pose3& pose,
                                             const Ray<3>& ray,
                                             const CallOptions& call_options) {
  return Expect<RayResult<3>>(
      PairQuery(RayRequest(shape, pose, ray), call_options));
}

}  // namespace sator
