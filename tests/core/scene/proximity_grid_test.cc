// The proximity pass's uniform grid (an internal header) against a scan of
// every body: a query visits each body whose position lies within the
// query box widened by the body's reach, and no position twice. Bodies
// come in clusters far apart (the cell side must grow to bound the cell
// count) and at large coordinates, where rounding decides the cells.
#include "scene/proximity_grid.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/scene/scene_test_util.h"
#include "gtest/gtest.h"
#include "support/test_scale.h"

namespace sator::scene::internal {
namespace {

using testing_util::Rng;

template <typename T>
class ProximityGridTest : public ::testing::Test {};
template <int N>
struct DimTag {
  static constexpr int kDim = N;
};
using Dims = ::testing::Types<DimTag<2>, DimTag<3>>;
TYPED_TEST_SUITE(ProximityGridTest, Dims);

// A body near one of `centres`, at up to `spread` from it.
template <int D>
ProximityBody<D> RandomBody(Rng& rng, const std::vector<Vec<D>>& centres,
                            float spread) {
  const Vec<D>& centre = centres[static_cast<std::size_t>(
      rng.Int(0, static_cast<int>(centres.size()) - 1))];
  ProximityBody<D> body;
  for (int i = 0; i < D; ++i) {
    body.position[i] = centre[i] + rng.Uniform(-spread, spread);
  }
  body.reach = rng.Chance(0.1f) ? 0.0 : rng.Uniform(0.0f, 3.0f);
  body.round_reach = body.reach;
  return body;
}

TYPED_TEST(ProximityGridTest, QueriesVisitEveryBodyWithinReachOnce) {
  constexpr int D = TypeParam::kDim;
  const int rounds = sator::testing::ScaledCount(40);
  Rng rng(20261203);
  for (int round = 0; round < rounds; ++round) {
    // One to three clusters; far apart in a third of the rounds, and at
    // coordinates of 1e6 in a quarter.
    const float offset = rng.Chance(0.25f) ? 1e6f : 0.0f;
    const float apart = rng.Chance(0.3f) ? 1e5f : 40.0f;
    std::vector<Vec<D>> centres(static_cast<std::size_t>(rng.Int(1, 3)));
    for (Vec<D>& centre : centres) {
      for (int i = 0; i < D; ++i) {
        centre[i] = offset + rng.Uniform(-apart, apart);
      }
    }
    const float spread = rng.Uniform(1.0f, 60.0f);
    std::vector<ProximityBody<D>> bodies(
        static_cast<std::size_t>(rng.Int(1, 400)));
    for (ProximityBody<D>& body : bodies) {
      body = RandomBody<D>(rng, centres, spread);
    }
    ProximityGrid<D> grid;
    grid.Build(bodies, rng.Uniform(0.05f, 10.0f));

    for (int query = 0; query < 30; ++query) {
      std::array<double, D> lo{};
      std::array<double, D> hi{};
      const ProximityBody<D> at = RandomBody<D>(rng, centres, spread * 1.2f);
      for (int i = 0; i < D; ++i) {
        const double half = rng.Uniform(0.0f, 30.0f);
        lo[i] = at.position[i] - half;
        hi[i] = at.position[i] + half;
      }
      std::vector<int> visits(bodies.size(), 0);
      grid.ForEachRun(lo, hi, [&](std::uint32_t first, std::uint32_t last) {
        ASSERT_LT(first, last);
        ASSERT_LE(last, bodies.size());
        for (std::uint32_t k = first; k < last; ++k) {
          ++visits[grid.Body(k)];
          for (int i = 0; i < D; ++i) {
            ASSERT_EQ(grid.Coordinates(i)[k], bodies[grid.Body(k)].position[i]);
          }
          ASSERT_EQ(grid.RoundReaches()[k], bodies[grid.Body(k)].round_reach);
        }
      });
      for (std::size_t b = 0; b < bodies.size(); ++b) {
        ASSERT_LE(visits[b], 1) << "body " << b << " visited twice";
        bool within = true;
        for (int i = 0; i < D; ++i) {
          const double x = bodies[b].position[i];
          within = within && x >= lo[i] - bodies[b].reach &&
                   x <= hi[i] + bodies[b].reach;
        }
        if (within) {
          ASSERT_EQ(visits[b], 1) << "round " << round << " query " << query
                                  << ": body " << b << " within reach missed";
        }
      }
    }
  }
}

TYPED_TEST(ProximityGridTest, AnEmptyGridVisitsNothing) {
  constexpr int D = TypeParam::kDim;
  ProximityGrid<D> grid;
  grid.Build({}, 1.0);
  std::array<double, D> lo{};
  std::array<double, D> hi{};
  hi.fill(10.0);
  int runs = 0;
  grid.ForEachRun(lo, hi, [&](std::uint32_t, std::uint32_t) { ++runs; });
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace sator::scene::internal
