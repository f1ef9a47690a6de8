// MakeConnection: sator::Connection over one gRPC channel, which retries the
// idempotent calls by its service config (retry.h); `x-scene-id` metadata on
// every call that names a scene; the server's `grpc-retry-pushback-ms` on a
// failed call becomes a status payload (RetryAfter).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/synchronization/notification.h"
#include "calls_in_flight.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "google/rpc/error_details.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpc_channel.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/channel_arguments.h"
#include "grpcpp/support/client_interceptor.h"
#include "proximity_wire.h"
#include "retry_service_config.h"
#include "sator/client/connection.h"
#include "sator/client/retry.h"
#include "sator/v1/body_service.grpc.pb.h"
#include "sator/v1/proximity.grpc.pb.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "sator/v1/scene_service.grpc.pb.h"
#include "status_conversion.h"
#include "wire_convert.h"

namespace sator {
namespace {

using client_internal::FromGrpcStatus;

// True for an id that can name a scene (1 to 128 characters from
// [A-Za-z0-9._-], as satord checks). Only such an id goes into the x-scene-id
// metadata: a longer one could pass gRPC's metadata size limit, or a byte
// not allowed in metadata fail the call, before satord could answer it with
// its own INVALID_ARGUMENT.
bool CanNameScene(const std::string& id) {
  constexpr std::size_t kMaxSceneIdLength = 128;
  if (id.empty() || id.size() > kMaxSceneIdLength) return false;
  for (const char c : id) {
    const bool allowed = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                         (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                         c == '-';
    if (!allowed) return false;
  }
  return true;
}

void PrepareContext(grpc::ClientContext& grpc_context,
                    const CallContext& context, const std::string* scene_id) {
  if (context.deadline != absl::InfiniteFuture()) {
    grpc_context.set_deadline(absl::ToChronoTime(context.deadline));
  }
  if (scene_id != nullptr && CanNameScene(*scene_id)) {
    grpc_context.AddMetadata(std::string(kSceneIdMetadataKey), *scene_id);
  }
}

// gRPC's pushback trailer (gRFC A6): a delay in decimal milliseconds, or a
// negative number for "do not retry".
constexpr absl::string_view kPushbackMetadataKey = "grpc-retry-pushback-ms";

// The call's status, with the server's pushback delay as a payload.
absl::Status FinishStatus(const grpc::ClientContext& grpc_context,
                          const grpc::Status& status) {
  absl::Status result = FromGrpcStatus(status);
  if (result.ok()) return result;
  const auto& trailers = grpc_context.GetServerTrailingMetadata();
  const auto it = trailers.find(grpc::string_ref(kPushbackMetadataKey.data(),
                                                 kPushbackMetadataKey.size()));
  std::int64_t millis = 0;
  if (it != trailers.end() &&
      absl::SimpleAtoi(absl::string_view(it->second.data(), it->second.size()),
                       &millis) &&
      millis >= 0) {
    SetRetryAfter(result, absl::Milliseconds(millis));
  }
  return result;
}

// One unary call through a generated stub method.
template <typename Stub, typename Request, typename Response>
absl::Status Unary(Stub& stub,
                   grpc::Status (Stub::*method)(grpc::ClientContext*,
                                                const Request&, Response*),
                   const Request& request, Response* response,
                   const CallContext& context,
                   const std::string* scene_id = nullptr) {
  grpc::ClientContext grpc_context;
  PrepareContext(grpc_context, context, scene_id);
  const grpc::Status status = (stub.*method)(&grpc_context, request, response);
  return FinishStatus(grpc_context, status);
}

class GrpcSessionStream final : public SessionStream {
 public:
  GrpcSessionStream(sator::v1::QueryService::Stub& stub,
                    const std::string& scene_id) {
    PrepareContext(context_, CallContext{}, &scene_id);
    stream_ = stub.Session(&context_);
  }

  bool Write(const SessionRequest& request) override {
    sator::v1::SessionRequest message;
    client_internal::WriteSessionRequest(request, &message);
    return stream_->Write(message);
  }
  bool WritesDone() override { return stream_->WritesDone(); }
  std::optional<SessionReply> Read() override {
    sator::v1::SessionResponse message;
    if (!stream_->Read(&message)) return std::nullopt;
    return client_internal::ReadSessionReply(message);
  }
  absl::Status Finish() override {
    return FinishStatus(context_, stream_->Finish());
  }
  void Cancel() override { context_.TryCancel(); }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<sator::v1::SessionRequest,
                                           sator::v1::SessionResponse>>
      stream_;
};

class GrpcShotVerdictStream final : public ShotVerdictStream {
 public:
  GrpcShotVerdictStream(sator::v1::QueryService::Stub& stub,
                        const std::string& scene_id,
                        std::optional<std::uint64_t> from_sequence) {
    PrepareContext(context_, CallContext{}, &scene_id);
    sator::v1::WatchShotVerdictsRequest request;
    request.set_scene_id(scene_id);
    if (from_sequence.has_value()) request.set_from_sequence(*from_sequence);
    stream_ = stub.WatchShotVerdicts(&context_, request);
  }

  std::optional<ShotVerdictEvent> Read() override {
    sator::v1::WatchShotVerdictsResponse message;
    while (stream_->Read(&message)) {
      if (message.has_gap()) {
        return ShotVerdictGap{.first_sequence = message.gap().first_sequence(),
                              .dropped = message.gap().dropped()};
      }
      if (message.has_record()) {
        absl::StatusOr<ShotVerdictRecord> record =
            client_internal::ReadShotVerdictRecord(message.record());
        if (record.ok()) return *std::move(record);
        read_error_ = record.status();
        context_.TryCancel();
        return std::nullopt;
      }
      // An event kind newer than this client: skipped.
    }
    return std::nullopt;
  }
  absl::Status Finish() override {
    absl::Status status = FinishStatus(context_, stream_->Finish());
    if (!read_error_.ok()) return read_error_;
    return status;
  }
  void Cancel() override { context_.TryCancel(); }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<sator::v1::WatchShotVerdictsResponse>>
      stream_;
  absl::Status read_error_;
};

class GrpcProximityStream final : public ProximityStream {
 public:
  GrpcProximityStream(sator::v1::ProximityService::Stub& stub,
                      const std::string& scene_id,
                      const ProximityWatchStart& start) {
    PrepareContext(context_, CallContext{}, &scene_id);
    sator::v1::WatchProximityRequest request;
    request.set_scene_id(scene_id);
    if (start.tick.has_value()) request.set_from_tick(*start.tick);
    if (start.sequence.has_value()) {
      request.set_from_sequence(*start.sequence);
    }
    stream_ = stub.WatchProximity(&context_, request);
  }

  std::optional<ProximityStreamEvent> Read() override {
    sator::v1::WatchProximityResponse message;
    while (stream_->Read(&message)) {
      if (message.has_events()) {
        return client_internal::ReadTickEvents(message.events());
      }
      if (message.has_resync()) {
        return client_internal::ReadResync(message.resync());
      }
      // A message kind newer than this client: skipped.
    }
    return std::nullopt;
  }
  absl::Status Finish() override {
    return FinishStatus(context_, stream_->Finish());
  }
  void Cancel() override { context_.TryCancel(); }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<sator::v1::WatchProximityResponse>>
      stream_;
};

// Referencing one message of each service file links its descriptors in, so
// the generated pool can find every method by name (CallJson).
void LinkServiceDescriptors() {
  static const bool linked = [] {
    (void)sator::v1::PingRequest::descriptor();
    (void)sator::v1::CreateSceneRequest::descriptor();
    (void)sator::v1::UpsertBodiesRequest::descriptor();
    (void)sator::v1::AddZoneRequest::descriptor();
    return true;
  }();
  (void)linked;
}

using QueryStub = sator::v1::QueryService::Stub;
using QueryAsync = sator::v1::QueryService::StubInterface::async_interface;
using SceneStub = sator::v1::SceneService::Stub;
using SceneAsync = sator::v1::SceneService::StubInterface::async_interface;
using BodyStub = sator::v1::BodyService::Stub;
using BodyAsync = sator::v1::BodyService::StubInterface::async_interface;

// One blocking call whose response becomes the result by `read`
// (response, request) -> result.
template <typename Stub, typename Request, typename Response, typename Read>
auto Blocking(Stub& stub,
              grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                           Response*),
              const Request& request, const CallContext& context,
              const std::string* scene_id, const Read& read)
    -> std::invoke_result_t<const Read&, Response&, const Request&> {
  Response response;
  if (absl::Status status =
          Unary(stub, method, request, &response, context, scene_id);
      !status.ok()) {
    return status;
  }
  return read(response, request);
}

// What one call on gRPC's callback API owns until it completes.
template <typename Request, typename Response, typename Read, typename Done>
struct CallInFlight {
  client_internal::CallsInFlight* in_flight;
  grpc::ClientContext context;
  Request request;
  Response response;
  Read read;
  Done done;
};

// Starts one call on gRPC's callback API (the `async()` stub), counted in
// `in_flight` until it completes; `done` gets the result as Blocking would
// give it, on a gRPC thread.
template <typename Stub, typename Async, typename Request, typename Response,
          typename Read, typename Done>
void Start(client_internal::CallsInFlight& in_flight, Stub& stub,
           void (Async::*method)(grpc::ClientContext*, const Request*,
                                 Response*, std::function<void(grpc::Status)>),
           Request request, const CallContext& context,
           const std::string* scene_id, Read read, Done done) {
  using Call = CallInFlight<Request, Response, Read, Done>;
  in_flight.Enter();
  auto* call = new Call{.in_flight = &in_flight,
                        .context = {},
                        .request = std::move(request),
                        .response = {},
                        .read = std::move(read),
                        .done = std::move(done)};
  PrepareContext(call->context, context, scene_id);
  Async* async = stub.async();
  (async->*method)(
      &call->context, &call->request, &call->response,
      [call](const grpc::Status& status) {
        using Result = std::invoke_result_t<Read&, Response&, const Request&>;
        std::unique_ptr<Call> owned(call);
        Done finish = std::move(owned->done);
        absl::Status finished = FinishStatus(owned->context, status);
        Result result = finished.ok()
                            ? owned->read(owned->response, owned->request)
                            : Result(std::move(finished));
        // Left before the completion runs: once it has, the connection may
        // be destroyed.
        client_internal::CallsInFlight* counted = owned->in_flight;
        owned.reset();
        counted->Leave();
        std::move(finish)(std::move(result));
      });
}

// ---- Requests ----

sator::v1::PingRequest PingRequestOf(const std::string& payload) {
  sator::v1::PingRequest request;
  request.set_payload(payload);
  return request;
}

template <typename Request>
Request WithSceneId(const std::string& scene_id) {
  Request request;
  request.set_scene_id(scene_id);
  return request;
}

sator::v1::CreateSceneRequest CreateSceneRequestOf(
    const std::string& scene_id, const SceneSettings& settings) {
  auto request = WithSceneId<sator::v1::CreateSceneRequest>(scene_id);
  client_internal::WriteSettings(settings, request.mutable_settings());
  return request;
}

sator::v1::ListScenesRequest ListScenesRequestOf(
    std::uint32_t page_size, const std::string& page_token) {
  sator::v1::ListScenesRequest request;
  request.set_page_size(page_size);
  request.set_page_token(page_token);
  return request;
}

sator::v1::ImportSceneRequest ImportSceneRequestOf(
    const SceneSnapshot& snapshot) {
  sator::v1::ImportSceneRequest request;
  client_internal::WriteSnapshot(snapshot, request.mutable_snapshot());
  return request;
}

sator::v1::UpsertBodiesRequest UpsertBodiesRequestOf(
    const std::string& scene_id, const std::vector<Body>& bodies) {
  auto request = WithSceneId<sator::v1::UpsertBodiesRequest>(scene_id);
  request.mutable_bodies()->Reserve(static_cast<int>(bodies.size()));
  for (const Body& body : bodies) {
    client_internal::WriteBody(body, request.add_bodies());
  }
  return request;
}

sator::v1::RemoveBodiesRequest RemoveBodiesRequestOf(
    const std::string& scene_id, const std::vector<std::uint64_t>& body_ids) {
  auto request = WithSceneId<sator::v1::RemoveBodiesRequest>(scene_id);
  request.mutable_body_ids()->Add(body_ids.begin(), body_ids.end());
  return request;
}

sator::v1::UpdatePosesRequest UpdatePosesRequestOf(const std::string& scene_id,
                                                   std::int64_t tick,
                                                   const PoseBatch& poses) {
  auto request = WithSceneId<sator::v1::UpdatePosesRequest>(scene_id);
  request.set_tick(tick);
  client_internal::WritePoseBatch(poses, request.mutable_poses());
  return request;
}

// A scene query's request: its scene, options and query (written by
// `write`, one of client_internal's Write* functions).
template <typename Request, typename Query, typename Message>
Request SceneQueryRequestOf(const std::string& scene_id,
                            const QueryOptions& options,
                            void (*write)(const Query&, Message*),
                            const Query& query) {
  auto request = WithSceneId<Request>(scene_id);
  client_internal::WriteQueryOptions(options, request.mutable_options());
  write(query, request.mutable_query());
  return request;
}

sator::v1::QueryBatchRequest QueryBatchRequestOf(
    const std::string& scene_id, const std::vector<Query>& queries) {
  auto request = WithSceneId<sator::v1::QueryBatchRequest>(scene_id);
  request.mutable_queries()->Reserve(static_cast<int>(queries.size()));
  for (const Query& query : queries) {
    client_internal::WriteQuery(query, request.add_queries());
  }
  return request;
}

absl::StatusOr<sator::v1::RaycastBatchRequest> RaycastBatchRequestOf(
    const std::string& scene_id, absl::Span<const RaycastQuery> rays,
    const QueryOptions& options) {
  auto request = WithSceneId<sator::v1::RaycastBatchRequest>(scene_id);
  if (absl::Status written =
          client_internal::WriteRaycastBatch(rays, options, &request);
      !written.ok()) {
    return written;
  }
  return request;
}

sator::v1::ValidateShotsRequest ValidateShotsRequestOf(
    const std::string& scene_id, absl::Span<const Shot> shots,
    const HitPolicy& policy) {
  auto request = WithSceneId<sator::v1::ValidateShotsRequest>(scene_id);
  client_internal::WriteShots(shots, policy, &request);
  return request;
}

sator::v1::PairQueryRequest PairQueryRequestOf(
    const PairQueryRequest& request) {
  sator::v1::PairQueryRequest message;
  client_internal::WritePairQuery(request, &message);
  return message;
}

// ---- Responses: (response, request) -> result ----

absl::StatusOr<PingResult> ReadPing(sator::v1::PingResponse& response,
                                    const sator::v1::PingRequest& /*request*/) {
  return PingResult{.payload = std::move(*response.mutable_payload()),
                    .server_version = response.server_version()};
}

template <typename Request>
absl::StatusOr<SceneInfo> ReadInfo(sator::v1::SceneInfo& response,
                                   const Request& /*request*/) {
  return client_internal::ReadSceneInfo(response);
}

absl::Status ReadDeleted(sator::v1::DeleteSceneResponse& /*response*/,
                         const sator::v1::DeleteSceneRequest& /*request*/) {
  return absl::OkStatus();
}

absl::StatusOr<ListScenesPage> ReadScenePage(
    sator::v1::ListScenesResponse& response,
    const sator::v1::ListScenesRequest& /*request*/) {
  ListScenesPage page;
  page.scenes.reserve(static_cast<std::size_t>(response.scenes_size()));
  for (const sator::v1::SceneInfo& info : response.scenes()) {
    page.scenes.push_back(client_internal::ReadSceneInfo(info));
  }
  page.next_page_token = response.next_page_token();
  return page;
}

absl::StatusOr<SceneSnapshot> ReadExport(
    sator::v1::SceneSnapshot& response,
    const sator::v1::ExportSceneRequest& /*request*/) {
  return client_internal::ReadSnapshot(response);
}

absl::StatusOr<UpsertBodiesResult> ReadUpsert(
    sator::v1::UpsertBodiesResponse& response,
    const sator::v1::UpsertBodiesRequest& /*request*/) {
  return UpsertBodiesResult{.created = response.created(),
                            .replaced = response.replaced()};
}

absl::StatusOr<std::uint32_t> ReadRemoved(
    sator::v1::RemoveBodiesResponse& response,
    const sator::v1::RemoveBodiesRequest& /*request*/) {
  return response.removed();
}

absl::StatusOr<std::int64_t> ReadCurrentTick(
    sator::v1::UpdatePosesResponse& response,
    const sator::v1::UpdatePosesRequest& /*request*/) {
  return response.current_tick();
}

template <typename Request>
absl::StatusOr<QueryResult> ReadQuery(sator::v1::QueryResult& response,
                                      const Request& /*request*/) {
  return client_internal::ReadQueryResult(response);
}

absl::StatusOr<std::vector<BatchEntry>> ReadQueryBatch(
    sator::v1::QueryBatchResponse& response,
    const sator::v1::QueryBatchRequest& request) {
  if (response.entries_size() != request.queries_size()) {
    return absl::InternalError(
        absl::StrCat("QueryBatch: ", request.queries_size(), " queries but ",
                     response.entries_size(), " answers"));
  }
  return client_internal::ReadBatch(response);
}

auto RaycastBatchReader(std::size_t ray_count) {
  return [ray_count](sator::v1::RaycastBatchResponse& response,
                     const sator::v1::RaycastBatchRequest& request)
             -> absl::StatusOr<RaycastBatchResult> {
    return client_internal::ReadRaycastBatch(
        response, static_cast<int>(ray_count),
        request.dimension() == sator::v1::DIMENSION_3D ? 3 : 2);
  };
}

absl::StatusOr<ValidateShotsResult> ReadVerdicts(
    sator::v1::ValidateShotsResponse& response,
    const sator::v1::ValidateShotsRequest& request) {
  if (response.verdicts_size() != request.shots_size()) {
    return absl::InternalError(
        absl::StrCat("ValidateShots: ", request.shots_size(), " shots but ",
                     response.verdicts_size(), " verdicts"));
  }
  return client_internal::ReadShots(response);
}

auto PairResultReader(const PairQueryRequest& request) {
  const int dimension = std::holds_alternative<Shape2>(request.shape_a) ? 2 : 3;
  return [dimension](sator::v1::PairQueryResponse& response,
                     const sator::v1::PairQueryRequest& /*request*/)
             -> absl::StatusOr<PairQueryResult> {
    return client_internal::ReadPairResult(response, dimension);
  };
}

class GrpcConnection final : public Connection {
 public:
  explicit GrpcConnection(std::shared_ptr<grpc::Channel> channel)
      : channel_(std::move(channel)),
        query_stub_(sator::v1::QueryService::NewStub(channel_)),
        scene_stub_(sator::v1::SceneService::NewStub(channel_)),
        body_stub_(sator::v1::BodyService::NewStub(channel_)),
        proximity_stub_(sator::v1::ProximityService::NewStub(channel_)),
        health_stub_(grpc::health::v1::Health::NewStub(channel_)) {}
  // Waits for the async calls in flight (CallsInFlight says why).
  ~GrpcConnection() override { in_flight_.WaitUntilNone(); }
  GrpcConnection(const GrpcConnection&) = delete;
  GrpcConnection& operator=(const GrpcConnection&) = delete;

