// Sweeps against FCL 0.7's fcl::continuousCollide, as a loose check only:
// FCL's default continuous test samples the motion (naive, 10 steps by
// default; 100 here) and checks each sample with a static test, so it can
// only report contact at or after the true first contact, and it misses
// contacts that happen between samples. So:
//   - FCL reports contact at t_fcl  =>  Sator reports a hit at t with
//     t <= t_fcl <= t + 1/99 (one sampling step);
//   - Sator's misses are never FCL hits;
//   - Sator hits that FCL misses are counted, not failed.
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/collide3d/shape_gen.h"
#include "fcl/narrowphase/continuous_collision.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/sweep3d.h"

namespace sator {
namespace {

using testing_util::Rng;

fcl::Transform3d ToFcl(const Pose3& p, Vec3 offset) {
  fcl::Transform3d tf = fcl::Transform3d::Identity();
  tf.linear() =
      fcl::Quaterniond(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z)
          .toRotationMatrix();
  tf.translation() =
      fcl::Vector3d(p.position.x + offset.x, p.position.y + offset.y,
                    p.position.z + offset.z);
  return tf;
}

std::shared_ptr<fcl::CollisionGeometryd> ToFcl(const ConvexShape3& s) {
  if (const auto* box = std::get_if<Box3>(&s)) {
    const Vec3 h = box->half_extents;
    return std::make_shared<fcl::Boxd>(2.0 * h.x, 2.0 * h.y, 2.0 * h.z);
  }
  return std::make_shared<fcl::Sphered>(std::get<Sphere>(s).radius);
}

struct Counts {
  int both_hit = 0;
  int sator_only = 0;
  int both_miss = 0;
};

void CompareWithFcl(int kind_a, int kind_b, int count, unsigned seed,
                    Counts* counts) {
  Rng rng(seed);
  fcl::ContinuousCollisionRequestd request;
  request.num_max_iterations = 100;
  for (int i = 0; i < count; ++i) {
    const ConvexShape3 a = testing_util::RandomShape(kind_a, rng);
    const ConvexShape3 b = testing_util::RandomShape(kind_b, rng);
    const Pose3 pa = rng.Pose(1.0f);
    const Pose3 pb{pa.position + rng.InBox(4.0f), rng.Rotation()};
    const Vec3 da = rng.InBox(1.0f);
    const float aim = rng.Uniform(0.3f, 2.0f);
    const Vec3 db = (pa.position - pb.position) * aim + rng.InBox(1.5f);
    const SweepResult<3> r = Sweep(a, pa, da, b, pb, db);
    if (r.outcome == SweepOutcome::kStartedOverlapping) continue;
    const auto ga = ToFcl(a);
    const auto gb = ToFcl(b);
    fcl::ContinuousCollisionResultd result;
    // FCL's code is not written for trapping FP exceptions: off around it.
    fedisableexcept(FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW);
    fcl::continuousCollide(ga.get(), ToFcl(pa, {}), ToFcl(pa, da), gb.get(),
                           ToFcl(pb, {}), ToFcl(pb, db), request, result);
    feenableexcept(FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW);
    SCOPED_TRACE(::testing::Message()
                 << testing_util::KindName(kind_a) << "-"
                 << testing_util::KindName(kind_b) << " case " << i);
    if (result.is_collide) {
      ASSERT_EQ(r.outcome, SweepOutcome::kHit);
      // FCL's sample can only be at or after the first contact (with a
      // little slack for its static test's tolerance).
      ASSERT_LE(r.fraction, result.time_of_contact + 1e-4);
      // ... and the first sample inside the contact interval is at most one
      // sampling step after its start.
      // (FCL samples t = k / (n - 1) for k = 0 .. n - 1.)
      ASSERT_LE(result.time_of_contact - r.fraction, 1.0 / 99 + 1e-4);
      ++counts->both_hit;
    } else if (r.outcome == SweepOutcome::kHit) {
      ++counts->sator_only;
    } else {
      ++counts->both_miss;
    }
  }
}

TEST(SweepVersusFcl, BoxesAndSpheres) {
  const int pairs[3][2] = {{1, 1}, {0, 0}, {0, 1}};
  for (const auto& p : pairs) {
    Counts c;
    CompareWithFcl(p[0], p[1], 3000, 77u + 10u * p[0] + p[1], &c);
    std::printf("%s-%s: both hit %d, only Sator hit %d, both miss %d\n",
                testing_util::KindName(p[0]), testing_util::KindName(p[1]),
                c.both_hit, c.sator_only, c.both_miss);
    EXPECT_GT(c.both_hit, 500);
    EXPECT_GT(c.both_miss, 300);
  }
}

}  // namespace
}  // namespace sator
