// SceneSnapshot<D>: the queries.
//
// Every query runs the same way (the query/collector/filter split of Jolt's
// NarrowPhaseQuery):
//  1. validate the input and resolve the tick (current, or a rewind);
//  2. traverse both trees (static, dynamic) with the query's box, ray or
//     moving box against the padded window boxes;
//  3. for each candidate slot, find the body at the query tick (interpolated
//     between T and T + 1 unless it teleported or did not exist at both),
//     apply the filter, run the narrow phase;
//  4. hand each hit to the collector of the result mode. Casts (ray, sweep)
//     in modes kAny and kClosest clip the traversal to the best hit so far.
// Hits are ordered by (key, body id), so a result does not depend on the
// traversal order and equals a brute-force scan's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sator/core/field_status.h"
#include "sator/core/scene/pose_interpolation.h"
#include "sator/core/scene/scene.h"
#include "scene/filter_accept.h"
#include "scene/shape_ops.h"
#include "scene/snapshot_data.h"

namespace sator::scene {

using internal::BodyRecord;
using internal::Frame;
using internal::MaxAbs;
using internal::ShapeOps;
using internal::SlotTree;
using internal::SnapshotData;

namespace {

// Casts clip the tree traversal at the best hit's fraction plus this, so
// round-off between the narrow phase's distance and the tree's fraction can
// never prune a tie.
constexpr float kClipSlack = 1e-5f;

// The point query: a ray this long (relative to the point's scale) from the
// point; the point is inside a body when the ray starts inside it.
constexpr float kPointRayLength = 1e-6f;

// The tick a query runs at: frame index, tick and fraction, and whether a
// too old rewind was clamped to the oldest tick.
struct TickChoice {
  std::size_t frame = 0;
  std::int64_t tick = 0;
  float fraction = 0.0f;
  bool clamped = false;
};

template <int D>
struct BodyAtTick {
  const BodyRecord<D>* record = nullptr;
  Pose<D> pose{};
};

// The pose of `record` (in `slot` of frame f0) at f0's tick + `fraction`:
// interpolated towards the next frame's pose unless the body is not in that
// frame, teleported at it (flagged, or moved further than the teleport
// distance) or fraction is 0. A hitbox part of the same group at both ticks
// composes the interpolated group pose with the interpolated local pose.
// `*teleported` says whether a teleport cut the interpolation.
template <int D>
Pose<D> PoseAt(const SnapshotData<D>& data, std::size_t frame, float fraction,
               std::uint32_t slot, const BodyRecord<D>& record,
               bool* teleported) {
  const Frame<D>& f0 = data.frames[frame];
  const Pose<D>& pose = (*f0.poses)[slot];
  *teleported = false;
  if (fraction <= 0.0f) return pose;
  const Frame<D>& f1 = data.frames[frame + 1];
  if (slot >= f1.table->size() ||
      (*f1.table)[slot].incarnation != record.incarnation) {
    return pose;
  }
  if (f1.teleported != nullptr && slot < f1.teleported->size() &&
      (*f1.teleported)[slot] != 0) {
    *teleported = true;
    return pose;
  }
  const Pose<D>& next = (*f1.poses)[slot];
  if (IsTeleport(pose, next, data.teleport_distance)) {
    *teleported = true;
    return pose;
  }
  if (record.group_id != 0 && (*f1.table)[slot].group_id == record.group_id &&
      f0.groups != nullptr && f1.groups != nullptr) {
    const Pose<D>& g0 = f0.groups->group[slot];
    const Pose<D>& g1 = f1.groups->group[slot];
    if (IsTeleport(g0, g1, data.teleport_distance)) {
      *teleported = true;
      return pose;
    }
    return Mul(InterpolatePose(g0, g1, fraction),
               InterpolatePose(f0.groups->local[slot], f1.groups->local[slot],
                               fraction));
  }
  return InterpolatePose(pose, next, fraction);
}

// A group proxy's coarse bound at a query's time (QueryRunner::GroupBound):
// a box in the group's frame (the group's, or one part's), padded by
// `margin`, at each of `poses`; a part can be hit only where one of them is.
template <int D>
struct GroupBoundAt {
  Pose<D> poses[2];
  int count = 0;
  float margin = 0.0f;
  // The group's local box at each pose as a sphere (centre, radius; padded):
  // the cheap test, tried first.
  Vec<D> centers[2];
  float radius = 0.0f;

  bool SphereOverlaps(const Aabb<D>& box) const {
    for (int k = 0; k < count; ++k) {
      if (sator::Overlaps(internal::SphereBox<D>(centers[k], radius), box)) {
        return true;
      }
    }
    return false;
  }

  // Whether the segment from `origin` along `translation` (up to
  // `max_fraction`), grown by `grow`, comes within the sphere at some pose.
  // `inverse_length2` is 1 / |translation|^2, or 0 for a zero translation.
  bool SphereHitBy(Vec<D> origin, Vec<D> translation, float inverse_length2,
                   float grow, float max_fraction) const {
    const float reach = radius + grow;
    for (int k = 0; k < count; ++k) {
      const Vec<D> to_center = centers[k] - origin;
      const float along = std::clamp(
          Dot(to_center, translation) * inverse_length2, 0.0f, max_fraction);
      const Vec<D> off = to_center - translation * along;
      if (Dot(off, off) <= reach * reach) return true;
    }
    return false;
  }

