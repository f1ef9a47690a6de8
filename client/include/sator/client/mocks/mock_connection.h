// gMock mocks of sator::Connection and SessionStream, so game-server
// code that uses sator::Client can be unit-tested without a server:
//
//   auto mock = std::make_shared<sator::MockConnection>();
//   EXPECT_CALL(*mock, Raycast("arena", _, _, _))
//       .WillOnce(Return(sator::QueryResult{.tick = 7, .hits =
//       {...}}));
//   sator::Client client(mock);
//   // ... run the game code that holds client ...
//
// The Client's retries and deadlines run on top of the mock as they do on top
// of a real connection. Link sator::client_mocks (a static library; it
// brings GoogleTest's gmock).
#ifndef SATOR_CLIENT_MOCKS_MOCK_CONNECTION_H_
#define SATOR_CLIENT_MOCKS_MOCK_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "sator/client/connection.h"

namespace sator {

// The constructors and destructors are defined in the sator::client_mocks
// library (as gMock's cookbook advises), so the mock's methods are compiled
// once there rather than in every test that includes this header.
class MockConnection : public Connection {
 public:
  MockConnection();
  ~MockConnection() override;
  MOCK_METHOD(absl::StatusOr<PingResult>, Ping,
              (const std::string& payload, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<HealthStatus>, CheckHealth,
              (const std::string& service, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<SceneInfo>, CreateScene,
              (const std::string& scene_id, const SceneSettings& settings,
               const CallContext& context),
              (override));
  MOCK_METHOD(absl::Status, DeleteScene,
              (const std::string& scene_id, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<ListScenesPage>, ListScenes,
              (std::uint32_t page_size, const std::string& page_token,
               const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<SceneInfo>, GetScene,
              (const std::string& scene_id, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<SceneSnapshot>, ExportScene,
              (const std::string& scene_id, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<SceneInfo>, ImportScene,
              (const SceneSnapshot& snapshot, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<UpsertBodiesResult>, UpsertBodies,
              (const std::string& scene_id, const std::vector<Body>& bodies,
               const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<std::uint32_t>, RemoveBodies,
              (const std::string& scene_id,
               const std::vector<std::uint64_t>& body_ids,
               const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<std::int64_t>, UpdatePoses,
              (const std::string& scene_id, std::int64_t tick,
               const PoseBatch& poses, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<QueryResult>, Overlap,
              (const std::string& scene_id, const OverlapQuery& query,
               const QueryOptions& options, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<QueryResult>, Contacts,
              (const std::string& scene_id, const ContactsQuery& query,
               const QueryOptions& options, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<QueryResult>, Sweep,
              (const std::string& scene_id, const SweepQuery& query,
               const QueryOptions& options, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<QueryResult>, Raycast,
              (const std::string& scene_id, const RaycastQuery& query,
               const QueryOptions& options, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<QueryResult>, PointQuery,
              (const std::string& scene_id, const ::sator::PointQuery& query,
               const QueryOptions& options, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<std::vector<BatchEntry>>, QueryBatch,
              (const std::string& scene_id, const std::vector<Query>& queries,
               const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<RaycastBatchResult>, RaycastBatch,
              (const std::string& scene_id, absl::Span<const RaycastQuery> rays,
               const QueryOptions& options, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<PairQueryResult>, PairQuery,
              (const PairQueryRequest& request, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<ValidateShotsResult>, ValidateShots,
              (const std::string& scene_id, absl::Span<const Shot> shots,
               const HitPolicy& policy, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<ShotVerdictPage>, ListShotVerdicts,
              (const std::string& scene_id,
               const ShotVerdictPageRequest& request,
               const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<std::unique_ptr<ShotVerdictStream>>,
              WatchShotVerdicts,
              (const std::string& scene_id,
               std::optional<std::uint64_t> from_sequence),
              (override));
  MOCK_METHOD(absl::StatusOr<std::int64_t>, AddZone,
              (const std::string& scene_id, const Zone& zone,
               const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<std::int64_t>, AddObserver,
              (const std::string& scene_id, const Observer& observer,
               const CallContext& context),
              (override));
  MOCK_METHOD(absl::Status, RemoveZone,
              (const std::string& scene_id, std::uint64_t zone_id,
               const CallContext& context),
              (override));
  MOCK_METHOD(absl::Status, RemoveObserver,
              (const std::string& scene_id, std::uint64_t observer_id,
               const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<ProximityState>, GetProximity,
              (const std::string& scene_id, const CallContext& context),
              (override));
  MOCK_METHOD(absl::StatusOr<std::unique_ptr<ProximityStream>>, WatchProximity,
              (const std::string& scene_id, const ProximityWatchStart& start),
              (override));
  MOCK_METHOD(absl::StatusOr<std::unique_ptr<SessionStream>>, OpenSession,
              (const std::string& scene_id), (override));
  MOCK_METHOD(absl::StatusOr<std::string>, CallJson,
              (const std::string& method, const std::string& request_json,
               const CallContext& context),
              (override));
};

class MockSessionStream : public SessionStream {
 public:
  MockSessionStream();
  ~MockSessionStream() override;
  MOCK_METHOD(bool, Write, (const SessionRequest& request), (override));
  MOCK_METHOD(bool, WritesDone, (), (override));
  MOCK_METHOD(std::optional<SessionReply>, Read, (), (override));
  MOCK_METHOD(absl::Status, Finish, (), (override));
  MOCK_METHOD(void, Cancel, (), (override));
};

}  // namespace sator

#endif  // SATOR_CLIENT_MOCKS_MOCK_CONNECTION_H_
