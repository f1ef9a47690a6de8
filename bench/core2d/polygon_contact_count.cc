// Instruction counts for the 8-gon MTV under valgrind (immune to the
// machine's load): rebuilds core2d_benchmark's PolygonPolygonContact pairs
// (the same generator, seed and draws: 1024 pairs of jittered 8-gons, 576 of
// them overlapping) and calls ContactPolygons on them `reps` times, relative
// poses formed outside the loop, so that every pair counts equally. MODE
// picks the pairs: all (default), over (overlapping only) or apart.
//
//   polygon_contact_count REPS [all|over|apart]
//
// Instructions per call = ContactPolygons' inclusive count over its calls:
//   valgrind --tool=callgrind --callgrind-out-file=pc.out \
//       build/bin/polygon_contact_count 8
//   callgrind_annotate --inclusive=yes pc.out | grep ContactPolygons
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>
#include <random>
#include <vector>

#include "bench_random2d.h"
#include "sator/core/geometry2d/queries2d.h"
#include "sator/core/geometry2d/shapes2d.h"

namespace {

using sator::ConvexPolygon;
using sator::Pose2;
using sator::Vec2;
using sator::bench::OctagonPoints;
using sator::bench::Rng;

struct Pair {
  ConvexPolygon a;
  ConvexPolygon b;
  Pose2 b_in_a;
  bool overlapping;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr,
                 "usage: polygon_contact_count REPS [all|over|apart]\n");
    return 2;
  }
  const int reps = std::atoi(argv[1]);
  const char* mode = argc == 3 ? argv[2] : "all";
  Rng rng;
  std::vector<Pair> pairs;
  constexpr float kSpread = 2.2f;  // PolygonPairs().
  for (int i = 0; i < 1024; ++i) {
    // MakePairs(Kind::kPolygonPolygon, ...), in its order of draws.
    const auto [pa, pb] = sator::bench::DrawPoses(rng, kSpread);
    const std::vector<Vec2> va = OctagonPoints(rng, rng.Uniform(0.3f, 1.0f));
    const std::vector<Vec2> vb = OctagonPoints(rng, rng.Uniform(0.3f, 1.0f));
    for (int k = 0; k < 4; ++k)
      rng.Uniform(-1.5f, 1.5f);  // The sweeps' da, db.
    Pair p{*sator::MakeConvexPolygon(va), *sator::MakeConvexPolygon(vb),
           sator::MulT(pa, pb), false};
    p.overlapping = sator::ContactPolygons(p.a, p.b, p.b_in_a).overlapping;
    const bool keep = std::strcmp(mode, "all") == 0 ||
                      (std::strcmp(mode, "over") == 0) == p.overlapping;
    if (keep) pairs.push_back(p);
  }
  double sum = 0.0;
  for (int r = 0; r < reps; ++r) {
    for (const Pair& p : pairs) {
      const auto c = sator::ContactPolygons(p.a, p.b, p.b_in_a);
      sum +=
          c.depth + c.point_count + c.points[0].x + c.points[1].y + c.normal.x;
    }
  }
  std::printf("%zu pairs, checksum %.9g\n", pairs.size(), sum);
  return 0;
}
