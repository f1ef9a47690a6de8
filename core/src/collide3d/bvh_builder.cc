// Binned SAH construction of a flat BVH.
//
// Source: I. Wald, "On fast Construction of SAH-based Bounding Volume
// Hierarchies", IEEE Symposium on Interactive Ray Tracing 2007 (binning the
// centroids into a few buckets per axis and evaluating the SAH only at bucket
// boundaries); the cost model is MacDonald and Booth, "Heuristics for ray
// tracing using space subdivision", The Visual Computer 1990:
//
//   cost(split) = SA(left) * n_left + SA(right) * n_right
//
// (the probability that a random ray hitting the parent also hits a child is
// the ratio of surface areas; the constant traversal cost and the parent's
// area are the same for every candidate and drop out). Nodes are emitted
// depth first, the left child right after its parent (Ericson, "Real-Time
// Collision Detection", 6.6.2), so only the right child's index is stored.
#include "collide3d/bvh_builder.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>

namespace sator::internal {
namespace {

constexpr int kBins = 16;
// Below this depth SAH picks the split; deeper ranges are halved at the
// median, which bounds the depth by kSahDepthLimit + log2(n) < kMaxBvhDepth.
constexpr int kSahDepthLimit = 48;

Aabb3 EmptyBox() {
  constexpr float kBig = std::numeric_limits<float>::max();
  return {{kBig, kBig, kBig}, {-kBig, -kBig, -kBig}};
}

float Area(const Aabb3& box) {
  // An empty (inverted) box has no area.
  if (box.min.x > box.max.x) return 0.0f;
  return SurfaceMeasure(box);
}

class Builder {
 public:
  Builder(absl::Span<const Aabb3> bounds, std::uint32_t max_leaf)
      : bounds_(bounds), max_leaf_(std::max<std::uint32_t>(1, max_leaf)) {
    centroids_.reserve(bounds.size());
    for (const Aabb3& box : bounds) centroids_.push_back(Center(box));
    out_.order.resize(bounds.size());
    for (std::uint32_t i = 0; i < out_.order.size(); ++i) out_.order[i] = i;
    out_.nodes.reserve(2 * bounds.size() / max_leaf_ + 1);
  }

  BvhBuildOutput Run() && {
    Build(0, static_cast<std::uint32_t>(bounds_.size()), 1);
    return std::move(out_);
  }

 private:
  // Builds the subtree over order[begin, end) and returns its node index.
  std::uint32_t Build(std::uint32_t begin, std::uint32_t end, int depth) {
    out_.depth = std::max(out_.depth, depth);
    const auto node_index = static_cast<std::uint32_t>(out_.nodes.size());
    out_.nodes.emplace_back();
    Aabb3 box = EmptyBox();
    Aabb3 centroid_box = EmptyBox();
    for (std::uint32_t i = begin; i < end; ++i) {
      const std::uint32_t p = out_.order[i];
      box = Union(box, bounds_[p]);
      centroid_box = Union(centroid_box, Aabb3{centroids_[p], centroids_[p]});
    }
    out_.nodes[node_index].bounds = box;
    const std::uint32_t count = end - begin;
    if (count <= max_leaf_) {
      MakeLeaf(node_index, begin, count);
      return node_index;
    }
    const std::uint32_t mid = ChooseSplit(begin, end, centroid_box, depth);
    Build(begin, mid, depth + 1);
    const std::uint32_t right = Build(mid, end, depth + 1);
    out_.nodes[node_index].index = right;
    out_.nodes[node_index].count = 0;
    return node_index;
  }

  void MakeLeaf(std::uint32_t node_index, std::uint32_t begin,
                std::uint32_t count) {
    out_.nodes[node_index].index = begin;
    out_.nodes[node_index].count = count;
  }

  // Partitions order[begin, end) and returns the first index of the right
  // half; both halves are non-empty.
  std::uint32_t ChooseSplit(std::uint32_t begin, std::uint32_t end,
                            const Aabb3& centroid_box, int depth) {
    const Vec3 extent = centroid_box.max - centroid_box.min;
    int widest = 0;
    if (extent.y > extent[widest]) widest = 1;
    if (extent.z > extent[widest]) widest = 2;
    // Coincident centroids (or float noise) cannot be binned.
    constexpr float kMinExtent = 1e-20f;
    if (depth < kSahDepthLimit && extent[widest] > kMinExtent) {
      int best_axis = -1;
      int best_bin = 0;
      float best_cost = std::numeric_limits<float>::max();
      for (int axis = 0; axis < 3; ++axis) {
        if (!(extent[axis] > kMinExtent)) continue;
        const float scale = static_cast<float>(kBins) / extent[axis];
        std::array<Aabb3, kBins> bin_box;
        std::array<std::uint32_t, kBins> bin_count{};
        bin_box.fill(EmptyBox());
        for (std::uint32_t i = begin; i < end; ++i) {
          const std::uint32_t p = out_.order[i];
          const int b =
              BinOf(centroids_[p][axis], centroid_box.min[axis], scale);
          bin_box[b] = Union(bin_box[b], bounds_[p]);
          ++bin_count[b];
        }
        // Sweep from the right to get the right-hand areas and counts.
        std::array<float, kBins> right_area{};
        std::array<std::uint32_t, kBins> right_count{};
        Aabb3 acc = EmptyBox();
        std::uint32_t n = 0;
        for (int b = kBins - 1; b > 0; --b) {
          acc = Union(acc, bin_box[b]);
          n += bin_count[b];
          right_area[b] = Area(acc);
          right_count[b] = n;
        }
        acc = EmptyBox();
        n = 0;
        // Split between bin b - 1 and bin b.
        for (int b = 1; b < kBins; ++b) {
          acc = Union(acc, bin_box[b - 1]);
          n += bin_count[b - 1];
          if (n == 0 || right_count[b] == 0) continue;
          const float cost = Area(acc) * static_cast<float>(n) +
                             right_area[b] * static_cast<float>(right_count[b]);
          if (cost < best_cost) {
            best_cost = cost;
            best_axis = axis;
            best_bin = b;
          }
        }
      }
      if (best_axis >= 0) {
        const float scale = static_cast<float>(kBins) / extent[best_axis];
        const float lo = centroid_box.min[best_axis];
        auto* first = out_.order.data() + begin;
        auto* last = out_.order.data() + end;
        auto* split = std::partition(first, last, [&](std::uint32_t p) {
          return BinOf(centroids_[p][best_axis], lo, scale) < best_bin;
        });
        const auto mid = static_cast<std::uint32_t>(split - out_.order.data());
        if (mid > begin && mid < end) return mid;
      }
    }
    // Median split along the widest axis (by index when all coincide).
    const std::uint32_t mid = begin + (end - begin) / 2;
    std::nth_element(out_.order.begin() + begin, out_.order.begin() + mid,
                     out_.order.begin() + end,
                     [&](std::uint32_t p, std::uint32_t q) {
                       return centroids_[p][widest] < centroids_[q][widest];
                     });
    return mid;
  }

  static int BinOf(float c, float lo, float scale) {
    const int b = static_cast<int>((c - lo) * scale);
    return std::clamp(b, 0, kBins - 1);
  }

  absl::Span<const Aabb3> bounds_;
  std::uint32_t max_leaf_;
  std::vector<Vec3> centroids_;
  BvhBuildOutput out_;
};

}  // namespace

BvhBuildOutput BuildBvh(absl::Span<const Aabb3> primitive_bounds,
                        std::uint32_t max_leaf_size) {
  return Builder(primitive_bounds, max_leaf_size).Run();
}

}  // namespace sator::internal
