// Differential tests of the 2D core against Box2D 2.4.1 (libbox2d-dev), on
// kCases seeded random cases per pair kind that Box2D supports (circle,
// box, polygon of up to 8 vertices).
//
// What differs by design, and how each disagreement is classified:
//  - Skin: every Box2D polygon carries b2_polygonRadius = 2 * linearSlop =
//    0.01 around its vertices, so Box2D reports overlap (b2TestOverlap) and
//    manifolds (b2CollidePolygons: when separation < the radii sum) for
//    exact shapes up to 0.01 per polygon apart. Depths are compared after
//    removing the skin. A disagreement is "skin" when our exact gap is
//    within the skin (plus 1e-4 of GJK round-off); any other is a failure.
//  - Reference face bias: Box2D prefers A's face unless B's is better by
//    0.1 * linearSlop (k_tol = 0.0005 in b2CollidePolygons); we use a tenth
//    of our (much smaller) touching tolerance. When the normals differ, the
//    depth along Box2D's choice must be within that bias of ours.
//  - Time of impact: b2TimeOfImpact stops when the cores are `target` apart,
//    target = max(linearSlop, radii sum - 3 linearSlop), within 0.25
//    linearSlop. We report the exact touch (or, for a pass that comes within
//    our touching tolerance without touching, the first time within it: a
//    graze, inside Box2D's much larger target). So at Box2D's t our exact gap
//    must be target - (our radii) within 0.25 linearSlop (+1e-4 of
//    round-off), and the hit/miss verdicts may differ only when our path's
//    closest approach is within that target ("skin"). For round shapes the
//    target is below contact (radii sum - 3 linearSlop), so a start in
//    overlap shallower than that is not an overlap for Box2D; and Box2D
//    says e_overlapped only when the cores themselves cross (GJK distance
//    0), reporting other starts in overlap as e_touching at t = 0.
//  - Rays: Box2D reports no hit for a ray starting inside; those cases are
//    skipped (our started_inside is tested in property2d_test.cc). On
//    grazing rays Box2D's circle quadratic (b^2 - c) cancels; a distance
//    mismatch there is settled against a double-precision solution.
// Floating-point exceptions are on for our code and off around Box2D's calls
// (its GJK divides by zero-length vectors in degenerate simplices).
#include <box2d/b2_time_of_impact.h>
#include <box2d/box2d.h>

#include <cfenv>
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
using test2d::Translated;

constexpr int kCases = 100000;
constexpr float kSkin = b2_polygonRadius;  // 0.01 per polygon.

// Runs a Box2D call with floating-point exceptions off.
template <typename F>
void Oracle(F&& f) {
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
  const int saved = fegetexcept();
  fedisableexcept(FE_ALL_EXCEPT);
  f();
  feclearexcept(FE_ALL_EXCEPT);
  feenableexcept(saved);
#else
  f();
#endif
}

// Box2D's copy of one of our shapes (circle, box or polygon).
struct B2Shape {
  b2CircleShape circle;
  b2PolygonShape polygon;
  bool is_circle = false;
  bool ok = true;  // Box2D's hull kept every vertex.
  const b2Shape* get() const {
    return is_circle ? static_cast<const b2Shape*>(&circle) : &polygon;
  }
  float skin() const { return is_circle ? 0.0f : kSkin; }
};

void ToB2(const Shape2& s, B2Shape& out) {
  switch (s.index()) {
    case 0:
      out.is_circle = true;
      out.circle.m_radius = std::get<Circle>(s).radius;
      out.circle.m_p.SetZero();
      return;
    case 1: {
      const Vec2 h = std::get<Box2>(s).half_extents;
      out.polygon.SetAsBox(h.x, h.y);
      return;
    }
    default: {
      const ConvexPolygon& p = std::get<ConvexPolygon>(s);
      b2Vec2 v[b2_maxPolygonVertices];
      for (int i = 0; i < p.count(); ++i)
        v[i].Set(p.vertex(i).x, p.vertex(i).y);
      Oracle([&] { out.polygon.Set(v, p.count()); });
      out.ok = out.polygon.m_count == p.count();
      return;
    }
  }
}

