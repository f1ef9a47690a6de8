// The scene and body operations: each RPC's result, each error code with
// its field path, state left unchanged by every refused request, paging,
// export/import round trips, and the durability hook's calls.
#include "server/scenes/scene_ops.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "sator/core/field_status.h"
#include "server/scene_queries.h"
#include "support/text_proto.h"

namespace sator::server {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using ::testing::StartsWith;

template <typename Message>
Message Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<Message>(text);
}

// The code, and a message containing `message_part`. For a fault of the
// request, a part that opens with a field path ("poses.body_ids[1]: ...")
// must also be the path the status carries, and open its message.
void ExpectError(const absl::Status& status, absl::StatusCode code,
                 const std::string& message_part) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(message_part));
  const bool request_fault = code == absl::StatusCode::kInvalidArgument ||
                             code == absl::StatusCode::kOutOfRange ||
                             code == absl::StatusCode::kNotFound ||
                             code == absl::StatusCode::kResourceExhausted ||
                             code == absl::StatusCode::kFailedPrecondition;
  const std::size_t colon = message_part.find(": ");
  const std::string path = message_part.substr(0, colon);
  const bool names_a_field = request_fault && colon != std::string::npos &&
                             std::all_of(path.begin(), path.end(), [](char c) {
                               return absl::ascii_islower(c) ||
                                      absl::ascii_isdigit(c) || c == '_' ||
                                      c == '.' || c == '[' || c == ']';
                             });
  if (names_a_field) {
    EXPECT_EQ(FieldPathOf(status), path) << status;
    EXPECT_THAT(std::string(status.message()), StartsWith(path + ": "));
  }
}

class SceneOpsTest : public ::testing::Test {
 protected:
  SceneOpsTest() : registry_(Limits()) {}

  static SceneLimits Limits() {
    SceneLimits limits;
    limits.max_scenes = 8;
    limits.max_bodies_per_scene = 100;
    return limits;
  }

  void Create(const std::string& id, const std::string& dimension) {
    absl::StatusOr<sator::v1::SceneInfo> info = CreateScene(
        registry_, options_,
        Parse<sator::v1::CreateSceneRequest>(absl::StrCat(
            "scene_id: '", id, "' settings { dimension: ", dimension, " }")));
    ASSERT_TRUE(info.ok()) << info.status();
  }

  // A 2D scene "arena" with static body 1 and dynamic bodies 2 and 3.
  void MakeArena() {
    Create("arena", "DIMENSION_2D");
    absl::StatusOr<sator::v1::UpsertBodiesResponse> upserted = UpsertBodies(
        registry_, options_, Parse<sator::v1::UpsertBodiesRequest>(R"pb(
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
            pose {
              position { x: 1 y: 2 }
              angle: 0.5
            }
          }
          bodies {
            body_id: 3
            motion_type: MOTION_TYPE_DYNAMIC
            shape { circle { radius: 0.5 } }
            layer: 2
          }
        )pb"));
    ASSERT_TRUE(upserted.ok()) << upserted.status();
  }

  sator::v1::SceneSnapshot Export(const std::string& id) {
    sator::v1::ExportSceneRequest request;
    request.set_scene_id(id);
    absl::StatusOr<sator::v1::SceneSnapshot> snapshot =
        ExportScene(registry_, SceneOpsOptions(), request);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status();
    return snapshot.ok() ? *snapshot : sator::v1::SceneSnapshot();
  }

  sator::v1::SceneStats Stats(const std::string& id) {
    sator::v1::GetSceneRequest request;
    request.set_scene_id(id);
    absl::StatusOr<sator::v1::SceneInfo> info = GetScene(registry_, request);
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? info->stats() : sator::v1::SceneStats();
  }

  SceneRegistry registry_;
  SceneOpsOptions options_;
};

TEST_F(SceneOpsTest, CreateResolvesDefaultsAndAssignsIds) {
  absl::StatusOr<sator::v1::SceneInfo> info =
      CreateScene(registry_, options_,
                  Parse<sator::v1::CreateSceneRequest>(
                      "settings { dimension: DIMENSION_3D }"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->scene_id(), "scene-1");
  EXPECT_EQ(info->settings().dimension(), sator::v1::DIMENSION_3D);
  EXPECT_EQ(info->settings().history_ticks(), 64u);
  EXPECT_EQ(info->settings().max_bodies(), 100u);
  EXPECT_EQ(info->stats().body_count(), 0u);
  EXPECT_EQ(info->stats().current_tick(), 0);
  EXPECT_GT(info->stats().memory_bytes(), 0u);
}

TEST_F(SceneOpsTest, CreateErrors) {
  Create("taken", "DIMENSION_2D");
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "scene_id: 'taken' settings { dimension: "
                              "DIMENSION_3D }"))
                  .status(),
              absl::StatusCode::kAlreadyExists, "scene_id: scene 'taken'");
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>("scene_id: 'x'"))
                  .status(),
              absl::StatusCode::kInvalidArgument, "settings.dimension: ");
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "scene_id: 'a b' settings { dimension: "
                              "DIMENSION_2D }"))
                  .status(),
              absl::StatusCode::kInvalidArgument, "scene_id: character 1");
  // Above a limit flag: RESOURCE_EXHAUSTED naming the setting and the flag.
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "settings { dimension: DIMENSION_2D "
                              "max_bodies: 101 }"))
                  .status(),
              absl::StatusCode::kResourceExhausted,
              "settings.max_bodies: 101 above the server limit 100 "
              "(--max_bodies_per_scene)");
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "settings { dimension: DIMENSION_2D "
                              "max_bodies: 3000000000 }"))
                  .status(),
              absl::StatusCode::kResourceExhausted,
              "settings.max_bodies: 3000000000 above the server limit 100 "
              "(--max_bodies_per_scene)");
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "settings { dimension: DIMENSION_3D "
                              "history_ticks: 1025 }"))
                  .status(),
              absl::StatusCode::kResourceExhausted,
              "settings.history_ticks: 1025 above the server limit 1024 "
              "(--max_history_ticks)");
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "settings { dimension: DIMENSION_3D "
                              "history_ticks: 4294967295 }"))
                  .status(),
              absl::StatusCode::kResourceExhausted,
              "settings.history_ticks: 4294967295 above the server limit");
  // Malformed: INVALID_ARGUMENT.
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "settings { dimension: DIMENSION_2D "
                              "teleport_distance: nan }"))
                  .status(),
              absl::StatusCode::kInvalidArgument,
              "settings.teleport_distance: ");
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "settings { dimension: DIMENSION_2D "
                              "teleport_distance: -1 }"))
                  .status(),
              absl::StatusCode::kInvalidArgument,
              "settings.teleport_distance: ");
  for (int i = 1; i < 8; ++i) Create(absl::StrCat("s", i), "DIMENSION_2D");
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "settings { dimension: DIMENSION_2D }"))
                  .status(),
              absl::StatusCode::kResourceExhausted, "--max_scenes");
  EXPECT_EQ(registry_.size(), 8u);
}

