// Scene<D>: the writer side (bodies, ticks, history, window boxes, trees,
// publication). Queries live in scene_snapshot.cc.
//
// Window boxes (docs/core/scene.md): a body's box in the broad phase must
// contain it at every tick of the history window and at every pose a
// rewound query interpolates between two ticks. Position interpolation stays
// inside the box of the two positions; rotation interpolation can sweep a
// corner outside both tick's tight boxes, so between two ticks whose
// rotations differ we use the box of the bounding sphere (centre = the pose's
// position, radius = the farthest point of the shape), which contains the
// shape at any rotation, at both ends. The union of these per-tick boxes is
// convex, so it also contains every interpolated position.
// Boxes only grow when a tick arrives (O(1) per moved body); each update
// recomputes exactly the boxes of 1/H of the slots (block number
// update_count mod H of H contiguous blocks), so stale growth is dropped within
// H updates at O(N) total cost per update.
#include "sator/core/scene/scene.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sator/core/field_status.h"
#include "sator/core/scene/shot_validation.h"
#include "scene/id_index.h"
#include "scene/shape_ops.h"
#include "scene/snapshot_data.h"

namespace sator::scene {

using internal::BodyRecord;
using internal::BodyTable;
using internal::Frame;
using internal::ShapeOps;
using internal::SlotState;
using internal::SlotTree;
using internal::SnapshotData;
using internal::WriterState;

namespace {

// The dynamic tree is rebuilt (Morton sort) at least once per this many
// publications and refitted in between (see Publish).
constexpr int kDynamicRebuildInterval = 8;

template <int D>
bool SameRotation(const Pose<D>& a, const Pose<D>& b) {
  if constexpr (D == 2) {
    return a.rotation.c == b.rotation.c && a.rotation.s == b.rotation.s;
  } else {
    return a.rotation.x == b.rotation.x && a.rotation.y == b.rotation.y &&
           a.rotation.z == b.rotation.z && a.rotation.w == b.rotation.w;
  }
}

// The box that covers a body at pose `pose` (record `record`), and at every
// pose interpolated towards the pose of the same body at a neighbouring tick
// (`other`, null when there is none). When the rotation or the shape differs
// between the two ticks, the interpolated body (with the earlier tick's
// shape) can leave both tight boxes: the sphere boxes of the larger bounding
// radius at both positions contain it.
//
// Hitbox parts (`motion`, from PartMotionBetween): a rewound query composes
// the interpolated group pose with the interpolated local pose, whose
// position p(t) = g(t) + R(t) l(t) leaves the segment between the two world
// positions w0, w1 by at most |l(t)| + |lerp(R0 l0, R1 l1)| <= 2 max |l|
// (`extra`), so the sphere boxes grow by that much whenever the local pose
// or the world rotation changes. With both unchanged the part only
// translates with its group and the tight boxes suffice.
struct PartMotion {
  float extra = 0.0f;
  bool same_local = true;
};

template <int D>
PartMotion PartMotionBetween(const internal::GroupPoses<D>* a,
                             const BodyRecord<D>& record_a,
                             const internal::GroupPoses<D>* b,
                             const BodyRecord<D>* record_b,
                             std::uint32_t slot) {
  if (record_a.group_id == 0 || record_b == nullptr ||
      record_b->group_id != record_a.group_id || a == nullptr || b == nullptr ||
      slot >= a->local.size() || slot >= b->local.size()) {
    return {};
  }
  const Pose<D>& la = a->local[slot];
  const Pose<D>& lb = b->local[slot];
  PartMotion motion;
  motion.extra = 2.0f * std::max(Length(la.position), Length(lb.position));
  motion.same_local = la.position == lb.position && SameRotation<D>(la, lb);
  return motion;
}

template <int D>
Aabb<D> TickBox(const BodyRecord<D>& record, const Pose<D>& pose,
                const BodyRecord<D>* other_record, const Pose<D>* other,
                PartMotion motion = {}) {
  Aabb<D> box = ShapeOps<D>::Bounds(*record.shape, pose);
  if (other != nullptr &&
      (!SameRotation<D>(pose, *other) || record.shape != other_record->shape ||
       !motion.same_local)) {
    const float radius =
        std::max(record.radius, other_record->radius) + motion.extra;
    box = Union(box, internal::SphereBox<D>(pose.position, radius));
    box = Union(box, internal::SphereBox<D>(other->position, radius));
  }
  return box;
}

template <int D>
const BodyRecord<D>* RecordAt(const Frame<D>& frame, std::uint32_t slot) {
  if (slot >= frame.table->size()) return nullptr;
  const BodyRecord<D>& record = (*frame.table)[slot];
  return record.incarnation == 0 ? nullptr : &record;
}

// SlotTree::current_boxes for `tree`: each proxy's padded bounding-sphere
// box at the newest tick (the same box the box queries cull candidates with,
// from the position and the bound radius, so no shape is loaded; a group's
// is the union of its parts'), in leaf order. Computed in proxy order first
// (the slots ascend, so records and poses are read in order) into
// `scratch`, then gathered into leaf order.
template <int D>
std::shared_ptr<const std::vector<Aabb<D>>> CurrentBoxes(
    const Frame<D>& newest, const SlotTree<D>& tree,
    std::vector<Aabb<D>>* scratch) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  Aabb<D> empty;
  for (int i = 0; i < D; ++i) {
    empty.min[i] = kInf;
    empty.max[i] = -kInf;
  }
  const std::vector<Pose<D>>& poses = *newest.poses;
  const std::vector<std::uint32_t>& entries = *tree.slots;
  scratch->resize(entries.size());
  for (std::size_t p = 0; p < entries.size(); ++p) {
    Aabb<D> box = empty;
    for (const std::uint32_t slot : internal::ProxySlots(tree, entries[p])) {
      const BodyRecord<D>* record = RecordAt(newest, slot);
      if (record == nullptr) continue;
      box = Union(box, internal::Pad(internal::SphereBox<D>(
                           poses[slot].position, record->radius)));
    }
    (*scratch)[p] = box;
  }
  const std::span<const std::uint32_t> leaf_ids = tree.bvh->LeafIds();
  auto boxes = std::make_shared<std::vector<Aabb<D>>>(leaf_ids.size());
  for (std::size_t k = 0; k < leaf_ids.size(); ++k) {
    (*boxes)[k] = (*scratch)[leaf_ids[k]];
  }
  return boxes;
}

// The exact window box of `slot` over `frames`. While a body keeps its shape
// and rotation, its tight box is one local box translated by the position,
// so the bounds are computed once per run of equal rotations (the
// translated box differs from ComputeAabb's by round-off far below Pad's
// margin).
// The fast case of ExactWindowBox: every frame of the window shares one
// table (no upsert or removal in the window, so the slot holds one body with
// one shape throughout) and the body kept one rotation. Its tight boxes are
// then one local box translated by each position, and the union is the
// local box plus the range of the positions, exactly: rounding is monotone,
// so min_i fl(a + p_i) = fl(a + min_i p_i). False when the case does not
// apply.
template <int D>
bool TranslatedWindowBox(const std::vector<const Frame<D>*>& frames,
                         std::uint32_t slot, Aabb<D>* out) {
  const BodyRecord<D>* record = RecordAt(*frames[0], slot);
  // A hitbox part's interpolated pose is not a translation of its ticks'.
  if (record == nullptr || record->group_id != 0) return false;
  const Pose<D>& first = (*frames[0]->poses)[slot];
  Vec<D> lo = first.position;
  Vec<D> hi = first.position;
  bool same_rotation = true;
  for (std::size_t i = 1; i < frames.size(); ++i) {
    const Pose<D>& pose = (*frames[i]->poses)[slot];
    same_rotation &= SameRotation<D>(pose, first);
    lo = Min(lo, pose.position);
    hi = Max(hi, pose.position);
  }
  if (!same_rotation) return false;
  Pose<D> at_origin = first;
  at_origin.position = Vec<D>{};
  const Aabb<D> local = ShapeOps<D>::Bounds(*record->shape, at_origin);
  *out = {local.min + lo, local.max + hi};
  return true;
}

template <int D>
bool ExactWindowBox(const std::vector<const Frame<D>*>& frames,
                    std::uint32_t slot, Aabb<D>* out) {
  bool any = false;
  Aabb<D> box{};
  const BodyRecord<D>* run_record = nullptr;
  Pose<D> run_pose{};
  Aabb<D> local{};
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const BodyRecord<D>* record = RecordAt(*frames[i], slot);
    if (record == nullptr) continue;
    const Pose<D>& pose = (*frames[i]->poses)[slot];
    const BodyRecord<D>* next_record = nullptr;
    const Pose<D>* next = nullptr;
    if (i + 1 < frames.size()) {
      next_record = RecordAt(*frames[i + 1], slot);
      if (next_record != nullptr &&
          next_record->incarnation == record->incarnation) {
        next = &(*frames[i + 1]->poses)[slot];
      } else {
        next_record = nullptr;
      }
    }
    Aabb<D> tick_box{};
    const PartMotion motion =
        next == nullptr ? PartMotion{}
                        : PartMotionBetween<D>(frames[i]->groups.get(), *record,
                                               frames[i + 1]->groups.get(),
                                               next_record, slot);
    if (next == nullptr ||
        (SameRotation<D>(pose, *next) && next_record->shape == record->shape &&
         motion.same_local)) {
      if (run_record == nullptr || run_record->shape != record->shape ||
          !SameRotation<D>(run_pose, pose)) {
        run_record = record;
        run_pose = pose;
        Pose<D> at_origin = pose;
        at_origin.position = Vec<D>{};
        local = ShapeOps<D>::Bounds(*record->shape, at_origin);
      }
      tick_box = {local.min + pose.position, local.max + pose.position};
    } else {
      tick_box = TickBox<D>(*record, pose, next_record, next, motion);
    }
    box = any ? Union(box, tick_box) : tick_box;
    any = true;
  }
  if (any) *out = box;
  return any;
}

