// Sweeps and mesh rays, Sator side by side with FCL and Bullet on the same
// pregenerated inputs. Names are <case>/<library>.
//
//   BoxBoxSweep/{sator,fcl}: two OBBs both moving linearly; about half hit.
//     FCL: fcl::continuousCollide with its default request (naive sampling of
//     the motion, 10 iterations, translation motion, libccd GJK); it samples
//     and can miss, Sator is exact.
//   BoxBoxSweepCA/{sator,fcl}: the same inputs, FCL with its continuous
//     solver, conservative advancement (CCDC_CONSERVATIVE_ADVANCEMENT, libccd
//     GJK); issue #4 quotes it as missing up to 13% of hits (not measured
//     here). The sator side is the same call as BoxBoxSweep/sator, repeated
//     so that each case has its own pair.
//   MeshRay100k/{sator,bullet}: closest hit of a ray against a 100,352
//     triangle height field; most rays hit. Bullet: btBvhTriangleMeshShape
//     (quantized BVH) with btTriangleRaycastCallback keeping the closest hit.
#include <memory>
#include <random>
#include <vector>

#include "BulletCollision/NarrowPhaseCollision/btRaycastCallback.h"
#include "benchmark/benchmark.h"
#include "btBulletCollisionCommon.h"
#include "fcl/narrowphase/continuous_collision.h"
#include "sator/core/geometry3d/mesh_queries.h"
#include "sator/core/geometry3d/raycast3d.h"
#include "sator/core/geometry3d/sweep3d.h"
#include "sator/core/geometry3d/triangle_mesh.h"

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