TEST_F(SceneOpsTest, UpsertCountsCreatedAndReplacedAndStatsFollow) {
  MakeArena();
  sator::v1::SceneStats stats = Stats("arena");
  EXPECT_EQ(stats.body_count(), 3u);
  EXPECT_EQ(stats.static_body_count(), 1u);
  EXPECT_EQ(stats.dynamic_body_count(), 2u);
  absl::StatusOr<sator::v1::UpsertBodiesResponse> upserted = UpsertBodies(
      registry_, options_, Parse<sator::v1::UpsertBodiesRequest>(R"pb(
        scene_id: "arena"
        bodies {
          body_id: 3
          motion_type: MOTION_TYPE_STATIC
          shape { circle { radius: 2 } }
        }
        bodies {
          body_id: 4
          motion_type: MOTION_TYPE_DYNAMIC
          shape { circle { radius: 1 } }
        }
      )pb"));
  ASSERT_TRUE(upserted.ok()) << upserted.status();
  EXPECT_EQ(upserted->created(), 1u);
  EXPECT_EQ(upserted->replaced(), 1u);
  stats = Stats("arena");
  EXPECT_EQ(stats.body_count(), 4u);
  EXPECT_EQ(stats.static_body_count(), 2u);
}

TEST_F(SceneOpsTest, UpdatePosesAdvancesAndAmendsTicks) {
  MakeArena();
  absl::StatusOr<sator::v1::UpdatePosesResponse> updated = UpdatePoses(
      registry_, options_, Parse<sator::v1::UpdatePosesRequest>(R"pb(
        scene_id: "arena"
        tick: 3
        poses {
          body_ids: [ 2, 3 ]
          positions: [ 4, 5, 6, 7 ]
          rotations: [ 0.25, 0 ]
        }
      )pb"));
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->current_tick(), 3);
  // The same tick again amends it.
  updated = UpdatePoses(registry_, options_,
                        Parse<sator::v1::UpdatePosesRequest>(R"pb(
                          scene_id: "arena"
                          tick: 3
                          poses {
                            body_ids: [ 3 ]
                            positions: [ -1, -2 ]
                            rotations: [ 0 ]
                          }
                        )pb"));
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->current_tick(), 3);
  const sator::v1::SceneSnapshot snapshot = Export("arena");
  EXPECT_EQ(snapshot.current_tick(), 3);
  ASSERT_EQ(snapshot.bodies_size(), 3);
  EXPECT_EQ(snapshot.bodies(1).pose().position().x(), 4.0f);
  EXPECT_NEAR(snapshot.bodies(1).pose().angle(), 0.25f, 1e-6f);
  EXPECT_EQ(snapshot.bodies(2).pose().position().y(), -2.0f);
  EXPECT_EQ(Stats("arena").oldest_tick(), 0);
}

// Every refused body request: its code, its message, and no change.
TEST_F(SceneOpsTest, RefusedBodyRequestsChangeNothing) {
  MakeArena();
  options_.max_batch_bodies = 3;
  const sator::v1::SceneSnapshot before = Export("arena");
  struct Case {
    std::string request;  // UpsertBodies, RemoveBodies or UpdatePoses.
    std::string kind;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R"pb(scene_id: "nope")pb", "upsert", absl::StatusCode::kNotFound,
       "scene_id: no scene 'nope'"},
      {R"pb(scene_id: "")pb", "upsert", absl::StatusCode::kInvalidArgument,
       "scene_id: must be 1 to 128 characters"},
      {R"pb(scene_id: "arena"
            bodies {
              body_id: 9
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            }
            bodies {
              body_id: 10
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: -1 } }
            })pb",
       "upsert", absl::StatusCode::kInvalidArgument,
       "bodies[1].shape.circle.radius: "},
      {R"pb(scene_id: "arena"
            bodies {
              body_id: 9
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            }
            bodies {
              body_id: 9
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            })pb",
       "upsert", absl::StatusCode::kInvalidArgument,
       "bodies[1].body_id: body 9 is also bodies[0]"},
      {R"pb(scene_id: "arena"
            bodies {
              body_id: 9
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            }
            bodies {
              body_id: 10
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            }
            bodies {
              body_id: 11
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            }
            bodies {
              body_id: 12
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            })pb",
       "upsert", absl::StatusCode::kResourceExhausted,
       "bodies: 4 in one batch, above the limit of 3 (--max_batch_bodies)"},
      {R"pb(scene_id: "arena"
            body_ids: [ 2, 77 ])pb",
       "remove", absl::StatusCode::kNotFound, "body_ids[1]: no body 77"},
      {R"pb(scene_id: "arena"
            body_ids: [ 2, 2 ])pb",
       "remove", absl::StatusCode::kInvalidArgument,
       "body_ids[1]: body 2 is also"},
      {R"pb(scene_id: "arena"
            body_ids: [ 1, 2, 3, 4 ])pb",
       "remove", absl::StatusCode::kResourceExhausted,
       "body_ids: 4 in one batch"},
      {R"pb(scene_id: "arena"
            tick: 1
            poses {
              body_ids: [ 2, 77 ]
              positions: [ 0, 0, 0, 0 ]
              rotations: [ 0, 0 ]
            })pb",
       "poses", absl::StatusCode::kNotFound, "poses.body_ids[1]: no body 77"},
      {R"pb(scene_id: "arena"
            tick: 1
            poses {
              body_ids: [ 1 ]
              positions: [ 0, 0 ]
              rotations: [ 0 ]
            })pb",
       "poses", absl::StatusCode::kFailedPrecondition,
       "poses.body_ids[0]: body 1 is static"},
      {R"pb(scene_id: "arena"
            tick: -1
            poses {
              body_ids: [ 2 ]
              positions: [ 0, 0 ]
              rotations: [ 0 ]
            })pb",
       "poses", absl::StatusCode::kInvalidArgument, "tick: must be in [0, "},
      {R"pb(scene_id: "arena"
            tick: 1
            poses {
              body_ids: [ 2 ]
              positions: [ 0 ]
              rotations: [ 0 ]
            })pb",
       "poses", absl::StatusCode::kInvalidArgument,
       "poses.positions: has 1 floats; 1 body ids need 2"},
      {R"pb(scene_id: "arena"
            tick: 1
            poses {
              body_ids: [ 2 ]
              positions: [ 0, nan ]
              rotations: [ 0 ]
            })pb",
       "poses", absl::StatusCode::kInvalidArgument,
       "poses.positions[1]: not finite"},
      {R"pb(scene_id: "arena" tick: 4611686018427387905)pb", "poses",
       absl::StatusCode::kInvalidArgument, "tick: must be in [0, "},
      {R"pb(scene_id: "arena"
            tick: 1
            poses { body_ids: [ 1, 2, 3, 4 ] })pb",
       "poses", absl::StatusCode::kResourceExhausted,
       "poses.body_ids: 4 in one batch"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.request);
    absl::Status status;
    if (c.kind == "upsert") {
      status = UpsertBodies(registry_, options_,
                            Parse<sator::v1::UpsertBodiesRequest>(c.request))
                   .status();
    } else if (c.kind == "remove") {
      status = RemoveBodies(registry_, options_,
                            Parse<sator::v1::RemoveBodiesRequest>(c.request))
                   .status();
    } else {
      status = UpdatePoses(registry_, options_,
                           Parse<sator::v1::UpdatePosesRequest>(c.request))
                   .status();
    }
    ExpectError(status, c.code, c.message);
    EXPECT_TRUE(MessageDifferencer::Equals(Export("arena"), before));
  }
  // A stale tick once the scene has moved on.
  ASSERT_TRUE(
      UpdatePoses(registry_, options_,
                  Parse<sator::v1::UpdatePosesRequest>(R"pb(scene_id: "arena"
                                                            tick: 5)pb"))
          .ok());
  ExpectError(UpdatePoses(registry_, options_,
                          Parse<sator::v1::UpdatePosesRequest>(R"pb(
                            scene_id: "arena"
                            tick: 4
                            poses {
                              body_ids: [ 2 ]
                              positions: [ 0, 0 ]
                              rotations: [ 0 ]
                            }
                          )pb"))
                  .status(),
              absl::StatusCode::kFailedPrecondition,
              "tick: 4 is older than the current tick 5");
}

TEST_F(SceneOpsTest, SceneBodyLimitIsResourceExhausted) {
  ASSERT_TRUE(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "scene_id: 'small' settings { dimension: "
                              "DIMENSION_2D max_bodies: 1 }"))
                  .ok());
  ExpectError(UpsertBodies(registry_, options_,
                           Parse<sator::v1::UpsertBodiesRequest>(R"pb(
                             scene_id: "small"
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
                           )pb"))
                  .status(),
              absl::StatusCode::kResourceExhausted, "bodies: the scene would");
  EXPECT_EQ(Stats("small").body_count(), 0u);
}

