// QueryService.Session through an in-process Server and the generated stub:
// the open handshake, pose updates and queries answered in order with the
// tick each answer used, per-message errors that keep the stream open, the
// --max_sessions limit, client cancellation, and sessions ending with
// UNAVAILABLE when the server drains.
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "server/logging.h"
#include "server/server.h"
#include "support/text_proto.h"

namespace sator::server {
namespace {

using sator::v1::SessionRequest;
using sator::v1::SessionResponse;
using ::testing::HasSubstr;
using ::testing::StartsWith;

using Stream = grpc::ClientReaderWriter<SessionRequest, SessionResponse>;

SessionRequest Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<SessionRequest>(text);
}

// A 2D scene "arena": body 1 a static box (half extents 1) at (5, 0);
// body 2 a dynamic circle of radius 1 at (10, 0).
class SessionTest : public ::testing::Test {
 protected:
  void StartServer(int max_sessions = 1000, int max_batch_queries = 10000) {
    SetMinLogLevel(LogLevel::kWarning);
    ServerOptions options;
    options.grpc_address = "127.0.0.1:0";
    options.metrics_address = "";
    options.drain_deadline = absl::Seconds(20);
    options.query_limits.max_sessions = max_sessions;
    options.query_limits.max_batch_queries = max_batch_queries;
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);

    HostedSceneSettings settings;
    settings.dimension = 2;
    settings.history_ticks = 8;
    absl::StatusOr<std::shared_ptr<HostedScene>> scene =
        server_->scenes().Create("arena", settings);
    ASSERT_TRUE(scene.ok()) << scene.status();
    scene::BodyDesc<2> box;
    box.id = 1;
    box.shape = std::make_shared<const Shape2>(Box2{{1, 1}});
    box.pose.position = {5, 0};
    box.motion = scene::MotionType::kStatic;
    scene::BodyDesc<2> circle;
    circle.id = 2;
    circle.shape = std::make_shared<const Shape2>(Circle{1});
    circle.pose.position = {10, 0};
    ASSERT_TRUE((*scene)->scene2()->UpsertBodies({box, circle}).ok());

    stub_ = sator::v1::QueryService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->grpc_port()),
                            grpc::InsecureChannelCredentials()));
  }

  std::unique_ptr<Stream> Open(grpc::ClientContext* context) {
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::seconds(30));
    return stub_->Session(context);
  }

  static SessionResponse Exchange(Stream& stream, const std::string& text) {
    EXPECT_TRUE(stream.Write(Parse(text))) << text;
    SessionResponse response;
    EXPECT_TRUE(stream.Read(&response)) << text;
    return response;
  }

  std::unique_ptr<Server> server_;
  std::unique_ptr<sator::v1::QueryService::Stub> stub_;
};

// The ray from (7, 0) along +x meets the circle's left edge: at x = c - 1
// for a circle centred at c.
constexpr char kRay[] =
    "query { raycast { origin { x: 7 } direction { x: 1 } max_distance: 100 "
    "} }";

