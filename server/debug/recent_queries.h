// The last few scene queries, for the scene viewer (/debug/scenes/{id}): a
// small bounded ring per scene that the query path fills only when satord
// runs with --debug_pages, so that a busy scene never pushes a quiet one's
// queries out. Each entry keeps just what the viewer draws (the ray or the
// sweep's path, the query position, the time it was answered at and the
// hits), never the query's shape.
#ifndef SATOR_SERVER_DEBUG_RECENT_QUERIES_H_
#define SATOR_SERVER_DEBUG_RECENT_QUERIES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
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
  // The time the query was answered at: the tick and, for a rewound query,
  // the fraction towards the next one.
  std::int64_t tick = 0;
  float fraction = 0.0f;
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

  // Keeps the last `per_scene` queries of each of at most `max_scenes`
  // scenes (a query of one more scene forgets the scene queried least
  // recently).
  explicit RecentQueries(std::size_t per_scene = 64,
                         std::size_t max_scenes = 256)
      : per_scene_(per_scene), max_scenes_(max_scenes) {}

  // Records one answered query of a 2D or 3D scene.
  template <int D>
  void Add(absl::string_view scene_id, const scene::SceneQuery<D>& query,
           const scene::QueryResult<D>& result);

  // The last `limit` queries of `scene_id`, oldest first.
  std::vector<RecentQuery> ForScene(absl::string_view scene_id,
                                    std::size_t limit) const;

 private:
  struct SceneQueries {
    std::deque<RecentQuery> queries;
    std::uint64_t last_added = 0;  // The Push that added the newest.
  };

  void Push(RecentQuery query);

  const std::size_t per_scene_;
  const std::size_t max_scenes_;
  mutable std::mutex mutex_;
  absl::flat_hash_map<std::string, SceneQueries> scenes_;  // Guarded by mutex_.
  std::uint64_t pushes_ = 0;                               // Guarded by mutex_.
};

extern template void RecentQueries::Add<2>(absl::string_view,
                                           const scene::SceneQuery<2>&,
                                           const scene::QueryResult<2>&);
extern template void RecentQueries::Add<3>(absl::string_view,
                                           const scene::SceneQuery<3>&,
                                           const scene::QueryResult<3>&);

}  // namespace sator::server

#endif  // SATOR_SERVER_DEBUG_RECENT_QUERIES_H_
