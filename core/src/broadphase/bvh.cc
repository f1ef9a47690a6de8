// Binned-SAH BVH: build, refit and validation.
//
// Sources: Wald, "On fast Construction of SAH-based Bounding Volume
// Hierarchies", IEEE Symposium on Interactive Ray Tracing 2007 (binning the
// centroids into K bins along the widest centroid axis and evaluating the K-1
// bin boundaries with two sweeps; each child's bounds are the union of its
// bins, so no pass recomputes them); MacDonald and Booth 1990 (the cost
// model); Lauterbach et al. 2009 and Karras 2012 (Morton-code LBVH; the split
// of a sorted range at its highest differing bit is Karras's, found here
// top-down by binary search instead of in parallel per node).
//
// Cost model, scaled by the node's surface measure SA(N):
//   split:  kTraversalCost * SA(N) + SA(L) * n_L + SA(R) * n_R
//   leaf:   SA(N) * n
// (a leaf of n proxies costs n box tests whenever it is reached; a split
// costs one more node test plus the expected tests in each child, reached
// with probability SA(child) / SA(N)).
#include "sator/core/broadphase/bvh.h"

#include <array>
#include <bit>
#include <cmath>
#include <limits>

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
  if (options.wide_ray_nodes && options.max_leaf_size > kWideLanes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "max_leaf_size (%d) must be at most %d with wide_ray_nodes (a leaf's "
        "proxies fill one wide node)",
        options.max_leaf_size, kWideLanes));
  }
  return Bvh(options);
}

namespace {

// True when `box` passes ValidateBox. Quiet comparisons (islessequal) are
// false for a NaN without raising FE_INVALID, so this is the whole check;
// ValidateBox runs only to word the error of a box that fails it.
template <int D>
bool IsValidBox(const Aabb<D>& box) {
  // Accumulated as ints without short-circuiting: the loop stays free of
  // branches (and clang accepts '&' on them, which it refuses on bools).
  int ok = 1;
  for (int i = 0; i < D; ++i) {
    ok &= static_cast<int>(
              std::islessequal(std::fabs(box.min[i]), kMaxQueryCoordinate)) &
          static_cast<int>(
              std::islessequal(std::fabs(box.max[i]), kMaxQueryCoordinate)) &
          static_cast<int>(std::islessequal(box.min[i], box.max[i]));
  }
  return ok != 0;
}

}  // namespace

template <int D>
absl::Status Bvh<D>::Build(std::span<const Aabb<D>> boxes) {
  return Build(boxes, &scratch_);
}

template <int D>
absl::Status Bvh<D>::BuildTree(std::span<const Aabb<D>> boxes,
                               BuildScratch* scratch) {
  if (boxes.size() > std::size_t{1} << 30) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%d boxes exceed the BVH's limit of 2^30", boxes.size()));
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (IsValidBox<D>(boxes[i])) continue;
    if (absl::Status s = ValidateBox<D>(boxes[i], "proxy box"); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("box %d: %s", i, s.message()));
    }
  }
  const auto n = static_cast<std::uint32_t>(boxes.size());
  nodes_.clear();
  leaf_ids_.resize(n);
  leaf_boxes_.resize(n);
  if (n == 0) {
    return absl::OkStatus();
  }
  const Vec<D> first_centroid = Center(boxes[0]);
  Aabb<D> centroid_bounds{first_centroid, first_centroid};
  if (options_.method == BvhBuildMethod::kMorton) {
    // The Morton builder reads the boxes directly (no BuildPrim copies), and
    // grows its node array as it goes: a tree of n proxies in leaves of up
    // to max_leaf_size has between n / max_leaf_size and 2n - 1 nodes.
    for (std::uint32_t i = 1; i < n; ++i) {
      const Vec<D> c = Center(boxes[i]);
      centroid_bounds.min = Min(centroid_bounds.min, c);
      centroid_bounds.max = Max(centroid_bounds.max, c);
    }
    BuildMorton(boxes, centroid_bounds, scratch);
    return absl::OkStatus();
  }
  nodes_.reserve(2 * static_cast<std::size_t>(n));
  std::vector<BuildPrim>& prims = scratch->prims_;
  prims.resize(n);
  Aabb<D> bounds = boxes[0];
  for (std::uint32_t i = 0; i < n; ++i) {
    const Vec<D> c = Center(boxes[i]);
    prims[i] = {boxes[i], c, i};
    bounds = Union(bounds, boxes[i]);
    centroid_bounds.min = Min(centroid_bounds.min, c);
    centroid_bounds.max = Max(centroid_bounds.max, c);
  }
  BuildBinnedSah(bounds, centroid_bounds, &prims);
  // Reserved for the worst case (2n - 1 nodes); SAH trees, usually static
  // and kept for long, hold only what they use.
  if (nodes_.capacity() > nodes_.size() + nodes_.size() / 4) {
    nodes_.shrink_to_fit();
  }
  return absl::OkStatus();
}

