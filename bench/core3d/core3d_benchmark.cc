// 3D overlap and MTV side by side with FCL, Bullet and libccd, on identical
// pregenerated inputs (1024 pairs, half of them overlapping). Each iteration
// answers one pair; the pair index cycles through the set. Every library
// gets world poses and computes whatever relative transform it needs inside
// the timed loop.
//
//   BoxBoxOverlap/{sator,fcl}       OBB-OBB boolean on world OBBs (centre,
//                                   axis matrix, half extents, precomputed
//                                   outside the loop for both): OverlapObbObb
//                                   vs fcl::OBBd::overlap. Both form B's
//                                   rotation in A's frame inside the loop.
//   BoxBoxOverlapPose/sator         OverlapBoxBox from quaternion poses
//                                   (MulT and the quaternion to matrix
//                                   conversion inside the loop).
//   BoxBoxOverlapDispatch/sator     the same through Overlap(ConvexShape3).
//   BoxBoxMtv/{sator,bullet,fcl}    box-box MTV with contact points:
//                                   ContactBoxBox vs btBoxBoxDetector vs
//                                   fcl::collide with contacts.
//   BoxBoxMtvDispatch/sator         the same through Contact(ConvexShape3).
//   HullHullMtv/{sator,ccd,bullet}  16-point hulls: ContactHullHull vs
//                                   libccd ccdMPRPenetration vs Bullet
//                                   btGjkPairDetector with GJK-EPA.
//   HullHullMtvDispatch/sator       the same through Contact(ConvexShape3).
//   CapsuleCapsuleMtv/{sator,fcl,bullet},
//   CapsuleBoxMtv/{sator,fcl,bullet}: the same pairs through fcl::collide
//                                   with a contact and Bullet's GJK + EPA
//                                   (capsules along the peers' local z).
//                                   The Bullet figure is raw
//                                   btGjkPairDetector + EPA, not Bullet's
//                                   pipeline: btConvexConvexAlgorithm
//                                   sends two btCapsuleShapes (each with
//                                   its own up axis) to a specialised
//                                   closed-form pair (the static
//                                   capsuleCapsuleDistance in
//                                   btConvexConvexAlgorithm.cpp, not
//                                   exported, so not timed here), so
//                                   CapsuleCapsuleMtv's ratio against
//                                   Bullet overstates our lead. FCL's
//                                   collide (libccd) has no capsule-capsule
//                                   special case (only its distance does);
//                                   neither library has one for
//                                   capsule-box.
//   CapsuleCapsuleMtv/sator,        round pairs through Contact and Overlap
//   CapsuleCapsuleOverlap/sator,    (ConvexShape3), no peer: capsules of
//   SphereCapsuleMtv/sator,         half length 0.2 to 1 and radius 0.1 to
//   CapsuleBoxMtv/sator,            0.5 against capsules, spheres, boxes
//   CapsuleHullMtv/sator            and the 16-point hulls, for instruction
//                                   counts of the closest-feature path.
//
// Run: core3d_benchmark --benchmark_repetitions=5
//        --benchmark_report_aggregates_only=true
#include <ccd/ccd.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <memory>
#include <random>
#include <variant>
#include <vector>

#include "BulletCollision/CollisionDispatch/btBoxBoxDetector.h"
#include "BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h"
#include "BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h"
#include "BulletCollision/NarrowPhaseCollision/btPointCollector.h"
#include "BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h"
#include "benchmark/benchmark.h"
#include "btBulletCollisionCommon.h"
#include "collide3d/typed3d.h"
#include "fcl/math/bv/OBB.h"
#include "fcl/narrowphase/collision.h"
#include "fcl/narrowphase/collision_object.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/overlap3d.h"

