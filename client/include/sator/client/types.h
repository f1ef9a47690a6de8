// The value types of the sator client: scenes, bodies, pose batches, queries
// and their results, mirroring the sator.v1 messages one to one without
// exposing protobuf. Shapes, poses and vectors are sator::core's own types,
// so code written against the in-process core moves to the service unchanged.
//
// One schema serves 2D and 3D scenes, as in the proto: a shape is a Shape2 or
// a Shape3, a pose a Pose2 or a Pose3 (AnyShape, AnyPose, AnyVector convert
// implicitly from each; an AnyVector also from braces, {0, 1} or {0, 1, 0}).
// A body or query shape without a pose sits at the identity pose of the
// shape's dimension. Mixing dimensions in one body or query (a 3D shape with
// a 2D pose, a 2D ray origin with a 3D direction) is refused before anything
// is sent, with INVALID_ARGUMENT naming the field; so is a 2D ray or point in
// a 3D scene and the reverse, by the server. Results carry Vec3 points and
// normals; in a 2D scene their z is 0 (Xy() gives the Vec2).
//
// Everything is in namespace sator, beside sator::Client and the core types.
//
// Units and frames follow proto/sator/v1/geometry.proto: lengths in the
// caller's unit, angles in radians, everything in the scene's world frame.
#ifndef SATOR_CLIENT_TYPES_H_
#define SATOR_CLIENT_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"
#include "sator/core/vec.h"