template <int D>
void Bvh<D>::BuildBinnedSah(const Aabb<D>& root_bounds,
                            const Aabb<D>& root_centroid_bounds,
                            std::vector<BuildPrim>* prim_array) {
  struct Task {
    std::uint32_t begin;
    std::uint32_t end;
    // The parent whose second-child index is this node, or kNone for a
    // first child (which is simply the node after its parent).
    std::uint32_t parent;
    Aabb<D> bounds;
    Aabb<D> centroid_bounds;
  };
  struct Bin {
    Aabb<D> box;
    Aabb<D> centroid_box;
    std::uint32_t count;
  };
  constexpr std::uint32_t kNone = UINT32_MAX;
  const auto n = static_cast<std::uint32_t>(prim_array->size());
  const int bin_count = options_.bin_count;
  const auto max_leaf = static_cast<std::uint32_t>(options_.max_leaf_size);
  BuildPrim* prims = prim_array->data();
  std::vector<Task> tasks = {{0, n, kNone, root_bounds, root_centroid_bounds}};
  std::array<Bin, kMaxBins> bins;
  // right[i]: the union of bins i + 1 and up, for the boundary after bin i.
  std::array<Bin, kMaxBins> right;

  // The bounds of prims [begin, end), for the rare median split.
  auto bounds_of = [&](std::uint32_t begin, std::uint32_t end, Aabb<D>* box,
                       Aabb<D>* centroid_box) {
    *box = prims[begin].box;
    *centroid_box = {prims[begin].centroid, prims[begin].centroid};
    for (std::uint32_t k = begin + 1; k < end; ++k) {
      *box = Union(*box, prims[k].box);
      centroid_box->min = Min(centroid_box->min, prims[k].centroid);
      centroid_box->max = Max(centroid_box->max, prims[k].centroid);
    }
  };
  // Empty bins hold an inverted box, so merging needs no branch; an empty
  // box's measure is never taken (every cost checks the counts first).
  Aabb<D> empty{};
  for (int i = 0; i < D; ++i) {
    empty.min[i] = std::numeric_limits<float>::max();
    empty.max[i] = -std::numeric_limits<float>::max();
  }
  auto merge = [](Bin* into, const Bin& bin) {
    into->box = Union(into->box, bin.box);
    into->centroid_box = Union(into->centroid_box, bin.centroid_box);
    into->count += bin.count;
  };

  while (!tasks.empty()) {
    const Task task = tasks.back();
    tasks.pop_back();
    const auto node_index = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back({task.bounds, task.begin, 0});
    if (task.parent != kNone) {
      nodes_[task.parent].index = node_index;
    }
    const std::uint32_t count = task.end - task.begin;
    if (count == 1) {
      nodes_[node_index].count = 1;
      continue;
    }

    int axis = 0;
    const Vec<D> extent = task.centroid_bounds.max - task.centroid_bounds.min;
    for (int i = 1; i < D; ++i) {
      if (extent[i] > extent[axis]) {
        axis = i;
      }
    }
    std::uint32_t mid = task.begin;
    Task left_task{};
    Task right_task{};
    if (extent[axis] > kMinCentroidExtent) {
      const float axis_min = task.centroid_bounds.min[axis];
      const float scale = static_cast<float>(bin_count) / extent[axis];
      auto bin_of = [&](const BuildPrim& prim) {
        const int bin =
            static_cast<int>((prim.centroid[axis] - axis_min) * scale);
        return std::min(bin, bin_count - 1);
      };
      for (int i = 0; i < bin_count; ++i) {
        bins[i] = {empty, empty, 0};
      }
      for (std::uint32_t k = task.begin; k < task.end; ++k) {
        const BuildPrim& prim = prims[k];
        Bin& bin = bins[bin_of(prim)];
        bin.box = Union(bin.box, prim.box);
        bin.centroid_box.min = Min(bin.centroid_box.min, prim.centroid);
        bin.centroid_box.max = Max(bin.centroid_box.max, prim.centroid);
        ++bin.count;
      }
      Bin accumulated{empty, empty, 0};
      for (int i = bin_count - 1; i > 0; --i) {
        merge(&accumulated, bins[i]);
        right[i - 1] = accumulated;
      }
      accumulated = {empty, empty, 0};
      Bin best_left{};
      int best_bin = -1;
      float best_cost = 0.0f;
      for (int i = 0; i < bin_count - 1; ++i) {
        merge(&accumulated, bins[i]);
        if (accumulated.count == 0 || right[i].count == 0) {
          continue;
        }
        const float cost =
            SurfaceMeasure(accumulated.box) *
                static_cast<float>(accumulated.count) +
            SurfaceMeasure(right[i].box) * static_cast<float>(right[i].count);
        if (best_bin < 0 || cost < best_cost) {
          best_bin = i;
          best_cost = cost;
          best_left = accumulated;
        }
      }
      const float node_measure = SurfaceMeasure(task.bounds);
      // With wide ray nodes, a leaf's proxies are tested together in one
      // SIMD lane test, so any node of at most max_leaf_size proxies becomes
      // a leaf (fewer binary nodes: about a third as many at 4 per leaf);
      // full_leaves asks for the same.
      if (count <= max_leaf &&
          (options_.wide_ray_nodes || options_.full_leaves || best_bin < 0 ||
           node_measure * static_cast<float>(count) <=
               kTraversalCost * node_measure + best_cost)) {
        nodes_[node_index].count = count;
        continue;
      }
      if (best_bin >= 0) {
        BuildPrim* split = std::partition(
            prims + task.begin, prims + task.end,
            [&](const BuildPrim& prim) { return bin_of(prim) <= best_bin; });
        mid = static_cast<std::uint32_t>(split - prims);
        left_task.bounds = best_left.box;
        left_task.centroid_bounds = best_left.centroid_box;
        right_task.bounds = right[best_bin].box;
        right_task.centroid_bounds = right[best_bin].centroid_box;
      }
    }
    if (mid == task.begin || mid == task.end) {
      // All centroids (nearly) coincide: split at the median.
      if (count <= max_leaf) {
        nodes_[node_index].count = count;
        continue;
      }
      mid = task.begin + count / 2;
      std::nth_element(prims + task.begin, prims + mid, prims + task.end,
                       [&](const BuildPrim& a, const BuildPrim& b) {
                         return a.centroid[axis] < b.centroid[axis];
                       });
      bounds_of(task.begin, mid, &left_task.bounds, &left_task.centroid_bounds);
      bounds_of(mid, task.end, &right_task.bounds, &right_task.centroid_bounds);
    }
    left_task.begin = task.begin;
    left_task.end = mid;
    left_task.parent = kNone;
    right_task.begin = mid;
    right_task.end = task.end;
    right_task.parent = node_index;
    tasks.push_back(right_task);
    tasks.push_back(left_task);
  }
  for (std::uint32_t k = 0; k < n; ++k) {
    leaf_ids_[k] = prims[k].id;
    leaf_boxes_[k] = prims[k].box;
  }
}