// PartState::local_box of the part in `slot` over `frames`: the union of
// its bounding spheres in its group's frame at the ticks that hold it in a
// group. Leaves `*out` as it is when no tick does.
template <int D>
void WindowLocalBox(const std::vector<const Frame<D>*>& frames,
                    std::uint32_t slot, Aabb<D>* out) {
  bool any = false;
  Aabb<D> box{};
  for (const Frame<D>* frame : frames) {
    const BodyRecord<D>* record = RecordAt(*frame, slot);
    if (record == nullptr || record->group_id == 0) continue;
    const Aabb<D> sphere = internal::SphereBox<D>(
        frame->groups->local[slot].position, record->radius);
    box = any ? Union(box, sphere) : sphere;
    any = true;
  }
  if (any) *out = box;
}

// Takes `slot` out of the live parts of `group_id` (a group with no part
// left is forgotten, pose included).
template <int D>
void LeaveGroup(WriterState<D>& w, std::uint64_t group_id, std::uint32_t slot) {
  auto it = w.groups.find(group_id);
  if (it == w.groups.end()) return;
  std::vector<std::uint32_t>& members = it->second.members;
  members.erase(std::remove(members.begin(), members.end(), slot),
                members.end());
  if (members.empty()) w.groups.erase(it);
}

}  // namespace

template <int D>
absl::StatusOr<std::unique_ptr<Scene<D>>> Scene<D>::Create(
    const SceneOptions& options) {
  if (options.history_ticks < 1 || options.history_ticks > kMaxHistoryTicks) {
    return FieldError("history_ticks",
                      absl::StrCat("must be in [1, ", kMaxHistoryTicks,
                                   "], got ", options.history_ticks));
  }
  // isnan first: an ordered comparison with a NaN raises FE_INVALID.
  if (std::isnan(options.teleport_distance) ||
      options.teleport_distance <= 0.0f) {
    return FieldError("teleport_distance",
                      absl::StrCat("must be positive (or +infinity), got ",
                                   options.teleport_distance));
  }
  if (options.max_bodies < 1 || options.max_bodies > kMaxBodies) {
    return FieldError("max_bodies",
                      absl::StrCat("must be in [1, ", kMaxBodies, "], got ",
                                   options.max_bodies));
  }
  if (options.max_hits < 1) {
    return FieldError("max_hits",
                      absl::StrCat("must be positive, got ", options.max_hits));
  }
  if (!std::isfinite(options.tick_rate) || options.tick_rate <= 0.0 ||
      options.tick_rate > kMaxTickRate) {
    return FieldError("tick_rate", absl::StrCat("must be in (0, ", kMaxTickRate,
                                                "], got ", options.tick_rate));
  }
  if (absl::Status status = ValidateHitPolicy(options.hit_policy);
      !status.ok()) {
    return PrefixField("hit_policy", status);
  }
  return std::unique_ptr<Scene<D>>(new Scene<D>(options));
}

