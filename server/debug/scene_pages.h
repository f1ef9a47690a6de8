// The scene viewer's pages on the metrics port (satord --debug_pages):
//
//   /debug/scenes              every hosted scene: id, dimension, tick,
//                              static and dynamic bodies, a link to its view
//   /debug/scenes/{id}         the scene drawn as SVG (scene_svg.h), with
//                              ?plane=xy|xz|yz (3D), ?queries=N (the last N
//                              recorded queries, default 20, 0 for none) and
//                              ?max_bodies=N (default 2000)
//
// Read-only: the pages take a snapshot and never change a scene. Every
// string from a request or a scene is escaped.
#ifndef SATOR_SERVER_DEBUG_SCENE_PAGES_H_
#define SATOR_SERVER_DEBUG_SCENE_PAGES_H_

#include "server/debug/recent_queries.h"
#include "server/metrics/registry.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

// The page for `request` (exposed for tests): 200 with HTML, 404 for an
// unknown scene or path, 400 for a bad parameter. `recent` may be null.
HttpResponse ServeScenePage(const HttpRequest& request,
                            const SceneRegistry& scenes,
                            const RecentQueries* recent);

// Serves the pages on `metrics`' port. `scenes` and `recent` must outlive
// `metrics`.
void AddScenePages(Metrics& metrics, const SceneRegistry& scenes,
                   const RecentQueries* recent);

}  // namespace sator::server

#endif  // SATOR_SERVER_DEBUG_SCENE_PAGES_H_
