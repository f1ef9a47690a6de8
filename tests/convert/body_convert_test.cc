// Body, pose batch and snapshot conversion: defaults the API documents
// (layer and mask, motion type, body id), the packed pose layout, and
// errors naming the field path.
#include "proto/convert/body_convert.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/scene_convert.h"
#include "support/text_proto.h"

namespace sator::convert {
namespace {

using ::testing::HasSubstr;

template <typename Message>
Message Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<Message>(text);
}

void ExpectError(const absl::Status& status, absl::StatusCode code,
                 const std::string& message) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_EQ(std::string(status.message()), message);
}

TEST(BodyConvert, UnsetLayerAndMaskMeanAllBitsAndExplicitZeroStaysZero) {
  const auto unset = Parse<sator::v1::Body>(R"pb(
    body_id: 7
    motion_type: MOTION_TYPE_DYNAMIC
    shape { circle { radius: 1 } }
    user_data: 99
  )pb");
  absl::StatusOr<scene::BodyDesc<2>> desc = ToBodyDesc<2>(unset, {});
  ASSERT_TRUE(desc.ok()) << desc.status();
  EXPECT_EQ(desc->id, 7u);
  EXPECT_EQ(desc->layer, ~std::uint64_t{0});
  EXPECT_EQ(desc->mask, ~std::uint64_t{0});
  EXPECT_EQ(desc->user_data, 99u);
  EXPECT_EQ(desc->motion, scene::MotionType::kDynamic);

  const auto zero = Parse<sator::v1::Body>(R"pb(
    body_id: 7
    motion_type: MOTION_TYPE_STATIC
    shape { circle { radius: 1 } }
    layer: 0
    mask: 0
  )pb");
  desc = ToBodyDesc<2>(zero, {});
  ASSERT_TRUE(desc.ok()) << desc.status();
  EXPECT_EQ(desc->layer, 0u);
  EXPECT_EQ(desc->mask, 0u);
  EXPECT_EQ(desc->motion, scene::MotionType::kStatic);
}

TEST(BodyConvert, RefusesUnspecifiedMotionZeroIdMissingShapeAndDynamicMesh) {
  ExpectError(ToBodyDesc<2>(Parse<sator::v1::Body>(
                                "body_id: 1 shape { circle { radius: 1 } }"),
                            {})
                  .status(),
              absl::StatusCode::kInvalidArgument,
              "motion_type: must be MOTION_TYPE_STATIC or MOTION_TYPE_DYNAMIC");
  ExpectError(
      ToBodyDesc<2>(Parse<sator::v1::Body>("motion_type: MOTION_TYPE_DYNAMIC "
                                           "shape { circle { radius: 1 } }"),
                    {})
          .status(),
      absl::StatusCode::kInvalidArgument,
      "body_id: must be set (0 is not a body id)");
  ExpectError(ToBodyDesc<3>(Parse<sator::v1::Body>(
                                "body_id: 1 motion_type: MOTION_TYPE_DYNAMIC"),
                            {})
                  .status(),
              absl::StatusCode::kInvalidArgument, "shape: must be set");
  const auto mesh = Parse<sator::v1::Body>(R"pb(
    body_id: 1
    motion_type: MOTION_TYPE_DYNAMIC
    shape {
      mesh {
        vertices { x: 0 y: 0 z: 0 }
        vertices { x: 1 y: 0 z: 0 }
        vertices { x: 0 y: 1 z: 0 }
        indices: [ 0, 1, 2 ]
      }
    }
  )pb");
  ExpectError(ToBodyDesc<3>(mesh, {}).status(),
              absl::StatusCode::kInvalidArgument,
              "shape.mesh: a mesh may only be the shape of a static body");
  sator::v1::Body static_mesh = mesh;
  static_mesh.set_motion_type(sator::v1::MOTION_TYPE_STATIC);
  EXPECT_TRUE(ToBodyDesc<3>(static_mesh, {}).ok());
}

