// The viewer's ring of recent queries (see recent_queries.h).
#include "server/debug/recent_queries.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace sator::server {
namespace {

RecentQuery::Point ToPoint(const v1::Vector& vector) {
  return {vector.x(), vector.y(), vector.z()};
}

RecentQuery::Point Along(const v1::Vector& origin, const v1::Vector& direction,
                         float scale) {
  return {origin.x() + direction.x() * scale,
          origin.y() + direction.y() * scale,
          origin.z() + direction.z() * scale};
}

}  // namespace

void RecentQueries::Add(absl::string_view scene_id, const v1::Query& query,
                        const v1::QueryResult& result) {
  RecentQuery entry;
  entry.scene_id = std::string(scene_id);
  entry.tick = result.tick();
  entry.rewound = query.options().has_rewind();
  switch (query.kind_case()) {
    case v1::Query::kOverlap:
      entry.kind = "overlap";
      entry.from = ToPoint(query.overlap().pose().position());
      break;
    case v1::Query::kContacts:
      entry.kind = "contacts";
      entry.from = ToPoint(query.contacts().pose().position());
      break;
    case v1::Query::kSweep:
      entry.kind = "sweep";
      entry.from = ToPoint(query.sweep().pose().position());
      entry.to = Along(query.sweep().pose().position(),
                       query.sweep().displacement(), 1.0f);
      entry.has_path = true;
      break;
    case v1::Query::kRaycast: {
      entry.kind = "raycast";
      const v1::RaycastQuery& ray = query.raycast();
      entry.from = ToPoint(ray.origin());
      const float length = std::sqrt(ray.direction().x() * ray.direction().x() +
                                     ray.direction().y() * ray.direction().y() +
                                     ray.direction().z() * ray.direction().z());
      entry.to = Along(ray.origin(), ray.direction(),
                       length > 0.0f ? ray.max_distance() / length : 0.0f);
      entry.has_path = true;
      break;
    }
    case v1::Query::kPoint:
      entry.kind = "point";
      entry.from = ToPoint(query.point().point());
      break;
    default:
      return;
  }
  const int kept = std::min(result.hits_size(), static_cast<int>(kMaxHitsKept));
  entry.hits.reserve(static_cast<std::size_t>(kept));
  for (int i = 0; i < kept; ++i) {
    entry.hits.push_back(
        {ToPoint(result.hits(i).point()), ToPoint(result.hits(i).normal())});
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  queries_.push_back(std::move(entry));
  while (queries_.size() > capacity_) queries_.pop_front();
}

std::vector<RecentQuery> RecentQueries::ForScene(absl::string_view scene_id,
                                                 std::size_t limit) const {
  std::vector<RecentQuery> found;
  const std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = queries_.rbegin();
       it != queries_.rend() && found.size() < limit; ++it) {
    if (it->scene_id == scene_id) found.push_back(*it);
  }
  std::reverse(found.begin(), found.end());
  return found;
}

}  // namespace sator::server
