// Differential tests against FCL 0.7 (fcl::collide with contacts,
// fcl::distance) and Bullet (btGjkPairDetector with the GJK-EPA penetration
// solver).
//
// The oracles have known flaws (see docs/core/collide3d.md): FCL's and
// Bullet's box-box contact (from ODE) prefer faces by inflating edge-edge
// depths by 5% and can return a deeper axis than the minimum; GJK/EPA is
// iterative and approximate; Bullet's default 0.04 margin inflates hulls
// (we set margins to 0). So an oracle is used two ways:
//  - where it is exact (sphere-sphere, sphere-box, sphere-capsule,
//    capsule-capsule contact; distance), we must agree within a tolerance;
//  - elsewhere its depth is an upper bound, and its normal is a direction
//    whose true overlap (measured with the independent support model of
//    test_shapes3d.h) must not be less than our depth: an oracle that finds
//    a better axis than ours would expose a non-minimal MTV.
// Disagreements are counted per category and printed.
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h"
#include "BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h"
#include "BulletCollision/NarrowPhaseCollision/btPointCollector.h"
#include "BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h"
#include "btBulletCollisionCommon.h"
#include "fcl/narrowphase/collision.h"
#include "fcl/narrowphase/collision_object.h"
#include "fcl/narrowphase/distance.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/overlap3d.h"
#include "test_shapes3d.h"

namespace sator {
namespace {

using testing::PenetrationAlong;
using testing::ShapeFactory;

// FP exceptions stay on for our code; the oracles are not written for them
// (libccd and Bullet divide by zero on degenerate simplices), so they run
// with exceptions off.
class FpeOff {
 public:
  FpeOff() {
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
    saved_ = fedisableexcept(FE_ALL_EXCEPT);
#endif
  }
  ~FpeOff() {
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
    feclearexcept(FE_ALL_EXCEPT);
    if (saved_ > 0) feenableexcept(saved_);
#endif
  }

