// The immutable state a SceneSnapshot reads, and the writer's own state.
#ifndef SATOR_CORE_SRC_SCENE_SNAPSHOT_DATA_H_
#define SATOR_CORE_SRC_SCENE_SNAPSHOT_DATA_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sator/core/aabb.h"
#include "sator/core/broadphase/bvh.h"
#include "sator/core/scene/scene_types.h"
#include "scene/id_index.h"
#include "scene/shared_shape_bytes.h"

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
  std::uint64_t group_id = 0;  // 0: not a part of a hitbox group.
  ShapePtr<D> shape;
  float radius = 0.0f;  // ShapeOps::BoundRadius(*shape).
  // BodyDesc::part, in [kMinPart, kMaxPart]: 16 bits keep the record at 72
  // bytes.
  std::int16_t part = 0;
  MotionType motion = MotionType::kStatic;
  // The ball of radius * inside_256ths / 256 about the position lies inside
  // the shape (InsideFraction); in the record's last byte.
  std::uint8_t inside_256ths = 0;
};

static_assert(sizeof(BodyRecord<2>) == 72 && sizeof(BodyRecord<3>) == 72);

// ShapeOps::InsideRadius as 256ths of the bound radius, rounded down.
inline std::uint8_t InsideFraction(float inside_radius, float radius) {
  if (!(inside_radius > 0.0f) || !(radius > 0.0f)) return 0;
  const double fraction = static_cast<double>(inside_radius) / radius;
  return static_cast<std::uint8_t>(std::min(255.0, std::floor(fraction * 256)));
}

// The poses of hitbox parts at one tick, by slot (sized like the pose
// array; entries of slots that hold no part are unused): the part's local
// pose and its group's pose, whose product is the world pose in the frame's
// pose array. A rewound query interpolates both and composes them.
template <int D>
struct GroupPoses {
  std::vector<Pose<D>> local;
  std::vector<Pose<D>> group;
};

template <int D>
using BodyTable = std::vector<BodyRecord<D>>;

// Starts loading a shape: its first bytes (the data of the small shapes)
// and its last (a std::variant keeps its index after the largest
// alternative, 272 bytes in for Shape2, so several cache lines from the
// data; reading the index first is the miss that dominates).
template <int D>
void PrefetchShape(const SceneShape<D>* shape) {
  __builtin_prefetch(shape);
  __builtin_prefetch(reinterpret_cast<const char*>(shape) +
                     sizeof(SceneShape<D>) - 1);
}

// A new, empty body table whose destruction releases the shapes with the
// control blocks prefetched a few records ahead: each release is an atomic
// decrement on a block that, at 100k bodies with a shape each, is a cache
// miss, and an atomic operation cannot overlap its miss with the next one
// (the prefetches can).
template <int D>
std::shared_ptr<BodyTable<D>> NewBodyTable() {
  return std::shared_ptr<BodyTable<D>>(
      new BodyTable<D>(), [](BodyTable<D>* table) {
        constexpr std::size_t kAhead = 32;
        BodyRecord<D>* records = table->data();
        const std::size_t n = table->size();
        for (std::size_t i = 0; i < n; ++i) {
          if (i + kAhead < n && records[i + kAhead].shape != nullptr) {
            // The control block sits just before a make_shared object.
            __builtin_prefetch(
                reinterpret_cast<const char*>(records[i + kAhead].shape.get()) -
                16);
          }
          records[i].shape.reset();
        }
        delete table;
      });
}

// One tick of history: the body table and the poses, both indexed by slot
// (poses->size() == table->size()). Ticks that changed no body share the
// table; ticks skipped by UpdatePoses share the poses too.
//
// `groups` is null while the scene has never had a hitbox part; `teleported`
// (by slot, 1 for a body that jumped at this tick: never interpolated from
// the previous tick) is null when nothing teleported at this tick.
template <int D>
struct Frame {
  std::int64_t tick = 0;
  std::shared_ptr<const BodyTable<D>> table;
  std::shared_ptr<const std::vector<Pose<D>>> poses;
  std::shared_ptr<const GroupPoses<D>> groups;
  std::shared_ptr<const std::vector<std::uint8_t>> teleported;
};

// Marks an entry of SlotTree::slots that is a hitbox group's proxy: the low
// bits index SlotTree::groups. Slots stay far below it: a slot is a live
// body (at most kMaxBodies, 2^24) or one removed within the history window.
inline constexpr std::uint32_t kGroupProxy = 1u << 31;