template <int D>
Scene<D>::Scene(const SceneOptions& options)
    : options_(options), writer_(std::make_unique<WriterState<D>>()) {
  Frame<D> first;
  first.tick = 0;
  first.table = internal::NewBodyTable<D>();
  first.poses = std::make_shared<const std::vector<Pose<D>>>();
  writer_->frames.push_back(first);
  Publish();
}

template <int D>
Scene<D>::~Scene() = default;

template <int D>
SceneSnapshot<D> Scene<D>::Snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  return SceneSnapshot<D>(snapshot_);
}

template <int D>
absl::Status Scene<D>::UpsertBodies(absl::Span<const BodyDesc<D>> bodies) {
  std::lock_guard<std::mutex> writer_lock(writer_mutex_);
  WriterState<D>& w = *writer_;
  // ---- Validate everything first.
  // The slot of each body already in the scene, or kNone (left empty when
  // the scene has no bodies: every body is then new).
  const bool scene_empty = w.id_to_slot.size() == 0;
  std::vector<std::uint32_t> existing_slots(scene_empty ? 0 : bodies.size());
  // Duplicate ids: while the ids ascend strictly (the usual batch) none can
  // repeat, and no set is needed; at the first id that does not ascend, the
  // ids so far go into `seen` (id -> its first index in `bodies`), which
  // checks the rest.
  internal::IdIndex seen;
  bool ascending = true;
  std::size_t new_count = 0;
  // Lookups and shapes are prefetched kPrefetchAhead bodies ahead of their
  // use (IdIndex::Prefetch): at 100k bodies each is a cache miss.
  constexpr std::size_t kPrefetchAhead = 16;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const BodyDesc<D>& body = bodies[i];
    if (i + kPrefetchAhead < bodies.size()) {
      const BodyDesc<D>& ahead = bodies[i + kPrefetchAhead];
      if (!ascending) seen.Prefetch(ahead.id);
      w.id_to_slot.Prefetch(ahead.id);
      internal::PrefetchShape<D>(ahead.shape.get());
    }
    // Formatted only for an error (it costs more than the checks).
    auto where = [i] { return absl::StrCat("bodies[", i, "]"); };
    if (ascending && i > 0 && body.id <= bodies[i - 1].id) {
      ascending = false;
      seen.Reserve(bodies.size());
      for (std::size_t j = 0; j < i; ++j) {
        seen.Insert(bodies[j].id, static_cast<std::uint32_t>(j));
      }
    }
    if (!ascending) {
      if (const std::uint32_t first =
              seen.FindOrInsert(body.id, static_cast<std::uint32_t>(i));
          first != internal::IdIndex::kNone) {
        return PrefixField(
            where(),
            FieldError("id", absl::StrCat("body ", body.id, " is also bodies[",
                                          first, "]")));
      }
    }
    if (body.shape == nullptr) {
      return PrefixField(where(), FieldError("shape", "is null"));
    }
    if (absl::Status status = ShapeOps<D>::ValidateBodyShape(
            *body.shape, body.motion == MotionType::kStatic);
        !status.ok()) {
      return PrefixField(where(), PrefixField("shape", status));
    }
    // The pose is checked here and normalised again (deterministically) when
    // it is applied, which saves a copy of every pose.
    if (!ShapeOps<D>::IsAcceptedAsIs(body.pose)) {
      absl::StatusOr<Pose<D>> pose = ShapeOps<D>::CheckPose(body.pose);
      if (!pose.ok()) {
        return PrefixField(where(), PrefixField("pose", pose.status()));
      }
    }
    if (body.motion != MotionType::kStatic &&
        body.motion != MotionType::kDynamic) {
      return PrefixField(where(), FieldError("motion", "unknown motion type"));
    }
    if (body.part < kMinPart || body.part > kMaxPart) {
      return PrefixField(
          where(),
          FieldError("part", absl::StrCat("must be in [", kMinPart, ", ",
                                          kMaxPart, "], got ", body.part)));
    }
    if (body.group_id != 0 && body.motion != MotionType::kDynamic) {
      return PrefixField(
          where(),
          FieldError("group_id", "a hitbox part must be a dynamic body"));
    }
    if (scene_empty) {
      ++new_count;
    } else {
      existing_slots[i] = w.id_to_slot.Find(body.id);
      if (existing_slots[i] == internal::IdIndex::kNone) ++new_count;
    }
  }
  if (w.id_to_slot.size() + new_count >
      static_cast<std::size_t>(options_.max_bodies)) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, "bodies",
        absl::StrCat("the scene would hold ", w.id_to_slot.size() + new_count,
                     " bodies, above its limit of ", options_.max_bodies));
  }
  if (bodies.empty()) return absl::OkStatus();
  // Exact growth: the slot array is per-body memory that stays.
  if (w.slots.capacity() < w.slots.size() + new_count) {
    w.slots.reserve(w.slots.size() + new_count);
  }
  w.id_to_slot.Reserve(w.id_to_slot.size() + new_count);

  // ---- Apply: a new table and pose array for the current tick, sized once
  // (new bodies take free slots first, then slots past the end).
  const Frame<D>& current = w.frames.back();
  const std::size_t past_the_end =
      new_count > w.free_slots.size() ? new_count - w.free_slots.size() : 0;
  const std::size_t table_size =
      std::max(current.table->size(), w.slots.size() + past_the_end);
  std::shared_ptr<BodyTable<D>> table = internal::NewBodyTable<D>();
  table->reserve(table_size);
  table->assign(current.table->begin(), current.table->end());
  table->resize(table_size);
  auto pose_array = std::make_shared<std::vector<Pose<D>>>();
  pose_array->reserve(table_size);
  pose_array->assign(current.poses->begin(), current.poses->end());
  pose_array->resize(table_size);
  const Frame<D>* previous =
      w.frames.size() >= 2 ? &w.frames[w.frames.size() - 2] : nullptr;
  // Hitbox poses: copied (and sized like the pose array) once the scene has
  // a part; untouched by scenes without groups.
  std::shared_ptr<internal::GroupPoses<D>> group_poses;
  if (current.groups != nullptr ||
      std::any_of(bodies.begin(), bodies.end(),
                  [](const BodyDesc<D>& b) { return b.group_id != 0; })) {
    group_poses =
        current.groups != nullptr
            ? std::make_shared<internal::GroupPoses<D>>(*current.groups)
            : std::make_shared<internal::GroupPoses<D>>();
    group_poses->local.resize(table_size);
    group_poses->group.resize(table_size);
  }
  std::shared_ptr<internal::GroupSlots> group_slots;  // Copied on change.
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const BodyDesc<D>& body = bodies[i];
    if (i + kPrefetchAhead < bodies.size()) {
      w.id_to_slot.Prefetch(bodies[i + kPrefetchAhead].id);
      internal::PrefetchShape<D>(bodies[i + kPrefetchAhead].shape.get());
    }
    std::uint32_t slot = 0;
    std::uint64_t incarnation = 0;
    bool is_new = false;
    const std::uint32_t existing =
        scene_empty ? internal::IdIndex::kNone : existing_slots[i];
    if (existing != internal::IdIndex::kNone) {
      slot = existing;
      incarnation = (*table)[slot].incarnation;
    } else {
      if (!w.free_slots.empty()) {
        slot = w.free_slots.back();
        w.free_slots.pop_back();
      } else {
        slot = static_cast<std::uint32_t>(w.slots.size());
        w.slots.emplace_back();
      }
      incarnation = w.next_incarnation++;
      is_new = true;
      w.id_to_slot.Insert(body.id, slot);
      SlotState<D>& state = w.slots[slot];
      state = SlotState<D>{};
      state.in_use = true;
    }
    BodyRecord<D>& record = (*table)[slot];
    const std::uint64_t old_group = is_new ? 0 : record.group_id;
    if (old_group != 0 && old_group != body.group_id) {
      LeaveGroup(w, old_group, slot);
    }
    record.id = body.id;
    record.user_data = body.user_data;
    record.layer = body.layer;
    record.mask = body.mask;
    record.incarnation = incarnation;
    if (record.shape != nullptr) w.shape_bytes.Release(*record.shape);
    w.shape_bytes.Add(*body.shape);
    record.shape = body.shape;
    record.radius = ShapeOps<D>::BoundRadius(*body.shape);
    record.inside_256ths = internal::InsideFraction(
        ShapeOps<D>::InsideRadius(*body.shape), record.radius);
    record.motion = body.motion;
    record.group_id = body.group_id;
    record.part = static_cast<std::int16_t>(body.part);
    Pose<D> pose = ShapeOps<D>::IsAcceptedAsIs(body.pose)
                       ? body.pose
                       : *ShapeOps<D>::CheckPose(body.pose);
    if (body.group_id != 0) {
      internal::GroupState<D>& group = w.groups[body.group_id];
      if (old_group != body.group_id) {
        group.members.push_back(slot);
        if (group_slots == nullptr) {
          group_slots = std::make_shared<internal::GroupSlots>(*w.group_slots);
        }
        std::vector<std::uint32_t>& ever = (*group_slots)[body.group_id];
        if (std::find(ever.begin(), ever.end(), slot) == ever.end()) {
          ever.push_back(slot);
        }
      }
      group_poses->local[slot] = pose;
      group_poses->group[slot] = group.pose;
      pose = Mul(group.pose, pose);
    }
    (*pose_array)[slot] = pose;
    SlotState<D>& state = w.slots[slot];
    if (body.group_id != 0 || old_group != 0) {
      if (w.parts.size() < w.slots.size()) w.parts.resize(w.slots.size());
      internal::PartState<D>& part = w.parts[slot];
      const bool joined = is_new || old_group != body.group_id;
      if (joined) {
        // Earlier ticks of the window hold no body in a new slot, and the
        // body in another group (or none) in an existing one.
        part.group_since =
            is_new ? std::numeric_limits<std::int64_t>::min() : current.tick;
      }
      if (body.group_id != 0) {
        const Aabb<D> sphere = internal::SphereBox<D>(
            group_poses->local[slot].position, record.radius);
        part.local_box = joined ? sphere : Union(part.local_box, sphere);
      }
    }
    if (state.motion != body.motion) w.static_dirty = true;
    if (body.motion == MotionType::kStatic) w.static_dirty = true;
    state.motion = body.motion;
    // Grow the window box by the new tick box.
    const BodyRecord<D>* prev_record =
        previous != nullptr ? RecordAt(*previous, slot) : nullptr;
    const Pose<D>* prev_pose = nullptr;
    if (prev_record != nullptr && prev_record->incarnation == incarnation) {
      prev_pose = &(*previous->poses)[slot];
    } else {
      prev_record = nullptr;
    }
    const Aabb<D> box = TickBox<D>(
        record, pose, prev_record, prev_pose,
        prev_record == nullptr
            ? PartMotion{}
            : PartMotionBetween<D>(group_poses.get(), record,
                                   previous->groups.get(), prev_record, slot));
    if (is_new) {
      state.window_box = box;
      state.grown = false;
    } else {
      state.window_box = Union(state.window_box, box);
      state.grown = true;
    }
  }
  w.frames.back().table = std::move(table);
  w.frames.back().poses = std::move(pose_array);
  if (group_poses != nullptr) w.frames.back().groups = std::move(group_poses);
  if (group_slots != nullptr) w.group_slots = std::move(group_slots);
  Publish();
  return absl::OkStatus();
}

