#include "sator/core/broadphase/bvh.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "broadphase_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "query_checks.h"

namespace sator::broadphase {
namespace {

using ::sator::broadphase::testing::CheckQueries;
using ::sator::broadphase::testing::Dim;
using ::sator::broadphase::testing::RandomBox;
using ::sator::broadphase::testing::RandomVec;
using ::testing::HasSubstr;

template <typename T>
class BvhTest : public ::testing::Test {};
using Dims = ::testing::Types<Dim<2>, Dim<3>>;
TYPED_TEST_SUITE(BvhTest, Dims);

template <int D>
std::vector<std::pair<std::uint32_t, Aabb<D>>> Indexed(
    const std::vector<Aabb<D>>& boxes) {
  std::vector<std::pair<std::uint32_t, Aabb<D>>> out;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    out.push_back({static_cast<std::uint32_t>(i), boxes[i]});
  }
  return out;
}

TYPED_TEST(BvhTest, FactoryRefusesBadOptions) {
  constexpr int D = TypeParam::value;
  auto bins = Bvh<D>::Create({.bin_count = 1});
  EXPECT_EQ(bins.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bins.status().message(), HasSubstr("bin_count"));
  EXPECT_THAT(Bvh<D>::Create({.bin_count = 65}).status().message(),
              HasSubstr("bin_count"));
  EXPECT_THAT(Bvh<D>::Create({.max_leaf_size = 0}).status().message(),
              HasSubstr("max_leaf_size"));
  EXPECT_THAT(Bvh<D>::Create({.max_leaf_size = 17}).status().message(),
              HasSubstr("max_leaf_size"));
  // A leaf's proxies must fit one wide node.
  EXPECT_THAT(Bvh<D>::Create({.max_leaf_size = 9, .wide_ray_nodes = true})
                  .status()
                  .message(),
              HasSubstr("wide_ray_nodes"));
  EXPECT_TRUE(
      Bvh<D>::Create({.max_leaf_size = 8, .wide_ray_nodes = true}).ok());
}

TYPED_TEST(BvhTest, RefusesInvalidBoxesAndKeepsThePreviousBuild) {
  constexpr int D = TypeParam::value;
  auto bvh = *Bvh<D>::Create();
  std::mt19937 rng(3);
  std::vector<Aabb<D>> boxes;
  for (int i = 0; i < 10; ++i) {
    boxes.push_back(RandomBox<D>(rng, 10.0f, 0.1f, 1.0f));
  }
  ASSERT_TRUE(bvh.Build(boxes).ok());
  std::vector<Aabb<D>> bad = boxes;
  bad[3].min[0] = bad[3].max[0] + 1.0f;
  const absl::Status status = bvh.Build(bad);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("box 3"));
  EXPECT_THAT(status.message(), HasSubstr("greater than max"));
  EXPECT_EQ(bvh.ProxyCount(), 10);
  EXPECT_TRUE(bvh.Validate().ok());
  EXPECT_EQ(bvh.Refit(bad).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(bvh.Validate().ok());
  const std::vector<Aabb<D>> fewer(boxes.begin(), boxes.begin() + 4);
  const absl::Status refit = bvh.Refit(fewer);
  EXPECT_EQ(refit.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refit.message(), HasSubstr("4 boxes"));
}

TYPED_TEST(BvhTest, EmptyAndSingle) {
  constexpr int D = TypeParam::value;
  Bvh<D> bvh;
  ASSERT_TRUE(bvh.Build({}).ok());
  EXPECT_EQ(bvh.Height(), 0);
  EXPECT_TRUE(bvh.Validate().ok());
  Aabb<D> everything{};
  for (int i = 0; i < D; ++i) {
    everything.min[i] = -1e3f;
    everything.max[i] = 1e3f;
  }
  int calls = 0;
  EXPECT_EQ(bvh.Query(everything,
                      [&](std::uint32_t) {
                        ++calls;
                        return true;
                      })
                .node_visits,
            0);
  const std::vector<Aabb<D>> one = {Aabb<D>{Vec<D>{}, Vec<D>{}}};
  ASSERT_TRUE(bvh.Build(one).ok());
  EXPECT_EQ(bvh.Height(), 1);
  bvh.Query(everything, [&](std::uint32_t id) {
    EXPECT_EQ(id, 0u);
    ++calls;
    return true;
  });
  EXPECT_EQ(calls, 1);
}

// TreeStats by hand: two boxes with max_leaf_size 1 make a root and two
// leaf nodes; each leaf's proxy box is tested as well. A query overlapping
// only the first: root, both leaf nodes, the first proxy (4 tests), one
// reported. With max_leaf_size 2 the two share one leaf when that is
// cheaper: there the SAH says a leaf of 2 costs 2 * SA(N), a split costs
// SA(N) + SA(A) + SA(B), and the far-apart unit boxes make SA(A) + SA(B) much
// smaller than SA(N), so it still splits.
TYPED_TEST(BvhTest, StatsCountByHand) {
  constexpr int D = TypeParam::value;
  Aabb<D> a{};
  Aabb<D> b{};
  for (int i = 0; i < D; ++i) {
    a.max[i] = 1.0f;
    b.min[i] = 10.0f;
    b.max[i] = 11.0f;
  }
  const std::vector<Aabb<D>> boxes = {a, b};
  for (const int leaf_size : {1, 2}) {
    auto bvh = *Bvh<D>::Create({.max_leaf_size = leaf_size});
    ASSERT_TRUE(bvh.Build(boxes).ok());
    EXPECT_EQ(bvh.NodeCount(), 3);
    Aabb<D> query{};
    for (int i = 0; i < D; ++i) {
      query.min[i] = 0.5f;
      query.max[i] = 0.6f;
    }
    std::vector<std::uint32_t> found;
    const TreeStats stats = bvh.Query(query, [&](std::uint32_t id) {
      found.push_back(id);
      return true;
    });
    EXPECT_EQ(found, std::vector<std::uint32_t>{0});
    EXPECT_EQ(stats.node_visits, 4);
    EXPECT_EQ(stats.leaf_visits, 1);
  }
}

// full_leaves stops splitting at max_leaf_size proxies: fewer nodes than
// the SAH's own leaf choice, over the same proxies.
TYPED_TEST(BvhTest, FullLeavesHoldFewerNodes) {
  constexpr int D = TypeParam::value;
  std::mt19937 rng(7);
  std::vector<Aabb<D>> boxes;
  for (int i = 0; i < 2000; ++i) {
    boxes.push_back(RandomBox<D>(rng, 100.0f, 0.0f, 2.0f));
  }
  auto sah = *Bvh<D>::Create({.max_leaf_size = 4});
  auto full = *Bvh<D>::Create({.max_leaf_size = 4, .full_leaves = true});
  ASSERT_TRUE(sah.Build(boxes).ok());
  ASSERT_TRUE(full.Build(boxes).ok());
  ASSERT_TRUE(full.Validate().ok());
  EXPECT_EQ(full.ProxyCount(), 2000);
  EXPECT_LT(full.NodeCount(), sah.NodeCount());
  // Leaves of at most 4: at least 2 * 2000 / 4 - 1 nodes.
  EXPECT_GE(full.NodeCount(), 999);
}

// Random sets of many sizes and shapes (spread out, clustered, all on one
// point, all on a line); each is built, queried, then moved over several
// ticks and refitted or rebuilt, with every query against brute force.
TYPED_TEST(BvhTest, RandomSetsMatchBruteForce) {
  constexpr int D = TypeParam::value;
  constexpr float kWorld = 100.0f;
  const int sizes[] = {1, 2, 3, 7, 40, 300, 1200};
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    for (const int size : sizes) {
      std::mt19937 rng(seed * 1000 + static_cast<std::uint32_t>(size));
      const BvhOptions options{
          .method = (seed / 4) % 2 == 0 ? BvhBuildMethod::kMorton
                                        : BvhBuildMethod::kBinnedSah,
          .bin_count = seed % 3 == 0 ? 2 : 16,
          .max_leaf_size = static_cast<int>((seed / 2) % 8) + 1,
          // Rays over the 8-wide nodes in odd seeds.
          .wide_ray_nodes = seed % 2 == 1,
          .full_leaves = seed % 3 == 1};
      auto bvh = *Bvh<D>::Create(options);
      std::vector<Aabb<D>> boxes;
      const int layout = static_cast<int>(seed % 4);
      for (int i = 0; i < size; ++i) {
        Aabb<D> box = RandomBox<D>(rng, kWorld, 0.0f, 2.0f);
        if (layout == 1) {
          // All centred on one point: no centroid extent to bin.
          const Vec<D> c = Center(box);
          box = {box.min - c, box.max - c};
        } else if (layout == 2) {
          // On a line along axis 0.
          for (int k = 1; k < D; ++k) {
            const float h = 0.5f * (box.max[k] - box.min[k]);
            box.min[k] = -h;
            box.max[k] = h;
          }
        }
        boxes.push_back(box);
      }
      ASSERT_TRUE(bvh.Build(boxes).ok());
      const int max_visits = 2 * bvh.NodeCount() + size;
      for (int tick = 0; tick < 4; ++tick) {
        const absl::Status valid = bvh.Validate();
        ASSERT_TRUE(valid.ok()) << "seed " << seed << " size " << size
                                << " tick " << tick << ": " << valid;
        ASSERT_EQ(bvh.ProxyCount(), size);
        CheckQueries<D>(
            bvh, Indexed<D>(boxes), rng,
            {.queries = 3, .world = kWorld, .max_node_visits = max_visits});
        if (::testing::Test::HasFatalFailure()) return;
        // Move everything a little, one in ten far.
        for (Aabb<D>& box : boxes) {
          const float step =
              std::uniform_int_distribution<int>(0, 9)(rng) == 0 ? 20.0f : 0.5f;
          const Vec<D> d = RandomVec<D>(rng, -step, step);
          box = {box.min + d, box.max + d};
        }
        if (tick % 2 == 0) {
          ASSERT_TRUE(bvh.Refit(boxes).ok());
        } else {
          ASSERT_TRUE(bvh.Build(boxes).ok());
        }
      }
    }
  }
}

