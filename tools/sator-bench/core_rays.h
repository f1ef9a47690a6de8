// The in-process reference of the raybatch and batch modes: the rays satord
// was sent, answered on a core scene::Scene3 built as satord builds its own,
// for the service's throughput per server core as a share of the core's.
//
// The scene is the same boxes upserted in the same chunks (so its trees are
// built by the same calls); each ray goes through SceneSnapshot::RayCast
// with the closest-hit options satord uses for a RaycastBatch or a QueryBatch
// raycast without options. The rays are as many distinct ones as given, in
// the order the workers sent them: a ray stream that repeats a few rays
// would keep the tree's nodes in cache and overstate the core.
#ifndef SATOR_TOOLS_SATOR_BENCH_CORE_RAYS_H_
#define SATOR_TOOLS_SATOR_BENCH_CORE_RAYS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "sator/core/scene/scene.h"
#include "sator/core/vec.h"

namespace sator::bench {

// One static box of sator-bench's scene.
struct SceneBox {
  Vec3 half_extents;
  Vec3 position;
};

struct CoreRay {
  Vec3 origin;
  Vec3 direction;
  float max_distance = 0.0f;
};

struct CoreRayRate {
  std::int64_t rays = 0;
  std::int64_t hits = 0;
  // Rays per second of this thread's CPU time.
  double rays_per_cpu_second = 0.0;
};

// The scene of `boxes` (ids 1, 2, ... upserted in chunks of `chunk`).
absl::StatusOr<std::unique_ptr<scene::Scene3>> BuildCoreScene(
    const std::vector<SceneBox>& boxes, int chunk);

// Answers every ray on the scene's snapshot, on this thread.
absl::StatusOr<CoreRayRate> RunCoreRays(const scene::Scene3& scene,
                                        const std::vector<CoreRay>& rays);

}  // namespace sator::bench

#endif  // SATOR_TOOLS_SATOR_BENCH_CORE_RAYS_H_
