// A bounding volume hierarchy built from scratch over a set of boxes (meant to
// be rebuilt every tick, or refitted when the boxes move a little).
//
// Two builders (BvhOptions::method), both top down:
// - kBinnedSah (Wald, "On fast Construction of SAH-based Bounding Volume
//   Hierarchies", IEEE Symposium on Interactive Ray Tracing 2007): at each
//   node the centroids are binned along the axis of largest centroid extent
//   and the bin boundary with the lowest SA(left) * n_left +
//   SA(right) * n_right is taken (MacDonald and Booth 1990). A node of at most
//   max_leaf_size proxies becomes a leaf when that is cheaper than splitting
//   (always, when wide ray nodes are on: they test a leaf's proxies at once).
// - kMorton, a linear BVH (Lauterbach et al., "Fast BVH Construction on GPUs",
//   2009; Karras, "Maximizing Parallelism in the Construction of BVHs,
//   Octrees, and k-d Trees", HPG 2012): centroids are quantised and sorted by
//   Morton code (radix sort), and each range is split where its first and
//   last codes first differ (the highest differing bit), found by binary
//   search. Faster to build, somewhat looser boxes.
//
// Layout: nodes in depth-first order, 24 bytes in 2D and 32 in 3D. An
// internal node's first child is the next node and its second child's index
// is stored; a leaf stores the range of its proxies in a reordered copy of
// their boxes, so a leaf's boxes are contiguous in memory.
//
// Refit: children always follow their parent, so one backward pass over the
// nodes recomputes every box from the new proxy boxes (no rebuild, same
// topology; quality degrades as the boxes drift from where they were built).
//
// Proxy handles are the indices of the boxes passed to Build.
#ifndef SATOR_CORE_BROADPHASE_BVH_H_
#define SATOR_CORE_BROADPHASE_BVH_H_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sator/core/aabb.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/broadphase/traversal_stack.h"
#include "sator/core/broadphase/tree_stats.h"
#include "sator/core/vec.h"

namespace sator::broadphase {

enum class BvhBuildMethod { kBinnedSah, kMorton };

struct BvhOptions {
  BvhBuildMethod method = BvhBuildMethod::kBinnedSah;
  // Bins per split (Wald 2007 uses 16 or 32); in [2, 64].
  int bin_count = 16;
  // The most proxies in one leaf; in [1, 16], and at most 8 with
  // wide_ray_nodes (a leaf's proxies must fit one wide node).
  int max_leaf_size = 4;
  // Also keep an 8-wide copy of the hierarchy, which RayCast then traverses
  // testing eight child or proxy boxes at once (see bvh_wide.cc). Costs
  // wide nodes of 256 bytes in 3D and 192 in 2D, about 70 bytes per proxy
  // in 3D at 4 proxies per leaf, plus one pass over the nodes per Build,
  // Refit or RefitFrom; worth it for trees that are cast against much more
  // often than they are rebuilt.
  bool wide_ray_nodes = false;
  // kBinnedSah only: make every node of at most max_leaf_size proxies a
  // leaf (as wide_ray_nodes does), instead of splitting it where the SAH
  // prices the split lower. About 40% fewer nodes; for trees whose leaf
  // proxies are tested one by one against their own boxes anyway, such as
  // a triangle mesh's.
  bool full_leaves = false;
};

template <int D>
class Bvh {
  struct BuildPrim;

 public:
  // The memory a build works in (copies of the proxies for the SAH builder,
  // Morton keys for the LBVH). Every Bvh owns one for Build(boxes); a caller
  // that builds many hierarchies, one at a time, can share one through
  // Build(boxes, scratch) so that each hierarchy holds only its nodes, boxes
  // and ids.
  class BuildScratch {
   public:
    // Bytes held (capacities).
    [[nodiscard]] std::size_t MemoryBytes() const {
      return prims_.capacity() * sizeof(BuildPrim) +
             (keys_.capacity() + keys_swap_.capacity()) * sizeof(std::uint64_t);
    }
    // Frees the SAH builder's proxy copies (kept otherwise for the next
    // build).
    void ReleasePrims() { std::vector<BuildPrim>().swap(prims_); }
    // Frees the Morton builder's keys (kept otherwise for the next build).
    void ReleaseKeys() {
      std::vector<std::uint64_t>().swap(keys_);
      std::vector<std::uint64_t>().swap(keys_swap_);
    }

