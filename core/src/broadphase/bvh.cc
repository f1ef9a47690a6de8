// Binned-SAH BVH: build, refit and validation.
//
// Source: Wald, "On fast Construction of SAH-based Bounding Volume
// Hierarchies", IEEE Symposium on Interactive Ray Tracing 2007 (binning the
// centroids into K bins along the widest centroid axis and evaluating the K-1
// bin boundaries with two sweeps); MacDonald and Booth 1990 (the cost model).
//
// Cost model, scaled by the node's surface measure SA(N):
//   split:  kTraversalCost * SA(N) + SA(L) * n_L + SA(R) * n_R
//   leaf:   SA(N) * n
// (a leaf of n proxies costs n box tests whenever it is reached; a split
// costs one more node test plus the expected tests in each child, reached
// with probability SA(child) / SA(N)).
#include "sator/core/broadphase/bvh.h"

#include <array>
#include <numeric>

#include "absl/strings/str_format.h"

namespace sator::broadphase {
namespace {

constexpr float kTraversalCost = 1.0f;
constexpr int kMaxBins = 64;
// Centroid extents below this are treated as a point: the node is split at
// the median instead of binned.
constexpr float kMinCentroidExtent = 1e-12f;

}  // namespace

template <int D>
absl::StatusOr<Bvh<D>> Bvh<D>::Create(const BvhOptions& options) {
  if (options.bin_count < 2 || options.bin_count > kMaxBins) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bin_count (%d) must be in [2, %d]", options.bin_count, kMaxBins));
  }
  if (options.max_leaf_size < 1 || options.max_leaf_size > 16) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "max_leaf_size (%d) must be in [1, 16]", options.max_leaf_size));
  }
  return Bvh(options);
}

