// Dynamic AABB tree: insertion, removal, rotations and validation.
//
// Sources: Catto, "Dynamic Bounding Volume Hierarchies", GDC 2019 (SAH
// sibling search by branch and bound, rotations); Kopta et al., "Fast,
// Effective BVH Updates for Animated Scenes", I3D 2012 (tree rotations);
// MacDonald and Booth, "Heuristics for ray tracing using space subdivision",
// 1990 (the surface-area heuristic).
//
// SAH cost of a tree: the sum of the surface measures (perimeter in 2D, area
// in 3D) of its internal nodes. Inserting leaf L as the sibling of node S
// adds a new parent of measure SA(S u L) and grows every ancestor A of S by
// SA(A u L) - SA(A). So
//
//   cost(S) = SA(S u L) + sum over ancestors A of S of [SA(A u L) - SA(A)].
//
// Branch and bound: every node below S costs at least
//   SA(L) + sum over A in {S and its ancestors} of [SA(A u L) - SA(A)],
// (its own new parent measures at least SA(L)), so a subtree whose bound is
// not below the best cost found so far is skipped.
//
// Rotation at node A with children B and C: swapping B with a child F of C
// (C keeps its other child G) changes the cost by SA(B u G) - SA(C); the four
// swaps (B with either child of C, C with either child of B) are compared
// and the best applied when it lowers the cost. A's own box is unchanged.
#include "sator/core/broadphase/dynamic_tree.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_format.h"

namespace sator::broadphase {

template <int D>
absl::StatusOr<DynamicTree<D>> DynamicTree<D>::Create(
    const DynamicTreeOptions& options) {
  if (!(std::isfinite(options.margin) && options.margin >= 0.0f &&
        options.margin <= kMaxQueryCoordinate)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "margin (%g) must be finite, non-negative and at most %g",
        options.margin, kMaxQueryCoordinate));
  }
  if (!(std::isfinite(options.displacement_multiplier) &&
        options.displacement_multiplier >= 0.0f &&
        options.displacement_multiplier <= 1000.0f)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("displacement_multiplier (%g) must be in [0, 1000]",
                        options.displacement_multiplier));
  }
  return DynamicTree(options);
}