namespace {

// Spreads the low 16 bits of x to the even bits of the result.
std::uint32_t SpreadBits2(std::uint32_t x) {
  x &= 0x0000ffffu;
  x = (x | (x << 8)) & 0x00ff00ffu;
  x = (x | (x << 4)) & 0x0f0f0f0fu;
  x = (x | (x << 2)) & 0x33333333u;
  x = (x | (x << 1)) & 0x55555555u;
  return x;
}

// Spreads the low 10 bits of x to every third bit of the result.
std::uint32_t SpreadBits3(std::uint32_t x) {
  x &= 0x000003ffu;
  x = (x | (x << 16)) & 0x030000ffu;
  x = (x | (x << 8)) & 0x0300f00fu;
  x = (x | (x << 4)) & 0x030c30c3u;
  x = (x | (x << 2)) & 0x09249249u;
  return x;
}

// LSD radix sort of 64-bit keys on their high 32 bits (the Morton code; the
// low 32 bits, the proxy index, ride along). Stable, so equal codes keep
// index order and the build is deterministic. Three passes of 11, 11 and 10
// bits whose histograms are all counted in one read of the keys; a pass whose
// digit is the same for every key (high bits unused by 3D's 30-bit codes, or
// a small world) is skipped.
void RadixSortHigh32(std::vector<std::uint64_t>* keys,
                     std::vector<std::uint64_t>* swap) {
  constexpr int kDigitBits = 11;
  constexpr int kPasses = 3;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  constexpr std::uint64_t kDigitMask = kBuckets - 1;
  const std::size_t n = keys->size();
  swap->resize(n);
  std::vector<std::array<std::uint32_t, kBuckets>> counts(kPasses);
  for (auto& count : counts) count.fill(0);
  for (const std::uint64_t key : *keys) {
    for (int pass = 0; pass < kPasses; ++pass) {
      ++counts[pass][(key >> (32 + pass * kDigitBits)) & kDigitMask];
    }
  }
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = 32 + pass * kDigitBits;
    std::array<std::uint32_t, kBuckets>& offsets = counts[pass];
    if (offsets[((*keys)[0] >> shift) & kDigitMask] == n) continue;
    std::uint32_t sum = 0;
    for (std::uint32_t& offset : offsets) {
      const std::uint32_t count = offset;
      offset = sum;
      sum += count;
    }
    std::uint64_t* out = swap->data();
    for (const std::uint64_t key : *keys) {
      out[offsets[(key >> shift) & kDigitMask]++] = key;
    }
    keys->swap(*swap);
  }
}

}  // namespace

