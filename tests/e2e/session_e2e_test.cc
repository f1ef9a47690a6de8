// Session streams against the real satord (through the generated stub: the
// client library has no session call yet): updates and queries interleaved
// with replies in order and ticks that follow the updates, the session
// limit, and SIGTERM ending an idle session with UNAVAILABLE well within the
// drain deadline, with satord exiting 0.
#include <signal.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "support/satord_process.h"
#include "support/text_proto.h"

namespace sator {
namespace {

using ::sator::testing::SatordProcess;
using sator::v1::SessionRequest;
using sator::v1::SessionResponse;
using ::testing::HasSubstr;

using Stream = grpc::ClientReaderWriter<SessionRequest, SessionResponse>;

SessionRequest Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<SessionRequest>(text);
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

// Bytes that do not parse as a SessionRequest end the stream with
// INVALID_ARGUMENT, after the reply to the message before them; nothing
// written after them is answered. (The stream goes through a generic stub,
// which writes raw bytes.)
TEST_F(SessionEndToEnd, BytesThatDoNotParseEndTheStreamWithInvalidArgument) {
  // Wire type 7 does not exist: no protobuf parser accepts this.
  const std::string garbage("\x0f\xff\xff\xff", 4);
  ASSERT_FALSE(SessionRequest().ParseFromString(garbage));

  grpc::TemplatedGenericStub<grpc::ByteBuffer, SessionResponse> stub(
      grpc::CreateChannel(satord_.grpc_target(),
                          grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  grpc::CompletionQueue queue;
  // Each step waits for its own completion (at most 20 s) and returns its ok.
  int next_tag = 0;
  auto wait = [&](int tag) {
    void* got = nullptr;
    bool ok = false;
    const grpc::CompletionQueue::NextStatus status = queue.AsyncNext(
        &got, &ok, std::chrono::system_clock::now() + std::chrono::seconds(20));
    EXPECT_EQ(status, grpc::CompletionQueue::GOT_EVENT);
    EXPECT_EQ(got, reinterpret_cast<void*>(static_cast<intptr_t>(tag)));
    return ok;
  };
  auto tag = [&] {
    return reinterpret_cast<void*>(static_cast<intptr_t>(++next_tag));
  };
  auto bytes = [](const std::string& data) {
    const grpc::Slice slice(data);
    return grpc::ByteBuffer(&slice, 1);
  };
  std::unique_ptr<
      grpc::ClientAsyncReaderWriter<grpc::ByteBuffer, SessionResponse>>
      stream =
          stub.PrepareCall(&context, "/sator.v1.QueryService/Session", &queue);
  stream->StartCall(tag());
  ASSERT_TRUE(wait(next_tag));
  stream->Write(
      bytes(Parse("sequence: 1 open { scene_id: 's' }").SerializeAsString()),
      tag());
  ASSERT_TRUE(wait(next_tag));
  SessionResponse reply;
  stream->Read(&reply, tag());
  ASSERT_TRUE(wait(next_tag));
  EXPECT_EQ(reply.sequence(), 1u);
  EXPECT_EQ(reply.status().code(), 0) << reply.status().message();
  ASSERT_TRUE(reply.has_opened());

  stream->Write(bytes(garbage), tag());
  ASSERT_TRUE(wait(next_tag));
  // A good message after the garbage: the write may or may not reach the
  // server before it ends the stream, but it is never answered.
  stream->Write(bytes(Parse(Ray(2)).SerializeAsString()), tag());
  wait(next_tag);
  reply.Clear();
  stream->Read(&reply, tag());
  EXPECT_FALSE(wait(next_tag)) << reply.DebugString();
  grpc::Status status;
  stream->Finish(&status, tag());
  ASSERT_TRUE(wait(next_tag));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "the stream carried a message that is not a "
            "sator.v1.SessionRequest");
  queue.Shutdown();
  void* ignored_tag = nullptr;
  bool ignored_ok = false;
  while (queue.Next(&ignored_tag, &ignored_ok)) {
  }
}

// Session open checks the scene id as every other RPC does: malformed is
// INVALID_ARGUMENT (the id never echoed back), unknown is NOT_FOUND.
TEST_F(SessionEndToEnd, OpenRefusesMalformedSceneIdsWithInvalidArgument) {
  const std::string huge(20000, 'q');
  struct Case {
    std::string scene_id;
    grpc::StatusCode code;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"", grpc::StatusCode::INVALID_ARGUMENT,
            "open.scene_id: must be 1 to 128 characters, got 0"},
           {std::string(129, 'x'), grpc::StatusCode::INVALID_ARGUMENT,
            "open.scene_id: must be 1 to 128 characters, got 129"},
           {huge, grpc::StatusCode::INVALID_ARGUMENT,
            "open.scene_id: must be 1 to 128 characters, got 20000"},
           {"s/t", grpc::StatusCode::INVALID_ARGUMENT,
            "open.scene_id: character 1 is not one of [A-Za-z0-9._-]"},
           {"nowhere", grpc::StatusCode::NOT_FOUND,
            "open.scene_id: no scene 'nowhere'"},
       }) {
    SCOPED_TRACE(c.scene_id.size());
    grpc::ClientContext context;
    std::unique_ptr<Stream> stream = Open(&context);
    SessionRequest open;
    open.mutable_open()->set_scene_id(c.scene_id);
    ASSERT_TRUE(stream->Write(open));
    SessionResponse reply;
    EXPECT_FALSE(stream->Read(&reply));
    const grpc::Status status = stream->Finish();
    EXPECT_EQ(status.error_code(), c.code);
    EXPECT_EQ(status.error_message(), c.message);
  }
}

}  // namespace
}  // namespace sator