template <int D>
absl::Status Scene<D>::RemoveBodies(absl::Span<const std::uint64_t> ids) {
  std::lock_guard<std::mutex> writer_lock(writer_mutex_);
  WriterState<D>& w = *writer_;
  internal::IdIndex seen;  // id -> its first index in `ids`.
  seen.Reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (const std::uint32_t first =
            seen.FindOrInsert(ids[i], static_cast<std::uint32_t>(i));
        first != internal::IdIndex::kNone) {
      return FieldError(
          absl::StrCat("ids[", i, "]"),
          absl::StrCat("body ", ids[i], " is also ids[", first, "]"));
    }
    if (!w.id_to_slot.Contains(ids[i])) {
      return FieldError(absl::StatusCode::kNotFound,
                        absl::StrCat("ids[", i, "]"),
                        absl::StrCat("no body ", ids[i], " in the scene"));
    }
  }
  if (ids.empty()) return absl::OkStatus();
  Frame<D>& current = w.frames.back();
  std::shared_ptr<BodyTable<D>> table = internal::NewBodyTable<D>();
  *table = *current.table;
  for (const std::uint64_t id : ids) {
    const std::uint32_t slot = w.id_to_slot.Find(id);
    if ((*table)[slot].group_id != 0) {
      LeaveGroup(w, (*table)[slot].group_id, slot);
    }
    w.shape_bytes.Release(*(*table)[slot].shape);
    (*table)[slot] = BodyRecord<D>{};
    w.pending_removals.push_back({slot, current.tick});
    if (w.slots[slot].motion == MotionType::kStatic) w.static_dirty = true;
    w.id_to_slot.Erase(id);
  }
  current.table = std::move(table);
  Publish();
  return absl::OkStatus();
}

