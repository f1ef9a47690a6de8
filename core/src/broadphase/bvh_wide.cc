// The 4-wide copy of a Bvh that ray casts traverse (BvhOptions::
// wide_ray_nodes), and the Build entry point that keeps it current.
//
// Collapsing a binary BVH into a 4-wide one (Dammertz, Hanika and Keller,
// "Shallow Bounding Volume Hierarchies for Fast SIMD Ray Tracing of
// Incoherent Rays", EGSR 2008; Wald, Benthin and Boulos, "Getting Rid of
// Packets", IRT 2008): a wide node starts with its binary node's two
// children and repeatedly replaces the internal child of largest surface
// measure by that child's own two children, until it has four or only
// leaves. Every binary internal node is thus either a wide node or folded
// into its wide parent. A binary leaf becomes leaf wide nodes holding its
// proxies' boxes and handles, four to a node, so that the ray's last level
// is one SIMD test on boxes stored next to each other instead of a scalar
// loop over leaf_boxes_ (and the handles come with them).
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

// A binary leaf's proxies become ceil(count / 4) consecutive leaf nodes,
// appended now; returns the reference a parent lane stores.
template <int D>
std::uint32_t Bvh<D>::AppendWideLeaves(std::uint32_t first,
                                       std::uint32_t count) {
  const auto start = static_cast<std::uint32_t>(wide_.size());
  const std::uint32_t nodes = (count + 3) / 4;
  for (std::uint32_t n = 0; n < nodes; ++n) {
    WideNode leaf{};
    const std::uint32_t base = first + 4 * n;
    leaf.lanes = std::min<std::uint32_t>(4, count - 4 * n);
    for (std::uint32_t lane = 0; lane < 4; ++lane) {
      const std::uint32_t slot = base + (lane < leaf.lanes ? lane : 0);
      const Aabb<D>& box = leaf_boxes_[slot];
      for (int i = 0; i < D; ++i) {
        leaf.min[i][lane] = box.min[i];
        leaf.max[i][lane] = box.max[i];
      }
      leaf.child[lane] = lane < leaf.lanes ? leaf_ids_[slot] : 0;
    }
    wide_.push_back(leaf);
  }
  return kWideLeaf | (start << 2) | (nodes - 1);
}

template <int D>
void Bvh<D>::UpdateWideNodes() {
  wide_.clear();
  if (!options_.wide_ray_nodes || nodes_.empty() || nodes_[0].IsLeaf() ||
      leaf_ids_.size() >= kMaxWideProxies) {
    return;
  }
  struct Pending {
    std::uint32_t wide;
    std::uint32_t binary;
  };
  std::vector<Pending> pending = {{0, 0}};
  wide_.emplace_back();
  while (!pending.empty()) {
    const Pending at = pending.back();
    pending.pop_back();
    std::uint32_t kids[4] = {at.binary + 1, nodes_[at.binary].index, 0, 0};
    std::uint32_t count = 2;
    while (count < 4) {
      int widest = -1;
      float widest_measure = -1.0f;
      for (std::uint32_t k = 0; k < count; ++k) {
        const Node& kid = nodes_[kids[k]];
        if (kid.IsLeaf()) continue;
        const float measure = SurfaceMeasure(kid.box);
        if (measure > widest_measure) {
          widest = static_cast<int>(k);
          widest_measure = measure;
        }
      }
      if (widest < 0) break;
      const std::uint32_t opened = kids[widest];
      kids[widest] = opened + 1;
      kids[count++] = nodes_[opened].index;
    }
    WideNode node{};
    node.lanes = count;
    for (std::uint32_t lane = 0; lane < 4; ++lane) {
      const std::uint32_t kid = kids[lane < count ? lane : 0];
      const Node& binary = nodes_[kid];
      for (int i = 0; i < D; ++i) {
        node.min[i][lane] = binary.box.min[i];
        node.max[i][lane] = binary.box.max[i];
      }
      if (lane >= count) continue;
      if (binary.IsLeaf()) {
        node.child[lane] = AppendWideLeaves(binary.index, binary.count);
      } else {
        node.child[lane] = static_cast<std::uint32_t>(wide_.size());
        wide_.emplace_back();
        pending.push_back({node.child[lane], kid});
      }
    }
    wide_[at.wide] = node;
  }
}

// The rest of Bvh<D> is instantiated in bvh.cc.
template absl::Status Bvh<2>::Build(std::span<const Aabb<2>>, BuildScratch*);
template absl::Status Bvh<3>::Build(std::span<const Aabb<3>>, BuildScratch*);
template void Bvh<2>::UpdateWideNodes();
template void Bvh<3>::UpdateWideNodes();
template std::uint32_t Bvh<2>::AppendWideLeaves(std::uint32_t, std::uint32_t);
template std::uint32_t Bvh<3>::AppendWideLeaves(std::uint32_t, std::uint32_t);

}  // namespace sator::broadphase