   private:
    friend class Bvh;
    std::vector<BuildPrim> prims_;
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint64_t> keys_swap_;
  };

  // The validating factory: refuses options out of range.
  static absl::StatusOr<Bvh> Create(const BvhOptions& options = {});
  // An empty hierarchy with the default options (always valid).
  Bvh() : Bvh(BvhOptions{}) {}

  // Builds over `boxes`; proxy i is boxes[i]. Refuses invalid boxes (the
  // previous hierarchy is then left as it was).
  absl::Status Build(std::span<const Aabb<D>> boxes);
  // The same, working in `scratch` instead of this hierarchy's own.
  absl::Status Build(std::span<const Aabb<D>> boxes, BuildScratch* scratch);
  // Gives every proxy a new box, keeping the hierarchy's shape. `boxes` must
  // have as many entries as the last Build had.
  absl::Status Refit(std::span<const Aabb<D>> boxes);
  // Becomes `source`'s hierarchy (its options, topology and proxy order)
  // refitted to `boxes`, leaving `source` as it is: a refit of an immutable
  // hierarchy into this one's memory. `boxes` must have as many entries as
  // `source` has proxies.
  absl::Status RefitFrom(const Bvh& source, std::span<const Aabb<D>> boxes);

  [[nodiscard]] int ProxyCount() const {
    return static_cast<int>(leaf_ids_.size());
  }
  [[nodiscard]] int NodeCount() const {
    return static_cast<int>(nodes_.size());
  }
  // The proxy handle at each leaf position: proxies are stored in leaf order
  // (a leaf's proxies are contiguous), and Query gives a two-argument
  // visitor each proxy's position along with its handle, so a caller can
  // keep per-proxy data in this order and read it as contiguously as the
  // tree reads its boxes.
  [[nodiscard]] std::span<const std::uint32_t> LeafIds() const {
    return leaf_ids_;
  }
  // Levels of nodes: 0 when empty, 1 for a single leaf node.
  [[nodiscard]] int Height() const;
  // Bytes held: nodes, reordered boxes and ids (capacities).
  [[nodiscard]] std::size_t MemoryBytes() const;
  // As DynamicTree::AreaRatio.
  [[nodiscard]] float AreaRatio() const;
  // Checks that every node contains its children and proxies, the leaf
  // ranges cover each proxy exactly once and the links are in range.
  absl::Status Validate() const;

  // The queries, with the same contracts as DynamicTree's; Query's visitor
  // may also take (proxy, leaf position), see LeafIds.
  template <typename Visitor>
  TreeStats Query(const Aabb<D>& box, Visitor&& visitor) const;
  template <typename Visitor>
  TreeStats RayCast(const RayCastInput<D>& input, Visitor&& visitor) const;
  template <typename Visitor>
  TreeStats BoxCast(const BoxCastInput<D>& input, Visitor&& visitor) const;
  // Every pair (a proxy of this hierarchy, a proxy of `other`) whose boxes
  // overlap, found by one simultaneous descent of both trees (see
  // QueryPairs below). visitor(leaf_a, leaf_b) gets the two proxies' leaf
  // positions (LeafIds() and other.LeafIds() map them to handles) and
  // returns false to stop. node_visits counts node pairs and proxy pairs
  // tested, leaf_visits the pairs handed over.
  template <typename Visitor>
  TreeStats QueryPairs(const Bvh& other, Visitor&& visitor) const;

  // The nearest-first traversal that RayCast (without wide nodes) and
  // BoxCast run on, for casts of other kinds too (a conservative slab test,
  // a swept shape's box): ordered by the entry `reach` reports.
  // reach(box, max_fraction, &entry) says whether a node's or proxy's box is
  // reached at a parameter no greater than max_fraction (a conservative
  // reach may accept one a rounding beyond), and sets the first such
  // parameter; a waiting node whose entry is beyond the max fraction when
  // it is popped is dropped. For each proxy it accepts,
  // leaf(proxy, leaf position, max_fraction) returns the new max fraction
  // (the traversal keeps the least it has seen), or a negative value to
  // stop. The parameter is the caller's: a ray's fraction or distance.
  template <typename Reach, typename Leaf>
  TreeStats CastInOrder(float max_fraction, Reach&& reach, Leaf&& leaf) const;
  // The box of the whole hierarchy; only when it holds a proxy.
  [[nodiscard]] const Aabb<D>& Bounds() const {
    assert(!nodes_.empty());
    return nodes_.front().box;
  }