template <int D>
void Bvh<D>::BuildMorton(std::span<const Aabb<D>> boxes,
                         const Aabb<D>& centroid_bounds,
                         BuildScratch* scratch) {
  std::vector<std::uint64_t>& keys = scratch->keys_;
  // 16 bits per axis in 2D, 10 in 3D: a 32-bit code.
  constexpr int kBits = D == 2 ? 16 : 10;
  constexpr auto kCells = static_cast<float>(1 << kBits);
  const auto n = static_cast<std::uint32_t>(boxes.size());
  Vec<D> scale{};
  for (int i = 0; i < D; ++i) {
    const float extent = centroid_bounds.max[i] - centroid_bounds.min[i];
    scale[i] = extent > kMinCentroidExtent ? kCells / extent : 0.0f;
  }
  keys.resize(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    const Vec<D> centroid = Center(boxes[k]);
    std::uint32_t code = 0;
    for (int i = 0; i < D; ++i) {
      const float cell = std::min(
          kCells - 1.0f, (centroid[i] - centroid_bounds.min[i]) * scale[i]);
      const auto q = static_cast<std::uint32_t>(cell);
      code |= (D == 2 ? SpreadBits2(q) : SpreadBits3(q)) << i;
    }
    keys[k] = (std::uint64_t{code} << 32) | k;
  }
  RadixSortHigh32(&keys, &scratch->keys_swap_);
  for (std::uint32_t k = 0; k < n; ++k) {
    const auto id = static_cast<std::uint32_t>(keys[k]);
    leaf_ids_[k] = id;
    leaf_boxes_[k] = boxes[id];
  }

  struct Task {
    std::uint32_t begin;
    std::uint32_t end;
    std::uint32_t parent;  // As in BuildBinnedSah.
  };
  constexpr std::uint32_t kNone = UINT32_MAX;
  const auto max_leaf = static_cast<std::uint32_t>(options_.max_leaf_size);
  auto code_at = [&](std::uint32_t k) {
    return static_cast<std::uint32_t>(keys[k] >> 32);
  };
  std::vector<Task> tasks = {{0, n, kNone}};
  while (!tasks.empty()) {
    const Task task = tasks.back();
    tasks.pop_back();
    const auto node_index = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back({Aabb<D>{}, task.begin, 0});
    if (task.parent != kNone) {
      nodes_[task.parent].index = node_index;
    }
    const std::uint32_t count = task.end - task.begin;
    if (count <= max_leaf) {
      nodes_[node_index].count = count;
      continue;
    }
    const std::uint32_t first = code_at(task.begin);
    const std::uint32_t last = code_at(task.end - 1);
    std::uint32_t mid = task.begin + count / 2;
    if (first != last) {
      // Codes in the range share every bit above the highest differing one;
      // the split is the first code with that bit set.
      const std::uint32_t bit = std::uint32_t{1}
                                << (31 - std::countl_zero(first ^ last));
      std::uint32_t lo = task.begin;
      std::uint32_t hi = task.end - 1;  // code_at(hi) has the bit set.
      while (lo < hi) {
        const std::uint32_t probe = lo + (hi - lo) / 2;
        if (code_at(probe) & bit) {
          hi = probe;
        } else {
          lo = probe + 1;
        }
      }
      mid = lo;
    }
    tasks.push_back({mid, task.end, node_index});
    tasks.push_back({task.begin, mid, kNone});
  }
  RefitNodes();
}