namespace sator {
namespace {

constexpr int kPairs = 1024;

std::mt19937& Rng() {
  static std::mt19937 rng(20261123);
  return rng;
}
float U(float lo, float hi) {
  return std::uniform_real_distribution<float>(lo, hi)(Rng());
}
Vec3 RandomUnit() {
  std::normal_distribution<float> g(0.0f, 1.0f);
  for (;;) {
    const Vec3 v{g(Rng()), g(Rng()), g(Rng())};
    if (Length(v) > 1e-3f) return NormalizeOrZero(v);
  }
}
Quat RandomRotation() {
  std::normal_distribution<float> g(0.0f, 1.0f);
  return Normalize(Quat{g(Rng()), g(Rng()), g(Rng()), g(Rng())});
}

// ---- Inputs -----------------------------------------------------------------

struct BoxPair {
  Box3 a;
  Box3 b;
  Pose3 pa;
  Pose3 pb;
};

// Balanced: exactly half the pairs overlap.
const std::vector<BoxPair>& BoxPairs() {
  static const std::vector<BoxPair> pairs = [] {
    std::vector<BoxPair> out;
    int over = 0;
    int apart = 0;
    while (static_cast<int>(out.size()) < kPairs) {
      BoxPair p;
      p.a.half_extents = {U(0.2f, 1.0f), U(0.2f, 1.0f), U(0.2f, 1.0f)};
      p.b.half_extents = {U(0.2f, 1.0f), U(0.2f, 1.0f), U(0.2f, 1.0f)};
      p.pa = {{U(-10, 10), U(-10, 10), U(-10, 10)}, RandomRotation()};
      p.pb = {p.pa.position + U(0.0f, 2.5f) * RandomUnit(), RandomRotation()};
      const bool hit = Overlap(p.a, p.pa, p.b, p.pb);
      if (hit && over < kPairs / 2) {
        ++over;
        out.push_back(p);
      } else if (!hit && apart < kPairs / 2) {
        ++apart;
        out.push_back(p);
      }
    }
    return out;
  }();
  return pairs;
}

struct HullPair {
  int a;
  int b;
  Pose3 pa;
  Pose3 pb;
};

// 64 hulls of 16 points on ellipsoids (every point is a hull vertex).
const std::vector<std::shared_ptr<const ConvexHull>>& Hulls() {
  static const std::vector<std::shared_ptr<const ConvexHull>> hulls = [] {
    std::vector<std::shared_ptr<const ConvexHull>> out;
    while (out.size() < 64) {
      const Vec3 r{U(0.4f, 1.0f), U(0.4f, 1.0f), U(0.4f, 1.0f)};
      std::vector<Vec3> pts;
      for (int i = 0; i < 16; ++i) {
        const Vec3 d = RandomUnit();
        pts.push_back({r.x * d.x, r.y * d.y, r.z * d.z});
      }
      auto hull = MakeConvexHull(pts);
      if (hull.ok()) out.push_back(*hull);
    }
    return out;
  }();
  return hulls;
}

const std::vector<HullPair>& HullPairs() {
  static const std::vector<HullPair> pairs = [] {
    std::vector<HullPair> out;
    int over = 0;
    int apart = 0;
    while (static_cast<int>(out.size()) < kPairs) {
      HullPair p;
      p.a = static_cast<int>(Rng()() % Hulls().size());
      p.b = static_cast<int>(Rng()() % Hulls().size());
      p.pa = {{U(-10, 10), U(-10, 10), U(-10, 10)}, RandomRotation()};
      p.pb = {p.pa.position + U(0.0f, 2.0f) * RandomUnit(), RandomRotation()};
      const bool hit = Overlap(Hulls()[p.a], p.pa, Hulls()[p.b], p.pb);
      if (hit && over < kPairs / 2) {
        ++over;
        out.push_back(p);
      } else if (!hit && apart < kPairs / 2) {
        ++apart;
        out.push_back(p);
      }
    }
    return out;
  }();
  return pairs;
}

// ---- Converters -------------------------------------------------------------

fcl::Matrix3d FclRotation(Quat q) {
  return fcl::Quaterniond(q.w, q.x, q.y, q.z).toRotationMatrix();
}
fcl::Vector3d FclVec(Vec3 v) { return {v.x, v.y, v.z}; }
fcl::Transform3d FclPose(const Pose3& p) {
  fcl::Transform3d tf = fcl::Transform3d::Identity();
  tf.linear() = FclRotation(p.rotation);
  tf.translation() = FclVec(p.position);
  return tf;
}
fcl::OBBd FclObb(const Box3& box, const Pose3& pose) {
  fcl::OBBd obb;
  obb.axis = FclRotation(pose.rotation);
  obb.To = FclVec(pose.position);
  obb.extent = FclVec(box.half_extents);
  return obb;
}
btTransform BtPose(const Pose3& p) {
  return btTransform(
      btQuaternion(p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w),
      btVector3(p.position.x, p.position.y, p.position.z));
}

// ---- Box-box overlap
// ---------------------------------------------------------

void BM_BoxBoxOverlapSator(benchmark::State& state) {
  const std::vector<BoxPair>& pairs = BoxPairs();
  std::vector<Obb3> a;
  std::vector<Obb3> b;
  for (const BoxPair& p : pairs) {
    a.push_back(MakeObb(p.a, p.pa));
    b.push_back(MakeObb(p.b, p.pb));
  }
  int i = 0;
  int hits = 0;
  for (auto _ : state) {
    const bool hit = OverlapObbObb(a[i], b[i]);
    benchmark::DoNotOptimize(hit);
    hits += hit;
    i = (i + 1) & (kPairs - 1);
  }
  state.counters["hit_rate"] =
      benchmark::Counter(hits, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_BoxBoxOverlapSator)->Name("BoxBoxOverlap/sator");

void BM_BoxBoxOverlapPoseSator(benchmark::State& state) {
  const std::vector<BoxPair>& pairs = BoxPairs();
  int i = 0;
  int hits = 0;
  for (auto _ : state) {
    const BoxPair& p = pairs[i];
    const bool hit = OverlapBoxBox(p.a, p.b, MulT(p.pa, p.pb));
    benchmark::DoNotOptimize(hit);
    hits += hit;
    i = (i + 1) & (kPairs - 1);
  }
  state.counters["hit_rate"] =
      benchmark::Counter(hits, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_BoxBoxOverlapPoseSator)->Name("BoxBoxOverlapPose/sator");

void BM_BoxBoxOverlapDispatchSator(benchmark::State& state) {
  const std::vector<BoxPair>& pairs = BoxPairs();
  std::vector<ConvexShape3> a;
  std::vector<ConvexShape3> b;
  for (const BoxPair& p : pairs) {
    a.emplace_back(p.a);
    b.emplace_back(p.b);
  }
  int i = 0;
  for (auto _ : state) {
    const bool hit = Overlap(a[i], pairs[i].pa, b[i], pairs[i].pb);
    benchmark::DoNotOptimize(hit);
    i = (i + 1) & (kPairs - 1);
  }
}
BENCHMARK(BM_BoxBoxOverlapDispatchSator)->Name("BoxBoxOverlapDispatch/sator");

void BM_BoxBoxOverlapFcl(benchmark::State& state) {
  const std::vector<BoxPair>& pairs = BoxPairs();
  std::vector<fcl::OBBd> a;
  std::vector<fcl::OBBd> b;
  for (const BoxPair& p : pairs) {
    a.push_back(FclObb(p.a, p.pa));
    b.push_back(FclObb(p.b, p.pb));
  }
  int i = 0;
  int hits = 0;
  for (auto _ : state) {
    const bool hit = a[i].overlap(b[i]);
    benchmark::DoNotOptimize(hit);
    hits += hit;
    i = (i + 1) & (kPairs - 1);
  }
  state.counters["hit_rate"] =
      benchmark::Counter(hits, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_BoxBoxOverlapFcl)->Name("BoxBoxOverlap/fcl");

// ---- Box-box MTV
// --------------------------------------------------------------

void BM_BoxBoxMtvSator(benchmark::State& state) {
  const std::vector<BoxPair>& pairs = BoxPairs();
  int i = 0;
  for (auto _ : state) {
    const BoxPair& p = pairs[i];
    const ContactResult<3> c = ContactBoxBox(p.a, p.b, MulT(p.pa, p.pb));
    benchmark::DoNotOptimize(c);
    i = (i + 1) & (kPairs - 1);
  }
}
BENCHMARK(BM_BoxBoxMtvSator)->Name("BoxBoxMtv/sator");

void BM_BoxBoxMtvDispatchSator(benchmark::State& state) {
  const std::vector<BoxPair>& pairs = BoxPairs();
  std::vector<ConvexShape3> a;
  std::vector<ConvexShape3> b;
  for (const BoxPair& p : pairs) {
    a.emplace_back(p.a);
    b.emplace_back(p.b);
  }
  int i = 0;
  for (auto _ : state) {
    const ContactResult<3> c = Contact(a[i], pairs[i].pa, b[i], pairs[i].pb);
    benchmark::DoNotOptimize(c);
    i = (i + 1) & (kPairs - 1);
  }
}
BENCHMARK(BM_BoxBoxMtvDispatchSator)->Name("BoxBoxMtvDispatch/sator");

void BM_BoxBoxMtvBullet(benchmark::State& state) {
  const std::vector<BoxPair>& pairs = BoxPairs();
  std::vector<std::unique_ptr<btBoxShape>> a;
  std::vector<std::unique_ptr<btBoxShape>> b;
  std::vector<btTransform> ta;
  std::vector<btTransform> tb;
  for (const BoxPair& p : pairs) {
    const Vec3 ha = p.a.half_extents;
    const Vec3 hb = p.b.half_extents;
    a.push_back(std::make_unique<btBoxShape>(btVector3(ha.x, ha.y, ha.z)));
    b.push_back(std::make_unique<btBoxShape>(btVector3(hb.x, hb.y, hb.z)));
    ta.push_back(BtPose(p.pa));
    tb.push_back(BtPose(p.pb));
  }
  int i = 0;
  for (auto _ : state) {
    btBoxBoxDetector detector(a[i].get(), b[i].get());
    btDiscreteCollisionDetectorInterface::ClosestPointInput input;
    input.m_transformA = ta[i];
    input.m_transformB = tb[i];
    btPointCollector out;
    detector.getClosestPoints(input, out, nullptr);
    benchmark::DoNotOptimize(out.m_distance);
    i = (i + 1) & (kPairs - 1);
  }
}
BENCHMARK(BM_BoxBoxMtvBullet)->Name("BoxBoxMtv/bullet");

void BM_BoxBoxMtvFcl(benchmark::State& state) {
  const std::vector<BoxPair>& pairs = BoxPairs();
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> a;
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> b;
  for (const BoxPair& p : pairs) {
    const Vec3 ha = p.a.half_extents;
    const Vec3 hb = p.b.half_extents;
    a.push_back(std::make_unique<fcl::CollisionObjectd>(
        std::make_shared<fcl::Boxd>(2.0 * ha.x, 2.0 * ha.y, 2.0 * ha.z),
        FclPose(p.pa)));
    b.push_back(std::make_unique<fcl::CollisionObjectd>(
        std::make_shared<fcl::Boxd>(2.0 * hb.x, 2.0 * hb.y, 2.0 * hb.z),
        FclPose(p.pb)));
  }
  const fcl::CollisionRequestd request(4, true);
  int i = 0;
  for (auto _ : state) {
    fcl::CollisionResultd result;
    fcl::collide(a[i].get(), b[i].get(), request, result);
    benchmark::DoNotOptimize(result);
    i = (i + 1) & (kPairs - 1);
  }
}
BENCHMARK(BM_BoxBoxMtvFcl)->Name("BoxBoxMtv/fcl");

// ---- Hull-hull MTV
// ------------------------------------------------------------

void BM_HullHullMtvSator(benchmark::State& state) {
  const std::vector<HullPair>& pairs = HullPairs();
  const auto& hulls = Hulls();
  int i = 0;
  for (auto _ : state) {
    const HullPair& p = pairs[i];
    const ContactResult<3> c =
        ContactHullHull(*hulls[p.a], *hulls[p.b], MulT(p.pa, p.pb));
    benchmark::DoNotOptimize(c);
    i = (i + 1) & (kPairs - 1);
  }
}
BENCHMARK(BM_HullHullMtvSator)->Name("HullHullMtv/sator");

void BM_HullHullMtvDispatchSator(benchmark::State& state) {
  const std::vector<HullPair>& pairs = HullPairs();
  std::vector<ConvexShape3> shapes(Hulls().begin(), Hulls().end());
  int i = 0;
  for (auto _ : state) {
    const HullPair& p = pairs[i];
    const ContactResult<3> c = Contact(shapes[p.a], p.pa, shapes[p.b], p.pb);
    benchmark::DoNotOptimize(c);
    i = (i + 1) & (kPairs - 1);
  }
}
BENCHMARK(BM_HullHullMtvDispatchSator)->Name("HullHullMtvDispatch/sator");

// libccd objects: a hull and its world pose; support and centre in world.
struct CcdHull {
  const ConvexHull* hull;
  Pose3 pose;
};

void CcdSupport(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const CcdHull& h = *static_cast<const CcdHull*>(obj);
  const Vec3 d =
      InvRotate(h.pose.rotation, Vec3{static_cast<float>(dir->v[0]),
                                      static_cast<float>(dir->v[1]),
                                      static_cast<float>(dir->v[2])});
  const std::vector<Vec3>& v = h.hull->vertices;
  int best = 0;
  float best_d = Dot(d, v[0]);
  for (int i = 1; i < static_cast<int>(v.size()); ++i) {
    const float x = Dot(d, v[i]);
    if (x > best_d) {
      best_d = x;
      best = i;
    }
  }
  const Vec3 p = Transform(h.pose, v[best]);
  ccdVec3Set(out, p.x, p.y, p.z);
}

void CcdCenter(const void* obj, ccd_vec3_t* out) {
  const CcdHull& h = *static_cast<const CcdHull*>(obj);
  const Vec3 c = Transform(h.pose, h.hull->centroid);
  ccdVec3Set(out, c.x, c.y, c.z);
}

void BM_HullHullMtvCcd(benchmark::State& state) {
  const std::vector<HullPair>& pairs = HullPairs();
  const auto& hulls = Hulls();
  std::vector<CcdHull> a;
  std::vector<CcdHull> b;
  for (const HullPair& p : pairs) {
    a.push_back({hulls[p.a].get(), p.pa});
    b.push_back({hulls[p.b].get(), p.pb});
  }
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = CcdSupport;
  ccd.support2 = CcdSupport;
  ccd.center1 = CcdCenter;
  ccd.center2 = CcdCenter;
  ccd.max_iterations = 100;
  int i = 0;
  for (auto _ : state) {
    ccd_real_t depth = 0;
    ccd_vec3_t dir;
    ccd_vec3_t pos;
    const int r = ccdMPRPenetration(&a[i], &b[i], &ccd, &depth, &dir, &pos);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(depth);
    i = (i + 1) & (kPairs - 1);
  }
}
BENCHMARK(BM_HullHullMtvCcd)->Name("HullHullMtv/ccd");

void BM_HullHullMtvBullet(benchmark::State& state) {
  const std::vector<HullPair>& pairs = HullPairs();
  const auto& hulls = Hulls();
  std::vector<std::unique_ptr<btConvexHullShape>> shapes;
  for (const auto& hull : hulls) {
    auto s = std::make_unique<btConvexHullShape>();
    for (const Vec3& v : hull->vertices) {
      s->addPoint(btVector3(v.x, v.y, v.z), false);
    }
    s->recalcLocalAabb();
    s->setMargin(0.0f);  // The same geometry as ours (no 0.04 inflation).
    shapes.push_back(std::move(s));
  }
  std::vector<btTransform> ta;
  std::vector<btTransform> tb;
  for (const HullPair& p : pairs) {
    ta.push_back(BtPose(p.pa));
    tb.push_back(BtPose(p.pb));
  }
  int i = 0;
  for (auto _ : state) {
    btVoronoiSimplexSolver simplex;
    btGjkEpaPenetrationDepthSolver epa;
    btGjkPairDetector detector(shapes[pairs[i].a].get(),
                               shapes[pairs[i].b].get(), &simplex, &epa);
    btGjkPairDetector::ClosestPointInput input;
    input.m_transformA = ta[i];
    input.m_transformB = tb[i];
    btPointCollector out;
    detector.getClosestPoints(input, out, nullptr);
    benchmark::DoNotOptimize(out.m_distance);
    i = (i + 1) & (kPairs - 1);
  }
}
BENCHMARK(BM_HullHullMtvBullet)->Name("HullHullMtv/bullet");

// ---- Round shapes (Sator only) ---------------------------------------------

struct RoundPair {
  ConvexShape3 a;
  ConvexShape3 b;
  Pose3 pa;
  Pose3 pb;
};

Capsule3 RandomCapsule() {
  const Vec3 d = U(0.2f, 1.0f) * RandomUnit();
  return {-d, d, U(0.1f, 0.5f)};
}

// A capsule (or, with a_sphere, a sphere) against `make_b()`'s shapes.
// Balanced: exactly half the pairs overlap.
template <typename MakeB>
std::vector<RoundPair> MakeRoundPairs(bool a_sphere, MakeB make_b) {
  std::vector<RoundPair> out;
  int over = 0;
  int apart = 0;
  while (static_cast<int>(out.size()) < kPairs) {
    RoundPair p;
    if (a_sphere) {
      p.a = Sphere{U(0.1f, 0.8f)};
    } else {
      p.a = RandomCapsule();
    }
    p.b = make_b();
    p.pa = {{U(-10, 10), U(-10, 10), U(-10, 10)}, RandomRotation()};
    p.pb = {p.pa.position + U(0.0f, 2.5f) * RandomUnit(), RandomRotation()};
    const bool hit = Overlap(p.a, p.pa, p.b, p.pb);
    if (hit && over < kPairs / 2) {
      ++over;
      out.push_back(p);
    } else if (!hit && apart < kPairs / 2) {
      ++apart;
      out.push_back(p);
    }
  }
  return out;
}

void RunRoundMtv(benchmark::State& state, const std::vector<RoundPair>& pairs) {
  int i = 0;
  for (auto _ : state) {
    const RoundPair& p = pairs[i];
    const ContactResult<3> c = Contact(p.a, p.pa, p.b, p.pb);
    benchmark::DoNotOptimize(c);
    i = (i + 1) & (kPairs - 1);
  }
}

const std::vector<RoundPair>& CapsuleCapsulePairs() {
  static const std::vector<RoundPair> pairs =
      MakeRoundPairs(false, [] { return ConvexShape3{RandomCapsule()}; });
  return pairs;
}

void BM_CapsuleCapsuleMtvSator(benchmark::State& state) {
  RunRoundMtv(state, CapsuleCapsulePairs());
}
BENCHMARK(BM_CapsuleCapsuleMtvSator)->Name("CapsuleCapsuleMtv/sator");

void BM_CapsuleCapsuleOverlapSator(benchmark::State& state) {
  const std::vector<RoundPair>& pairs = CapsuleCapsulePairs();
  int i = 0;
  for (auto _ : state) {
    const RoundPair& p = pairs[i];
    const bool hit = Overlap(p.a, p.pa, p.b, p.pb);
    benchmark::DoNotOptimize(hit);
    i = (i + 1) & (kPairs - 1);
  }
}
BENCHMARK(BM_CapsuleCapsuleOverlapSator)->Name("CapsuleCapsuleOverlap/sator");

void BM_SphereCapsuleMtvSator(benchmark::State& state) {
  static const std::vector<RoundPair> pairs =
      MakeRoundPairs(true, [] { return ConvexShape3{RandomCapsule()}; });
  RunRoundMtv(state, pairs);
}
BENCHMARK(BM_SphereCapsuleMtvSator)->Name("SphereCapsuleMtv/sator");

const std::vector<RoundPair>& CapsuleBoxPairs() {
  static const std::vector<RoundPair> pairs = MakeRoundPairs(false, [] {
    return ConvexShape3{Box3{{U(0.2f, 1.0f), U(0.2f, 1.0f), U(0.2f, 1.0f)}}};
  });
  return pairs;
}

void BM_CapsuleBoxMtvSator(benchmark::State& state) {
  RunRoundMtv(state, CapsuleBoxPairs());
}
BENCHMARK(BM_CapsuleBoxMtvSator)->Name("CapsuleBoxMtv/sator");

// The peers' capsules lie along their local z (FCL's Capsule, Bullet's
// btCapsuleShapeZ) and are centred: the world pose of ours is its shape's
// pose times the turn from z to its segment, about its midpoint.
Pose3 CapsuleFramePose(const Capsule3& c, const Pose3& pose) {
  const Vec3 axis = NormalizeOrZero(c.b - c.a);
  const Vec3 z{0.0f, 0.0f, 1.0f};
  const float cos_angle = std::clamp(Dot(z, axis), -1.0f, 1.0f);
  Vec3 turn_axis = Cross(z, axis);
  if (LengthSquared(turn_axis) < 1e-12f) turn_axis = {1.0f, 0.0f, 0.0f};
  const Pose3 local{0.5f * (c.a + c.b),
                    Quat::FromAxisAngle(turn_axis, std::acos(cos_angle))};
  return Mul(pose, local);
}

std::shared_ptr<fcl::CollisionGeometryd> FclShape(const ConvexShape3& s) {
  if (const auto* c = std::get_if<Capsule3>(&s)) {
    return std::make_shared<fcl::Capsuled>(c->radius, Length(c->b - c->a));
  }
  const Vec3 h = std::get<Box3>(s).half_extents;
  return std::make_shared<fcl::Boxd>(2.0 * h.x, 2.0 * h.y, 2.0 * h.z);
}

Pose3 PeerPose(const ConvexShape3& s, const Pose3& pose) {
  if (const auto* c = std::get_if<Capsule3>(&s)) {
    return CapsuleFramePose(*c, pose);
  }
  return pose;
}

// fcl::collide with contacts (one, with its depth and normal), as
// BoxBoxMtv/fcl.
void RunRoundMtvFcl(benchmark::State& state,
                    const std::vector<RoundPair>& pairs) {
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> a;
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> b;
  for (const RoundPair& p : pairs) {
    a.push_back(std::make_unique<fcl::CollisionObjectd>(
        FclShape(p.a), FclPose(PeerPose(p.a, p.pa))));
    b.push_back(std::make_unique<fcl::CollisionObjectd>(
        FclShape(p.b), FclPose(PeerPose(p.b, p.pb))));
  }
  const fcl::CollisionRequestd request(1, true);
  int i = 0;
  for (auto _ : state) {
    fcl::CollisionResultd result;
    fcl::collide(a[i].get(), b[i].get(), request, result);
    benchmark::DoNotOptimize(result);
    i = (i + 1) & (kPairs - 1);
  }
}

// Bullet's GJK with its EPA penetration solver, as HullHullMtv/bullet. A
// btCapsuleShapeZ keeps its radius as its margin (GJK runs on the segment
// and adds it); a btBoxShape gets margin 0, as the hulls of
// HullHullMtv/bullet (setMargin keeps its extents; with the default 0.04
// its edges and corners were rounded by 0.04 and 670 of the 1024 depths
// differed from ours by more than 1e-3).
std::unique_ptr<btConvexShape> BulletShape(const ConvexShape3& s) {
  if (const auto* c = std::get_if<Capsule3>(&s)) {
    return std::make_unique<btCapsuleShapeZ>(c->radius, Length(c->b - c->a));
  }
  const Vec3 h = std::get<Box3>(s).half_extents;
  auto box = std::make_unique<btBoxShape>(btVector3(h.x, h.y, h.z));
  box->setMargin(0.0f);  // Sharp edges, as ours (it keeps the extents).
  return box;
}

void RunRoundMtvBullet(benchmark::State& state,
                       const std::vector<RoundPair>& pairs) {
  std::vector<std::unique_ptr<btConvexShape>> a;
  std::vector<std::unique_ptr<btConvexShape>> b;
  std::vector<btTransform> ta;
  std::vector<btTransform> tb;
  for (const RoundPair& p : pairs) {
    a.push_back(BulletShape(p.a));
    b.push_back(BulletShape(p.b));
    ta.push_back(BtPose(PeerPose(p.a, p.pa)));
    tb.push_back(BtPose(PeerPose(p.b, p.pb)));
  }
  int i = 0;
  for (auto _ : state) {
    btVoronoiSimplexSolver simplex;
    btGjkEpaPenetrationDepthSolver epa;
    btGjkPairDetector detector(a[i].get(), b[i].get(), &simplex, &epa);
    btGjkPairDetector::ClosestPointInput input;
    input.m_transformA = ta[i];
    input.m_transformB = tb[i];
    btPointCollector out;
    detector.getClosestPoints(input, out, nullptr);
    benchmark::DoNotOptimize(out.m_distance);
    i = (i + 1) & (kPairs - 1);
  }
}

void BM_CapsuleBoxMtvFcl(benchmark::State& state) {
  RunRoundMtvFcl(state, CapsuleBoxPairs());
}
BENCHMARK(BM_CapsuleBoxMtvFcl)->Name("CapsuleBoxMtv/fcl");

void BM_CapsuleBoxMtvBullet(benchmark::State& state) {
  RunRoundMtvBullet(state, CapsuleBoxPairs());
}
BENCHMARK(BM_CapsuleBoxMtvBullet)->Name("CapsuleBoxMtv/bullet");

void BM_CapsuleCapsuleMtvFcl(benchmark::State& state) {
  RunRoundMtvFcl(state, CapsuleCapsulePairs());
}
BENCHMARK(BM_CapsuleCapsuleMtvFcl)->Name("CapsuleCapsuleMtv/fcl");

void BM_CapsuleCapsuleMtvBullet(benchmark::State& state) {
  RunRoundMtvBullet(state, CapsuleCapsulePairs());
}
BENCHMARK(BM_CapsuleCapsuleMtvBullet)->Name("CapsuleCapsuleMtv/bullet");

void BM_CapsuleHullMtvSator(benchmark::State& state) {
  static const std::vector<RoundPair> pairs = MakeRoundPairs(
      false, [] { return ConvexShape3{Hulls()[Rng()() % Hulls().size()]}; });
  RunRoundMtv(state, pairs);
}
BENCHMARK(BM_CapsuleHullMtvSator)->Name("CapsuleHullMtv/sator");

}  // namespace
}  // namespace sator

BENCHMARK_MAIN();
