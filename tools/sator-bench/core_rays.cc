#include "tools/sator-bench/core_rays.h"

#include <algorithm>
#include <memory>

#include "tools/sator-bench/process_cpu.h"

namespace sator::bench {

absl::StatusOr<std::unique_ptr<scene::Scene3>> BuildCoreScene(
    const std::vector<SceneBox>& boxes, int chunk) {
  scene::SceneOptions options;
  options.max_bodies = std::max<int>(1, static_cast<int>(boxes.size()));
  absl::StatusOr<std::unique_ptr<scene::Scene3>> made =
      scene::Scene3::Create(options);
  if (!made.ok()) return made.status();
  scene::Scene3& scene = **made;
  const int count = static_cast<int>(boxes.size());
  chunk = std::max(1, chunk);
  for (int first = 0; first < count; first += chunk) {
    std::vector<scene::BodyDesc<3>> bodies;
    for (int id = first; id < std::min(count, first + chunk); ++id) {
      const SceneBox& box = boxes[static_cast<std::size_t>(id)];
      bodies.push_back(
          {.id = static_cast<std::uint64_t>(id) + 1,
           .shape = std::make_shared<const Shape3>(Box3{box.half_extents}),
           .pose = Pose3{box.position, {}},
           .motion = scene::MotionType::kStatic});
    }
    if (absl::Status upserted = scene.UpsertBodies(bodies); !upserted.ok()) {
      return upserted;
    }
  }
  return made;
}

absl::StatusOr<CoreRayRate> RunCoreRays(const scene::Scene3& scene,
                                        const std::vector<CoreRay>& rays) {
  const scene::SceneSnapshot<3> snapshot = scene.Snapshot();
  scene::QueryOptions query;
  query.mode = scene::ResultMode::kClosest;

  CoreRayRate rate;
  const std::int64_t started = ThreadCpuNanoseconds();
  for (const CoreRay& ray : rays) {
    absl::StatusOr<scene::QueryResult<3>> result =
        snapshot.RayCast(ray.origin, ray.direction, ray.max_distance, query);
    if (!result.ok()) return result.status();
    rate.hits += static_cast<std::int64_t>(result->hits.size());
  }
  const std::int64_t spent = ThreadCpuNanoseconds() - started;
  rate.rays = static_cast<std::int64_t>(rays.size());
  if (spent > 0) {
    rate.rays_per_cpu_second =
        static_cast<double>(rate.rays) * 1e9 / static_cast<double>(spent);
  }
  return rate;
}

}  // namespace sator::bench
