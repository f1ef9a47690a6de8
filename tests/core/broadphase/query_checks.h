// Checks every query of a broad-phase structure against brute force.
#ifndef SATOR_TESTS_CORE_BROADPHASE_QUERY_CHECKS_H_
#define SATOR_TESTS_CORE_BROADPHASE_QUERY_CHECKS_H_

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "broadphase_test_util.h"
#include "gtest/gtest.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/broadphase/tree_stats.h"

namespace sator::broadphase::testing {

struct QueryCheckOptions {
  int queries = 8;  // Of each kind.
  float world = 100.0f;
  std::int64_t max_node_visits = 0;  // Upper bound on node_visits per query.
};

// `boxes` is every live proxy with the box the structure should report it
// by (the fat box for DynamicTree, the given box for Bvh).
template <int D, typename Structure>
void CheckQueries(const Structure& structure,
                  const std::vector<std::pair<std::uint32_t, Aabb<D>>>& boxes,
                  std::mt19937& rng, const QueryCheckOptions& options) {
  const float world = options.world;
  for (int q = 0; q < options.queries; ++q) {
    // AABB overlap: every overlapping proxy exactly once.
    const Aabb<D> query = RandomBox<D>(rng, world, 0.0f, 0.15f * world);
    std::vector<std::uint32_t> found;
    const TreeStats stats = structure.Query(query, [&](std::uint32_t id) {
      found.push_back(id);
      return true;
    });
    std::sort(found.begin(), found.end());
    const std::vector<std::uint32_t> expected = BruteOverlaps<D>(boxes, query);
    ASSERT_EQ(found, expected) << "AABB query " << q;
    EXPECT_EQ(stats.leaf_visits, static_cast<std::int64_t>(expected.size()));
    EXPECT_GE(stats.node_visits, stats.leaf_visits);
    EXPECT_LE(stats.node_visits, options.max_node_visits);

    // Early exit: stopping at the first proxy visits one.
    int calls = 0;
    const TreeStats stopped = structure.Query(query, [&](std::uint32_t) {
      ++calls;
      return false;
    });
    EXPECT_EQ(calls, expected.empty() ? 0 : 1);
    EXPECT_EQ(stopped.leaf_visits, calls);

    // Casts: a ray (grow = 0) and a moving box.
    for (int kind = 0; kind < 2; ++kind) {
      const Vec<D> origin = RandomVec<D>(rng, -0.1f * world, 1.1f * world);
      Vec<D> translation = RandomVec<D>(rng, -0.6f * world, 0.6f * world);
      // Axis-parallel rays in one case out of four.
      if (q % 4 == 1) translation[q % D] = 0.0f;
      const float max_fraction =
          std::uniform_real_distribution<float>(0.2f, 1.0f)(rng);
      const Aabb<D> moving = RandomBox<D>(rng, 0.0f, 0.0f, 0.05f * world);
      const Aabb<D> cast_box{origin + moving.min, origin + moving.max};
      const Vec<D> grow = kind == 0 ? Vec<D>{} : HalfExtents(cast_box);
      const Vec<D> cast_origin = kind == 0 ? origin : Center(cast_box);
      const auto expected_hits =
          BruteCast<D>(boxes, cast_origin, translation, grow, max_fraction);
      const Segment<D> segment(cast_origin, translation);

      // All hits (the visitor ignores every proxy): exactly the brute set.
      std::vector<std::pair<std::uint32_t, float>> all;
      auto collect = [&](std::uint32_t id, const auto& clipped) -> float {
        EXPECT_EQ(clipped.max_fraction, max_fraction);
        float entry = 0.0f;
        for (const auto& [bid, box] : boxes) {
          if (bid == id) {
            EXPECT_TRUE(segment.Hits(box, grow, max_fraction, &entry));
          }
        }
        all.push_back({id, entry});
        return -1.0f;
      };
      // Closest hit: the visitor clips to each proxy's entry fraction.
      float best = max_fraction;
      bool any = false;
      std::vector<std::uint32_t> closest_visits;
      auto closest = [&](std::uint32_t id, const auto& clipped) -> float {
        closest_visits.push_back(id);
        float entry = 0.0f;
        for (const auto& [bid, box] : boxes) {
          if (bid == id) {
            // Only proxies still reachable within the clipped fraction.
            EXPECT_TRUE(segment.Hits(box, grow, clipped.max_fraction, &entry));
          }
        }
        any = true;
        best = std::min(best, entry);
        // A hit at 0 would stop the cast; that is the nearest possible.
        return entry;
      };
      TreeStats all_stats;
      TreeStats closest_stats;
      if (kind == 0) {
        const RayCastInput<D> input{origin, translation, max_fraction};
        all_stats = structure.RayCast(input, collect);
        closest_stats = structure.RayCast(input, closest);
      } else {
        const BoxCastInput<D> input{cast_box, translation, max_fraction};
        all_stats = structure.BoxCast(input, collect);
        closest_stats = structure.BoxCast(input, closest);
      }
      std::sort(all.begin(), all.end());
      ASSERT_EQ(all, expected_hits) << "cast kind " << kind << " query " << q;
      EXPECT_EQ(all_stats.leaf_visits,
                static_cast<std::int64_t>(expected_hits.size()));
      EXPECT_LE(all_stats.node_visits, options.max_node_visits);
      EXPECT_EQ(any, !expected_hits.empty());
      if (!expected_hits.empty()) {
        EXPECT_EQ(best, MinEntry<D>(expected_hits));
      }
      EXPECT_LE(closest_stats.leaf_visits, all_stats.leaf_visits);
      EXPECT_LE(closest_stats.node_visits, all_stats.node_visits);
    }
  }
}

}  // namespace sator::broadphase::testing

#endif  // SATOR_TESTS_CORE_BROADPHASE_QUERY_CHECKS_H_