  bool RetriesIdempotentCalls() const override { return true; }
  bool HasAsyncCalls() const override { return true; }

  absl::StatusOr<PingResult> Ping(const std::string& payload,
                                  const CallContext& context) override {
    return Blocking(*query_stub_, &QueryStub::Ping, PingRequestOf(payload),
                    context, nullptr, ReadPing);
  }
  void AsyncPing(const std::string& payload, const CallContext& context,
                 Completion<absl::StatusOr<PingResult>> done) override {
    Start(in_flight_, *query_stub_, &QueryAsync::Ping, PingRequestOf(payload),
          context, nullptr, ReadPing, std::move(done));
  }

  absl::StatusOr<HealthStatus> CheckHealth(
      const std::string& service, const CallContext& context) override {
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(service);
    grpc::health::v1::HealthCheckResponse response;
    if (absl::Status status =
            Unary(*health_stub_, &grpc::health::v1::Health::Stub::Check,
                  request, &response, context);
        !status.ok()) {
      return status;
    }
    switch (response.status()) {
      case grpc::health::v1::HealthCheckResponse::SERVING:
        return HealthStatus::kServing;
      case grpc::health::v1::HealthCheckResponse::NOT_SERVING:
        return HealthStatus::kNotServing;
      default:
        return HealthStatus::kUnknown;
    }
  }

