// Pair queries through the real satord and the client library give the
// answers of the in-process core on seeded random shapes, and bad input comes
// back as INVALID_ARGUMENT naming the field.
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/core/collide2d/queries2d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "support/satord_process.h"

namespace sator {
namespace {

using ::sator::testing::SatordProcess;
using ::testing::HasSubstr;

constexpr int kPairsPerDimension = 400;
// Both sides run the same core code on the same inputs; the only
// differences come from the wire (a 2D rotation travels as an angle and a
// hull as its vertices), so answers agree to round-off.
constexpr float kTolerance = 2e-4f;

class PairQueryEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(satord_.Start({}).ok()) << satord_.ReadLog();
    absl::StatusOr<Client> client =
        Client::Make({.target = satord_.grpc_target()});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  SatordProcess satord_;
  std::optional<Client> client_;
};

template <typename V>
void ExpectNear(V a, V b, const char* what, int index) {
  for (int i = 0; i < V::kDim; ++i) {
    EXPECT_NEAR(a[i], b[i], kTolerance)
        << what << " component " << i << " pair " << index;
  }
}

// An outcome that round-off on the wire cannot flip: a hit well inside (0, 1)
// or a start clearly inside. Grazing misses and hits at the ends are left out.
template <int D>
bool DecisiveSweep(const SweepResult<D>& sweep) {
  switch (sweep.outcome) {
    case SweepOutcome::kHit:
      return sweep.fraction > 1e-3f && sweep.fraction < 1.0f - 1e-3f;
    case SweepOutcome::kStartedOverlapping:
      return sweep.initial.depth > 1e-3f;
    case SweepOutcome::kMiss:
      return false;
  }
  return false;
}

Shape2 RandomShape2(std::mt19937& rng) {
  std::uniform_real_distribution<float> size(0.2f, 2.0f);
  switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
    case 0:
      return Circle{size(rng)};
    case 1:
      return Box2{{size(rng), size(rng)}};
    case 2:
      return Capsule2{{-size(rng), 0.0f}, {size(rng), 0.0f}, size(rng) * 0.5f};
    default: {
      // A regular n-gon, scaled differently along x and y.
      const int n = std::uniform_int_distribution<int>(3, 8)(rng);
      const float sx = size(rng);
      const float sy = size(rng);
      std::vector<Vec2> points;
      for (int i = 0; i < n; ++i) {
        const float angle =
            2.0f * 3.14159265f * static_cast<float>(i) / static_cast<float>(n);
        points.push_back({sx * std::cos(angle), sy * std::sin(angle)});
      }
      return *MakeConvexPolygon(points);
    }
  }
}

Pose2 RandomPose2(std::mt19937& rng) {
  std::uniform_real_distribution<float> coordinate(-2.0f, 2.0f);
  std::uniform_real_distribution<float> angle(-3.0f, 3.0f);
  // The angle the client sends is Rot2::Angle(); rebuild the pose from it so
  // the in-process answer sees exactly what the server sees.
  const Pose2 pose =
      Pose2::FromAngle({coordinate(rng), coordinate(rng)}, angle(rng));
  return Pose2::FromAngle(pose.position, pose.rotation.Angle());
}

TEST_F(PairQueryEndToEnd, TwoDimensionalAnswersMatchTheCore) {
  std::mt19937 rng(20261123);
  std::uniform_real_distribution<float> motion(-3.0f, 3.0f);
  for (int i = 0; i < kPairsPerDimension; ++i) {
    const Shape2 a = RandomShape2(rng);
    const Shape2 b = RandomShape2(rng);
    const Pose2 pose_a = RandomPose2(rng);
    const Pose2 pose_b = RandomPose2(rng);

    const ContactResult<2> expected = Contact(a, pose_a, b, pose_b);
    absl::StatusOr<ContactResult<2>> contact =
        client_->Contact(a, pose_a, b, pose_b);
    ASSERT_TRUE(contact.ok()) << contact.status();
    if (std::fabs(expected.depth) > 1e-3f) {
      EXPECT_EQ(contact->overlapping, expected.overlapping) << i;
      ExpectNear(contact->normal, expected.normal, "normal", i);
      absl::StatusOr<bool> overlapping = client_->Overlap(a, pose_a, b, pose_b);
      ASSERT_TRUE(overlapping.ok());
      EXPECT_EQ(*overlapping, Overlap(a, pose_a, b, pose_b)) << i;
    }
    EXPECT_NEAR(contact->depth, expected.depth, kTolerance) << i;

    const Vec2 da{motion(rng), motion(rng)};
    const Vec2 db{motion(rng), motion(rng)};
    const SweepResult<2> expected_sweep = Sweep(a, pose_a, da, b, pose_b, db);
    absl::StatusOr<SweepResult<2>> sweep =
        client_->Sweep(a, pose_a, da, b, pose_b, db);
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    if (DecisiveSweep(expected_sweep)) {
      EXPECT_EQ(sweep->outcome, expected_sweep.outcome) << i;
    }
    if (expected_sweep.outcome == SweepOutcome::kHit &&
        sweep->outcome == SweepOutcome::kHit) {
      EXPECT_NEAR(sweep->fraction, expected_sweep.fraction, kTolerance) << i;
    }

    const Ray<2> ray{{motion(rng), motion(rng)}, NormalizeOrZero(da), 10.0f};
    if (LengthSquared(ray.direction) < 0.5f) continue;
    const RayResult<2> expected_ray = RayCast(a, pose_a, ray);
    absl::StatusOr<RayResult<2>> hit = client_->Raycast(a, pose_a, ray);
    ASSERT_TRUE(hit.ok()) << hit.status();
    EXPECT_EQ(hit->hit, expected_ray.hit) << i;
    EXPECT_EQ(hit->started_inside, expected_ray.started_inside) << i;
    if (expected_ray.hit) {
      EXPECT_NEAR(hit->distance, expected_ray.distance, kTolerance) << i;
      ExpectNear(hit->point, expected_ray.point, "ray point", i);
    }
  }
}