// A hitbox group in a dynamic tree: its parts' slots are
// members[first, first + count), ascending. `local_box`, in the group's
// frame, contains every part at every tick of the window (the union of its
// parts' PartState::local_box), so at a query's time the group's coarse
// bound is that box at the group's pose (GroupBound in scene_snapshot.cc).
template <int D>
struct GroupProxy {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  Aabb<D> local_box{};
};

// Group id -> every slot that held one of its parts since the slot was last
// freed (a query resolves the slot at its tick and checks the group there).
using GroupSlots =
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>>;

// A Bvh and the slot of each of its proxies.
//
// The tree's boxes are window boxes (every pose of the history window), so
// it answers queries at any tick. A tree of moving bodies also keeps
// `current_boxes`: by leaf position (Bvh::LeafIds), each proxy's padded
// bounding-sphere box at the newest tick, or an empty box (min +inf, max
// -inf) when the slot holds no body then. A query at the newest tick tests
// it as the tree hands over each proxy, which rejects the bodies that were
// near the query only at other ticks without loading their records or
// poses (Scene::Publish builds it).
//
// A proxy is one body's slot or, in a dynamic tree, a hitbox group: the
// parts of a group that were in it at every tick of the window share one
// proxy (kGroupProxy set in `slots[proxy]`, the rest indexing `groups`),
// whose box is the union of their window boxes, so a query meets the group
// once, tests its coarse bound at the query's time (GroupProxy::reach) and
// only then resolves its parts. ProxySlots gives the slots behind a proxy.
template <int D>
struct SlotTree {
  std::shared_ptr<const broadphase::Bvh<D>> bvh;
  std::shared_ptr<const std::vector<std::uint32_t>> slots;
  std::shared_ptr<const std::vector<Aabb<D>>> current_boxes;
  // Null when the tree has no group proxy.
  std::shared_ptr<const std::vector<GroupProxy<D>>> groups;
  std::shared_ptr<const std::vector<std::uint32_t>> members;
  // By member: the part's PartState::local_box (culls parts as the group's
  // box culls the group).
  std::shared_ptr<const std::vector<Aabb<D>>> member_boxes;
};

// The slots behind `entry` (an element of SlotTree::slots): the entry itself
// or the members of its group, ascending.
template <int D>
std::span<const std::uint32_t> ProxySlots(const SlotTree<D>& tree,
                                          const std::uint32_t& entry) {
  if ((entry & kGroupProxy) == 0) return {&entry, 1};
  const GroupProxy<D>& group = (*tree.groups)[entry & ~kGroupProxy];
  return {tree.members->data() + group.first, group.count};
}

template <int D>
struct SnapshotData {
  std::vector<Frame<D>> frames;  // Oldest first, consecutive ticks.
  SlotTree<D> static_tree;
  SlotTree<D> dynamic_tree;
  float teleport_distance = 0.0f;
  int max_hits = 0;
  std::size_t body_count = 0;
  double tick_rate = 60.0;
  HitPolicy hit_policy;
  std::shared_ptr<const GroupSlots> group_slots;

  std::int64_t tick() const { return frames.back().tick; }
  std::int64_t oldest_tick() const { return frames.front().tick; }
};

// Keeps the per-tick buffers (pose arrays, dynamic trees) that no snapshot
// holds any more, so the next tick reuses their memory instead of asking
// the allocator for megabytes (fresh pages fault and are zeroed by the
// kernel). A buffer comes back through its shared_ptr's deleter, in
// whichever thread drops the last reference, hence the mutex; the writer
// takes buffers out under the same mutex, which orders the reader's last
// reads before the writer's new writes. The bin keeps at most a few
// buffers; any surplus is freed.
template <int D>
class RecycleBin {
 public:
  using PoseArray = std::vector<Pose<D>>;
  static constexpr std::size_t kMaxPoseArrays = 2;
  static constexpr std::size_t kMaxTrees = 1;

  // A pose array holding a copy of `source` (reused memory when possible).
  static std::shared_ptr<const PoseArray> CopyPoses(
      const std::shared_ptr<RecycleBin>& bin, const PoseArray& source) {
    std::unique_ptr<PoseArray> array;
    {
      std::lock_guard<std::mutex> lock(bin->mutex_);
      if (!bin->pose_arrays_.empty()) {
        array = std::move(bin->pose_arrays_.back());
        bin->pose_arrays_.pop_back();
      }
    }
    if (array == nullptr) {
      array = std::make_unique<PoseArray>(source);
    } else {
      array->assign(source.begin(), source.end());
    }
    return std::shared_ptr<PoseArray>(
        array.release(), [bin](PoseArray* returned) { bin->Return(returned); });
  }

