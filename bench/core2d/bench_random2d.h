// The random stream of core2d_benchmark.cc's inputs, draw for draw, shared
// with the callgrind drivers (polygon_contact_count.cc, box_sweep2d_count.cc)
// that rebuild its pairs outside Google Benchmark.
#ifndef SATOR_BENCH_CORE2D_BENCH_RANDOM2D_H_
#define SATOR_BENCH_CORE2D_BENCH_RANDOM2D_H_

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "sator/core/pose.h"
#include "sator/core/vec.h"

namespace sator::bench {

struct Rng {
  std::mt19937 engine{12345u};
  float Uniform(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(engine);
  }
};

// A regular-ish 8-gon of circumradius r (jittered angles).
inline std::vector<Vec2> OctagonPoints(Rng& rng, float r) {
  std::vector<Vec2> pts;
  const float step = 2.0f * std::numbers::pi_v<float> / 8.0f;
  for (int i = 0; i < 8; ++i) {
    const float a = step * (static_cast<float>(i) + rng.Uniform(-0.2f, 0.2f));
    pts.push_back({r * std::cos(a), r * std::sin(a)});
  }
  return pts;
}

// A pair's poses: A near the origin, B at a random direction and distance up
// to `spread` from A, both at random angles (in this order of draws).
struct PosePair {
  Pose2 a;
  Pose2 b;
};
inline PosePair DrawPoses(Rng& rng, float spread) {
  PosePair poses;
  poses.a = Pose2::FromAngle({rng.Uniform(-1, 1), rng.Uniform(-1, 1)},
                             rng.Uniform(-3.14f, 3.14f));
  const float angle = rng.Uniform(0.0f, 6.2831f);
  const float dist = rng.Uniform(0.0f, spread);
  poses.b = Pose2::FromAngle(
      poses.a.position + Vec2{dist * std::cos(angle), dist * std::sin(angle)},
      rng.Uniform(-3.14f, 3.14f));
  return poses;
}

}  // namespace sator::bench

#endif  // SATOR_BENCH_CORE2D_BENCH_RANDOM2D_H_
