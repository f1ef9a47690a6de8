// The cost of one broad-phase query, for metrics and tests.
#ifndef SATOR_CORE_BROADPHASE_TREE_STATS_H_
#define SATOR_CORE_BROADPHASE_TREE_STATS_H_

#include <cstdint>

namespace sator::broadphase {

// Counts reported by every query of DynamicTree and Bvh (as Box2D v3's
// b2TreeStats). Both structures count the same way, so the numbers compare:
struct TreeStats {
  // Bounding boxes tested against the query: internal nodes, leaves and (in
  // the Bvh) the proxies stored in a leaf.
  std::int64_t node_visits = 0;
  // Proxies handed to the visitor.
  std::int64_t leaf_visits = 0;

  TreeStats& operator+=(const TreeStats& other) {
    node_visits += other.node_visits;
#if defined(__GNUC__)
    // Keeps GCC from fusing the two additions into one 16-byte vector add:
    // its load of a TreeStats just returned in two registers (and stored as
    // two 8-byte halves) cannot be store-forwarded, which stalled every
    // scene query by about 15 cycles per tree (perf, RaycastService3D100k).
    asm("" : "+r"(node_visits));
#endif
    leaf_visits += other.leaf_visits;
    return *this;
  }
};

}  // namespace sator::broadphase

#endif  // SATOR_CORE_BROADPHASE_TREE_STATS_H_
