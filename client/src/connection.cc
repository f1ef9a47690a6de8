// The default async calls of sator::Connection: the synchronous call, then
// the completion, on the caller's thread (see connection.h).
#include "sator/client/connection.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sator {

void Connection::AsyncPing(const std::string& payload,
                           const CallContext& context,
                           Completion<absl::StatusOr<PingResult>> done) {
  std::move(done)(Ping(payload, context));
}

void Connection::AsyncCreateScene(const std::string& scene_id,
                                  const SceneSettings& settings,
                                  const CallContext& context,
                                  Completion<absl::StatusOr<SceneInfo>> done) {
  std::move(done)(CreateScene(scene_id, settings, context));
}

void Connection::AsyncDeleteScene(const std::string& scene_id,
                                  const CallContext& context,
                                  Completion<absl::Status> done) {
  std::move(done)(DeleteScene(scene_id, context));
}

void Connection::AsyncListScenes(
    std::uint32_t page_size, const std::string& page_token,
    const CallContext& context,
    Completion<absl::StatusOr<ListScenesPage>> done) {
  std::move(done)(ListScenes(page_size, page_token, context));
}

void Connection::AsyncGetScene(const std::string& scene_id,
                               const CallContext& context,
                               Completion<absl::StatusOr<SceneInfo>> done) {
  std::move(done)(GetScene(scene_id, context));
}

void Connection::AsyncExportScene(
    const std::string& scene_id, const CallContext& context,
    Completion<absl::StatusOr<SceneSnapshot>> done) {
  std::move(done)(ExportScene(scene_id, context));
}

void Connection::AsyncImportScene(const SceneSnapshot& snapshot,
                                  const CallContext& context,
                                  Completion<absl::StatusOr<SceneInfo>> done) {
  std::move(done)(ImportScene(snapshot, context));
}

void Connection::AsyncUpsertBodies(
    const std::string& scene_id, const std::vector<Body>& bodies,
    const CallContext& context,
    Completion<absl::StatusOr<UpsertBodiesResult>> done) {
  std::move(done)(UpsertBodies(scene_id, bodies, context));
}

void Connection::AsyncRemoveBodies(
    const std::string& scene_id, const std::vector<std::uint64_t>& body_ids,
    const CallContext& context,
    Completion<absl::StatusOr<std::uint32_t>> done) {
  std::move(done)(RemoveBodies(scene_id, body_ids, context));
}

void Connection::AsyncUpdatePoses(
    const std::string& scene_id, std::int64_t tick, const PoseBatch& poses,
    const CallContext& context, Completion<absl::StatusOr<std::int64_t>> done) {
  std::move(done)(UpdatePoses(scene_id, tick, poses, context));
}

void Connection::AsyncOverlap(const std::string& scene_id,
                              const OverlapQuery& query,
                              const QueryOptions& options,
                              const CallContext& context,
                              Completion<absl::StatusOr<QueryResult>> done) {
  std::move(done)(Overlap(scene_id, query, options, context));
}

void Connection::AsyncContacts(const std::string& scene_id,
                               const ContactsQuery& query,
                               const QueryOptions& options,
                               const CallContext& context,
                               Completion<absl::StatusOr<QueryResult>> done) {
  std::move(done)(Contacts(scene_id, query, options, context));
}

void Connection::AsyncSweep(const std::string& scene_id,
                            const SweepQuery& query,
                            const QueryOptions& options,
                            const CallContext& context,
                            Completion<absl::StatusOr<QueryResult>> done) {
  std::move(done)(Sweep(scene_id, query, options, context));
}

void Connection::AsyncRaycast(const std::string& scene_id,
                              const RaycastQuery& query,
                              const QueryOptions& options,
                              const CallContext& context,
                              Completion<absl::StatusOr<QueryResult>> done) {
  std::move(done)(Raycast(scene_id, query, options, context));
}

void Connection::AsyncPointQuery(const std::string& scene_id,
                                 const ::sator::PointQuery& query,
                                 const QueryOptions& options,
                                 const CallContext& context,
                                 Completion<absl::StatusOr<QueryResult>> done) {
  std::move(done)(PointQuery(scene_id, query, options, context));
}

void Connection::AsyncQueryBatch(
    const std::string& scene_id, const std::vector<Query>& queries,
    const CallContext& context,
    Completion<absl::StatusOr<std::vector<BatchEntry>>> done) {
  std::move(done)(QueryBatch(scene_id, queries, context));
}

void Connection::AsyncRaycastBatch(
    const std::string& scene_id, absl::Span<const RaycastQuery> rays,
    const QueryOptions& options, const CallContext& context,
    Completion<absl::StatusOr<RaycastBatchResult>> done) {
  std::move(done)(RaycastBatch(scene_id, rays, options, context));
}

void Connection::AsyncPairQuery(
    const PairQueryRequest& request, const CallContext& context,
    Completion<absl::StatusOr<PairQueryResult>> done) {
  std::move(done)(PairQuery(request, context));
}

void Connection::AsyncValidateShots(
    const std::string& scene_id, absl::Span<const Shot> shots,
    const HitPolicy& policy, const CallContext& context,
    Completion<absl::StatusOr<ValidateShotsResult>> done) {
  std::move(done)(ValidateShots(scene_id, shots, policy, context));
}

}  // namespace sator