template <int D>
absl::Status Scene<D>::UpdatePoses(std::int64_t tick,
                                   absl::Span<const PoseUpdate<D>> updates) {
  return UpdatePoses(tick, updates, {});
}

template <int D>
absl::Status Scene<D>::UpdatePoses(
    std::int64_t tick, absl::Span<const PoseUpdate<D>> updates,
    absl::Span<const GroupPoseUpdate<D>> group_updates) {
  std::lock_guard<std::mutex> writer_lock(writer_mutex_);
  WriterState<D>& w = *writer_;
  const std::int64_t current_tick = w.frames.back().tick;
  if (tick < current_tick) {
    return FieldError(
        absl::StatusCode::kFailedPrecondition, "tick",
        absl::StrCat(tick, " is older than the current tick ", current_tick));
  }
  // Group poses first (the parts' world poses below compose them).
  std::vector<std::pair<internal::GroupState<D>*, Pose<D>>> new_group_poses;
  new_group_poses.reserve(group_updates.size());
  for (std::size_t i = 0; i < group_updates.size(); ++i) {
    auto it = w.groups.find(group_updates[i].group_id);
    if (it == w.groups.end()) {
      return FieldError(absl::StatusCode::kNotFound,
                        absl::StrCat("group_updates[", i, "].group_id"),
                        absl::StrCat("no group ", group_updates[i].group_id,
                                     " in the scene"));
    }
    absl::StatusOr<Pose<D>> pose =
        ShapeOps<D>::CheckPose(group_updates[i].pose);
    if (!pose.ok()) {
      return PrefixIndex("group_updates", static_cast<int>(i),
                         PrefixField("pose", pose.status()));
    }
    new_group_poses.push_back({&it->second, *pose});
  }
  // Validate every update while writing it into a copy of the newest pose
  // array (recycled memory; the copy is simply dropped if an update is
  // refused, so nothing is applied). A new tick starts from the same poses
  // (the new frame shares the newest array until it is replaced here).
  std::shared_ptr<std::vector<Pose<D>>> pose_array;
  if (!updates.empty() || !group_updates.empty()) {
    pose_array = std::const_pointer_cast<std::vector<Pose<D>>>(
        internal::RecycleBin<D>::CopyPoses(w.recycle_bin,
                                           *w.frames.back().poses));
  }
  // Parts' local and group poses: copied only when the batch moves a part.
  std::shared_ptr<internal::GroupPoses<D>> group_poses;
  auto mutable_group_poses = [&]() -> internal::GroupPoses<D>& {
    if (group_poses == nullptr) {
      group_poses =
          std::make_shared<internal::GroupPoses<D>>(*w.frames.back().groups);
    }
    return *group_poses;
  };
  // Slots whose world pose is a group pose * local pose to recompute.
  std::vector<std::uint32_t> part_slots;
  // Games send the same bodies in the same order every tick: the previous
  // batch's slots answer most lookups without hashing. A cached slot is
  // right exactly when the newest table holds a live body with that id
  // there (ids are unique among live bodies, and a removal clears its
  // record), so the cache needs no invalidation. order_slots[i] is the
  // slot of updates[i] once the loop has passed i.
  const BodyTable<D>& newest_table = *w.frames.back().table;
  if (w.order_slots.size() != updates.size()) {
    w.order_slots.assign(updates.size(), 0);
  }
  bool any_teleport = false;
  for (std::size_t i = 0; i < updates.size(); ++i) {
    std::uint32_t slot = w.order_slots[i];
    if (slot >= newest_table.size() || newest_table[slot].incarnation == 0 ||
        newest_table[slot].id != updates[i].id) {
      slot = w.id_to_slot.Find(updates[i].id);
      if (slot == internal::IdIndex::kNone) {
        return FieldError(
            absl::StatusCode::kNotFound, absl::StrCat("updates[", i, "].id"),
            absl::StrCat("no body ", updates[i].id, " in the scene"));
      }
      w.order_slots[i] = slot;
    }
    if (w.slots[slot].motion != MotionType::kDynamic) {
      return FieldError(absl::StatusCode::kFailedPrecondition,
                        absl::StrCat("updates[", i, "].id"),
                        absl::StrCat("body ", updates[i].id,
                                     " is static (move it with UpsertBodies)"));
    }
    any_teleport |= updates[i].teleported;
    Pose<D> pose = updates[i].pose;
    if (!ShapeOps<D>::IsAcceptedAsIs(pose)) {
      absl::StatusOr<Pose<D>> checked = ShapeOps<D>::CheckPose(pose);
      if (!checked.ok()) {
        return PrefixIndex("updates", static_cast<int>(i),
                           PrefixField("pose", checked.status()));
      }
      pose = *checked;
    }
    if (newest_table[slot].group_id != 0) {
      mutable_group_poses().local[slot] = pose;
      part_slots.push_back(slot);
    } else {
      (*pose_array)[slot] = pose;
    }
  }
  for (std::size_t i = 0; i < new_group_poses.size(); ++i) {
    auto& [group, pose] = new_group_poses[i];
    group->pose = pose;
    any_teleport |= group_updates[i].teleported;
    internal::GroupPoses<D>& poses = mutable_group_poses();
    for (const std::uint32_t slot : group->members) {
      poses.group[slot] = pose;
      part_slots.push_back(slot);
    }
  }
  for (const std::uint32_t slot : part_slots) {
    (*pose_array)[slot] =
        Mul(group_poses->group[slot], group_poses->local[slot]);
  }

  const auto history = static_cast<std::size_t>(options_.history_ticks);
  if (tick > current_tick) {
    // Skipped ticks repeat the last state (only the last H - 1 can matter);
    // nothing teleports at them.
    Frame<D> last = w.frames.back();
    last.teleported = nullptr;
    const std::int64_t gap = tick - current_tick - 1;
    const std::int64_t kept =
        std::min<std::int64_t>(gap, static_cast<std::int64_t>(history) - 1);
    if (gap > kept) w.frames.clear();
    for (std::int64_t t = tick - kept; t < tick; ++t) {
      Frame<D> copy = last;
      copy.tick = t;
      w.frames.push_back(std::move(copy));
    }
    Frame<D> next = last;
    next.tick = tick;
    w.frames.push_back(std::move(next));
    while (w.frames.size() > history) w.frames.pop_front();
  }
  Frame<D>& frame = w.frames.back();
  if (pose_array != nullptr) frame.poses = std::move(pose_array);
  if (group_poses != nullptr) frame.groups = std::move(group_poses);
  if (any_teleport) {
    auto teleported =
        frame.teleported != nullptr
            ? std::make_shared<std::vector<std::uint8_t>>(*frame.teleported)
            : std::make_shared<std::vector<std::uint8_t>>();
    teleported->resize(frame.poses->size(), 0);
    for (std::size_t i = 0; i < updates.size(); ++i) {
      if (updates[i].teleported) (*teleported)[w.order_slots[i]] = 1;
    }
    for (std::size_t i = 0; i < new_group_poses.size(); ++i) {
      if (!group_updates[i].teleported) continue;
      for (const std::uint32_t slot : new_group_poses[i].first->members) {
        (*teleported)[slot] = 1;
      }
    }
    frame.teleported = std::move(teleported);
  }
  const Frame<D>* previous =
      w.frames.size() >= 2 ? &w.frames[w.frames.size() - 2] : nullptr;
  const BodyTable<D>& table = *frame.table;
  const std::vector<Pose<D>>& poses = *frame.poses;
  auto grow = [&](std::uint32_t slot) {
    const BodyRecord<D>& record = table[slot];
    const Pose<D>& pose = poses[slot];
    const BodyRecord<D>* prev_record =
        previous != nullptr ? RecordAt(*previous, slot) : nullptr;
    const Pose<D>* prev_pose = nullptr;
    PartMotion motion;
    if (prev_record != nullptr &&
        prev_record->incarnation == record.incarnation) {
      prev_pose = &(*previous->poses)[slot];
      motion = PartMotionBetween<D>(frame.groups.get(), record,
                                    previous->groups.get(), prev_record, slot);
    } else {
      prev_record = nullptr;
    }
    SlotState<D>& state = w.slots[slot];
    state.window_box =
        Union(state.window_box,
              TickBox<D>(record, pose, prev_record, prev_pose, motion));
    state.grown = true;
    if (record.group_id != 0) {
      internal::PartState<D>& part = w.parts[slot];
      part.local_box =
          Union(part.local_box,
                internal::SphereBox<D>(frame.groups->local[slot].position,
                                       record.radius));
    }
  };
  for (std::size_t i = 0; i < updates.size(); ++i) grow(w.order_slots[i]);
  for (const std::uint32_t slot : part_slots) grow(slot);

  // Free the slots of bodies removed before the window, in ascending slot
  // order (as a scan of the slots would).
  const std::int64_t oldest = w.frames.front().tick;
  if (!w.pending_removals.empty()) {
    std::vector<std::uint32_t> freed;
    std::size_t kept = 0;
    for (const auto& [slot, removed_tick] : w.pending_removals) {
      if (removed_tick <= oldest) {
        freed.push_back(slot);
      } else {
        w.pending_removals[kept++] = {slot, removed_tick};
      }
    }
    w.pending_removals.resize(kept);
    std::sort(freed.begin(), freed.end());
    for (const std::uint32_t slot : freed) {
      w.slots[slot] = SlotState<D>{};
      w.free_slots.push_back(slot);
      w.static_dirty = true;  // Cheap to be conservative: removals are rare.
    }
    if (!freed.empty() && !w.group_slots->empty()) {
      auto group_slots = std::make_shared<internal::GroupSlots>();
      for (const auto& [group_id, slots] : *w.group_slots) {
        std::vector<std::uint32_t> kept_slots;
        for (const std::uint32_t slot : slots) {
          if (!std::binary_search(freed.begin(), freed.end(), slot)) {
            kept_slots.push_back(slot);
          }
        }
        if (!kept_slots.empty()) {
          (*group_slots)[group_id] = std::move(kept_slots);
        }
      }
      w.group_slots = std::move(group_slots);
    }
  }
  // Recompute the window boxes of one block of 1/H of the slots
  // (contiguous, so the reads of each tick's pose array share cache lines).
  const std::uint64_t residue = w.update_count % history;
  const std::size_t block =
      std::max<std::size_t>(1, (w.slots.size() + history - 1) / history);
  ++w.update_count;
  const std::size_t block_begin = std::min(w.slots.size(), residue * block);
  const std::size_t block_end = std::min(w.slots.size(), block_begin + block);
  std::vector<const Frame<D>*> window;
  bool one_table = true;  // Every frame of the window shares one table.
  if (block_begin < block_end) {
    window.reserve(w.frames.size());
    for (const Frame<D>& f : w.frames) {
      window.push_back(&f);
      one_table &= f.table == w.frames.front().table;
    }
  }
  const Frame<D>& newest = w.frames.back();
  for (std::size_t s = block_begin; s < block_end; ++s) {
    const auto slot = static_cast<std::uint32_t>(s);
    SlotState<D>& state = w.slots[slot];
    if (!state.in_use || !state.grown) continue;
    Aabb<D> box{};
    if ((one_table && TranslatedWindowBox<D>(window, slot, &box)) ||
        ExactWindowBox<D>(window, slot, &box)) {
      if (state.motion == MotionType::kStatic &&
          !(box.min == state.window_box.min &&
            box.max == state.window_box.max)) {
        w.static_dirty = true;
      }
      state.window_box = box;
      if (slot < w.parts.size()) {
        WindowLocalBox<D>(window, slot, &w.parts[slot].local_box);
      }
      // Nothing left to shrink once the box is the newest tick's own.
      const BodyRecord<D>* record = RecordAt(newest, slot);
      if (record == nullptr) {
        state.grown = false;
      } else {
        const Aabb<D> own =
            ShapeOps<D>::Bounds(*record->shape, (*newest.poses)[slot]);
        state.grown = !(own.min == box.min && own.max == box.max);
      }
    }
  }
  Publish();
  return absl::OkStatus();
}

