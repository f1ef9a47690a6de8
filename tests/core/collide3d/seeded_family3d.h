// Seeded random draws for the ill-conditioned families of the 3D precision
// tests (round_contact_test, sliver_triangle_test): uniform and log-uniform
// numbers, unit vectors and orthonormal frames, all in float as the shapes
// are.
#ifndef SATOR_TESTS_CORE_COLLIDE3D_SEEDED_FAMILY3D_H_
#define SATOR_TESTS_CORE_COLLIDE3D_SEEDED_FAMILY3D_H_

#include <cmath>
#include <random>

#include "sator/core/vec.h"

namespace sator::test3d {

class Family {
 public:
  explicit Family(unsigned seed) : rng_(seed) {}
  float U(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng_);
  }
  // 10^x for x uniform in [lo_exp, hi_exp].
  float LogU(float lo_exp, float hi_exp) {
    return std::pow(10.0f, U(lo_exp, hi_exp));
  }
  Vec3 Unit() {
    std::normal_distribution<float> g(0.0f, 1.0f);
    for (;;) {
      const Vec3 v{g(rng_), g(rng_), g(rng_)};
      const float len = Length(v);
      if (len > 1e-3f) return (1.0f / len) * v;
    }
  }
  // Unit u, and v, w completing an orthonormal frame.
  void Frame(Vec3* u, Vec3* v, Vec3* w) {
    *u = Unit();
    *v = NormalizeOrZero(Cross(*u, Unit()));
    *w = Cross(*u, *v);
  }

 private:
  std::mt19937 rng_;
};

}  // namespace sator::test3d

#endif  // SATOR_TESTS_CORE_COLLIDE3D_SEEDED_FAMILY3D_H_