  // Whether the world box of `local` at some pose meets `box` (the world box
  // of an oriented box: Arvo, "Transforming Axis-Aligned Bounding Boxes",
  // Graphics Gems, 1990).
  bool Overlaps(const Aabb<D>& local, const Aabb<D>& box) const {
    const Vec<D> center = Center(local);
    const Vec<D> half = HalfExtents(local) + Splat(margin);
    for (int k = 0; k < count; ++k) {
      Vec<D> extent{};
      for (int j = 0; j < D; ++j) {
        Vec<D> axis{};
        axis[j] = 1.0f;
        extent += half[j] * Abs(Rotate(poses[k].rotation, axis));
      }
      const Vec<D> c = Transform(poses[k], center);
      if (sator::Overlaps(Aabb<D>{c - extent, c + extent}, box)) return true;
    }
    return false;
  }

  static Vec<D> Splat(float v) {
    Vec<D> out{};
    for (int i = 0; i < D; ++i) out[i] = v;
    return out;
  }
};

// A cast (`origin`, `translation`, grown by `radius`) in the frames of a
// group's bound poses, tested against boxes in the group's frame.
template <int D>
class GroupCast {
 public:
  GroupCast(const GroupBoundAt<D>& bound, Vec<D> origin, Vec<D> translation,
            float radius)
      : count_(bound.count),
        grow_(GroupBoundAt<D>::Splat(radius + bound.margin)) {
    for (int k = 0; k < count_; ++k) {
      segments_[k].emplace(InvTransform(bound.poses[k], origin),
                           InvRotate(bound.poses[k].rotation, translation));
    }
  }

  // Whether the cast meets `local` at some pose up to `max_fraction`.
  bool Hits(const Aabb<D>& local, float max_fraction) const {
    for (int k = 0; k < count_; ++k) {
      float entry = 0.0f;
      if (segments_[k]->Hits(local, grow_, max_fraction, &entry)) return true;
    }
    return false;
  }

 private:
  int count_;
  Vec<D> grow_;
  std::optional<broadphase::Segment<D>> segments_[2];
};

template <int D>
class QueryRunner {
 public:
  QueryRunner(const SnapshotData<D>& data, const QueryOptions& options,
              std::size_t frame, float fraction)
      : data_(data),
        options_(options),
        frame_(frame),
        fraction_(fraction),
        keys_(Scratch().keys),
        hits_(Scratch().hits) {
    keys_.clear();
    hits_.clear();
  }
  ~QueryRunner() {
    // One huge query must not pin its memory for the thread's lifetime.
    if (hits_.capacity() > kMaxKeptHits) {
      std::vector<Keyed>().swap(keys_);
      std::vector<QueryHit<D>>().swap(hits_);
    }
  }
  QueryRunner(const QueryRunner&) = delete;
  QueryRunner& operator=(const QueryRunner&) = delete;

  // Starts loading what Resolve and the narrow phase will read for `slot`
  // (its record and pose at the query's tick, and at the next tick for a
  // rewound query with a fraction), so that the cache misses of a batch of
  // candidates overlap instead of following one another.
  void Prefetch(std::uint32_t slot) const {
    const Frame<D>& f0 = data_.frames[frame_];
    if (slot >= f0.table->size()) return;
    __builtin_prefetch(f0.table->data() + slot);
    __builtin_prefetch(f0.poses->data() + slot);
    if (fraction_ > 0.0f) {
      const Frame<D>& f1 = data_.frames[frame_ + 1];
      if (slot < f1.table->size()) {
        __builtin_prefetch(f1.table->data() + slot);
        __builtin_prefetch(f1.poses->data() + slot);
      }
    }
  }

  // The body in `slot` at the query's tick, or a null record when the slot
  // holds none then or the filter refuses it.
  BodyAtTick<D> Resolve(std::uint32_t slot) const {
    BodyAtTick<D> out;
    const Frame<D>& f0 = data_.frames[frame_];
    if (slot >= f0.table->size()) return out;
    const BodyRecord<D>& record = (*f0.table)[slot];
    if (record.incarnation == 0 || !Accept(record)) return out;
    out.record = &record;
    bool teleported = false;
    out.pose = PoseAt(data_, frame_, fraction_, slot, record, &teleported);
    return out;
  }

  // The coarse bound of a group proxy (`group`, its parts `members`) at the
  // query's time: its local box at the group's pose at the query's tick and,
  // for a rewind with a fraction, at the interpolated pose too. False when
  // none of its parts exists at the query's tick or the filter excludes the
  // group (nothing of it can be hit).
  //
  // A part's pose at the query's time is either interpolated, the group's
  // interpolated pose times lerp(l0, l1) (inside the local box, which
  // contains both), or, where a teleport or its absence at the next tick
  // cuts the interpolation, its pose at the query's tick, the group's pose
  // there times l0. Every part of a group proxy is in the group at every
  // tick it exists (PartState::group_since), so any part present at a tick
  // gives the group's pose there.
  bool GroupBound(const internal::GroupProxy<D>& group,
                  std::span<const std::uint32_t> members,
                  GroupBoundAt<D>* out) const {
    const Frame<D>& f0 = data_.frames[frame_];
    const std::optional<std::uint32_t> s0 = PartAt(f0, members);
    if (!s0.has_value()) return false;
    // The filter excludes the group: none of its parts can be hit.
    if (options_.filter.excluded_groups.Contains((*f0.table)[*s0].group_id)) {
      return false;
    }
    const Pose<D>& g0 = f0.groups->group[*s0];
    out->poses[0] = g0;
    out->count = 1;
    if (fraction_ > 0.0f) {
      const Frame<D>& f1 = data_.frames[frame_ + 1];
      if (const std::optional<std::uint32_t> s1 = PartAt(f1, members)) {
        out->poses[1] = InterpolatePose(g0, f1.groups->group[*s1], fraction_);
        out->count = 2;
      }
    }
    // Pad's margin for the largest coordinate a part can have.
    const float reach = 2.0f * MaxAbs(group.local_box);
    float scale = 0.0f;
    for (int k = 0; k < out->count; ++k) {
      const Vec<D>& p = out->poses[k].position;
      scale = std::max(scale, MaxAbs(Aabb<D>{p, p}) + reach);
    }
    out->margin = internal::PadMargin(internal::SphereBox<D>(Vec<D>{}, scale));
    // The padded box's half diagonal is at most that of the box plus
    // sqrt(D) margins.
    out->radius = Length(HalfExtents(group.local_box)) + 2.0f * out->margin;
    for (int k = 0; k < out->count; ++k) {
      out->centers[k] = Transform(out->poses[k], Center(group.local_box));
    }
    return true;
  }