  absl::StatusOr<SceneInfo> CreateScene(const std::string& scene_id,
                                        const SceneSettings& settings,
                                        const CallContext& context) override {
    return Blocking(*scene_stub_, &SceneStub::CreateScene,
                    CreateSceneRequestOf(scene_id, settings), context,
                    &scene_id, ReadInfo<sator::v1::CreateSceneRequest>);
  }
  void AsyncCreateScene(const std::string& scene_id,
                        const SceneSettings& settings,
                        const CallContext& context,
                        Completion<absl::StatusOr<SceneInfo>> done) override {
    Start(in_flight_, *scene_stub_, &SceneAsync::CreateScene,
          CreateSceneRequestOf(scene_id, settings), context, &scene_id,
          ReadInfo<sator::v1::CreateSceneRequest>, std::move(done));
  }

  absl::Status DeleteScene(const std::string& scene_id,
                           const CallContext& context) override {
    return Blocking(*scene_stub_, &SceneStub::DeleteScene,
                    WithSceneId<sator::v1::DeleteSceneRequest>(scene_id),
                    context, &scene_id, ReadDeleted);
  }
  void AsyncDeleteScene(const std::string& scene_id, const CallContext& context,
                        Completion<absl::Status> done) override {
    Start(in_flight_, *scene_stub_, &SceneAsync::DeleteScene,
          WithSceneId<sator::v1::DeleteSceneRequest>(scene_id), context,
          &scene_id, ReadDeleted, std::move(done));
  }