// RefitFrom copies another hierarchy's topology and refits it to new boxes
// without touching the source; Build with a shared scratch builds the same
// hierarchy as Build with the tree's own. Both checked against brute force
// (the source still answers for its old boxes, the copy for the new ones).
TYPED_TEST(BvhTest, RefitFromAndSharedScratch) {
  constexpr int D = TypeParam::value;
  constexpr float kWorld = 100.0f;
  std::mt19937 rng(17);
  typename Bvh<D>::BuildScratch scratch;
  for (const BvhBuildMethod method :
       {BvhBuildMethod::kMorton, BvhBuildMethod::kBinnedSah}) {
    for (const int size : {0, 1, 5, 300}) {
      std::vector<Aabb<D>> boxes;
      for (int i = 0; i < size; ++i) {
        boxes.push_back(RandomBox<D>(rng, kWorld, 0.0f, 2.0f));
      }
      auto source = *Bvh<D>::Create({.method = method, .wide_ray_nodes = true});
      auto own = *Bvh<D>::Create({.method = method, .wide_ray_nodes = true});
      ASSERT_TRUE(source.Build(boxes, &scratch).ok());
      ASSERT_TRUE(own.Build(boxes).ok());
      EXPECT_EQ(source.NodeCount(), own.NodeCount());
      EXPECT_EQ(source.Height(), own.Height());
      ASSERT_TRUE(source.Validate().ok());
      std::vector<Aabb<D>> moved = boxes;
      for (Aabb<D>& box : moved) {
        const Vec<D> d = RandomVec<D>(rng, -5.0f, 5.0f);
        box = {box.min + d, box.max + d};
      }
      // Into a tree built with other options over other boxes.
      auto copy = *Bvh<D>::Create(
          {.method = BvhBuildMethod::kBinnedSah, .max_leaf_size = 1});
      ASSERT_TRUE(copy.Build(moved).ok());
      ASSERT_TRUE(copy.RefitFrom(source, moved).ok());
      EXPECT_EQ(copy.NodeCount(), source.NodeCount());
      EXPECT_EQ(copy.ProxyCount(), size);
      ASSERT_TRUE(copy.Validate().ok());
      ASSERT_TRUE(source.Validate().ok());
      const int max_visits = 2 * source.NodeCount() + size;
      CheckQueries<D>(
          copy, Indexed<D>(moved), rng,
          {.queries = 20, .world = kWorld, .max_node_visits = max_visits});
      CheckQueries<D>(
          source, Indexed<D>(boxes), rng,
          {.queries = 20, .world = kWorld, .max_node_visits = max_visits});
      if (::testing::Test::HasFatalFailure()) return;
      if (size > 0) {
        std::vector<Aabb<D>> bad = moved;
        bad.back().max[0] = std::numeric_limits<float>::infinity();
        const absl::Status status = copy.RefitFrom(source, bad);
        EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
        EXPECT_THAT(status.message(), HasSubstr("not finite"));
        const std::vector<Aabb<D>> fewer(moved.begin(), moved.end() - 1);
        EXPECT_THAT(copy.RefitFrom(source, fewer).message(),
                    HasSubstr("boxes"));
      }
    }
  }
  EXPECT_GT(scratch.MemoryBytes(), 0u);
  scratch.ReleasePrims();
}