b2Transform ToB2(const Pose2& p) {
  b2Transform xf;
  xf.p.Set(p.position.x, p.position.y);
  xf.q.c = p.rotation.c;
  xf.q.s = p.rotation.s;
  return xf;
}

// Kinds Box2D supports: circle (0), box (1), polygon (2).
class Box2dPair : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(Box2dPair, TestOverlap) {
  const auto [ka, kb] = GetParam();
  ShapeGen gen(5000u + static_cast<unsigned>(ka * 5 + kb));
  int agree = 0;
  int skin = 0;
  int touching = 0;
  int skipped = 0;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const Shape2 a = gen.Shape(ka);
    const Shape2 b = gen.Shape(kb);
    const Pose2 pa = gen.RandomPose(3.0f);
    const Pose2 pb = gen.RandomPose(3.0f);
    B2Shape ba;
    B2Shape bb;
    ToB2(a, ba);
    ToB2(b, bb);
    if (!ba.ok || !bb.ok) {
      ++skipped;
      continue;
    }
    bool theirs = false;
    Oracle([&] {
      theirs = b2TestOverlap(ba.get(), 0, bb.get(), 0, ToB2(pa), ToB2(pb));
    });
    const bool ours = Overlap(a, pa, b, pb);
    if (ours == theirs) {
      ++agree;
      continue;
    }
    const float gap = -Contact(a, pa, b, pb).depth;
    // b2TestOverlap compares GJK's distance between the skinned shapes
    // with 10 float epsilons.
    if (theirs && gap > 0.0f && gap <= ba.skin() + bb.skin() + 1e-4f) {
      ++skin;
      continue;
    }
    // Touching within our tolerance, apart for Box2D (circles have no skin).
    if (ours && gap > 0.0f &&
        gap <= test2d::PairTolerance(a, pa, b, pb) + 1e-6f) {
      ++touching;
      continue;
    }
    ++failures;
    ADD_FAILURE() << "case " << i << ": ours " << ours << ", Box2D " << theirs
                  << ", our gap " << gap;
  }
  std::printf(
      "%s-%s b2TestOverlap: %d agree, %d skin, %d within our touching "
      "tolerance, %d skipped\n",
      KindName(ka), KindName(kb), agree, skin, touching, skipped);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(agree, kCases * 9 / 10);
}

