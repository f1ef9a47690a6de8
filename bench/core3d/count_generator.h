// The random stream of core3d_benchmark.cc's inputs, call for call, for the
// callgrind drivers (hull_sat_count.cc, box_box_count.cc) that rebuild its
// pairs outside Google Benchmark.
#ifndef SATOR_BENCH_CORE3D_COUNT_GENERATOR_H_
#define SATOR_BENCH_CORE3D_COUNT_GENERATOR_H_

#include <random>

#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator::bench {

struct CountGenerator {
  std::mt19937 rng{20261123};
  float U(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
  }
  Vec3 Unit() {
    std::normal_distribution<float> g(0.0f, 1.0f);
    for (;;) {
      const Vec3 v{g(rng), g(rng), g(rng)};
      if (Length(v) > 1e-3f) return NormalizeOrZero(v);
    }
  }
  Quat Rotation() {
    std::normal_distribution<float> g(0.0f, 1.0f);
    return Normalize(Quat{g(rng), g(rng), g(rng), g(rng)});
  }
};

}  // namespace sator::bench

#endif  // SATOR_BENCH_CORE3D_COUNT_GENERATOR_H_