Shape3 RandomShape3(std::mt19937& rng) {
  std::uniform_real_distribution<float> size(0.2f, 2.0f);
  switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
    case 0:
      return Sphere{size(rng)};
    case 1:
      return Box3{{size(rng), size(rng), size(rng)}};
    case 2:
      return Capsule3{
          {0.0f, -size(rng), 0.0f}, {0.0f, size(rng), 0.0f}, size(rng) * 0.5f};
    default: {
      std::uniform_real_distribution<float> coordinate(-1.5f, 1.5f);
      std::vector<Vec3> points;
      for (int i = 0; i < 16; ++i) {
        points.push_back({coordinate(rng), coordinate(rng), coordinate(rng)});
      }
      return *MakeConvexHull(points);
    }
  }
}

Pose3 RandomPose3(std::mt19937& rng) {
  std::uniform_real_distribution<float> coordinate(-2.0f, 2.0f);
  const Quat rotation = Quat::FromAxisAngle(
      {coordinate(rng), coordinate(rng), coordinate(rng)}, coordinate(rng));
  // The server normalises every quaternion it receives; so does this side.
  return {{coordinate(rng), coordinate(rng), coordinate(rng)},
          *NormalizeRotation(rotation)};
}

TEST_F(PairQueryEndToEnd, ThreeDimensionalAnswersMatchTheCore) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> motion(-3.0f, 3.0f);
  for (int i = 0; i < kPairsPerDimension; ++i) {
    const Shape3 a = RandomShape3(rng);
    const Shape3 b = RandomShape3(rng);
    const Pose3 pose_a = RandomPose3(rng);
    const Pose3 pose_b = RandomPose3(rng);

    absl::StatusOr<ContactResult<3>> expected = Contact(a, pose_a, b, pose_b);
    ASSERT_TRUE(expected.ok());
    absl::StatusOr<ContactResult<3>> contact =
        client_->Contact(a, pose_a, b, pose_b);
    ASSERT_TRUE(contact.ok()) << contact.status();
    EXPECT_NEAR(contact->depth, expected->depth, kTolerance) << i;
    if (std::fabs(expected->depth) > 1e-3f) {
      EXPECT_EQ(contact->overlapping, expected->overlapping) << i;
      absl::StatusOr<bool> overlapping = client_->Overlap(a, pose_a, b, pose_b);
      ASSERT_TRUE(overlapping.ok());
      EXPECT_EQ(*overlapping, *Overlap(a, pose_a, b, pose_b)) << i;
    }

    const Vec3 da{motion(rng), motion(rng), motion(rng)};
    const Vec3 db{motion(rng), motion(rng), motion(rng)};
    absl::StatusOr<SweepResult<3>> expected_sweep =
        Sweep(a, pose_a, da, b, pose_b, db);
    ASSERT_TRUE(expected_sweep.ok());
    absl::StatusOr<SweepResult<3>> sweep =
        client_->Sweep(a, pose_a, da, b, pose_b, db);
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    if (DecisiveSweep(*expected_sweep)) {
      EXPECT_EQ(sweep->outcome, expected_sweep->outcome) << i;
    }
    if (expected_sweep->outcome == SweepOutcome::kHit &&
        sweep->outcome == SweepOutcome::kHit) {
      EXPECT_NEAR(sweep->fraction, expected_sweep->fraction, kTolerance) << i;
    }

    const Ray<3> ray{
        {motion(rng), motion(rng), motion(rng)}, NormalizeOrZero(da), 10.0f};
    if (LengthSquared(ray.direction) < 0.5f) continue;
    absl::StatusOr<RayResult<3>> expected_ray = RayCast(a, pose_a, ray);
    ASSERT_TRUE(expected_ray.ok());
    absl::StatusOr<RayResult<3>> hit = client_->Raycast(a, pose_a, ray);
    ASSERT_TRUE(hit.ok()) << hit.status();
    EXPECT_EQ(hit->hit, expected_ray->hit) << i;
    if (expected_ray->hit && hit->hit) {
      EXPECT_NEAR(hit->distance, expected_ray->distance, kTolerance) << i;
    }
  }
}

TEST_F(PairQueryEndToEnd, BadInputIsInvalidArgumentNamingTheField) {
  absl::StatusOr<ContactResult<2>> contact =
      client_->Contact(Circle{std::nanf("")}, Pose2{}, Circle{1.0f}, Pose2{});
  EXPECT_EQ(contact.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(contact.status().message()),
              HasSubstr("shape_a.circle.radius: not finite"));

  absl::StatusOr<RayResult<3>> hit =
      client_->Raycast(Shape3(Sphere{1.0f}), Pose3{},
                       Ray<3>{{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 5.0f});
  EXPECT_EQ(hit.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(hit.status().message()),
              HasSubstr("raycast.direction"));

  // The server is still serving after refusing bad input.
  EXPECT_TRUE(client_->Ping("still here").ok());
}

}  // namespace
}  // namespace sator