template <int D>
std::int32_t DynamicTree<D>::AllocateNode() {
  std::int32_t index;
  if (free_list_ != kNull) {
    index = free_list_;
    free_list_ = nodes_[index].parent;
  } else {
    index = static_cast<std::int32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  Node& node = nodes_[index];
  node.parent = kNull;
  node.child1 = kNull;
  node.child2 = kNull;
  node.height = 0;
  return index;
}

template <int D>
void DynamicTree<D>::FreeNode(std::int32_t index) {
  nodes_[index].parent = free_list_;
  nodes_[index].child1 = kNull;
  nodes_[index].child2 = kNull;
  nodes_[index].height = -1;
  free_list_ = index;
}

template <int D>
void DynamicTree<D>::Clear() {
  nodes_.clear();
  root_ = kNull;
  free_list_ = kNull;
  proxy_count_ = 0;
}

template <int D>
Aabb<D> DynamicTree<D>::FatBox(const Aabb<D>& box, Vec<D> displacement) const {
  Aabb<D> fat = Inflate(box, options_.margin);
  for (int i = 0; i < D; ++i) {
    const float d = options_.displacement_multiplier * displacement[i];
    if (d < 0.0f) {
      fat.min[i] += d;
    } else {
      fat.max[i] += d;
    }
  }
  return fat;
}

template <int D>
absl::StatusOr<std::uint32_t> DynamicTree<D>::CreateProxy(const Aabb<D>& box) {
  if (absl::Status s = ValidateBox<D>(box, "proxy box"); !s.ok()) {
    return s;
  }
  if (nodes_.size() >= static_cast<std::size_t>(INT32_MAX / 2)) {
    return absl::ResourceExhaustedError("dynamic tree is full");
  }
  const std::int32_t leaf = AllocateNode();
  nodes_[leaf].box = FatBox(box, Vec<D>{});
  InsertLeaf(leaf);
  ++proxy_count_;
  return static_cast<std::uint32_t>(leaf);
}

template <int D>
absl::Status DynamicTree<D>::DestroyProxy(std::uint32_t proxy) {
  if (!IsProxy(proxy)) {
    return absl::NotFoundError(
        absl::StrFormat("proxy %u is not in the tree", proxy));
  }
  const auto leaf = static_cast<std::int32_t>(proxy);
  RemoveLeaf(leaf);
  FreeNode(leaf);
  --proxy_count_;
  return absl::OkStatus();
}

template <int D>
absl::StatusOr<bool> DynamicTree<D>::MoveProxy(std::uint32_t proxy,
                                               const Aabb<D>& box,
                                               Vec<D> displacement) {
  if (!IsProxy(proxy)) {
    return absl::NotFoundError(
        absl::StrFormat("proxy %u is not in the tree", proxy));
  }
  if (absl::Status s = ValidateBox<D>(box, "proxy box"); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateVector<D>(displacement, "displacement");
      !s.ok()) {
    return s;
  }
  const auto leaf = static_cast<std::int32_t>(proxy);
  const Aabb<D> fat = FatBox(box, displacement);
  const Aabb<D>& current = nodes_[leaf].box;
  // Keep the current fat box while it still holds the tight box and is not
  // much larger than the new fat box would be (a proxy that slowed down
  // should not keep a box stretched by its old speed).
  if (Contains(current, box) &&
      Contains(Inflate(fat, 4.0f * options_.margin), current)) {
    return false;
  }
  RemoveLeaf(leaf);
  nodes_[leaf].box = fat;
  InsertLeaf(leaf);
  return true;
}

template <int D>
std::int32_t DynamicTree<D>::FindBestSibling(const Aabb<D>& box) const {
  // Each stack entry is an internal node whose children are still to be
  // examined, with the cost its children inherit: the sum over the node and
  // its ancestors of SA(A u L) - SA(A). A child's own cost is computed when
  // its parent is expanded, so leaves are never pushed.
  struct Candidate {
    std::int32_t index;
    float inherited;
  };
  const float leaf_measure = SurfaceMeasure(box);
  std::int32_t best = root_;
  float best_cost = SurfaceMeasure(Union(nodes_[root_].box, box));
  if (nodes_[root_].IsLeaf()) {
    return best;
  }
  TraversalStack<Candidate> stack;
  stack.Push({root_, best_cost - SurfaceMeasure(nodes_[root_].box)});
  while (!stack.Empty()) {
    const Candidate candidate = stack.Pop();
    // The bound may have tightened since this entry was pushed.
    if (leaf_measure + candidate.inherited >= best_cost) {
      continue;
    }
    const Node& node = nodes_[candidate.index];
    const std::int32_t children[2] = {node.child1, node.child2};
    Candidate next[2];
    int next_count = 0;
    for (const std::int32_t child : children) {
      const Node& child_node = nodes_[child];
      const float cost =
          SurfaceMeasure(Union(child_node.box, box)) + candidate.inherited;
      if (cost < best_cost) {
        best_cost = cost;
        best = child;
      }
      if (child_node.IsLeaf()) {
        continue;
      }
      const float inherited = cost - SurfaceMeasure(child_node.box);
      if (leaf_measure + inherited < best_cost) {
        next[next_count++] = {child, inherited};
      }
    }
    // Search the more promising child first: it tightens the bound early.
    if (next_count == 2 && next[0].inherited < next[1].inherited) {
      std::swap(next[0], next[1]);
    }
    if (options_.sibling_search == SiblingSearch::kGreedy) {
      if (next_count > 0) {
        stack.Push(next[next_count - 1]);
      }
    } else {
      for (int k = 0; k < next_count; ++k) {
        stack.Push(next[k]);
      }
    }
  }
  return best;
}

template <int D>
void DynamicTree<D>::InsertLeaf(std::int32_t leaf) {
  if (root_ == kNull) {
    root_ = leaf;
    nodes_[leaf].parent = kNull;
    return;
  }
  const Aabb<D> box = nodes_[leaf].box;
  const std::int32_t sibling = FindBestSibling(box);

  // A new parent takes the sibling's place and adopts the sibling and leaf.
  const std::int32_t old_parent = nodes_[sibling].parent;
  const std::int32_t parent = AllocateNode();  // May reallocate nodes_.
  nodes_[parent].parent = old_parent;
  nodes_[parent].box = Union(box, nodes_[sibling].box);
  nodes_[parent].child1 = sibling;
  nodes_[parent].child2 = leaf;
  nodes_[parent].height = nodes_[sibling].height + 1;
  nodes_[sibling].parent = parent;
  nodes_[leaf].parent = parent;
  if (old_parent == kNull) {
    root_ = parent;
  } else if (nodes_[old_parent].child1 == sibling) {
    nodes_[old_parent].child1 = parent;
  } else {
    nodes_[old_parent].child2 = parent;
  }

  // Refit the ancestors, rotating each to lower the SAH cost.
  for (std::int32_t index = old_parent; index != kNull;
       index = nodes_[index].parent) {
    Node& node = nodes_[index];
    node.box = Union(nodes_[node.child1].box, nodes_[node.child2].box);
    node.height =
        1 + std::max(nodes_[node.child1].height, nodes_[node.child2].height);
    Rotate(index);
  }
}

template <int D>
void DynamicTree<D>::RemoveLeaf(std::int32_t leaf) {
  if (leaf == root_) {
    root_ = kNull;
    return;
  }
  const std::int32_t parent = nodes_[leaf].parent;
  const std::int32_t grandparent = nodes_[parent].parent;
  const std::int32_t sibling = nodes_[parent].child1 == leaf
                                   ? nodes_[parent].child2
                                   : nodes_[parent].child1;
  FreeNode(parent);
  nodes_[sibling].parent = grandparent;
  if (grandparent == kNull) {
    root_ = sibling;
    return;
  }
  if (nodes_[grandparent].child1 == parent) {
    nodes_[grandparent].child1 = sibling;
  } else {
    nodes_[grandparent].child2 = sibling;
  }
  for (std::int32_t index = grandparent; index != kNull;
       index = nodes_[index].parent) {
    Node& node = nodes_[index];
    node.box = Union(nodes_[node.child1].box, nodes_[node.child2].box);
    node.height =
        1 + std::max(nodes_[node.child1].height, nodes_[node.child2].height);
  }
}

template <int D>
void DynamicTree<D>::Rotate(std::int32_t a) {
  const std::int32_t b = nodes_[a].child1;
  const std::int32_t c = nodes_[a].child2;
  // The best swap found: `up` moves up to be A's child in place of `down`,
  // which becomes a child of `host` (the other child of A) instead of `up`.
  float best_delta = 0.0f;
  std::int32_t up = kNull;
  std::int32_t down = kNull;
  std::int32_t host = kNull;
  auto consider = [&](std::int32_t lower, std::int32_t host_node,
                      std::int32_t kept, std::int32_t other) {
    // Swap `other` (A's child) with `lower` (a child of host_node, whose
    // other child `kept` stays).
    const float delta =
        SurfaceMeasure(Union(nodes_[other].box, nodes_[kept].box)) -
        SurfaceMeasure(nodes_[host_node].box);
    if (delta < best_delta) {
      best_delta = delta;
      up = lower;
      down = other;
      host = host_node;
    }
  };
  if (!nodes_[c].IsLeaf()) {
    const std::int32_t f = nodes_[c].child1;
    const std::int32_t g = nodes_[c].child2;
    consider(f, c, g, b);
    consider(g, c, f, b);
  }
  if (!nodes_[b].IsLeaf()) {
    const std::int32_t d = nodes_[b].child1;
    const std::int32_t e = nodes_[b].child2;
    consider(d, b, e, c);
    consider(e, b, d, c);
  }
  if (up == kNull) {
    return;
  }

  Node& node_a = nodes_[a];
  if (node_a.child1 == down) {
    node_a.child1 = up;
  } else {
    node_a.child2 = up;
  }
  nodes_[up].parent = a;
  Node& node_host = nodes_[host];
  if (node_host.child1 == up) {
    node_host.child1 = down;
  } else {
    node_host.child2 = down;
  }
  nodes_[down].parent = host;
  node_host.box =
      Union(nodes_[node_host.child1].box, nodes_[node_host.child2].box);
  node_host.height = 1 + std::max(nodes_[node_host.child1].height,
                                  nodes_[node_host.child2].height);
  node_a.height =
      1 + std::max(nodes_[node_a.child1].height, nodes_[node_a.child2].height);
}

template <int D>
float DynamicTree<D>::AreaRatio() const {
  if (root_ == kNull) {
    return 0.0f;
  }
  const float root_measure = SurfaceMeasure(nodes_[root_].box);
  if (!(root_measure > 0.0f)) {
    return 0.0f;
  }
  double total = 0.0;
  for (const Node& node : nodes_) {
    if (node.height > 0) {
      total += SurfaceMeasure(node.box);
    }
  }
  return static_cast<float>(total / root_measure);
}

template <int D>
absl::Status DynamicTree<D>::Validate() const {
  const auto size = static_cast<std::int32_t>(nodes_.size());
  std::vector<char> seen(nodes_.size(), 0);
  int leaves = 0;
  if (root_ != kNull) {
    if (root_ < 0 || root_ >= size) {
      return absl::InternalError(
          absl::StrFormat("root %d out of range", root_));
    }
    if (nodes_[root_].parent != kNull) {
      return absl::InternalError("root has a parent");
    }
    std::vector<std::int32_t> stack = {root_};
    while (!stack.empty()) {
      const std::int32_t index = stack.back();
      stack.pop_back();
      if (seen[index]) {
        return absl::InternalError(
            absl::StrFormat("node %d reached twice", index));
      }
      seen[index] = 1;
      const Node& node = nodes_[index];
      if (node.IsLeaf()) {
        if (node.child2 != kNull || node.height != 0) {
          return absl::InternalError(
              absl::StrFormat("leaf %d has child2 %d, height %d", index,
                              node.child2, node.height));
        }
        ++leaves;
        continue;
      }
      for (const std::int32_t child : {node.child1, node.child2}) {
        if (child < 0 || child >= size) {
          return absl::InternalError(absl::StrFormat(
              "node %d has child %d out of range", index, child));
        }
        if (nodes_[child].parent != index) {
          return absl::InternalError(
              absl::StrFormat("node %d's child %d names parent %d", index,
                              child, nodes_[child].parent));
        }
        if (!Contains(node.box, nodes_[child].box)) {
          return absl::InternalError(absl::StrFormat(
              "node %d does not contain its child %d", index, child));
        }
        stack.push_back(child);
      }
      const int expected_height =
          1 + std::max(nodes_[node.child1].height, nodes_[node.child2].height);
      if (node.height != expected_height) {
        return absl::InternalError(
            absl::StrFormat("node %d has height %d, expected %d", index,
                            node.height, expected_height));
      }
    }
  }
  if (leaves != proxy_count_) {
    return absl::InternalError(absl::StrFormat(
        "%d leaves reachable, %d proxies counted", leaves, proxy_count_));
  }
  int free_count = 0;
  for (std::int32_t index = free_list_; index != kNull;
       index = nodes_[index].parent) {
    if (index < 0 || index >= size || seen[index]) {
      return absl::InternalError(
          absl::StrFormat("free list entry %d is invalid or in use", index));
    }
    if (nodes_[index].height != -1) {
      return absl::InternalError(absl::StrFormat("free node %d has height %d",
                                                 index, nodes_[index].height));
    }
    seen[index] = 1;
    ++free_count;
  }
  for (std::int32_t index = 0; index < size; ++index) {
    if (!seen[index]) {
      return absl::InternalError(
          absl::StrFormat("node %d is neither in the tree nor free", index));
    }
  }
  if (root_ != kNull && free_count + 2 * proxy_count_ - 1 != size) {
    return absl::InternalError(
        absl::StrFormat("%d slots, %d free, %d proxies: counts disagree", size,
                        free_count, proxy_count_));
  }
  return absl::OkStatus();
}

template class DynamicTree<2>;
template class DynamicTree<3>;

}  // namespace sator::broadphase
