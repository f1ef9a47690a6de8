// Sweeps and mesh rays, Sator side by side with FCL and Bullet on the same
// pregenerated inputs. Names are <case>/<library>.
//
//   BoxBoxSweep/{sator,fcl}: two OBBs both moving linearly; about half hit.
//     FCL: fcl::continuousCollide with its default request (naive sampling of
//     the motion, 10 iterations, translation motion, libccd GJK); it samples
//     and can miss, Sator is exact.
//   BoxBoxSweepCA/{sator,fcl}: the same inputs, FCL with its continuous
//     solver, conservative advancement (CCDC_CONSERVATIVE_ADVANCEMENT, libccd
//     GJK); it is reported to miss up to 13% of hits (not measured
//     here). The sator side is the same call as BoxBoxSweep/sator, repeated
//     so that each case has its own pair.
//   MeshRay100k/{sator,bullet}: closest hit of a ray against a 100,352
//     triangle height field; most rays hit. Bullet: btBvhTriangleMeshShape
//     (quantized BVH) with btTriangleRaycastCallback keeping the closest hit.
//   CapsuleMeshMtv100k/{sator,fcl}: "is this player inside a wall": a
//     character capsule (radius 0.4, half height 0.9, upright or tilted) whose
//     lowest point is 0 to 0.3 below the same height field, against the whole
//     mesh: the deepest triangle's MTV. Sator: Contact(shape, mesh); FCL:
//     fcl::collide of a Capsuled against a BVHModel<OBBRSSd> with contacts on
//     (every overlapping triangle's contact, the deepest kept), libccd GJK/EPA
//     per triangle.
#include <memory>
#include <random>
#include <vector>

#include "BulletCollision/NarrowPhaseCollision/btRaycastCallback.h"
#include "benchmark/benchmark.h"
#include "btBulletCollisionCommon.h"
#include "fcl/geometry/bvh/BVH_model.h"
#include "fcl/narrowphase/collision.h"
#include "fcl/narrowphase/continuous_collision.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/mesh_queries.h"
#include "sator/core/collide3d/raycast3d.h"
#include "sator/core/collide3d/sweep3d.h"
#include "sator/core/collide3d/triangle_mesh.h"

namespace sator {
namespace {

constexpr int kCases = 1024;  // A power of two: the loop index is masked.

class Rng {
 public:
  explicit Rng(unsigned seed) : engine_(seed) {}
  float Uniform(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(engine_);
  }
  Vec3 InBox(float h) {
    return {Uniform(-h, h), Uniform(-h, h), Uniform(-h, h)};
  }
  Quat Rotation() {
    Vec3 axis = InBox(1.0f);
    if (LengthSquared(axis) < 1e-4f) axis = {0, 0, 1};
    return Quat::FromAxisAngle(axis, Uniform(-3.14159f, 3.14159f));
  }