template <int D>
void Bvh<D>::RefitNodes() {
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
  for (std::size_t k = 0; k < n; ++k) {
    leaf_boxes_[k] = boxes[leaf_ids_[k]];
  }
  RefitNodes();
  UpdateWideNodes();
  return absl::OkStatus();
}

template <int D>
absl::Status Bvh<D>::RefitFrom(const Bvh& source,
                               std::span<const Aabb<D>> boxes) {
  if (boxes.size() != source.leaf_ids_.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("refit got %d boxes, the BVH was built over %d",
                        boxes.size(), source.leaf_ids_.size()));
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (IsValidBox<D>(boxes[i])) continue;
    if (absl::Status s = ValidateBox<D>(boxes[i], "proxy box"); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("box %d: %s", i, s.message()));
    }
  }
  if (&source != this) {
    options_ = source.options_;
    nodes_.assign(source.nodes_.begin(), source.nodes_.end());
    leaf_ids_.assign(source.leaf_ids_.begin(), source.leaf_ids_.end());
  }
  const std::size_t n = leaf_ids_.size();
  leaf_boxes_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    leaf_boxes_[k] = boxes[leaf_ids_[k]];
  }
  RefitNodes();
  UpdateWideNodes();
  return absl::OkStatus();
}

template <int D>
int Bvh<D>::Height() const {
  if (nodes_.empty()) {
    return 0;
  }
  int height = 0;
  std::vector<std::pair<std::uint32_t, int>> stack = {{0u, 1}};
  while (!stack.empty()) {
    const auto [index, depth] = stack.back();
    stack.pop_back();
    height = std::max(height, depth);
    if (!nodes_[index].IsLeaf()) {
      stack.emplace_back(index + 1, depth + 1);
      stack.push_back({nodes_[index].index, depth + 1});
    }
  }
  return height;
}

template <int D>
std::size_t Bvh<D>::MemoryBytes() const {
  return nodes_.capacity() * sizeof(Node) +
         wide_.capacity() * sizeof(WideNode) +
         leaf_boxes_.capacity() * sizeof(Aabb<D>) +
         leaf_ids_.capacity() * sizeof(std::uint32_t) + scratch_.MemoryBytes();
}

template <int D>
float Bvh<D>::AreaRatio() const {
  if (nodes_.empty()) {
    return 0.0f;
  }
  const float root_measure = SurfaceMeasure(nodes_[0].box);
  if (!(root_measure > 0.0f)) {
    return 0.0f;
  }
  double total = 0.0;
  for (const Node& node : nodes_) {
    if (!node.IsLeaf()) {
      total += SurfaceMeasure(node.box);
    }
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
      if (node.count > static_cast<std::uint32_t>(options_.max_leaf_size)) {
        return absl::InternalError(
            absl::StrFormat("leaf %d holds %d proxies, over max_leaf_size %d",
                            index, node.count, options_.max_leaf_size));
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
