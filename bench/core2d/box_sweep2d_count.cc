// Instruction counts for the 2D box-box sweep under valgrind (immune to the
// machine's load): rebuilds core2d_benchmark.cc's box pairs (the same
// generator, seed and draws as MakePairs(Kind::kBoxBox, 2.4f)), forms each
// pair's relative pose and motion outside the loop (as SweepBoxesSator does
// inside its timed call), and calls SweepBoxBox on every pair `reps` times,
// so that every pair counts equally.
//
//   box_sweep2d_count REPS [mixed|overlap|apart|contact|generic] [PAIRS]
//   [DUMP_FILE]
//
// mixed: the first PAIRS pairs as generated (BoxBoxSweep's inputs for PAIRS
// = 1024); overlap / apart: the first PAIRS of those that start overlapping
// (OverlapBoxBox) / apart (BoxBoxSweepApart's inputs); contact: the mixed
// pairs through ContactBoxBox instead (its result in `initial`, outcome
// kMiss), which shares the sweep's start-overlapping contact; generic: the
// mixed pairs through the generic Sweep with world poses (count `Sweep`).
// DUMP_FILE, if given, receives every result's fields as raw 32-bit words (one
// pass), to compare two builds bit for bit (cmp).
//
// Instructions per call = SweepBoxBox's inclusive count over its calls:
//   valgrind --tool=callgrind --callgrind-out-file=bs.out \
//       build/bin/box_sweep2d_count 8 mixed
//   callgrind_annotate --inclusive=yes bs.out | grep SweepBoxBox
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_random2d.h"
#include "sator/core/geometry2d/queries2d.h"
#include "sator/core/geometry2d/shapes2d.h"

namespace {

using sator::Box2;
using sator::Pose2;
using sator::SweepResult;
using sator::Vec2;
using sator::bench::Rng;

struct Pair {
  Box2 a;
  Box2 b;
  Pose2 b_in_a;
  Vec2 motion;
  // The world-frame inputs, for the generic Sweep.
  sator::Shape2 sa;
  sator::Shape2 sb;
  Pose2 pa;
  Pose2 pb;
  Vec2 da;
  Vec2 db;
};

// core2d_benchmark.cc's MakePairs(Kind::kBoxBox, 2.4f), draw for draw.

Pair NextPair(Rng& rng) {
  const float spread = 2.4f;
  const auto [pa, pb] = sator::bench::DrawPoses(rng, spread);
  Pair p;
  p.a.half_extents = {rng.Uniform(0.25f, 1.0f), rng.Uniform(0.25f, 1.0f)};
  p.b.half_extents = {rng.Uniform(0.25f, 1.0f), rng.Uniform(0.25f, 1.0f)};
  const Vec2 da{rng.Uniform(-0.5f, 0.5f), rng.Uniform(-0.5f, 0.5f)};
  const Vec2 to_a = pa.position - pb.position;
  const Vec2 db =
      Vec2{rng.Uniform(-1.5f, 1.5f), rng.Uniform(-1.5f, 1.5f)} + 1.2f * to_a;
  p.b_in_a = sator::MulT(pa, pb);
  p.motion = sator::InvRotate(pa.rotation, db - da);
  p.sa = p.a;
  p.sb = p.b;
  p.pa = pa;
  p.pb = pb;
  p.da = da;
  p.db = db;
  return p;
}

void Put(std::vector<std::uint32_t>& out, float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  out.push_back(u);
}

void Dump(std::vector<std::uint32_t>& out, const SweepResult<2>& r) {
  out.push_back(static_cast<std::uint32_t>(r.outcome));
  Put(out, r.fraction);
  Put(out, r.normal.x);
  Put(out, r.normal.y);
  Put(out, r.point.x);
  Put(out, r.point.y);
  out.push_back(r.initial.overlapping ? 1u : 0u);
  Put(out, r.initial.normal.x);
  Put(out, r.initial.normal.y);
  Put(out, r.initial.depth);
  out.push_back(static_cast<std::uint32_t>(r.initial.point_count));
  for (const Vec2& q : r.initial.points) {
    Put(out, q.x);
    Put(out, q.y);
  }
}

SweepResult<2> Query(const Pair& p, bool contact, bool generic) {
  if (generic) {
    return sator::Sweep(p.sa, p.pa, p.da, p.sb, p.pb, p.db);
  }
  if (contact) {
    SweepResult<2> r;
    r.initial = sator::ContactBoxBox(p.a, p.b, p.b_in_a);
    return r;
  }
  return sator::SweepBoxBox(p.a, p.b, p.b_in_a, p.motion);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 5) {
    std::fprintf(
        stderr,
        "usage: box_sweep2d_count REPS [mixed|overlap|apart|contact|generic] "
        "[PAIRS] "
        "[DUMP_FILE]\n");
    return 2;
  }
  const int reps = std::atoi(argv[1]);
  const std::string set = argc > 2 ? argv[2] : "mixed";
  const std::size_t count =
      argc > 3 ? static_cast<std::size_t>(std::atol(argv[3])) : 1024;
  if (set != "mixed" && set != "overlap" && set != "apart" &&
      set != "contact" && set != "generic") {
    std::fprintf(stderr, "unknown set %s\n", set.c_str());
    return 2;
  }
  const bool generic = set == "generic";
  Rng rng;
  std::vector<Pair> pairs;
  while (pairs.size() < count) {
    const Pair p = NextPair(rng);
    const bool overlap = sator::OverlapBoxBox(p.a, p.b, p.b_in_a);
    if (set == "mixed" || set == "contact" || generic ||
        (set == "overlap") == overlap) {
      pairs.push_back(p);
    }
  }
  const bool contact = set == "contact";
  int outcomes[3] = {0, 0, 0};
  double sum = 0.0;
  for (int r = 0; r < reps; ++r) {
    for (const Pair& p : pairs) {
      const SweepResult<2> s = Query(p, contact, generic);
      ++outcomes[static_cast<int>(s.outcome)];
      sum += s.fraction + s.point.x + s.initial.depth;
    }
  }
  std::printf(
      "%zu pairs, %d reps: miss %d, hit %d, started %d; checksum %.6f\n",
      pairs.size(), reps, outcomes[0], outcomes[1], outcomes[2], sum);
  if (argc > 4) {
    std::vector<std::uint32_t> out;
    for (const Pair& p : pairs) {
      Dump(out, Query(p, contact, generic));
    }
    std::FILE* f = std::fopen(argv[4], "wb");
    if (f == nullptr ||
        std::fwrite(out.data(), sizeof(out[0]), out.size(), f) != out.size()) {
      std::fprintf(stderr, "cannot write %s\n", argv[4]);
      return 1;
    }
    std::fclose(f);
  }
  return 0;
}
