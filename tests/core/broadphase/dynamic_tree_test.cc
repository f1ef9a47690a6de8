#include "sator/core/broadphase/dynamic_tree.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
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
using ::sator::broadphase::testing::QueryCheckOptions;
using ::sator::broadphase::testing::RandomBox;
using ::sator::broadphase::testing::RandomVec;
using ::testing::HasSubstr;

template <typename T>
class DynamicTreeTest : public ::testing::Test {};
using Dims = ::testing::Types<Dim<2>, Dim<3>>;
TYPED_TEST_SUITE(DynamicTreeTest, Dims);

template <int D>
Aabb<D> Cube(float lo, float hi) {
  Aabb<D> box{};
  for (int i = 0; i < D; ++i) {
    box.min[i] = lo;
    box.max[i] = hi;
  }
  return box;
}

TYPED_TEST(DynamicTreeTest, FactoryRefusesBadOptions) {
  constexpr int D = TypeParam::value;
  auto bad_margin = DynamicTree<D>::Create({.margin = -1.0f});
  ASSERT_FALSE(bad_margin.ok());
  EXPECT_EQ(bad_margin.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_margin.status().message(), HasSubstr("margin"));
  auto nan_margin = DynamicTree<D>::Create({.margin = std::nanf("")});
  EXPECT_EQ(nan_margin.status().code(), absl::StatusCode::kInvalidArgument);
  auto bad_multiplier =
      DynamicTree<D>::Create({.displacement_multiplier = -2.0f});
  EXPECT_EQ(bad_multiplier.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_multiplier.status().message(),
              HasSubstr("displacement_multiplier"));
}

