// Fuzzes request validation and conversion (proto/convert): bytes -> a
// request proto -> the validated core types, in 2D and in 3D.
//
// Input: one selector byte, then a serialized message:
//   0 UpsertBodiesRequest  -> ToBodyDescs
//   1 UpdatePosesRequest   -> ToPoseUpdates
//   2 SceneSnapshot        -> ToSceneContent
//   3 QueryBatchRequest    -> ToSceneQuery for each query
//   4 RaycastBatchRequest  -> PackedRays (each ray) and AppendRayHits
//   5 ValidateShotsRequest -> MergeHitPolicy, ToShots, ValidateShots and
//                             FromShotVerdict
// Whatever the bytes, conversion must not crash, and a refusal must carry a
// message. What conversion accepts must satisfy the core's invariants (every
// number finite and within kMaxRequestCoordinate, unit rotations, shapes that
// the core's own validators accept), the core must accept it in turn (a scene
// takes the bodies; a query the converter accepted is not INVALID_ARGUMENT
// for the scene), and where a reverse conversion exists the round trip
// From -> To -> From reproduces the same message.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/match.h"
#include "google/protobuf/util/field_comparator.h"
#include "google/protobuf/util/message_differencer.h"
#include "proto/convert/body_convert.h"
#include "proto/convert/query_convert.h"
#include "proto/convert/ray_batch_convert.h"
#include "proto/convert/scene_convert.h"
#include "proto/convert/shot_convert.h"
#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "sator/core/scene/scene.h"
#include "sator/core/scene/shot_validation.h"
#include "sator/v1/body_service.pb.h"
#include "sator/v1/query_service.pb.h"
#include "sator/v1/scene_service.pb.h"

