// Instruction counts for the box-box MTV under valgrind (immune to the
// machine's load): builds core3d_benchmark's BoxBoxMtv pairs (the same
// generator and seed: 512 overlapping and 512 separated pairs) and calls
// ContactBoxBox on all 1024 `reps` times, relative poses formed outside the
// loop, so that every pair counts equally (the benchmark stops part way
// through its cycle of pairs).
//
//   box_box_count REPS
//
// Instructions per call = ContactBoxBox's inclusive count over its calls:
//   valgrind --tool=callgrind --callgrind-out-file=bb.out \
//       build/bin/box_box_count 8
//   callgrind_annotate --tree=caller --inclusive=yes bb.out | grep main
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "collide3d/typed3d.h"
#include "count_generator.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/overlap3d.h"

namespace {

using sator::Box3;
using sator::Pose3;
using sator::Quat;
using sator::Vec3;

using Generator = sator::bench::CountGenerator;

struct Pair {
  Box3 a;
  Box3 b;
  Pose3 b_in_a;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: box_box_count REPS\n");
    return 2;
  }
  const int reps = std::atoi(argv[1]);
  Generator gen;
  std::vector<Pair> pairs;
  int over = 0;
  int apart = 0;
  while (pairs.size() < 1024) {
    Box3 a;
    Box3 b;
    a.half_extents = {gen.U(0.2f, 1.0f), gen.U(0.2f, 1.0f), gen.U(0.2f, 1.0f)};
    b.half_extents = {gen.U(0.2f, 1.0f), gen.U(0.2f, 1.0f), gen.U(0.2f, 1.0f)};
    const Pose3 pa{{gen.U(-10, 10), gen.U(-10, 10), gen.U(-10, 10)},
                   gen.Rotation()};
    const Pose3 pb{pa.position + gen.U(0.0f, 2.5f) * gen.Unit(),
                   gen.Rotation()};
    const bool hit = sator::Overlap(a, pa, b, pb);
    if (hit ? over++ < 512 : apart++ < 512) {
      pairs.push_back({a, b, sator::MulT(pa, pb)});
    }
  }
  double sum = 0.0;
  for (int r = 0; r < reps; ++r) {
    for (const Pair& p : pairs) {
      const auto c = sator::ContactBoxBox(p.a, p.b, p.b_in_a);
      sum += c.depth + c.point_count + c.points[0].x;
    }
  }
  std::printf("%zu pairs, checksum %.6f\n", pairs.size(), sum);
  return 0;
}
