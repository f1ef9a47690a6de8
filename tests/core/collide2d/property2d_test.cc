// Properties of the 2D queries on many seeded random cases, for every pair
// of shape kinds (kCases per pair kind and property family):
//  - Overlap is symmetric and agrees with Contact's `overlapping`;
//  - MTV(A, B) = -MTV(B, A): equal depths; opposite normals (when two axes
//    tie, each side's normal must still be a valid MTV for the other);
//  - moving B by the MTV plus a little separates the shapes, moving it by a
//    little less than the depth in ANY direction (the MTV's own and a random
//    one) does not: the depth is minimal;
//  - contact points lie midway between the surfaces: at most half the depth
//    outside either shape;
//  - a sweep's time of impact t has no overlap at t - e, contact at t
//    (|depth| within 10 tolerances: exact), overlap or touch just after t,
//    and its point on both surfaces; a miss overlaps nowhere on the
//    path; a start in overlap is reported as such;
//  - ray hit points lie on the boundary and nothing on the ray before them
//    is inside the shape.
// The checks use an independent signed distance (test_shapes2d.h). Cases
// whose separation is within round-off (1e-6 of the scale) of the touching
// tolerance are ambiguous by construction and skip the consistency checks.
#include <cmath>
#include <cstdio>
#include <tuple>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "test_shapes2d.h"