TYPED_TEST(DynamicTreeTest, RefusesInvalidBoxesAndHandles) {
  constexpr int D = TypeParam::value;
  auto tree = *DynamicTree<D>::Create();
  Aabb<D> inverted = Cube<D>(0.0f, 1.0f);
  inverted.min[D - 1] = 2.0f;
  auto created = tree.CreateProxy(inverted);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(created.status().message(), HasSubstr("greater than max"));
  Aabb<D> nan_box = Cube<D>(0.0f, 1.0f);
  nan_box.max[0] = std::nanf("");
  EXPECT_THAT(tree.CreateProxy(nan_box).status().message(),
              HasSubstr("not finite"));
  EXPECT_THAT(tree.CreateProxy(Cube<D>(0.0f, 2e15f)).status().message(),
              HasSubstr("limit"));
  EXPECT_EQ(tree.ProxyCount(), 0);

  const std::uint32_t id = *tree.CreateProxy(Cube<D>(0.0f, 1.0f));
  EXPECT_EQ(tree.DestroyProxy(id + 7).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(
      tree.MoveProxy(id + 7, Cube<D>(0.0f, 1.0f), Vec<D>{}).status().code(),
      absl::StatusCode::kNotFound);
  EXPECT_EQ(tree.MoveProxy(id, inverted, Vec<D>{}).status().code(),
            absl::StatusCode::kInvalidArgument);
  Vec<D> nan_displacement{};
  nan_displacement[0] = std::nanf("");
  EXPECT_THAT(tree.MoveProxy(id, Cube<D>(0.0f, 1.0f), nan_displacement)
                  .status()
                  .message(),
              HasSubstr("displacement"));
  EXPECT_TRUE(tree.DestroyProxy(id).ok());
  EXPECT_EQ(tree.DestroyProxy(id).code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(tree.Validate().ok());
}

TYPED_TEST(DynamicTreeTest, EmptyTreeAnswersNothing) {
  constexpr int D = TypeParam::value;
  const DynamicTree<D> tree;
  EXPECT_EQ(tree.Height(), 0);
  EXPECT_TRUE(tree.Validate().ok());
  int calls = 0;
  const TreeStats stats = tree.Query(Cube<D>(-1e3f, 1e3f), [&](std::uint32_t) {
    ++calls;
    return true;
  });
  Vec<D> translation{};
  translation[0] = 10.0f;
  const TreeStats ray_stats =
      tree.RayCast({Vec<D>{}, translation, 1.0f},
                   [&](std::uint32_t, const RayCastInput<D>&) {
                     ++calls;
                     return 1.0f;
                   });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(stats.node_visits, 0);
  EXPECT_EQ(ray_stats.node_visits, 0);
}

// Fat boxes by hand: margin 0.5, multiplier 2.
TYPED_TEST(DynamicTreeTest, FatBoxesFollowMarginAndDisplacement) {
  constexpr int D = TypeParam::value;
  auto tree = *DynamicTree<D>::Create(
      {.margin = 0.5f, .displacement_multiplier = 2.0f});
  const std::uint32_t id = *tree.CreateProxy(Cube<D>(0.0f, 1.0f));
  EXPECT_TRUE(tree.IsProxy(id));
  for (int i = 0; i < D; ++i) {
    EXPECT_EQ(tree.FatAabb(id).min[i], -0.5f);
    EXPECT_EQ(tree.FatAabb(id).max[i], 1.5f);
  }
  // Still inside [-0.5, 1.5]: no update.
  Vec<D> small{};
  small[0] = 0.25f;
  EXPECT_FALSE(*tree.MoveProxy(id, Cube<D>(0.25f, 1.25f), small));
  EXPECT_EQ(tree.FatAabb(id).max[0], 1.5f);
  // Out: box [3,4] on axis 0 moved by +3, [0,1] on axis 1 moved by -1 (the
  // displacement need not match the boxes). Fat box: grow by 0.5, stretch
  // axis 0's max by 2 * 3 and axis 1's min by 2 * 1.
  Aabb<D> moved = Cube<D>(0.0f, 1.0f);
  moved.min[0] = 3.0f;
  moved.max[0] = 4.0f;
  Vec<D> displacement{};
  displacement[0] = 3.0f;
  displacement[1] = -1.0f;
  EXPECT_TRUE(*tree.MoveProxy(id, moved, displacement));
  const Aabb<D>& fat = tree.FatAabb(id);
  EXPECT_EQ(fat.min[0], 2.5f);
  EXPECT_EQ(fat.max[0], 10.5f);
  EXPECT_EQ(fat.min[1], -2.5f);
  EXPECT_EQ(fat.max[1], 1.5f);
  // Standing still inside a box stretched for speed: the stretched box is
  // more than 4 margins larger than [2.5, 4.5], so it is refreshed.
  EXPECT_TRUE(*tree.MoveProxy(id, moved, Vec<D>{}));
  EXPECT_EQ(tree.FatAabb(id).max[0], 4.5f);
  EXPECT_EQ(tree.FatAabb(id).min[1], -0.5f);
  EXPECT_TRUE(tree.Validate().ok());
}

// Three boxes along axis 0 at [2,3], [5,6] and [8,9], margin 0; a ray from 0
// along +10 enters them at fractions 0.2, 0.5 and 0.8.
TYPED_TEST(DynamicTreeTest, RayCallbackStopsIgnoresAndClips) {
  constexpr int D = TypeParam::value;
  auto tree = *DynamicTree<D>::Create({.margin = 0.0f});
  std::vector<std::uint32_t> ids;
  for (const float x : {2.0f, 5.0f, 8.0f}) {
    Aabb<D> box = Cube<D>(-1.0f, 1.0f);
    box.min[0] = x;
    box.max[0] = x + 1.0f;
    ids.push_back(*tree.CreateProxy(box));
  }
  Vec<D> translation{};
  translation[0] = 10.0f;
  const RayCastInput<D> input = *MakeRayCastInput<D>(Vec<D>{}, translation);

  std::vector<std::uint32_t> seen;
  tree.RayCast(input, [&](std::uint32_t id, const RayCastInput<D>&) {
    seen.push_back(id);
    return -1.0f;  // Ignore: all three.
  });
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, ids);

  seen.clear();
  const TreeStats stopped =
      tree.RayCast(input, [&](std::uint32_t id, const RayCastInput<D>&) {
        seen.push_back(id);
        return 0.0f;  // Stop.
      });
  EXPECT_EQ(stopped.leaf_visits, 1);
  // Nearest first: the first proxy reached is the one at 0.2.
  EXPECT_EQ(seen, std::vector<std::uint32_t>{ids[0]});

  seen.clear();
  tree.RayCast(input, [&](std::uint32_t id, const RayCastInput<D>& clipped) {
    seen.push_back(id);
    // Clip to 0.6 at the first proxy: [5,6] (entry 0.5) is still reached,
    // [8,9] (entry 0.8) is not.
    if (id == ids[0]) return 0.6f;
    EXPECT_EQ(clipped.max_fraction, 0.6f);
    return -1.0f;
  });
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{ids[0], ids[1]}));

  // A box of half width 0.5 cast from the origin meets [2,3] when its leading
  // face reaches 2: at fraction 1.5 / 10.
  float first = 1.0f;
  Aabb<D> moving = Cube<D>(-0.5f, 0.5f);
  tree.BoxCast(*MakeBoxCastInput<D>(moving, translation),
               [&](std::uint32_t id, const BoxCastInput<D>& clipped) {
                 if (id != ids[0]) return -1.0f;
                 first = 0.15f;
                 EXPECT_EQ(clipped.max_fraction, 1.0f);
                 return 0.15f;
               });
  EXPECT_EQ(first, 0.15f);
}

