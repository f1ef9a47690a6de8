// A dynamic AABB tree: incremental insert, remove and move of proxies.
//
// Algorithms (see docs/core/broadphase.md):
// - Insertion picks the sibling that minimises the surface-area heuristic
//   cost with branch and bound, then rotates nodes on the way back up to lower
//   that cost further (Catto, "Dynamic Bounding Volume Hierarchies", GDC 2019;
//   the cost model is MacDonald and Booth 1990; rotations after Kopta et al.,
//   "Fast, Effective BVH Updates for Animated Scenes", I3D 2012).
// - Leaves store fattened boxes: the tight box grown by a margin and stretched
//   along the predicted displacement, so small motions need no tree update
//   (the scheme of Box2D's b2DynamicTree and Bullet's btDbvt).
// - Nodes live in one flat pool (a std::vector) with a free list threaded
//   through the parent field; a proxy's handle is its leaf's index, stable
//   for the proxy's lifetime (rotations never move a leaf to another slot).
//
// Queries take a visitor as a template parameter (inlined, no std::function)
// and return TreeStats.
#ifndef SATOR_CORE_BROADPHASE_DYNAMIC_TREE_H_
#define SATOR_CORE_BROADPHASE_DYNAMIC_TREE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sator/core/aabb.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/broadphase/traversal_stack.h"
#include "sator/core/broadphase/tree_stats.h"
#include "sator/core/vec.h"

namespace sator::broadphase {

// How insertion searches for the new leaf's sibling. Both minimise the same
// SAH cost with the same lower bound; kBranchAndBound backtracks into every
// subtree whose bound beats the best cost found (Catto 2019) and finds the
// optimum, kGreedy follows only the most promising child at each level (the
// approximation Box2D v3 ships), touching about a third as many nodes.
enum class SiblingSearch { kBranchAndBound, kGreedy };

struct DynamicTreeOptions {
  // Grows every proxy's box on each side, in length units.
  float margin = 0.1f;
  // A moved proxy's fat box is stretched by this many times its displacement
  // along the direction of motion (Box2D uses 4).
  float displacement_multiplier = 4.0f;
  SiblingSearch sibling_search = SiblingSearch::kBranchAndBound;
};

template <int D>
class DynamicTree {
 public:
  // The validating factory: refuses a negative or non-finite margin or
  // multiplier.
  static absl::StatusOr<DynamicTree> Create(
      const DynamicTreeOptions& options = {});
  // An empty tree with the default options (always valid).
  DynamicTree() : DynamicTree(DynamicTreeOptions{}) {}

  // Inserts a proxy for the tight box `box`; returns its handle.
  absl::StatusOr<std::uint32_t> CreateProxy(const Aabb<D>& box);
  absl::Status DestroyProxy(std::uint32_t proxy);
  // Gives the proxy the tight box `box`, which moved by `displacement` since
  // the last call. Returns true when the proxy left its fat box (or the fat
  // box had become much too large) and was re-inserted; false when the tree
  // did not change.
  absl::StatusOr<bool> MoveProxy(std::uint32_t proxy, const Aabb<D>& box,
                                 Vec<D> displacement);
  void Clear();

  [[nodiscard]] bool IsProxy(std::uint32_t proxy) const {
    return proxy < nodes_.size() && nodes_[proxy].height == 0;
  }
  // The fat box of a live proxy (check IsProxy first).
  [[nodiscard]] const Aabb<D>& FatAabb(std::uint32_t proxy) const {
    return nodes_[proxy].box;
  }
  [[nodiscard]] int ProxyCount() const { return proxy_count_; }
  // 0 for an empty tree, 1 for a single leaf.
  [[nodiscard]] int Height() const {
    return root_ == kNull ? 0 : nodes_[root_].height + 1;
  }
  // Bytes held by the node pool (its capacity, not just the live nodes).
  [[nodiscard]] std::size_t MemoryBytes() const {
    return nodes_.capacity() * sizeof(Node);
  }
  // Sum of the internal nodes' surface measures over the root's: the SAH
  // quality figure (lower is better).
  [[nodiscard]] float AreaRatio() const;

  // Checks every invariant: parents contain their children, parent links
  // match, heights are 1 + the children's maximum, leaf count matches, every
  // pool slot is either reachable or on the free list. For tests.
  absl::Status Validate() const;

  // Calls visitor(std::uint32_t proxy) -> bool for every proxy whose fat box
  // overlaps `box` (closed intervals). Returning false stops the query.
  template <typename Visitor>
  TreeStats Query(const Aabb<D>& box, Visitor&& visitor) const;

  // Calls visitor(std::uint32_t proxy, const RayCastInput<D>& clipped) ->
  // float for every proxy whose fat box the segment meets, the nearer
  // subtree first (so usually, not strictly, in order of entry). The
  // visitor returns the new max fraction: 0 stops, a negative
  // value ignores the proxy, a positive value clips the segment (a value
  // above the current max fraction does not lengthen it).
  template <typename Visitor>
  TreeStats RayCast(const RayCastInput<D>& input, Visitor&& visitor) const;

  // The same for a moving box: visitor(std::uint32_t proxy,
  // const BoxCastInput<D>& clipped) -> float for every proxy whose fat box
  // the moving box touches, the earlier-touched subtree first.
  template <typename Visitor>
  TreeStats BoxCast(const BoxCastInput<D>& input, Visitor&& visitor) const;