namespace sator {
namespace {

using test2d::KindName;
using test2d::ShapeGen;
using test2d::SignedDistance;
using test2d::Translated;

constexpr int kCases = 100000;
constexpr float kInfinity2 = 1e30f;

float Sd(const Shape2& shape, const Pose2& pose, Vec2 world) {
  return SignedDistance(shape, InvTransform(pose, world));
}

class PairProperty : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(PairProperty, OverlapAndContact) {
  const auto [ka, kb] = GetParam();
  ShapeGen gen(1000u + static_cast<unsigned>(ka * 5 + kb));
  int overlapping = 0;
  int ties = 0;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const Shape2 a = gen.Shape(ka);
    const Shape2 b = gen.Shape(kb);
    const Pose2 pa = gen.RandomPose(3.0f);
    const Pose2 pb = gen.RandomPose(3.0f);
    const float tol = test2d::PairTolerance(a, pa, b, pb);
    const float scale = tol / kTouchingRelativeTolerance;
    const ContactResult<2> ab = Contact(a, pa, b, pb);
    const ContactResult<2> ba = Contact(b, pb, a, pa);
    const bool oab = Overlap(a, pa, b, pb);
    const bool oba = Overlap(b, pb, a, pa);
    const auto fail = [&](const char* what) {
      ++failures;
      ADD_FAILURE() << what << " in case " << i << ": depth " << ab.depth
                    << " / " << ba.depth << ", normal (" << ab.normal.x << ", "
                    << ab.normal.y << ") / (" << ba.normal.x << ", "
                    << ba.normal.y << "), overlap " << oab << oba
                    << ab.overlapping << ba.overlapping << ", tol " << tol;
    };
    if (std::fabs(ab.depth + tol) < 1e-6f * scale) continue;  // Ambiguous.
    if (oab != oba) fail("asymmetric overlap");
    if (oab != ab.overlapping || oba != ba.overlapping) {
      fail("Overlap and Contact disagree");
    }
    if (std::fabs(ab.depth - ba.depth) > tol) fail("asymmetric depth");
    if (std::fabs(Length(ab.normal) - 1.0f) > 1e-5f) fail("normal not unit");
    if (!ab.overlapping) continue;
    ++overlapping;
    const float depth = ab.depth;
    const float more = depth + std::max(1e-3f * depth, 3.0f * tol);
    const float less = std::max(0.0f, depth * (1.0f - 1e-3f) - 2.0f * tol);
    if (Overlap(a, pa, b, Translated(pb, more * ab.normal))) {
      fail("MTV(1+e) does not separate");
    }
    if (!Overlap(a, pa, b, Translated(pb, less * ab.normal))) {
      fail("MTV(1-e) separates");
    }
    const Vec2 u = gen.Direction();
    if (!Overlap(a, pa, b, Translated(pb, less * u))) {
      fail("a shorter move in another direction separates (MTV not minimal)");
    }
    if (Dot(ab.normal, ba.normal) > -1.0f + 1e-3f) {
      // A tie between two axes: -MTV(B, A) must be a valid MTV too.
      ++ties;
      if (Overlap(a, pa, b, Translated(pb, -more * ba.normal))) {
        fail("MTV(B, A) reversed does not separate");
      }
    }
    if (ab.point_count < 1 || ab.point_count > 2) fail("point count");
    for (int k = 0; k < ab.point_count; ++k) {
      const Vec2 p = ab.points[static_cast<size_t>(k)];
      // Midway between the surfaces along the normal: at most half the
      // depth outside either shape (usually inside both; outside one only
      // when it is contained in the other).
      const float half = 0.5f * depth + 2.0f * tol;
      if (Sd(a, pa, p) > half || Sd(b, pb, p) > half) {
        fail("contact point not between the surfaces");
      }
    }
  }
  std::printf("%s-%s: %d of %d overlapping, %d normal ties\n", KindName(ka),
              KindName(kb), overlapping, kCases, ties);
  EXPECT_GT(overlapping, kCases / 50);
  EXPECT_LT(ties, kCases / 100);
}

TEST_P(PairProperty, Sweep) {
  const auto [ka, kb] = GetParam();
  ShapeGen gen(2000u + static_cast<unsigned>(ka * 5 + kb));
  int hits = 0;
  int misses = 0;
  int started = 0;
  int grazes = 0;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const Shape2 a = gen.Shape(ka);
    const Shape2 b = gen.Shape(kb);
    const Pose2 pa = gen.RandomPose(4.0f);
    const Pose2 pb = gen.RandomPose(4.0f);
    const Vec2 da = gen.Point(2.0f);
    const Vec2 db = gen.Point(6.0f);
    const float tol = test2d::PairTolerance(a, pa, b, pb);
    const SweepResult<2> r = Sweep(a, pa, da, b, pb, db);
    const auto at = [&](float t) {
      return Contact(a, Translated(pa, t * da), b, Translated(pb, t * db));
    };
    const auto fail = [&](const char* what) {
      ++failures;
      ADD_FAILURE() << what << " in case " << i << ", t " << r.fraction
                    << ", outcome " << static_cast<int>(r.outcome);
    };
    switch (r.outcome) {
      case SweepOutcome::kStartedOverlapping:
        ++started;
        if (!r.initial.overlapping || !Overlap(a, pa, b, pb)) {
          fail("started overlapping but no overlap at t = 0");
        }
        break;
      case SweepOutcome::kMiss:
        ++misses;
        for (int k = 1; k <= 8; ++k) {
          if (at(0.125f * static_cast<float>(k)).depth > tol) {
            fail("miss but the shapes overlap on the path");
            break;
          }
        }
        break;
      case SweepOutcome::kHit: {
        ++hits;
        const float t = r.fraction;
        const float e = 1e-3f;
        if (t < 0.0f || t > 1.0f) fail("fraction out of range");
        if (t - e > 0.0f && at(t - e).depth > tol) fail("overlap before t");
        // Exact: the shapes touch at t.
        const float depth_t = at(t).depth;
        if (std::fabs(depth_t) > 10.0f * tol) fail("no contact at t");
        // Overlap or touch just after t. A grazing contact (a corner
        // brushing past a corner) stays in contact only briefly, so look
        // at t + e for e = 1e-5, 1e-4 and 1e-3.
        float after = -kInfinity2;
        for (float step : {1e-5f, 1e-4f, 1e-3f}) {
          if (t + step <= 1.0f) after = std::max(after, at(t + step).depth);
        }
        // A graze (the separation never reaches 0 but comes within the
        // tolerance: a hit at the first time it does, docs) may part again
        // at once, as when it only reaches the tolerance; it must be within
        // the tolerance at t (the best axis' gap is at most the distance).
        const bool graze = depth_t < 0.0f && after < 0.0f;
        if (graze) {
          ++grazes;
          if (depth_t < -1.01f * tol) fail("graze not within tolerance at t");
        } else if (t + 1e-5f <= 1.0f && after < -tol) {
          fail("no touch after t");
        }
        const Pose2 qa = Translated(pa, t * da);
        const Pose2 qb = Translated(pb, t * db);
        if (std::fabs(Sd(a, qa, r.point)) > 10.0f * tol ||
            std::fabs(Sd(b, qb, r.point)) > 10.0f * tol) {
          fail("impact point not on both surfaces");
        }
        // The normal points from A to B: moving B along it separates.
        if (Dot(r.normal, (db - da)) > 1e-3f) fail("normal against motion");
        break;
      }
    }
  }
  std::printf(
      "%s-%s sweeps: %d hits (%d apart at t and just after), %d misses, "
      "%d started overlapping\n",
      KindName(ka), KindName(kb), hits, grazes, misses, started);
  EXPECT_GT(hits, kCases / 20);
  EXPECT_GT(misses, kCases / 10);
}

