// RunPairQuery: validation with field paths, and answers checked against
// cases worked out by hand.
#include "proto/convert/pair_query.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/text_proto.h"

namespace sator::convert {
namespace {

using sator::v1::PairQueryRequest;
using sator::v1::PairQueryResponse;
using ::testing::StartsWith;

PairQueryRequest Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<PairQueryRequest>(text);
}

absl::StatusOr<PairQueryResponse> RunText(const std::string& text,
                                          const ShapeLimits& limits = {}) {
  PairQueryResponse response;
  absl::Status status = RunPairQuery(Parse(text), limits, &response);
  if (!status.ok()) return status;
  return response;
}

// Two unit squares (half extents 0.5) whose centres are 0.75 apart along x
// overlap by 0.25; the MTV points from A to B, +x.
TEST(PairQuery, BoxBoxContactIsTheHandComputedMtv) {
  absl::StatusOr<PairQueryResponse> response = RunText(R"pb(
    shape_a { box2d { half_extents { x: 0.5 y: 0.5 } } }
    shape_b { box2d { half_extents { x: 0.5 y: 0.5 } } }
    pose_b { position { x: 0.75 y: 0.1 } }
    contact {}
  )pb");
  ASSERT_TRUE(response.ok()) << response.status();
  const sator::v1::PairContactResult& contact = response->contact();
  EXPECT_TRUE(contact.overlapping());
  EXPECT_NEAR(contact.depth(), 0.25f, 1e-5f);
  EXPECT_NEAR(contact.normal().x(), 1.0f, 1e-5f);
  EXPECT_NEAR(contact.normal().y(), 0.0f, 1e-5f);
  EXPECT_EQ(contact.points_size(), 2);  // Edge on edge: two points.
  for (const sator::v1::Vector& point : contact.points()) {
    EXPECT_NEAR(point.x(), 0.375f, 1e-4f);  // Midway between the surfaces.
    EXPECT_EQ(point.z(), 0.0f);
  }
}

// The same boxes, 0.25 deep: a tolerance above the depth reports no
// overlap (and no points) but still the depth and normal; one below keeps
// the contact.
TEST(PairQuery, ContactMinDepthIsATolerance) {
  constexpr char kBoxes[] = R"pb(
    shape_a { box2d { half_extents { x: 0.5 y: 0.5 } } }
    shape_b { box2d { half_extents { x: 0.5 y: 0.5 } } }
    pose_b { position { x: 0.75 y: 0.1 } }
  )pb";
  absl::StatusOr<PairQueryResponse> above =
      RunText(std::string(kBoxes) + "contact { min_depth: 0.3 }");
  ASSERT_TRUE(above.ok()) << above.status();
  EXPECT_FALSE(above->contact().overlapping());
  EXPECT_EQ(above->contact().points_size(), 0);
  EXPECT_NEAR(above->contact().depth(), 0.25f, 1e-5f);
  EXPECT_NEAR(above->contact().normal().x(), 1.0f, 1e-5f);
  absl::StatusOr<PairQueryResponse> below =
      RunText(std::string(kBoxes) + "contact { min_depth: 0.2 }");
  ASSERT_TRUE(below.ok()) << below.status();
  EXPECT_TRUE(below->contact().overlapping());
  EXPECT_EQ(below->contact().points_size(), 2);
  absl::StatusOr<PairQueryResponse> negative =
      RunText(std::string(kBoxes) + "contact { min_depth: -1 }");
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(negative.status().message(),
            "contact.min_depth: must be >= 0, got -1");
}

TEST(PairQuery, SeparatedCirclesDoNotOverlap) {
  absl::StatusOr<PairQueryResponse> response = RunText(R"pb(
    shape_a { circle { radius: 1 } }
    shape_b { circle { radius: 1 } }
    pose_b { position { x: 2.5 } }
    overlap {}
  )pb");
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_FALSE(response->overlap().overlapping());
}