template <int D>
absl::Status Bvh<D>::Build(std::span<const Aabb<D>> boxes) {
  if (boxes.size() > std::size_t{1} << 30) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%d boxes exceed the BVH's limit of 2^30", boxes.size()));
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (absl::Status s = ValidateBox<D>(boxes[i], "proxy box"); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("box %d: %s", i, s.message()));
    }
  }
  const auto n = static_cast<std::uint32_t>(boxes.size());
  nodes_.clear();
  leaf_ids_.resize(n);
  std::iota(leaf_ids_.begin(), leaf_ids_.end(), 0u);
  centroids_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) centroids_[i] = Center(boxes[i]);
  leaf_boxes_.resize(n);
  if (n == 0) return absl::OkStatus();
  nodes_.reserve(2 * static_cast<std::size_t>(n));

  struct Task {
    std::uint32_t begin;
    std::uint32_t end;
    // The parent whose second-child index is this node, or UINT32_MAX for a
    // first child (which is simply the node after its parent).
    std::uint32_t parent;
  };
  constexpr std::uint32_t kNone = UINT32_MAX;
  const int bin_count = options_.bin_count;
  std::vector<Task> tasks = {{0, n, kNone}};
  std::array<Aabb<D>, kMaxBins> bin_boxes;
  std::array<std::uint32_t, kMaxBins> bin_counts;
  std::array<float, kMaxBins> right_costs;
  std::uint32_t* ids = leaf_ids_.data();

  while (!tasks.empty()) {
    const Task task = tasks.back();
    tasks.pop_back();
    const auto node_index = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back({});
    if (task.parent != kNone) nodes_[task.parent].index = node_index;

    Aabb<D> bounds = boxes[ids[task.begin]];
    Aabb<D> centroid_bounds{centroids_[ids[task.begin]],
                            centroids_[ids[task.begin]]};
    for (std::uint32_t k = task.begin + 1; k < task.end; ++k) {
      bounds = Union(bounds, boxes[ids[k]]);
      const Vec<D> c = centroids_[ids[k]];
      centroid_bounds.min = Min(centroid_bounds.min, c);
      centroid_bounds.max = Max(centroid_bounds.max, c);
    }
    const std::uint32_t count = task.end - task.begin;
    nodes_[node_index].box = bounds;
    auto make_leaf = [&] {
      nodes_[node_index].index = task.begin;
      nodes_[node_index].count = count;
    };
    if (count == 1) {
      make_leaf();
      continue;
    }

    int axis = 0;
    const Vec<D> extent = centroid_bounds.max - centroid_bounds.min;
    for (int i = 1; i < D; ++i) {
      if (extent[i] > extent[axis]) axis = i;
    }
    const float axis_min = centroid_bounds.min[axis];
    std::uint32_t mid = task.begin;  // Stays begin when no SAH split is used.
    if (extent[axis] > kMinCentroidExtent) {
      const float scale = static_cast<float>(bin_count) / extent[axis];
      auto bin_of = [&](std::uint32_t id) {
        const int bin =
            static_cast<int>((centroids_[id][axis] - axis_min) * scale);
        return std::min(bin, bin_count - 1);
      };
      std::fill_n(bin_counts.begin(), bin_count, 0u);
      for (std::uint32_t k = task.begin; k < task.end; ++k) {
        const int bin = bin_of(ids[k]);
        bin_boxes[bin] = bin_counts[bin] == 0
                             ? boxes[ids[k]]
                             : Union(bin_boxes[bin], boxes[ids[k]]);
        ++bin_counts[bin];
      }
      // right_costs[i]: SA(R) * n_R for the split between bins i and i + 1.
      Aabb<D> right{};
      std::uint32_t right_count = 0;
      for (int i = bin_count - 1; i > 0; --i) {
        if (bin_counts[i] != 0) {
          right = right_count == 0 ? bin_boxes[i] : Union(right, bin_boxes[i]);
          right_count += bin_counts[i];
        }
        right_costs[i - 1] =
            right_count == 0
                ? -1.0f
                : SurfaceMeasure(right) * static_cast<float>(right_count);
      }
      Aabb<D> left{};
      std::uint32_t left_count = 0;
      int best_bin = -1;
      float best_cost = 0.0f;
      for (int i = 0; i < bin_count - 1; ++i) {
        if (bin_counts[i] != 0) {
          left = left_count == 0 ? bin_boxes[i] : Union(left, bin_boxes[i]);
          left_count += bin_counts[i];
        }
        if (left_count == 0 || right_costs[i] < 0.0f) continue;
        const float cost =
            SurfaceMeasure(left) * static_cast<float>(left_count) +
            right_costs[i];
        if (best_bin < 0 || cost < best_cost) {
          best_bin = i;
          best_cost = cost;
        }
      }
      const float node_measure = SurfaceMeasure(bounds);
      if (count <= static_cast<std::uint32_t>(options_.max_leaf_size) &&
          (best_bin < 0 || node_measure * static_cast<float>(count) <=
                               kTraversalCost * node_measure + best_cost)) {
        make_leaf();
        continue;
      }
      if (best_bin >= 0) {
        std::uint32_t* split = std::partition(
            ids + task.begin, ids + task.end,
            [&](std::uint32_t id) { return bin_of(id) <= best_bin; });
        mid = static_cast<std::uint32_t>(split - ids);
      }
    }
    if (mid == task.begin || mid == task.end) {
      // All centroids (nearly) coincide: split at the median.
      if (count <= static_cast<std::uint32_t>(options_.max_leaf_size)) {
        make_leaf();
        continue;
      }
      mid = task.begin + count / 2;
      std::nth_element(ids + task.begin, ids + mid, ids + task.end,
                       [&](std::uint32_t a, std::uint32_t b) {
                         return centroids_[a][axis] < centroids_[b][axis];
                       });
    }
    nodes_[node_index].count = 0;
    tasks.push_back({mid, task.end, node_index});
    tasks.push_back({task.begin, mid, kNone});
  }
  for (std::uint32_t k = 0; k < n; ++k) leaf_boxes_[k] = boxes[leaf_ids_[k]];
  return absl::OkStatus();
}

template <int D>
absl::Status Bvh<D>::Refit(std::span<const Aabb<D>> boxes) {
  if (boxes.size() != leaf_ids_.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("refit got %d boxes, the BVH was built over %d",
                        boxes.size(), leaf_ids_.size()));
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (absl::Status s = ValidateBox<D>(boxes[i], "proxy box"); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("box %d: %s", i, s.message()));
    }
  }
  const std::size_t n = leaf_ids_.size();
  for (std::size_t k = 0; k < n; ++k) leaf_boxes_[k] = boxes[leaf_ids_[k]];
  for (std::size_t i = nodes_.size(); i-- > 0;) {
    Node& node = nodes_[i];
    if (node.IsLeaf()) {
      Aabb<D> box = leaf_boxes_[node.index];
      for (std::uint32_t k = 1; k < node.count; ++k) {
        box = Union(box, leaf_boxes_[node.index + k]);
      }
      node.box = box;
    } else {
      node.box = Union(nodes_[i + 1].box, nodes_[node.index].box);
    }
  }
  return absl::OkStatus();
}

