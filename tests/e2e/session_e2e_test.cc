// Session streams against the real satord (through the generated stub: the
// client library has no session call yet): updates and queries interleaved
// with replies in order and ticks that follow the updates, the session
// limit, and SIGTERM ending an idle session with UNAVAILABLE well within the
// drain deadline, with satord exiting 0.
#include <signal.h>

#include <chrono>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using ::sator::testing::SatordProcess;
using sator::v1::SessionRequest;
using sator::v1::SessionResponse;
using ::testing::HasSubstr;

using Stream = grpc::ClientReaderWriter<SessionRequest, SessionResponse>;

SessionRequest Parse(const std::string& text) {
  SessionRequest request;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &request))
      << text;
  return request;
}

class SessionEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        satord_.Start({"--max_sessions=2", "--drain_deadline=30s"}).ok())
        << satord_.ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = satord_.grpc_target(),
                      .default_deadline = absl::Seconds(20)});
    ASSERT_TRUE(client.ok());
    // A 3D scene: a unit sphere (body 7) at (0, 0, 10).
    ASSERT_TRUE(client
                    ->CallJson("sator.v1.SceneService/CreateScene",
                               R"({"scene_id": "s", "settings": {
                                   "dimension": "DIMENSION_3D"}})")
                    .ok());
    ASSERT_TRUE(client
                    ->CallJson("sator.v1.BodyService/UpsertBodies",
                               R"({"scene_id": "s", "bodies": [{"body_id": 7,
                                   "shape": {"sphere": {"radius": 1}},
                                   "pose": {"position": {"z": 10}},
                                   "motion_type": "MOTION_TYPE_DYNAMIC"}]})")
                    .ok());
    stub_ = sator::v1::QueryService::NewStub(grpc::CreateChannel(
        satord_.grpc_target(), grpc::InsecureChannelCredentials()));
  }

  std::unique_ptr<Stream> Open(grpc::ClientContext* context) {
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::seconds(60));
    return stub_->Session(context);
  }

  SatordProcess satord_;
  std::unique_ptr<sator::v1::QueryService::Stub> stub_;
};

// The sphere at z after an update: the ray up the z axis meets it at z - 1.
std::string Move(int sequence, int tick, float z) {
  return absl::StrCat("sequence: ", sequence, " poses { tick: ", tick,
                      " poses { body_ids: 7 positions: [ 0, 0, ", z,
                      " ] rotations: [ 0, 0, 0, 1 ] } }");
}
std::string Ray(int sequence) {
  return absl::StrCat(
      "sequence: ", sequence,
      " query { raycast { direction { z: 1 } max_distance: 1000 } }");
}

TEST_F(SessionEndToEnd, UpdatesAndQueriesInterleaveInOrder) {
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream = Open(&context);
  ASSERT_TRUE(stream->Write(Parse("sequence: 100 open { scene_id: 's' }")));
  // Everything written before anything is read: 20 ticks, a query after
  // each update.
  constexpr int kTicks = 20;
  for (int tick = 1; tick <= kTicks; ++tick) {
    ASSERT_TRUE(stream->Write(Parse(Move(2 * tick, tick, 10.0f + tick))));
    ASSERT_TRUE(stream->Write(Parse(Ray(2 * tick + 1))));
  }
  ASSERT_TRUE(stream->WritesDone());
  SessionResponse reply;
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.sequence(), 100u);
  EXPECT_EQ(reply.opened().current_tick(), 0);
  for (int tick = 1; tick <= kTicks; ++tick) {
    ASSERT_TRUE(stream->Read(&reply));
    EXPECT_EQ(reply.sequence(), static_cast<std::uint64_t>(2 * tick));
    EXPECT_EQ(reply.status().code(), 0) << reply.status().message();
    EXPECT_EQ(reply.poses().current_tick(), tick);
    ASSERT_TRUE(stream->Read(&reply));
    EXPECT_EQ(reply.sequence(), static_cast<std::uint64_t>(2 * tick + 1));
    ASSERT_EQ(reply.status().code(), 0) << reply.status().message();
    EXPECT_EQ(reply.query().tick(), tick);
    ASSERT_EQ(reply.query().hits_size(), 1);
    EXPECT_NEAR(reply.query().hits(0).distance(), 9.0f + tick, 1e-4f);
  }
  EXPECT_FALSE(stream->Read(&reply));
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(SessionEndToEnd, LimitThenSigtermEndsSessionsWithUnavailable) {
  grpc::ClientContext first_context;
  grpc::ClientContext second_context;
  std::unique_ptr<Stream> first = Open(&first_context);
  std::unique_ptr<Stream> second = Open(&second_context);
  for (Stream* stream : {first.get(), second.get()}) {
    ASSERT_TRUE(stream->Write(Parse("open { scene_id: 's' }")));
    SessionResponse opened;
    ASSERT_TRUE(stream->Read(&opened));
    ASSERT_EQ(opened.status().code(), 0);
  }
  {
    grpc::ClientContext context;
    std::unique_ptr<Stream> third = Open(&context);
    SessionResponse response;
    EXPECT_FALSE(third->Read(&response));
    const grpc::Status status = third->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_THAT(status.error_message(), HasSubstr("--max_sessions"));
  }

  // Both sessions idle; the drain deadline is 30 s, but they end at once.
  const absl::Time start = absl::Now();
  ASSERT_TRUE(satord_.Signal(SIGTERM).ok());
  for (Stream* stream : {first.get(), second.get()}) {
    SessionResponse response;
    EXPECT_FALSE(stream->Read(&response));
    const grpc::Status status = stream->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
    EXPECT_EQ(status.error_message(), "server shutting down");
  }
  absl::StatusOr<int> exit_code = satord_.WaitForExit(absl::Seconds(20));
  ASSERT_TRUE(exit_code.ok()) << satord_.ReadLog();
  EXPECT_EQ(*exit_code, 0);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10)) << satord_.ReadLog();
  EXPECT_THAT(satord_.ReadLog(), HasSubstr("\"drained\":true"));
}

}  // namespace
}  // namespace sator