TEST_P(Box2dPair, CollideDepthAndNormal) {
  const auto [ka, kb] = GetParam();
  if (kb == 0 && ka == 0) GTEST_SKIP() << "b2CollideCircles is not in scope";
  if (ka == 0) GTEST_SKIP() << "Box2D puts the polygon first";
  ShapeGen gen(6000u + static_cast<unsigned>(ka * 5 + kb));
  int compared = 0;
  int skin = 0;
  int bias = 0;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const Shape2 a = gen.Shape(ka);
    const Shape2 b = gen.Shape(kb);
    const Pose2 pa = gen.RandomPose(3.0f);
    const Pose2 pb = gen.RandomPose(3.0f);
    B2Shape ba;
    B2Shape bb;
    ToB2(a, ba);
    ToB2(b, bb);
    if (!ba.ok || !bb.ok) continue;
    b2Manifold m;
    b2WorldManifold wm;
    Oracle([&] {
      if (bb.is_circle) {
        b2CollidePolygonAndCircle(&m, &ba.polygon, ToB2(pa), &bb.circle,
                                  ToB2(pb));
      } else {
        b2CollidePolygons(&m, &ba.polygon, ToB2(pa), &bb.polygon, ToB2(pb));
      }
      if (m.pointCount > 0) {
        wm.Initialize(&m, ToB2(pa), ba.get()->m_radius, ToB2(pb),
                      bb.get()->m_radius);
      }
    });
    const ContactResult<2> ours = Contact(a, pa, b, pb);
    const float skins = ba.skin() + bb.skin();
    const auto fail = [&](const char* what, float theirs_depth) {
      ++failures;
      ADD_FAILURE() << what << " in case " << i << ": our depth " << ours.depth
                    << " normal (" << ours.normal.x << ", " << ours.normal.y
                    << "), Box2D depth " << theirs_depth << " normal ("
                    << wm.normal.x << ", " << wm.normal.y << ")";
    };
    if (m.pointCount == 0) {
      if (ours.overlapping) fail("Box2D sees no contact", 0.0f);
      continue;
    }
    // Box2D's depth, skin removed: the deepest manifold point.
    float sep = wm.separations[0];
    for (int k = 1; k < m.pointCount; ++k)
      sep = std::min(sep, wm.separations[k]);
    const float theirs = -sep - skins;
    if (!ours.overlapping) {
      // Box2D makes manifolds within the skin.
      if (-ours.depth <= skins + 1e-4f) {
        ++skin;
      } else {
        fail("Box2D contact for separated shapes", theirs);
      }
      continue;
    }
    ++compared;
    const float slack = 2e-4f;
    const float d = Dot(ours.normal, Vec2{wm.normal.x, wm.normal.y});
    const float excess = theirs - ours.depth;
    if (std::fabs(excess) <= slack && d > 1.0f - 1e-3f) continue;
    // Box2D kept A's face within its bias of 0.1 linearSlop although
    // another axis is shallower: its depth is deeper than ours by at most
    // that bias, along a different normal.
    if (d < 1.0f - 1e-6f && excess > -slack &&
        excess <= 0.1f * b2_linearSlop + slack) {
      ++bias;
    } else {
      fail("depth or normal differs", theirs);
    }
  }
  std::printf("%s-%s collide: %d compared, %d skin, %d face-bias\n",
              KindName(ka), KindName(kb), compared, skin, bias);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(compared, kCases / 10);
}