TEST_F(SessionTest, InterleavesUpdatesAndQueriesInOrder) {
  StartServer();
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream = Open(&context);

  SessionResponse opened =
      Exchange(*stream, "sequence: 1 open { scene_id: 'arena' }");
  EXPECT_EQ(opened.sequence(), 1u);
  EXPECT_EQ(opened.status().code(), 0);
  EXPECT_EQ(opened.opened().current_tick(), 0);

  SessionResponse first = Exchange(*stream, absl::StrCat("sequence: 2 ", kRay));
  EXPECT_EQ(first.sequence(), 2u);
  ASSERT_EQ(first.status().code(), 0) << first.status().message();
  EXPECT_EQ(first.query().tick(), 0);
  EXPECT_NEAR(first.query().hits(0).distance(), 2.0f, 1e-4f);  // 9 - 7.

  // Tick 1: the circle moves to x = 20.
  SessionResponse moved = Exchange(
      *stream,
      "sequence: 3 poses { tick: 1 poses { body_ids: 2 positions: [ 20, 0 ] "
      "rotations: 0 } }");
  EXPECT_EQ(moved.sequence(), 3u);
  ASSERT_EQ(moved.status().code(), 0) << moved.status().message();
  EXPECT_EQ(moved.poses().current_tick(), 1);

  // Pipelined: three messages written before any reply is read.
  ASSERT_TRUE(stream->Write(Parse(absl::StrCat("sequence: 4 ", kRay))));
  ASSERT_TRUE(stream->Write(
      Parse("sequence: 5 poses { tick: 2 poses { body_ids: 2 positions: [ 30, "
            "0 ] rotations: 0 } }")));
  ASSERT_TRUE(stream->Write(Parse(absl::StrCat(
      "sequence: 6 query { options { rewind { tick: 1 } } raycast { origin { "
      "x: 7 } direction { x: 1 } max_distance: 100 } }"))));
  ASSERT_TRUE(stream->Write(Parse(absl::StrCat("sequence: 7 ", kRay))));
  SessionResponse replies[4];
  for (SessionResponse& reply : replies) ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(replies[0].sequence(), 4u);
  EXPECT_EQ(replies[0].query().tick(), 1);
  EXPECT_NEAR(replies[0].query().hits(0).distance(), 12.0f, 1e-4f);
  EXPECT_EQ(replies[1].sequence(), 5u);
  EXPECT_EQ(replies[1].poses().current_tick(), 2);
  EXPECT_EQ(replies[2].sequence(), 6u);
  EXPECT_EQ(replies[2].query().tick(), 1);
  EXPECT_NEAR(replies[2].query().hits(0).distance(), 12.0f, 1e-4f);
  EXPECT_EQ(replies[3].sequence(), 7u);
  EXPECT_EQ(replies[3].query().tick(), 2);
  EXPECT_NEAR(replies[3].query().hits(0).distance(), 22.0f, 1e-4f);

  ASSERT_TRUE(stream->WritesDone());
  SessionResponse extra;
  EXPECT_FALSE(stream->Read(&extra));
  const grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
}