// A two-argument visitor gets each proxy's leaf position: LeafIds() at that
// position is the proxy, every proxy has one position, and a refit into
// another tree keeps the order (per-proxy data kept in leaf order by the
// caller stays valid across RefitFrom).
TYPED_TEST(BvhTest, QueryGivesLeafPositionsThatMatchLeafIds) {
  constexpr int D = TypeParam::value;
  constexpr float kWorld = 50.0f;
  std::mt19937 rng(23);
  for (const BvhBuildMethod method :
       {BvhBuildMethod::kMorton, BvhBuildMethod::kBinnedSah}) {
    std::vector<Aabb<D>> boxes;
    for (int i = 0; i < 400; ++i) {
      boxes.push_back(RandomBox<D>(rng, kWorld, 0.0f, 2.0f));
    }
    auto bvh = *Bvh<D>::Create({.method = method, .max_leaf_size = 16});
    ASSERT_TRUE(bvh.Build(boxes).ok());
    const std::span<const std::uint32_t> leaf_ids = bvh.LeafIds();
    ASSERT_EQ(leaf_ids.size(), boxes.size());
    std::vector<int> positions_of(boxes.size(), 0);
    for (const std::uint32_t id : leaf_ids) {
      ASSERT_LT(id, boxes.size());
      ++positions_of[id];
    }
    for (const int n : positions_of) EXPECT_EQ(n, 1);
    // The whole world: every proxy, each at its own position.
    Aabb<D> everything;
    for (int i = 0; i < D; ++i) {
      everything.min[i] = -1.0f;
      everything.max[i] = kWorld + 3.0f;
    }
    std::vector<int> seen(boxes.size(), 0);
    bvh.Query(everything, [&](std::uint32_t proxy, std::uint32_t leaf) {
      EXPECT_LT(leaf, leaf_ids.size());
      if (leaf < leaf_ids.size()) {
        EXPECT_EQ(leaf_ids[leaf], proxy);
      }
      ++seen[proxy];
      return true;
    });
    for (const int n : seen) EXPECT_EQ(n, 1);
    auto copy = *Bvh<D>::Create();
    ASSERT_TRUE(copy.RefitFrom(bvh, boxes).ok());
    EXPECT_TRUE(std::equal(leaf_ids.begin(), leaf_ids.end(),
                           copy.LeafIds().begin(), copy.LeafIds().end()));
    // Stopping early works as with one argument.
    int visits = 0;
    bvh.Query(everything,
              [&](std::uint32_t, std::uint32_t) { return ++visits < 3; });
    EXPECT_EQ(visits, 3);
  }
}

