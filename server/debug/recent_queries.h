// The last few scene queries, for the scene viewer (/debug/scenes/{id}): a
// small bounded ring that the query path fills only when satord runs with
// --debug_pages. Each entry keeps just what the viewer draws (the ray or the
// sweep's path, the query position and the hits), never the query's shape.
#ifndef SATOR_SERVER_DEBUG_RECENT_QUERIES_H_
#define SATOR_SERVER_DEBUG_RECENT_QUERIES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "sator/core/scene/scene.h"

namespace sator::server {

struct RecentQuery {
  using Point = std::array<float, 3>;  // x, y, z (z = 0 in 2D).
  struct Hit {
    Point point{};
    Point normal{};
  };
  std::string scene_id;
  // overlap, contacts, sweep, raycast or point.
  std::string kind;
  std::int64_t tick = 0;
  bool rewound = false;
  // Where the query starts (shape position, ray origin, point) and, for
  // rays and sweeps, where it would end with no hit.
  Point from{};
  Point to{};
  bool has_path = false;
  // The first kMaxHitsKept hits.
  std::vector<Hit> hits;
};

class RecentQueries {
 public:
  static constexpr std::size_t kMaxHitsKept = 16;

  // Keeps the last `capacity` queries over all scenes.
  explicit RecentQueries(std::size_t capacity = 256) : capacity_(capacity) {}

  // Records one answered query of a 2D or 3D scene.
  template <int D>
  void Add(absl::string_view scene_id, const scene::SceneQuery<D>& query,
           const scene::QueryResult<D>& result);

  // The last `limit` queries of `scene_id`, oldest first.
  std::vector<RecentQuery> ForScene(absl::string_view scene_id,
                                    std::size_t limit) const;

 private:
  void Push(RecentQuery query);

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<RecentQuery> queries_;
};

extern template void RecentQueries::Add<2>(absl::string_view,
                                           const scene::SceneQuery<2>&,
                                           const scene::QueryResult<2>&);
extern template void RecentQueries::Add<3>(absl::string_view,
                                           const scene::SceneQuery<3>&,
                                           const scene::QueryResult<3>&);

}  // namespace sator::server

#endif  // SATOR_SERVER_DEBUG_RECENT_QUERIES_H_