  // The query runs at the newest tick (SlotTree::current_boxes apply).
  bool at_newest() const { return frame_ + 1 == data_.frames.size(); }

  bool Accept(const BodyRecord<D>& record) const {
    return internal::FilterAccepts(options_.filter, record);
  }

  // Both trees, always: a body sits in the tree of its newest motion type,
  // and a rewound query filters on the type it had at the query's tick.
  template <typename Fn>
  void ForEachTree(Fn&& fn) const {
    fn(data_.static_tree);
    fn(data_.dynamic_tree);
  }

  // ---- The collector.
  // Returns false when the query is done (kAny found a hit).
  bool Add(const QueryHit<D>& hit, float key) {
    switch (options_.mode) {
      case ResultMode::kAny:
        Append(hit, key);
        return false;
      case ResultMode::kClosest:
        if (hits_.empty()) {
          Append(hit, key);
        } else if (Less({key, 0, hit.body_id}, keys_[0])) {
          keys_[0] = {key, 0, hit.body_id};
          hits_[0] = hit;
        }
        return true;
      case ResultMode::kAllUpToN:
      case ResultMode::kClosestPerBody:
      case ResultMode::kClosestPerGroup:
        Append(hit, key);
        return true;
    }
    return true;
  }
  bool done() const {
    return options_.mode == ResultMode::kAny && !hits_.empty();
  }
  // The best key so far, for clipping casts (kAny and kClosest only).
  std::optional<float> clip_key() const {
    if (options_.mode == ResultMode::kClosest && !hits_.empty()) {
      return keys_[0].key;
    }
    return std::nullopt;
  }

  // The result: the hits by (key, body id), at most max_hits of them, with
  // the tick used and the traversal's counts.
  QueryResult<D> Finish(const TickChoice& tick) {
    QueryResult<D> result;
    result.tick = tick.tick;
    result.fraction = tick.fraction;
    result.clamped = tick.clamped;
    result.stats = stats;
    // Sorted through the 16-byte keys, then gathered: moving those is much
    // cheaper than moving whole hits.
    std::sort(keys_.begin(), keys_.end(), Less);
    if (options_.mode == ResultMode::kClosestPerGroup ||
        options_.mode == ResultMode::kClosestPerBody) {
      // The first (closest) hit of each body, or of each group, where a body
      // outside any group is a group of its own (told apart from group ids
      // by the flag); found by sorting the owners with their ranks.
      const bool per_group = options_.mode == ResultMode::kClosestPerGroup;
      using Owner = std::pair<bool, std::uint64_t>;
      std::vector<std::pair<Owner, std::uint32_t>> owners(keys_.size());
      for (std::size_t rank = 0; rank < keys_.size(); ++rank) {
        const QueryHit<D>& hit = hits_[keys_[rank].index];
        owners[rank] = {per_group && hit.group_id != 0
                            ? Owner{true, hit.group_id}
                            : Owner{false, hit.body_id},
                        static_cast<std::uint32_t>(rank)};
      }
      std::sort(owners.begin(), owners.end());
      std::vector<std::uint8_t> first(keys_.size(), 0);
      for (std::size_t k = 0; k < owners.size(); ++k) {
        if (k == 0 || owners[k].first != owners[k - 1].first) {
          first[owners[k].second] = 1;
        }
      }
      std::size_t kept = 0;
      for (std::size_t rank = 0; rank < keys_.size(); ++rank) {
        if (first[rank]) keys_[kept++] = keys_[rank];
      }
      keys_.resize(kept);
    }
    const auto limit = static_cast<std::size_t>(options_.max_hits);
    if (keys_.size() > limit) keys_.resize(limit);
    result.hits.reserve(keys_.size());
    for (const Keyed& keyed : keys_) result.hits.push_back(hits_[keyed.index]);
    return result;
  }

  broadphase::TreeStats stats;

 private:
  // A hit's sort key, tie-break and place in hits_.
  struct Keyed {
    float key;
    std::uint32_t index;
    std::uint64_t body_id;
  };
  void Append(const QueryHit<D>& hit, float key) {
    keys_.push_back(
        {key, static_cast<std::uint32_t>(hits_.size()), hit.body_id});
    hits_.push_back(hit);
  }
  // The collector's buffer: one per thread, reused by every query that
  // thread runs (one query at a time), so that a query allocates only its
  // result instead of growing a vector hit by hit.
  static constexpr std::size_t kMaxKeptHits = 4096;
  struct HitScratch {
    std::vector<Keyed> keys;
    std::vector<QueryHit<D>> hits;
  };
  static HitScratch& Scratch() {
    thread_local HitScratch scratch;
    return scratch;
  }
  static bool Less(const Keyed& a, const Keyed& b) {
    if (a.key != b.key) return a.key < b.key;
    if (a.body_id != b.body_id) return a.body_id < b.body_id;
    return a.index < b.index;  // A body's hits (a level's edges) in order.
  }