// Spheres of radius 1, B starting 5 away along x and moving -4: the gap of 3
// closes at t = 3/4, where the contact point is at x = 1.
TEST(PairQuery, SphereSweepHitsAtTheHandComputedTime) {
  absl::StatusOr<PairQueryResponse> response = RunText(R"pb(
    shape_a { sphere { radius: 1 } }
    shape_b { sphere { radius: 1 } }
    pose_b { position { x: 5 } }
    sweep { displacement_b { x: -4 } }
  )pb");
  ASSERT_TRUE(response.ok()) << response.status();
  const sator::v1::PairSweepResult& sweep = response->sweep();
  EXPECT_EQ(sweep.outcome(), sator::v1::SWEEP_OUTCOME_HIT);
  EXPECT_NEAR(sweep.fraction(), 0.75f, 1e-4f);
  EXPECT_NEAR(sweep.normal().x(), 1.0f, 1e-4f);
  EXPECT_NEAR(sweep.point().x(), 1.0f, 1e-3f);
}

TEST(PairQuery, SweepStartingInsideSaysSoWithTheMtv) {
  absl::StatusOr<PairQueryResponse> response = RunText(R"pb(
    shape_a { sphere { radius: 1 } }
    shape_b { sphere { radius: 1 } }
    pose_b { position { x: 1.5 } }
    sweep { displacement_b { x: 3 } }
  )pb");
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->sweep().outcome(),
            sator::v1::SWEEP_OUTCOME_STARTED_OVERLAPPING);
  EXPECT_NEAR(response->sweep().initial().depth(), 0.5f, 1e-4f);
}

// A ray from (-5, 0, 0) along +x (direction not unit: the server normalises)
// meets a unit cube rotated 90 degrees about z at x = -0.5.
TEST(PairQuery, RaycastAgainstAnOrientedBox) {
  absl::StatusOr<PairQueryResponse> response = RunText(R"pb(
    shape_a { box3d { half_extents { x: 0.5 y: 0.5 z: 0.5 } } }
    pose_a { orientation { z: 0.70710678 w: 0.70710678 } }
    raycast {
      origin { x: -5 }
      direction { x: 2 }
      max_distance: 100
    }
  )pb");
  ASSERT_TRUE(response.ok()) << response.status();
  const sator::v1::PairRayResult& ray = response->raycast();
  EXPECT_TRUE(ray.hit());
  EXPECT_FALSE(ray.started_inside());
  EXPECT_NEAR(ray.distance(), 4.5f, 1e-4f);
  EXPECT_NEAR(ray.point().x(), -0.5f, 1e-4f);
  EXPECT_NEAR(ray.normal().x(), -1.0f, 1e-4f);
}

// A tiny but representable direction is normalised exactly in any case the
// server accepts: just above the scene's 1e-12 floor, the answer is the
// hand-computed 4 (the circle's edge at x = -1).
TEST(PairQuery, RaycastWithATinyDirectionIsExact) {
  absl::StatusOr<PairQueryResponse> response = RunText(R"pb(
    shape_a { circle { radius: 1 } }
    raycast {
      origin { x: -5 }
      direction { x: 2e-12 }
      max_distance: 100
    }
  )pb");
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_TRUE(response->raycast().hit());
  EXPECT_NEAR(response->raycast().distance(), 4.0f, 1e-5f);
}

struct BadRequest {
  std::string name;
  std::string request;
  absl::StatusCode code;
  std::string message;
};

class PairQueryBadInput : public ::testing::TestWithParam<BadRequest> {};