 private:
  struct Node {
    Aabb<D> box;
    // Internal: the second child's index. Leaf: first slot in leaf_boxes_.
    std::uint32_t index;
    // Proxies in a leaf; 0 for an internal node.
    std::uint32_t count;
    [[nodiscard]] bool IsLeaf() const { return count != 0; }
  };

  // A proxy during a build: its box, centroid and handle, moved as one.
  struct BuildPrim {
    Aabb<D> box;
    Vec<D> centroid;
    std::uint32_t id;
  };

  explicit Bvh(const BvhOptions& options) : options_(options) {}

  void BuildBinnedSah(const Aabb<D>& bounds, const Aabb<D>& centroid_bounds,
                      std::vector<BuildPrim>* prims);
  void BuildMorton(std::span<const Aabb<D>> boxes,
                   const Aabb<D>& centroid_bounds, BuildScratch* scratch);
  // Recomputes every node's box from leaf_boxes_.
  void RefitNodes();

  // The 8-wide tree (BvhOptions::wide_ray_nodes) that rays traverse: each
  // node holds up to eight boxes by axis and lane, so one vector slab test
  // covers them. Collapsed top down from the binary nodes (bvh_wide.cc): a lane
  // is a child wide node (a binary subtree) or a proxy (its box and handle),
  // and one node may hold both kinds.
  static constexpr int kWideLanes = 8;
  struct alignas(32) WideNode {
    float min[D][kWideLanes];
    float max[D][kWideLanes];
    // A wide node index, or kProxyLane | handle for a proxy lane.
    std::uint32_t child[kWideLanes];
    // Lanes in use (1 to 8); the boxes of unused lanes repeat lane 0's.
    std::uint32_t lanes;
    // Bit k: lane k is a proxy.
    std::uint32_t proxy_lanes;
  };
  static constexpr std::uint32_t kProxyLane = 0x80000000u;
  // Proxy handles must fit the 31 bits a proxy lane leaves them.
  static constexpr std::size_t kMaxWideProxies = std::size_t{1} << 30;
  // Rebuilds wide_ from the leaf order (or empties it when the option is
  // off).
  void UpdateWideNodes();
  // The tree and its build, without UpdateWideNodes.
  absl::Status BuildTree(std::span<const Aabb<D>> boxes, BuildScratch* scratch);
  // The ray traversal of the wide nodes (bvh_wide.cc). The visitor is
  // called with a proxy and the ray clipped to the current max fraction.
  using ProxyRayVisitor =
      absl::FunctionRef<float(std::uint32_t, const RayCastInput<D>&)>;
  TreeStats RayCastWide(const RayCastInput<D>& input,
                        ProxyRayVisitor visitor) const;

  // Casts the segment grown by `grow` through CastInOrder; leaf(proxy,
  // max_fraction) answers as the public visitors do.
  template <typename Leaf>
  TreeStats Cast(Vec<D> origin, Vec<D> translation, Vec<D> grow,
                 float max_fraction, Leaf&& leaf) const;
  // A public visitor's answer (0 stops, a positive value clips, a negative
  // one ignores the proxy) as CastInOrder's.
  static float NextMaxFraction(float value, float max_fraction) {
    if (value == 0.0f) {
      return -1.0f;
    }
    return value > 0.0f ? value : max_fraction;
  }

