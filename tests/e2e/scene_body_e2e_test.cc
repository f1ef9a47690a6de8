// SceneService and BodyService end to end: the real satord, the generated
// stubs, every RPC, and a table of bad requests where each must come back
// with its code and field path and leave every scene exactly as it was.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "sator/v1/body_service.grpc.pb.h"
#include "sator/v1/scene_service.grpc.pb.h"
#include "support/satord_process.h"
#include "support/text_proto.h"

namespace sator {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::sator::testing::SatordProcess;
using ::testing::HasSubstr;

template <typename Message>
Message Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<Message>(text);
}

// A context with a deadline `from_now` away (negative: already expired).
std::unique_ptr<grpc::ClientContext> Context(
    std::chrono::milliseconds from_now = std::chrono::seconds(10)) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + from_now);
  return context;
}

class SceneBodyEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(satord_
                    .Start({"--max_scenes=2", "--max_bodies_per_scene=5",
                            "--max_batch_bodies=10", "--max_hull_points=8",
                            "--max_message_bytes=65536"})
                    .ok())
        << satord_.ReadLog();
    std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(
        satord_.grpc_target(), grpc::InsecureChannelCredentials());
    scenes_ = sator::v1::SceneService::NewStub(channel);
    bodies_ = sator::v1::BodyService::NewStub(channel);
  }

  // "arena": 2D, static body 1 and dynamic bodies 2 and 3, at tick 5.
  void MakeArena() {
    sator::v1::SceneInfo info;
    ASSERT_TRUE(scenes_
                    ->CreateScene(Context().get(),
                                  Parse<sator::v1::CreateSceneRequest>(
                                      R"pb(scene_id: "arena"
                                           settings {
                                             dimension: DIMENSION_2D
                                             history_ticks: 8
                                           })pb"),
                                  &info)
                    .ok());
    sator::v1::UpsertBodiesResponse upserted;
    grpc::Status status = bodies_->UpsertBodies(
        Context().get(), Parse<sator::v1::UpsertBodiesRequest>(R"pb(
          scene_id: "arena"
          bodies {
            body_id: 1
            motion_type: MOTION_TYPE_STATIC
            shape { box2d { half_extents { x: 5 y: 1 } } }
          }
          bodies {
            body_id: 2
            motion_type: MOTION_TYPE_DYNAMIC
            shape { circle { radius: 0.5 } }
          }
          bodies {
            body_id: 3
            motion_type: MOTION_TYPE_DYNAMIC
            shape { circle { radius: 0.5 } }
            user_data: 33
          }
        )pb"),
        &upserted);
    ASSERT_TRUE(status.ok()) << status.error_message();
    sator::v1::UpdatePosesResponse updated;
    status = bodies_->UpdatePoses(Context().get(),
                                  Parse<sator::v1::UpdatePosesRequest>(R"pb(
                                    scene_id: "arena"
                                    tick: 5
                                    poses {
                                      body_ids: [ 2, 3 ]
                                      positions: [ 1, 1, 2, 2 ]
                                      rotations: [ 0, 0.5 ]
                                    }
                                  )pb"),
                                  &updated);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  sator::v1::SceneSnapshot Export(const std::string& id) {
    sator::v1::ExportSceneRequest request;
    request.set_scene_id(id);
    sator::v1::SceneSnapshot snapshot;
    const grpc::Status status =
        scenes_->ExportScene(Context().get(), request, &snapshot);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return snapshot;
  }

  std::vector<std::string> SceneIds() {
    sator::v1::ListScenesResponse page;
    const grpc::Status status = scenes_->ListScenes(Context().get(), {}, &page);
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::vector<std::string> ids;
    for (const sator::v1::SceneInfo& info : page.scenes()) {
      ids.push_back(info.scene_id());
    }
    return ids;
  }

  SatordProcess satord_;
  std::unique_ptr<sator::v1::SceneService::Stub> scenes_;
  std::unique_ptr<sator::v1::BodyService::Stub> bodies_;
};

