// The viewer's ring of recent queries (see recent_queries.h).
#include "server/debug/recent_queries.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <variant>

namespace sator::server {
namespace {

RecentQuery::Point ToPoint(const Vec2& v) { return {v.x, v.y, 0.0f}; }
RecentQuery::Point ToPoint(const Vec3& v) { return {v.x, v.y, v.z}; }

}  // namespace

template <int D>
void RecentQueries::Add(absl::string_view scene_id,
                        const scene::SceneQuery<D>& query,
                        const scene::QueryResult<D>& result) {
  RecentQuery entry;
  entry.scene_id = std::string(scene_id);
  entry.tick = result.tick;
  entry.fraction = result.fraction;
  std::visit(
      [&entry](const auto& request) {
        using T = std::decay_t<decltype(request)>;
        entry.rewound = request.options.rewind.has_value();
        if constexpr (std::is_same_v<T, scene::OverlapRequest<D>>) {
          entry.kind = "overlap";
          entry.from = ToPoint(request.pose.position);
        } else if constexpr (std::is_same_v<T, scene::ContactsRequest<D>>) {
          entry.kind = "contacts";
          entry.from = ToPoint(request.pose.position);
        } else if constexpr (std::is_same_v<T, scene::SweepRequest<D>>) {
          entry.kind = "sweep";
          entry.from = ToPoint(request.pose.position);
          entry.to = ToPoint(request.pose.position + request.displacement);
          entry.has_path = true;
        } else if constexpr (std::is_same_v<T, scene::RayRequest<D>>) {
          entry.kind = "raycast";
          entry.from = ToPoint(request.origin);
          const float length =
              std::sqrt(Dot(request.direction, request.direction));
          const float scale =
              length > 0.0f ? request.max_distance / length : 0.0f;
          entry.to = ToPoint(request.origin + scale * request.direction);
          entry.has_path = true;
        } else {
          entry.kind = "point";
          entry.from = ToPoint(request.point);
        }
      },
      query);
  const std::size_t kept = std::min(result.hits.size(), kMaxHitsKept);
  entry.hits.reserve(kept);
  for (std::size_t i = 0; i < kept; ++i) {
    entry.hits.push_back(
        {ToPoint(result.hits[i].point), ToPoint(result.hits[i].normal)});
  }
  Push(std::move(entry));
}

template void RecentQueries::Add<2>(absl::string_view,
                                    const scene::SceneQuery<2>&,
                                    const scene::QueryResult<2>&);
template void RecentQueries::Add<3>(absl::string_view,
                                    const scene::SceneQuery<3>&,
                                    const scene::QueryResult<3>&);

void RecentQueries::Push(RecentQuery query) {
  if (per_scene_ == 0 || max_scenes_ == 0) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  auto found = scenes_.find(query.scene_id);
  if (found == scenes_.end()) {
    if (scenes_.size() >= max_scenes_) {
      auto stalest = scenes_.begin();
      for (auto it = scenes_.begin(); it != scenes_.end(); ++it) {
        if (it->second.last_added < stalest->second.last_added) stalest = it;
      }
      scenes_.erase(stalest);
    }
    found = scenes_.try_emplace(query.scene_id).first;
  }
  SceneQueries& scene = found->second;
  scene.last_added = ++pushes_;
  scene.queries.push_back(std::move(query));
  while (scene.queries.size() > per_scene_) scene.queries.pop_front();
}

std::vector<RecentQuery> RecentQueries::ForScene(absl::string_view scene_id,
                                                 std::size_t limit) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto found = scenes_.find(scene_id);
  if (found == scenes_.end()) return {};
  const std::deque<RecentQuery>& queries = found->second.queries;
  const std::size_t kept = std::min(limit, queries.size());
  return std::vector<RecentQuery>(
      queries.end() - static_cast<std::ptrdiff_t>(kept), queries.end());
}

}  // namespace sator::server