TEST_P(Box2dPair, TimeOfImpact) {
  const auto [ka, kb] = GetParam();
  ShapeGen gen(7000u + static_cast<unsigned>(ka * 5 + kb));
  int compared = 0;
  int skin = 0;
  int target_sink = 0;
  int started_touching = 0;
  int failed = 0;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const Shape2 a = gen.Shape(ka);
    const Shape2 b = gen.Shape(kb);
    const float angle_a = gen.Uniform(-3.14159f, 3.14159f);
    const float angle_b = gen.Uniform(-3.14159f, 3.14159f);
    const Pose2 pa = Pose2::FromAngle(gen.Point(4.0f), angle_a);
    const Pose2 pb = Pose2::FromAngle(gen.Point(4.0f), angle_b);
    const Vec2 da = gen.Point(2.0f);
    const Vec2 db = gen.Point(6.0f);
    B2Shape ba;
    B2Shape bb;
    ToB2(a, ba);
    ToB2(b, bb);
    if (!ba.ok || !bb.ok) continue;
    b2TOIInput in;
    in.proxyA.Set(ba.get(), 0);
    in.proxyB.Set(bb.get(), 0);
    in.sweepA.localCenter.SetZero();
    in.sweepA.c0.Set(pa.position.x, pa.position.y);
    in.sweepA.c.Set(pa.position.x + da.x, pa.position.y + da.y);
    in.sweepA.a0 = in.sweepA.a = angle_a;
    in.sweepA.alpha0 = 0.0f;
    in.sweepB.localCenter.SetZero();
    in.sweepB.c0.Set(pb.position.x, pb.position.y);
    in.sweepB.c.Set(pb.position.x + db.x, pb.position.y + db.y);
    in.sweepB.a0 = in.sweepB.a = angle_b;
    in.sweepB.alpha0 = 0.0f;
    in.tMax = 1.0f;
    b2TOIOutput out;
    Oracle([&] { b2TimeOfImpact(&out, &in); });
    const SweepResult<2> ours = Sweep(a, pa, da, b, pb, db);
    const float our_radii = (ka == 0 ? std::get<Circle>(a).radius : 0.0f) +
                            (kb == 0 ? std::get<Circle>(b).radius : 0.0f);
    const float total = in.proxyA.m_radius + in.proxyB.m_radius;
    const float target = std::max(b2_linearSlop, total - 3.0f * b2_linearSlop);
    // Our exact gap when Box2D's cores are `target` apart.
    const float expected_gap = target - our_radii;
    const float band = 0.25f * b2_linearSlop + 1e-4f;
    const auto gap_at = [&](float t) {
      return -Contact(a, Translated(pa, t * da), b, Translated(pb, t * db))
                  .depth;
    };
    const auto fail = [&](const char* what) {
      ++failures;
      ADD_FAILURE() << what << " in case " << i << ": Box2D state " << out.state
                    << " t " << out.t << ", ours "
                    << static_cast<int>(ours.outcome) << " t " << ours.fraction
                    << ", expected gap " << expected_gap;
    };
    if (out.state == b2TOIOutput::e_failed) {
      ++failed;  // Box2D's root finder gave up (iteration cap).
      continue;
    }
    // Our closest approach over the path, sampled finely, for "skin".
    const auto near_on_path = [&] {
      float best = 1e30f;
      for (int k = 0; k <= 64; ++k) best = std::min(best, gap_at(k / 64.0f));
      return best;
    };
    switch (out.state) {
      case b2TOIOutput::e_touching: {
        ++compared;
        const float g = gap_at(out.t);
        if (ours.outcome == SweepOutcome::kStartedOverlapping) {
          // Round shapes: Box2D's target lets them sink in by up to
          // 3 linearSlop minus the skins before it calls it an overlap.
          if (out.t == 0.0f) {
            ++started_touching;  // Box2D: e_overlapped only if cores cross.
          } else if (gap_at(0.0f) >= expected_gap - band) {
            ++target_sink;
          } else {
            fail("we start overlapping, Box2D hits later");
          }
        } else if (out.t == 0.0f && gap_at(0.0f) <= expected_gap + band) {
          ++skin;  // Already within Box2D's target at the start.
        } else if (std::fabs(g - expected_gap) > band) {
          fail("gap at Box2D's time of impact is not its target");
        } else if (ours.outcome == SweepOutcome::kMiss) {
          // Box2D stops `target` short; we never touch: skin.
          if (expected_gap > 0.0f) {
            ++skin;
          } else {
            fail("Box2D hits, we miss");
          }
        } else if (expected_gap >= 0.0f ? out.t > ours.fraction + 1e-5f
                                        : out.t < ours.fraction - 1e-5f) {
          fail("Box2D's time is on the wrong side of ours");
        }
        break;
      }
      case b2TOIOutput::e_separated:
        if (ours.outcome == SweepOutcome::kHit && expected_gap > 0.0f) {
          fail("we hit, Box2D stays separated");
        } else if (ours.outcome == SweepOutcome::kHit &&
                   near_on_path() < expected_gap - band) {
          fail("we hit deeper than Box2D's target, Box2D misses");
        } else if (ours.outcome == SweepOutcome::kStartedOverlapping) {
          if (gap_at(0.0f) >= expected_gap - band) {
            ++target_sink;
          } else {
            fail("we start overlapping, Box2D separated");
          }
        } else if (ours.outcome == SweepOutcome::kHit) {
          ++skin;  // Circles: our touch is shallower than Box2D's target.
        }
        break;
      case b2TOIOutput::e_overlapped:
        if (ours.outcome != SweepOutcome::kStartedOverlapping) {
          if (gap_at(0.0f) <= expected_gap + band) {
            ++skin;
          } else {
            fail("Box2D starts overlapped, we do not");
          }
        }
        break;
      default:
        break;
    }
  }
  std::printf(
      "%s-%s b2TimeOfImpact: %d hits compared, %d skin, %d shallow starts "
      "within Box2D's target, %d starts Box2D calls touching at 0, %d Box2D "
      "failures\n",
      KindName(ka), KindName(kb), compared, skin, target_sink, started_touching,
      failed);
  EXPECT_EQ(failures, 0);
  EXPECT_LT(failed, kCases / 100);
}