template <int D>
void Scene<D>::Publish() {
  WriterState<D>& w = *writer_;
  // The tree input (padded window boxes, slots) goes through writer-owned
  // scratch; the slot list is shared with the previous tree when it did not
  // change (the usual case: a pose update moves bodies, it does not add or
  // remove them), and the dynamic tree is built into recycled memory.
  auto build = [&](MotionType motion, const SlotTree<D>& previous) {
    // The dynamic tree's input is built every publication, into scratch
    // kept for the next one (exact capacity: it is per-body memory that
    // stays); the static tree's, rebuilt rarely, into a temporary, so
    // static bodies do not pay for the scratch.
    std::vector<Aabb<D>> static_boxes;
    std::vector<Aabb<D>>& boxes =
        motion == MotionType::kStatic ? static_boxes : w.tree_boxes;
    boxes.clear();
    // The parts of a group that were in it at every tick of the window
    // share one proxy (SlotTree); every other slot is its own.
    const std::int64_t oldest = w.frames.front().tick;
    const BodyTable<D>& newest_table = *w.frames.back().table;
    // The group of the part in `slot` when it joins its group's proxy, or 0.
    auto proxy_group = [&](std::uint32_t slot) -> std::uint64_t {
      if (motion != MotionType::kDynamic || slot >= w.parts.size() ||
          slot >= newest_table.size() || w.parts[slot].group_since > oldest) {
        return 0;
      }
      return newest_table[slot].incarnation != 0 ? newest_table[slot].group_id
                                                 : 0;
    };
    std::unordered_map<std::uint64_t, std::uint32_t>& group_index =
        w.group_proxies;
    group_index.clear();
    std::vector<internal::GroupProxy<D>> groups;
    std::size_t proxy_count = 0;
    for (std::uint32_t slot = 0; slot < w.slots.size(); ++slot) {
      const SlotState<D>& state = w.slots[slot];
      if (!state.in_use || state.motion != motion) continue;
      const std::uint64_t group_id = proxy_group(slot);
      if (group_id == 0) {
        ++proxy_count;
      } else if (group_index
                     .try_emplace(group_id,
                                  static_cast<std::uint32_t>(groups.size()))
                     .second) {
        groups.emplace_back();
        ++proxy_count;
      }
    }
    if (boxes.capacity() != proxy_count) {
      std::vector<Aabb<D>>().swap(boxes);
      boxes.reserve(proxy_count);
    }
    // A group's proxy sits where its first part is met; its box grows with
    // each further part.
    std::vector<std::uint32_t> group_box(groups.size());
    std::vector<std::uint32_t> members;
    std::vector<Aabb<D>> member_boxes;
    // The slot list is compared with the previous tree's as it is scanned
    // and copied only from the first difference (usually never), so no
    // scratch list is kept.
    const std::vector<std::uint32_t>* same =
        previous.slots != nullptr ? previous.slots.get() : nullptr;
    std::shared_ptr<std::vector<std::uint32_t>> changed;
    auto push_proxy = [&](std::uint32_t entry, const Aabb<D>& box) {
      const std::size_t k = boxes.size();
      boxes.push_back(box);
      if (changed != nullptr) {
        changed->push_back(entry);
      } else if (same == nullptr || k >= same->size() || (*same)[k] != entry) {
        changed = std::make_shared<std::vector<std::uint32_t>>();
        changed->reserve(proxy_count);
        if (same != nullptr) {
          changed->assign(same->begin(), same->begin() + k);
        }
        changed->push_back(entry);
      }
    };
    for (std::uint32_t slot = 0; slot < w.slots.size(); ++slot) {
      const SlotState<D>& state = w.slots[slot];
      if (!state.in_use || state.motion != motion) continue;
      const Aabb<D> box = internal::Pad(state.window_box);
      const std::uint64_t group_id = proxy_group(slot);
      if (group_id == 0) {
        push_proxy(slot, box);
        continue;
      }
      const std::uint32_t g = group_index[group_id];
      internal::GroupProxy<D>& group = groups[g];
      const Aabb<D>& local_box = w.parts[slot].local_box;
      if (group.count++ == 0) {
        group_box[g] = static_cast<std::uint32_t>(boxes.size());
        push_proxy(internal::kGroupProxy | g, box);
        group.local_box = local_box;
      } else {
        boxes[group_box[g]] = Union(boxes[group_box[g]], box);
        group.local_box = Union(group.local_box, local_box);
      }
    }
    if (!groups.empty()) {
      // Members by group, each group's slots ascending.
      std::uint32_t first = 0;
      for (internal::GroupProxy<D>& group : groups) {
        group.first = first;
        first += group.count;
        group.count = 0;
      }
      members.resize(first);
      member_boxes.resize(first);
      for (std::uint32_t slot = 0; slot < w.slots.size(); ++slot) {
        const SlotState<D>& state = w.slots[slot];
        if (!state.in_use || state.motion != motion) continue;
        const std::uint64_t group_id = proxy_group(slot);
        if (group_id == 0) continue;
        internal::GroupProxy<D>& group = groups[group_index[group_id]];
        member_boxes[group.first + group.count] = w.parts[slot].local_box;
        members[group.first + group.count++] = slot;
      }
    }
    if (changed == nullptr &&
        (same == nullptr || same->size() != boxes.size())) {
      // A prefix of the previous list (or empty with no previous list).
      changed = std::make_shared<std::vector<std::uint32_t>>(
          same == nullptr ? std::vector<std::uint32_t>()
                          : std::vector<std::uint32_t>(
                                same->begin(), same->begin() + boxes.size()));
    }
    // The same proxies need the same members too (a part may have moved
    // between groups of the same proxies).
    const bool same_members = previous.members == nullptr
                                  ? members.empty()
                                  : *previous.members == members;
    if (changed == nullptr && !same_members) {
      changed = std::make_shared<std::vector<std::uint32_t>>(*previous.slots);
    }
    if (changed != nullptr) changed->shrink_to_fit();
    std::shared_ptr<const std::vector<std::uint32_t>> slot_list =
        changed != nullptr ? std::shared_ptr<const std::vector<std::uint32_t>>(
                                 std::move(changed))
                           : previous.slots;
    std::shared_ptr<const std::vector<internal::GroupProxy<D>>> group_list;
    std::shared_ptr<const std::vector<std::uint32_t>> member_list;
    std::shared_ptr<const std::vector<Aabb<D>>> member_box_list;
    if (!groups.empty()) {
      group_list = std::make_shared<const std::vector<internal::GroupProxy<D>>>(
          std::move(groups));
      member_list = same_members
                        ? previous.members
                        : std::make_shared<const std::vector<std::uint32_t>>(
                              std::move(members));
      member_box_list =
          std::make_shared<const std::vector<Aabb<D>>>(std::move(member_boxes));
    }
    broadphase::BvhOptions bvh_options;
    bvh_options.method = motion == MotionType::kStatic
                             ? broadphase::BvhBuildMethod::kBinnedSah
                             : broadphase::BvhBuildMethod::kMorton;
    // Static trees, rebuilt rarely, also keep 8-wide nodes for rays (their
    // leaves, of 4, fit a wide node; dynamic trees, rebuilt or refitted
    // every publication, have none, so their leaves may hold 16).
    bvh_options.wide_ray_nodes = motion == MotionType::kStatic;
    // Dynamic trees take leaves of up to 16 proxies: a quarter of the nodes
    // to split, refit and traverse, and a leaf's boxes are contiguous, so
    // testing a few more of them costs less than the node misses saved
    // (measured at 100k bodies against leaves of 4 and 8: build -13%, box
    // query -10%, rays unchanged; docs/core/scene.md).
    bvh_options.max_leaf_size = motion == MotionType::kStatic ? 4 : 16;
    auto make_tree = [&bvh_options] {
      return std::make_unique<broadphase::Bvh<D>>(
          std::move(broadphase::Bvh<D>::Create(bvh_options).value()));
    };
    if (motion == MotionType::kStatic) {
      std::shared_ptr<broadphase::Bvh<D>> bvh(make_tree());
      // The boxes are finite and ordered by construction (validated poses
      // and shapes), so Build cannot refuse them.
      (void)bvh->Build(boxes, &w.build_scratch);
      // Static trees are rebuilt rarely: do not keep the SAH builder's
      // proxy copies.
      w.build_scratch.ReleasePrims();
      SlotTree<D> tree;
      tree.bvh = std::move(bvh);
      tree.slots = std::move(slot_list);
      return tree;
    }
    std::shared_ptr<broadphase::Bvh<D>> bvh =
        internal::RecycleBin<D>::TakeTree(w.recycle_bin, make_tree);
    // Same proxies as the previous tree: refit its topology to the new
    // boxes (one pass, no sort) on most ticks; rebuild every
    // kDynamicRebuildInterval publications so the topology follows the
    // bodies (a refitted tree answers exactly the same queries, only its
    // boxes overlap more as bodies drift from where it was built).
    if (slot_list == previous.slots && previous.bvh != nullptr &&
        w.publications_since_rebuild + 1 < kDynamicRebuildInterval) {
      (void)bvh->RefitFrom(*previous.bvh, boxes);
      ++w.publications_since_rebuild;
    } else {
      (void)bvh->Build(boxes, &w.build_scratch);
      // The Morton keys are needed only during a rebuild (one in
      // kDynamicRebuildInterval publications): 16 bytes per body not kept.
      w.build_scratch.ReleaseKeys();
      w.publications_since_rebuild = 0;
    }
    SlotTree<D> tree{std::move(bvh),
                     std::move(slot_list),
                     nullptr,
                     std::move(group_list),
                     std::move(member_list),
                     std::move(member_box_list)};
    tree.current_boxes = CurrentBoxes(w.frames.back(), tree, &boxes);
    return tree;
  };
  if (w.static_dirty || w.static_tree.bvh == nullptr) {
    w.static_tree = build(MotionType::kStatic, w.static_tree);
    w.static_dirty = false;
  }
  w.dynamic_tree = build(MotionType::kDynamic, w.dynamic_tree);

  auto data = std::make_shared<SnapshotData<D>>();
  data->frames.assign(w.frames.begin(), w.frames.end());
  data->static_tree = w.static_tree;
  data->dynamic_tree = w.dynamic_tree;
  data->teleport_distance = options_.teleport_distance;
  data->max_hits = options_.max_hits;
  data->body_count = w.id_to_slot.size();
  data->tick_rate = options_.tick_rate;
  data->hit_policy = options_.hit_policy;
  data->group_slots = w.group_slots;
  std::shared_ptr<const SnapshotData<D>> published = std::move(data);
  {
    std::lock_guard<std::mutex> lock(snapshot_mutex_);
    snapshot_.swap(published);
  }
  // The previous snapshot (now in `published`) is released outside the lock.
}

