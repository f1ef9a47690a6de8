// The client's value types (types.h) to and from sator.v1 messages.
//
// Requests are written without validation: the server validates every field
// and names the offending one. Answers are read trusting the server, except
// where a core type must be rebuilt (shapes in an exported snapshot), which
// can fail and then reports INTERNAL with the field path.
#ifndef SATOR_CLIENT_SRC_WIRE_CONVERT_H_
#define SATOR_CLIENT_SRC_WIRE_CONVERT_H_

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sator/client/types.h"
#include "sator/v1/body.pb.h"
#include "sator/v1/body_service.pb.h"
#include "sator/v1/geometry.pb.h"
#include "sator/v1/query.pb.h"
#include "sator/v1/query_service.pb.h"
#include "sator/v1/scene_service.pb.h"
#include "sator/v1/shot.pb.h"
#include "sator/v1/shot_audit.pb.h"

namespace sator::client_internal {

// ---- Requests ----
void WriteShape(const AnyShape& shape, sator::v1::Shape* out);
void WritePose(const AnyPose& pose, sator::v1::Pose* out);
// An unset pose: the identity pose of the shape's dimension.
void WritePose(const std::optional<AnyPose>& pose, const AnyShape& shape,
               sator::v1::Pose* out);
void WriteVector(const AnyVector& vector, sator::v1::Vector* out);
void WriteSettings(const SceneSettings& settings,
                   sator::v1::SceneSettings* out);
void WriteBody(const Body& body, sator::v1::Body* out);
void WriteSnapshot(const SceneSnapshot& snapshot,
                   sator::v1::SceneSnapshot* out);
void WritePoseBatch(const PoseBatch& poses, sator::v1::PoseBatch* out);
void WriteQueryFilter(const QueryFilter& filter, sator::v1::QueryFilter* out);
void WriteQueryOptions(const QueryOptions& options,
                       sator::v1::QueryOptions* out);
void WriteOverlap(const OverlapQuery& query, sator::v1::OverlapQuery* out);
void WriteContacts(const ContactsQuery& query, sator::v1::ContactsQuery* out);
void WriteSweep(const SweepQuery& query, sator::v1::SweepQuery* out);
void WriteRaycast(const RaycastQuery& query, sator::v1::RaycastQuery* out);
void WritePoint(const ::sator::PointQuery& query, sator::v1::PointQuery* out);
void WriteQuery(const Query& query, sator::v1::Query* out);
void WriteHitPolicy(const HitPolicy& policy, sator::v1::HitPolicy* out);
void WriteShot(const Shot& shot, sator::v1::Shot* out);
// The shots and policy of a ValidateShotsRequest (scene_id apart).
void WriteShots(absl::Span<const Shot> shots, const HitPolicy& policy,
                sator::v1::ValidateShotsRequest* out);
void WritePairQuery(const PairQueryRequest& request,
                    sator::v1::PairQueryRequest* out);
void WriteSessionRequest(const SessionRequest& request,
                         sator::v1::SessionRequest* out);
// The packed RaycastBatchRequest (scene_id apart): the dimension of the
// first ray; INVALID_ARGUMENT "rays[i].origin: ..." when a ray's vectors
// are of another dimension, or for an empty span.
absl::Status WriteRaycastBatch(absl::Span<const RaycastQuery> rays,
                               const QueryOptions& options,
                               sator::v1::RaycastBatchRequest* out);

// ---- Answers ----
SceneSettings ReadSettings(const sator::v1::SceneSettings& settings);
SceneInfo ReadSceneInfo(const sator::v1::SceneInfo& info);
Hit ReadHit(const sator::v1::Hit& hit);
QueryResult ReadQueryResult(const sator::v1::QueryResult& result);
// Outcomes and reasons this client does not know read as kUnspecified.
ValidateShotsResult ReadShots(const sator::v1::ValidateShotsResponse& response);
ShotVerdict ReadShotVerdict(const sator::v1::ShotVerdict& verdict);
// INTERNAL naming the field for a shot the client cannot read.
absl::StatusOr<Shot> ReadShot(const sator::v1::Shot& shot, Dimension dimension);
absl::StatusOr<ShotVerdictRecord> ReadShotVerdictRecord(
    const sator::v1::ShotVerdictRecord& record);
absl::StatusOr<ShotVerdictPage> ReadShotVerdictPage(
    const sator::v1::ListShotVerdictsResponse& response);
void WriteShotVerdictFilter(const ShotVerdictFilter& filter,
                            sator::v1::ShotVerdictFilter* out);
std::vector<BatchEntry> ReadBatch(
    const sator::v1::QueryBatchResponse& response);
// `rays` rays of `dimension`; INTERNAL when the arrays do not add up.
absl::StatusOr<RaycastBatchResult> ReadRaycastBatch(
    const sator::v1::RaycastBatchResponse& response, int rays, int dimension);
absl::StatusOr<SceneSnapshot> ReadSnapshot(
    const sator::v1::SceneSnapshot& snapshot);
// `dimension` is the dimension of the request's shape A.
absl::StatusOr<PairQueryResult> ReadPairResult(
    const sator::v1::PairQueryResponse& response, int dimension);
SessionReply ReadSessionReply(const sator::v1::SessionResponse& response);

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_WIRE_CONVERT_H_