TEST_F(SceneOpsTest, RemoveAndDelete) {
  MakeArena();
  absl::StatusOr<sator::v1::RemoveBodiesResponse> removed = RemoveBodies(
      registry_, options_,
      Parse<sator::v1::RemoveBodiesRequest>(R"pb(scene_id: "arena"
                                                 body_ids: [ 1, 3 ])pb"));
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(removed->removed(), 2u);
  EXPECT_EQ(Stats("arena").body_count(), 1u);

  sator::v1::DeleteSceneRequest request;
  request.set_scene_id("arena");
  ASSERT_TRUE(DeleteScene(registry_, options_, request).ok());
  ExpectError(DeleteScene(registry_, options_, request).status(),
              absl::StatusCode::kNotFound, "scene_id: no scene 'arena'");
  EXPECT_EQ(registry_.size(), 0u);
}

TEST_F(SceneOpsTest, ListScenesPagesInIdOrder) {
  for (const char* id : {"e", "a", "d", "b", "c"}) Create(id, "DIMENSION_2D");
  sator::v1::ListScenesRequest request;
  request.set_page_size(2);
  std::vector<std::string> seen;
  int pages = 0;
  do {
    absl::StatusOr<sator::v1::ListScenesResponse> page =
        ListScenes(registry_, request);
    ASSERT_TRUE(page.ok()) << page.status();
    ASSERT_LE(page->scenes_size(), 2);
    for (const sator::v1::SceneInfo& info : page->scenes()) {
      seen.push_back(info.scene_id());
      EXPECT_EQ(info.settings().dimension(), sator::v1::DIMENSION_2D);
    }
    request.set_page_token(page->next_page_token());
    ++pages;
  } while (!request.page_token().empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "c", "d", "e"}));

  sator::v1::ListScenesRequest all;
  absl::StatusOr<sator::v1::ListScenesResponse> page =
      ListScenes(registry_, all);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->scenes_size(), 5);
  EXPECT_TRUE(page->next_page_token().empty());

  for (const char* token : {"!!!", "YWJj", "djE6IGE"}) {  // abc, "v1: a"
    sator::v1::ListScenesRequest bad;
    bad.set_page_token(token);
    ExpectError(ListScenes(registry_, bad).status(),
                absl::StatusCode::kInvalidArgument, "page_token: ");
  }
}

