// Random boxes and brute-force answers for the broad-phase tests.
#ifndef SATOR_TESTS_CORE_BROADPHASE_BROADPHASE_TEST_UTIL_H_
#define SATOR_TESTS_CORE_BROADPHASE_BROADPHASE_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "sator/core/aabb.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/vec.h"

namespace sator::broadphase::testing {

template <int D>
using Dim = std::integral_constant<int, D>;

template <int D>
Vec<D> RandomVec(std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> u(lo, hi);
  Vec<D> v{};
  for (int i = 0; i < D; ++i) v[i] = u(rng);
  return v;
}

// A box in [0, world]^D with half extents in [min_half, max_half]; one in ten
// is degenerate (zero extent on one axis) to exercise closed intervals.
template <int D>
Aabb<D> RandomBox(std::mt19937& rng, float world, float min_half,
                  float max_half) {
  const Vec<D> center = RandomVec<D>(rng, 0.0f, world);
  Vec<D> half = RandomVec<D>(rng, min_half, max_half);
  if (std::uniform_int_distribution<int>(0, 9)(rng) == 0) {
    half[std::uniform_int_distribution<int>(0, D - 1)(rng)] = 0.0f;
  }
  return {center - half, center + half};
}

// Proxies whose box overlaps `query`, by scanning all of them.
template <int D>
std::vector<std::uint32_t> BruteOverlaps(
    const std::vector<std::pair<std::uint32_t, Aabb<D>>>& boxes,
    const Aabb<D>& query) {
  std::vector<std::uint32_t> out;
  for (const auto& [id, box] : boxes) {
    if (Overlaps(box, query)) out.push_back(id);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Proxies the segment (or moving box, with `grow` its half extents) meets,
// with their entry fractions, by scanning all of them.
template <int D>
std::vector<std::pair<std::uint32_t, float>> BruteCast(
    const std::vector<std::pair<std::uint32_t, Aabb<D>>>& boxes, Vec<D> origin,
    Vec<D> translation, Vec<D> grow, float max_fraction) {
  const Segment<D> segment(origin, translation);
  std::vector<std::pair<std::uint32_t, float>> out;
  for (const auto& [id, box] : boxes) {
    float entry = 0.0f;
    if (segment.Hits(box, grow, max_fraction, &entry)) {
      out.push_back({id, entry});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

template <int D>
float MinEntry(const std::vector<std::pair<std::uint32_t, float>>& hits) {
  float best = std::numeric_limits<float>::max();
  for (const auto& hit : hits) best = std::min(best, hit.second);
  return best;
}

}  // namespace sator::broadphase::testing

#endif  // SATOR_TESTS_CORE_BROADPHASE_BROADPHASE_TEST_UTIL_H_