template <int D>
int Bvh<D>::Height() const {
  if (nodes_.empty()) return 0;
  int height = 0;
  std::vector<std::pair<std::uint32_t, int>> stack = {{0u, 1}};
  while (!stack.empty()) {
    const auto [index, depth] = stack.back();
    stack.pop_back();
    height = std::max(height, depth);
    if (!nodes_[index].IsLeaf()) {
      stack.push_back({index + 1, depth + 1});
      stack.push_back({nodes_[index].index, depth + 1});
    }
  }
  return height;
}

template <int D>
std::size_t Bvh<D>::MemoryBytes() const {
  return nodes_.capacity() * sizeof(Node) +
         leaf_boxes_.capacity() * sizeof(Aabb<D>) +
         leaf_ids_.capacity() * sizeof(std::uint32_t) +
         centroids_.capacity() * sizeof(Vec<D>);
}

template <int D>
float Bvh<D>::AreaRatio() const {
  if (nodes_.empty()) return 0.0f;
  const float root_measure = SurfaceMeasure(nodes_[0].box);
  if (!(root_measure > 0.0f)) return 0.0f;
  double total = 0.0;
  for (const Node& node : nodes_) {
    if (!node.IsLeaf()) total += SurfaceMeasure(node.box);
  }
  return static_cast<float>(total / root_measure);
}

template <int D>
absl::Status Bvh<D>::Validate() const {
  const std::size_t n = leaf_ids_.size();
  if (leaf_boxes_.size() != n) {
    return absl::InternalError("leaf boxes and ids differ in size");
  }
  if (n == 0) {
    return nodes_.empty() ? absl::OkStatus()
                          : absl::InternalError("nodes without proxies");
  }
  std::vector<char> node_seen(nodes_.size(), 0);
  std::vector<char> slot_seen(n, 0);
  std::vector<char> id_seen(n, 0);
  std::vector<std::uint32_t> stack = {0};
  while (!stack.empty()) {
    const std::uint32_t index = stack.back();
    stack.pop_back();
    if (node_seen[index]) {
      return absl::InternalError(
          absl::StrFormat("node %d reached twice", index));
    }
    node_seen[index] = 1;
    const Node& node = nodes_[index];
    if (node.IsLeaf()) {
      if (node.index + std::size_t{node.count} > n) {
        return absl::InternalError(
            absl::StrFormat("leaf %d's range is out of bounds", index));
      }
      for (std::uint32_t slot = node.index; slot < node.index + node.count;
           ++slot) {
        if (slot_seen[slot] || leaf_ids_[slot] >= n ||
            id_seen[leaf_ids_[slot]]) {
          return absl::InternalError(absl::StrFormat(
              "slot %d (leaf %d) is shared or names a bad proxy", slot, index));
        }
        slot_seen[slot] = 1;
        id_seen[leaf_ids_[slot]] = 1;
        if (!Contains(node.box, leaf_boxes_[slot])) {
          return absl::InternalError(absl::StrFormat(
              "leaf %d does not contain its proxy %d", index, leaf_ids_[slot]));
        }
      }
      continue;
    }
    const std::size_t child1 = index + std::size_t{1};
    const std::size_t child2 = node.index;
    if (child1 >= nodes_.size() || child2 <= child1 ||
        child2 >= nodes_.size()) {
      return absl::InternalError(
          absl::StrFormat("node %d has children out of order", index));
    }
    for (const std::size_t child : {child1, child2}) {
      if (!Contains(node.box, nodes_[child].box)) {
        return absl::InternalError(absl::StrFormat(
            "node %d does not contain its child %d", index, child));
      }
      stack.push_back(static_cast<std::uint32_t>(child));
    }
  }
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (!node_seen[i]) {
      return absl::InternalError(absl::StrFormat("node %d is unreachable", i));
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (!slot_seen[k]) {
      return absl::InternalError(
          absl::StrFormat("slot %d belongs to no leaf", k));
    }
  }
  return absl::OkStatus();
}

template class Bvh<2>;
template class Bvh<3>;

}  // namespace sator::broadphase