TEST_F(SceneOpsTest, ExportImportRoundTripsBothDimensions) {
  MakeArena();
  ASSERT_TRUE(UpdatePoses(registry_, options_,
                          Parse<sator::v1::UpdatePosesRequest>(R"pb(
                            scene_id: "arena"
                            tick: 7
                            poses {
                              body_ids: [ 2 ]
                              positions: [ 3, 3 ]
                              rotations: [ 1 ]
                            }
                          )pb"))
                  .ok());
  Create("world", "DIMENSION_3D");
  ASSERT_TRUE(UpsertBodies(registry_, options_,
                           Parse<sator::v1::UpsertBodiesRequest>(R"pb(
                             scene_id: "world"
                             bodies {
                               body_id: 1
                               motion_type: MOTION_TYPE_STATIC
                               shape {
                                 mesh {
                                   vertices { x: 0 y: 0 z: 0 }
                                   vertices { x: 4 y: 0 z: 0 }
                                   vertices { x: 0 y: 4 z: 0 }
                                   indices: [ 0, 1, 2 ]
                                 }
                               }
                             }
                             bodies {
                               body_id: 2
                               motion_type: MOTION_TYPE_DYNAMIC
                               shape {
                                 hull {
                                   points { x: 0 y: 0 z: 0 }
                                   points { x: 1 y: 0 z: 0 }
                                   points { x: 0 y: 1 z: 0 }
                                   points { x: 0 y: 0 z: 1 }
                                 }
                               }
                               pose {
                                 position { x: 1 y: 1 z: 1 }
                                 orientation { z: 0.6 w: 0.8 }
                               }
                             }
                           )pb"))
                  .ok());
  for (const std::string id : {"arena", "world"}) {
    SCOPED_TRACE(id);
    sator::v1::ImportSceneRequest request;
    *request.mutable_snapshot() = Export(id);
    request.mutable_snapshot()->set_scene_id(absl::StrCat(id, "-copy"));
    absl::StatusOr<sator::v1::SceneInfo> info =
        ImportScene(registry_, options_, request);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->scene_id(), absl::StrCat(id, "-copy"));
    sator::v1::SceneSnapshot copy = Export(absl::StrCat(id, "-copy"));
    copy.set_scene_id(id);
    EXPECT_TRUE(MessageDifferencer::ApproximatelyEquals(copy, Export(id)))
        << copy.DebugString() << "\n"
        << Export(id).DebugString();
  }
  EXPECT_EQ(Stats("arena-copy").current_tick(), 7);
}

TEST_F(SceneOpsTest, ImportAtAHugeTickDoesNotWalkEveryTick) {
  sator::v1::ImportSceneRequest request = Parse<sator::v1::ImportSceneRequest>(
      R"pb(snapshot {
             scene_id: "late"
             settings { dimension: DIMENSION_2D history_ticks: 4 }
             current_tick: 1000000000000
             bodies {
               body_id: 5
               motion_type: MOTION_TYPE_DYNAMIC
               shape { circle { radius: 1 } }
             }
           })pb");
  absl::StatusOr<sator::v1::SceneInfo> info =
      ImportScene(registry_, options_, request);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->stats().current_tick(), 1'000'000'000'000);
  EXPECT_EQ(info->stats().oldest_tick(), 1'000'000'000'000 - 3);
  EXPECT_EQ(info->stats().body_count(), 1u);
  // The scene goes on from there.
  ASSERT_TRUE(UpdatePoses(registry_, options_,
                          Parse<sator::v1::UpdatePosesRequest>(R"pb(
                            scene_id: "late"
                            tick: 1000000000001
                            poses {
                              body_ids: [ 5 ]
                              positions: [ 1, 1 ]
                              rotations: [ 0 ]
                            }
                          )pb"))
                  .ok());
}

TEST_F(SceneOpsTest, RefusedImportsLeaveNothingBehind) {
  MakeArena();
  const sator::v1::SceneSnapshot arena = Export("arena");
  struct Case {
    std::string snapshot;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R"pb(scene_id: "arena"
            settings { dimension: DIMENSION_2D })pb",
       absl::StatusCode::kAlreadyExists, "snapshot.scene_id: scene 'arena'"},
      {R"pb(scene_id: "new"
            settings {})pb",
       absl::StatusCode::kInvalidArgument, "snapshot.settings.dimension: "},
      {R"pb(scene_id: "new"
            settings { dimension: DIMENSION_2D max_bodies: 101 })pb",
       absl::StatusCode::kResourceExhausted,
       "snapshot.settings.max_bodies: 101 above the server limit 100 "
       "(--max_bodies_per_scene)"},
      {R"pb(scene_id: "new"
            settings { dimension: DIMENSION_2D history_ticks: 2000 })pb",
       absl::StatusCode::kResourceExhausted,
       "snapshot.settings.history_ticks: 2000 above the server limit 1024 "
       "(--max_history_ticks)"},
      {R"pb(scene_id: "new"
            settings { dimension: DIMENSION_2D }
            current_tick: -3)pb",
       absl::StatusCode::kInvalidArgument, "snapshot.current_tick: "},
      {R"pb(scene_id: "new"
            settings { dimension: DIMENSION_2D }
            bodies {
              body_id: 1
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            }
            bodies {
              body_id: 1
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            })pb",
       absl::StatusCode::kInvalidArgument,
       "snapshot.bodies[1].body_id: body 1 is also bodies[0]"},
      {R"pb(scene_id: "new"
            settings { dimension: DIMENSION_3D }
            bodies {
              body_id: 1
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            })pb",
       absl::StatusCode::kInvalidArgument, "snapshot.bodies[0].shape.circle"},
      {R"pb(scene_id: "new"
            settings { dimension: DIMENSION_2D max_bodies: 1 }
            bodies {
              body_id: 1
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            }
            bodies {
              body_id: 2
              motion_type: MOTION_TYPE_STATIC
              shape { circle { radius: 1 } }
            })pb",
       absl::StatusCode::kResourceExhausted,
       "snapshot.bodies: 2 bodies, above the scene's limit of 1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.snapshot);
    sator::v1::ImportSceneRequest request;
    *request.mutable_snapshot() = Parse<sator::v1::SceneSnapshot>(c.snapshot);
    ExpectError(ImportScene(registry_, options_, request).status(), c.code,
                c.message);
    EXPECT_EQ(registry_.size(), 1u);
    EXPECT_TRUE(MessageDifferencer::Equals(Export("arena"), arena));
  }
  ExpectError(ImportScene(registry_, options_, {}).status(),
              absl::StatusCode::kInvalidArgument, "snapshot: must be set");
}