  absl::StatusOr<ListScenesPage> ListScenes(
      std::uint32_t page_size, const std::string& page_token,
      const CallContext& context) override {
    return Blocking(*scene_stub_, &SceneStub::ListScenes,
                    ListScenesRequestOf(page_size, page_token), context,
                    nullptr, ReadScenePage);
  }
  void AsyncListScenes(
      std::uint32_t page_size, const std::string& page_token,
      const CallContext& context,
      Completion<absl::StatusOr<ListScenesPage>> done) override {
    Start(in_flight_, *scene_stub_, &SceneAsync::ListScenes,
          ListScenesRequestOf(page_size, page_token), context, nullptr,
          ReadScenePage, std::move(done));
  }

  absl::StatusOr<SceneInfo> GetScene(const std::string& scene_id,
                                     const CallContext& context) override {
    return Blocking(*scene_stub_, &SceneStub::GetScene,
                    WithSceneId<sator::v1::GetSceneRequest>(scene_id), context,
                    &scene_id, ReadInfo<sator::v1::GetSceneRequest>);
  }
  void AsyncGetScene(const std::string& scene_id, const CallContext& context,
                     Completion<absl::StatusOr<SceneInfo>> done) override {
    Start(in_flight_, *scene_stub_, &SceneAsync::GetScene,
          WithSceneId<sator::v1::GetSceneRequest>(scene_id), context, &scene_id,
          ReadInfo<sator::v1::GetSceneRequest>, std::move(done));
  }