TEST_P(PairQueryBadInput, IsRefusedWithTheFieldPath) {
  ShapeLimits limits;
  limits.max_hull_points = 8;
  absl::StatusOr<PairQueryResponse> response =
      RunText(GetParam().request, limits);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), GetParam().code) << response.status();
  EXPECT_THAT(std::string(response.status().message()),
              StartsWith(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Table, PairQueryBadInput,
    ::testing::Values(
        BadRequest{"NoShapeA", "overlap {}", absl::StatusCode::kInvalidArgument,
                   "shape_a.kind: no shape kind is set"},
        BadRequest{"NoKind",
                   "shape_a { circle { radius: 1 } } "
                   "shape_b { circle { radius: 1 } }",
                   absl::StatusCode::kInvalidArgument,
                   "kind: no query kind is set"},
        BadRequest{"NanRadius",
                   "shape_a { circle { radius: nan } } "
                   "shape_b { circle { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "shape_a.circle.radius: not finite"},
        BadRequest{"MixedDimensions",
                   "shape_a { circle { radius: 1 } } "
                   "shape_b { sphere { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "shape_b: a 3D shape against a 2D shape_a"},
        BadRequest{"NegativeRadius",
                   "shape_a { circle { radius: -1 } } "
                   "shape_b { circle { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "shape_a.circle.radius: must be positive, got -1"},
        BadRequest{"ZeroSphereRadius",
                   "shape_a { sphere { radius: 1 } } "
                   "shape_b { sphere { radius: 0 } } contact {}",
                   absl::StatusCode::kInvalidArgument,
                   "shape_b.sphere.radius: must be positive, got 0"},
        BadRequest{"ZeroHalfExtent",
                   "shape_a { box2d { half_extents { x: 1 y: 0 } } } "
                   "shape_b { circle { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "shape_a.box2d.half_extents.y: must be positive"},
        BadRequest{"InfiniteVertex",
                   "shape_a { polygon { vertices { x: 0 y: 0 } "
                   "vertices { x: 1 y: 0 } vertices { x: inf y: 1 } } } "
                   "shape_b { circle { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "shape_a.polygon.vertices[2].x: not finite"},
        BadRequest{"NonConvexPolygon",
                   "shape_a { polygon { vertices { x: 0 y: 0 } "
                   "vertices { x: 2 y: 0 } vertices { x: 1 y: 0.2 } "
                   "vertices { x: 2 y: 2 } vertices { x: 0 y: 2 } } } "
                   "shape_b { circle { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument, "shape_a.polygon: "},
        BadRequest{"TooFewPolygonVertices",
                   "shape_a { polygon { vertices { x: 0 y: 0 } "
                   "vertices { x: 1 y: 0 } } } "
                   "shape_b { circle { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "shape_a.polygon.vertices: needs 3 to 16 vertices, got 2"},
        BadRequest{"ZInTwoD",
                   "shape_a { circle { radius: 1 } } "
                   "shape_b { circle { radius: 1 } } "
                   "pose_b { position { z: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "pose_b.position.z: must be 0 in 2D"},
        BadRequest{"QuaternionInTwoD",
                   "shape_a { circle { radius: 1 } } "
                   "pose_a { orientation { w: 1 } } "
                   "shape_b { circle { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "pose_a.orientation: a 2D pose takes an angle"},
        BadRequest{"AngleInThreeD",
                   "shape_a { sphere { radius: 1 } } "
                   "shape_b { sphere { radius: 1 } } "
                   "pose_b { angle: 1 } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "pose_b.angle: a 3D pose takes an orientation quaternion"},
        BadRequest{"FarFromUnitQuaternion",
                   "shape_a { sphere { radius: 1 } } "
                   "pose_a { orientation { w: 2 } } "
                   "shape_b { sphere { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument, "pose_a.orientation: "},
        BadRequest{"NanQuaternion",
                   "shape_a { sphere { radius: 1 } } "
                   "shape_b { sphere { radius: 1 } } "
                   "pose_b { orientation { y: nan w: 1 } } contact {}",
                   absl::StatusCode::kInvalidArgument,
                   "pose_b.orientation.y: not finite"},
        BadRequest{"CoplanarHull",
                   "shape_a { hull { points { x: 0 } points { x: 1 } "
                   "points { y: 1 } points { x: 1 y: 1 } } } "
                   "shape_b { sphere { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument, "shape_a.hull: "},
        BadRequest{"TooManyHullPoints",
                   "shape_a { hull { points { x: 0 } points { x: 1 } "
                   "points { y: 1 } points { z: 1 } points { x: 2 } "
                   "points { x: 3 } points { x: 4 } points { x: 5 } "
                   "points { x: 6 } } } "
                   "shape_b { sphere { radius: 1 } } overlap {}",
                   absl::StatusCode::kResourceExhausted,
                   "shape_a.hull.points: at most 8 points, got 9"},
        BadRequest{"MeshIndexOutOfRange",
                   "shape_a { mesh { vertices { x: 0 } vertices { x: 1 } "
                   "vertices { y: 1 } indices: [0, 1, 7] } } "
                   "shape_b { sphere { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument, "shape_a.mesh: "},
        BadRequest{"MeshIndicesNotTriples",
                   "shape_a { mesh { vertices { x: 0 } vertices { x: 1 } "
                   "vertices { y: 1 } indices: [0, 1] } } "
                   "shape_b { sphere { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "shape_a.mesh.indices: count must be a multiple of 3"},
        BadRequest{"MeshAgainstMesh",
                   "shape_a { mesh { vertices { x: 0 } vertices { x: 1 } "
                   "vertices { y: 1 } indices: [0, 1, 2] } } "
                   "shape_b { mesh { vertices { x: 0 } vertices { x: 1 } "
                   "vertices { y: 1 } indices: [0, 1, 2] } } overlap {}",
                   absl::StatusCode::kInvalidArgument, "shape_b: "},
        BadRequest{"ZeroRayDirection",
                   "shape_a { circle { radius: 1 } } "
                   "raycast { origin { x: 5 } max_distance: 10 }",
                   absl::StatusCode::kInvalidArgument,
                   "raycast.direction: zero length"},
        // Non-zero, but its squared length is subnormal: normalising it
        // gives a direction 0.8 long and the answer 4.991 instead of 4.
        BadRequest{"SubnormalRayDirection",
                   "shape_a { circle { radius: 1 } } "
                   "raycast { origin { x: -5 } direction { x: 3e-23 } "
                   "max_distance: 100 }",
                   absl::StatusCode::kInvalidArgument,
                   "raycast.direction: length below 1e-12"},
        BadRequest{"TinyRayDirection3D",
                   "shape_a { sphere { radius: 1 } } "
                   "raycast { origin { x: -5 } "
                   "direction { x: 5e-13 y: 5e-13 z: 5e-13 } "
                   "max_distance: 100 }",
                   absl::StatusCode::kInvalidArgument,
                   "raycast.direction: length below 1e-12"},
        BadRequest{"NegativeRayLength",
                   "shape_a { circle { radius: 1 } } "
                   "raycast { direction { x: 1 } max_distance: -1 }",
                   absl::StatusCode::kInvalidArgument,
                   "raycast.max_distance: must be positive and at most 1e+07"},
        BadRequest{"HugeDisplacement",
                   "shape_a { circle { radius: 1 } } "
                   "shape_b { circle { radius: 1 } } "
                   "sweep { displacement_b { x: -1.8e24 } }",
                   absl::StatusCode::kInvalidArgument,
                   "sweep.displacement_b.x: out of range"},
        BadRequest{"FarPosition",
                   "shape_a { sphere { radius: 1 } } "
                   "pose_a { position { z: 2e6 } } "
                   "shape_b { sphere { radius: 1 } } overlap {}",
                   absl::StatusCode::kInvalidArgument,
                   "pose_a.position.z: out of range"},
        BadRequest{"InfiniteDisplacement",
                   "shape_a { circle { radius: 1 } } "
                   "shape_b { circle { radius: 1 } } "
                   "sweep { displacement_a { y: -inf } }",
                   absl::StatusCode::kInvalidArgument,
                   "sweep.displacement_a.y: not finite"}),
    [](const ::testing::TestParamInfo<BadRequest>& param_info) {
      return param_info.param.name;
    });

}  // namespace
}  // namespace sator::convert