  BvhOptions options_;
  std::vector<Node> nodes_;
  std::vector<Aabb<D>> leaf_boxes_;      // Proxy boxes in leaf order.
  std::vector<std::uint32_t> leaf_ids_;  // Proxy handle of each slot.
  std::vector<WideNode> wide_;           // Empty unless wide_ray_nodes.
  std::uint32_t wide_root_ = 0;          // The top wide node.
  // Build scratch, kept to reuse its memory on the next build.
  BuildScratch scratch_;
};

extern template class Bvh<2>;
extern template class Bvh<3>;
using Bvh2 = Bvh<2>;
using Bvh3 = Bvh<3>;

// ---- Query templates -------------------------------------------------------

template <int D>
template <typename Visitor>
TreeStats Bvh<D>::Query(const Aabb<D>& box, Visitor&& visitor) const {
  TreeStats stats;
  if (nodes_.empty()) {
    return stats;
  }
  // Depth first: the first child (the next node in memory) is entered
  // directly and the second waits on the stack, so each internal node costs
  // one push and one pop.
  TraversalStack<std::uint32_t> stack;
  std::uint32_t index = 0;
  for (;;) {
    const Node& node = nodes_[index];
    ++stats.node_visits;
    if (Overlaps(node.box, box)) {
      if (!node.IsLeaf()) {
        // The second child is far away and visited only after the first's
        // subtree: start loading it now so that its cache miss overlaps that
        // work.
        __builtin_prefetch(nodes_.data() + node.index);
        stack.Push(node.index);
        ++index;
        continue;
      }
      const std::uint32_t end = node.index + node.count;
      __builtin_prefetch(leaf_ids_.data() + node.index);
      for (std::uint32_t slot = node.index; slot < end; ++slot) {
        ++stats.node_visits;
        if (!Overlaps(leaf_boxes_[slot], box)) {
          continue;
        }
        ++stats.leaf_visits;
        bool go_on;
        if constexpr (std::is_invocable_v<Visitor, std::uint32_t,
                                          std::uint32_t>) {
          go_on = visitor(leaf_ids_[slot], slot);
        } else {
          go_on = visitor(leaf_ids_[slot]);
        }
        if (!go_on) {
          return stats;
        }
      }
    }
    if (stack.Empty()) {
      return stats;
    }
    index = stack.Pop();
  }
}

// Simultaneous depth-first traversal of two hierarchies (Ericson, "Real-Time
// Collision Detection", 2005, 6.3.3; descent rule of 6.3.1: descend the
// larger volume, here by half-perimeter, so the two sides of a pair stay of
// similar size). A pair of overlapping leaves tests each proxy of the first
// against the second leaf's box, then against its proxies.
template <int D>
template <typename Visitor>
TreeStats Bvh<D>::QueryPairs(const Bvh& other, Visitor&& visitor) const {
  TreeStats stats;
  if (nodes_.empty() || other.nodes_.empty()) {
    return stats;
  }
  struct NodePair {
    std::uint32_t a;
    std::uint32_t b;
  };
  auto half_perimeter = [](const Aabb<D>& box) {
    float sum = 0.0f;
    for (int i = 0; i < D; ++i) {
      sum += box.max[i] - box.min[i];
    }
    return sum;
  };
  TraversalStack<NodePair> stack;
  NodePair pair{0, 0};
  for (;;) {
    const Node& a = nodes_[pair.a];
    const Node& b = other.nodes_[pair.b];
    ++stats.node_visits;
    if (Overlaps(a.box, b.box)) {
      if (a.IsLeaf() && b.IsLeaf()) {
        const std::uint32_t a_end = a.index + a.count;
        const std::uint32_t b_end = b.index + b.count;
        for (std::uint32_t i = a.index; i < a_end; ++i) {
          const Aabb<D>& box_a = leaf_boxes_[i];
          ++stats.node_visits;
          if (!Overlaps(box_a, b.box)) {
            continue;
          }
          for (std::uint32_t j = b.index; j < b_end; ++j) {
            ++stats.node_visits;
            if (!Overlaps(box_a, other.leaf_boxes_[j])) {
              continue;
            }
            ++stats.leaf_visits;
            if (!visitor(i, j)) {
              return stats;
            }
          }
        }
      } else if (b.IsLeaf() || (!a.IsLeaf() && half_perimeter(a.box) >=
                                                   half_perimeter(b.box))) {
        stack.Push({a.index, pair.b});
        pair.a += 1;
        continue;
      } else {
        stack.Push({pair.a, b.index});
        pair.b += 1;
        continue;
      }
    }
    if (stack.Empty()) {
      return stats;
    }
    pair = stack.Pop();
  }
}

// Rays with no parallel axis take the plain slab test (RaySlabs: no grow,
// no parallel branch); the rest take Segment's. Both go through CastInOrder,
// so they visit the same proxies in the same order.
template <int D>
template <typename Visitor>
TreeStats Bvh<D>::RayCast(const RayCastInput<D>& input,
                          Visitor&& visitor) const {
  if (!RaySlabs<D>::Applies(input.translation)) {
    return Cast(input.origin, input.translation, Vec<D>{}, input.max_fraction,
                ClippedRayVisitor(input, visitor));
  }
  if (!wide_.empty()) {
    return RayCastWide(input, ProxyRayVisitor(visitor));
  }
  const RaySlabs<D> ray(input.origin, input.translation);
  return CastInOrder(
      input.max_fraction,
      [&ray](const Aabb<D>& box, float max_fraction, float* entry) {
        return ray.Hits(box, max_fraction, entry);
      },
      [&input, &visitor](std::uint32_t proxy, std::uint32_t /*slot*/,
                         float max_fraction) {
        const RayCastInput<D> clipped{input.origin, input.translation,
                                      max_fraction};
        return NextMaxFraction(visitor(proxy, clipped), max_fraction);
      });
}

template <int D>
template <typename Visitor>
TreeStats Bvh<D>::BoxCast(const BoxCastInput<D>& input,
                          Visitor&& visitor) const {
  return Cast(Center(input.box), input.translation, HalfExtents(input.box),
              input.max_fraction, ClippedBoxVisitor(input, visitor));
}

template <int D>
template <typename Leaf>
TreeStats Bvh<D>::Cast(Vec<D> origin, Vec<D> translation, Vec<D> grow,
                       float max_fraction, Leaf&& leaf) const {
  const Segment<D> segment(origin, translation);
  return CastInOrder(
      max_fraction,
      [&segment, &grow](const Aabb<D>& box, float max, float* entry) {
        return segment.Hits(box, grow, max, entry);
      },
      [&leaf](std::uint32_t proxy, std::uint32_t /*slot*/, float max) {
        return NextMaxFraction(leaf(proxy, max), max);
      });
}

// Front to back (Ericson, "Real-Time Collision Detection", 2005, 6.2.2,
// with the ray tracers' early out): of an internal node's children that
// `reach` accepts, the one entered first is expanded next and the other
// waits on the stack with its entry; a waiting node is dropped when its
// entry is beyond the max fraction by the time it is popped. Inside a leaf
// the proxies are tested in storage order.
template <int D>
template <typename Reach, typename Leaf>
TreeStats Bvh<D>::CastInOrder(float max_fraction, Reach&& reach,
                              Leaf&& leaf) const {
  struct Entry {
    std::uint32_t index;
    float entry;
  };
  TreeStats stats;
  if (nodes_.empty()) {
    return stats;
  }
  float entry = 0.0f;
  ++stats.node_visits;
  if (!reach(nodes_[0].box, max_fraction, &entry)) {
    return stats;
  }
  TraversalStack<Entry> stack;
  std::uint32_t index = 0;
  for (;;) {
    const Node& node = nodes_[index];
    if (node.IsLeaf()) {
      const std::uint32_t end = node.index + node.count;
      for (std::uint32_t slot = node.index; slot < end; ++slot) {
        ++stats.node_visits;
        float slot_entry = 0.0f;
        if (!reach(leaf_boxes_[slot], max_fraction, &slot_entry)) {
          continue;
        }
        ++stats.leaf_visits;
        const float next = leaf(leaf_ids_[slot], slot, max_fraction);
        if (next < 0.0f) {
          return stats;
        }
        max_fraction = std::min(max_fraction, next);
      }
    } else {
      const std::uint32_t child1 = index + 1;
      const std::uint32_t child2 = node.index;
      float entry1 = 0.0f;
      float entry2 = 0.0f;
      stats.node_visits += 2;
      const bool hit1 = reach(nodes_[child1].box, max_fraction, &entry1);
      const bool hit2 = reach(nodes_[child2].box, max_fraction, &entry2);
      if (hit1 && hit2) {
        if (entry1 <= entry2) {
          stack.Push({child2, entry2});
          index = child1;
        } else {
          stack.Push({child1, entry1});
          index = child2;
        }
        continue;
      }
      if (hit1) {
        index = child1;
        continue;
      }
      if (hit2) {
        index = child2;
        continue;
      }
    }
    // Next: the nearest waiting node that still starts within reach.
    for (;;) {
      if (stack.Empty()) {
        return stats;
      }
      const Entry top = stack.Pop();
      if (top.entry <= max_fraction) {
        index = top.index;
        break;
      }
    }
  }
}

}  // namespace sator::broadphase

#endif  // SATOR_CORE_BROADPHASE_BVH_H_