  absl::StatusOr<SceneSnapshot> ExportScene(
      const std::string& scene_id, const CallContext& context) override {
    return Blocking(*scene_stub_, &SceneStub::ExportScene,
                    WithSceneId<sator::v1::ExportSceneRequest>(scene_id),
                    context, &scene_id, ReadExport);
  }
  void AsyncExportScene(
      const std::string& scene_id, const CallContext& context,
      Completion<absl::StatusOr<SceneSnapshot>> done) override {
    Start(in_flight_, *scene_stub_, &SceneAsync::ExportScene,
          WithSceneId<sator::v1::ExportSceneRequest>(scene_id), context,
          &scene_id, ReadExport, std::move(done));
  }

  absl::StatusOr<SceneInfo> ImportScene(const SceneSnapshot& snapshot,
                                        const CallContext& context) override {
    return Blocking(*scene_stub_, &SceneStub::ImportScene,
                    ImportSceneRequestOf(snapshot), context, &snapshot.scene_id,
                    ReadInfo<sator::v1::ImportSceneRequest>);
  }
  void AsyncImportScene(const SceneSnapshot& snapshot,
                        const CallContext& context,
                        Completion<absl::StatusOr<SceneInfo>> done) override {
    Start(in_flight_, *scene_stub_, &SceneAsync::ImportScene,
          ImportSceneRequestOf(snapshot), context, &snapshot.scene_id,
          ReadInfo<sator::v1::ImportSceneRequest>, std::move(done));
  }

  absl::StatusOr<UpsertBodiesResult> UpsertBodies(
      const std::string& scene_id, const std::vector<Body>& bodies,
      const CallContext& context) override {
    return Blocking(*body_stub_, &BodyStub::UpsertBodies,
                    UpsertBodiesRequestOf(scene_id, bodies), context, &scene_id,
                    ReadUpsert);
  }
  void AsyncUpsertBodies(
      const std::string& scene_id, const std::vector<Body>& bodies,
      const CallContext& context,
      Completion<absl::StatusOr<UpsertBodiesResult>> done) override {
    Start(in_flight_, *body_stub_, &BodyAsync::UpsertBodies,
          UpsertBodiesRequestOf(scene_id, bodies), context, &scene_id,
          ReadUpsert, std::move(done));
  }

  absl::StatusOr<std::uint32_t> RemoveBodies(
      const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
      const CallContext& context) override {
    return Blocking(*body_stub_, &BodyStub::RemoveBodies,
                    RemoveBodiesRequestOf(scene_id, body_ids), context,
                    &scene_id, ReadRemoved);
  }
  void AsyncRemoveBodies(
      const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
      const CallContext& context,
      Completion<absl::StatusOr<std::uint32_t>> done) override {
    Start(in_flight_, *body_stub_, &BodyAsync::RemoveBodies,
          RemoveBodiesRequestOf(scene_id, body_ids), context, &scene_id,
          ReadRemoved, std::move(done));
  }

  absl::StatusOr<std::int64_t> UpdatePoses(
      const std::string& scene_id, std::int64_t tick, const PoseBatch& poses,
      const CallContext& context) override {
    return Blocking(*body_stub_, &BodyStub::UpdatePoses,
                    UpdatePosesRequestOf(scene_id, tick, poses), context,
                    &scene_id, ReadCurrentTick);
  }
  void AsyncUpdatePoses(
      const std::string& scene_id, std::int64_t tick, const PoseBatch& poses,
      const CallContext& context,
      Completion<absl::StatusOr<std::int64_t>> done) override {
    Start(in_flight_, *body_stub_, &BodyAsync::UpdatePoses,
          UpdatePosesRequestOf(scene_id, tick, poses), context, &scene_id,
          ReadCurrentTick, std::move(done));
  }

  absl::StatusOr<QueryResult> Overlap(const std::string& scene_id,
                                      const OverlapQuery& query,
                                      const QueryOptions& options,
                                      const CallContext& context) override {
    return Blocking(
        *query_stub_, &QueryStub::Overlap,
        SceneQueryRequestOf<sator::v1::OverlapRequest>(
            scene_id, options, client_internal::WriteOverlap, query),
        context, &scene_id, ReadQuery<sator::v1::OverlapRequest>);
  }
  void AsyncOverlap(const std::string& scene_id, const OverlapQuery& query,
                    const QueryOptions& options, const CallContext& context,
                    Completion<absl::StatusOr<QueryResult>> done) override {
    Start(in_flight_, *query_stub_, &QueryAsync::Overlap,
          SceneQueryRequestOf<sator::v1::OverlapRequest>(
              scene_id, options, client_internal::WriteOverlap, query),
          context, &scene_id, ReadQuery<sator::v1::OverlapRequest>,
          std::move(done));
  }

  absl::StatusOr<QueryResult> Contacts(const std::string& scene_id,
                                       const ContactsQuery& query,
                                       const QueryOptions& options,
                                       const CallContext& context) override {
    return Blocking(
        *query_stub_, &QueryStub::Contacts,
        SceneQueryRequestOf<sator::v1::ContactsRequest>(
            scene_id, options, client_internal::WriteContacts, query),
        context, &scene_id, ReadQuery<sator::v1::ContactsRequest>);
  }
  void AsyncContacts(const std::string& scene_id, const ContactsQuery& query,
                     const QueryOptions& options, const CallContext& context,
                     Completion<absl::StatusOr<QueryResult>> done) override {
    Start(in_flight_, *query_stub_, &QueryAsync::Contacts,
          SceneQueryRequestOf<sator::v1::ContactsRequest>(
              scene_id, options, client_internal::WriteContacts, query),
          context, &scene_id, ReadQuery<sator::v1::ContactsRequest>,
          std::move(done));
  }