template <int D>
SceneMemory Scene<D>::Memory() const {
  std::lock_guard<std::mutex> writer_lock(writer_mutex_);
  const WriterState<D>& w = *writer_;
  SceneMemory memory;
  memory.body_count = w.id_to_slot.size();
  memory.history_ticks = w.frames.size();
  const Frame<D>& current = w.frames.back();
  // The writer's own fixed state (so an empty scene does not report 0).
  memory.body_bytes = sizeof(WriterState<D>) +
                      current.table->capacity() * sizeof(BodyRecord<D>) +
                      w.slots.capacity() * sizeof(SlotState<D>) +
                      w.parts.capacity() * sizeof(internal::PartState<D>) +
                      w.id_to_slot.MemoryBytes() +
                      w.free_slots.capacity() * sizeof(std::uint32_t) +
                      w.order_slots.capacity() * sizeof(std::uint32_t) +
                      w.pending_removals.capacity() *
                          sizeof(std::pair<std::uint32_t, std::int64_t>) +
                      // Scratch for the trees' input, kept between batches.
                      w.tree_boxes.capacity() * sizeof(Aabb<D>);
  memory.tree_bytes += w.build_scratch.MemoryBytes();
  for (const SlotTree<D>* tree : {&w.static_tree, &w.dynamic_tree}) {
    if (tree->bvh != nullptr) {
      memory.tree_bytes += tree->bvh->MemoryBytes() +
                           tree->slots->capacity() * sizeof(std::uint32_t);
      if (tree->current_boxes != nullptr) {
        memory.tree_bytes += tree->current_boxes->capacity() * sizeof(Aabb<D>);
      }
      if (tree->groups != nullptr) {
        memory.tree_bytes +=
            tree->groups->capacity() * sizeof(internal::GroupProxy<D>) +
            tree->members->capacity() * sizeof(std::uint32_t) +
            tree->member_boxes->capacity() * sizeof(Aabb<D>);
      }
    }
  }
  // Buffers waiting for reuse (at most one dynamic tree and two pose
  // arrays; in steady state one of each) stay allocated: the tree counts
  // with the trees, the pose array with the history.
  memory.tree_bytes += w.recycle_bin->PooledTreeBytes();
  memory.history_bytes += w.recycle_bin->PooledPoseBytes();
  // Distinct pose arrays (skipped ticks share one).
  const std::vector<Pose<D>>* last = nullptr;
  for (const Frame<D>& frame : w.frames) {
    if (frame.poses.get() == last) continue;
    last = frame.poses.get();
    memory.history_bytes += frame.poses->capacity() * sizeof(Pose<D>);
  }
  memory.shape_bytes = w.shape_bytes.bytes();
  return memory;
}

template class Scene<2>;
template class Scene<3>;

}  // namespace sator::scene