TEST(BodyConvert, BatchErrorsNameTheBodyIndexAndTheFullPath) {
  const auto request = Parse<sator::v1::UpsertBodiesRequest>(R"pb(
    bodies {
      body_id: 1
      motion_type: MOTION_TYPE_STATIC
      shape { circle { radius: 1 } }
    }
    bodies {
      body_id: 2
      motion_type: MOTION_TYPE_STATIC
      shape {
        polygon {
          vertices { x: 0 y: 0 }
          vertices { x: 1 y: 0 }
          vertices { x: nan y: 1 }
        }
      }
    }
  )pb");
  ExpectError(ToBodyDescs<2>(request.bodies(), {}).status(),
              absl::StatusCode::kInvalidArgument,
              "bodies[1].shape.polygon.vertices[2].x: not finite");
  const auto wrong_dimension = Parse<sator::v1::UpsertBodiesRequest>(R"pb(
    bodies {
      body_id: 1
      motion_type: MOTION_TYPE_STATIC
      shape { sphere { radius: 1 } }
    }
  )pb");
  absl::Status status = ToBodyDescs<2>(wrong_dimension.bodies(), {}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("bodies[0].shape.sphere: "));
}

TEST(BodyConvert, BodyRoundTripsThroughTheMessage) {
  const auto message = Parse<sator::v1::Body>(R"pb(
    body_id: 12
    motion_type: MOTION_TYPE_DYNAMIC
    layer: 4
    mask: 6
    user_data: 77
    shape { box3d { half_extents { x: 1 y: 2 z: 3 } } }
    pose {
      position { x: 1 y: -2 z: 3 }
      orientation { x: 0 y: 0 z: 0.6 w: 0.8 }
    }
  )pb");
  absl::StatusOr<scene::BodyDesc<3>> desc = ToBodyDesc<3>(message, {});
  ASSERT_TRUE(desc.ok()) << desc.status();
  sator::v1::Body back;
  FromBodyDesc<3>(*desc, &back);
  EXPECT_EQ(back.body_id(), 12u);
  EXPECT_EQ(back.layer(), 4u);
  EXPECT_EQ(back.mask(), 6u);
  EXPECT_EQ(back.user_data(), 77u);
  EXPECT_EQ(back.motion_type(), sator::v1::MOTION_TYPE_DYNAMIC);
  EXPECT_EQ(back.shape().box3d().half_extents().z(), 3.0f);
  EXPECT_EQ(back.pose().position().y(), -2.0f);
  EXPECT_NEAR(back.pose().orientation().z(), 0.6f, 1e-6f);
  EXPECT_NEAR(back.pose().orientation().w(), 0.8f, 1e-6f);
}

TEST(PoseBatchConvert, UnpacksTwoDimensionalPoses) {
  const auto batch = Parse<sator::v1::PoseBatch>(R"pb(
    body_ids: [ 5, 9 ]
    positions: [ 1, 2, -3, 4 ]
    rotations: [ 0, 1.5 ]
  )pb");
  absl::StatusOr<std::vector<scene::PoseUpdate<2>>> updates =
      ToPoseUpdates<2>(batch);
  ASSERT_TRUE(updates.ok()) << updates.status();
  ASSERT_EQ(updates->size(), 2u);
  EXPECT_EQ((*updates)[1].id, 9u);
  EXPECT_EQ((*updates)[1].pose.position.x, -3.0f);
  EXPECT_EQ((*updates)[1].pose.position.y, 4.0f);
  EXPECT_NEAR((*updates)[1].pose.rotation.Angle(), 1.5f, 1e-6f);
  sator::v1::PoseBatch back;
  FromPoseUpdates<2>(*updates, &back);
  EXPECT_EQ(back.positions_size(), 4);
  EXPECT_NEAR(back.rotations(1), 1.5f, 1e-6f);
}