TEST_F(SceneBodyEndToEnd, EveryRpcDoesItsJob) {
  MakeArena();
  sator::v1::GetSceneRequest get;
  get.set_scene_id("arena");
  sator::v1::SceneInfo info;
  ASSERT_TRUE(scenes_->GetScene(Context().get(), get, &info).ok());
  EXPECT_EQ(info.settings().dimension(), sator::v1::DIMENSION_2D);
  EXPECT_EQ(info.settings().history_ticks(), 8u);
  EXPECT_EQ(info.settings().max_bodies(), 5u);  // --max_bodies_per_scene
  EXPECT_EQ(info.stats().body_count(), 3u);
  EXPECT_EQ(info.stats().static_body_count(), 1u);
  EXPECT_EQ(info.stats().dynamic_body_count(), 2u);
  EXPECT_EQ(info.stats().current_tick(), 5);
  EXPECT_EQ(info.stats().oldest_tick(), 0);
  EXPECT_GT(info.stats().memory_bytes(), 0u);

  // Replacing one body and adding another.
  sator::v1::UpsertBodiesResponse upserted;
  ASSERT_TRUE(bodies_
                  ->UpsertBodies(Context().get(),
                                 Parse<sator::v1::UpsertBodiesRequest>(R"pb(
                                   scene_id: "arena"
                                   bodies {
                                     body_id: 3
                                     motion_type: MOTION_TYPE_DYNAMIC
                                     shape { circle { radius: 2 } }
                                   }
                                   bodies {
                                     body_id: 4
                                     motion_type: MOTION_TYPE_STATIC
                                     shape { circle { radius: 1 } }
                                   }
                                 )pb"),
                                 &upserted)
                  .ok());
  EXPECT_EQ(upserted.created(), 1u);
  EXPECT_EQ(upserted.replaced(), 1u);

  sator::v1::RemoveBodiesResponse removed;
  ASSERT_TRUE(bodies_
                  ->RemoveBodies(Context().get(),
                                 Parse<sator::v1::RemoveBodiesRequest>(
                                     R"pb(scene_id: "arena"
                                          body_ids: [ 4 ])pb"),
                                 &removed)
                  .ok());
  EXPECT_EQ(removed.removed(), 1u);

  sator::v1::UpdatePosesResponse updated;
  ASSERT_TRUE(bodies_
                  ->UpdatePoses(Context().get(),
                                Parse<sator::v1::UpdatePosesRequest>(R"pb(
                                  scene_id: "arena"
                                  tick: 9
                                  poses {
                                    body_ids: [ 3 ]
                                    positions: [ -4, 3 ]
                                    rotations: [ 1 ]
                                  }
                                )pb"),
                                &updated)
                  .ok());
  EXPECT_EQ(updated.current_tick(), 9);

  const sator::v1::SceneSnapshot snapshot = Export("arena");
  EXPECT_EQ(snapshot.scene_id(), "arena");
  EXPECT_EQ(snapshot.current_tick(), 9);
  ASSERT_EQ(snapshot.bodies_size(), 3);
  EXPECT_EQ(snapshot.bodies(2).body_id(), 3u);
  EXPECT_EQ(snapshot.bodies(2).shape().circle().radius(), 2.0f);
  EXPECT_EQ(snapshot.bodies(2).pose().position().x(), -4.0f);
  EXPECT_EQ(snapshot.bodies(2).layer(), ~std::uint64_t{0});
  EXPECT_EQ(snapshot.bodies(0).motion_type(), sator::v1::MOTION_TYPE_STATIC);

  // Import under a server-assigned id gives the same scene back.
  sator::v1::ImportSceneRequest import;
  *import.mutable_snapshot() = snapshot;
  import.mutable_snapshot()->clear_scene_id();
  sator::v1::SceneInfo imported;
  ASSERT_TRUE(scenes_->ImportScene(Context().get(), import, &imported).ok());
  EXPECT_EQ(imported.scene_id(), "scene-1");
  EXPECT_EQ(imported.stats().current_tick(), 9);
  sator::v1::SceneSnapshot copy = Export("scene-1");
  copy.set_scene_id("arena");
  EXPECT_TRUE(MessageDifferencer::ApproximatelyEquals(copy, snapshot));

  sator::v1::ListScenesRequest list;
  list.set_page_size(1);
  sator::v1::ListScenesResponse page;
  ASSERT_TRUE(scenes_->ListScenes(Context().get(), list, &page).ok());
  ASSERT_EQ(page.scenes_size(), 1);
  EXPECT_EQ(page.scenes(0).scene_id(), "arena");
  list.set_page_token(page.next_page_token());
  ASSERT_TRUE(scenes_->ListScenes(Context().get(), list, &page).ok());
  ASSERT_EQ(page.scenes_size(), 1);
  EXPECT_EQ(page.scenes(0).scene_id(), "scene-1");
  EXPECT_TRUE(page.next_page_token().empty());

  sator::v1::DeleteSceneRequest remove;
  remove.set_scene_id("scene-1");
  sator::v1::DeleteSceneResponse deleted;
  ASSERT_TRUE(scenes_->DeleteScene(Context().get(), remove, &deleted).ok());
  EXPECT_EQ(SceneIds(), std::vector<std::string>{"arena"});
}