// A binned SAH build of well spread boxes is close to balanced: with leaves
// of up to 4 proxies, 4096 boxes need at least 10 levels; a build that
// degenerated towards a list would need hundreds.
TYPED_TEST(BvhTest, BuildIsShallowAndCompact) {
  constexpr int D = TypeParam::value;
  std::mt19937 rng(11);
  std::vector<Aabb<D>> boxes;
  for (int i = 0; i < 4096; ++i) {
    boxes.push_back(RandomBox<D>(rng, 1000.0f, 0.5f, 1.5f));
  }
  for (const BvhBuildMethod method :
       {BvhBuildMethod::kBinnedSah, BvhBuildMethod::kMorton}) {
    auto bvh = *Bvh<D>::Create({.method = method});
    ASSERT_TRUE(bvh.Build(boxes).ok());
    EXPECT_GE(bvh.Height(), 10);
    EXPECT_LE(bvh.Height(), 30);
    // A binary tree over at least 4096 / 4 leaves.
    EXPECT_GE(bvh.NodeCount(), 2 * (4096 / 4) - 1);
    EXPECT_LE(bvh.NodeCount(), 2 * 4096 - 1);
  }
}

TYPED_TEST(BvhTest, QueryPairsFindsEveryOverlappingPairOnce) {
  constexpr int D = TypeParam::value;
  std::mt19937 rng(4242);
  for (const auto& [n_a, n_b, method] :
       {std::tuple{0, 10, BvhBuildMethod::kMorton},
        std::tuple{1, 1, BvhBuildMethod::kBinnedSah},
        std::tuple{7, 300, BvhBuildMethod::kMorton},
        std::tuple{200, 500, BvhBuildMethod::kBinnedSah},
        std::tuple{500, 40, BvhBuildMethod::kMorton}}) {
    std::vector<Aabb<D>> a;
    std::vector<Aabb<D>> b;
    // Large boxes against small ones, as probes against bodies.
    for (int i = 0; i < n_a; ++i) a.push_back(RandomBox<D>(rng, 100, 1, 8));
    for (int i = 0; i < n_b; ++i) b.push_back(RandomBox<D>(rng, 100, 0, 2));
    Bvh<D> tree_a =
        Bvh<D>::Create({.method = method, .max_leaf_size = 4}).value();
    Bvh<D> tree_b =
        Bvh<D>::Create({.method = BvhBuildMethod::kMorton, .max_leaf_size = 16})
            .value();
    ASSERT_TRUE(tree_a.Build(a).ok());
    ASSERT_TRUE(tree_b.Build(b).ok());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> found;
    const TreeStats stats = tree_a.QueryPairs(
        tree_b, [&](std::uint32_t leaf_a, std::uint32_t leaf_b) {
          found.emplace_back(tree_a.LeafIds()[leaf_a],
                             tree_b.LeafIds()[leaf_b]);
          return true;
        });
    std::vector<std::pair<std::uint32_t, std::uint32_t>> expected;
    for (int i = 0; i < n_a; ++i) {
      for (int j = 0; j < n_b; ++j) {
        if (Overlaps(a[static_cast<std::size_t>(i)],
                     b[static_cast<std::size_t>(j)])) {
          expected.emplace_back(i, j);
        }
      }
    }
    EXPECT_EQ(stats.leaf_visits, static_cast<std::int64_t>(found.size()));
    std::sort(found.begin(), found.end());
    EXPECT_EQ(found, expected) << n_a << " x " << n_b;
    if (!expected.empty()) {
      // The visitor stops the traversal.
      int calls = 0;
      tree_a.QueryPairs(tree_b, [&](std::uint32_t, std::uint32_t) {
        ++calls;
        return false;
      });
      EXPECT_EQ(calls, 1);
    }
  }
}

}  // namespace
}  // namespace sator::broadphase