  absl::StatusOr<QueryResult> Sweep(const std::string& scene_id,
                                    const SweepQuery& query,
                                    const QueryOptions& options,
                                    const CallContext& context) override {
    return Blocking(*query_stub_, &QueryStub::Sweep,
                    SceneQueryRequestOf<sator::v1::SweepRequest>(
                        scene_id, options, client_internal::WriteSweep, query),
                    context, &scene_id, ReadQuery<sator::v1::SweepRequest>);
  }
  void AsyncSweep(const std::string& scene_id, const SweepQuery& query,
                  const QueryOptions& options, const CallContext& context,
                  Completion<absl::StatusOr<QueryResult>> done) override {
    Start(in_flight_, *query_stub_, &QueryAsync::Sweep,
          SceneQueryRequestOf<sator::v1::SweepRequest>(
              scene_id, options, client_internal::WriteSweep, query),
          context, &scene_id, ReadQuery<sator::v1::SweepRequest>,
          std::move(done));
  }

  absl::StatusOr<QueryResult> Raycast(const std::string& scene_id,
                                      const RaycastQuery& query,
                                      const QueryOptions& options,
                                      const CallContext& context) override {
    return Blocking(
        *query_stub_, &QueryStub::Raycast,
        SceneQueryRequestOf<sator::v1::RaycastRequest>(
            scene_id, options, client_internal::WriteRaycast, query),
        context, &scene_id, ReadQuery<sator::v1::RaycastRequest>);
  }
  void AsyncRaycast(const std::string& scene_id, const RaycastQuery& query,
                    const QueryOptions& options, const CallContext& context,
                    Completion<absl::StatusOr<QueryResult>> done) override {
    Start(in_flight_, *query_stub_, &QueryAsync::Raycast,
          SceneQueryRequestOf<sator::v1::RaycastRequest>(
              scene_id, options, client_internal::WriteRaycast, query),
          context, &scene_id, ReadQuery<sator::v1::RaycastRequest>,
          std::move(done));
  }

  absl::StatusOr<QueryResult> PointQuery(const std::string& scene_id,
                                         const ::sator::PointQuery& query,
                                         const QueryOptions& options,
                                         const CallContext& context) override {
    return Blocking(*query_stub_, &QueryStub::PointQuery,
                    SceneQueryRequestOf<sator::v1::PointQueryRequest>(
                        scene_id, options, client_internal::WritePoint, query),
                    context, &scene_id,
                    ReadQuery<sator::v1::PointQueryRequest>);
  }
  void AsyncPointQuery(const std::string& scene_id,
                       const ::sator::PointQuery& query,
                       const QueryOptions& options, const CallContext& context,
                       Completion<absl::StatusOr<QueryResult>> done) override {
    Start(in_flight_, *query_stub_, &QueryAsync::PointQuery,
          SceneQueryRequestOf<sator::v1::PointQueryRequest>(
              scene_id, options, client_internal::WritePoint, query),
          context, &scene_id, ReadQuery<sator::v1::PointQueryRequest>,
          std::move(done));
  }

  absl::StatusOr<std::vector<BatchEntry>> QueryBatch(
      const std::string& scene_id, const std::vector<Query>& queries,
      const CallContext& context) override {
    return Blocking(*query_stub_, &QueryStub::QueryBatch,
                    QueryBatchRequestOf(scene_id, queries), context, &scene_id,
                    ReadQueryBatch);
  }
  void AsyncQueryBatch(
      const std::string& scene_id, const std::vector<Query>& queries,
      const CallContext& context,
      Completion<absl::StatusOr<std::vector<BatchEntry>>> done) override {
    Start(in_flight_, *query_stub_, &QueryAsync::QueryBatch,
          QueryBatchRequestOf(scene_id, queries), context, &scene_id,
          ReadQueryBatch, std::move(done));
  }

  absl::StatusOr<RaycastBatchResult> RaycastBatch(
      const std::string& scene_id, absl::Span<const RaycastQuery> rays,
      const QueryOptions& options, const CallContext& context) override {
    absl::StatusOr<sator::v1::RaycastBatchRequest> request =
        RaycastBatchRequestOf(scene_id, rays, options);
    if (!request.ok()) return request.status();
    return Blocking(*query_stub_, &QueryStub::RaycastBatch, *std::move(request),
                    context, &scene_id, RaycastBatchReader(rays.size()));
  }
  void AsyncRaycastBatch(
      const std::string& scene_id, absl::Span<const RaycastQuery> rays,
      const QueryOptions& options, const CallContext& context,
      Completion<absl::StatusOr<RaycastBatchResult>> done) override {
    absl::StatusOr<sator::v1::RaycastBatchRequest> request =
        RaycastBatchRequestOf(scene_id, rays, options);
    if (!request.ok()) {
      std::move(done)(request.status());
      return;
    }
    Start(in_flight_, *query_stub_, &QueryAsync::RaycastBatch,
          *std::move(request), context, &scene_id,
          RaycastBatchReader(rays.size()), std::move(done));
  }

  absl::StatusOr<ValidateShotsResult> ValidateShots(
      const std::string& scene_id, absl::Span<const Shot> shots,
      const HitPolicy& policy, const CallContext& context) override {
    return Blocking(*query_stub_, &QueryStub::ValidateShots,
                    ValidateShotsRequestOf(scene_id, shots, policy), context,
                    &scene_id, ReadVerdicts);
  }
  void AsyncValidateShots(
      const std::string& scene_id, absl::Span<const Shot> shots,
      const HitPolicy& policy, const CallContext& context,
      Completion<absl::StatusOr<ValidateShotsResult>> done) override {
    Start(in_flight_, *query_stub_, &QueryAsync::ValidateShots,
          ValidateShotsRequestOf(scene_id, shots, policy), context, &scene_id,
          ReadVerdicts, std::move(done));
  }

  absl::StatusOr<PairQueryResult> PairQuery(
      const PairQueryRequest& request, const CallContext& context) override {
    return Blocking(*query_stub_, &QueryStub::PairQuery,
                    PairQueryRequestOf(request), context, nullptr,
                    PairResultReader(request));
  }
  void AsyncPairQuery(
      const PairQueryRequest& request, const CallContext& context,
      Completion<absl::StatusOr<PairQueryResult>> done) override {
    Start(in_flight_, *query_stub_, &QueryAsync::PairQuery,
          PairQueryRequestOf(request), context, nullptr,
          PairResultReader(request), std::move(done));
  }