TEST_F(SessionTest, ABatchIsAnsweredInOneReplyAtTheTickOfThePosesBeforeIt) {
  StartServer(1000, /*max_batch_queries=*/4);
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream = Open(&context);
  ASSERT_EQ(Exchange(*stream, "sequence: 1 open { scene_id: 'arena' }")
                .status()
                .code(),
            0);
  // Pipelined: the batch is read after the pose update of tick 1, which
  // moves the circle to x = 20. Its second query has no direction.
  ASSERT_TRUE(stream->Write(
      Parse("sequence: 2 poses { tick: 1 poses { body_ids: 2 positions: [ 20, "
            "0 ] rotations: 0 } }")));
  ASSERT_TRUE(stream->Write(Parse(
      "sequence: 3 batch { queries { raycast { origin { x: 7 } direction { x: "
      "1 } max_distance: 100 } } queries { raycast { origin { x: 7 } "
      "max_distance: 100 } } queries { point { point { x: 5 y: 0.5 } } } }")));
  SessionResponse moved;
  ASSERT_TRUE(stream->Read(&moved));
  EXPECT_EQ(moved.poses().current_tick(), 1);
  SessionResponse batch;
  ASSERT_TRUE(stream->Read(&batch));
  EXPECT_EQ(batch.sequence(), 3u);
  ASSERT_EQ(batch.status().code(), 0) << batch.status().message();
  ASSERT_EQ(batch.batch().entries_size(), 3);
  const auto& ray = batch.batch().entries(0);
  ASSERT_EQ(ray.status().code(), 0) << ray.status().message();
  EXPECT_EQ(ray.result().tick(), 1);
  ASSERT_EQ(ray.result().hits_size(), 1);
  EXPECT_NEAR(ray.result().hits(0).distance(), 12.0f, 1e-4f);  // 19 - 7.
  EXPECT_EQ(batch.batch().entries(1).status().code(),
            static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  EXPECT_EQ(batch.batch().entries(1).status().message(),
            "queries[1].raycast.direction: zero length");
  const auto& point = batch.batch().entries(2);
  ASSERT_EQ(point.result().hits_size(), 1);
  EXPECT_EQ(point.result().hits(0).body_id(), 1u);

  // Refused as a whole: another scene, and more than --max_batch_queries.
  const SessionResponse elsewhere =
      Exchange(*stream, "sequence: 4 batch { scene_id: 'other' }");
  EXPECT_EQ(elsewhere.status().code(),
            static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  EXPECT_EQ(elsewhere.status().message(),
            "batch.scene_id: must be empty or the session's scene 'arena', "
            "got 'other'");
  EXPECT_FALSE(elsewhere.has_batch());
  const SessionResponse too_many = Exchange(
      *stream,
      "sequence: 5 batch { queries { point { point { x: 5 } } } queries { "
      "point { point { x: 5 } } } queries { point { point { x: 5 } } } "
      "queries { point { point { x: 5 } } } queries { point { point { x: 5 "
      "} } } }");
  EXPECT_EQ(too_many.status().code(),
            static_cast<int>(grpc::StatusCode::RESOURCE_EXHAUSTED));
  EXPECT_EQ(too_many.status().message(),
            "batch.queries: at most 4 queries per batch (--max_batch_queries), "
            "got 5");
  EXPECT_FALSE(too_many.has_batch());
  // An empty batch answers with no entries.
  const SessionResponse empty = Exchange(*stream, "sequence: 6 batch {}");
  EXPECT_EQ(empty.status().code(), 0);
  EXPECT_TRUE(empty.has_batch());
  EXPECT_EQ(empty.batch().entries_size(), 0);

  ASSERT_TRUE(stream->WritesDone());
  SessionResponse extra;
  EXPECT_FALSE(stream->Read(&extra));
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(SessionTest, BadMessagesGetErrorRepliesAndTheStreamGoesOn) {
  StartServer();
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream = Open(&context);
  ASSERT_EQ(Exchange(*stream, "sequence: 1 open { scene_id: 'arena' }")
                .status()
                .code(),
            0);

  const SessionResponse zero =
      Exchange(*stream, "sequence: 2 query { raycast { max_distance: 1 } }");
  EXPECT_EQ(zero.sequence(), 2u);
  EXPECT_EQ(zero.status().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(zero.status().message(), "query.raycast.direction: zero length");
  EXPECT_FALSE(zero.has_query());

  const SessionResponse old = Exchange(
      *stream, "sequence: 3 query { options { rewind { tick: 4 } } point {} }");
  EXPECT_EQ(old.status().code(), grpc::StatusCode::OUT_OF_RANGE);
  EXPECT_THAT(std::string(old.status().message()),
              StartsWith("query.options.rewind.tick"));

  const SessionResponse short_batch = Exchange(
      *stream,
      "sequence: 4 poses { tick: 3 poses { body_ids: 2 positions: [ 1 ] "
      "rotations: 0 } }");
  EXPECT_EQ(short_batch.status().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(std::string(short_batch.status().message()),
              StartsWith("poses.poses.positions"));

  const SessionResponse unknown = Exchange(
      *stream,
      "sequence: 5 poses { tick: 3 poses { body_ids: 99 positions: [ 1, 2 ] "
      "rotations: 0 } }");
  EXPECT_EQ(unknown.status().code(), grpc::StatusCode::NOT_FOUND);

  ASSERT_EQ(Exchange(*stream,
                     "sequence: 51 poses { tick: 2 poses { body_ids: 2 "
                     "positions: [ 12, 0 ] rotations: 0 } }")
                .status()
                .code(),
            0);
  const SessionResponse stale = Exchange(
      *stream,
      "sequence: 52 poses { tick: 1 poses { body_ids: 2 positions: [ 11, 0 ] "
      "rotations: 0 } }");
  EXPECT_EQ(stale.sequence(), 52u);
  EXPECT_EQ(stale.status().code(), grpc::StatusCode::FAILED_PRECONDITION);

  const SessionResponse again =
      Exchange(*stream, "sequence: 6 open { scene_id: 'arena' }");
  EXPECT_EQ(again.status().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(again.status().message(), HasSubstr("already open"));

  const SessionResponse empty = Exchange(*stream, "sequence: 7");
  EXPECT_EQ(empty.status().code(), grpc::StatusCode::INVALID_ARGUMENT);

  // Still answering.
  const SessionResponse good =
      Exchange(*stream, absl::StrCat("sequence: 8 ", kRay));
  EXPECT_EQ(good.sequence(), 8u);
  EXPECT_EQ(good.status().code(), 0);

  // A scene deleted under the session answers NOT_FOUND.
  ASSERT_TRUE(server_->scenes().Delete("arena").ok());
  const SessionResponse gone =
      Exchange(*stream, absl::StrCat("sequence: 9 ", kRay));
  EXPECT_EQ(gone.status().code(), grpc::StatusCode::NOT_FOUND);

  ASSERT_TRUE(stream->WritesDone());
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(SessionTest, TheFirstMessageMustOpenAKnownScene) {
  StartServer();
  {
    grpc::ClientContext context;
    std::unique_ptr<Stream> stream = Open(&context);
    ASSERT_TRUE(stream->Write(Parse(absl::StrCat("sequence: 1 ", kRay))));
    SessionResponse response;
    EXPECT_FALSE(stream->Read(&response));
    const grpc::Status status = stream->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(),
                HasSubstr("the first message of a session must be open"));
  }
  {
    grpc::ClientContext context;
    std::unique_ptr<Stream> stream = Open(&context);
    ASSERT_TRUE(stream->Write(Parse("open { scene_id: 'nowhere' }")));
    SessionResponse response;
    EXPECT_FALSE(stream->Read(&response));
    const grpc::Status status = stream->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_THAT(status.error_message(), StartsWith("open.scene_id"));
  }
}

TEST_F(SessionTest, SessionLimitAndCancellation) {
  StartServer(/*max_sessions=*/1);
  grpc::ClientContext first_context;
  std::unique_ptr<Stream> first = Open(&first_context);
  ASSERT_EQ(Exchange(*first, "open { scene_id: 'arena' }").status().code(), 0);

  {
    grpc::ClientContext context;
    std::unique_ptr<Stream> second = Open(&context);
    SessionResponse response;
    EXPECT_FALSE(second->Read(&response));
    const grpc::Status status = second->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_THAT(status.error_message(), HasSubstr("--max_sessions"));
  }

  // Cancelling the first frees its place; the server notices the
  // cancellation on its own time, so retry within a bounded deadline.
  first_context.TryCancel();
  EXPECT_EQ(first->Finish().error_code(), grpc::StatusCode::CANCELLED);
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  bool opened = false;
  while (!opened && std::chrono::steady_clock::now() < give_up) {
    grpc::ClientContext context;
    std::unique_ptr<Stream> stream = Open(&context);
    stream->Write(Parse("open { scene_id: 'arena' }"));
    SessionResponse response;
    opened = stream->Read(&response);
    stream->WritesDone();
    const grpc::Status status = stream->Finish();
    if (!opened) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
      std::this_thread::yield();
    }
  }
  EXPECT_TRUE(opened);
}

TEST_F(SessionTest, DrainEndsOpenSessionsWithUnavailable) {
  StartServer();
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream = Open(&context);
  ASSERT_EQ(Exchange(*stream, "open { scene_id: 'arena' }").status().code(), 0);

  // The session is idle, waiting for its client; the drain must not wait
  // the whole 20 s deadline for it.
  const auto start = std::chrono::steady_clock::now();
  std::thread shutdown([this] { server_->Shutdown(); });
  SessionResponse response;
  EXPECT_FALSE(stream->Read(&response));
  const grpc::Status status = stream->Finish();
  shutdown.join();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(status.error_message(), "server shutting down");
  EXPECT_LT(took, std::chrono::seconds(10));

  // New sessions are refused while and after draining.
  grpc::ClientContext late_context;
  std::unique_ptr<Stream> late = Open(&late_context);
  EXPECT_FALSE(late->Read(&response));
  EXPECT_FALSE(late->Finish().ok());
}

}  // namespace
}  // namespace sator::server