std::string PairName(
    const ::testing::TestParamInfo<std::tuple<int, int>>& info) {
  return absl::StrFormat("%s%s", KindName(std::get<0>(info.param)),
                         KindName(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(AllPairs, PairProperty,
                         ::testing::Combine(::testing::Range(0, 5),
                                            ::testing::Range(0, 5)),
                         PairName);

class RayProperty : public ::testing::TestWithParam<int> {};

TEST_P(RayProperty, HitsLieOnTheBoundary) {
  const int kind = GetParam();
  ShapeGen gen(3000u + static_cast<unsigned>(kind));
  int hits = 0;
  int inside = 0;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const Shape2 s = gen.Shape(kind);
    const Pose2 pose = gen.RandomPose(2.0f);
    // Half the rays aim near the shape, the others anywhere.
    const Vec2 origin = gen.Point(5.0f);
    const Vec2 aim = NormalizeOrZero(pose.position + gen.Point(1.0f) - origin);
    const Vec2 direction =
        (i % 2 == 0 && LengthSquared(aim) > 0.5f) ? aim : gen.Direction();
    const Ray<2> ray{origin, direction, gen.Uniform(0.5f, 10.0f)};
    const float scale =
        test2d::Extent(s) + std::fabs(ray.origin.x - pose.position.x) +
        std::fabs(ray.origin.y - pose.position.y) + test2d::Extent(s);
    const float tol = TouchingTolerance(scale);
    const RayResult<2> r = RayCast(s, pose, ray);
    const auto fail = [&](const char* what) {
      ++failures;
      ADD_FAILURE() << what << " in case " << i << ": distance " << r.distance;
    };
    const float sd0 = Sd(s, pose, ray.origin);
    if (r.started_inside) {
      ++inside;
      if (sd0 > 2.0f * tol) fail("started inside but the origin is outside");
      continue;
    }
    if (sd0 < -2.0f * tol) fail("origin inside but not reported");
    if (!r.hit) {
      for (int k = 1; k <= 16; ++k) {
        const Vec2 p =
            ray.origin +
            (ray.max_distance * static_cast<float>(k) / 16.0f) * ray.direction;
        if (Sd(s, pose, p) < -2.0f * tol) {
          fail("miss but the ray passes inside");
          break;
        }
      }
      continue;
    }
    ++hits;
    if (r.distance < 0.0f || r.distance > ray.max_distance)
      fail("distance range");
    if (std::fabs(Sd(s, pose, r.point)) > 2.0f * tol)
      fail("hit point off the boundary");
    if (Dot(r.normal, ray.direction) > 1e-6f)
      fail("normal faces away from the ray");
    if (std::fabs(Length(r.normal) - 1.0f) > 1e-5f) fail("normal not unit");
    for (int k = 0; k < 8; ++k) {
      const Vec2 p = ray.origin + (r.distance * static_cast<float>(k) / 8.0f) *
                                      ray.direction;
      if (Sd(s, pose, p) < -2.0f * tol) {
        fail("the ray is inside before its hit");
        break;
      }
    }
  }
  std::printf("%s rays: %d hits, %d started inside\n", KindName(kind), hits,
              inside);
  EXPECT_GT(hits, kCases / 10);
}

std::string KindParamName(const ::testing::TestParamInfo<int>& param) {
  return KindName(param.param);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, RayProperty, ::testing::Range(0, 5),
                         KindParamName);

}  // namespace
}  // namespace sator