  absl::StatusOr<ShotVerdictPage> ListShotVerdicts(
      const std::string& scene_id, const ShotVerdictPageRequest& request,
      const CallContext& context) override {
    sator::v1::ListShotVerdictsRequest message;
    message.set_scene_id(scene_id);
    message.set_page_size(request.page_size);
    message.set_page_token(request.page_token);
    client_internal::WriteShotVerdictFilter(request.filter,
                                            message.mutable_filter());
    sator::v1::ListShotVerdictsResponse response;
    if (absl::Status status = Unary(
            *query_stub_, &sator::v1::QueryService::Stub::ListShotVerdicts,
            message, &response, context, &scene_id);
        !status.ok()) {
      return status;
    }
    return client_internal::ReadShotVerdictPage(response);
  }

  absl::StatusOr<std::unique_ptr<ShotVerdictStream>> WatchShotVerdicts(
      const std::string& scene_id,
      std::optional<std::uint64_t> from_sequence) override {
    return std::unique_ptr<ShotVerdictStream>(
        std::make_unique<GrpcShotVerdictStream>(*query_stub_, scene_id,
                                                from_sequence));
  }

  absl::StatusOr<std::int64_t> AddZone(const std::string& scene_id,
                                       const Zone& zone,
                                       const CallContext& context) override {
    sator::v1::AddZoneRequest request;
    request.set_scene_id(scene_id);
    client_internal::WriteZone(zone, request.mutable_zone());
    sator::v1::AddZoneResponse response;
    if (absl::Status status =
            Unary(*proximity_stub_, &sator::v1::ProximityService::Stub::AddZone,
                  request, &response, context, &scene_id);
        !status.ok()) {
      return status;
    }
    return response.tick();
  }

  absl::StatusOr<std::int64_t> AddObserver(
      const std::string& scene_id, const Observer& observer,
      const CallContext& context) override {
    sator::v1::AddObserverRequest request;
    request.set_scene_id(scene_id);
    client_internal::WriteObserver(observer, request.mutable_observer());
    sator::v1::AddObserverResponse response;
    if (absl::Status status = Unary(
            *proximity_stub_, &sator::v1::ProximityService::Stub::AddObserver,
            request, &response, context, &scene_id);
        !status.ok()) {
      return status;
    }
    return response.tick();
  }

  absl::Status RemoveZone(const std::string& scene_id, std::uint64_t zone_id,
                          const CallContext& context) override {
    sator::v1::RemoveZoneRequest request;
    request.set_scene_id(scene_id);
    request.set_zone_id(zone_id);
    sator::v1::RemoveZoneResponse response;
    return Unary(*proximity_stub_,
                 &sator::v1::ProximityService::Stub::RemoveZone, request,
                 &response, context, &scene_id);
  }

  absl::Status RemoveObserver(const std::string& scene_id,
                              std::uint64_t observer_id,
                              const CallContext& context) override {
    sator::v1::RemoveObserverRequest request;
    request.set_scene_id(scene_id);
    request.set_observer_id(observer_id);
    sator::v1::RemoveObserverResponse response;
    return Unary(*proximity_stub_,
                 &sator::v1::ProximityService::Stub::RemoveObserver, request,
                 &response, context, &scene_id);
  }

  absl::StatusOr<ProximityState> GetProximity(
      const std::string& scene_id, const CallContext& context) override {
    sator::v1::GetProximityRequest request;
    request.set_scene_id(scene_id);
    sator::v1::GetProximityResponse response;
    if (absl::Status status = Unary(
            *proximity_stub_, &sator::v1::ProximityService::Stub::GetProximity,
            request, &response, context, &scene_id);
        !status.ok()) {
      return status;
    }
    return client_internal::ReadProximityState(response);
  }

  absl::StatusOr<std::unique_ptr<ProximityStream>> WatchProximity(
      const std::string& scene_id, const ProximityWatchStart& start) override {
    return std::unique_ptr<ProximityStream>(
        std::make_unique<GrpcProximityStream>(*proximity_stub_, scene_id,
                                              start));
  }

  absl::StatusOr<std::unique_ptr<SessionStream>> OpenSession(
      const std::string& scene_id) override {
    return std::unique_ptr<SessionStream>(
        std::make_unique<GrpcSessionStream>(*query_stub_, scene_id));
  }