TEST(PoseBatchConvert, NormalisesNearUnitQuaternionsAndRefusesOthers) {
  auto batch = Parse<sator::v1::PoseBatch>(R"pb(
    body_ids: [ 5 ]
    positions: [ 1, 2, 3 ]
    rotations: [ 0, 0, 0, 1.0004 ]
  )pb");
  absl::StatusOr<std::vector<scene::PoseUpdate<3>>> updates =
      ToPoseUpdates<3>(batch);
  ASSERT_TRUE(updates.ok()) << updates.status();
  EXPECT_EQ((*updates)[0].pose.rotation.w, 1.0f);
  EXPECT_EQ((*updates)[0].pose.position.z, 3.0f);

  batch.set_rotations(3, 1.1f);
  absl::Status status = ToPoseUpdates<3>(batch).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("rotations[0..3]: "));
}

TEST(PoseBatchConvert, SizesAndNumbersAreChecked) {
  ExpectError(ToPoseUpdates<3>(Parse<sator::v1::PoseBatch>(
                                   "body_ids: [1, 2] positions: [1, 2, 3] "
                                   "rotations: [0, 0, 0, 1, 0, 0, 0, 1]"))
                  .status(),
              absl::StatusCode::kInvalidArgument,
              "positions: has 3 floats; 2 body ids need 6 (3 per body)");
  ExpectError(ToPoseUpdates<2>(Parse<sator::v1::PoseBatch>(
                                   "body_ids: [1] positions: [1, 2]"))
                  .status(),
              absl::StatusCode::kInvalidArgument,
              "rotations: has 0 floats; 1 body ids need 1 (1 per body)");
  ExpectError(ToPoseUpdates<2>(Parse<sator::v1::PoseBatch>(
                                   "body_ids: [1, 2] positions: [1, 2, 3, inf] "
                                   "rotations: [0, 0]"))
                  .status(),
              absl::StatusCode::kInvalidArgument, "positions[3]: not finite");
  ExpectError(ToPoseUpdates<2>(Parse<sator::v1::PoseBatch>(
                                   "body_ids: [1, 2] positions: [1, 2, 3, 4] "
                                   "rotations: [0, nan]"))
                  .status(),
              absl::StatusCode::kInvalidArgument, "rotations[1]: not finite");
  absl::Status far = ToPoseUpdates<2>(Parse<sator::v1::PoseBatch>(
                                          "body_ids: [1] positions: [2e6, 0] "
                                          "rotations: [0]"))
                         .status();
  EXPECT_EQ(far.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(far.message()),
              HasSubstr("positions[0]: out of range"));
}

TEST(SceneConvert, SnapshotChecksTickAndRepeatedIds) {
  auto snapshot = Parse<sator::v1::SceneSnapshot>(R"pb(
    current_tick: 5
    bodies {
      body_id: 3
      motion_type: MOTION_TYPE_STATIC
      shape { circle { radius: 1 } }
    }
    bodies {
      body_id: 4
      motion_type: MOTION_TYPE_DYNAMIC
      shape { circle { radius: 1 } }
    }
  )pb");
  absl::StatusOr<SceneContent<2>> content = ToSceneContent<2>(snapshot, {});
  ASSERT_TRUE(content.ok()) << content.status();
  EXPECT_EQ(content->tick, 5);
  ASSERT_EQ(content->bodies.size(), 2u);

  sator::v1::SceneSnapshot back;
  FromSceneContent<2>(content->tick, content->bodies, &back);
  EXPECT_EQ(back.current_tick(), 5);
  ASSERT_EQ(back.bodies_size(), 2);
  EXPECT_EQ(back.bodies(1).body_id(), 4u);

  snapshot.mutable_bodies(1)->set_body_id(3);
  ExpectError(ToSceneContent<2>(snapshot, {}).status(),
              absl::StatusCode::kInvalidArgument,
              "bodies[1].body_id: body 3 is also bodies[0]");
  snapshot.set_current_tick(-1);
  EXPECT_THAT(std::string(ToSceneContent<2>(snapshot, {}).status().message()),
              HasSubstr("current_tick: must be in [0, "));
  EXPECT_TRUE(CheckTick("tick", kMaxTick).ok());
  EXPECT_FALSE(CheckTick("tick", kMaxTick + 1).ok());
}

}  // namespace
}  // namespace sator::convert
