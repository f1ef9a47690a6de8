// 3D broad phase side by side with Bullet's btDbvt (the dynamic AABB tree of
// btDbvtBroadphase), on the same boxes.
//
// Scene: N boxes with half extents in [0.1, 1] in a 1000^3 world scaled so
// the density per unit volume gives about as many hits per query as the 2D
// scene: the world is 1000 x 1000 x 100. Queries are 10 x 10 x 10 boxes and
// closest-hit rays of length 100. btDbvt's ray test cannot clip its segment
// from the callback, so its closest hit tests every candidate along the
// whole ray: that is the library's API, measured as is.
#include "broadphase3d_cases.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "BulletCollision/BroadphaseCollision/btDbvt.h"
#include "benchmark/benchmark.h"
#include "sator/core/aabb.h"
#include "sator/core/broadphase/bvh.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/broadphase/dynamic_tree.h"

namespace sator::broadphase {
namespace {

// benchmark::DoNotOptimize through a const reference: the non-const overload
// miscompiles with GCC 12 (google/benchmark#903).
template <typename T>
void Keep(const T& value) {
  benchmark::DoNotOptimize(value);
}

constexpr float kWorldXY = 1000.0f;
constexpr float kWorldZ = 100.0f;
constexpr int kQueryCount = 1024;
constexpr float kQueryHalf = 5.0f;
constexpr float kRayLength = 100.0f;
constexpr float kMaxSpeed = 0.1f;
constexpr float kMargin = 0.1f;  // Ours; btDbvt::update takes the same.
constexpr int kWarmUpTicks = 8;

struct Scene3 {
  std::vector<Aabb3> boxes;
  std::vector<Vec3> velocities;
  std::vector<Aabb3> queries;
  std::vector<std::pair<Vec3, Vec3>> rays;
};

btDbvtVolume ToBt(const Aabb3& box) {
  return btDbvtVolume::FromMM(btVector3(box.min.x, box.min.y, box.min.z),
                              btVector3(box.max.x, box.max.y, box.max.z));
}

const Scene3& GetScene3(int n) {
  static std::map<int, std::unique_ptr<Scene3>> cache;
  std::unique_ptr<Scene3>& slot = cache[n];
  if (slot) return *slot;
  slot = std::make_unique<Scene3>();
  std::mt19937 rng(static_cast<std::uint32_t>(n) + 3);
  std::uniform_real_distribution<float> xy(1.0f, kWorldXY - 1.0f);
  std::uniform_real_distribution<float> z(1.0f, kWorldZ - 1.0f);
  std::uniform_real_distribution<float> half(0.1f, 1.0f);
  std::uniform_real_distribution<float> speed(-kMaxSpeed, kMaxSpeed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int i = 0; i < n; ++i) {
    const Vec3 c{xy(rng), xy(rng), z(rng)};
    const Vec3 h{half(rng), half(rng), half(rng)};
    slot->boxes.push_back({c - h, c + h});
    slot->velocities.push_back({speed(rng), speed(rng), speed(rng)});
  }
  const Vec3 q{kQueryHalf, kQueryHalf, kQueryHalf};
  for (int i = 0; i < kQueryCount; ++i) {
    const Vec3 c{xy(rng), xy(rng), z(rng)};
    slot->queries.push_back({c - q, c + q});
    Vec3 d{normal(rng), normal(rng), 0.2f * normal(rng)};
    d = NormalizeOrZero(d);
    if (LengthSquared(d) == 0.0f) d = {1.0f, 0.0f, 0.0f};
    slot->rays.push_back({Vec3{xy(rng), xy(rng), z(rng)}, kRayLength * d});
  }
  return *slot;
}

struct Built3 {
  std::unique_ptr<DynamicTree3> tree;
  std::vector<std::uint32_t> tree_body;
  std::unique_ptr<Bvh3> lbvh;
  std::unique_ptr<btDbvt> dbvt;
};

const Built3& GetBuilt3(int n) {
  static std::map<int, std::unique_ptr<Built3>> cache;
  std::unique_ptr<Built3>& slot = cache[n];
  if (slot) return *slot;
  const Scene3& scene = GetScene3(n);
  slot = std::make_unique<Built3>();
  slot->tree = std::make_unique<DynamicTree3>(
      *DynamicTree3::Create({.margin = kMargin}));
  slot->tree_body.resize(2 * static_cast<std::size_t>(n));
  slot->lbvh = std::make_unique<Bvh3>(
      *Bvh3::Create({.method = BvhBuildMethod::kMorton}));
  slot->dbvt = std::make_unique<btDbvt>();
  for (int i = 0; i < n; ++i) {
    slot->tree_body[*slot->tree->CreateProxy(scene.boxes[i])] =
        static_cast<std::uint32_t>(i);
    btDbvtNode* leaf =
        slot->dbvt->insert(ToBt(Inflate(scene.boxes[i], kMargin)), nullptr);
    leaf->dataAsInt = i;
  }
  (void)slot->lbvh->Build(scene.boxes);
  return *slot;
}

// ---- sator -----------------------------------------------------------------

template <typename Structure, typename ToBody>
void Query3(benchmark::State& state, int n, const Structure& structure,
            ToBody to_body) {
  const Scene3& scene = GetScene3(n);
  std::size_t q = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const Aabb3& query = scene.queries[q++ % kQueryCount];
    int count = 0;
    structure.Query(query, [&](std::uint32_t proxy) {
      count += Overlaps(scene.boxes[to_body(proxy)], query) ? 1 : 0;
      return true;
    });
    Keep(count);
    hits += count;
  }
  state.counters["hits"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

template <typename Structure, typename ToBody>
void Ray3(benchmark::State& state, int n, const Structure& structure,
          ToBody to_body) {
  const Scene3& scene = GetScene3(n);
  std::size_t q = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    const auto& [origin, translation] = scene.rays[q++ % kQueryCount];
    const Segment<3> segment(origin, translation);
    float best = 2.0f;
    structure.RayCast(
        {origin, translation, 1.0f},
        [&](std::uint32_t proxy, const RayCastInput<3>& clipped) -> float {
          float entry = 0.0f;
          if (!segment.Hits(scene.boxes[to_body(proxy)], Vec3{},
                            clipped.max_fraction, &entry)) {
            return -1.0f;
          }
          best = std::min(best, entry);
          return entry;
        });
    Keep(best);
    hits += best <= 1.0f ? 1 : 0;
  }
  state.counters["hit_rate"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

// ---- Bullet
// ------------------------------------------------------------------

struct DbvtQuery : btDbvt::ICollide {
  const Scene3* scene = nullptr;
  const Aabb3* query = nullptr;
  int count = 0;
  void Process(const btDbvtNode* leaf) override {
    count += Overlaps(scene->boxes[static_cast<std::size_t>(leaf->dataAsInt)],
                      *query)
                 ? 1
                 : 0;
  }
};

struct DbvtRay : btDbvt::ICollide {
  const Scene3* scene = nullptr;
  const Segment<3>* segment = nullptr;
  float best = 2.0f;
  void Process(const btDbvtNode* leaf) override {
    float entry = 0.0f;
    if (segment->Hits(scene->boxes[static_cast<std::size_t>(leaf->dataAsInt)],
                      Vec3{}, std::min(best, 1.0f), &entry)) {
      best = std::min(best, entry);
    }
  }
};

void QueryBullet(benchmark::State& state, int n) {
  const Scene3& scene = GetScene3(n);
  const Built3& built = GetBuilt3(n);
  std::size_t q = 0;
  std::int64_t hits = 0;
  DbvtQuery policy;
  policy.scene = &scene;
  for (auto _ : state) {
    const Aabb3& query = scene.queries[q++ % kQueryCount];
    policy.query = &query;
    policy.count = 0;
    built.dbvt->collideTV(built.dbvt->m_root, ToBt(query), policy);
    Keep(policy.count);
    hits += policy.count;
  }
  state.counters["hits"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

void RayBullet(benchmark::State& state, int n) {
  const Scene3& scene = GetScene3(n);
  const Built3& built = GetBuilt3(n);
  std::size_t q = 0;
  std::int64_t hits = 0;
  btAlignedObjectArray<const btDbvtNode*> stack;
  for (auto _ : state) {
    const auto& [origin, translation] = scene.rays[q++ % kQueryCount];
    const Segment<3> segment(origin, translation);
    DbvtRay policy;
    policy.scene = &scene;
    policy.segment = &segment;
    // As btDbvtBroadphase::rayTest prepares it: unit direction, its inverse
    // (BT_LARGE_FLOAT for zero components), signs, length as lambda_max.
    const btVector3 from(origin.x, origin.y, origin.z);
    const btVector3 to(origin.x + translation.x, origin.y + translation.y,
                       origin.z + translation.z);
    btVector3 direction = to - from;
    const btScalar length = direction.length();
    direction /= length;
    btVector3 inverse;
    for (int i = 0; i < 3; ++i) {
      inverse[i] = direction[i] == btScalar(0) ? btScalar(BT_LARGE_FLOAT)
                                               : btScalar(1) / direction[i];
    }
    unsigned int signs[3] = {inverse[0] < 0.0f, inverse[1] < 0.0f,
                             inverse[2] < 0.0f};
    built.dbvt->rayTestInternal(built.dbvt->m_root, from, to, inverse, signs,
                                length, btVector3(0, 0, 0), btVector3(0, 0, 0),
                                stack, policy);
    Keep(policy.best);
    hits += policy.best <= 1.0f ? 1 : 0;
  }
  state.counters["hit_rate"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

// ---- Build and update
// ----------------------------------------------------------

struct Motion3 {
  std::vector<Aabb3> boxes;
  std::vector<Vec3> velocities;
  explicit Motion3(const Scene3& scene)
      : boxes(scene.boxes), velocities(scene.velocities) {}
  Vec3 Step(std::size_t i) {
    Aabb3& box = boxes[i];
    Vec3& v = velocities[i];
    const Vec3 world{kWorldXY, kWorldXY, kWorldZ};
    for (int k = 0; k < 3; ++k) {
      if (box.min[k] + v[k] < 0.0f || box.max[k] + v[k] > world[k]) {
        v[k] = -v[k];
      }
    }
    box = {box.min + v, box.max + v};
    return v;
  }
};

void Register(const std::string& name,
              std::function<void(benchmark::State&)> function) {
  benchmark::RegisterBenchmark(name.c_str(), std::move(function))
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

void Register3d(int n, const std::string& tag) {
  const std::string t = tag + "_3d";
  Register("Build" + t + "_Lbvh/sator", [n](benchmark::State& s) {
    const Scene3& scene = GetScene3(n);
    for (auto _ : s) {
      auto bvh = *Bvh3::Create({.method = BvhBuildMethod::kMorton});
      if (!bvh.Build(scene.boxes).ok()) s.SkipWithError("build failed");
      const int count = bvh.NodeCount();
      Keep(count);
    }
  });
  Register("Build" + t + "_Tree/sator", [n](benchmark::State& s) {
    const Scene3& scene = GetScene3(n);
    for (auto _ : s) {
      auto tree = *DynamicTree3::Create({.margin = kMargin});
      for (const Aabb3& box : scene.boxes) {
        const auto proxy = tree.CreateProxy(box);
        Keep(*proxy);
      }
    }
  });
  for (const char* kind : {"_Lbvh", "_Tree"}) {
    Register("Build" + t + kind + "/bullet", [n](benchmark::State& s) {
      const Scene3& scene = GetScene3(n);
      for (auto _ : s) {
        btDbvt tree;
        for (const Aabb3& box : scene.boxes) {
          btDbvtNode* leaf = tree.insert(ToBt(Inflate(box, kMargin)), nullptr);
          Keep(leaf);
        }
      }
    });
    const bool lbvh = std::string(kind) == "_Lbvh";
    Register("AabbQuery" + t + kind + "/sator", [n, lbvh](benchmark::State& s) {
      const Built3& built = GetBuilt3(n);
      if (lbvh) {
        Query3(s, n, *built.lbvh, [](std::uint32_t p) { return p; });
      } else {
        Query3(s, n, *built.tree,
               [&](std::uint32_t p) { return built.tree_body[p]; });
      }
    });
    Register("AabbQuery" + t + kind + "/bullet",
             [n](benchmark::State& s) { QueryBullet(s, n); });
    Register("Raycast" + t + kind + "/sator", [n, lbvh](benchmark::State& s) {
      const Built3& built = GetBuilt3(n);
      if (lbvh) {
        Ray3(s, n, *built.lbvh, [](std::uint32_t p) { return p; });
      } else {
        Ray3(s, n, *built.tree,
             [&](std::uint32_t p) { return built.tree_body[p]; });
      }
    });
    Register("Raycast" + t + kind + "/bullet",
             [n](benchmark::State& s) { RayBullet(s, n); });
  }
  // Every body moves a little each tick.
  Register("Update" + t + "_Dynamic_Lbvh/sator", [n](benchmark::State& s) {
    Motion3 motion(GetScene3(n));
    auto bvh = *Bvh3::Create({.method = BvhBuildMethod::kMorton});
    auto tick = [&] {
      for (std::size_t i = 0; i < motion.boxes.size(); ++i) motion.Step(i);
      return bvh.Build(motion.boxes);
    };
    for (int i = 0; i < kWarmUpTicks; ++i) (void)tick();
    for (auto _ : s) {
      if (!tick().ok()) s.SkipWithError("build failed");
    }
  });
  Register("Update" + t + "_Dynamic_Tree/sator", [n](benchmark::State& s) {
    Motion3 motion(GetScene3(n));
    auto tree = *DynamicTree3::Create({.margin = kMargin});
    std::vector<std::uint32_t> proxy;
    for (const Aabb3& box : motion.boxes) {
      proxy.push_back(*tree.CreateProxy(box));
    }
    auto tick = [&] {
      for (std::size_t i = 0; i < motion.boxes.size(); ++i) {
        const Vec3 d = motion.Step(i);
        (void)*tree.MoveProxy(proxy[i], motion.boxes[i], d);
      }
    };
    for (int i = 0; i < kWarmUpTicks; ++i) tick();
    for (auto _ : s) tick();
  });
  for (const char* kind : {"_Lbvh", "_Tree"}) {
    Register(
        "Update" + t + "_Dynamic" + kind + "/bullet", [n](benchmark::State& s) {
          Motion3 motion(GetScene3(n));
          btDbvt tree;
          std::vector<btDbvtNode*> leaves;
          for (const Aabb3& box : motion.boxes) {
            leaves.push_back(tree.insert(ToBt(Inflate(box, kMargin)), nullptr));
          }
          // As btDbvtBroadphase::setAabb: update with the velocity
          // (its prediction) and the margin.
          auto tick = [&] {
            for (std::size_t i = 0; i < motion.boxes.size(); ++i) {
              const Vec3 d = motion.Step(i);
              btDbvtVolume volume = ToBt(motion.boxes[i]);
              tree.update(leaves[i], volume, btVector3(d.x, d.y, d.z), kMargin);
            }
          };
          for (int i = 0; i < kWarmUpTicks; ++i) tick();
          for (auto _ : s) tick();
        });
  }
}

}  // namespace sator::broadphase