  // A dynamic tree to build into: a returned one, or `fresh` when none.
  template <typename MakeFresh>
  static std::shared_ptr<broadphase::Bvh<D>> TakeTree(
      const std::shared_ptr<RecycleBin>& bin, MakeFresh&& make_fresh) {
    std::unique_ptr<broadphase::Bvh<D>> tree;
    {
      std::lock_guard<std::mutex> lock(bin->mutex_);
      if (!bin->trees_.empty()) {
        tree = std::move(bin->trees_.back());
        bin->trees_.pop_back();
      }
    }
    if (tree == nullptr) tree = make_fresh();
    return std::shared_ptr<broadphase::Bvh<D>>(
        tree.release(),
        [bin](broadphase::Bvh<D>* returned) { bin->Return(returned); });
  }

  // Bytes held by the pose arrays and by the trees waiting in the bin.
  std::size_t PooledPoseBytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t bytes = 0;
    for (const auto& array : pose_arrays_) {
      bytes += array->capacity() * sizeof(Pose<D>);
    }
    return bytes;
  }
  std::size_t PooledTreeBytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t bytes = 0;
    for (const auto& tree : trees_) bytes += tree->MemoryBytes();
    return bytes;
  }

 private:
  void Return(PoseArray* array) {
    std::unique_ptr<PoseArray> owned(array);
    std::lock_guard<std::mutex> lock(mutex_);
    if (pose_arrays_.size() < kMaxPoseArrays) {
      pose_arrays_.push_back(std::move(owned));
    }
  }
  void Return(broadphase::Bvh<D>* tree) {
    std::unique_ptr<broadphase::Bvh<D>> owned(tree);
    std::lock_guard<std::mutex> lock(mutex_);
    if (trees_.size() < kMaxTrees) trees_.push_back(std::move(owned));
  }

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<PoseArray>> pose_arrays_;
  std::vector<std::unique_ptr<broadphase::Bvh<D>>> trees_;
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
};

// Per slot that held a hitbox part, known only to the writer (kept apart
// from SlotState so that scenes without groups pay nothing for it).
template <int D>
struct PartState {
  // The body has been in its newest group since this tick (earlier ticks of
  // the window may hold it in another group or none); the slot joins its
  // group's proxy once that tick is the oldest of the window.
  std::int64_t group_since = 0;
  // In the group's frame: contains the part's bounding sphere (local
  // position, bound radius) at every tick of the window since group_since.
  Aabb<D> local_box{};
};

// A hitbox group as the writer keeps it.
template <int D>
struct GroupState {
  Pose<D> pose{};
  std::vector<std::uint32_t> members;  // Slots of its live parts.
};

template <int D>
struct WriterState {
  IdIndex id_to_slot;
  std::unordered_map<std::uint64_t, GroupState<D>> groups;
  // Published as SnapshotData::group_slots; copied when it changes.
  std::shared_ptr<const GroupSlots> group_slots =
      std::make_shared<const GroupSlots>();
  std::vector<SlotState<D>> slots;
  // By slot; empty while the scene has never had a part, then sized like
  // `slots` as parts are added.
  std::vector<PartState<D>> parts;
  std::vector<std::uint32_t> free_slots;
  std::deque<Frame<D>> frames;  // Oldest first.
  std::uint64_t next_incarnation = 1;
  std::uint64_t update_count = 0;
  bool static_dirty = true;
  // The slots of the last UpdatePoses batch, in its order (a cache checked
  // against the newest table; see UpdatePoses).
  std::vector<std::uint32_t> order_slots;
  SlotTree<D> static_tree;
  SlotTree<D> dynamic_tree;
  // Slots whose body was removed and that are not free yet, with the tick
  // of the removal (the slot is freed once that tick leaves the window).
  std::vector<std::pair<std::uint32_t, std::int64_t>> pending_removals;
  // Scratch reused by every batch (capacity kept between calls).
  std::vector<Aabb<D>> tree_boxes;
  // Group id -> its proxy's index while a dynamic tree's input is built.
  std::unordered_map<std::uint64_t, std::uint32_t> group_proxies;
  // One build scratch for every tree the writer builds (the trees then
  // hold only nodes, boxes and ids).
  typename broadphase::Bvh<D>::BuildScratch build_scratch;
  // Publications whose dynamic tree was refitted since the last rebuild.
  int publications_since_rebuild = 0;
  std::shared_ptr<RecycleBin<D>> recycle_bin =
      std::make_shared<RecycleBin<D>>();
  // The hulls and meshes of the bodies in the newest table.
  SharedShapeBytes shape_bytes;
};

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_SNAPSHOT_DATA_H_
