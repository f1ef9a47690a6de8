// The scene viewer's pages on the metrics port (satord --debug_pages):
//
//   /debug/scenes              every hosted scene: id, dimension, tick,
//                              static and dynamic bodies, a link to its view
//   /debug/scenes/{id}         the scene drawn as SVG (scene_svg.h), with
//                              ?plane=xy|xz|yz (3D), ?queries=N (the last N
//                              recorded queries, default 20, 0 for none),
//                              ?max_bodies=N (default 2000), ?tick=T and
//                              &fraction=F (a time still in the history,
//                              drawn as a rewound query sees it; &clamp=1
//                              clamps an older tick to the oldest kept) and
//                              &ghost=1 (the dynamic bodies again, ghosted,
//                              where they are now); the rewound queries link
//                              to their time, the recent verdicts to theirs
//   /debug/scenes/{id}/verdicts/{sequence}
//                              one recorded verdict: its shot, reason and
//                              hit, drawn at the time it was judged at (the
//                              shooter's and target's parts marked, the shot
//                              and its hit on top, the dynamic bodies
//                              ghosted where they are now)
//
// Read-only: the pages take a snapshot and never change a scene. Every
// string from a request or a scene is escaped.
#ifndef SATOR_SERVER_DEBUG_SCENE_PAGES_H_
#define SATOR_SERVER_DEBUG_SCENE_PAGES_H_

#include "server/audit/shot_audit.h"
#include "server/debug/recent_queries.h"
#include "server/metrics/registry.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

// The page for `request` (exposed for tests): 200 with HTML, 404 for an
// unknown scene, verdict or path, 400 for a bad parameter or a time outside
// the history. `recent` and `audit` may be null.
HttpResponse ServeScenePage(const HttpRequest& request,
                            const SceneRegistry& scenes,
                            const RecentQueries* recent,
                            const ShotAudit* audit);

// Serves the pages on `metrics`' port. `scenes`, `recent` and `audit` must
// outlive `metrics`.
void AddScenePages(Metrics& metrics, const SceneRegistry& scenes,
                   const RecentQueries* recent, const ShotAudit* audit);

}  // namespace sator::server

#endif  // SATOR_SERVER_DEBUG_SCENE_PAGES_H_