namespace sator {

// The former namespace of these types, kept so that sator::client::Body still
// names sator::Body. Deprecated: write sator::Body.
namespace client = ::sator;

// ---- Geometry
// ----------------------------------------------------------------

// A 2D or a 3D shape; hulls and meshes are shared, immutable core objects.
using AnyShape = std::variant<Shape2, Shape3>;
using AnyPose = std::variant<Pose2, Pose3>;

// A 2D or a 3D vector: AnyVector v = {0, 1, 0} is a Vec3, {0, 1} a Vec2.
struct AnyVector : std::variant<Vec2, Vec3> {
  using std::variant<Vec2, Vec3>::variant;
  using std::variant<Vec2, Vec3>::operator=;
  constexpr AnyVector() = default;
  constexpr AnyVector(float x, float y) : variant(Vec2{x, y}) {}
  constexpr AnyVector(float x, float y, float z) : variant(Vec3{x, y, z}) {}
  // 2 or 3.
  constexpr int dimension() const { return index() == 0 ? 2 : 3; }
};

// The x and y of a result vector from a 2D scene.
inline Vec2 Xy(Vec3 v) { return {v.x, v.y}; }

enum class Dimension : std::uint8_t {
  kUnspecified = 0,
  k2D = 2,
  k3D = 3,
};

// ---- Scenes
// ------------------------------------------------------------------

// What a shot older than HitPolicy::max_rewind_ms gets.
enum class RewindLimit : std::uint8_t {
  // The scene's setting (for a scene: kClamp).
  kUnspecified = 0,
  // Judged at the oldest allowed time (reason kClamped when it hits).
  kClamp = 1,
  // Rejected (reason kTooOld).
  kReject = 2,
};

// The bounds on what a client may claim for its shots (docs/HIT_VALIDATION.md,
// "The policy"). Unset fields keep the scene's values (or, for a scene, the
// defaults: 250 ms, clamp, 2, true).
struct HitPolicy {
  std::optional<float> max_rewind_ms{};
  RewindLimit on_too_old = RewindLimit::kUnspecified;
  // +infinity turns the origin check off.
  std::optional<float> max_origin_distance{};
  std::optional<bool> static_blocks{};
};

struct SceneSettings {
  Dimension dimension = Dimension::kUnspecified;
  // Past ticks kept for rewound queries; 0 means the server default.
  std::uint32_t history_ticks = 0;
  // A position jump longer than this between two ticks is a teleport (never
  // interpolated); 0 means never.
  float teleport_distance = 0.0f;
  // The most bodies the scene may hold; 0 means the server's limit.
  std::uint32_t max_bodies = 0;
  // Ticks per second, for shots' view delays in milliseconds; 0 means 60.
  float tick_rate = 0.0f;
  // How shots are judged (docs/HIT_VALIDATION.md); unset: the defaults.
  std::optional<HitPolicy> hit_policy{};
};

struct SceneStats {
  std::uint64_t body_count = 0;
  std::uint64_t static_body_count = 0;
  std::uint64_t dynamic_body_count = 0;
  // The newest tick applied and the oldest one still in the history.
  std::int64_t current_tick = 0;
  std::int64_t oldest_tick = 0;
  std::uint64_t memory_bytes = 0;
};

struct SceneInfo {
  std::string scene_id{};
  SceneSettings settings{};
  SceneStats stats{};
};

struct ListScenesPage {
  std::vector<SceneInfo> scenes{};
  // Empty on the last page.
  std::string next_page_token{};
};

// ---- Bodies
// ------------------------------------------------------------------

enum class MotionType : std::uint8_t {
  kUnspecified = 0,
  // Never moves after creation (level geometry); meshes must be static.
  kStatic = 1,
  // Moves every tick through pose updates.
  kDynamic = 2,
};

struct Body {
  // Unique within its scene; chosen by the caller.
  std::uint64_t id = 0;
  AnyShape shape{};
  // Unset: the identity pose of the shape's dimension.
  std::optional<AnyPose> pose{};
  MotionType motion = MotionType::kDynamic;
  // A query with layer L and mask M hits this body when (M & layer) != 0 and
  // (mask & L) != 0. Unset means all 64 bits; 0 collides with nothing.
  std::optional<std::uint64_t> layer{};
  std::optional<std::uint64_t> mask{};
  // Opaque to Sator; returned with every hit on this body.
  std::uint64_t user_data = 0;
  // Hitbox groups (docs/HIT_VALIDATION.md): a dynamic body with group_id != 0
  // is a part of that group (a player) and `pose` is local to the group;
  // `part` is the game's label (head, torso...) in [-32768, 32767], returned
  // with every hit.
  std::uint64_t group_id = 0;
  std::int32_t part = 0;
};

// Everything a scene holds, as ExportScene gives it and ImportScene takes it.
struct SceneSnapshot {
  std::string scene_id{};
  SceneSettings settings{};
  std::int64_t current_tick = 0;
  std::vector<Body> bodies{};
};

struct UpsertBodiesResult {
  std::uint32_t created = 0;
  std::uint32_t replaced = 0;
};

// The poses of many dynamic bodies for one tick, packed as on the wire:
// positions holds 2 floats per body in 2D (x, y) or 3 in 3D; rotations 1 per
// body in 2D (the angle) or 4 in 3D (quaternion x, y, z, w). Fill it with
// Add(); do not mix 2D and 3D poses in one batch. Hitbox groups move with one
// pose each (AddGroup), packed the same way; bodies and groups named in the
// teleported lists jumped this tick (rewinds do not interpolate across it).
struct PoseBatch {
  std::vector<std::uint64_t> body_ids{};
  std::vector<float> positions{};
  std::vector<float> rotations{};
  std::vector<std::uint64_t> group_ids{};
  std::vector<float> group_positions{};
  std::vector<float> group_rotations{};
  std::vector<std::uint64_t> teleported_body_ids{};
  std::vector<std::uint64_t> teleported_group_ids{};