struct BadCase {
  std::string name;
  grpc::StatusCode code;
  std::string message;  // A part the message must contain.
};

TEST_F(SceneBodyEndToEnd, BadRequestsGetTheirCodeAndChangeNothing) {
  MakeArena();
  const sator::v1::SceneSnapshot before = Export("arena");
  using Call = std::function<grpc::Status()>;
  // Each call's response goes to a scratch message of the right type.
  auto create = [&](const std::string& text,
                    std::chrono::milliseconds deadline =
                        std::chrono::seconds(10)) -> Call {
    return [=, this] {
      sator::v1::SceneInfo out;
      return scenes_->CreateScene(Context(deadline).get(),
                                  Parse<sator::v1::CreateSceneRequest>(text),
                                  &out);
    };
  };
  auto import = [&](const std::string& text) -> Call {
    return [=, this] {
      sator::v1::SceneInfo out;
      return scenes_->ImportScene(
          Context().get(), Parse<sator::v1::ImportSceneRequest>(text), &out);
    };
  };
  auto upsert = [&](const std::string& text,
                    std::chrono::milliseconds deadline =
                        std::chrono::seconds(10)) -> Call {
    return [=, this] {
      sator::v1::UpsertBodiesResponse out;
      return bodies_->UpsertBodies(Context(deadline).get(),
                                   Parse<sator::v1::UpsertBodiesRequest>(text),
                                   &out);
    };
  };
  auto remove = [&](const std::string& text) -> Call {
    return [=, this] {
      sator::v1::RemoveBodiesResponse out;
      return bodies_->RemoveBodies(
          Context().get(), Parse<sator::v1::RemoveBodiesRequest>(text), &out);
    };
  };
  auto poses = [&](const std::string& text) -> Call {
    return [=, this] {
      sator::v1::UpdatePosesResponse out;
      return bodies_->UpdatePoses(
          Context().get(), Parse<sator::v1::UpdatePosesRequest>(text), &out);
    };
  };
  std::string eleven_bodies = R"pb(scene_id: "arena")pb";
  for (int id = 10; id < 21; ++id) {
    absl::StrAppend(&eleven_bodies, " bodies { body_id: ", id,
                    " motion_type: MOTION_TYPE_STATIC",
                    " shape { circle { radius: 1 } } }");
  }
  const std::vector<std::pair<BadCase, Call>> cases = {
      {{"create without a dimension", grpc::StatusCode::INVALID_ARGUMENT,
        "settings.dimension: must be DIMENSION_2D or DIMENSION_3D"},
       create(R"pb(scene_id: "x")pb")},
      {{"create with a bad id", grpc::StatusCode::INVALID_ARGUMENT,
        "scene_id: character 1 is not one of"},
       create(R"pb(scene_id: "a/b"
                   settings { dimension: DIMENSION_2D })pb")},
      {{"create a taken id", grpc::StatusCode::ALREADY_EXISTS,
        "scene_id: scene 'arena' already exists"},
       create(R"pb(scene_id: "arena"
                   settings { dimension: DIMENSION_3D })pb")},
      {{"create over the history limit", grpc::StatusCode::RESOURCE_EXHAUSTED,
        "settings.history_ticks: 5000 above the server limit 1024 "
        "(--max_history_ticks)"},
       create(
           R"pb(settings { dimension: DIMENSION_3D history_ticks: 5000 })pb")},
      {{"create over the body limit", grpc::StatusCode::RESOURCE_EXHAUSTED,
        "settings.max_bodies: 6 above the server limit 5 "
        "(--max_bodies_per_scene)"},
       create(R"pb(settings { dimension: DIMENSION_2D max_bodies: 6 })pb")},
      {{"import over the body limit", grpc::StatusCode::RESOURCE_EXHAUSTED,
        "snapshot.settings.max_bodies: 9 above the server limit 5 "
        "(--max_bodies_per_scene)"},
       import(R"pb(snapshot {
                     scene_id: "new"
                     settings { dimension: DIMENSION_2D max_bodies: 9 }
                   })pb")},
      {{"create past its deadline", grpc::StatusCode::DEADLINE_EXCEEDED, ""},
       create(R"pb(scene_id: "late"
                   settings { dimension: DIMENSION_2D })pb",
              std::chrono::milliseconds(-1))},
      {{"get an unknown scene", grpc::StatusCode::NOT_FOUND,
        "scene_id: no scene 'ghost'"},
       [&] {
         sator::v1::GetSceneRequest request;
         request.set_scene_id("ghost");
         sator::v1::SceneInfo out;
         return scenes_->GetScene(Context().get(), request, &out);
       }},
      {{"delete an unknown scene", grpc::StatusCode::NOT_FOUND,
        "scene_id: no scene 'ghost'"},
       [&] {
         sator::v1::DeleteSceneRequest request;
         request.set_scene_id("ghost");
         sator::v1::DeleteSceneResponse out;
         return scenes_->DeleteScene(Context().get(), request, &out);
       }},
      {{"export without an id", grpc::StatusCode::INVALID_ARGUMENT,
        "scene_id: must be 1 to 128 characters"},
       [&] {
         sator::v1::SceneSnapshot out;
         return scenes_->ExportScene(Context().get(), {}, &out);
       }},
      {{"list with a forged token", grpc::StatusCode::INVALID_ARGUMENT,
        "page_token: not a next_page_token"},
       [&] {
         sator::v1::ListScenesRequest request;
         request.set_page_token("forged");
         sator::v1::ListScenesResponse out;
         return scenes_->ListScenes(Context().get(), request, &out);
       }},
      {{"import a taken id", grpc::StatusCode::ALREADY_EXISTS,
        "snapshot.scene_id: scene 'arena' already exists"},
       import(R"pb(snapshot {
                     scene_id: "arena"
                     settings { dimension: DIMENSION_2D }
                   })pb")},
      {{"import a bad body", grpc::StatusCode::INVALID_ARGUMENT,
        "snapshot.bodies[0].shape.circle.radius: not finite"},
       import(R"pb(snapshot {
                     scene_id: "new"
                     settings { dimension: DIMENSION_2D }
                     bodies {
                       body_id: 1
                       motion_type: MOTION_TYPE_STATIC
                       shape { circle { radius: nan } }
                     }
                   })pb")},
      {{"import more bodies than the scene holds",
        grpc::StatusCode::RESOURCE_EXHAUSTED, "snapshot.bodies: 6 bodies"},
       import(R"pb(snapshot {
                     scene_id: "new"
                     settings { dimension: DIMENSION_2D }
                     bodies {
                       body_id: 1
                       motion_type: MOTION_TYPE_STATIC
                       shape { circle { radius: 1 } }
                     }
                     bodies {
                       body_id: 2
                       motion_type: MOTION_TYPE_STATIC
                       shape { circle { radius: 1 } }
                     }
                     bodies {
                       body_id: 3
                       motion_type: MOTION_TYPE_STATIC
                       shape { circle { radius: 1 } }
                     }
                     bodies {
                       body_id: 4
                       motion_type: MOTION_TYPE_STATIC
                       shape { circle { radius: 1 } }
                     }
                     bodies {
                       body_id: 5
                       motion_type: MOTION_TYPE_STATIC
                       shape { circle { radius: 1 } }
                     }
                     bodies {
                       body_id: 6
                       motion_type: MOTION_TYPE_STATIC
                       shape { circle { radius: 1 } }
                     }
                   })pb")},
      {{"upsert a non-finite vertex", grpc::StatusCode::INVALID_ARGUMENT,
        "bodies[1].shape.polygon.vertices[2].x: not finite"},
       upsert(R"pb(scene_id: "arena"
                   bodies {
                     body_id: 7
                     motion_type: MOTION_TYPE_STATIC
                     shape { circle { radius: 1 } }
                   }
                   bodies {
                     body_id: 8
                     motion_type: MOTION_TYPE_STATIC
                     shape {
                       polygon {
                         vertices { x: 0 y: 0 }
                         vertices { x: 1 y: 0 }
                         vertices { x: inf y: 1 }
                       }
                     }
                   })pb")},
      {{"upsert a 3D shape into a 2D scene", grpc::StatusCode::INVALID_ARGUMENT,
        "bodies[0].shape.sphere: "},
       upsert(R"pb(scene_id: "arena"
                   bodies {
                     body_id: 7
                     motion_type: MOTION_TYPE_STATIC
                     shape { sphere { radius: 1 } }
                   })pb")},
      {{"upsert without a motion type", grpc::StatusCode::INVALID_ARGUMENT,
        "bodies[0].motion_type: must be"},
       upsert(R"pb(scene_id: "arena"
                   bodies {
                     body_id: 7
                     shape { circle { radius: 1 } }
                   })pb")},
      {{"import more than a batch", grpc::StatusCode::RESOURCE_EXHAUSTED,
        "snapshot.bodies: 11 in one batch, above the limit of 10"},
       [&, eleven_bodies] {
         sator::v1::UpsertBodiesRequest bodies =
             Parse<sator::v1::UpsertBodiesRequest>(eleven_bodies);
         sator::v1::ImportSceneRequest request;
         request.mutable_snapshot()->set_scene_id("new");
         request.mutable_snapshot()->mutable_settings()->set_dimension(
             sator::v1::DIMENSION_2D);
         *request.mutable_snapshot()->mutable_bodies() = bodies.bodies();
         sator::v1::SceneInfo out;
         return scenes_->ImportScene(Context().get(), request, &out);
       }},
      {{"a request above --max_message_bytes",
        grpc::StatusCode::RESOURCE_EXHAUSTED, ""},
       [&] {
         sator::v1::UpsertBodiesRequest request;
         request.set_scene_id("arena");
         sator::v1::Body& body = *request.add_bodies();
         body.set_body_id(7);
         body.set_motion_type(sator::v1::MOTION_TYPE_STATIC);
         // 10000 points of 12 bytes and more: above 64 KiB.
         for (int i = 0; i < 10000; ++i) {
           sator::v1::Vector& point =
               *body.mutable_shape()->mutable_hull()->add_points();
           point.set_x(static_cast<float>(i));
           point.set_y(1.0f);
           point.set_z(2.0f);
         }
         sator::v1::UpsertBodiesResponse out;
         return bodies_->UpsertBodies(Context().get(), request, &out);
       }},
      {{"upsert into an unknown scene", grpc::StatusCode::NOT_FOUND,
        "scene_id: no scene 'ghost'"},
       upsert(R"pb(scene_id: "ghost")pb")},
      {{"upsert more than a batch", grpc::StatusCode::RESOURCE_EXHAUSTED,
        "bodies: 11 in one batch, above the limit of 10 (--max_batch_bodies)"},
       upsert(eleven_bodies)},
      {{"upsert past the scene's body limit",
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        "bodies: the scene would hold 6 bodies"},
       upsert(R"pb(scene_id: "arena"
                   bodies {
                     body_id: 7
                     motion_type: MOTION_TYPE_STATIC
                     shape { circle { radius: 1 } }
                   }
                   bodies {
                     body_id: 8
                     motion_type: MOTION_TYPE_STATIC
                     shape { circle { radius: 1 } }
                   }
                   bodies {
                     body_id: 9
                     motion_type: MOTION_TYPE_STATIC
                     shape { circle { radius: 1 } }
                   })pb")},
      {{"upsert past its deadline", grpc::StatusCode::DEADLINE_EXCEEDED, ""},
       upsert(R"pb(scene_id: "arena"
                   bodies {
                     body_id: 7
                     motion_type: MOTION_TYPE_STATIC
                     shape { circle { radius: 1 } }
                   })pb",
              std::chrono::milliseconds(-1))},
      {{"upsert a body id twice", grpc::StatusCode::INVALID_ARGUMENT,
        "bodies[1].body_id: body 7 is also bodies[0]"},
       upsert(R"pb(scene_id: "arena"
                   bodies {
                     body_id: 7
                     motion_type: MOTION_TYPE_STATIC
                     shape { circle { radius: 1 } }
                   }
                   bodies {
                     body_id: 7
                     motion_type: MOTION_TYPE_STATIC
                     shape { circle { radius: 2 } }
                   })pb")},
      {{"remove body id 0", grpc::StatusCode::INVALID_ARGUMENT,
        "body_ids[1]: must be set (0 is not a body id)"},
       remove(R"pb(scene_id: "arena"
                   body_ids: [ 2, 0 ])pb")},
      {{"a pose for body id 0", grpc::StatusCode::INVALID_ARGUMENT,
        "poses.body_ids[1]: must be set (0 is not a body id)"},
       poses(R"pb(scene_id: "arena"
                  tick: 6
                  poses {
                    body_ids: [ 2, 0 ]
                    positions: [ 0, 0, 0, 0 ]
                    rotations: [ 0, 0 ]
                  })pb")},
      {{"poses for a negative tick", grpc::StatusCode::INVALID_ARGUMENT,
        "tick: must be in [0, "},
       poses(R"pb(scene_id: "arena"
                  tick: -1
                  poses {
                    body_ids: [ 2 ]
                    positions: [ 0, 0 ]
                    rotations: [ 0 ]
                  })pb")},
      {{"remove an unknown body", grpc::StatusCode::NOT_FOUND,
        "body_ids[1]: no body 99 in the scene"},
       remove(R"pb(scene_id: "arena"
                   body_ids: [ 2, 99 ])pb")},
      {{"poses for a stale tick", grpc::StatusCode::FAILED_PRECONDITION,
        "tick: 4 is older than the current tick 5"},
       poses(R"pb(scene_id: "arena"
                  tick: 4
                  poses {
                    body_ids: [ 2 ]
                    positions: [ 0, 0 ]
                    rotations: [ 0 ]
                  })pb")},
      {{"a pose for a static body", grpc::StatusCode::FAILED_PRECONDITION,
        "poses.body_ids[1]: body 1 is static"},
       poses(R"pb(scene_id: "arena"
                  tick: 6
                  poses {
                    body_ids: [ 2, 1 ]
                    positions: [ 0, 0, 0, 0 ]
                    rotations: [ 0, 0 ]
                  })pb")},
      {{"a pose for an unknown body", grpc::StatusCode::NOT_FOUND,
        "poses.body_ids[0]: no body 42"},
       poses(R"pb(scene_id: "arena"
                  tick: 6
                  poses {
                    body_ids: [ 42 ]
                    positions: [ 0, 0 ]
                    rotations: [ 0 ]
                  })pb")},
      {{"poses with too few positions", grpc::StatusCode::INVALID_ARGUMENT,
        "poses.positions: has 3 floats; 2 body ids need 4"},
       poses(R"pb(scene_id: "arena"
                  tick: 6
                  poses {
                    body_ids: [ 2, 3 ]
                    positions: [ 0, 0, 0 ]
                    rotations: [ 0, 0 ]
                  })pb")},
      {{"a non-finite angle", grpc::StatusCode::INVALID_ARGUMENT,
        "poses.rotations[1]: not finite"},
       poses(R"pb(scene_id: "arena"
                  tick: 6
                  poses {
                    body_ids: [ 2, 3 ]
                    positions: [ 0, 0, 0, 0 ]
                    rotations: [ 0, -inf ]
                  })pb")},
  };
  for (const auto& [bad, call] : cases) {
    SCOPED_TRACE(bad.name);
    const grpc::Status status = call();
    EXPECT_EQ(status.error_code(), bad.code) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(bad.message));
    EXPECT_TRUE(MessageDifferencer::Equals(Export("arena"), before));
    EXPECT_EQ(SceneIds(), std::vector<std::string>{"arena"});
  }
}

TEST_F(SceneBodyEndToEnd, SceneAndShapeLimitsAreResourceExhausted) {
  MakeArena();
  sator::v1::SceneInfo info;
  ASSERT_TRUE(
      scenes_
          ->CreateScene(Context().get(),
                        Parse<sator::v1::CreateSceneRequest>(
                            R"pb(settings { dimension: DIMENSION_3D })pb"),
                        &info)
          .ok());
  grpc::Status status =
      scenes_->CreateScene(Context().get(),
                           Parse<sator::v1::CreateSceneRequest>(
                               R"pb(settings { dimension: DIMENSION_3D })pb"),
                           &info);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(status.error_message(),
            "this server already hosts its limit of 2 scenes (--max_scenes)");
  // ImportScene answers the scene limit with the same sentence, without a
  // field path glued on.
  status = scenes_->ImportScene(
      Context().get(),
      Parse<sator::v1::ImportSceneRequest>(
          R"pb(snapshot { settings { dimension: DIMENSION_3D } })pb"),
      &info);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(status.error_message(),
            "this server already hosts its limit of 2 scenes (--max_scenes)");

  // A box thinner than the smallest extent names its axis.
  sator::v1::UpsertBodiesResponse thin;
  status = bodies_->UpsertBodies(
      Context().get(), Parse<sator::v1::UpsertBodiesRequest>(R"pb(
        scene_id: "scene-1"
        bodies {
          body_id: 1
          motion_type: MOTION_TYPE_STATIC
          shape { box3d { half_extents { x: 1 y: 1e-7 z: 1 } } }
        })pb"),
      &thin);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("bodies[0].shape.box3d: box half extent y is 1e-07"));

  // Nine hull points against --max_hull_points=8.
  std::string hull = R"pb(scene_id: "scene-1"
                          bodies { body_id: 1 motion_type: MOTION_TYPE_STATIC
                                   shape { hull {)pb";
  for (int i = 0; i < 9; ++i) {
    absl::StrAppend(&hull, " points { x: ", i % 3, " y: ", i / 3, " z: ", i % 2,
                    " }");
  }
  hull += " } } }";
  sator::v1::UpsertBodiesResponse upserted;
  status = bodies_->UpsertBodies(
      Context().get(), Parse<sator::v1::UpsertBodiesRequest>(hull), &upserted);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("bodies[0].shape.hull"));
  EXPECT_EQ(Export("scene-1").bodies_size(), 0);

  // A setting above its limit flag is a hard limit too: no retry-after-ms,
  // since the same call can never succeed.
  std::unique_ptr<grpc::ClientContext> context = Context();
  status = scenes_->CreateScene(
      context.get(),
      Parse<sator::v1::CreateSceneRequest>(
          R"pb(settings { dimension: DIMENSION_3D max_bodies: 100 })pb"),
      &info);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(status.error_message(),
            "settings.max_bodies: 100 above the server limit 5 "
            "(--max_bodies_per_scene)");
  EXPECT_FALSE(context->GetServerTrailingMetadata().contains("retry-after-ms"));
}

}  // namespace
}  // namespace sator