  // The first of `members` that holds a part at `frame` (its group pose
  // there is the group's), or nullopt when none does.
  static std::optional<std::uint32_t> PartAt(
      const Frame<D>& frame, std::span<const std::uint32_t> members) {
    for (const std::uint32_t slot : members) {
      if (slot < frame.table->size() && (*frame.table)[slot].incarnation != 0) {
        return slot;
      }
    }
    return std::nullopt;
  }

  const SnapshotData<D>& data_;
  const QueryOptions& options_;
  std::size_t frame_;
  float fraction_;
  std::vector<Keyed>& keys_;
  std::vector<QueryHit<D>>& hits_;
};

template <int D>
absl::StatusOr<TickChoice> ChooseTick(const SnapshotData<D>& data,
                                      const QueryOptions& options) {
  if (options.max_hits < 1 || options.max_hits > data.max_hits) {
    return FieldError("max_hits", absl::StrCat("must be in [1, ", data.max_hits,
                                               "], got ", options.max_hits));
  }
  TickChoice choice;
  choice.frame = data.frames.size() - 1;
  choice.tick = data.tick();
  if (!options.rewind.has_value()) return choice;
  const Rewind& rewind = *options.rewind;
  if (std::isnan(rewind.fraction) || rewind.fraction < 0.0f ||
      rewind.fraction >= 1.0f) {
    return FieldError("rewind.fraction",
                      absl::StrCat("must be in [0, 1), got ", rewind.fraction));
  }
  if (rewind.tick < data.oldest_tick() &&
      rewind.on_too_old == RewindLimit::kClamp) {
    choice.frame = 0;
    choice.tick = data.oldest_tick();
    choice.fraction = 0.0f;
    choice.clamped = true;
    return choice;
  }
  if (rewind.tick < data.oldest_tick()) {
    return FieldError(
        absl::StatusCode::kOutOfRange, "rewind.tick",
        absl::StrCat(rewind.tick,
                     " is older than the history, which starts at tick ",
                     data.oldest_tick()));
  }
  if (rewind.tick > data.tick()) {
    return FieldError(
        absl::StatusCode::kOutOfRange, "rewind.tick",
        absl::StrCat(rewind.tick, " is newer than the current tick ",
                     data.tick()));
  }
  if (rewind.tick == data.tick() && rewind.fraction > 0.0f) {
    return FieldError(
        absl::StatusCode::kOutOfRange, "rewind.fraction",
        absl::StrCat(rewind.fraction, " at tick ", rewind.tick, " needs tick ",
                     rewind.tick + 1, ", which does not exist yet"));
  }
  choice.frame = static_cast<std::size_t>(rewind.tick - data.oldest_tick());
  choice.tick = rewind.tick;
  choice.fraction = rewind.fraction;
  return choice;
}

template <int D>
absl::StatusOr<Pose<D>> CheckQueryShape(const SceneShape<D>& shape,
                                        const Pose<D>& pose) {
  if (absl::Status status = ShapeOps<D>::ValidateQueryShape(shape);
      !status.ok()) {
    return PrefixField("shape", status);
  }
  absl::StatusOr<Pose<D>> checked = ShapeOps<D>::CheckPose(pose);
  if (!checked.ok()) {
    return PrefixField("pose", checked.status());
  }
  return checked;
}

template <int D>
absl::Status CheckVector(Vec<D> v, const char* name) {
  if (!IsFinite(v) || MaxAbs(Aabb<D>{v, v}) > kMaxQueryCoordinate) {
    return FieldError(name, "must be finite and within 1e15");
  }
  return absl::OkStatus();
}

// Box queries (overlap, contacts, point): every candidate whose padded
// window box meets `box`. Candidates are taken from the tree in batches of
// kPrefetchBatch and prefetched before the narrow phase runs on them in the
// order the tree gave them (so results, including kAny's first hit, are
// those of one-at-a-time processing): at 100k bodies each candidate's
// record, pose and shape are cache misses, which this overlaps. A kAny
// query may traverse up to one batch further than it needed to.
constexpr int kPrefetchBatch = 16;

//
// Between the broad and the narrow phase, each candidate's bounding-sphere
// box at the query's pose (centre = position, radius = the record's bound
// radius, padded as the tree boxes are) must meet `box`: the window box
// covers the whole history, so many candidates are bodies that were near
// the query box at another tick, and this rejects them from the record and
// the pose alone, before their shape is loaded. It never rejects a hit: the
// sphere box contains the body at any rotation, and its padding is at least
// that of the body's own tight box, which the broad phase relies on.
template <int D, typename Narrow>
absl::Status RunBoxQuery(QueryRunner<D>& runner, const Aabb<D>& box,
                         Narrow&& narrow) {
  absl::Status status;
  std::uint32_t batch[kPrefetchBatch];  // Proxies of the current tree.
  std::uint32_t batch_slots[kPrefetchBatch];
  BodyAtTick<D> bodies[kPrefetchBatch];
  int count = 0;
  const SlotTree<D>* tree = nullptr;  // The current tree.
  // The narrow phase on one candidate body; false when the query is done.
  auto run_narrow = [&](const BodyAtTick<D>& body) {
    absl::Status s = narrow(body);
    if (!s.ok()) {
      status = s;
      return false;
    }
    return !runner.done();
  };
  auto sphere_culled = [&](const BodyAtTick<D>& body) {
    return body.record == nullptr ||
           !Overlaps(internal::Pad(internal::SphereBox<D>(body.pose.position,
                                                          body.record->radius)),
                     box);
  };
  // A group proxy: its coarse bound, then its parts (few, so unbatched).
  auto run_group = [&](std::uint32_t entry) {
    const internal::GroupProxy<D>& group =
        (*tree->groups)[entry & ~internal::kGroupProxy];
    const std::span<const std::uint32_t> members =
        internal::ProxySlots(*tree, entry);
    GroupBoundAt<D> bound;
    if (!runner.GroupBound(group, members, &bound) ||
        !bound.SphereOverlaps(box) || !bound.Overlaps(group.local_box, box)) {
      return true;
    }
    const Aabb<D>* part_boxes = tree->member_boxes->data() + group.first;
    for (std::size_t m = 0; m < members.size(); ++m) {
      if (!bound.Overlaps(part_boxes[m], box)) continue;
      const BodyAtTick<D> body = runner.Resolve(members[m]);
      if (sphere_culled(body)) continue;
      if (!run_narrow(body)) return false;
    }
    return true;
  };
  // Runs the narrow phase on the batch; false when the query is done. The
  // loads of each stage (slots, then records and poses, then shapes) are
  // independent of one another, so their cache misses overlap.
  auto flush = [&]() {
    const int n = count;
    count = 0;
    const std::vector<std::uint32_t>& slots = *tree->slots;
    int singles = 0;
    for (int i = 0; i < n; ++i) {
      const std::uint32_t entry = slots[batch[i]];
      if ((entry & internal::kGroupProxy) != 0) {
        if (!run_group(entry)) return false;
        continue;
      }
      batch_slots[singles++] = entry;
      runner.Prefetch(entry);
    }
    int kept = 0;
    for (int i = 0; i < singles; ++i) {
      const BodyAtTick<D> body = runner.Resolve(batch_slots[i]);
      if (sphere_culled(body)) continue;
      internal::PrefetchShape<D>(body.record->shape.get());
      bodies[kept++] = body;
    }
    for (int i = 0; i < kept; ++i) {
      if (!run_narrow(bodies[i])) return false;
    }
    return true;
  };
  runner.ForEachTree([&](const SlotTree<D>& current_tree) {
    if (!status.ok() || runner.done()) return;
    tree = &current_tree;
    auto stage = [&](std::uint32_t proxy) {
      batch[count++] = proxy;
      return count < kPrefetchBatch || flush();
    };
    if (tree->current_boxes != nullptr && runner.at_newest()) {
      // The same cull as flush's, from the tree's own leaf-ordered boxes:
      // bodies that met the window box only at other ticks never reach the
      // staging.
      const Aabb<D>* current = tree->current_boxes->data();
      runner.stats +=
          tree->bvh->Query(box, [&](std::uint32_t proxy, std::uint32_t leaf) {
            return !Overlaps(current[leaf], box) || stage(proxy);
          });
    } else {
      runner.stats += tree->bvh->Query(box, stage);
    }
    if (count > 0) flush();
  });
  return status;
}

// Cast queries (ray, sweep): `input` is the cast (a RayCastInput or a
// BoxCastInput; its max_fraction is set here), traversed nearest-first in
// each tree by the matching Bvh traversal: rays by RayCast, which finds the
// same candidates as a box cast of the zero box at the origin, faster;
// sweeps by BoxCast. `narrow(body)` returns the hit's fraction of the cast
// (for clipping) or nullopt for a miss.
template <int D, typename Input, typename Narrow>
absl::Status RunCastQuery(QueryRunner<D>& runner, Input input,
                          Narrow&& narrow) {
  static_assert(std::is_same_v<Input, broadphase::RayCastInput<D>> ||
                std::is_same_v<Input, broadphase::BoxCastInput<D>>);
  absl::Status status;
  // A group proxy's coarse bound is tested as the tree tests its nodes: the
  // segment from the cast's origin (a box cast's centre), in the group's
  // frame, against its local box grown by the cast box's half diagonal (the
  // cast box at any rotation).
  Vec<D> origin{};
  float radius = 0.0f;
  if constexpr (std::is_same_v<Input, broadphase::RayCastInput<D>>) {
    origin = input.origin;
  } else {
    origin = Center(input.box);
    radius = Length(HalfExtents(input.box));
  }
  const float length2 = Dot(input.translation, input.translation);
  // A zero (or denormal) translation: the sphere test at the origin alone,
  // its segment being no longer than round-off there.
  const float inverse_length2 =
      length2 > std::numeric_limits<float>::min() ? 1.0f / length2 : 0.0f;
  runner.ForEachTree([&](const SlotTree<D>& tree) {
    if (!status.ok() || runner.done()) return;
    const std::vector<std::uint32_t>& slots = *tree.slots;
    input.max_fraction = 1.0f;
    if (std::optional<float> clip = runner.clip_key()) {
      input.max_fraction = std::min(1.0f, *clip + kClipSlack);
    }
    // The narrow phase on the body in `slot`; false when the query is done
    // or failed.
    auto run_slot = [&](std::uint32_t slot) {
      const BodyAtTick<D> body = runner.Resolve(slot);
      if (body.record == nullptr) return true;
      absl::StatusOr<std::optional<float>> hit = narrow(body);
      if (!hit.ok()) {
        status = hit.status();
        return false;
      }
      return !runner.done();
    };
    // The traversal's new clip, or 0 to stop it.
    auto leaf = [&](std::uint32_t proxy, const Input& current) -> float {
      const std::uint32_t entry = slots[proxy];
      if ((entry & internal::kGroupProxy) == 0) {
        if (!run_slot(entry)) return 0.0f;
      } else {
        const internal::GroupProxy<D>& group =
            (*tree.groups)[entry & ~internal::kGroupProxy];
        const std::span<const std::uint32_t> members =
            internal::ProxySlots(tree, entry);
        GroupBoundAt<D> bound;
        if (!runner.GroupBound(group, members, &bound) ||
            !bound.SphereHitBy(origin, input.translation, inverse_length2,
                               radius, current.max_fraction)) {
          return -1.0f;
        }
        const GroupCast<D> cast(bound, origin, input.translation, radius);
        if (!cast.Hits(group.local_box, current.max_fraction)) return -1.0f;
        // A closest-hit query's clip tightens as its parts are hit: a part
        // whose box the cast enters only beyond the best hit cannot be
        // closer.
        const Aabb<D>* part_boxes = tree.member_boxes->data() + group.first;
        float max_fraction = current.max_fraction;
        for (std::size_t m = 0; m < members.size(); ++m) {
          if (!cast.Hits(part_boxes[m], max_fraction)) continue;
          if (!run_slot(members[m])) return 0.0f;
          if (const std::optional<float> clip = runner.clip_key()) {
            max_fraction = std::min(max_fraction, *clip + kClipSlack);
          }
        }
      }
      if (std::optional<float> clip = runner.clip_key()) {
        return std::min(1.0f, *clip + kClipSlack);
      }
      return -1.0f;
    };
    if constexpr (std::is_same_v<Input, broadphase::RayCastInput<D>>) {
      runner.stats += tree.bvh->RayCast(input, leaf);
    } else {
      runner.stats += tree.bvh->BoxCast(input, leaf);
    }
  });
  return status;
}

template <int D>
QueryHit<D> BaseHit(const BodyRecord<D>& record) {
  QueryHit<D> hit;
  hit.body_id = record.id;
  hit.user_data = record.user_data;
  hit.group_id = record.group_id;
  hit.part = record.part;
  return hit;
}

}  // namespace

template <int D>
std::int64_t SceneSnapshot<D>::tick() const {
  return data_->tick();
}

template <int D>
std::int64_t SceneSnapshot<D>::oldest_tick() const {
  return data_->oldest_tick();
}

template <int D>
absl::StatusOr<std::int64_t> SceneSnapshot<D>::QueryTick(
    const QueryOptions& options) const {
  absl::StatusOr<TickChoice> choice = ChooseTick(*data_, options);
  if (!choice.ok()) return choice.status();
  return choice->tick;
}

template <int D>
std::size_t SceneSnapshot<D>::body_count() const {
  return data_->body_count;
}

template <int D>
double SceneSnapshot<D>::tick_rate() const {
  return data_->tick_rate;
}

template <int D>
const HitPolicy& SceneSnapshot<D>::hit_policy() const {
  return data_->hit_policy;
}

template <int D>
std::vector<GroupDesc<D>> SceneSnapshot<D>::Groups() const {
  std::vector<GroupDesc<D>> groups;
  const Frame<D>& newest = data_->frames.back();
  for (const auto& [group_id, slots] : *data_->group_slots) {
    GroupDesc<D> desc;
    desc.group_id = group_id;
    for (const std::uint32_t slot : slots) {
      if (slot >= newest.table->size()) continue;
      const BodyRecord<D>& record = (*newest.table)[slot];
      if (record.incarnation == 0 || record.group_id != group_id) continue;
      if (desc.part_count++ == 0) desc.pose = newest.groups->group[slot];
    }
    if (desc.part_count > 0) groups.push_back(desc);
  }
  std::sort(groups.begin(), groups.end(),
            [](const GroupDesc<D>& a, const GroupDesc<D>& b) {
              return a.group_id < b.group_id;
            });
  return groups;
}

template <int D>
absl::StatusOr<std::vector<typename SceneSnapshot<D>::Part>>
SceneSnapshot<D>::GroupParts(std::uint64_t group_id,
                             const std::optional<Rewind>& rewind) const {
  QueryOptions options;
  options.max_hits = 1;
  options.rewind = rewind;
  absl::StatusOr<TickChoice> tick = ChooseTick(*data_, options);
  if (!tick.ok()) return tick.status();
  std::vector<Part> parts;
  auto it = data_->group_slots->find(group_id);
  if (it == data_->group_slots->end()) return parts;
  const Frame<D>& frame = data_->frames[tick->frame];
  for (const std::uint32_t slot : it->second) {
    if (slot >= frame.table->size()) continue;
    const BodyRecord<D>& record = (*frame.table)[slot];
    if (record.incarnation == 0 || record.group_id != group_id) continue;
    Part& part = parts.emplace_back();
    part.body_id = record.id;
    part.part = record.part;
    part.layer = record.layer;
    part.mask = record.mask;
    part.shape = record.shape;
    part.pose = PoseAt(*data_, tick->frame, tick->fraction, slot, record,
                       &part.teleported);
  }
  std::sort(parts.begin(), parts.end(),
            [](const Part& a, const Part& b) { return a.body_id < b.body_id; });
  return parts;
}

template <int D>
absl::StatusOr<std::vector<typename SceneSnapshot<D>::PosedBody>>
SceneSnapshot<D>::BodiesAt(const std::optional<Rewind>& rewind) const {
  QueryOptions options;
  options.max_hits = 1;
  options.rewind = rewind;
  absl::StatusOr<TickChoice> tick = ChooseTick(*data_, options);
  if (!tick.ok()) return tick.status();
  const Frame<D>& frame = data_->frames[tick->frame];
  std::vector<PosedBody> bodies;
  for (std::uint32_t slot = 0; slot < frame.table->size(); ++slot) {
    const BodyRecord<D>& record = (*frame.table)[slot];
    if (record.incarnation == 0) continue;
    PosedBody& body = bodies.emplace_back();
    body.id = record.id;
    body.shape = record.shape;
    body.group_id = record.group_id;
    body.part = record.part;
    body.motion = record.motion;
    body.pose = PoseAt(*data_, tick->frame, tick->fraction, slot, record,
                       &body.teleported);
  }
  std::sort(bodies.begin(), bodies.end(),
            [](const PosedBody& a, const PosedBody& b) { return a.id < b.id; });
  return bodies;
}

template <int D>
absl::StatusOr<QueryResult<D>> SceneSnapshot<D>::Overlap(
    const SceneShape<D>& shape, const Pose<D>& pose,
    const QueryOptions& options) const {
  absl::StatusOr<Pose<D>> checked = CheckQueryShape<D>(shape, pose);
  if (!checked.ok()) return checked.status();
  absl::StatusOr<TickChoice> tick = ChooseTick(*data_, options);
  if (!tick.ok()) return tick.status();
  QueryRunner<D> runner(*data_, options, tick->frame, tick->fraction);
  const Aabb<D> box = internal::Pad(ShapeOps<D>::Bounds(shape, *checked));
  absl::Status status =
      RunBoxQuery<D>(runner, box, [&](const BodyAtTick<D>& body) {
        absl::StatusOr<bool> overlap = ShapeOps<D>::Overlap(
            shape, *checked, *body.record->shape, body.pose);
        if (!overlap.ok()) return overlap.status();
        if (*overlap) runner.Add(BaseHit(*body.record), 0.0f);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return runner.Finish(*tick);
}

template <int D>
absl::StatusOr<QueryResult<D>> SceneSnapshot<D>::Contacts(
    const SceneShape<D>& shape, const Pose<D>& pose,
    const QueryOptions& options, float min_depth) const {
  absl::StatusOr<Pose<D>> checked = CheckQueryShape<D>(shape, pose);
  if (!checked.ok()) return checked.status();
  if (!std::isfinite(min_depth)) {
    return FieldError("min_depth", "not finite");
  }
  if (min_depth < 0.0f) {
    return FieldError("min_depth",
                      absl::StrCat("must be >= 0, got ", min_depth));
  }
  absl::StatusOr<TickChoice> tick = ChooseTick(*data_, options);
  if (!tick.ok()) return tick.status();
  QueryRunner<D> runner(*data_, options, tick->frame, tick->fraction);
  const Aabb<D> box = internal::Pad(ShapeOps<D>::Bounds(shape, *checked));
  absl::Status status =
      RunBoxQuery<D>(runner, box, [&](const BodyAtTick<D>& body) {
        ShapeOps<D>::ForEachContact(
            shape, *checked, *body.record->shape, body.pose,
            [&](const ContactResult<D>& contact, std::int32_t feature) {
              if (runner.done() || contact.depth < min_depth) return;
              QueryHit<D> hit = BaseHit(*body.record);
              // The core's normal goes from the query shape (A) to the body
              // (B); ours points out of the body.
              hit.normal = -contact.normal;
              hit.depth = contact.depth;
              hit.flags = kHitNormal | kHitDepth;
              if (feature >= 0) {
                hit.feature = feature;
                hit.flags |= kHitFeature;
              }
              if (contact.point_count > 0) {
                Vec<D> sum{};
                for (int i = 0; i < contact.point_count; ++i) {
                  sum += contact.points[static_cast<std::size_t>(i)];
                }
                hit.point =
                    sum * (1.0f / static_cast<float>(contact.point_count));
                hit.flags |= kHitPoint;
              }
              runner.Add(hit, -contact.depth);
            });
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  QueryResult<D> result = runner.Finish(*tick);
  // The combined depenetration vector: one projection pass, deepest first.
  Vec<D> v{};
  for (const QueryHit<D>& hit : result.hits) {
    const float remaining = hit.depth - Dot(v, hit.normal);
    if (remaining > 0.0f) v += hit.normal * remaining;
  }
  result.depenetration = v;
  return result;
}

template <int D>
absl::StatusOr<QueryResult<D>> SceneSnapshot<D>::Sweep(
    const SceneShape<D>& shape, const Pose<D>& pose, Vec<D> displacement,
    const QueryOptions& options) const {
  absl::StatusOr<Pose<D>> checked = CheckQueryShape<D>(shape, pose);
  if (!checked.ok()) return checked.status();
  if (absl::Status s = CheckVector<D>(displacement, "displacement"); !s.ok()) {
    return s;
  }
  absl::StatusOr<TickChoice> tick = ChooseTick(*data_, options);
  if (!tick.ok()) return tick.status();
  QueryRunner<D> runner(*data_, options, tick->frame, tick->fraction);
  const Aabb<D> start = ShapeOps<D>::Bounds(shape, *checked);
  // Padded by the scale of the whole swept region.
  const Aabb<D> box =
      Inflate(start, internal::PadMargin(sator::Sweep(start, displacement)));
  absl::Status status = RunCastQuery<D>(
      runner, broadphase::BoxCastInput<D>{box, displacement, 1.0f},
      [&](const BodyAtTick<D>& body) -> absl::StatusOr<std::optional<float>> {
        absl::StatusOr<SweepResult<D>> sweep = ShapeOps<D>::Sweep(
            shape, *checked, displacement, *body.record->shape, body.pose);
        if (!sweep.ok()) return sweep.status();
        QueryHit<D> hit = BaseHit(*body.record);
        switch (sweep->outcome) {
          case SweepOutcome::kMiss:
            return std::optional<float>();
          case SweepOutcome::kHit:
            hit.fraction = sweep->fraction;
            hit.normal = -sweep->normal;
            hit.point = sweep->point;
            hit.flags = kHitFraction | kHitNormal | kHitPoint;
            break;
          case SweepOutcome::kStartedOverlapping:
            hit.fraction = 0.0f;
            hit.normal = -sweep->initial.normal;
            hit.depth = sweep->initial.depth;
            hit.flags =
                kHitFraction | kHitNormal | kHitDepth | kHitStartedInside;
            break;
        }
        runner.Add(hit, hit.fraction);
        return std::optional<float>(hit.fraction);
      });
  if (!status.ok()) return status;
  return runner.Finish(*tick);
}

template <int D>
absl::StatusOr<QueryResult<D>> SceneSnapshot<D>::RayCast(
    Vec<D> origin, Vec<D> direction, float max_distance,
    const QueryOptions& options) const {
  if (absl::Status s = CheckVector<D>(origin, "origin"); !s.ok()) return s;
  if (absl::Status s = CheckVector<D>(direction, "direction"); !s.ok()) {
    return s;
  }
  const Vec<D> unit = NormalizeOrZero(direction, 1e-12f);
  if (unit == Vec<D>{}) {
    return FieldError("direction", "must not be zero");
  }
  if (std::isnan(max_distance) || max_distance <= 0.0f ||
      max_distance > kMaxQueryCoordinate) {
    return FieldError("max_distance",
                      absl::StrCat("must be in (0, 1e15], got ", max_distance));
  }
  absl::StatusOr<TickChoice> tick = ChooseTick(*data_, options);
  if (!tick.ok()) return tick.status();
  QueryRunner<D> runner(*data_, options, tick->frame, tick->fraction);
  const Ray<D> ray{origin, unit, max_distance};
  const Vec<D> translation = unit * max_distance;
  absl::Status status = RunCastQuery<D>(
      runner, broadphase::RayCastInput<D>{origin, translation, 1.0f},
      [&](const BodyAtTick<D>& body) -> absl::StatusOr<std::optional<float>> {
        absl::StatusOr<RayResult<D>> cast =
            ShapeOps<D>::RayCast(*body.record->shape, body.pose, ray);
        if (!cast.ok()) return cast.status();
        if (!cast->hit) return std::optional<float>();
        QueryHit<D> hit = BaseHit(*body.record);
        hit.distance = cast->distance;
        hit.fraction = cast->distance / max_distance;
        hit.point = cast->point;
        hit.flags = kHitDistance | kHitFraction | kHitPoint;
        if (cast->started_inside) {
          hit.flags |= kHitStartedInside;
        } else {
          hit.normal = cast->normal;
          hit.flags |= kHitNormal;
        }
        if (cast->feature >= 0) {
          hit.feature = cast->feature;
          hit.flags |= kHitFeature;
        }
        // The key is the fraction, so clipping compares like with like.
        runner.Add(hit, hit.fraction);
        return std::optional<float>(hit.fraction);
      });
  if (!status.ok()) return status;
  return runner.Finish(*tick);
}

template <int D>
absl::StatusOr<QueryResult<D>> SceneSnapshot<D>::PointQuery(
    Vec<D> point, const QueryOptions& options) const {
  if (absl::Status s = CheckVector<D>(point, "point"); !s.ok()) return s;
  absl::StatusOr<TickChoice> tick = ChooseTick(*data_, options);
  if (!tick.ok()) return tick.status();
  QueryRunner<D> runner(*data_, options, tick->frame, tick->fraction);
  Vec<D> direction{};
  direction[0] = 1.0f;
  const Aabb<D> box = internal::Pad(Aabb<D>{point, point});
  const Ray<D> ray{point, direction,
                   kPointRayLength * (1.0f + MaxAbs(Aabb<D>{point, point}))};
  absl::Status status =
      RunBoxQuery<D>(runner, box, [&](const BodyAtTick<D>& body) {
        absl::StatusOr<RayResult<D>> cast =
            ShapeOps<D>::RayCast(*body.record->shape, body.pose, ray);
        if (!cast.ok()) return cast.status();
        if (cast->hit && cast->started_inside) {
          QueryHit<D> hit = BaseHit(*body.record);
          hit.point = point;
          hit.flags = kHitPoint | kHitStartedInside;
          runner.Add(hit, 0.0f);
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return runner.Finish(*tick);
}

template <int D>
absl::StatusOr<QueryResult<D>> SceneSnapshot<D>::Run(
    const SceneQuery<D>& query) const {
  auto shape_of = [](const ShapePtr<D>& shape) -> absl::Status {
    if (shape == nullptr) return FieldError("shape", "is null");
    return absl::OkStatus();
  };
  if (const auto* q = std::get_if<OverlapRequest<D>>(&query)) {
    if (absl::Status s = shape_of(q->shape); !s.ok()) return s;
    return Overlap(*q->shape, q->pose, q->options);
  }
  if (const auto* q = std::get_if<ContactsRequest<D>>(&query)) {
    if (absl::Status s = shape_of(q->shape); !s.ok()) return s;
    return Contacts(*q->shape, q->pose, q->options, q->min_depth);
  }
  if (const auto* q = std::get_if<SweepRequest<D>>(&query)) {
    if (absl::Status s = shape_of(q->shape); !s.ok()) return s;
    return Sweep(*q->shape, q->pose, q->displacement, q->options);
  }
  if (const auto* q = std::get_if<RayRequest<D>>(&query)) {
    return RayCast(q->origin, q->direction, q->max_distance, q->options);
  }
  const auto& q = std::get<PointRequest<D>>(query);
  return PointQuery(q.point, q.options);
}

template class SceneSnapshot<2>;
template class SceneSnapshot<3>;

}  // namespace sator::scene