namespace {

using sator::kMaxRayDistance;
using sator::kMaxRequestCoordinate;
using sator::kMaxTick;

// Aborts (a finding) naming the failed check and its line.
#define CHECK_PROPERTY(condition)                                           \
  do {                                                                      \
    if (!(condition)) {                                                     \
      std::fprintf(stderr, "request_convert_fuzzer:%d: check failed: %s\n", \
                   __LINE__, #condition);                                   \
      std::abort();                                                         \
    }                                                                       \
  } while (false)

// A refusal names its problem; RESOURCE_EXHAUSTED (a server limit) and
// INVALID_ARGUMENT are the only codes conversion may give.
void CheckRefusal(const absl::Status& status) {
  CHECK_PROPERTY(!status.ok());
  CHECK_PROPERTY(!status.message().empty());
  CHECK_PROPERTY(status.code() == absl::StatusCode::kInvalidArgument ||
                 status.code() == absl::StatusCode::kResourceExhausted);
}

bool InRange(float value) {
  return std::isfinite(value) && std::fabs(value) <= kMaxRequestCoordinate;
}

void CheckPose(const sator::Pose2& pose) {
  CHECK_PROPERTY(InRange(pose.position.x) && InRange(pose.position.y));
  CHECK_PROPERTY(sator::ValidatePose(pose).ok());
}

void CheckPose(const sator::Pose3& pose) {
  CHECK_PROPERTY(InRange(pose.position.x) && InRange(pose.position.y) &&
                 InRange(pose.position.z));
  const sator::Quat& q = pose.rotation;
  CHECK_PROPERTY(std::isfinite(q.x) && std::isfinite(q.y) &&
                 std::isfinite(q.z) && std::isfinite(q.w));
  // Converted rotations are normalised: within a few float ulps of 1.
  CHECK_PROPERTY(std::fabs(sator::Length(q) - 1.0f) <= 1e-5f);
}

void CheckShape(const sator::Shape2& shape) {
  CHECK_PROPERTY(sator::ValidateShape(shape).ok());
  if (const auto* polygon = std::get_if<sator::ConvexPolygon>(&shape)) {
    // Strictly convex and counter-clockwise: every vertex lies behind every
    // edge's outward normal, and the core rebuilds the same polygon.
    std::vector<sator::Vec2> vertices;
    for (int i = 0; i < polygon->count(); ++i) {
      vertices.push_back(polygon->vertex(i));
    }
    CHECK_PROPERTY(sator::MakeConvexPolygon(vertices).ok());
    for (int i = 0; i < polygon->count(); ++i) {
      const sator::Vec2 n = polygon->normal(i);
      CHECK_PROPERTY(std::fabs(sator::Dot(n, n) - 1.0f) <= 1e-4f);
      const float offset = sator::Dot(n, polygon->vertex(i));
      const float slack = 1e-4f * (polygon->extent() + 1.0f);
      for (const sator::Vec2& v : vertices) {
        CHECK_PROPERTY(sator::Dot(n, v) <= offset + slack);
      }
    }
  }
}

void CheckShape(const sator::Shape3& shape) {
  if (const auto convex = sator::AsConvex(shape)) {
    CHECK_PROPERTY(sator::ValidateShape(*convex).ok());
    return;
  }
  const auto& mesh =
      std::get<std::shared_ptr<const sator::TriangleMesh>>(shape);
  CHECK_PROPERTY(mesh != nullptr);
}

// Equal but for float rounding: a rotation renormalised again may move by
// an ulp (normalising is not idempotent in float).
bool SameUpToRounding(const google::protobuf::Message& a,
                      const google::protobuf::Message& b) {
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_float_comparison(
      google::protobuf::util::DefaultFieldComparator::APPROXIMATE);
  comparator.SetDefaultFractionAndMargin(1e-6, 1e-6);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  return differencer.Compare(a, b);
}

template <int D>
void CheckBody(const sator::scene::BodyDesc<D>& body) {
  CHECK_PROPERTY(body.id != 0);
  CHECK_PROPERTY(body.shape != nullptr);
  CheckShape(*body.shape);
  CheckPose(body.pose);
}

template <int D>
sator::v1::UpsertBodiesRequest BodiesMessage(
    const std::vector<sator::scene::BodyDesc<D>>& bodies) {
  sator::v1::UpsertBodiesRequest request;
  for (const auto& body : bodies) {
    sator::convert::FromBodyDesc<D>(body, request.add_bodies());
  }
  return request;
}

sator::convert::ShapeLimits SmallLimits() {
  // Small limits keep each input fast; the limits themselves are exercised.
  sator::convert::ShapeLimits limits;
  limits.max_hull_points = 128;
  limits.max_mesh_triangles = 512;
  limits.max_mesh_vertices = 1024;
  return limits;
}

template <int D>
void FuzzBodies(const sator::v1::UpsertBodiesRequest& request) {
  const auto limits = SmallLimits();
  auto bodies = sator::convert::ToBodyDescs<D>(request.bodies(), limits);
  if (!bodies.ok()) {
    CheckRefusal(bodies.status());
    return;
  }
  for (const auto& body : *bodies) CheckBody<D>(body);
  // Round trip: the message the server would echo converts back to the same
  // bodies.
  const sator::v1::UpsertBodiesRequest once = BodiesMessage<D>(*bodies);
  sator::v1::UpsertBodiesRequest echoed;
  CHECK_PROPERTY(echoed.ParseFromString(once.SerializeAsString()));
  auto again = sator::convert::ToBodyDescs<D>(echoed.bodies(), limits);
  CHECK_PROPERTY(again.ok());
  CHECK_PROPERTY(SameUpToRounding(BodiesMessage<D>(*again), once));
  // A scene takes what conversion accepted (ids may repeat in a batch: the
  // scene refuses that itself, so only batches of distinct ids are checked).
  auto scene = sator::scene::Scene<D>::Create();
  CHECK_PROPERTY(scene.ok());
  const absl::Status upserted = (*scene)->UpsertBodies(*bodies);
  if (!upserted.ok()) {
    CHECK_PROPERTY(upserted.code() == absl::StatusCode::kInvalidArgument);
    CHECK_PROPERTY(absl::StrContains(upserted.message(), "is also bodies["));
  }
}

template <int D>
void FuzzPoses(const sator::v1::UpdatePosesRequest& request) {
  auto updates = sator::convert::ToPoseUpdates<D>(request.poses());
  if (!updates.ok()) {
    CheckRefusal(updates.status());
    return;
  }
  for (const auto& update : *updates) CheckPose(update.pose);
  sator::v1::PoseBatch once;
  sator::convert::FromPoseUpdates<D>(*updates, &once);
  auto again = sator::convert::ToPoseUpdates<D>(once);
  CHECK_PROPERTY(again.ok());
  sator::v1::PoseBatch twice;
  sator::convert::FromPoseUpdates<D>(*again, &twice);
  CHECK_PROPERTY(SameUpToRounding(once, twice));
}

template <int D>
void FuzzSnapshot(const sator::v1::SceneSnapshot& snapshot) {
  const auto limits = SmallLimits();
  auto content = sator::convert::ToSceneContent<D>(snapshot, limits);
  if (!content.ok()) {
    CheckRefusal(content.status());
    return;
  }
  CHECK_PROPERTY(content->tick >= 0 && content->tick <= kMaxTick);
  for (const auto& body : content->bodies) CheckBody<D>(body);
  sator::v1::SceneSnapshot once;
  sator::convert::FromSceneContent<D>(content->tick, content->bodies, &once);
  auto again = sator::convert::ToSceneContent<D>(once, limits);
  CHECK_PROPERTY(again.ok());
  sator::v1::SceneSnapshot twice;
  sator::convert::FromSceneContent<D>(again->tick, again->bodies, &twice);
  CHECK_PROPERTY(SameUpToRounding(once, twice));
  // Ids are unique in an accepted snapshot, so a scene takes every body.
  auto scene = sator::scene::Scene<D>::Create();
  CHECK_PROPERTY(scene.ok());
  CHECK_PROPERTY((*scene)->UpsertBodies(content->bodies).ok());
}

// A small fixed scene for the queries to run against.
template <int D>
std::unique_ptr<sator::scene::Scene<D>> MakeQueryScene() {
  auto scene = sator::scene::Scene<D>::Create();
  CHECK_PROPERTY(scene.ok());
  std::vector<sator::scene::BodyDesc<D>> bodies(2);
  for (int i = 0; i < 2; ++i) {
    bodies[i].id = static_cast<std::uint64_t>(i + 1);
    if constexpr (D == 2) {
      bodies[i].shape =
          std::make_shared<const sator::Shape2>(sator::Box2{{1.0f, 0.5f}});
      bodies[i].pose.position = {2.0f * static_cast<float>(i), 0.0f};
    } else {
      bodies[i].shape =
          std::make_shared<const sator::Shape3>(sator::Sphere{1.0f});
      bodies[i].pose.position = {2.0f * static_cast<float>(i), 0.0f, 0.0f};
    }
  }
  CHECK_PROPERTY((*scene)->UpsertBodies(bodies).ok());
  for (std::int64_t tick = 1; tick <= 3; ++tick) {
    CHECK_PROPERTY((*scene)->UpdatePoses(tick, {}).ok());
  }
  return std::move(*scene);
}

template <int D>
void FuzzQueries(const sator::v1::QueryBatchRequest& request) {
  const auto limits = SmallLimits();
  constexpr int kMaxHitsLimit = 256;
  const auto scene = MakeQueryScene<D>();
  const auto snapshot = scene->Snapshot();
  for (const sator::v1::Query& query : request.queries()) {
    auto converted =
        sator::convert::ToSceneQuery<D>(query, limits, kMaxHitsLimit);
    if (!converted.ok()) {
      CheckRefusal(converted.status());
      continue;
    }
    // The scene validates again; what conversion accepted must pass, except
    // for what only the scene can know (a rewound tick out of its history).
    auto result = snapshot.Run(*converted);
    if (!result.ok()) {
      CHECK_PROPERTY(result.status().code() == absl::StatusCode::kOutOfRange);
      continue;
    }
    for (const auto& hit : result->hits) {
      CHECK_PROPERTY(std::isfinite(hit.distance));
      for (int axis = 0; axis < D; ++axis) {
        CHECK_PROPERTY(std::isfinite(hit.point[axis]));
        CHECK_PROPERTY(std::isfinite(hit.normal[axis]));
      }
    }
    sator::v1::QueryResult out;
    sator::convert::FromQueryResult<D>(*result, *sator::convert::KindOf(query),
                                       &out);
  }
}

// The packed rays read as D-dimensional: an accepted ray is finite, within
// kMaxRequestCoordinate, has a non-zero direction and a distance in (0,
// kMaxRayDistance], and the scene takes it (OUT_OF_RANGE only for a rewind);
// the packed answer's arrays add up.
template <int D>
void FuzzRayBatch(const sator::v1::RaycastBatchRequest& request) {
  auto rays = sator::convert::PackedRays<D>::Make(request);
  if (!rays.ok()) {
    CheckRefusal(rays.status());
    return;
  }
  CHECK_PROPERTY(rays->size() * D == request.origins_size());
  auto options = sator::convert::ToQueryOptions(request.options(), 256);
  if (!options.ok()) {
    CheckRefusal(options.status());
    return;
  }
  const auto scene = MakeQueryScene<D>();
  const auto snapshot = scene->Snapshot();
  sator::v1::RaycastBatchResponse response;
  for (int i = 0; i < rays->size(); ++i) {
    sator::convert::PackedRay<D> ray;
    if (absl::Status valid = rays->Get(i, &ray); !valid.ok()) {
      CheckRefusal(valid);
      CHECK_PROPERTY(valid.code() == absl::StatusCode::kInvalidArgument);
      continue;
    }
    bool zero = true;
    for (int axis = 0; axis < D; ++axis) {
      CHECK_PROPERTY(std::isfinite(ray.origin[axis]) &&
                     std::fabs(ray.origin[axis]) <= kMaxRequestCoordinate);
      CHECK_PROPERTY(std::isfinite(ray.direction[axis]) &&
                     std::fabs(ray.direction[axis]) <= kMaxRequestCoordinate);
      zero = zero && ray.direction[axis] == 0.0f;
    }
    CHECK_PROPERTY(!zero);
    CHECK_PROPERTY(std::isfinite(ray.max_distance) && ray.max_distance > 0.0f &&
                   ray.max_distance <= kMaxRayDistance);
    auto result =
        snapshot.RayCast(ray.origin, ray.direction, ray.max_distance, *options);
    if (!result.ok()) {
      CHECK_PROPERTY(result.status().code() == absl::StatusCode::kOutOfRange);
      continue;
    }
    sator::convert::AppendRayHits<D>(*result, &response);
  }
  int hits = 0;
  for (const std::uint32_t count : response.hit_counts()) {
    hits += static_cast<int>(count);
  }
  CHECK_PROPERTY(response.body_ids_size() == hits);
  CHECK_PROPERTY(response.distances_size() == hits);
  CHECK_PROPERTY(response.points_size() == D * hits);
  CHECK_PROPERTY(response.normals_size() == D * hits);
  CHECK_PROPERTY(response.features_size() == hits);
  CHECK_PROPERTY(response.started_inside_size() == hits);
}

// Shots read as D-dimensional: what conversion accepts, the core judges
// without calling it malformed, one verdict per shot, each a valid enum
// pairing on the wire.
template <int D>
void FuzzShots(const sator::v1::ValidateShotsRequest& request) {
  sator::scene::HitPolicy policy;
  if (absl::Status merged =
          sator::convert::MergeHitPolicy(request.policy(), &policy);
      !merged.ok()) {
    CheckRefusal(merged);
    return;
  }
  if (absl::Status valid = sator::scene::ValidateHitPolicy(policy);
      !valid.ok()) {
    CheckRefusal(valid);
    return;
  }
  auto shots = sator::convert::ToShots<D>(request, SmallLimits());
  if (!shots.ok()) {
    CheckRefusal(shots.status());
    return;
  }
  CHECK_PROPERTY(static_cast<int>(shots->size()) == request.shots_size());
  const auto scene = MakeQueryScene<D>();
  auto verdicts =
      sator::scene::ValidateShots<D>(scene->Snapshot(), *shots, policy);
  CHECK_PROPERTY(verdicts.ok());
  CHECK_PROPERTY(verdicts->size() == shots->size());
  for (std::size_t i = 0; i < verdicts->size(); ++i) {
    sator::v1::ShotVerdict out;
    sator::convert::FromShotVerdict<D>((*verdicts)[i], 7, &out);
    CHECK_PROPERTY(out.shot_id() == 7);
    CHECK_PROPERTY(out.outcome() != sator::v1::SHOT_OUTCOME_UNSPECIFIED);
    CHECK_PROPERTY(out.reason() != sator::v1::SHOT_REASON_UNSPECIFIED);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  if (size < 1) return 0;
  const char* message = reinterpret_cast<const char*>(data + 1);
  const int message_size = static_cast<int>(size - 1);
  switch (data[0] % 6) {
    case 0: {
      sator::v1::UpsertBodiesRequest request;
      if (!request.ParseFromArray(message, message_size)) return 0;
      FuzzBodies<2>(request);
      FuzzBodies<3>(request);
      break;
    }
    case 1: {
      sator::v1::UpdatePosesRequest request;
      if (!request.ParseFromArray(message, message_size)) return 0;
      FuzzPoses<2>(request);
      FuzzPoses<3>(request);
      break;
    }
    case 2: {
      sator::v1::SceneSnapshot snapshot;
      if (!snapshot.ParseFromArray(message, message_size)) return 0;
      FuzzSnapshot<2>(snapshot);
      FuzzSnapshot<3>(snapshot);
      break;
    }
    case 4: {
      sator::v1::RaycastBatchRequest request;
      if (!request.ParseFromArray(message, message_size)) return 0;
      // Bounded work per input.
      if (request.origins_size() > 3 * 64) return 0;
      FuzzRayBatch<2>(request);
      FuzzRayBatch<3>(request);
      break;
    }
    case 5: {
      sator::v1::ValidateShotsRequest request;
      if (!request.ParseFromArray(message, message_size)) return 0;
      // Bounded work per input.
      if (request.shots_size() > 16) return 0;
      FuzzShots<2>(request);
      FuzzShots<3>(request);
      break;
    }
    default: {
      sator::v1::QueryBatchRequest request;
      if (!request.ParseFromArray(message, message_size)) return 0;
      // Bounded work per input.
      if (request.queries_size() > 16) return 0;
      FuzzQueries<2>(request);
      FuzzQueries<3>(request);
      break;
    }
  }
  return 0;
}