 private:
  std::mt19937 engine_;
};

// ---- Box-box sweep -----------------------------------------------------

struct BoxSweepCase {
  Box3 a, b;
  Pose3 pa, pb;
  Vec3 da, db;
};

const std::vector<BoxSweepCase>& BoxSweepCases() {
  static const auto* cases = [] {
    auto* out = new std::vector<BoxSweepCase>();
    Rng rng(42);
    int hits = 0;
    while (static_cast<int>(out->size()) < kCases) {
      BoxSweepCase c;
      c.a.half_extents = {rng.Uniform(0.3f, 1.0f), rng.Uniform(0.3f, 1.0f),
                          rng.Uniform(0.3f, 1.0f)};
      c.b.half_extents = {rng.Uniform(0.3f, 1.0f), rng.Uniform(0.3f, 1.0f),
                          rng.Uniform(0.3f, 1.0f)};
      c.pa = {rng.InBox(1.0f), rng.Rotation()};
      c.pb = {c.pa.position + rng.InBox(4.0f), rng.Rotation()};
      c.da = rng.InBox(1.0f);
      c.db = (c.pa.position - c.pb.position) * rng.Uniform(0.3f, 1.6f) +
             rng.InBox(1.5f);
      const SweepResult<3> r = Sweep(c.a, c.pa, c.da, c.b, c.pb, c.db);
      // Keep separated starts only, balancing hits and misses.
      if (r.outcome == SweepOutcome::kStartedOverlapping) continue;
      const bool hit = r.outcome == SweepOutcome::kHit;
      const int n = static_cast<int>(out->size());
      if (hit && hits > n / 2) continue;
      if (!hit && n - hits > n / 2) continue;
      hits += hit ? 1 : 0;
      out->push_back(c);
    }
    return out;
  }();
  return *cases;
}

void BM_BoxBoxSweep_Sator(benchmark::State& state) {
  const auto& cases = BoxSweepCases();
  std::size_t i = 0;
  for (auto _ : state) {
    const BoxSweepCase& c = cases[i++ & (kCases - 1)];
    const ConvexShape3 a = c.a;
    const ConvexShape3 b = c.b;
    const SweepResult<3> r = Sweep(a, c.pa, c.da, b, c.pb, c.db);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_BoxBoxSweep_Sator)->Name("BoxBoxSweep/sator");

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

void BoxBoxSweepFcl(benchmark::State& state, fcl::CCDSolverType solver) {
  struct FclCase {
    std::shared_ptr<fcl::Boxd> a, b;
    fcl::Transform3d a0, a1, b0, b1;
  };
  std::vector<FclCase> cases;
  for (const BoxSweepCase& c : BoxSweepCases()) {
    const Vec3 ha = c.a.half_extents;
    const Vec3 hb = c.b.half_extents;
    cases.push_back(
        {std::make_shared<fcl::Boxd>(2.0 * ha.x, 2.0 * ha.y, 2.0 * ha.z),
         std::make_shared<fcl::Boxd>(2.0 * hb.x, 2.0 * hb.y, 2.0 * hb.z),
         ToFcl(c.pa, {}), ToFcl(c.pa, c.da), ToFcl(c.pb, {}),
         ToFcl(c.pb, c.db)});
  }
  fcl::ContinuousCollisionRequestd request;
  request.ccd_solver_type = solver;
  std::size_t i = 0;
  for (auto _ : state) {
    const FclCase& c = cases[i++ & (kCases - 1)];
    fcl::ContinuousCollisionResultd result;
    const double toc = fcl::continuousCollide(c.a.get(), c.a0, c.a1, c.b.get(),
                                              c.b0, c.b1, request, result);
    benchmark::DoNotOptimize(toc);
  }
}
void BM_BoxBoxSweep_Fcl(benchmark::State& state) {
  BoxBoxSweepFcl(state, fcl::CCDC_NAIVE);
}
BENCHMARK(BM_BoxBoxSweep_Fcl)->Name("BoxBoxSweep/fcl");
BENCHMARK(BM_BoxBoxSweep_Sator)->Name("BoxBoxSweepCA/sator");
void BM_BoxBoxSweepCA_Fcl(benchmark::State& state) {
  BoxBoxSweepFcl(state, fcl::CCDC_CONSERVATIVE_ADVANCEMENT);
}
BENCHMARK(BM_BoxBoxSweepCA_Fcl)->Name("BoxBoxSweepCA/fcl");

// ---- Ray against a 100k-triangle mesh ---------------------------------

struct MeshInput {
  std::vector<Vec3> vertices;
  std::vector<std::uint32_t> indices;
};

// A 224 x 224 height field over [-100, 100]^2: 100,352 triangles.
const MeshInput& Terrain() {
  static const auto* m = [] {
    auto* out = new MeshInput();
    constexpr int kN = 224;
    Rng rng(7);
    for (int j = 0; j <= kN; ++j) {
      for (int i = 0; i <= kN; ++i) {
        const float x = -100.0f + 200.0f * static_cast<float>(i) / kN;
        const float z = -100.0f + 200.0f * static_cast<float>(j) / kN;
        const float y = 3.0f * std::sin(0.1f * x) * std::cos(0.13f * z) +
                        rng.Uniform(-0.2f, 0.2f);
        out->vertices.push_back({x, y, z});
      }
    }
    const auto at = [](int i, int j) {
      return static_cast<std::uint32_t>(j * (kN + 1) + i);
    };
    for (int j = 0; j < kN; ++j) {
      for (int i = 0; i < kN; ++i) {
        out->indices.insert(out->indices.end(),
                            {at(i, j), at(i, j + 1), at(i + 1, j)});
        out->indices.insert(out->indices.end(),
                            {at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)});
      }
    }
    return out;
  }();
  return *m;
}

// Rays from 10 to 40 units above the field towards random points of it,
// plus some random directions (about a fifth miss or go far).
const std::vector<Ray<3>>& MeshRays() {
  static const auto* rays = [] {
    auto* out = new std::vector<Ray<3>>();
    Rng rng(8);
    for (int k = 0; k < kCases; ++k) {
      const Vec3 origin{rng.Uniform(-90, 90), rng.Uniform(10, 40),
                        rng.Uniform(-90, 90)};
      Vec3 dir;
      if (k % 5 == 0) {
        dir = rng.InBox(1.0f);
        if (LengthSquared(dir) < 1e-4f) dir = {0, -1, 0};
      } else {
        dir = Vec3{rng.Uniform(-90, 90), 0.0f, rng.Uniform(-90, 90)} - origin;
      }
      out->push_back({origin, NormalizeOrZero(dir), 500.0f});
    }
    return out;
  }();
  return *rays;
}

void BM_MeshRay100k_Sator(benchmark::State& state) {
  const MeshInput& m = Terrain();
  const auto mesh = MakeTriangleMesh(m.vertices, m.indices);
  if (!mesh.ok()) {
    state.SkipWithError("mesh refused");
    return;
  }
  const auto& rays = MeshRays();
  const Pose3 pose{};
  std::size_t i = 0;
  for (auto _ : state) {
    const RayResult<3> r = RayCast(**mesh, pose, rays[i++ & (kCases - 1)]);
    benchmark::DoNotOptimize(r);
  }
  state.counters["triangles"] = static_cast<double>((*mesh)->triangle_count());
  state.counters["mesh_MB"] =
      static_cast<double>((*mesh)->MemoryBytes()) / (1024.0 * 1024.0);
}
BENCHMARK(BM_MeshRay100k_Sator)->Name("MeshRay100k/sator");

// Building the mesh of MeshRay100k: validation, the BVH and the leaf-order
// copies.
void BM_MeshBuild100k_Sator(benchmark::State& state) {
  const MeshInput& m = Terrain();
  for (auto _ : state) {
    const auto mesh = MakeTriangleMesh(m.vertices, m.indices);
    if (!mesh.ok()) {
      state.SkipWithError("mesh refused");
      return;
    }
    benchmark::DoNotOptimize(mesh);
  }
  const auto mesh = MakeTriangleMesh(m.vertices, m.indices);
  if (mesh.ok()) state.counters["depth"] = (*mesh)->depth();
}
BENCHMARK(BM_MeshBuild100k_Sator)
    ->Name("MeshBuild100k/sator")
    ->Unit(benchmark::kMillisecond);

// A sphere (radius 0.5) or a box (half size 0.5) swept 5 to 20 units over
// the same height field, from 2 to 6 units above it (Sator only: no peer
// sweeps a convex shape against a mesh exactly).
void BM_MeshSweep100k_Sator(benchmark::State& state) {
  const MeshInput& m = Terrain();
  const auto mesh = MakeTriangleMesh(m.vertices, m.indices);
  if (!mesh.ok()) {
    state.SkipWithError("mesh refused");
    return;
  }
  struct Case {
    ConvexShape3 shape;
    Pose3 pose;
    Vec3 displacement;
  };
  std::vector<Case> cases;
  Rng rng(9);
  for (int k = 0; k < kCases; ++k) {
    const Vec3 p{rng.Uniform(-80, 80), rng.Uniform(6, 10),
                 rng.Uniform(-80, 80)};
    const Vec3 d{rng.Uniform(-8, 8), rng.Uniform(-12, -2), rng.Uniform(-8, 8)};
    ConvexShape3 shape = (k % 2 == 0) ? ConvexShape3{Sphere{0.5f}}
                                      : ConvexShape3{Box3{{0.5f, 0.5f, 0.5f}}};
    cases.push_back({shape, {p, rng.Rotation()}, d});
  }
  const Pose3 pose{};
  std::size_t i = 0;
  for (auto _ : state) {
    const Case& c = cases[i++ & (kCases - 1)];
    const SweepResult<3> r =
        Sweep(c.shape, c.pose, c.displacement, **mesh, pose, Vec3{});
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_MeshSweep100k_Sator)->Name("MeshSweep100k/sator");

// ---- Capsule against the 100k-triangle mesh: MTV -----------------------

struct CapsuleCase {
  Capsule3 capsule;
  Pose3 pose;
};

// The capsule's axis is its local y (sator) / z (FCL, rotated below). Its
// centre is placed so that its lowest point lies 0 to 0.3 below the height
// field's smooth part under its centre (the field adds +-0.2 of noise):
// most cases touch a few triangles.
const std::vector<CapsuleCase>& CapsuleCases() {
  static const auto* cases = [] {
    auto* out = new std::vector<CapsuleCase>();
    Rng rng(10);
    for (int k = 0; k < kCases; ++k) {
      CapsuleCase c;
      c.capsule = Capsule3{{0.0f, -0.9f, 0.0f}, {0.0f, 0.9f, 0.0f}, 0.4f};
      const float x = rng.Uniform(-90, 90);
      const float z = rng.Uniform(-90, 90);
      const float ground = 3.0f * std::sin(0.1f * x) * std::cos(0.13f * z);
      // Upright for three in four, else tilted by up to 60 degrees.
      Quat q{};
      if (k % 4 == 3) {
        q = Quat::FromAxisAngle({rng.Uniform(-1, 1), 0.0f, rng.Uniform(-1, 1)},
                                rng.Uniform(-1.05f, 1.05f));
      }
      const Vec3 axis = Rotate(q, Vec3{0, 1, 0});
      const float reach = 0.9f * std::fabs(axis.y) + 0.4f;
      c.pose = {{x, ground + reach - rng.Uniform(0.0f, 0.3f), z}, q};
      out->push_back(c);
    }
    return out;
  }();
  return *cases;
}

void BM_CapsuleMeshMtv100k_Sator(benchmark::State& state) {
  const MeshInput& m = Terrain();
  const auto mesh = MakeTriangleMesh(m.vertices, m.indices);
  if (!mesh.ok()) {
    state.SkipWithError("mesh refused");
    return;
  }
  std::vector<ConvexShape3> shapes;
  for (const CapsuleCase& c : CapsuleCases()) shapes.emplace_back(c.capsule);
  const auto& cases = CapsuleCases();
  const Pose3 pose{};
  std::size_t i = 0;
  std::int64_t overlapping = 0;
  for (auto _ : state) {
    const std::size_t k = i++ & (kCases - 1);
    const ContactResult<3> r = Contact(shapes[k], cases[k].pose, **mesh, pose);
    benchmark::DoNotOptimize(r);
    overlapping += r.overlapping ? 1 : 0;
  }
  state.counters["overlapping"] = benchmark::Counter(
      static_cast<double>(overlapping) / static_cast<double>(i));
}
BENCHMARK(BM_CapsuleMeshMtv100k_Sator)->Name("CapsuleMeshMtv100k/sator");

void BM_CapsuleMeshMtv100k_Fcl(benchmark::State& state) {
  const MeshInput& m = Terrain();
  auto model = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
  std::vector<fcl::Vector3d> points;
  for (const Vec3& v : m.vertices) points.emplace_back(v.x, v.y, v.z);
  std::vector<fcl::Triangle> triangles;
  for (std::size_t k = 0; k + 2 < m.indices.size(); k += 3) {
    triangles.emplace_back(m.indices[k], m.indices[k + 1], m.indices[k + 2]);
  }
  model->beginModel();
  model->addSubModel(points, triangles);
  model->endModel();
  const fcl::CollisionObjectd mesh_object(model);
  // FCL's capsule lies along its local z: rotate it onto Sator's y first.
  const Quat z_to_y = Quat::FromAxisAngle({1, 0, 0}, -1.5707963f);
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> capsules;
  for (const CapsuleCase& c : CapsuleCases()) {
    Pose3 p = c.pose;
    p.rotation = Mul(c.pose.rotation, z_to_y);
    capsules.push_back(std::make_unique<fcl::CollisionObjectd>(
        std::make_shared<fcl::Capsuled>(c.capsule.radius, 1.8), ToFcl(p, {})));
  }
  fcl::CollisionRequestd request(/*num_max_contacts=*/64,
                                 /*enable_contact=*/true);
  std::size_t i = 0;
  std::int64_t overlapping = 0;
  for (auto _ : state) {
    fcl::CollisionResultd result;
    fcl::collide(capsules[i++ & (kCases - 1)].get(), &mesh_object, request,
                 result);
    double deepest = 0.0;
    for (std::size_t k = 0; k < result.numContacts(); ++k) {
      deepest = std::max(deepest, result.getContact(k).penetration_depth);
    }
    benchmark::DoNotOptimize(deepest);
    overlapping += result.isCollision() ? 1 : 0;
  }
  state.counters["overlapping"] = benchmark::Counter(
      static_cast<double>(overlapping) / static_cast<double>(i));
}
BENCHMARK(BM_CapsuleMeshMtv100k_Fcl)->Name("CapsuleMeshMtv100k/fcl");

struct ClosestHit : public btTriangleRaycastCallback {
  ClosestHit(const btVector3& from, const btVector3& to)
      : btTriangleRaycastCallback(from, to) {}
  btScalar reportHit(const btVector3& normal, btScalar fraction, int,
                     int triangle) override {
    if (fraction < best_fraction) {
      best_fraction = fraction;
      best_triangle = triangle;
      best_normal = normal;
    }
    return fraction;  // Clips the ray: later hits must be closer.
  }
  btScalar best_fraction = 1;
  int best_triangle = -1;
  btVector3 best_normal{0, 0, 0};
};

void BM_MeshRay100k_Bullet(benchmark::State& state) {
  const MeshInput& m = Terrain();
  std::vector<btScalar> vertices;
  for (const Vec3& v : m.vertices) {
    vertices.insert(vertices.end(), {v.x, v.y, v.z});
  }
  std::vector<int> indices(m.indices.begin(), m.indices.end());
  btTriangleIndexVertexArray array(static_cast<int>(indices.size() / 3),
                                   indices.data(), 3 * sizeof(int),
                                   static_cast<int>(m.vertices.size()),
                                   vertices.data(), 3 * sizeof(btScalar));
  btBvhTriangleMeshShape shape(&array, /*useQuantizedAabbCompression=*/true);
  const auto& rays = MeshRays();
  std::size_t i = 0;
  for (auto _ : state) {
    const Ray<3>& ray = rays[i++ & (kCases - 1)];
    const Vec3 end = ray.origin + ray.max_distance * ray.direction;
    const btVector3 from(ray.origin.x, ray.origin.y, ray.origin.z);
    const btVector3 to(end.x, end.y, end.z);
    ClosestHit callback(from, to);
    shape.performRaycast(&callback, from, to);
    benchmark::DoNotOptimize(callback.best_fraction);
  }
}
BENCHMARK(BM_MeshRay100k_Bullet)->Name("MeshRay100k/bullet");

}  // namespace
}  // namespace sator

BENCHMARK_MAIN();
