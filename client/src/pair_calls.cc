// sator::Client's pair queries: core shapes in, core results out, with
// QueryService/PairQuery in between.
#include <algorithm>
#include <utility>

#include "client_impl.h"
#include "proto/convert/geometry_convert.h"
#include "status_conversion.h"

namespace sator {
namespace {

using client_internal::FromGrpcStatus;
using sator::v1::PairQueryRequest;
using sator::v1::PairQueryResponse;

Vec2 ReadVec(const sator::v1::Vector& v, Vec2 /*tag*/) {
  return {v.x(), v.y()};
}
Vec3 ReadVec(const sator::v1::Vector& v, Vec3 /*tag*/) {
  return {v.x(), v.y(), v.z()};
}

template <int D>
Vec<D> ToCoreVec(const sator::v1::Vector& v) {
  return ReadVec(v, Vec<D>{});
}

void WriteShape(const Shape2& shape, sator::v1::Shape* out) {
  convert::FromShape2(shape, out);
}
void WriteShape(const Shape3& shape, sator::v1::Shape* out) {
  convert::FromShape3(shape, out);
}
void WritePose(const Pose2& pose, sator::v1::Pose* out) {
  convert::FromPose2(pose, out);
}
void WritePose(const Pose3& pose, sator::v1::Pose* out) {
  convert::FromPose3(pose, out);
}
void WriteVec(Vec2 v, sator::v1::Vector* out) { convert::FromVec2(v, out); }
void WriteVec(Vec3 v, sator::v1::Vector* out) { convert::FromVec3(v, out); }

template <int D>
ContactResult<D> ToCoreContact(const sator::v1::PairContactResult& message) {
  ContactResult<D> contact;
  contact.overlapping = message.overlapping();
  contact.normal = ToCoreVec<D>(message.normal());
  contact.depth = message.depth();
  contact.point_count = std::min(message.points_size(), kMaxContactPoints<D>);
  for (int i = 0; i < contact.point_count; ++i) {
    contact.points[static_cast<size_t>(i)] = ToCoreVec<D>(message.points(i));
  }
  return contact;
}

template <typename ShapeT, typename PoseT>
PairQueryRequest MakeRequest(const ShapeT& a, const PoseT& pose_a,
                             const ShapeT* b, const PoseT* pose_b) {
  PairQueryRequest request;
  WriteShape(a, request.mutable_shape_a());
  WritePose(pose_a, request.mutable_pose_a());
  if (b != nullptr) {
    WriteShape(*b, request.mutable_shape_b());
    WritePose(*pose_b, request.mutable_pose_b());
  }
  return request;
}

absl::StatusOr<PairQueryResponse> Call(client_internal::ClientState& impl,
                                       const PairQueryRequest& request,
                                       const CallOptions& call_options,
                                       PairQueryResponse::ResultCase expected) {
  grpc::ClientContext context;
  impl.PrepareContext(context, call_options);
  PairQueryResponse response;
  const grpc::Status status =
      impl.query_stub().PairQuery(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  if (response.result_case() != expected) {
    return absl::InternalError("PairQuery answered a different query kind");
  }
  return response;
}

template <int D, typename ShapeT>
absl::StatusOr<bool> DoOverlap(client_internal::ClientState& impl,
                               const ShapeT& a, const Pose<D>& pose_a,
                               const ShapeT& b, const Pose<D>& pose_b,
                               const CallOptions& call_options) {
  PairQueryRequest request = MakeRequest(a, pose_a, &b, &pose_b);
  request.mutable_overlap();
  absl::StatusOr<PairQueryResponse> response =
      Call(impl, request, call_options, PairQueryResponse::kOverlap);
  if (!response.ok()) return response.status();
  return response->overlap().overlapping();
}

template <int D, typename ShapeT>
absl::StatusOr<ContactResult<D>> DoContact(
    client_internal::ClientState& impl, const ShapeT& a, const Pose<D>& pose_a,
    const ShapeT& b, const Pose<D>& pose_b, const CallOptions& call_options) {
  PairQueryRequest request = MakeRequest(a, pose_a, &b, &pose_b);
  request.mutable_contact();
  absl::StatusOr<PairQueryResponse> response =
      Call(impl, request, call_options, PairQueryResponse::kContact);
  if (!response.ok()) return response.status();
  return ToCoreContact<D>(response->contact());
}

template <int D, typename ShapeT>
absl::StatusOr<SweepResult<D>> DoSweep(client_internal::ClientState& impl,
                                       const ShapeT& a, const Pose<D>& pose_a,
                                       Vec<D> displacement_a, const ShapeT& b,
                                       const Pose<D>& pose_b,
                                       Vec<D> displacement_b,
                                       const CallOptions& call_options) {
  PairQueryRequest request = MakeRequest(a, pose_a, &b, &pose_b);
  WriteVec(displacement_a, request.mutable_sweep()->mutable_displacement_a());
  WriteVec(displacement_b, request.mutable_sweep()->mutable_displacement_b());
  absl::StatusOr<PairQueryResponse> response =
      Call(impl, request, call_options, PairQueryResponse::kSweep);
  if (!response.ok()) return response.status();
  const sator::v1::PairSweepResult& message = response->sweep();
  SweepResult<D> sweep;
  switch (message.outcome()) {
    case sator::v1::SWEEP_OUTCOME_HIT:
      sweep.outcome = SweepOutcome::kHit;
      sweep.fraction = message.fraction();
      sweep.normal = ToCoreVec<D>(message.normal());
      sweep.point = ToCoreVec<D>(message.point());
      break;
    case sator::v1::SWEEP_OUTCOME_STARTED_OVERLAPPING:
      sweep.outcome = SweepOutcome::kStartedOverlapping;
      sweep.fraction = 0.0f;
      sweep.initial = ToCoreContact<D>(message.initial());
      break;
    case sator::v1::SWEEP_OUTCOME_MISS:
      sweep.outcome = SweepOutcome::kMiss;
      break;
    default:
      return absl::InternalError("PairQuery sent no sweep outcome");
  }
  return sweep;
}

template <int D, typename ShapeT>
absl::StatusOr<RayResult<D>> DoRayCast(client_internal::ClientState& impl,
                                       const ShapeT& shape, const Pose<D>& pose,
                                       const Ray<D>& ray,
                                       const CallOptions& call_options) {
  PairQueryRequest request =
      MakeRequest<ShapeT, Pose<D>>(shape, pose, nullptr, nullptr);
  sator::v1::RaycastQuery* query = request.mutable_raycast();
  WriteVec(ray.origin, query->mutable_origin());
  WriteVec(ray.direction, query->mutable_direction());
  query->set_max_distance(ray.max_distance);
  absl::StatusOr<PairQueryResponse> response =
      Call(impl, request, call_options, PairQueryResponse::kRaycast);
  if (!response.ok()) return response.status();
  const sator::v1::PairRayResult& message = response->raycast();
  RayResult<D> result;
  result.hit = message.hit();
  result.started_inside = message.started_inside();
  result.distance = message.distance();
  result.point = ToCoreVec<D>(message.point());
  result.normal = ToCoreVec<D>(message.normal());
  result.feature = message.feature();
  return result;
}

}  // namespace

absl::StatusOr<bool> Client::Overlap(const Shape2& a, const Pose2& pose_a,
                                     const Shape2& b, const Pose2& pose_b,
                                     const CallOptions& call_options) {
  return DoOverlap<2>(*impl_, a, pose_a, b, pose_b, call_options);
}
absl::StatusOr<ContactResult<2>> Client::Contact(
    const Shape2& a, const Pose2& pose_a, const Shape2& b, const Pose2& pose_b,
    const CallOptions& call_options) {
  return DoContact<2>(*impl_, a, pose_a, b, pose_b, call_options);
}
absl::StatusOr<SweepResult<2>> Client::Sweep(
    const Shape2& a, const Pose2& pose_a, Vec2 displacement_a, const Shape2& b,
    const Pose2& pose_b, Vec2 displacement_b, const CallOptions& call_options) {
  return DoSweep<2>(*impl_, a, pose_a, displacement_a, b, pose_b,
                    displacement_b, call_options);
}
absl::StatusOr<RayResult<2>> Client::RayCast(const Shape2& shape,
                                             const Pose2& pose,
                                             const Ray<2>& ray,
                                             const CallOptions& call_options) {
  return DoRayCast<2>(*impl_, shape, pose, ray, call_options);
}

absl::StatusOr<bool> Client::Overlap(const Shape3& a, const Pose3& pose_a,
                                     const Shape3& b, const Pose3& pose_b,
                                     const CallOptions& call_options) {
  return DoOverlap<3>(*impl_, a, pose_a, b, pose_b, call_options);
}
absl::StatusOr<ContactResult<3>> Client::Contact(
    const Shape3& a, const Pose3& pose_a, const Shape3& b, const Pose3& pose_b,
    const CallOptions& call_options) {
  return DoContact<3>(*impl_, a, pose_a, b, pose_b, call_options);
}
absl::StatusOr<SweepResult<3>> Client::Sweep(
    const Shape3& a, const Pose3& pose_a, Vec3 displacement_a, const Shape3& b,
    const Pose3& pose_b, Vec3 displacement_b, const CallOptions& call_options) {
  return DoSweep<3>(*impl_, a, pose_a, displacement_a, b, pose_b,
                    displacement_b, call_options);
}
absl::StatusOr<RayResult<3>> Client::RayCast(const Shape3& shape,
                                             const Pose3& pose,
                                             const Ray<3>& ray,
                                             const CallOptions& call_options) {
  return DoRayCast<3>(*impl_, shape, pose, ray, call_options);
}

}  // namespace sator