 private:
  static constexpr std::int32_t kNull = -1;

  struct Node {
    Aabb<D> box;          // Fat box for a leaf, union of children otherwise.
    std::int32_t parent;  // Next free slot while on the free list.
    std::int32_t child1;  // kNull for a leaf.
    std::int32_t child2;
    std::int32_t height;  // 0 for a leaf, -1 while free.
    [[nodiscard]] bool IsLeaf() const { return child1 == kNull; }
  };

  explicit DynamicTree(const DynamicTreeOptions& options) : options_(options) {}

  std::int32_t AllocateNode();
  void FreeNode(std::int32_t index);
  Aabb<D> FatBox(const Aabb<D>& box, Vec<D> displacement) const;
  std::int32_t FindBestSibling(const Aabb<D>& box) const;
  void InsertLeaf(std::int32_t leaf);
  void RemoveLeaf(std::int32_t leaf);
  void Rotate(std::int32_t index);

  template <typename Leaf>
  TreeStats Cast(Vec<D> origin, Vec<D> translation, Vec<D> grow,
                 float max_fraction, Leaf&& leaf) const;

  DynamicTreeOptions options_;
  std::vector<Node> nodes_;
  std::int32_t root_ = kNull;
  std::int32_t free_list_ = kNull;
  int proxy_count_ = 0;
};

extern template class DynamicTree<2>;
extern template class DynamicTree<3>;
using DynamicTree2 = DynamicTree<2>;
using DynamicTree3 = DynamicTree<3>;

// ---- Query templates -------------------------------------------------------

template <int D>
template <typename Visitor>
TreeStats DynamicTree<D>::Query(const Aabb<D>& box, Visitor&& visitor) const {
  TreeStats stats;
  if (root_ == kNull) {
    return stats;
  }
  TraversalStack<std::int32_t> stack;
  stack.Push(root_);
  while (!stack.Empty()) {
    const std::int32_t index = stack.Pop();
    const Node& node = nodes_[index];
    ++stats.node_visits;
    if (!Overlaps(node.box, box)) {
      continue;
    }
    if (node.IsLeaf()) {
      ++stats.leaf_visits;
      if (!visitor(static_cast<std::uint32_t>(index))) {
        return stats;
      }
    } else {
      stack.Push(node.child2);
      stack.Push(node.child1);
    }
  }
  return stats;
}

template <int D>
template <typename Visitor>
TreeStats DynamicTree<D>::RayCast(const RayCastInput<D>& input,
                                  Visitor&& visitor) const {
  return Cast(input.origin, input.translation, Vec<D>{}, input.max_fraction,
              ClippedRayVisitor(input, visitor));
}

template <int D>
template <typename Visitor>
TreeStats DynamicTree<D>::BoxCast(const BoxCastInput<D>& input,
                                  Visitor&& visitor) const {
  return Cast(Center(input.box), input.translation, HalfExtents(input.box),
              input.max_fraction, ClippedBoxVisitor(input, visitor));
}

// Nearest-first traversal: both children are tested when their parent is
// expanded and pushed far one first, each with its entry fraction, so the
// nearer subtree is searched first and an entry beyond the (clipped) max
// fraction is dropped when popped.
template <int D>
template <typename Leaf>
TreeStats DynamicTree<D>::Cast(Vec<D> origin, Vec<D> translation, Vec<D> grow,
                               float max_fraction, Leaf&& leaf) const {
  struct Entry {
    std::int32_t index;
    float entry;
  };
  TreeStats stats;
  if (root_ == kNull) {
    return stats;
  }
  const Segment<D> segment(origin, translation);
  float entry = 0.0f;
  ++stats.node_visits;
  if (!segment.Hits(nodes_[root_].box, grow, max_fraction, &entry)) {
    return stats;
  }
  TraversalStack<Entry> stack;
  stack.Push({root_, entry});
  while (!stack.Empty()) {
    const Entry top = stack.Pop();
    if (top.entry > max_fraction) {
      continue;
    }
    const Node& node = nodes_[top.index];
    if (node.IsLeaf()) {
      ++stats.leaf_visits;
      const float value =
          leaf(static_cast<std::uint32_t>(top.index), max_fraction);
      if (value == 0.0f) {
        return stats;
      }
      if (value > 0.0f) {
        max_fraction = std::min(max_fraction, value);
      }
      continue;
    }
    float entry1 = 0.0f;
    float entry2 = 0.0f;
    stats.node_visits += 2;
    const bool hit1 =
        segment.Hits(nodes_[node.child1].box, grow, max_fraction, &entry1);
    const bool hit2 =
        segment.Hits(nodes_[node.child2].box, grow, max_fraction, &entry2);
    if (hit1 && hit2) {
      if (entry1 <= entry2) {
        stack.Push({node.child2, entry2});
        stack.Push({node.child1, entry1});
      } else {
        stack.Push({node.child1, entry1});
        stack.Push({node.child2, entry2});
      }
    } else if (hit1) {
      stack.Push({node.child1, entry1});
    } else if (hit2) {
      stack.Push({node.child2, entry2});
    }
  }
  return stats;
}

}  // namespace sator::broadphase

#endif  // SATOR_CORE_BROADPHASE_DYNAMIC_TREE_H_
