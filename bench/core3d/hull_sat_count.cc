// Instruction counts for the hull-hull MTV under valgrind (immune to the
// machine's load): builds 16-point hull pairs like core3d_benchmark's
// HullHullMtv case (64 hulls on ellipsoids, 512 overlapping and 512
// separated pairs) and calls ContactHullHull on one half `reps` times.
//
//   hull_sat_count REPS MODE   (MODE 1: overlapping pairs, 2: separated)
//
// Instructions per call = (count at REPS=11 - count at REPS=1) / 5120, so
// that the set-up cancels:
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//       build/bin/hull_sat_count 11 1
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "collide3d/typed3d.h"
#include "count_generator.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/overlap3d.h"

namespace {

using sator::ConvexHull;
using sator::Pose3;
using sator::Quat;
using sator::Vec3;

using Generator = sator::bench::CountGenerator;

struct Pair {
  int a;
  int b;
  Pose3 b_in_a;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: hull_sat_count REPS MODE(1|2)\n");
    return 2;
  }
  const int reps = std::atoi(argv[1]);
  const bool want_overlap = std::atoi(argv[2]) == 1;
  Generator gen;
  std::vector<std::shared_ptr<const ConvexHull>> hulls;
  while (hulls.size() < 64) {
    const Vec3 r{gen.U(0.4f, 1.0f), gen.U(0.4f, 1.0f), gen.U(0.4f, 1.0f)};
    std::vector<Vec3> points;
    for (int i = 0; i < 16; ++i) {
      const Vec3 d = gen.Unit();
      points.push_back({r.x * d.x, r.y * d.y, r.z * d.z});
    }
    auto hull = sator::MakeConvexHull(points);
    if (hull.ok()) hulls.push_back(*hull);
  }
  std::vector<Pair> pairs;
  while (pairs.size() < 512) {
    const int a = static_cast<int>(gen.rng() % hulls.size());
    const int b = static_cast<int>(gen.rng() % hulls.size());
    const Pose3 pa{{gen.U(-10, 10), gen.U(-10, 10), gen.U(-10, 10)},
                   gen.Rotation()};
    const Pose3 pb{pa.position + gen.U(0.0f, 2.0f) * gen.Unit(),
                   gen.Rotation()};
    const Pose3 b_in_a = sator::MulT(pa, pb);
    if (sator::OverlapHullHull(*hulls[a], *hulls[b], b_in_a) == want_overlap) {
      pairs.push_back({a, b, b_in_a});
    }
  }
  double sum = 0.0;
  for (int r = 0; r < reps; ++r) {
    for (const Pair& p : pairs) {
      const auto c = sator::ContactHullHull(*hulls[p.a], *hulls[p.b], p.b_in_a);
      sum += c.depth + c.point_count;
    }
  }
  std::printf("%zu pairs, checksum %.6f\n", pairs.size(), sum);
  return 0;
}
