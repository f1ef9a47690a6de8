// The immutable state a SceneSnapshot reads, and the writer's own state.
#ifndef SATOR_CORE_SRC_SCENE_SNAPSHOT_DATA_H_
#define SATOR_CORE_SRC_SCENE_SNAPSHOT_DATA_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sator/core/aabb.h"
#include "sator/core/broadphase/bvh.h"
#include "sator/core/scene/scene_types.h"

namespace sator::scene::internal {

// A body as stored in a table slot. incarnation 0 marks an empty slot; a
// body keeps its incarnation across upserts and a new body (even with a
// reused id or slot) gets a new one, so "the same body at ticks T and T + 1"
// is "the same incarnation in the slot".
template <int D>
struct BodyRecord {
  std::uint64_t id = 0;
  std::uint64_t user_data = 0;
  std::uint64_t layer = 0;
  std::uint64_t mask = 0;
  std::uint64_t incarnation = 0;
  ShapePtr<D> shape;
  float radius = 0.0f;  // ShapeOps::BoundRadius(*shape).
  MotionType motion = MotionType::kStatic;
};

template <int D>
using BodyTable = std::vector<BodyRecord<D>>;

// One tick of history: the body table and the poses, both indexed by slot
// (poses->size() == table->size()). Ticks that changed no body share the
// table; ticks skipped by UpdatePoses share the poses too.
template <int D>
struct Frame {
  std::int64_t tick = 0;
  std::shared_ptr<const BodyTable<D>> table;
  std::shared_ptr<const std::vector<Pose<D>>> poses;
};

// A Bvh and the slot of each of its proxies.
template <int D>
struct SlotTree {
  std::shared_ptr<const broadphase::Bvh<D>> bvh;
  std::shared_ptr<const std::vector<std::uint32_t>> slots;
};

template <int D>
struct SnapshotData {
  std::vector<Frame<D>> frames;  // Oldest first, consecutive ticks.
  SlotTree<D> static_tree;
  SlotTree<D> dynamic_tree;
  float teleport_distance = 0.0f;
  int max_hits = 0;
  std::size_t body_count = 0;

  std::int64_t tick() const { return frames.back().tick; }
  std::int64_t oldest_tick() const { return frames.front().tick; }
};

// Per slot, known only to the writer.
template <int D>
struct SlotState {
  // Contains the body at every pose of the history window and between them.
  Aabb<D> window_box{};
  // window_box may be larger than needed (a recompute could shrink it).
  bool grown = false;
  // The slot holds a body now or in some tick of the window.
  bool in_use = false;
  // The body's motion type (the last one, once removed).
  MotionType motion = MotionType::kStatic;
  // The tick the body was removed at, or -1 while it is alive.
  std::int64_t removed_tick = -1;
};

template <int D>
struct WriterState {
  std::unordered_map<std::uint64_t, std::uint32_t> id_to_slot;
  std::vector<SlotState<D>> slots;
  std::vector<std::uint32_t> free_slots;
  std::deque<Frame<D>> frames;  // Oldest first.
  std::uint64_t next_incarnation = 1;
  std::uint64_t update_count = 0;
  bool static_dirty = true;
  // The ids and slots of the last UpdatePoses batch (see UpdatePoses);
  // cleared by removals.
  std::vector<std::uint64_t> order_ids;
  std::vector<std::uint32_t> order_slots;
  bool order_valid = false;
  SlotTree<D> static_tree;
  SlotTree<D> dynamic_tree;
};

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_SNAPSHOT_DATA_H_