std::string PairName(
    const ::testing::TestParamInfo<std::tuple<int, int>>& info) {
  return absl::StrFormat("%s%s", KindName(std::get<0>(info.param)),
                         KindName(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(Box2dKinds, Box2dPair,
                         ::testing::Combine(::testing::Range(0, 3),
                                            ::testing::Range(0, 3)),
                         PairName);

class Box2dRay : public ::testing::TestWithParam<int> {};

TEST_P(Box2dRay, RayCast) {
  const int kind = GetParam();
  ShapeGen gen(8000u + static_cast<unsigned>(kind));
  int hits = 0;
  int grazing = 0;
  int failures = 0;
  for (int i = 0; i < kCases && failures < 10; ++i) {
    const Shape2 s = gen.Shape(kind);
    const Pose2 pose = gen.RandomPose(2.0f);
    const Vec2 origin = gen.Point(5.0f);
    const Vec2 aim = NormalizeOrZero(pose.position + gen.Point(1.0f) - origin);
    const Vec2 dir =
        (i % 2 == 0 && LengthSquared(aim) > 0.5f) ? aim : gen.Direction();
    const Ray<2> ray{origin, dir, gen.Uniform(0.5f, 10.0f)};
    B2Shape bs;
    ToB2(s, bs);
    if (!bs.ok) continue;
    const RayResult<2> ours = RayCast(s, pose, ray);
    if (ours.started_inside) continue;
    b2RayCastInput in;
    in.p1.Set(origin.x, origin.y);
    in.p2.Set(origin.x + ray.max_distance * dir.x,
              origin.y + ray.max_distance * dir.y);
    in.maxFraction = 1.0f;
    b2RayCastOutput out;
    bool theirs = false;
    Oracle([&] { theirs = bs.get()->RayCast(&out, in, ToB2(pose), 0); });
    const float their_distance = out.fraction * ray.max_distance;
    const auto fail = [&](const char* what) {
      ++failures;
      ADD_FAILURE() << what << " in case " << i << ": ours " << ours.hit << " "
                    << ours.distance << ", Box2D " << theirs << " "
                    << their_distance;
    };
    if (ours.hit != theirs) {
      // A hit within round-off of max_distance or a tangent graze.
      const bool edge = (ours.hit ? ours.distance : their_distance) >
                        ray.max_distance - 1e-4f;
      if (!edge) fail("hit verdicts differ");
      continue;
    }
    if (!theirs) continue;
    ++hits;
    if (std::fabs(their_distance - ours.distance) > 1e-4f) {
      // Grazing rays on a circle: Box2D's b^2 - c cancels; settle it with a
      // double-precision solution of |o + t d - c| = r.
      if (kind == 0) {
        const double mx = static_cast<double>(origin.x) - pose.position.x;
        const double my = static_cast<double>(origin.y) - pose.position.y;
        const double bq = mx * dir.x + my * dir.y;
        const double r = std::get<Circle>(s).radius;
        const double cq = mx * mx + my * my - r * r;
        const double root = std::sqrt(std::max(0.0, bq * bq - cq));
        const double exact = -bq - root;
        // Near tangency the distance is ill-conditioned (d t / d input ~
        // |m| / root): accept ours if it matches the double solution to
        // float round-off amplified by that factor.
        const double amplified = 1e-6 * (1.0 + std::fabs(bq) / root);
        if (std::fabs(exact - ours.distance) <= amplified * (1.0 + exact)) {
          ++grazing;
          continue;
        }
      }
      fail("distance");
    }
    if (Dot(ours.normal, Vec2{out.normal.x, out.normal.y}) < 1.0f - 1e-4f) {
      fail("normal");
    }
  }
  std::printf(
      "%s RayCast: %d hits compared, %d grazing where Box2D's float "
      "quadratic is off and ours matches a double solution\n",
      KindName(kind), hits, grazing);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(hits, kCases / 10);
}

std::string KindParamName(const ::testing::TestParamInfo<int>& param) {
  return KindName(param.param);
}

INSTANTIATE_TEST_SUITE_P(Box2dKinds, Box2dRay, ::testing::Range(0, 3),
                         KindParamName);

}  // namespace
}  // namespace sator