  absl::StatusOr<std::string> CallJson(const std::string& method,
                                       const std::string& request_json,
                                       const CallContext& context) override;

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<sator::v1::QueryService::Stub> query_stub_;
  std::unique_ptr<sator::v1::SceneService::Stub> scene_stub_;
  std::unique_ptr<sator::v1::BodyService::Stub> body_stub_;
  std::unique_ptr<sator::v1::ProximityService::Stub> proximity_stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_stub_;
  client_internal::CallsInFlight in_flight_;
};

absl::StatusOr<std::string> GrpcConnection::CallJson(
    const std::string& method, const std::string& request_json,
    const CallContext& context) {
  using google::protobuf::Message;
  LinkServiceDescriptors();
  // "pkg.Service/Method" and "pkg.Service.Method" name the same method.
  const std::string dotted = absl::StrReplaceAll(method, {{"/", "."}});
  const google::protobuf::MethodDescriptor* descriptor =
      google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
          dotted);
  if (descriptor == nullptr) {
    return absl::NotFoundError(absl::StrCat("no RPC named '", method, "'"));
  }
  if (descriptor->client_streaming() || descriptor->server_streaming()) {
    return absl::UnimplementedError(absl::StrCat(
        method, " is a streaming RPC; CallJson makes unary calls"));
  }
  google::protobuf::MessageFactory* factory =
      google::protobuf::MessageFactory::generated_factory();
  std::unique_ptr<Message> request(
      factory->GetPrototype(descriptor->input_type())->New());
  std::unique_ptr<Message> response(
      factory->GetPrototype(descriptor->output_type())->New());
  if (const auto parsed = google::protobuf::util::JsonStringToMessage(
          request_json, request.get());
      !parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "request is not a valid ", descriptor->input_type()->full_name(), ": ",
        std::string(parsed.message())));
  }
  // The scene a request names, for routing metadata.
  std::string scene_id;
  if (const google::protobuf::FieldDescriptor* field =
          descriptor->input_type()->FindFieldByName("scene_id");
      field != nullptr &&
      field->type() == google::protobuf::FieldDescriptor::TYPE_STRING &&
      !field->is_repeated()) {
    scene_id = request->GetReflection()->GetString(*request, field);
  }

  grpc::ClientContext grpc_context;
  PrepareContext(grpc_context, context, &scene_id);
  grpc::TemplatedGenericStub<Message, Message> stub(channel_);
  absl::Notification done;
  grpc::Status status;
  stub.UnaryCall(&grpc_context,
                 absl::StrCat("/", descriptor->service()->full_name(), "/",
                              descriptor->name()),
                 grpc::StubOptions(), request.get(), response.get(),
                 [&](grpc::Status call_status) {
                   status = std::move(call_status);
                   done.Notify();
                 });
  done.WaitForNotification();
  if (absl::Status result = FinishStatus(grpc_context, status); !result.ok()) {
    return result;
  }

  // A sator.v1.Status's details print by their type, which must be in the
  // generated pool; a static link keeps a message's registration only where
  // something names it.
  (void)google::rpc::BadRequest::descriptor();
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  if (const auto printed = google::protobuf::util::MessageToJsonString(
          *response, &json, options);
      !printed.ok()) {
    return absl::InternalError(std::string(printed.message()));
  }
  return json;
}

int ToMillis(absl::Duration duration) {
  return static_cast<int>(
      std::min<std::int64_t>(absl::ToInt64Milliseconds(duration), INT32_MAX));
}

// Adds `authorization: Bearer <token>` to the initial metadata of every
// call on the channel (unary, streaming and generic calls alike).
class BearerTokenInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit BearerTokenInterceptor(std::shared_ptr<const std::string> header)
      : header_(std::move(header)) {}

  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::
                PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace("authorization", *header_);
    }
    methods->Proceed();
  }

 private:
  std::shared_ptr<const std::string> header_;
};

class BearerTokenInterceptorFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit BearerTokenInterceptorFactory(const std::string& token)
      : header_(std::make_shared<const std::string>("Bearer " + token)) {}

  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* /*info*/) override {
    return new BearerTokenInterceptor(header_);
  }

 private:
  std::shared_ptr<const std::string> header_;
};

}  // namespace

namespace client_internal {

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeGrpcChannel(
    const ConnectionOptions& options) {
  if (options.target.empty()) {
    return absl::InvalidArgumentError("ConnectionOptions.target: empty");
  }
  if (options.keepalive_time < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "ConnectionOptions.keepalive_time: negative");
  }
  if (options.keepalive_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "ConnectionOptions.keepalive_timeout: must be positive");
  }
  if (options.max_message_bytes <= 0) {
    return absl::InvalidArgumentError(
        "ConnectionOptions.max_message_bytes: must be positive");
  }
  if (options.max_reconnect_backoff <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "ConnectionOptions.max_reconnect_backoff: must be positive");
  }
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(options.max_message_bytes);
  arguments.SetMaxSendMessageSize(options.max_message_bytes);
  if (options.keepalive_time > absl::ZeroDuration()) {
    arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS,
                     ToMillis(options.keepalive_time));
    arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                     ToMillis(options.keepalive_timeout));
    // Only while calls are open: satord counts pings on an idle connection
    // as strikes (gRPC's default server policy).
    arguments.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  }
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
                   ToMillis(options.max_reconnect_backoff));
  if (absl::Status valid =
          ValidateRetryPolicy(options.retry, "ConnectionOptions.retry");
      !valid.ok()) {
    return valid;
  }
  // Retries are gRPC's, by the service config (retry.h); one that a DNS
  // record might carry is ignored, so the policy is always this one.
  arguments.SetInt(GRPC_ARG_ENABLE_RETRIES, 1);
  arguments.SetServiceConfigJSON(
      client_internal::RetryServiceConfigJson(options.retry));
  arguments.SetInt(GRPC_ARG_SERVICE_CONFIG_DISABLE_RESOLUTION, 1);
  arguments.SetInt(GRPC_ARG_PER_RPC_RETRY_BUFFER_SIZE,
                   options.max_message_bytes);
  if (options.tls.private_key_pem.empty() !=
      options.tls.certificate_chain_pem.empty()) {
    return absl::InvalidArgumentError(
        "ConnectionOptions.tls: certificate_chain_pem and private_key_pem go "
        "together");
  }
  if (options.bearer_token.find_first_of("\r\n") != std::string::npos) {
    return absl::InvalidArgumentError(
        "ConnectionOptions.bearer_token: must be one line");
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      grpc::InsecureChannelCredentials();
  if (options.tls.enabled) {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = options.tls.root_certificates_pem;
    tls.pem_cert_chain = options.tls.certificate_chain_pem;
    tls.pem_private_key = options.tls.private_key_pem;
    credentials = grpc::SslCredentials(tls);
    if (!options.tls.server_name_override.empty()) {
      arguments.SetSslTargetNameOverride(options.tls.server_name_override);
    }
  }
  std::vector<
      std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
      interceptors;
  if (!options.bearer_token.empty()) {
    interceptors.push_back(
        std::make_unique<BearerTokenInterceptorFactory>(options.bearer_token));
  }
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      options.target, credentials, arguments, std::move(interceptors));
}

}  // namespace client_internal

absl::StatusOr<std::shared_ptr<Connection>> MakeConnection(
    const ConnectionOptions& options) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      client_internal::MakeGrpcChannel(options);
  if (!channel.ok()) return channel.status();
  return std::shared_ptr<Connection>(
      std::make_shared<GrpcConnection>(*std::move(channel)));
}

}  // namespace sator