// The hook wraps each mutation that passed validation, once, in order, with
// the outcome of applying it; requests refused by validation never reach it.
TEST_F(SceneOpsTest, HookWrapsEachValidatedMutationOnceInOrder) {
  std::vector<std::string> calls;
  options_.on_mutation = [&](const std::string& scene_id,
                             const google::protobuf::Message& request,
                             absl::FunctionRef<absl::Status()> apply) {
    const absl::Status status = apply();
    calls.push_back(absl::StrCat(scene_id, " ", request.GetDescriptor()->name(),
                                 " ", absl::StatusCodeToString(status.code())));
    return status;
  };
  ASSERT_TRUE(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "settings { dimension: DIMENSION_2D }"))
                  .ok());
  ASSERT_TRUE(UpsertBodies(registry_, options_,
                           Parse<sator::v1::UpsertBodiesRequest>(R"pb(
                             scene_id: "scene-1"
                             bodies {
                               body_id: 1
                               motion_type: MOTION_TYPE_DYNAMIC
                               shape { circle { radius: 1 } }
                             }
                           )pb"))
                  .ok());
  // Refused by validation: never reaches the hook.
  EXPECT_FALSE(UpsertBodies(registry_, options_,
                            Parse<sator::v1::UpsertBodiesRequest>(R"pb(
                              scene_id: "scene-1"
                              bodies { body_id: 2 }
                            )pb"))
                   .ok());
  // Refused by the core when applied: the hook sees the refusal.
  ExpectError(RemoveBodies(registry_, options_,
                           Parse<sator::v1::RemoveBodiesRequest>(
                               R"pb(scene_id: "scene-1"
                                    body_ids: [ 9 ])pb"))
                  .status(),
              absl::StatusCode::kNotFound, "body_ids[0]: no body 9");
  ASSERT_TRUE(
      UpdatePoses(registry_, options_,
                  Parse<sator::v1::UpdatePosesRequest>(R"pb(scene_id: "scene-1"
                                                            tick: 2)pb"))
          .ok());
  sator::v1::DeleteSceneRequest remove;
  remove.set_scene_id("scene-1");
  ASSERT_TRUE(DeleteScene(registry_, options_, remove).ok());
  const std::vector<std::string> expected = {
      "scene-1 CreateSceneRequest OK", "scene-1 UpsertBodiesRequest OK",
      "scene-1 RemoveBodiesRequest NOT_FOUND", "scene-1 UpdatePosesRequest OK",
      "scene-1 DeleteSceneRequest OK"};
  EXPECT_EQ(calls, expected);
}

// The hook (the write-ahead log) sees the settings a scene got, defaults
// filled in, not the zeros it was asked with: replay under other default
// flags must rebuild the scene that was acknowledged.
TEST_F(SceneOpsTest, HookSeesTheResolvedSettings) {
  std::vector<sator::v1::SceneSettings> logged;
  options_.on_mutation = [&](const std::string&,
                             const google::protobuf::Message& request,
                             absl::FunctionRef<absl::Status()> apply) {
    const google::protobuf::Descriptor* type = request.GetDescriptor();
    if (type == sator::v1::CreateSceneRequest::descriptor()) {
      logged.push_back(
          static_cast<const sator::v1::CreateSceneRequest&>(request)
              .settings());
    } else if (type == sator::v1::ImportSceneRequest::descriptor()) {
      logged.push_back(
          static_cast<const sator::v1::ImportSceneRequest&>(request)
              .snapshot()
              .settings());
    }
    return apply();
  };
  absl::StatusOr<sator::v1::SceneInfo> created =
      CreateScene(registry_, options_,
                  Parse<sator::v1::CreateSceneRequest>(
                      R"pb(scene_id: "zeros"
                           settings { dimension: DIMENSION_2D })pb"));
  ASSERT_TRUE(created.ok()) << created.status();
  absl::StatusOr<sator::v1::SceneInfo> imported = ImportScene(
      registry_, options_, Parse<sator::v1::ImportSceneRequest>(R"pb(
        snapshot {
          scene_id: "imported"
          settings { dimension: DIMENSION_3D teleport_distance: 2 }
        }
      )pb"));
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_EQ(logged.size(), 2u);
  // Defaults: history 64 (SceneLimits), max_bodies the limit of 100.
  EXPECT_TRUE(MessageDifferencer::Equals(
      logged[0], Parse<sator::v1::SceneSettings>(
                     "dimension: DIMENSION_2D history_ticks: 64 "
                     "max_bodies: 100")))
      << logged[0].DebugString();
  EXPECT_TRUE(MessageDifferencer::Equals(logged[0], created->settings()));
  EXPECT_TRUE(MessageDifferencer::Equals(
      logged[1], Parse<sator::v1::SceneSettings>(
                     "dimension: DIMENSION_3D history_ticks: 64 "
                     "teleport_distance: 2 max_bodies: 100")))
      << logged[1].DebugString();
  EXPECT_TRUE(MessageDifferencer::Equals(logged[1], imported->settings()));
}

// Replay (keep_settings_over_limits) keeps settings above the limit flags
// that an earlier start acknowledged, and reports each one.
TEST_F(SceneOpsTest, ReplayKeepsSettingsOverTheLimitsAndReportsThem) {
  std::vector<std::string> reported;
  options_.keep_settings_over_limits = true;
  options_.on_setting_over_limit = [&](const std::string& scene_id,
                                       const std::string& message) {
    reported.push_back(absl::StrCat(scene_id, " ", message));
  };
  absl::StatusOr<sator::v1::SceneInfo> created = CreateScene(
      registry_, options_,
      Parse<sator::v1::CreateSceneRequest>(
          R"pb(scene_id: "wide"
               settings { dimension: DIMENSION_2D max_bodies: 500 })pb"));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->settings().max_bodies(), 500u);
  absl::StatusOr<sator::v1::SceneInfo> imported = ImportScene(
      registry_, options_, Parse<sator::v1::ImportSceneRequest>(R"pb(
        snapshot {
          scene_id: "deep"
          settings { dimension: DIMENSION_3D history_ticks: 2000 }
        }
      )pb"));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->settings().history_ticks(), 2000u);
  EXPECT_THAT(reported,
              ::testing::ElementsAre(
                  "wide settings.max_bodies: 500 above the server limit 100 "
                  "(--max_bodies_per_scene)",
                  "deep snapshot.settings.history_ticks: 2000 above the "
                  "server limit 1024 (--max_history_ticks)"));
  // Malformed settings are refused all the same.
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "settings { dimension: DIMENSION_2D "
                              "teleport_distance: -1 }"))
                  .status(),
              absl::StatusCode::kInvalidArgument,
              "settings.teleport_distance: ");
  EXPECT_EQ(reported.size(), 2u);
}

// A hook that refuses (a log that cannot be written) leaves everything as it
// was: no body changed, no scene created or imported, none deleted.
TEST_F(SceneOpsTest, HookErrorRefusesTheMutation) {
  MakeArena();
  const sator::v1::SceneSnapshot before = Export("arena");
  options_.on_mutation = [](const std::string&,
                            const google::protobuf::Message&,
                            absl::FunctionRef<absl::Status()>) {
    return absl::UnavailableError("log: disk full");
  };
  ExpectError(UpsertBodies(registry_, options_,
                           Parse<sator::v1::UpsertBodiesRequest>(R"pb(
                             scene_id: "arena"
                             bodies {
                               body_id: 9
                               motion_type: MOTION_TYPE_STATIC
                               shape { circle { radius: 1 } }
                             }
                           )pb"))
                  .status(),
              absl::StatusCode::kUnavailable, "log: disk full");
  ExpectError(
      UpdatePoses(registry_, options_,
                  Parse<sator::v1::UpdatePosesRequest>(R"pb(scene_id: "arena"
                                                            tick: 9)pb"))
          .status(),
      absl::StatusCode::kUnavailable, "log: disk full");
  ExpectError(RemoveBodies(registry_, options_,
                           Parse<sator::v1::RemoveBodiesRequest>(
                               R"pb(scene_id: "arena"
                                    body_ids: [ 2 ])pb"))
                  .status(),
              absl::StatusCode::kUnavailable, "log: disk full");
  ExpectError(CreateScene(registry_, options_,
                          Parse<sator::v1::CreateSceneRequest>(
                              "scene_id: 'b' settings { dimension: "
                              "DIMENSION_2D }"))
                  .status(),
              absl::StatusCode::kUnavailable, "log: disk full");
  sator::v1::ImportSceneRequest import;
  *import.mutable_snapshot() = before;
  import.mutable_snapshot()->set_scene_id("c");
  ExpectError(ImportScene(registry_, options_, import).status(),
              absl::StatusCode::kUnavailable, "log: disk full");
  sator::v1::DeleteSceneRequest remove;
  remove.set_scene_id("arena");
  ExpectError(DeleteScene(registry_, options_, remove).status(),
              absl::StatusCode::kUnavailable, "log: disk full");
  EXPECT_EQ(registry_.size(), 1u);
  EXPECT_TRUE(MessageDifferencer::Equals(Export("arena"), before));
}

}  // namespace
}  // namespace sator::server

namespace sator::server {
namespace {

// An UpsertBodies of one static body in `scene_id` whose shape is a grid
// mesh of 2 * n * n triangles over (n + 1)^2 vertices.
sator::v1::UpsertBodiesRequest MeshUpsert(const std::string& scene_id,
                                          std::uint64_t body_id, int n) {
  sator::v1::UpsertBodiesRequest request;
  request.set_scene_id(scene_id);
  sator::v1::Body* body = request.add_bodies();
  body->set_body_id(body_id);
  body->set_motion_type(sator::v1::MOTION_TYPE_STATIC);
  sator::v1::TriangleMesh* mesh = body->mutable_shape()->mutable_mesh();
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; j <= n; ++j) {
      sator::v1::Vector* v = mesh->add_vertices();
      v->set_x(static_cast<float>(i));
      v->set_z(static_cast<float>(j));
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const auto corner = static_cast<std::uint32_t>(i * (n + 1) + j);
      const auto right = corner + static_cast<std::uint32_t>(n + 1);
      for (std::uint32_t index :
           {corner, corner + 1, right, right, corner + 1, right + 1}) {
        mesh->add_indices(index);
      }
    }
  }
  return request;
}

// The registry's total is the sum of its scenes' own counts, meshes and
// hulls included, and follows every write and deletion.
TEST_F(SceneOpsTest, SceneMemoryCountsMeshesAndFollowsEveryWrite) {
  Create("world", "DIMENSION_3D");
  Create("other", "DIMENSION_3D");
  const auto scene_bytes = [&](const std::string& id) {
    return static_cast<std::int64_t>(
        registry_.Find(id).value()->memory_bytes());
  };
  const std::int64_t empty = registry_.memory_bytes();
  EXPECT_EQ(empty, scene_bytes("world") + scene_bytes("other"));

  constexpr int kGrid = 100;
  const std::int64_t vertex_and_index_bytes =
      (kGrid + 1) * (kGrid + 1) * 3 * static_cast<std::int64_t>(sizeof(float)) +
      2 * kGrid * kGrid * 3 * static_cast<std::int64_t>(sizeof(std::uint32_t));
  ASSERT_TRUE(
      UpsertBodies(registry_, options_, MeshUpsert("world", 1, kGrid)).ok());
  const std::int64_t with_mesh = registry_.memory_bytes();
  EXPECT_GE(with_mesh - empty, vertex_and_index_bytes);
  EXPECT_EQ(with_mesh, scene_bytes("world") + scene_bytes("other"));
  // GetScene reports the same count.
  sator::v1::GetSceneRequest get;
  get.set_scene_id("world");
  EXPECT_EQ(static_cast<std::int64_t>(
                GetScene(registry_, get).value().stats().memory_bytes()),
            scene_bytes("world"));

  sator::v1::RemoveBodiesRequest remove;
  remove.set_scene_id("world");
  remove.add_body_ids(1);
  ASSERT_TRUE(RemoveBodies(registry_, options_, remove).ok());
  EXPECT_LT(registry_.memory_bytes(), with_mesh - vertex_and_index_bytes);
  EXPECT_EQ(registry_.memory_bytes(),
            scene_bytes("world") + scene_bytes("other"));

  const std::int64_t other = scene_bytes("other");
  sator::v1::DeleteSceneRequest drop;
  drop.set_scene_id("world");
  ASSERT_TRUE(DeleteScene(registry_, options_, drop).ok());
  EXPECT_EQ(registry_.memory_bytes(), other);
}

// A mesh whose built size (input, BVH, leaf-order triangles) passes the
// budget is refused, though twice its request fits.
TEST_F(SceneOpsTest, MeshPastTheSceneMemoryBudgetIsRefusedNamingIt) {
  Create("world", "DIMENSION_3D");
  constexpr int kGrid = 100;
  const sator::v1::UpsertBodiesRequest request = MeshUpsert("world", 1, kGrid);
  const std::int64_t vertex_and_index_bytes =
      (kGrid + 1) * (kGrid + 1) * 3 * static_cast<std::int64_t>(sizeof(float)) +
      2 * kGrid * kGrid * 3 * static_cast<std::int64_t>(sizeof(std::uint32_t));
  // Room for twice the request and the mesh's input data, not for its BVH
  // and leaf-order triangles too.
  const std::int64_t budget =
      registry_.memory_bytes() +
      2 * static_cast<std::int64_t>(request.ByteSizeLong()) +
      vertex_and_index_bytes;
  options_.max_scene_memory_bytes = budget;
  const absl::Status refused =
      UpsertBodies(registry_, options_, request).status();
  ExpectError(refused, absl::StatusCode::kResourceExhausted,
              absl::StrCat("scene memory budget of ", budget,
                           " bytes (--max_scene_memory_bytes)"));
  // Nothing was added.
  sator::v1::GetSceneRequest get;
  get.set_scene_id("world");
  EXPECT_EQ(GetScene(registry_, get).value().stats().body_count(), 0u);
  // Without the budget the same mesh is accepted.
  options_.max_scene_memory_bytes = 0;
  EXPECT_TRUE(UpsertBodies(registry_, options_, request).ok());
}

class HitboxWireTest : public ::testing::Test {
 protected:
  HitboxWireTest() : registry_(SceneLimits{}) {}

  void SetUp() override {
    ASSERT_TRUE(CreateScene(registry_, options_,
                            Parse<sator::v1::CreateSceneRequest>(
                                "scene_id: 'g' settings { dimension: "
                                "DIMENSION_3D }"))
                    .ok());
    absl::StatusOr<sator::v1::UpsertBodiesResponse> upserted = UpsertBodies(
        registry_, options_, Parse<sator::v1::UpsertBodiesRequest>(R"pb(
          scene_id: "g"
          bodies {
            body_id: 1
            motion_type: MOTION_TYPE_DYNAMIC
            shape { sphere { radius: 0.25 } }
            pose { position { x: 1 } }
            group_id: 7
            part: 3
          }
        )pb"));
    ASSERT_TRUE(upserted.ok()) << upserted.status();
  }

  // The ray down the y axis through (x, 5, 0) on the scene `id`.
  std::vector<std::uint64_t> HitsAt(const std::string& id, float x,
                                    const std::string& rewind = "") {
    const scene::SceneSnapshot<3> snapshot =
        registry_.Find(id).value()->scene3()->Snapshot();
    scene::QueryOptions options;
    if (!rewind.empty()) options.rewind = scene::Rewind{0, 0.5f};
    const auto result = snapshot.RayCast({x, 5, 0}, {0, -1, 0}, 10, options);
    EXPECT_TRUE(result.ok()) << result.status();
    std::vector<std::uint64_t> ids;
    if (result.ok()) {
      for (const auto& hit : result->hits) ids.push_back(hit.group_id);
    }
    return ids;
  }

  SceneRegistry registry_;
  SceneOpsOptions options_;
};

TEST_F(HitboxWireTest, GroupPosesTeleportsAndExportImportTravelTheWire) {
  // Group 7 to (10, 0, 0): its part (local x = 1) is at x = 11.
  ASSERT_TRUE(UpdatePoses(registry_, options_,
                          Parse<sator::v1::UpdatePosesRequest>(R"pb(
                            scene_id: "g"
                            tick: 0
                            poses {
                              group_ids: [ 7 ]
                              group_positions: [ 10, 0, 0 ]
                              group_rotations: [ 0, 0, 0, 1 ]
                            }
                          )pb"))
                  .ok());
  EXPECT_EQ(HitsAt("g", 11), std::vector<std::uint64_t>{7});
  // Tick 1: the group at 13, the part at 14 (a walk below the teleport
  // distance), flagged as a
  // teleport: halfway the part stays at 11 instead of 12.5.
  ASSERT_TRUE(UpdatePoses(registry_, options_,
                          Parse<sator::v1::UpdatePosesRequest>(R"pb(
                            scene_id: "g"
                            tick: 1
                            poses {
                              group_ids: [ 7 ]
                              group_positions: [ 13, 0, 0 ]
                              group_rotations: [ 0, 0, 0, 1 ]
                              teleported_group_ids: [ 7 ]
                            }
                          )pb"))
                  .ok());
  EXPECT_EQ(HitsAt("g", 11, "halfway"), std::vector<std::uint64_t>{7});
  EXPECT_TRUE(HitsAt("g", 12.5f, "halfway").empty());

  const sator::v1::SceneSnapshot snapshot = [&] {
    sator::v1::ExportSceneRequest request;
    request.set_scene_id("g");
    return ExportScene(registry_, SceneOpsOptions(), request).value();
  }();
  ASSERT_EQ(snapshot.bodies_size(), 1);
  EXPECT_EQ(snapshot.bodies(0).group_id(), 7u);
  EXPECT_EQ(snapshot.bodies(0).part(), 3);
  EXPECT_FLOAT_EQ(snapshot.bodies(0).pose().position().x(), 1.0f);
  ASSERT_EQ(snapshot.groups_size(), 1);
  EXPECT_FLOAT_EQ(snapshot.groups(0).pose().position().x(), 13.0f);
  sator::v1::ImportSceneRequest import;
  *import.mutable_snapshot() = snapshot;
  import.mutable_snapshot()->set_scene_id("copy");
  ASSERT_TRUE(ImportScene(registry_, options_, import).ok());
  EXPECT_EQ(HitsAt("copy", 14), std::vector<std::uint64_t>{7});
}

TEST_F(HitboxWireTest, HitsCarryGroupAndPartAndGroupsCanBeExcluded) {
  SceneQueries queries(registry_, {});
  const auto ray = [&](const std::string& filter) {
    return queries.Raycast(Parse<sator::v1::RaycastRequest>(
        "scene_id: 'g' query { origin { x: 1 y: 5 } direction { y: -1 } "
        "max_distance: 10 } options { " +
        filter + " }"));
  };
  absl::StatusOr<sator::v1::QueryResult> hit = ray("");
  ASSERT_TRUE(hit.ok()) << hit.status();
  ASSERT_EQ(hit->hits_size(), 1);
  EXPECT_EQ(hit->hits(0).group_id(), 7u);
  EXPECT_EQ(hit->hits(0).part(), 3);
  absl::StatusOr<sator::v1::QueryResult> excluded =
      ray("filter { exclude_group_ids: [ 7 ] }");
  ASSERT_TRUE(excluded.ok()) << excluded.status();
  EXPECT_EQ(excluded->hits_size(), 0);
}

TEST_F(HitboxWireTest, BadGroupFieldsNameTheField) {
  absl::StatusOr<sator::v1::UpdatePosesResponse> unknown = UpdatePoses(
      registry_, options_, Parse<sator::v1::UpdatePosesRequest>(R"pb(
        scene_id: "g"
        tick: 1
        poses {
          group_ids: [ 8 ]
          group_positions: [ 0, 0, 0 ]
          group_rotations: [ 0, 0, 0, 1 ]
        }
      )pb"));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(unknown.status().message()),
              ::testing::StartsWith("poses.group_ids[0]"));
  absl::StatusOr<sator::v1::UpdatePosesResponse> short_batch = UpdatePoses(
      registry_, options_, Parse<sator::v1::UpdatePosesRequest>(R"pb(
        scene_id: "g"
        tick: 1
        poses {
          group_ids: [ 7 ]
          group_positions: [ 0, 0 ]
        }
      )pb"));
  EXPECT_EQ(short_batch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(short_batch.status().message()),
              ::testing::StartsWith("poses.group_positions"));
  absl::StatusOr<sator::v1::UpdatePosesResponse> stray = UpdatePoses(
      registry_, options_, Parse<sator::v1::UpdatePosesRequest>(R"pb(
        scene_id: "g"
        tick: 1
        poses { teleported_body_ids: [ 1 ] }
      )pb"));
  EXPECT_EQ(stray.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(stray.status().message()),
              ::testing::StartsWith("poses.teleported_body_ids[0]"));
  absl::StatusOr<sator::v1::UpsertBodiesResponse> bad_part = UpsertBodies(
      registry_, options_, Parse<sator::v1::UpsertBodiesRequest>(R"pb(
        scene_id: "g"
        bodies {
          body_id: 2
          motion_type: MOTION_TYPE_STATIC
          shape { sphere { radius: 0.25 } }
          group_id: 7
        }
      )pb"));
  EXPECT_EQ(bad_part.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_part.status().message()),
              ::testing::HasSubstr("bodies[0].group_id"));
}

}  // namespace
}  // namespace sator::server

namespace sator::server {
namespace {

TEST(SceneSettingsWireTest, TickRateAndHitPolicyReachTheSceneAndComeBack) {
  SceneRegistry registry(SceneLimits{});
  SceneOpsOptions options;
  absl::StatusOr<sator::v1::SceneInfo> info = CreateScene(
      registry, options, Parse<sator::v1::CreateSceneRequest>(R"pb(
        scene_id: "shots"
        settings {
          dimension: DIMENSION_3D
          tick_rate: 128
          hit_policy { max_rewind_ms: 100 on_too_old: REWIND_LIMIT_REJECT }
        }
      )pb"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->settings().tick_rate(), 128.0f);
  EXPECT_EQ(info->settings().hit_policy().on_too_old(),
            sator::v1::REWIND_LIMIT_REJECT);
  EXPECT_EQ(info->settings().hit_policy().max_origin_distance(), 2.0f);
  const scene::SceneSnapshot<3> snapshot =
      registry.Find("shots").value()->scene3()->Snapshot();
  EXPECT_EQ(snapshot.tick_rate(), 128.0);
  EXPECT_EQ(snapshot.hit_policy().max_rewind_ms, 100.0f);
  EXPECT_EQ(snapshot.hit_policy().on_too_old, scene::RewindLimit::kReject);
  // Unset: 60 ticks a second, the default policy, nothing echoed.
  absl::StatusOr<sator::v1::SceneInfo> plain =
      CreateScene(registry, options,
                  Parse<sator::v1::CreateSceneRequest>(
                      R"pb(scene_id: "plain"
                           settings { dimension: DIMENSION_3D })pb"));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->settings().has_hit_policy());
  EXPECT_EQ(registry.Find("plain").value()->scene3()->Snapshot().tick_rate(),
            60.0);
  for (const auto& [text, field] :
       std::vector<std::pair<std::string, std::string>>{
           {"tick_rate: -1", "settings.tick_rate"},
           {"tick_rate: nan", "settings.tick_rate"},
           {"hit_policy { max_rewind_ms: -5 }",
            "settings.hit_policy.max_rewind_ms"},
           {"hit_policy { max_origin_distance: nan }",
            "settings.hit_policy.max_origin_distance"}}) {
    absl::StatusOr<sator::v1::SceneInfo> bad =
        CreateScene(registry, options,
                    Parse<sator::v1::CreateSceneRequest>(absl::StrCat(
                        "scene_id: 'bad' settings { dimension: DIMENSION_3D ",
                        text, " }")));
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(std::string(bad.status().message()),
                ::testing::StartsWith(field))
        << bad.status();
  }
}

}  // namespace
}  // namespace sator::server