 private:
  int saved_ = 0;
};

constexpr float kTol = 2e-4f;

Vec3 ToVec(const fcl::Vector3d& v) {
  return {static_cast<float>(v.x()), static_cast<float>(v.y()),
          static_cast<float>(v.z())};
}

fcl::Transform3d ToFcl(const Pose3& p) {
  fcl::Transform3d tf = fcl::Transform3d::Identity();
  tf.linear() =
      fcl::Quaterniond(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z)
          .normalized()
          .toRotationMatrix();
  tf.translation() = fcl::Vector3d(p.position.x, p.position.y, p.position.z);
  return tf;
}

// Capsules are made along z (FCL's capsule axis) for these tests.
std::shared_ptr<fcl::CollisionGeometryd> ToFclShape(const ConvexShape3& s) {
  if (const auto* sphere = std::get_if<Sphere>(&s)) {
    return std::make_shared<fcl::Sphered>(sphere->radius);
  }
  if (const auto* box = std::get_if<Box3>(&s)) {
    return std::make_shared<fcl::Boxd>(2.0 * box->half_extents.x,
                                       2.0 * box->half_extents.y,
                                       2.0 * box->half_extents.z);
  }
  if (const auto* cap = std::get_if<Capsule3>(&s)) {
    return std::make_shared<fcl::Capsuled>(cap->radius, 2.0 * cap->b.z);
  }
  const ConvexHull& hull = *std::get<std::shared_ptr<const ConvexHull>>(s);
  auto verts = std::make_shared<std::vector<fcl::Vector3d>>();
  for (const Vec3& v : hull.vertices) verts->emplace_back(v.x, v.y, v.z);
  auto faces = std::make_shared<std::vector<int>>();
  for (const ConvexHull::Face& f : hull.faces) {
    faces->push_back(f.vertex_count);
    for (int i = 0; i < f.vertex_count; ++i) {
      faces->push_back(hull.face_vertex_indices[f.first_index + i]);
    }
  }
  return std::make_shared<fcl::Convexd>(
      verts, static_cast<int>(hull.faces.size()), faces);
}

ConvexShape3 MakeOracleShape(ShapeFactory& f, ShapeKind3 kind) {
  if (kind == ShapeKind3::kCapsule) {
    const float h = f.U(0.05f, 1.0f);
    return Capsule3{{0, 0, -h}, {0, 0, h}, f.U(0.1f, 0.8f)};
  }
  return f.Make(kind);
}

// For separated convex shapes the distance is the largest separation over
// all directions u, min_B(u.x) - max_A(u.x) (the support functions' duality),
// and that function has a single local maximum on the sphere. So if no
// direction near `n` separates the shapes by more than `gap`, `gap` is the
// distance: an oracle reporting more is overestimating.
bool IsLocalMaxOfSeparation(const ConvexShape3& a, const Pose3& pa,
                            const ConvexShape3& b, const Pose3& pb, Vec3 n,
                            float gap, ShapeFactory& f) {
  for (float scale : {1e-1f, 1e-2f, 1e-3f}) {
    for (int k = 0; k < 300; ++k) {
      const Vec3 u = NormalizeOrZero(n + scale * f.RandomUnit());
      if (-PenetrationAlong(a, pa, b, pb, u) > gap + 1e-4f) return false;
    }
  }
  return true;
}

struct Counts {
  int cases = 0;
  int overlapping = 0;
  int bool_mismatch = 0;        // FCL's collide disagrees (not near touching).
  int agree = 0;                // Same depth and normal.
  int oracle_deeper = 0;        // Oracle depth > ours: a non-minimal axis.
  int oracle_shallower = 0;     // Oracle depth < ours, see below.
  int oracle_inconsistent = 0;  // ... its depth is not the overlap along its
                                // own normal (our MTV stays minimal).
  int better_axis = 0;          // The oracle's normal overlaps less than our
                                // depth: our MTV would not be minimal. Fails.
  int normal_flipped = 0;       // Oracle normal opposite to ours.
  int oracle_missed_confirmed = 0;  // Bullet finds no penetration where we
                                    // and FCL do (GJK without margin).
  int distance_checked = 0;
  int distance_mismatch = 0;  // Fails (round pairs: exact; others: bound).
  // The oracle distance exceeds the largest separation near our normal: its
  // GJK stopped early.
  int oracle_distance_over = 0;
  void Print(const char* name) const {
    std::printf(
        "%s: %d cases, %d overlapping; collide mismatch %d; agree %d; oracle "
        "deeper %d; oracle shallower %d (of which inconsistent with its own "
        "normal %d); oracle axis better than ours %d; normal flipped %d; "
        "distance checked %d, mismatched %d\n",
        name, cases, overlapping, bool_mismatch, agree, oracle_deeper,
        oracle_shallower, oracle_inconsistent, better_axis, normal_flipped,
        distance_checked, distance_mismatch);
    std::printf(
        "  oracle distance overestimates %d; oracle misses confirmed by FCL "
        "%d\n",
        oracle_distance_over, oracle_missed_confirmed);
  }
};

// Classifies an oracle's (depth, normal from A to B) against ours.
void Compare(const ConvexShape3& a, const Pose3& pa, const ConvexShape3& b,
             const Pose3& pb, const ContactResult<3>& ours, float depth,
             Vec3 normal, float tol, Counts* counts) {
  const Vec3 n = NormalizeOrZero(normal);
  const float true_along = PenetrationAlong(a, pa, b, pb, n);
  if (true_along < ours.depth - tol) ++counts->better_axis;
  if (Dot(n, ours.normal) < 0.0f) ++counts->normal_flipped;
  if (std::fabs(depth - ours.depth) <= tol && Dot(n, ours.normal) > 0.999f) {
    ++counts->agree;
  } else if (depth > ours.depth) {
    ++counts->oracle_deeper;
  } else {
    ++counts->oracle_shallower;
    if (std::fabs(true_along - depth) > tol) ++counts->oracle_inconsistent;
  }
}

Counts RunFcl(ShapeKind3 ka, ShapeKind3 kb, int cases, unsigned seed) {
  ShapeFactory f(seed);
  Counts counts;
  const bool exact_contact =
      (ka == ShapeKind3::kSphere || ka == ShapeKind3::kCapsule) &&
      (kb == ShapeKind3::kSphere || kb == ShapeKind3::kCapsule);
  const bool round = ka == ShapeKind3::kSphere || ka == ShapeKind3::kCapsule ||
                     kb == ShapeKind3::kSphere || kb == ShapeKind3::kCapsule;
  for (int i = 0; i < cases; ++i) {
    const ConvexShape3 a = MakeOracleShape(f, ka);
    const ConvexShape3 b = MakeOracleShape(f, kb);
    const Pose3 pa = f.RandomPose(1.5f);
    const Pose3 pb = f.RandomPose(1.5f);
    const ContactResult<3> ours = Contact(a, pa, b, pb);
    ++counts.cases;
    fcl::CollisionObjectd oa(ToFclShape(a), ToFcl(pa));
    fcl::CollisionObjectd ob(ToFclShape(b), ToFcl(pb));
    fcl::CollisionRequestd request(1, true);
    fcl::CollisionResultd result;
    {
      FpeOff off;
      fcl::collide(&oa, &ob, request, result);
    }
    const bool hit = result.numContacts() > 0;
    if (std::fabs(ours.depth) > 1e-3f && hit != ours.overlapping) {
      ++counts.bool_mismatch;
    }
    if (hit && ours.overlapping) {
      ++counts.overlapping;
      const fcl::Contactd& c = result.getContact(0);
      Compare(a, pa, b, pb, ours, static_cast<float>(c.penetration_depth),
              ToVec(c.normal), exact_contact ? kTol : 1e-3f, &counts);
    }
    if (!ours.overlapping && ours.depth < -1e-3f) {
      fcl::DistanceRequestd dreq(true);
      fcl::DistanceResultd dres;
      {
        FpeOff off;
        fcl::distance(&oa, &ob, dreq, dres);
      }
      ++counts.distance_checked;
      const float dist = static_cast<float>(dres.min_distance);
      const float gap = -ours.depth;
      // Round pairs report the exact distance; polytope pairs a lower bound.
      const bool ok =
          round ? std::fabs(gap - dist) <= 1e-3f : gap <= dist + 1e-3f;
      if (!ok && dist > gap &&
          IsLocalMaxOfSeparation(a, pa, b, pb, ours.normal, gap, f)) {
        ++counts.oracle_distance_over;
      } else if (!ok) {
        ++counts.distance_mismatch;
        if (counts.distance_mismatch <= 3) {
          std::printf("  distance mismatch: our gap %.6f, fcl %.6f\n", gap,
                      dist);
        }
      }
    }
  }
  return counts;
}

struct FclCase {
  ShapeKind3 a;
  ShapeKind3 b;
  const char* name;
};

class FclOracleTest : public ::testing::TestWithParam<FclCase> {};

TEST_P(FclOracleTest, AgreesOrIsExplained) {
  const FclCase& p = GetParam();
  const Counts c = RunFcl(
      p.a, p.b, 20000,
      99u + 7u * static_cast<unsigned>(p.a) + 31u * static_cast<unsigned>(p.b));
  c.Print(p.name);
  EXPECT_EQ(c.better_axis, 0);
  EXPECT_EQ(c.distance_mismatch, 0);
  EXPECT_EQ(c.bool_mismatch, 0);
  EXPECT_GT(c.overlapping, 1000);
  // FCL's sphere-sphere, sphere-box and sphere-capsule contacts are exact
  // closed forms; its capsule-capsule contact goes through libccd and is
  // not minimal.
  const bool exact = p.a == ShapeKind3::kSphere &&
                     (p.b == ShapeKind3::kSphere || p.b == ShapeKind3::kBox ||
                      p.b == ShapeKind3::kCapsule);
  if (exact) {
    EXPECT_EQ(c.agree, c.overlapping);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, FclOracleTest,
    ::testing::Values(
        FclCase{ShapeKind3::kSphere, ShapeKind3::kSphere, "fcl sphere-sphere"},
        FclCase{ShapeKind3::kSphere, ShapeKind3::kBox, "fcl sphere-box"},
        FclCase{ShapeKind3::kSphere, ShapeKind3::kCapsule,
                "fcl sphere-capsule"},
        FclCase{ShapeKind3::kCapsule, ShapeKind3::kCapsule,
                "fcl capsule-capsule"},
        FclCase{ShapeKind3::kBox, ShapeKind3::kBox, "fcl box-box"},
        FclCase{ShapeKind3::kBox, ShapeKind3::kCapsule, "fcl box-capsule"},
        FclCase{ShapeKind3::kHull, ShapeKind3::kHull, "fcl hull-hull"},
        FclCase{ShapeKind3::kBox, ShapeKind3::kHull, "fcl box-hull"},
        FclCase{ShapeKind3::kSphere, ShapeKind3::kHull, "fcl sphere-hull"}));

// ---- Bullet ----------------------------------------------------------------

std::unique_ptr<btConvexShape> ToBullet(const ConvexShape3& s) {
  if (const auto* box = std::get_if<Box3>(&s)) {
    auto shape = std::make_unique<btBoxShape>(btVector3(
        box->half_extents.x, box->half_extents.y, box->half_extents.z));
    shape->setMargin(0.0f);
    return shape;
  }
  const ConvexHull& hull = *std::get<std::shared_ptr<const ConvexHull>>(s);
  auto shape = std::make_unique<btConvexHullShape>();
  for (const Vec3& v : hull.vertices) {
    shape->addPoint(btVector3(v.x, v.y, v.z), false);
  }
  shape->recalcLocalAabb();
  shape->setMargin(0.0f);  // Bullet's default 0.04 would inflate the hull.
  return shape;
}

btTransform ToBullet(const Pose3& p) {
  return btTransform(
      btQuaternion(p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w),
      btVector3(p.position.x, p.position.y, p.position.z));
}

Counts RunBullet(ShapeKind3 ka, ShapeKind3 kb, int cases, unsigned seed) {
  ShapeFactory f(seed);
  Counts counts;
  for (int i = 0; i < cases; ++i) {
    const ConvexShape3 a = f.Make(ka);
    const ConvexShape3 b = f.Make(kb);
    const Pose3 pa = f.RandomPose(1.2f);
    const Pose3 pb = f.RandomPose(1.2f);
    const ContactResult<3> ours = Contact(a, pa, b, pb);
    ++counts.cases;
    if (!ours.overlapping || ours.depth < 1e-3f) continue;
    const std::unique_ptr<btConvexShape> sa = ToBullet(a);
    const std::unique_ptr<btConvexShape> sb = ToBullet(b);
    btPointCollector out;
    {
      FpeOff off;
      btVoronoiSimplexSolver simplex;
      btGjkEpaPenetrationDepthSolver epa;
      btGjkPairDetector detector(sa.get(), sb.get(), &simplex, &epa);
      btGjkPairDetector::ClosestPointInput input;
      input.m_transformA = ToBullet(pa);
      input.m_transformB = ToBullet(pb);
      detector.getClosestPoints(input, out, nullptr);
    }
    if (!out.m_hasResult || out.m_distance > 0.0f) {
      // Bullet's GJK reports a separation: ask FCL (exact SAT for boxes).
      fcl::CollisionObjectd oa(ToFclShape(a), ToFcl(pa));
      fcl::CollisionObjectd ob(ToFclShape(b), ToFcl(pb));
      fcl::CollisionRequestd request(1, true);
      fcl::CollisionResultd result;
      {
        FpeOff off;
        fcl::collide(&oa, &ob, request, result);
      }
      if (result.numContacts() > 0) {
        ++counts.oracle_missed_confirmed;
      } else {
        ++counts.bool_mismatch;
      }
      continue;
    }
    ++counts.overlapping;
    // m_normalOnBInWorld points from B towards A.
    const btVector3& nb = out.m_normalOnBInWorld;
    Compare(a, pa, b, pb, ours, -out.m_distance, {-nb.x(), -nb.y(), -nb.z()},
            1e-3f, &counts);
  }
  return counts;
}

TEST(BulletOracleTest, BoxBoxAndHullHull) {
  const Counts bb = RunBullet(ShapeKind3::kBox, ShapeKind3::kBox, 10000, 5);
  bb.Print("bullet box-box");
  EXPECT_EQ(bb.better_axis, 0);
  EXPECT_EQ(bb.bool_mismatch, 0);
  EXPECT_GT(bb.overlapping, 1000);
  const Counts hh = RunBullet(ShapeKind3::kHull, ShapeKind3::kHull, 10000, 6);
  hh.Print("bullet hull-hull");
  EXPECT_EQ(hh.better_axis, 0);
  EXPECT_EQ(hh.bool_mismatch, 0);
  EXPECT_GT(hh.overlapping, 1000);
  const Counts bh = RunBullet(ShapeKind3::kBox, ShapeKind3::kHull, 10000, 7);
  bh.Print("bullet box-hull");
  EXPECT_EQ(bh.better_axis, 0);
  EXPECT_EQ(bh.bool_mismatch, 0);
}

}  // namespace
}  // namespace sator
