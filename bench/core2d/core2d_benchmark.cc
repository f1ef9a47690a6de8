// The 2D core against Box2D 2.4.1 on identical pregenerated inputs (1024
// pairs per case, about half of them overlapping or hitting; the fraction is
// reported as a counter). Each comparative benchmark is named
// <case>/<library>; both sides get world poses and run through their public
// entry points. A contact is answered in A's frame on both sides (Box2D's
// b2Manifold is local to its shapes; sator's ContactLocal after MulT);
// <case>World/sator adds the mapping of the result to the world frame
// (Contact).
//
//   core2d_benchmark --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
#include <box2d/b2_time_of_impact.h>
#include <box2d/box2d.h>

#include <cmath>
#include <cstdlib>
#include <numbers>
#include <random>
#include <vector>

#include "bench_random2d.h"
#include "benchmark/benchmark.h"
#include "sator/core/collide2d/queries2d.h"
#include "sator/core/collide2d/shapes2d.h"

namespace sator {
namespace {

using bench::OctagonPoints;
using bench::Rng;

constexpr int kPairs = 1024;

b2Transform ToB2(const Pose2& p) {
  b2Transform xf;
  xf.p.Set(p.position.x, p.position.y);
  xf.q.c = p.rotation.c;
  xf.q.s = p.rotation.s;
  return xf;
}

// One pair of inputs, in both libraries' forms.
struct PairInput {
  Shape2 a;
  Shape2 b;
  Pose2 pa;
  Pose2 pb;
  Vec2 da{};
  Vec2 db{};
  b2PolygonShape b2a;
  b2PolygonShape b2b;
  b2CircleShape b2circle;
  b2Transform xfa;
  b2Transform xfb;
  // The bodies' angles, as a Box2D body keeps them (b2Body::m_sweep) for
  // b2TimeOfImpact; from the rotations, so the same poses.
  float angle_a = 0.0f;
  float angle_b = 0.0f;
};

enum class Kind { kBoxBox, kPolygonPolygon, kPolygonCircle };

// `spread` sets the distance range so that about half the pairs overlap.
std::vector<PairInput> MakePairs(Kind kind, float spread, int count = kPairs) {
  Rng rng;
  std::vector<PairInput> pairs(static_cast<size_t>(count));
  for (PairInput& p : pairs) {
    const bench::PosePair poses = bench::DrawPoses(rng, spread);
    p.pa = poses.a;
    p.pb = poses.b;
    p.xfa = ToB2(p.pa);
    p.xfb = ToB2(p.pb);
    p.angle_a = p.pa.rotation.Angle();
    p.angle_b = p.pb.rotation.Angle();
    switch (kind) {
      case Kind::kBoxBox: {
        const Vec2 ha{rng.Uniform(0.25f, 1.0f), rng.Uniform(0.25f, 1.0f)};
        const Vec2 hb{rng.Uniform(0.25f, 1.0f), rng.Uniform(0.25f, 1.0f)};
        p.a = Box2{ha};
        p.b = Box2{hb};
        p.b2a.SetAsBox(ha.x, ha.y);
        p.b2b.SetAsBox(hb.x, hb.y);
        break;
      }
      case Kind::kPolygonPolygon: {
        const std::vector<Vec2> pa =
            OctagonPoints(rng, rng.Uniform(0.3f, 1.0f));
        const std::vector<Vec2> pb =
            OctagonPoints(rng, rng.Uniform(0.3f, 1.0f));
        p.a = *MakeConvexPolygon(pa);
        p.b = *MakeConvexPolygon(pb);
        b2Vec2 va[8];
        b2Vec2 vb[8];
        for (int i = 0; i < 8; ++i) {
          va[i].Set(pa[static_cast<size_t>(i)].x, pa[static_cast<size_t>(i)].y);
          vb[i].Set(pb[static_cast<size_t>(i)].x, pb[static_cast<size_t>(i)].y);
        }
        p.b2a.Set(va, 8);
        p.b2b.Set(vb, 8);
        break;
      }
      case Kind::kPolygonCircle: {
        const std::vector<Vec2> pa =
            OctagonPoints(rng, rng.Uniform(0.3f, 1.0f));
        p.a = *MakeConvexPolygon(pa);
        b2Vec2 va[8];
        for (int i = 0; i < 8; ++i) {
          va[i].Set(pa[static_cast<size_t>(i)].x, pa[static_cast<size_t>(i)].y);
        }
        p.b2a.Set(va, 8);
        const float r = rng.Uniform(0.2f, 0.8f);
        p.b = Circle{r};
        p.b2circle.m_radius = r;
        p.b2circle.m_p.SetZero();
        break;
      }
    }
    // Sweeps: B heads roughly towards A's centre, A drifts.
    p.da = {rng.Uniform(-0.5f, 0.5f), rng.Uniform(-0.5f, 0.5f)};
    const Vec2 to_a = p.pa.position - p.pb.position;
    p.db =
        Vec2{rng.Uniform(-1.5f, 1.5f), rng.Uniform(-1.5f, 1.5f)} + 1.2f * to_a;
  }
  return pairs;
}

const std::vector<PairInput>& BoxPairs() {
  static const std::vector<PairInput> pairs = MakePairs(Kind::kBoxBox, 2.4f);
  return pairs;
}
// Box pairs that start apart (the sweep then has a time of impact to find,
// or none): the same generator, keeping only the pairs whose boxes do not
// overlap at t = 0. BoxPairs() start overlapping in about 60% of pairs, where
// b2TimeOfImpact stops after one distance call and sator computes the MTV.
const std::vector<PairInput>& ApartBoxPairs() {
  static const std::vector<PairInput> pairs = [] {
    std::vector<PairInput> apart;
    for (const PairInput& p : MakePairs(Kind::kBoxBox, 2.4f, 8 * kPairs)) {
      if (!Overlap(p.a, p.pa, p.b, p.pb) &&
          apart.size() < static_cast<size_t>(kPairs)) {
        apart.push_back(p);
      }
    }
    if (apart.empty()) std::abort();  // The generator no longer fits.
    while (apart.size() < static_cast<size_t>(kPairs)) {
      apart.push_back(apart[0]);
    }
    return apart;
  }();
  return pairs;
}
const std::vector<PairInput>& PolygonPairs() {
  static const std::vector<PairInput> pairs =
      MakePairs(Kind::kPolygonPolygon, 2.2f);
  return pairs;
}
const std::vector<PairInput>& CirclePairs() {
  static const std::vector<PairInput> pairs =
      MakePairs(Kind::kPolygonCircle, 1.9f);
  return pairs;
}

// The polygon pairs that the early-out discs of OverlapPolygons do not
// decide (their centroid gap lies between the sum of the inscribed radii and
// the sum of the bounding radii), so the SAT runs on every one: the worst
// case of the overlap test, with the same mix of shapes and poses.
const std::vector<PairInput>& NearPolygonPairs() {
  static const std::vector<PairInput> pairs = [] {
    std::vector<PairInput> near;
    for (const PairInput& p :
         MakePairs(Kind::kPolygonPolygon, 2.2f, 8 * kPairs)) {
      const ConvexPolygon& a = std::get<ConvexPolygon>(p.a);
      const ConvexPolygon& b = std::get<ConvexPolygon>(p.b);
      const Pose2 b_in_a = MulT(p.pa, p.pb);
      const float gap = Length(Transform(b_in_a, b.centroid()) - a.centroid());
      if (gap > a.inner_radius() + b.inner_radius() &&
          gap <= a.bounding_radius() + b.bounding_radius() &&
          near.size() < static_cast<size_t>(kPairs)) {
        near.push_back(p);
      }
    }
    while (near.size() < static_cast<size_t>(kPairs)) near.push_back(near[0]);
    return near;
  }();
  return pairs;
}

template <typename F>
void Run(benchmark::State& state, const std::vector<PairInput>& pairs, F f) {
  size_t i = 0;
  int positive = 0;
  int64_t count = 0;
  for (auto _ : state) {
    const bool r = f(pairs[i]);
    benchmark::DoNotOptimize(r);
    positive += r ? 1 : 0;
    ++count;
    i = (i + 1) & (kPairs - 1);
  }
  state.counters["positive_fraction"] =
      count > 0 ? static_cast<double>(positive) / static_cast<double>(count)
                : 0.0;
}

// ---- Overlap ----------------------------------------------------------------
bool OverlapSator(const PairInput& p) { return Overlap(p.a, p.pa, p.b, p.pb); }
void BoxBoxOverlapSator(benchmark::State& s) {
  Run(s, BoxPairs(), OverlapSator);
}
void BoxBoxOverlapBox2d(benchmark::State& s) {
  Run(s, BoxPairs(), [](const PairInput& p) {
    return b2TestOverlap(&p.b2a, 0, &p.b2b, 0, p.xfa, p.xfb);
  });
}
void PolygonPolygonOverlapSator(benchmark::State& s) {
  Run(s, PolygonPairs(), OverlapSator);
}
void PolygonPolygonOverlapNearSator(benchmark::State& s) {
  Run(s, NearPolygonPairs(), OverlapSator);
}
void PolygonPolygonOverlapNearBox2d(benchmark::State& s) {
  Run(s, NearPolygonPairs(), [](const PairInput& p) {
    return b2TestOverlap(&p.b2a, 0, &p.b2b, 0, p.xfa, p.xfb);
  });
}
void PolygonPolygonOverlapBox2d(benchmark::State& s) {
  Run(s, PolygonPairs(), [](const PairInput& p) {
    return b2TestOverlap(&p.b2a, 0, &p.b2b, 0, p.xfa, p.xfb);
  });
}

// ---- MTV with contact points ----------------------------------------------
bool ContactSator(const PairInput& p) {
  const ContactResult<2> c = ContactLocal(p.a, p.b, MulT(p.pa, p.pb));
  benchmark::DoNotOptimize(c);
  return c.overlapping;
}
bool ContactWorldSator(const PairInput& p) {
  const ContactResult<2> c = Contact(p.a, p.pa, p.b, p.pb);
  benchmark::DoNotOptimize(c);
  return c.overlapping;
}
void BoxBoxContactSator(benchmark::State& s) {
  Run(s, BoxPairs(), ContactSator);
}
void BoxBoxContactWorldSator(benchmark::State& s) {
  Run(s, BoxPairs(), ContactWorldSator);
}
void BoxBoxContactBox2d(benchmark::State& s) {
  Run(s, BoxPairs(), [](const PairInput& p) {
    b2Manifold m;
    b2CollidePolygons(&m, &p.b2a, p.xfa, &p.b2b, p.xfb);
    benchmark::DoNotOptimize(m);
    return m.pointCount > 0;
  });
}
void PolygonPolygonContactSator(benchmark::State& s) {
  Run(s, PolygonPairs(), ContactSator);
}
void PolygonPolygonContactWorldSator(benchmark::State& s) {
  Run(s, PolygonPairs(), ContactWorldSator);
}
void PolygonPolygonContactBox2d(benchmark::State& s) {
  Run(s, PolygonPairs(), [](const PairInput& p) {
    b2Manifold m;
    b2CollidePolygons(&m, &p.b2a, p.xfa, &p.b2b, p.xfb);
    benchmark::DoNotOptimize(m);
    return m.pointCount > 0;
  });
}
void PolygonCircleContactSator(benchmark::State& s) {
  Run(s, CirclePairs(), ContactSator);
}
void PolygonCircleContactWorldSator(benchmark::State& s) {
  Run(s, CirclePairs(), ContactWorldSator);
}
void PolygonCircleContactBox2d(benchmark::State& s) {
  Run(s, CirclePairs(), [](const PairInput& p) {
    b2Manifold m;
    b2CollidePolygonAndCircle(&m, &p.b2a, p.xfa, &p.b2circle, p.xfb);
    benchmark::DoNotOptimize(m);
    return m.pointCount > 0;
  });
}

// ---- Ray cast against an 8-gon --------------------------------------------
// Rays from B's position towards A's polygon (half aimed off to the side).
Ray<2> MakeRay(const PairInput& p, int i) {
  const Vec2 target = p.pa.position + (i % 2 == 0 ? Vec2{} : Vec2{1.5f, 1.5f});
  const Vec2 from = p.pb.position + Vec2{3.0f, 0.5f};
  return {from, NormalizeOrZero(target - from), 6.0f};
}
void PolygonRayCastSator(benchmark::State& s) {
  const std::vector<PairInput>& pairs = PolygonPairs();
  std::vector<Ray<2>> rays;
  for (int i = 0; i < kPairs; ++i) {
    rays.push_back(MakeRay(pairs[static_cast<size_t>(i)], i));
  }
  size_t i = 0;
  for (auto _ : s) {
    const RayResult<2> r = RayCast(pairs[i].a, pairs[i].pa, rays[i]);
    benchmark::DoNotOptimize(r);
    i = (i + 1) & (kPairs - 1);
  }
}
void PolygonRayCastBox2d(benchmark::State& s) {
  const std::vector<PairInput>& pairs = PolygonPairs();
  std::vector<b2RayCastInput> rays;
  for (int i = 0; i < kPairs; ++i) {
    const Ray<2> r = MakeRay(pairs[static_cast<size_t>(i)], i);
    b2RayCastInput in;
    in.p1.Set(r.origin.x, r.origin.y);
    in.p2.Set(r.origin.x + r.max_distance * r.direction.x,
              r.origin.y + r.max_distance * r.direction.y);
    in.maxFraction = 1.0f;
    rays.push_back(in);
  }
  size_t i = 0;
  for (auto _ : s) {
    b2RayCastOutput out;
    const bool hit = pairs[i].b2a.RayCast(&out, rays[i], pairs[i].xfa, 0);
    benchmark::DoNotOptimize(hit);
    benchmark::DoNotOptimize(out);
    i = (i + 1) & (kPairs - 1);
  }
}

// ---- Sweep of two boxes -----------------------------------------------------
bool SweepSator(const PairInput& p) {
  const SweepResult<2> r = Sweep(p.a, p.pa, p.da, p.b, p.pb, p.db);
  benchmark::DoNotOptimize(r);
  return r.outcome == SweepOutcome::kHit;
}
void BoxBoxSweepSator(benchmark::State& s) { Run(s, BoxPairs(), SweepSator); }
// The sweep as Box2D runs it: its inputs (proxies, sweeps from the bodies'
// centres and angles) formed inside the timed call, as Sator forms its
// relative pose and motion. A Box2D body keeps its angle, so the angles are
// part of the pregenerated inputs (computing them here would add two atan2f,
// 9% of this call's instructions, that Box2D does not do).
bool SweepBoxesBox2d(const PairInput& p) {
  b2TOIInput in;
  in.proxyA.Set(&p.b2a, 0);
  in.proxyB.Set(&p.b2b, 0);
  in.sweepA.localCenter.SetZero();
  in.sweepA.c0 = p.xfa.p;
  in.sweepA.c = p.xfa.p + b2Vec2(p.da.x, p.da.y);
  in.sweepA.a0 = in.sweepA.a = p.angle_a;
  in.sweepA.alpha0 = 0.0f;
  in.sweepB.localCenter.SetZero();
  in.sweepB.c0 = p.xfb.p;
  in.sweepB.c = p.xfb.p + b2Vec2(p.db.x, p.db.y);
  in.sweepB.a0 = in.sweepB.a = p.angle_b;
  in.sweepB.alpha0 = 0.0f;
  in.tMax = 1.0f;
  b2TOIOutput out;
  b2TimeOfImpact(&out, &in);
  benchmark::DoNotOptimize(out);
  return out.state == b2TOIOutput::e_touching;
}
void BoxBoxSweepBox2d(benchmark::State& s) {
  Run(s, BoxPairs(), SweepBoxesBox2d);
}
void BoxBoxSweepApartSator(benchmark::State& s) {
  Run(s, ApartBoxPairs(), SweepSator);
}
void BoxBoxSweepApartBox2d(benchmark::State& s) {
  Run(s, ApartBoxPairs(), SweepBoxesBox2d);
}

BENCHMARK(BoxBoxOverlapSator)->Name("BoxBoxOverlap/sator");
BENCHMARK(BoxBoxOverlapBox2d)->Name("BoxBoxOverlap/box2d");
BENCHMARK(PolygonPolygonOverlapSator)->Name("PolygonPolygonOverlap/sator");
BENCHMARK(PolygonPolygonOverlapBox2d)->Name("PolygonPolygonOverlap/box2d");
BENCHMARK(PolygonPolygonOverlapNearSator)
    ->Name("PolygonPolygonOverlapNear/sator");
BENCHMARK(PolygonPolygonOverlapNearBox2d)
    ->Name("PolygonPolygonOverlapNear/box2d");
BENCHMARK(BoxBoxContactSator)->Name("BoxBoxContact/sator");
BENCHMARK(BoxBoxContactBox2d)->Name("BoxBoxContact/box2d");
BENCHMARK(BoxBoxContactWorldSator)->Name("BoxBoxContactWorld/sator");
BENCHMARK(PolygonPolygonContactSator)->Name("PolygonPolygonContact/sator");
BENCHMARK(PolygonPolygonContactBox2d)->Name("PolygonPolygonContact/box2d");
BENCHMARK(PolygonPolygonContactWorldSator)
    ->Name("PolygonPolygonContactWorld/sator");
BENCHMARK(PolygonCircleContactSator)->Name("PolygonCircleContact/sator");
BENCHMARK(PolygonCircleContactBox2d)->Name("PolygonCircleContact/box2d");
BENCHMARK(PolygonCircleContactWorldSator)
    ->Name("PolygonCircleContactWorld/sator");
BENCHMARK(PolygonRayCastSator)->Name("PolygonRayCast/sator");
BENCHMARK(PolygonRayCastBox2d)->Name("PolygonRayCast/box2d");
BENCHMARK(BoxBoxSweepSator)->Name("BoxBoxSweep/sator");
BENCHMARK(BoxBoxSweepBox2d)->Name("BoxBoxSweep/box2d");
BENCHMARK(BoxBoxSweepApartSator)->Name("BoxBoxSweepApart/sator");
BENCHMARK(BoxBoxSweepApartBox2d)->Name("BoxBoxSweepApart/box2d");

}  // namespace
}  // namespace sator

BENCHMARK_MAIN();
