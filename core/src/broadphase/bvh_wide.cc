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
// the same vector operations as their siblings and handed to the visitor
// without another node load. A binary leaf that does not fit becomes leaf
// wide nodes of its proxies' boxes and handles. Every binary internal node
// is thus either a wide node or folded into its wide parent.
// Eight lanes rather than four: a tree about two thirds as deep, so fewer
// dependent node loads per ray, the cost that dominates a ray through a
// large scene (docs/core/broadphase.md).
// The binary nodes stay too: box queries, box casts and rays parallel to an
// axis use them.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "sator/core/broadphase/bvh.h"
#include "simd/float4.h"

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

namespace {

// RaySlabs::Hits on the eight lanes of a wide node, four at a time. Each
// lane runs the scalar test's operations in the same order (simd::Min and
// Max are std::min and std::max lane by lane), so its entry is bitwise
// RaySlabs::Hits' for that box.
template <int D>
class WideRay {
 public:
  explicit WideRay(const RaySlabs<D>& ray) {
    for (int i = 0; i < D; ++i) {
      origin_[i] = simd::Float4::Splat(ray.origin()[i]);
      inv_[i] = simd::Float4::Splat(ray.inverse()[i]);
    }
  }

  // Bit k is set when the segment meets box k for a fraction in
  // [0, max_fraction]; entries[k] is then its first such fraction.
  template <int W>
  unsigned Hits(const float (&min)[D][W], const float (&max)[D][W],
                float max_fraction, float (&entries)[W]) const {
    static_assert(W % 4 == 0);
    using simd::Float4;
    unsigned mask = 0;
    for (int g = 0; g < W; g += 4) {
      Float4 t0 = Float4::Splat(0.0f);
      Float4 t1 = Float4::Splat(max_fraction);
      for (int i = 0; i < D; ++i) {
        const Float4 ta = (Float4::Load(&min[i][g]) - origin_[i]) * inv_[i];
        const Float4 tb = (Float4::Load(&max[i][g]) - origin_[i]) * inv_[i];
        t0 = simd::Max(t0, simd::Min(ta, tb));
        t1 = simd::Min(t1, simd::Max(ta, tb));
      }
      t0.Store(&entries[g]);
      mask |= static_cast<unsigned>(simd::LaneBits(t0 <= t1)) << g;
    }
    return mask;
  }

 private:
  simd::Float4 origin_[D];
  simd::Float4 inv_[D];
};

}  // namespace

// The ray traversal over the wide nodes: the same proxies are tested with
// the same slab test as in RayCast's binary traversal (WideRay's lanes are
// bitwise RaySlabs::Hits), and a node is reached whenever a proxy below it
// is hit (its box contains theirs), so the visitor sees the same proxies
// (with kAll; with clipping, those that can still win). At each wide node
// the proxy lanes hit go to the visitor first, in lane order, then the child
// lanes still within reach are visited nearest entry first (ties in lane
// order). So a kAny query may stop at another body than the binary
// traversal would. node_visits counts the lanes tested.
template <int D>
TreeStats Bvh<D>::RayCastWide(const RayCastInput<D>& input,
                              ProxyRayVisitor visitor) const {
  struct Entry {
    std::uint32_t ref;
    float entry;
  };
  TreeStats stats;
  const RaySlabs<D> ray(input.origin, input.translation);
  const WideRay<D> lanes(ray);
  float max_fraction = input.max_fraction;
  float entry = 0.0f;
  ++stats.node_visits;
  if (!ray.Hits(nodes_[0].box, max_fraction, &entry)) {
    return stats;
  }
  const WideNode* const wide = wide_.data();
  TraversalStack<Entry> stack;
  std::uint32_t ref = wide_root_;
  for (;;) {
    {
      const WideNode& node = wide[ref];
      alignas(32) float entries[kWideLanes];
      unsigned mask = lanes.Hits(node.min, node.max, max_fraction, entries);
      mask &= (1u << node.lanes) - 1u;
      stats.node_visits += node.lanes;
      // Proxy lanes first, in lane order (as a leaf's); a lane hit before an
      // earlier visitor clipped the ray is tested again against the clipped
      // fraction, and so are the child lanes after them.
      if (unsigned proxies = mask & node.proxy_lanes; proxies != 0) {
        mask &= ~proxies;
        const float before = max_fraction;
        do {
          const int lane = std::countr_zero(proxies);
          proxies &= proxies - 1u;
          if (entries[lane] > max_fraction) continue;
          ++stats.leaf_visits;
          const RayCastInput<D> clipped{input.origin, input.translation,
                                        max_fraction};
          const float value = visitor(node.child[lane] & ~kProxyLane, clipped);
          if (value == 0.0f) {
            return stats;
          }
          if (value > 0.0f) {
            max_fraction = std::min(max_fraction, value);
          }
        } while (proxies != 0);
        if (max_fraction < before) {
          for (unsigned m = mask; m != 0; m &= m - 1u) {
            const int lane = std::countr_zero(m);
            if (entries[lane] > max_fraction) mask &= ~(1u << lane);
          }
        }
      }
      if (mask != 0) {
        const int first = std::countr_zero(mask);
        mask &= mask - 1u;
        if (mask == 0) {
          ref = node.child[first];
          continue;
        }
        // Two or more hits: by entry (insertion sort; ties keep lane
        // order); the far ones wait on the stack, the nearest is next.
        Entry hits[kWideLanes];
        int count = 1;
        hits[0] = {node.child[first], entries[first]};
        do {
          const int lane = std::countr_zero(mask);
          mask &= mask - 1u;
          const Entry e{node.child[lane], entries[lane]};
          int k = count++;
          while (k > 0 && hits[k - 1].entry > e.entry) {
            hits[k] = hits[k - 1];
            --k;
          }
          hits[k] = e;
        } while (mask != 0);
        for (int k = count - 1; k > 0; --k) stack.Push(hits[k]);
        ref = hits[0].ref;
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
        ref = top.ref;
        break;
      }
    }
  }
}

// The rest of Bvh<D> is instantiated in bvh.cc.
template absl::Status Bvh<2>::Build(std::span<const Aabb<2>>, BuildScratch*);
template absl::Status Bvh<3>::Build(std::span<const Aabb<3>>, BuildScratch*);
template void Bvh<2>::UpdateWideNodes();
template void Bvh<3>::UpdateWideNodes();
template TreeStats Bvh<2>::RayCastWide(const RayCastInput<2>&,
                                       ProxyRayVisitor) const;
template TreeStats Bvh<3>::RayCastWide(const RayCastInput<3>&,
                                       ProxyRayVisitor) const;

}  // namespace sator::broadphase
