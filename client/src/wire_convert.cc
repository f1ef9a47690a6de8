// The client's value types to and from sator.v1 messages (see the header).
#include "wire_convert.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "proto/convert/geometry_convert.h"
#include "proximity_wire.h"
#include "sator/core/field_status.h"
#include "status_conversion.h"

namespace sator::client_internal {
namespace {

// Overload set for std::visit.
template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

Vec3 ReadVec3(const sator::v1::Vector& v) { return {v.x(), v.y(), v.z()}; }

template <int D>
Vec<D> ReadVec(const sator::v1::Vector& v) {
  if constexpr (D == 2) {
    return Vec2{v.x(), v.y()};
  } else {
    return ReadVec3(v);
  }
}

template <int D>
ContactResult<D> ReadContact(const sator::v1::PairContactResult& message) {
  ContactResult<D> contact;
  contact.overlapping = message.overlapping();
  contact.normal = ReadVec<D>(message.normal());
  contact.depth = message.depth();
  contact.point_count = std::min(message.points_size(), kMaxContactPoints<D>);
  for (int i = 0; i < contact.point_count; ++i) {
    contact.points[static_cast<std::size_t>(i)] = ReadVec<D>(message.points(i));
  }
  return contact;
}

template <int D>
absl::StatusOr<SweepResult<D>> ReadSweep(
    const sator::v1::PairSweepResult& message) {
  SweepResult<D> sweep;
  switch (message.outcome()) {
    case sator::v1::SWEEP_OUTCOME_HIT:
      sweep.outcome = SweepOutcome::kHit;
      sweep.fraction = message.fraction();
      sweep.normal = ReadVec<D>(message.normal());
      sweep.point = ReadVec<D>(message.point());
      return sweep;
    case sator::v1::SWEEP_OUTCOME_STARTED_OVERLAPPING:
      sweep.outcome = SweepOutcome::kStartedOverlapping;
      sweep.fraction = 0.0f;
      sweep.initial = ReadContact<D>(message.initial());
      return sweep;
    case sator::v1::SWEEP_OUTCOME_MISS:
      sweep.outcome = SweepOutcome::kMiss;
      return sweep;
    default:
      return absl::InternalError("PairQuery sent no sweep outcome");
  }
}

template <int D>
RayResult<D> ReadRay(const sator::v1::PairRayResult& message) {
  RayResult<D> result;
  result.hit = message.hit();
  result.started_inside = message.started_inside();
  result.distance = message.distance();
  result.point = ReadVec<D>(message.point());
  result.normal = ReadVec<D>(message.normal());
  result.feature = message.feature();
  return result;
}

template <int D>
absl::StatusOr<PairQueryResult> ReadPairResultIn(
    const sator::v1::PairQueryResponse& response) {
  switch (response.result_case()) {
    case sator::v1::PairQueryResponse::kOverlap:
      return PairQueryResult(response.overlap().overlapping());
    case sator::v1::PairQueryResponse::kContact:
      return PairQueryResult(ReadContact<D>(response.contact()));
    case sator::v1::PairQueryResponse::kSweep: {
      absl::StatusOr<SweepResult<D>> sweep = ReadSweep<D>(response.sweep());
      if (!sweep.ok()) return sweep.status();
      return PairQueryResult(*sweep);
    }
    case sator::v1::PairQueryResponse::kRaycast:
      return PairQueryResult(ReadRay<D>(response.raycast()));
    default:
      return absl::InternalError("PairQuery sent no result");
  }
}

// Shapes and poses coming back from the server: no size limits of our own.
constexpr convert::ShapeLimits kNoLimits{
    .max_hull_points = std::numeric_limits<std::uint32_t>::max(),
    .max_mesh_triangles = std::numeric_limits<std::uint32_t>::max(),
    .max_mesh_vertices = std::numeric_limits<std::uint32_t>::max()};

absl::StatusOr<Body> ReadBody(const sator::v1::Body& message,
                              Dimension dimension) {
  Body body;
  body.id = message.body_id();
  if (dimension == Dimension::k2D) {
    absl::StatusOr<Shape2> shape =
        convert::ToShape2(message.shape(), kNoLimits);
    if (!shape.ok()) return shape.status();
    absl::StatusOr<Pose2> pose = convert::ToPose2(message.pose());
    if (!pose.ok()) return pose.status();
    body.shape = *shape;
    body.pose = *pose;
  } else {
    absl::StatusOr<Shape3> shape =
        convert::ToShape3(message.shape(), kNoLimits);
    if (!shape.ok()) return shape.status();
    absl::StatusOr<Pose3> pose = convert::ToPose3(message.pose());
    if (!pose.ok()) return pose.status();
    body.shape = std::move(*shape);
    body.pose = *pose;
  }
  body.motion = static_cast<MotionType>(
      std::clamp(static_cast<int>(message.motion_type()), 0, 2));
  if (message.has_layer()) body.layer = message.layer();
  if (message.has_mask()) body.mask = message.mask();
  body.user_data = message.user_data();
  body.group_id = message.group_id();
  body.part = message.part();
  return body;
}

}  // namespace

void WriteShape(const AnyShape& shape, sator::v1::Shape* out) {
  std::visit(Overloaded{[&](const Shape2& s) { convert::FromShape2(s, out); },
                        [&](const Shape3& s) { convert::FromShape3(s, out); }},
             shape);
}

void WritePose(const AnyPose& pose, sator::v1::Pose* out) {
  std::visit(Overloaded{[&](const Pose2& p) { convert::FromPose2(p, out); },
                        [&](const Pose3& p) { convert::FromPose3(p, out); }},
             pose);
}

void WritePose(const std::optional<AnyPose>& pose, const AnyShape& shape,
               sator::v1::Pose* out) {
  if (pose.has_value()) {
    WritePose(*pose, out);
  } else if (std::holds_alternative<Shape2>(shape)) {
    convert::FromPose2(Pose2{}, out);
  } else {
    convert::FromPose3(Pose3{}, out);
  }
}

void WriteVector(const AnyVector& vector, sator::v1::Vector* out) {
  std::visit(Overloaded{[&](Vec2 v) { convert::FromVec2(v, out); },
                        [&](Vec3 v) { convert::FromVec3(v, out); }},
             vector);
}

void WriteHitPolicy(const HitPolicy& policy, sator::v1::HitPolicy* out) {
  if (policy.max_rewind_ms.has_value()) {
    out->set_max_rewind_ms(*policy.max_rewind_ms);
  }
  out->set_on_too_old(static_cast<sator::v1::RewindLimit>(policy.on_too_old));
  if (policy.max_origin_distance.has_value()) {
    out->set_max_origin_distance(*policy.max_origin_distance);
  }
  if (policy.static_blocks.has_value()) {
    out->set_static_blocks(*policy.static_blocks);
  }
}

void WriteSettings(const SceneSettings& settings,
                   sator::v1::SceneSettings* out) {
  out->set_dimension(static_cast<sator::v1::Dimension>(settings.dimension));
  out->set_history_ticks(settings.history_ticks);
  out->set_teleport_distance(settings.teleport_distance);
  out->set_max_bodies(settings.max_bodies);
  out->set_tick_rate(settings.tick_rate);
  if (settings.hit_policy.has_value()) {
    WriteHitPolicy(*settings.hit_policy, out->mutable_hit_policy());
  }
}

void WriteBody(const Body& body, sator::v1::Body* out) {
  out->set_body_id(body.id);
  WriteShape(body.shape, out->mutable_shape());
  WritePose(body.pose, body.shape, out->mutable_pose());
  out->set_motion_type(static_cast<sator::v1::MotionType>(body.motion));
  if (body.layer.has_value()) out->set_layer(*body.layer);
  if (body.mask.has_value()) out->set_mask(*body.mask);
  out->set_user_data(body.user_data);
  out->set_group_id(body.group_id);
  out->set_part(body.part);
}

void WriteSnapshot(const SceneSnapshot& snapshot,
                   sator::v1::SceneSnapshot* out) {
  out->set_scene_id(snapshot.scene_id);
  WriteSettings(snapshot.settings, out->mutable_settings());
  out->set_current_tick(snapshot.current_tick);
  out->mutable_bodies()->Reserve(static_cast<int>(snapshot.bodies.size()));
  for (const Body& body : snapshot.bodies) {
    WriteBody(body, out->add_bodies());
  }
}

void WritePoseBatch(const PoseBatch& poses, sator::v1::PoseBatch* out) {
  out->mutable_body_ids()->Add(poses.body_ids.begin(), poses.body_ids.end());
  out->mutable_positions()->Add(poses.positions.begin(), poses.positions.end());
  out->mutable_rotations()->Add(poses.rotations.begin(), poses.rotations.end());
  out->mutable_group_ids()->Add(poses.group_ids.begin(), poses.group_ids.end());
  out->mutable_group_positions()->Add(poses.group_positions.begin(),
                                      poses.group_positions.end());
  out->mutable_group_rotations()->Add(poses.group_rotations.begin(),
                                      poses.group_rotations.end());
  out->mutable_teleported_body_ids()->Add(poses.teleported_body_ids.begin(),
                                          poses.teleported_body_ids.end());
  out->mutable_teleported_group_ids()->Add(poses.teleported_group_ids.begin(),
                                           poses.teleported_group_ids.end());
}

void WriteQueryFilter(const QueryFilter& filter, sator::v1::QueryFilter* out) {
  if (filter.layer.has_value()) out->set_layer(*filter.layer);
  if (filter.mask.has_value()) out->set_mask(*filter.mask);
  out->mutable_exclude_body_ids()->Add(filter.exclude_body_ids.begin(),
                                       filter.exclude_body_ids.end());
  out->set_motion(static_cast<sator::v1::MotionFilter>(filter.motion));
}

// Options and filters left at their defaults are not sent: the server reads
// an absent message as its defaults, and a batch of a thousand queries then
// carries no empty options for it to parse.
bool IsDefault(const QueryFilter& filter) {
  return !filter.layer.has_value() && !filter.mask.has_value() &&
         filter.exclude_body_ids.empty() && filter.motion == MotionFilter::kAll;
}

bool IsDefault(const QueryOptions& options) {
  return IsDefault(options.filter) &&
         options.mode == ResultMode::kUnspecified && options.max_hits == 0 &&
         !options.rewind.has_value();
}

void WriteQueryOptions(const QueryOptions& options,
                       sator::v1::QueryOptions* out) {
  if (!IsDefault(options.filter)) {
    WriteQueryFilter(options.filter, out->mutable_filter());
  }
  out->set_mode(static_cast<sator::v1::ResultMode>(options.mode));
  out->set_max_hits(options.max_hits);
  if (options.rewind.has_value()) {
    out->mutable_rewind()->set_tick(options.rewind->tick);
    out->mutable_rewind()->set_fraction(options.rewind->fraction);
  }
}

void WriteOverlap(const OverlapQuery& query, sator::v1::OverlapQuery* out) {
  WriteShape(query.shape, out->mutable_shape());
  WritePose(query.pose, query.shape, out->mutable_pose());
}

void WriteContacts(const ContactsQuery& query, sator::v1::ContactsQuery* out) {
  WriteShape(query.shape, out->mutable_shape());
  WritePose(query.pose, query.shape, out->mutable_pose());
}

void WriteSweep(const SweepQuery& query, sator::v1::SweepQuery* out) {
  WriteShape(query.shape, out->mutable_shape());
  WritePose(query.pose, query.shape, out->mutable_pose());
  WriteVector(query.displacement, out->mutable_displacement());
}

void WriteRaycast(const RaycastQuery& query, sator::v1::RaycastQuery* out) {
  WriteVector(query.origin, out->mutable_origin());
  WriteVector(query.direction, out->mutable_direction());
  out->set_max_distance(query.max_distance);
}

void WritePoint(const ::sator::PointQuery& query, sator::v1::PointQuery* out) {
  WriteVector(query.point, out->mutable_point());
}

void WriteQuery(const Query& query, sator::v1::Query* out) {
  if (!IsDefault(query.options)) {
    WriteQueryOptions(query.options, out->mutable_options());
  }
  std::visit(Overloaded{[&](const OverlapQuery& q) {
                          WriteOverlap(q, out->mutable_overlap());
                        },
                        [&](const ContactsQuery& q) {
                          WriteContacts(q, out->mutable_contacts());
                        },
                        [&](const SweepQuery& q) {
                          WriteSweep(q, out->mutable_sweep());
                        },
                        [&](const RaycastQuery& q) {
                          WriteRaycast(q, out->mutable_raycast());
                        },
                        [&](const ::sator::PointQuery& q) {
                          WritePoint(q, out->mutable_point());
                        }},
             query.kind);
}

void WriteShot(const Shot& shot, sator::v1::Shot* out) {
  out->set_shot_id(shot.shot_id);
  out->set_shooter_group_id(shot.shooter_group_id);
  WriteVector(shot.origin, out->mutable_origin());
  WriteVector(shot.direction, out->mutable_direction());
  out->set_range(shot.range);
  if (shot.shape.has_value()) WriteShape(*shot.shape, out->mutable_shape());
  if (shot.shape_pose.has_value()) {
    WritePose(*shot.shape_pose, out->mutable_shape_pose());
  }
  if (shot.target.has_value()) {
    out->mutable_target()->set_group_id(shot.target->group_id);
    if (shot.target->part.has_value()) {
      out->mutable_target()->set_part(*shot.target->part);
    }
  }
  std::visit(
      Overloaded{
          [&](std::monostate) {},
          [&](const Rewind& rewind) {
            out->mutable_view_tick()->set_tick(rewind.tick);
            out->mutable_view_tick()->set_fraction(rewind.fraction);
          },
          [&](const ViewDelay& delay) { out->set_view_delay_ms(delay.ms); }},
      shot.view_time);
  if (shot.layer.has_value()) out->set_layer(*shot.layer);
  if (shot.mask.has_value()) out->set_mask(*shot.mask);
}

void WriteShots(absl::Span<const Shot> shots, const HitPolicy& policy,
                sator::v1::ValidateShotsRequest* out) {
  out->mutable_shots()->Reserve(static_cast<int>(shots.size()));
  for (const Shot& shot : shots) WriteShot(shot, out->add_shots());
  WriteHitPolicy(policy, out->mutable_policy());
}

void WritePairQuery(const PairQueryRequest& request,
                    sator::v1::PairQueryRequest* out) {
  WriteShape(request.shape_a, out->mutable_shape_a());
  WritePose(request.pose_a, out->mutable_pose_a());
  const bool ray = std::holds_alternative<PairRaycast>(request.kind);
  if (!ray) {
    WriteShape(request.shape_b, out->mutable_shape_b());
    WritePose(request.pose_b, out->mutable_pose_b());
  }
  std::visit(
      Overloaded{[&](const PairOverlap&) { out->mutable_overlap(); },
                 [&](const PairContact&) { out->mutable_contact(); },
                 [&](const PairSweep& sweep) {
                   WriteVector(sweep.displacement_a,
                               out->mutable_sweep()->mutable_displacement_a());
                   WriteVector(sweep.displacement_b,
                               out->mutable_sweep()->mutable_displacement_b());
                 },
                 [&](const PairRaycast& q) {
                   sator::v1::RaycastQuery* raycast = out->mutable_raycast();
                   WriteVector(q.origin, raycast->mutable_origin());
                   WriteVector(q.direction, raycast->mutable_direction());
                   raycast->set_max_distance(q.max_distance);
                 }},
      request.kind);
}

void WriteSessionRequest(const SessionRequest& request,
                         sator::v1::SessionRequest* out) {
  out->set_sequence(request.sequence);
  std::visit(
      Overloaded{
          [&](const SessionOpen& open) {
            out->mutable_open()->set_scene_id(open.scene_id);
          },
          [&](const SessionPoseUpdate& update) {
            out->mutable_poses()->set_tick(update.tick);
            WritePoseBatch(update.poses, out->mutable_poses()->mutable_poses());
          },
          [&](const Query& query) { WriteQuery(query, out->mutable_query()); },
          [&](const SessionShots& shots) {
            WriteShots(shots.shots, shots.policy, out->mutable_shots());
          },
          [&](const SessionWatchProximity& watch) {
            sator::v1::WatchProximityRequest* asked =
                out->mutable_watch_proximity();
            if (watch.start.tick.has_value()) {
              asked->set_from_tick(*watch.start.tick);
            }
            if (watch.start.sequence.has_value()) {
              asked->set_from_sequence(*watch.start.sequence);
            }
          },
          [&](const SessionBatch& batch) {
            sator::v1::QueryBatchRequest* asked = out->mutable_batch();
            asked->mutable_queries()->Reserve(
                static_cast<int>(batch.queries.size()));
            for (const Query& query : batch.queries) {
              WriteQuery(query, asked->add_queries());
            }
          }},
      request.kind);
}

SceneSettings ReadSettings(const sator::v1::SceneSettings& settings) {
  SceneSettings out;
  switch (settings.dimension()) {
    case sator::v1::DIMENSION_2D:
      out.dimension = Dimension::k2D;
      break;
    case sator::v1::DIMENSION_3D:
      out.dimension = Dimension::k3D;
      break;
    default:
      out.dimension = Dimension::kUnspecified;
      break;
  }
  out.history_ticks = settings.history_ticks();
  out.teleport_distance = settings.teleport_distance();
  out.max_bodies = settings.max_bodies();
  out.tick_rate = settings.tick_rate();
  if (settings.has_hit_policy()) {
    const sator::v1::HitPolicy& policy = settings.hit_policy();
    HitPolicy& read = out.hit_policy.emplace();
    if (policy.has_max_rewind_ms()) read.max_rewind_ms = policy.max_rewind_ms();
    read.on_too_old = static_cast<RewindLimit>(
        std::clamp(static_cast<int>(policy.on_too_old()), 0, 2));
    if (policy.has_max_origin_distance()) {
      read.max_origin_distance = policy.max_origin_distance();
    }
    if (policy.has_static_blocks()) read.static_blocks = policy.static_blocks();
  }
  return out;
}

SceneInfo ReadSceneInfo(const sator::v1::SceneInfo& info) {
  SceneInfo out;
  out.scene_id = info.scene_id();
  out.settings = ReadSettings(info.settings());
  const sator::v1::SceneStats& stats = info.stats();
  out.stats = {.body_count = stats.body_count(),
               .static_body_count = stats.static_body_count(),
               .dynamic_body_count = stats.dynamic_body_count(),
               .current_tick = stats.current_tick(),
               .oldest_tick = stats.oldest_tick(),
               .memory_bytes = stats.memory_bytes()};
  return out;
}

Hit ReadHit(const sator::v1::Hit& hit) {
  return {.body_id = hit.body_id(),
          .user_data = hit.user_data(),
          .point = ReadVec3(hit.point()),
          .normal = ReadVec3(hit.normal()),
          .distance = hit.distance(),
          .feature = hit.feature(),
          .started_inside = hit.started_inside(),
          .group_id = hit.group_id(),
          .part = hit.part()};
}

ShotVerdict ReadShotVerdict(const sator::v1::ShotVerdict& verdict) {
  ShotVerdict read;
  read.shot_id = verdict.shot_id();
  // A value newer than this client reads as kUnspecified.
  const int outcome = static_cast<int>(verdict.outcome());
  read.outcome = outcome >= 0 && outcome <= 3
                     ? static_cast<ShotOutcome>(outcome)
                     : ShotOutcome::kUnspecified;
  const int reason = static_cast<int>(verdict.reason());
  read.reason = reason >= 0 && reason <= 13 ? static_cast<ShotReason>(reason)
                                            : ShotReason::kUnspecified;
  if (verdict.has_hit()) read.hit = ReadHit(verdict.hit());
  read.tick = verdict.tick();
  read.fraction = verdict.fraction();
  read.rewind_ticks = verdict.rewind_ticks();
  read.clamped = verdict.clamped();
  if (verdict.has_target_miss_distance()) {
    read.target_miss_distance = verdict.target_miss_distance();
  }
  return read;
}

ValidateShotsResult ReadShots(
    const sator::v1::ValidateShotsResponse& response) {
  ValidateShotsResult out;
  out.current_tick = response.current_tick();
  out.verdicts.reserve(static_cast<std::size_t>(response.verdicts_size()));
  for (const sator::v1::ShotVerdict& verdict : response.verdicts()) {
    out.verdicts.push_back(ReadShotVerdict(verdict));
  }
  return out;
}

namespace {

template <int D>
absl::Status ReadShotGeometry(const sator::v1::Shot& shot, Shot* out) {
  out->origin = ReadVec<D>(shot.origin());
  out->direction = ReadVec<D>(shot.direction());
  if (shot.has_shape()) {
    if constexpr (D == 2) {
      absl::StatusOr<Shape2> shape = convert::ToShape2(shot.shape(), kNoLimits);
      if (!shape.ok()) return PrefixField("shape", shape.status());
      out->shape = *std::move(shape);
    } else {
      absl::StatusOr<Shape3> shape = convert::ToShape3(shot.shape(), kNoLimits);
      if (!shape.ok()) return PrefixField("shape", shape.status());
      out->shape = *std::move(shape);
    }
  }
  if (shot.has_shape_pose()) {
    if constexpr (D == 2) {
      absl::StatusOr<Pose2> pose = convert::ToPose2(shot.shape_pose());
      if (!pose.ok()) return PrefixField("shape_pose", pose.status());
      out->shape_pose = *pose;
    } else {
      absl::StatusOr<Pose3> pose = convert::ToPose3(shot.shape_pose());
      if (!pose.ok()) return PrefixField("shape_pose", pose.status());
      out->shape_pose = *pose;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shot> ReadShot(const sator::v1::Shot& shot,
                              Dimension dimension) {
  Shot out;
  out.shot_id = shot.shot_id();
  out.shooter_group_id = shot.shooter_group_id();
  out.range = shot.range();
  const absl::Status geometry = dimension == Dimension::k2D
                                    ? ReadShotGeometry<2>(shot, &out)
                                    : ReadShotGeometry<3>(shot, &out);
  if (!geometry.ok()) {
    return absl::InternalError(absl::StrCat("shot.", geometry.message()));
  }
  if (shot.has_target()) {
    ShotTarget& target = out.target.emplace();
    target.group_id = shot.target().group_id();
    if (shot.target().has_part()) target.part = shot.target().part();
  }
  if (shot.has_view_tick()) {
    out.view_time = Rewind{.tick = shot.view_tick().tick(),
                           .fraction = shot.view_tick().fraction()};
  } else if (shot.has_view_delay_ms()) {
    out.view_time = ViewDelay{.ms = shot.view_delay_ms()};
  }
  if (shot.has_layer()) out.layer = shot.layer();
  if (shot.has_mask()) out.mask = shot.mask();
  return out;
}

absl::StatusOr<ShotVerdictRecord> ReadShotVerdictRecord(
    const sator::v1::ShotVerdictRecord& record) {
  ShotVerdictRecord out;
  out.sequence = record.sequence();
  out.scene_id = record.scene_id();
  absl::StatusOr<Shot> shot =
      ReadShot(record.shot(), record.dimension() == sator::v1::DIMENSION_2D
                                  ? Dimension::k2D
                                  : Dimension::k3D);
  if (!shot.ok()) return shot.status();
  out.shot = *std::move(shot);
  out.verdict = ReadShotVerdict(record.verdict());
  out.current_tick = record.current_tick();
  out.recorded_unix_micros = record.recorded_unix_micros();
  return out;
}

absl::StatusOr<ShotVerdictPage> ReadShotVerdictPage(
    const sator::v1::ListShotVerdictsResponse& response) {
  ShotVerdictPage out;
  out.records.reserve(static_cast<std::size_t>(response.records_size()));
  for (int i = 0; i < response.records_size(); ++i) {
    absl::StatusOr<ShotVerdictRecord> record =
        ReadShotVerdictRecord(response.records(i));
    if (!record.ok()) {
      return absl::InternalError(absl::StrCat("ListShotVerdicts: records[", i,
                                              "].", record.status().message()));
    }
    out.records.push_back(*std::move(record));
  }
  out.next_page_token = response.next_page_token();
  out.oldest_sequence = response.oldest_sequence();
  out.skipped = response.skipped();
  out.overwritten = response.overwritten();
  out.resume_sequence = response.resume_sequence();
  return out;
}

void WriteShotVerdictFilter(const ShotVerdictFilter& filter,
                            sator::v1::ShotVerdictFilter* out) {
  if (filter.shooter_group_id.has_value()) {
    out->set_shooter_group_id(*filter.shooter_group_id);
  }
  if (filter.target_group_id.has_value()) {
    out->set_target_group_id(*filter.target_group_id);
  }
  out->set_outcome(static_cast<sator::v1::ShotOutcome>(filter.outcome));
  out->set_reason(static_cast<sator::v1::ShotReason>(filter.reason));
  if (filter.min_tick.has_value()) out->set_min_tick(*filter.min_tick);
  if (filter.max_tick.has_value()) out->set_max_tick(*filter.max_tick);
}

QueryResult ReadQueryResult(const sator::v1::QueryResult& result) {
  QueryResult out;
  out.tick = result.tick();
  out.hits.reserve(static_cast<std::size_t>(result.hits_size()));
  for (const sator::v1::Hit& hit : result.hits()) {
    out.hits.push_back(ReadHit(hit));
  }
  out.depenetration = ReadVec3(result.depenetration());
  out.stats = {.node_visits = result.stats().node_visits(),
               .leaf_visits = result.stats().leaf_visits()};
  return out;
}

std::vector<BatchEntry> ReadBatch(
    const sator::v1::QueryBatchResponse& response) {
  std::vector<BatchEntry> entries;
  entries.reserve(static_cast<std::size_t>(response.entries_size()));
  for (const sator::v1::QueryBatchResponse::Entry& entry : response.entries()) {
    absl::Status status = FromWireStatus(entry.status());
    if (status.ok()) {
      entries.emplace_back(ReadQueryResult(entry.result()));
    } else {
      entries.emplace_back(std::move(status));
    }
  }
  return entries;
}

absl::Status WriteRaycastBatch(absl::Span<const RaycastQuery> rays,
                               const QueryOptions& options,
                               sator::v1::RaycastBatchRequest* out) {
  if (rays.empty()) {
    return FieldError("rays", "empty (send at least one ray)");
  }
  const bool three = std::holds_alternative<Vec3>(rays[0].origin);
  const int dimension = three ? 3 : 2;
  out->set_dimension(three ? sator::v1::DIMENSION_3D : sator::v1::DIMENSION_2D);
  const int count = static_cast<int>(rays.size());
  // Written in place: the arrays are sized once and filled through their
  // data pointers (a 1000-ray batch is 7000 floats).
  out->mutable_origins()->Resize(dimension * count, 0.0f);
  out->mutable_directions()->Resize(dimension * count, 0.0f);
  out->mutable_max_distances()->Resize(count, 0.0f);
  float* origins = out->mutable_origins()->mutable_data();
  float* directions = out->mutable_directions()->mutable_data();
  float* distances = out->mutable_max_distances()->mutable_data();
  for (int i = 0; i < count; ++i) {
    const RaycastQuery& ray = rays[static_cast<std::size_t>(i)];
    const Vec3* origin3 = std::get_if<Vec3>(&ray.origin);
    const Vec3* direction3 = std::get_if<Vec3>(&ray.direction);
    if ((origin3 != nullptr) != three || (direction3 != nullptr) != three) {
      return FieldError(
          absl::StrCat("rays[", i, "].",
                       (origin3 != nullptr) != three ? "origin" : "direction"),
          absl::StrCat("a ", three ? 2 : 3, "D vector among ", dimension,
                       "D rays"));
    }
    if (three) {
      origins[3 * i] = origin3->x;
      origins[3 * i + 1] = origin3->y;
      origins[3 * i + 2] = origin3->z;
      directions[3 * i] = direction3->x;
      directions[3 * i + 1] = direction3->y;
      directions[3 * i + 2] = direction3->z;
    } else {
      const Vec2& origin = std::get<Vec2>(ray.origin);
      const Vec2& direction = std::get<Vec2>(ray.direction);
      origins[2 * i] = origin.x;
      origins[2 * i + 1] = origin.y;
      directions[2 * i] = direction.x;
      directions[2 * i + 1] = direction.y;
    }
    distances[i] = ray.max_distance;
  }
  // One value stands for all when every ray has the same reach (4 bytes
  // instead of 4 per ray).
  if (std::all_of(distances, distances + count,
                  [&](float d) { return d == distances[0]; })) {
    out->mutable_max_distances()->Truncate(1);
  }
  if (!IsDefault(options)) WriteQueryOptions(options, out->mutable_options());
  return absl::OkStatus();
}

absl::StatusOr<RaycastBatchResult> ReadRaycastBatch(
    const sator::v1::RaycastBatchResponse& response, int rays, int dimension) {
  if (response.hit_counts_size() != rays) {
    return absl::InternalError(
        absl::StrCat("RaycastBatch: ", rays, " rays but ",
                     response.hit_counts_size(), " hit counts"));
  }
  std::uint64_t total = 0;
  for (const std::uint32_t count : response.hit_counts()) total += count;
  const auto hits = static_cast<std::uint64_t>(response.body_ids_size());
  const auto d = static_cast<std::uint64_t>(dimension);
  if (total != hits ||
      static_cast<std::uint64_t>(response.user_data_size()) != hits ||
      static_cast<std::uint64_t>(response.distances_size()) != hits ||
      static_cast<std::uint64_t>(response.points_size()) != d * hits ||
      static_cast<std::uint64_t>(response.normals_size()) != d * hits ||
      static_cast<std::uint64_t>(response.features_size()) != hits ||
      static_cast<std::uint64_t>(response.started_inside_size()) != hits ||
      response.group_ids_size() != response.parts_size() ||
      (response.group_ids_size() != 0 &&
       static_cast<std::uint64_t>(response.group_ids_size()) != hits)) {
    return absl::InternalError(
        absl::StrCat("RaycastBatch: hit arrays do not match ", total,
                     " hits in hit_counts"));
  }
  RaycastBatchResult result;
  result.tick = response.tick();
  result.offsets.reserve(static_cast<std::size_t>(rays) + 1);
  result.offsets.push_back(0);
  std::uint32_t offset = 0;
  for (const std::uint32_t count : response.hit_counts()) {
    offset += count;
    result.offsets.push_back(offset);
  }
  result.hits.resize(static_cast<std::size_t>(hits));
  for (int i = 0; i < static_cast<int>(hits); ++i) {
    Hit& hit = result.hits[static_cast<std::size_t>(i)];
    hit.body_id = response.body_ids(i);
    hit.user_data = response.user_data(i);
    hit.distance = response.distances(i);
    hit.point.x = response.points(dimension * i);
    hit.point.y = response.points(dimension * i + 1);
    hit.normal.x = response.normals(dimension * i);
    hit.normal.y = response.normals(dimension * i + 1);
    if (dimension == 3) {
      hit.point.z = response.points(dimension * i + 2);
      hit.normal.z = response.normals(dimension * i + 2);
    }
    hit.feature = response.features(i);
    hit.started_inside = response.started_inside(i);
    if (response.group_ids_size() != 0) {
      hit.group_id = response.group_ids(i);
      hit.part = response.parts(i);
    }
  }
  return result;
}

absl::StatusOr<SceneSnapshot> ReadSnapshot(
    const sator::v1::SceneSnapshot& snapshot) {
  SceneSnapshot out;
  out.scene_id = snapshot.scene_id();
  out.settings = ReadSettings(snapshot.settings());
  out.current_tick = snapshot.current_tick();
  if (out.settings.dimension == Dimension::kUnspecified) {
    return absl::InternalError(
        "ExportScene: snapshot.settings.dimension: unspecified");
  }
  out.bodies.reserve(static_cast<std::size_t>(snapshot.bodies_size()));
  for (int i = 0; i < snapshot.bodies_size(); ++i) {
    absl::StatusOr<Body> body =
        ReadBody(snapshot.bodies(i), out.settings.dimension);
    if (!body.ok()) {
      return absl::InternalError(absl::StrCat("ExportScene: bodies[", i, "].",
                                              body.status().message()));
    }
    out.bodies.push_back(std::move(*body));
  }
  return out;
}

absl::StatusOr<PairQueryResult> ReadPairResult(
    const sator::v1::PairQueryResponse& response, int dimension) {
  if (dimension == 2) return ReadPairResultIn<2>(response);
  return ReadPairResultIn<3>(response);
}

SessionReply ReadSessionReply(const sator::v1::SessionResponse& response) {
  SessionReply reply;
  reply.sequence = response.sequence();
  reply.status = FromWireStatus(response.status());
  switch (response.kind_case()) {
    case sator::v1::SessionResponse::kOpened:
      reply.kind =
          SessionOpened{.current_tick = response.opened().current_tick()};
      break;
    case sator::v1::SessionResponse::kPoses:
      reply.kind =
          SessionPosesApplied{.current_tick = response.poses().current_tick()};
      break;
    case sator::v1::SessionResponse::kQuery:
      reply.kind = ReadQueryResult(response.query());
      break;
    case sator::v1::SessionResponse::kShots:
      reply.kind = ReadShots(response.shots());
      break;
    case sator::v1::SessionResponse::kBatch:
      reply.kind = SessionBatchAnswered{.entries = ReadBatch(response.batch())};
      break;
    case sator::v1::SessionResponse::kProximityWatching:
      reply.kind = SessionProximityWatching{
          .from_sequence = response.proximity_watching().from_sequence()};
      break;
    case sator::v1::SessionResponse::kProximity:
      if (response.proximity().has_events()) {
        reply.kind =
            ProximityStreamEvent(ReadTickEvents(response.proximity().events()));
      } else if (response.proximity().has_resync()) {
        reply.kind =
            ProximityStreamEvent(ReadResync(response.proximity().resync()));
      }
      break;
    default:
      break;
  }
  return reply;
}

}  // namespace sator::client_internal