  void Add(std::uint64_t body_id, const Pose2& pose) {
    body_ids.push_back(body_id);
    positions.insert(positions.end(), {pose.position.x, pose.position.y});
    rotations.push_back(pose.rotation.Angle());
  }
  void Add(std::uint64_t body_id, const Pose3& pose) {
    body_ids.push_back(body_id);
    positions.insert(positions.end(),
                     {pose.position.x, pose.position.y, pose.position.z});
    rotations.insert(rotations.end(), {pose.rotation.x, pose.rotation.y,
                                       pose.rotation.z, pose.rotation.w});
  }
  void AddGroup(std::uint64_t group_id, const Pose2& pose) {
    group_ids.push_back(group_id);
    group_positions.insert(group_positions.end(),
                           {pose.position.x, pose.position.y});
    group_rotations.push_back(pose.rotation.Angle());
  }
  void AddGroup(std::uint64_t group_id, const Pose3& pose) {
    group_ids.push_back(group_id);
    group_positions.insert(group_positions.end(),
                           {pose.position.x, pose.position.y, pose.position.z});
    group_rotations.insert(
        group_rotations.end(),
        {pose.rotation.x, pose.rotation.y, pose.rotation.z, pose.rotation.w});
  }
  // Body poses in the batch (groups not counted).
  std::size_t size() const { return body_ids.size(); }
  void Clear() {
    body_ids.clear();
    positions.clear();
    rotations.clear();
    group_ids.clear();
    group_positions.clear();
    group_rotations.clear();
    teleported_body_ids.clear();
    teleported_group_ids.clear();
  }
};

// ---- Queries
// -----------------------------------------------------------------

enum class MotionFilter : std::uint8_t {
  kAll = 0,
  kStaticOnly = 1,
  kDynamicOnly = 2,
};

// Which bodies a query may hit: body B is a candidate when
// (mask & B.layer) != 0 and (B.mask & layer) != 0 (unset: all 64 bits), its
// id is not excluded and its motion type passes `motion`.
// A field added here or to QueryOptions must also be added to IsDefault
// (client/src/wire_convert.cc), which leaves default options off the wire.
struct QueryFilter {
  std::optional<std::uint64_t> layer{};
  std::optional<std::uint64_t> mask{};
  std::vector<std::uint64_t> exclude_body_ids{};
  MotionFilter motion = MotionFilter::kAll;
};

enum class ResultMode : std::uint8_t {
  // The server's default: kClosest.
  kUnspecified = 0,
  // Any one hit: the cheapest "is anything there?".
  kAny = 1,
  // The nearest hit (for overlap and contacts, the deepest).
  kClosest = 2,
  // Every hit, nearest first, at most max_hits.
  kAll = 3,
  // The nearest hit on each body, nearest first, at most max_hits.
  kClosestPerBody = 4,
};

// Runs a query against the scene as it was between `tick` and `tick + 1`,
// interpolated at `fraction` in [0, 1) (lag compensation).
struct Rewind {
  std::int64_t tick = 0;
  float fraction = 0.0f;
};

// Fields here are mirrored in IsDefault (client/src/wire_convert.cc).
struct QueryOptions {
  QueryFilter filter{};
  ResultMode mode = ResultMode::kUnspecified;
  // For kAll and kClosestPerBody: at most this many hits (0 means 64).
  std::uint32_t max_hits = 0;
  // Unset: the scene's current tick.
  std::optional<Rewind> rewind{};
};

// Which bodies intersect `shape` at `pose`.
struct OverlapQuery {
  AnyShape shape{};
  // Unset: the identity pose of the shape\'s dimension.
  std::optional<AnyPose> pose{};
};

// For each body overlapping `shape` at `pose`, the minimum translation vector
// that pushes the query shape out of it.
struct ContactsQuery {
  AnyShape shape{};
  // Unset: the identity pose of the shape\'s dimension.
  std::optional<AnyPose> pose{};
};

// Where `shape`, moving from `pose` by `displacement` without rotating, first
// touches each body.
struct SweepQuery {
  AnyShape shape{};
  // Unset: the identity pose of the shape\'s dimension.
  std::optional<AnyPose> pose{};
  AnyVector displacement{};
};

// Where a ray first meets each body. `direction` need not be unit length.
struct RaycastQuery {
  AnyVector origin{};
  AnyVector direction{};
  float max_distance = 0.0f;
};

// Which bodies contain `point`.
struct PointQuery {
  AnyVector point{};
};

// One query of any kind, for QueryBatch and sessions.
struct Query {
  std::variant<OverlapQuery, ContactsQuery, SweepQuery, RaycastQuery,
               PointQuery>
      kind{};
  QueryOptions options{};
};

// One hit, the same record for every query kind (see proto/sator/v1/
// query.proto, message Hit, for which fields each kind fills):
// contacts: normal from the body towards the query shape, distance = depth
// (a 2D level: one hit per edge touched, feature = the edge);
// sweep: distance = time of impact in [0, 1]; raycast: distance along the
// ray, outward normal, feature.
struct Hit {
  std::uint64_t body_id = 0;
  std::uint64_t user_data = 0;
  Vec3 point{};
  Vec3 normal{};
  float distance = 0.0f;
  // An edge or face index (the triangle index for a mesh), or -1.
  std::int32_t feature = -1;
  bool started_inside = false;
  // A part of a hitbox group: its group and part label (0, 0 otherwise).
  std::uint64_t group_id = 0;
  std::int32_t part = 0;
};

// The broad phase's work for one query.
struct QueryStats {
  std::uint32_t node_visits = 0;
  std::uint32_t leaf_visits = 0;
};

struct QueryResult {
  // The tick the answer describes (the current one, or the rewound one).
  std::int64_t tick = 0;
  std::vector<Hit> hits{};
  // Contacts only: the summed, capped MTV that leaves every body at once.
  Vec3 depenetration{};
  QueryStats stats{};
};

// One answer of a QueryBatch: its own status (one bad query does not fail the
// others) or its result.
using BatchEntry = absl::StatusOr<QueryResult>;

// The answers of a RaycastBatch (many rays with one set of options, sent in
// the packed form): the hits of every ray, nearest first, rays in the order
// sent. All rays were answered at `tick`.
struct RaycastBatchResult {
  std::int64_t tick = 0;
  // The hits of ray i are hits[offsets[i]] up to hits[offsets[i + 1]]
  // (exclusive); offsets holds one more element than there are rays.
  std::vector<std::uint32_t> offsets{};
  std::vector<Hit> hits{};

