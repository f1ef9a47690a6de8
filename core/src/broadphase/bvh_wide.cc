// The 8-wide copy of a Bvh that ray casts traverse (BvhOptions::
// wide_ray_nodes), and the Build entry point that keeps it current.
//
// Collapsing a binary BVH into a wide one (Dammertz, Hanika and Keller,
// "Shallow Bounding Volume Hierarchies for Fast SIMD Ray Tracing of
// Incoherent Rays", EGSR 2008; Wald, Benthin and Boulos, "Getting Rid of
// Packets", IRT 2008): a wide node starts with its binary node's two
// children and repeatedly opens the child of largest surface measure that
// still fits, until no child fits: an internal child is replaced by its two
// children (one more lane), a binary leaf by its proxies (one lane each), so
// most proxies end up as lanes of the lowest internal wide nodes, tested in
// the same SIMD instruction as their siblings and handed to the visitor
// without another node load. A binary leaf that does not fit becomes leaf
// wide nodes of its proxies' boxes and handles. Every binary internal node
// is thus either a wide node or folded into its wide parent.
// Eight lanes rather than four: a tree about two thirds as deep, so fewer
// dependent node loads per ray, the cost that dominates a ray through a
// large scene (docs/core/broadphase.md).
// The binary nodes stay too: box queries, box casts and rays parallel to an
// axis use them.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sator/core/broadphase/bvh.h"

namespace sator::broadphase {

template <int D>
absl::Status Bvh<D>::Build(std::span<const Aabb<D>> boxes,
                           BuildScratch* scratch) {
  wide_.clear();
  absl::Status status = BuildTree(boxes, scratch);
  if (status.ok()) UpdateWideNodes();
  return status;
}

template <int D>
void Bvh<D>::UpdateWideNodes() {
  wide_.clear();
  wide_root_ = 0;
  if (!options_.wide_ray_nodes || nodes_.empty() || nodes_[0].IsLeaf() ||
      leaf_ids_.size() >= kMaxWideProxies) {
    return;
  }
  constexpr std::uint32_t kLanes = kWideLanes;
  // Each binary node's proxies, [first, first + count) in leaf order (a
  // subtree's leaves are consecutive in depth-first order, and so are their
  // proxies); children follow their parent, so one backward pass.
  std::vector<std::uint32_t> first(nodes_.size());
  std::vector<std::uint32_t> count(nodes_.size());
  for (std::size_t k = nodes_.size(); k-- > 0;) {
    const Node& node = nodes_[k];
    if (node.IsLeaf()) {
      first[k] = node.index;
      count[k] = node.count;
    } else {
      first[k] = first[k + 1];
      count[k] = count[k + 1] + count[node.index];
    }
  }
  // A lane candidate: a binary node, or kSlot | s for the proxy at leaf
  // position s.
  constexpr std::uint32_t kSlot = 0x80000000u;
  struct Pending {
    std::uint32_t wide;
    std::uint32_t binary;
  };
  std::vector<Pending> pending = {{0, 0}};
  wide_.emplace_back();
  while (!pending.empty()) {
    const Pending at = pending.back();
    pending.pop_back();
    std::uint32_t kids[kLanes];
    std::uint32_t kid_count = 0;
    if (nodes_[at.binary].IsLeaf()) {
      // A binary leaf with more proxies than its parent had room for: they
      // fill this node (Create keeps leaves within kLanes proxies when
      // wide nodes are on).
      for (std::uint32_t p = 0; p < count[at.binary]; ++p) {
        kids[kid_count++] = kSlot | (first[at.binary] + p);
      }
    } else {
      kids[kid_count++] = at.binary + 1;
      kids[kid_count++] = nodes_[at.binary].index;
    }
    // Open the binary kid of largest surface measure that fits: the whole
    // subtree as proxy lanes when they fit, else an internal node's two
    // children (one more lane).
    for (;;) {
      int widest = -1;
      float widest_measure = -1.0f;
      for (std::uint32_t k = 0; k < kid_count; ++k) {
        if ((kids[k] & kSlot) != 0) continue;
        const bool flattens = kid_count - 1 + count[kids[k]] <= kLanes;
        const bool splits =
            !nodes_[kids[k]].IsLeaf() && kid_count + 1 <= kLanes;
        if (!flattens && !splits) continue;
        const float measure = SurfaceMeasure(nodes_[kids[k]].box);
        if (measure > widest_measure) {
          widest = static_cast<int>(k);
          widest_measure = measure;
        }
      }
      if (widest < 0) break;
      const std::uint32_t opened = kids[widest];
      if (kid_count - 1 + count[opened] <= kLanes) {
        kids[widest] = kSlot | first[opened];
        for (std::uint32_t p = 1; p < count[opened]; ++p) {
          kids[kid_count++] = kSlot | (first[opened] + p);
        }
      } else {
        kids[widest] = opened + 1;
        kids[kid_count++] = nodes_[opened].index;
      }
    }
    WideNode node{};
    node.lanes = kid_count;
    for (std::uint32_t lane = 0; lane < kLanes; ++lane) {
      const std::uint32_t kid = kids[lane < kid_count ? lane : 0];
      const bool proxy = (kid & kSlot) != 0;
      const Aabb<D>& box = proxy ? leaf_boxes_[kid & ~kSlot] : nodes_[kid].box;
      for (int i = 0; i < D; ++i) {
        node.min[i][lane] = box.min[i];
        node.max[i][lane] = box.max[i];
      }
      if (lane >= kid_count) continue;
      if (proxy) {
        node.child[lane] = kProxyLane | leaf_ids_[kid & ~kSlot];
        node.proxy_lanes |= 1u << lane;
      } else {
        // An internal node, or a leaf of more proxies than fit: a wide
        // node of its own (a leaf's proxies then fill its lanes).
        node.child[lane] = static_cast<std::uint32_t>(wide_.size());
        wide_.emplace_back();
        pending.push_back({node.child[lane], kid});
      }
    }
    wide_[at.wide] = node;
  }
  // Static trees keep these for long: no growth slack.
  wide_.shrink_to_fit();
}

// The rest of Bvh<D> is instantiated in bvh.cc.
template absl::Status Bvh<2>::Build(std::span<const Aabb<2>>, BuildScratch*);
template absl::Status Bvh<3>::Build(std::span<const Aabb<3>>, BuildScratch*);
template void Bvh<2>::UpdateWideNodes();
template void Bvh<3>::UpdateWideNodes();

}  // namespace sator::broadphase