// Interleaved inserts, moves and removes on many seeded random sets; the
// invariants after every operation and every query against brute force
// along the way.
TYPED_TEST(DynamicTreeTest, RandomOperationsMatchBruteForce) {
  constexpr int D = TypeParam::value;
  constexpr float kWorld = 100.0f;
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed);
    auto tree = *DynamicTree<D>::Create(
        {.margin = seed % 3 == 0 ? 0.0f : 0.5f,
         .displacement_multiplier = seed % 2 == 0 ? 4.0f : 0.0f,
         .sibling_search = seed % 4 < 2 ? SiblingSearch::kBranchAndBound
                                        : SiblingSearch::kGreedy});
    std::map<std::uint32_t, Aabb<D>> tight;
    std::uniform_int_distribution<int> percent(0, 99);
    const int operations = 1500;
    for (int op = 0; op < operations; ++op) {
      const int roll = percent(rng);
      if (tight.empty() || roll < 35) {
        const Aabb<D> box = RandomBox<D>(rng, kWorld, 0.0f, 3.0f);
        const auto id = tree.CreateProxy(box);
        ASSERT_TRUE(id.ok()) << id.status();
        ASSERT_EQ(tight.count(*id), 0u);
        tight[*id] = box;
        // A fresh proxy's fat box is its box grown by the margin.
        const Aabb<D> fat = tree.FatAabb(*id);
        const float margin = seed % 3 == 0 ? 0.0f : 0.5f;
        for (int i = 0; i < D; ++i) {
          ASSERT_EQ(fat.min[i], box.min[i] - margin);
          ASSERT_EQ(fat.max[i], box.max[i] + margin);
        }
      } else {
        auto it = tight.begin();
        std::advance(it, std::uniform_int_distribution<std::size_t>(
                             0, tight.size() - 1)(rng));
        const std::uint32_t id = it->first;
        if (roll < 55) {
          ASSERT_TRUE(tree.DestroyProxy(id).ok());
          ASSERT_FALSE(tree.IsProxy(id));
          tight.erase(it);
        } else {
          // Mostly small steps, sometimes teleports.
          const float step = roll < 90 ? 0.4f : 30.0f;
          const Vec<D> displacement = RandomVec<D>(rng, -step, step);
          const Aabb<D> before_fat = tree.FatAabb(id);
          const Aabb<D> box{it->second.min + displacement,
                            it->second.max + displacement};
          const auto moved = tree.MoveProxy(id, box, displacement);
          ASSERT_TRUE(moved.ok()) << moved.status();
          ASSERT_TRUE(Contains(tree.FatAabb(id), box));
          if (!*moved) {
            ASSERT_TRUE(Contains(before_fat, box));
            ASSERT_EQ(tree.FatAabb(id).min, before_fat.min);
          }
          it->second = box;
        }
      }
      const absl::Status valid = tree.Validate();
      ASSERT_TRUE(valid.ok())
          << "seed " << seed << " op " << op << ": " << valid;
      ASSERT_EQ(tree.ProxyCount(), static_cast<int>(tight.size()));
      if (op % 40 == 39) {
        std::vector<std::pair<std::uint32_t, Aabb<D>>> fat_boxes;
        for (const auto& [id, box] : tight) {
          ASSERT_TRUE(tree.IsProxy(id));
          ASSERT_TRUE(Contains(tree.FatAabb(id), box));
          fat_boxes.push_back({id, tree.FatAabb(id)});
        }
        CheckQueries<D>(tree, fat_boxes, rng,
                        {.queries = 6,
                         .world = kWorld,
                         .max_node_visits = 2 * tree.ProxyCount()});
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Inserting sorted boxes along a line is the classic worst case for an
// unbalanced tree; the rotations keep the height logarithmic-ish.
TYPED_TEST(DynamicTreeTest, SortedInsertionStaysShallow) {
  constexpr int D = TypeParam::value;
  auto tree = *DynamicTree<D>::Create({.margin = 0.0f});
  constexpr int kCount = 4096;
  for (int i = 0; i < kCount; ++i) {
    Aabb<D> box = Cube<D>(0.0f, 1.0f);
    box.min[0] = static_cast<float>(i);
    box.max[0] = static_cast<float>(i) + 1.0f;
    ASSERT_TRUE(tree.CreateProxy(box).ok());
  }
  ASSERT_TRUE(tree.Validate().ok());
  // log2(4096) = 12 levels for a perfect tree.
  EXPECT_LE(tree.Height(), 40) << "height " << tree.Height();
}

// TreeStats by hand. One proxy: the root is the leaf, one box test. Two
// proxies: a root and two leaves; a query that overlaps only the first leaf
// tests the root and both leaves (3 nodes) and reports one leaf.
TYPED_TEST(DynamicTreeTest, StatsCountByHand) {
  constexpr int D = TypeParam::value;
  auto tree = *DynamicTree<D>::Create({.margin = 0.0f});
  const std::uint32_t a = *tree.CreateProxy(Cube<D>(0.0f, 1.0f));
  auto count = [](std::uint32_t) { return true; };
  TreeStats miss = tree.Query(Cube<D>(5.0f, 6.0f), count);
  EXPECT_EQ(miss.node_visits, 1);
  EXPECT_EQ(miss.leaf_visits, 0);
  TreeStats hit = tree.Query(Cube<D>(0.5f, 0.6f), count);
  EXPECT_EQ(hit.node_visits, 1);
  EXPECT_EQ(hit.leaf_visits, 1);
  const std::uint32_t b = *tree.CreateProxy(Cube<D>(3.0f, 4.0f));
  EXPECT_NE(a, b);
  hit = tree.Query(Cube<D>(0.5f, 0.6f), count);
  EXPECT_EQ(hit.node_visits, 3);
  EXPECT_EQ(hit.leaf_visits, 1);
  // A ray along the diagonal from -1 to 5 meets both cubes: the root and
  // both children are tested (3), both leaves reported.
  Vec<D> origin{};
  Vec<D> translation{};
  for (int i = 0; i < D; ++i) {
    origin[i] = -1.0f;
    translation[i] = 6.0f;
  }
  const TreeStats ray =
      tree.RayCast({origin, translation, 1.0f},
                   [](std::uint32_t, const RayCastInput<D>&) { return -1.0f; });
  EXPECT_EQ(ray.node_visits, 3);
  EXPECT_EQ(ray.leaf_visits, 2);
  // The same ray clipped at the first cube (entered at 1/6, left at 2/6)
  // never reaches the second (entered at 4/6).
  const TreeStats clipped =
      tree.RayCast({origin, translation, 1.0f},
                   [](std::uint32_t, const RayCastInput<D>&) { return 0.3f; });
  EXPECT_EQ(clipped.leaf_visits, 1);
}

TYPED_TEST(DynamicTreeTest, ClearEmptiesAndReuses) {
  constexpr int D = TypeParam::value;
  auto tree = *DynamicTree<D>::Create();
  std::mt19937 rng(7);
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(tree.CreateProxy(RandomBox<D>(rng, 10.0f, 0.1f, 1.0f)).ok());
  }
  tree.Clear();
  EXPECT_EQ(tree.ProxyCount(), 0);
  EXPECT_EQ(tree.Height(), 0);
  EXPECT_TRUE(tree.Validate().ok());
  EXPECT_EQ(*tree.CreateProxy(Cube<D>(0.0f, 1.0f)), 0u);
  EXPECT_TRUE(tree.Validate().ok());
}

}  // namespace
}  // namespace sator::broadphase