  std::size_t ray_count() const {
    return offsets.empty() ? 0 : offsets.size() - 1;
  }
  absl::Span<const Hit> HitsOf(std::size_t ray) const {
    return absl::MakeConstSpan(hits.data() + offsets[ray],
                               offsets[ray + 1] - offsets[ray]);
  }
};

// ---- Hit validation (docs/HIT_VALIDATION.md)
// ------------------------------------------

// The group (and optionally part) a client says its shot hit. The part is
// reported, not enforced: the verdict's hit names the part reached.
struct ShotTarget {
  std::uint64_t group_id = 0;
  std::optional<std::int32_t> part{};
};

// A view time as a delay: `ms` milliseconds before the scene's current tick
// (converted with the scene's tick_rate; negative is in the future).
struct ViewDelay {
  double ms = 0.0;
};

// One shot, judged as the shooter saw the world.
struct Shot {
  // The game's id for the shot, echoed in its verdict.
  std::uint64_t shot_id = 0;
  // The shooter's hitbox group; its own parts are never hit.
  std::uint64_t shooter_group_id = 0;
  AnyVector origin{};
  // Need not be unit length; not zero.
  AnyVector direction{};
  // In (0, 1e15].
  float range = 0.0f;
  // Unset: a ray. Else a sphere or capsule (2D: circle or capsule) swept
  // from `origin` along direction * range, rotated by shape_pose (whose
  // position is ignored).
  std::optional<AnyShape> shape{};
  std::optional<AnyPose> shape_pose{};
  // Unset: no target claimed.
  std::optional<ShotTarget> target{};
  // When the client saw the world; monostate: the scene's current tick.
  std::variant<std::monostate, Rewind, ViewDelay> view_time{};
  // Groups whose layer and mask fail QueryFilter's test with these are
  // friendly (never hit). Unset: all 64 bits.
  std::optional<std::uint64_t> layer{};
  std::optional<std::uint64_t> mask{};
};

enum class ShotOutcome : std::uint8_t {
  kUnspecified = 0,
  kHit = 1,
  kMiss = 2,
  kRejected = 3,
};

// Exactly one per verdict, in the numbering of sator.v1.ShotReason.
enum class ShotReason : std::uint8_t {
  kUnspecified = 0,
  kHit = 1,
  kClamped = 2,
  kOtherTargetHit = 3,
  kNothingHit = 4,
  kBlockedByWorld = 5,
  kTargetMissed = 6,
  kOutOfRange = 7,
  kTargetTeleported = 8,
  kTooOld = 9,
  kInFuture = 10,
  kUnknownShooter = 11,
  kOriginTooFar = 12,
  kUnknownTarget = 13,
};

// Stable lower_snake names, as satord's logs and the
// sator_shot_verdicts_total labels say them ("too_old"); "unspecified" for
// kUnspecified and for a value outside the enumeration.
std::string_view ShotOutcomeName(ShotOutcome outcome);
std::string_view ShotReasonName(ShotReason reason);

struct ShotVerdict {
  std::uint64_t shot_id = 0;
  ShotOutcome outcome = ShotOutcome::kUnspecified;
  ShotReason reason = ShotReason::kUnspecified;
  // The first thing the shot hit (a part, or a blocker); distance is along
  // the shot.
  std::optional<Hit> hit{};
  // The time judged at (after clamping), and how many ticks before the
  // current tick that is.
  std::int64_t tick = 0;
  float fraction = 0.0f;
  double rewind_ticks = 0.0;
  bool clamped = false;
  // For a claimed target the shot did not hit: the gap between the shot and
  // the target's nearest part, blockers ignored (favour-the-shooter
  // tolerances compare it).
  std::optional<float> target_miss_distance{};
};

struct ValidateShotsResult {
  // One per shot, in the order sent.
  std::vector<ShotVerdict> verdicts{};
  // The scene's newest tick when the shots were judged.
  std::int64_t current_tick = 0;
};

// One verdict of a scene's audit trail (ListShotVerdicts,
// WatchShotVerdicts), with the shot it judged.
struct ShotVerdictRecord {
  // Per scene, from 1, one more per verdict recorded.
  std::uint64_t sequence = 0;
  std::string scene_id{};
  Shot shot{};
  ShotVerdict verdict{};
  // The scene's newest tick when the shot was judged.
  std::int64_t current_tick = 0;
  // The server's clock when it was recorded (microseconds since the epoch).
  std::int64_t recorded_unix_micros = 0;
};

// Which records ListShotVerdicts returns; unset fields match all.
struct ShotVerdictFilter {
  std::optional<std::uint64_t> shooter_group_id{};
  // The claimed target's group or the hit's group.
  std::optional<std::uint64_t> target_group_id{};
  ShotOutcome outcome = ShotOutcome::kUnspecified;
  ShotReason reason = ShotReason::kUnspecified;
  // The verdict's tick, both inclusive.
  std::optional<std::int64_t> min_tick{};
  std::optional<std::int64_t> max_tick{};
};

struct ShotVerdictPageRequest {
  ShotVerdictFilter filter{};
  // 0 to 1000; 0: the server's default (100).
  int page_size = 0;
  // Empty: from the oldest record kept; else a next_page_token, or a
  // resume_sequence as decimal text.
  std::string page_token{};
};

struct ShotVerdictPage {
  // Oldest first.
  std::vector<ShotVerdictRecord> records{};
  // Empty once the newest record was reached.
  std::string next_page_token{};
  // The oldest sequence still kept (0: none); records between page_token
  // and it were overwritten before they were listed (skipped).
  std::uint64_t oldest_sequence = 0;
  std::uint64_t skipped = 0;
  // Verdicts this scene's ring has overwritten since the server started.
  std::uint64_t overwritten = 0;
  // The sequence after the last record examined (to poll from later).
  std::uint64_t resume_sequence = 0;
};

// Verdicts a watch did not receive: records first_sequence to
// first_sequence + dropped - 1 (overwritten, or dropped because the watch
// read slower than verdicts came).
struct ShotVerdictGap {
  std::uint64_t first_sequence = 0;
  std::uint64_t dropped = 0;
};

using ShotVerdictEvent = std::variant<ShotVerdictRecord, ShotVerdictGap>;

// The tick and fraction `delay_ms` milliseconds before `current_tick` at
// `tick_rate` ticks per second (the server's own conversion: a fraction
// never reaches 1). INVALID_ARGUMENT naming the argument for a tick < 0, a
// rate not in (0, 100000] or a delay not finite; OUT_OF_RANGE for a delay
// that reaches before tick 0.
absl::StatusOr<Rewind> ViewDelayToRewind(std::int64_t current_tick,
                                         double tick_rate, double delay_ms);

// ---- Pair queries (no scene)
// -------------------------------------------------

struct PairOverlap {};
struct PairContact {};
// A and B move linearly by these over t in [0, 1], without rotating.
struct PairSweep {
  AnyVector displacement_a{};
  AnyVector displacement_b{};
};
// A ray against shape A alone (shape B is ignored).
struct PairRaycast {
  AnyVector origin{};
  AnyVector direction{};
  float max_distance = 0.0f;
};

struct PairQueryRequest {
  AnyShape shape_a{};
  AnyPose pose_a{};
  AnyShape shape_b{};
  AnyPose pose_b{};
  std::variant<PairOverlap, PairContact, PairSweep, PairRaycast> kind{};
};

// The answer of the core function of the same kind (overlap: a bool).
using PairQueryResult =
    std::variant<bool, ContactResult<2>, ContactResult<3>, SweepResult<2>,
                 SweepResult<3>, RayResult<2>, RayResult<3>>;

// ---- Proximity -------------------------------------------------------------

// What a zone or observer moves with (docs/PROXIMITY.md).
struct ProximityAnchor {
  enum class Kind : std::uint8_t { kWorld = 0, kBody, kGroup };
  Kind kind = Kind::kWorld;
  std::uint64_t id = 0;
};

enum class ProximityReport : std::uint8_t {
  // Each body is an object.
  kPerBody = 0,
  // Each hitbox group is one object; a body in no group is one.
  kPerGroup = 1,
};

// A standing overlap query: the objects whose shapes overlap or touch
// `shape` at `pose` (in the world, or in the anchor's frame).
struct Zone {
  // Non-zero, unique among the scene's zones.
  std::uint64_t id = 0;
  AnyShape shape{};
  // Unset: the identity pose of the shape's dimension.
  std::optional<AnyPose> pose{};
  ProximityAnchor anchor{};
  QueryFilter filter{};
  ProximityReport report = ProximityReport::kPerBody;
  // Also an INSIDE event, every evaluation, for each object still inside.
  bool report_inside = false;
};

// An area of interest: an object enters when its shape comes within
// `radius` of the anchor's position and leaves beyond radius + hysteresis.
struct Observer {
  std::uint64_t id = 0;
  // A body or a group.
  ProximityAnchor anchor{};
  float radius = 0.0f;
  float hysteresis = 0.0f;
  QueryFilter filter{};
  ProximityReport report = ProximityReport::kPerBody;
};

// A body (body_id != 0; group_id its group or 0) or, in per-group sets, a
// group (body_id 0).
struct ProximityObject {
  std::uint64_t body_id = 0;
  std::uint64_t group_id = 0;
  friend bool operator==(const ProximityObject&,
                         const ProximityObject&) = default;
  friend bool operator<(const ProximityObject& a, const ProximityObject& b) {
    return a.body_id != b.body_id ? a.body_id < b.body_id
                                  : a.group_id < b.group_id;
  }
};

enum class ProximityEventKind : std::uint8_t { kEnter = 0, kExit, kInside };
enum class ProximitySource : std::uint8_t { kZone = 0, kObserver };

struct ProximityEvent {
  ProximityEventKind kind = ProximityEventKind::kEnter;
  ProximitySource source = ProximitySource::kZone;
  // The zone's or observer's id.
  std::uint64_t source_id = 0;
  ProximityObject object{};
  friend bool operator==(const ProximityEvent&,
                         const ProximityEvent&) = default;
};

// One evaluation's events (zones first, then observers, by ascending id,
// then by object).
struct ProximityTickEvents {
  std::uint64_t sequence = 0;
  std::int64_t tick = 0;
  std::vector<ProximityEvent> events{};
};

// A zone's or observer's whole set, ascending.
struct ProximitySet {
  ProximitySource source = ProximitySource::kZone;
  std::uint64_t source_id = 0;
  std::vector<ProximityObject> objects{};
};

// Sent in place of events a watch can no longer have: every set as of
// `tick`; the events that follow continue from it.
struct ProximityResync {
  std::int64_t tick = 0;
  std::vector<ProximitySet> sets{};
  // Evaluations the watch did not receive.
  std::uint64_t dropped = 0;
  std::uint64_t next_sequence = 0;
};

using ProximityStreamEvent = std::variant<ProximityTickEvents, ProximityResync>;

// Where a WatchProximity starts; at most one of the two. Neither: with the
// next evaluation.
struct ProximityWatchStart {
  // The first evaluation kept at or after this tick.
  std::optional<std::int64_t> tick{};
  // This sequence: one after the last ProximityTickEvents read, or a
  // resync's or GetProximity's next_sequence (exactly where it left off).
  std::optional<std::uint64_t> sequence{};
};

// GetProximity: the zones, the observers and the last evaluation's sets.
struct ProximityState {
  std::vector<Zone> zones{};
  std::vector<Observer> observers{};
  // -1 before the first evaluation.
  std::int64_t tick = -1;
  std::vector<ProximitySet> sets{};
  std::uint64_t next_sequence = 1;
};

// ---- Sessions
// ----------------------------------------------------------------

struct SessionOpen {
  std::string scene_id{};
};

struct SessionPoseUpdate {
  std::int64_t tick = 0;
  PoseBatch poses{};
};

// Shots on the session's scene.
struct SessionShots {
  std::vector<Shot> shots{};
  HitPolicy policy{};
};

// Follows the session's scene's proximity evaluations on the stream.
struct SessionWatchProximity {
  ProximityWatchStart start{};
};

// Many queries on the session's scene, answered in one reply.
struct SessionBatch {
  std::vector<Query> queries{};
};

// Replies to a SessionBatch: one entry per query, in order.
struct SessionBatchAnswered {
  std::vector<BatchEntry> entries{};
};

// One message a session sends. `sequence` is echoed in its reply.
struct SessionRequest {
  std::uint64_t sequence = 0;
  std::variant<SessionOpen, SessionPoseUpdate, Query, SessionShots,
               SessionWatchProximity, SessionBatch>
      kind{};
};

// Replies to a SessionOpen.
struct SessionOpened {
  std::int64_t current_tick = 0;
};
// Replies to a SessionPoseUpdate.
struct SessionPosesApplied {
  std::int64_t current_tick = 0;
};

// Replies to a SessionWatchProximity.
struct SessionProximityWatching {
  // The sequence the watch starts at (after the resync it may start with).
  std::uint64_t from_sequence = 0;
};

// A reply, or (ProximityStreamEvent) a message a proximity watch pushes,
// carrying the watch message's sequence.
struct SessionReply {
  std::uint64_t sequence = 0;
  absl::Status status{};
  // Empty when status is not OK.
  std::variant<std::monostate, SessionOpened, SessionPosesApplied, QueryResult,
               ValidateShotsResult, SessionProximityWatching,
               ProximityStreamEvent, SessionBatchAnswered>
      kind{};
};

// ---- Service ---------------------------------------------------------------

struct PingResult {
  std::string payload{};
  std::string server_version{};
};

enum class HealthStatus {
  kUnknown,
  kServing,
  kNotServing,
};

}  // namespace sator

#endif  // SATOR_CLIENT_TYPES_H_
