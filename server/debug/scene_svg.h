// Draws a hosted scene as SVG for the scene viewer (/debug/scenes/{id}):
// 2D scenes top-down, 3D scenes projected orthographically onto the xy, xz
// or yz plane. Every body is one <g class="body"> element (id "body-<id>")
// holding its shape's outline (circles; boxes, polygons, triangles and hulls
// as projected convex outlines; capsules as stadiums; meshes as triangle
// outlines, capped) and its AABB; the recent queries are drawn on top (rays
// and sweeps as lines, hits as dots with their normals).
#ifndef SATOR_SERVER_DEBUG_SCENE_SVG_H_
#define SATOR_SERVER_DEBUG_SCENE_SVG_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "server/debug/recent_queries.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

// The plane a 3D scene is projected onto: the two world axes drawn as the
// picture's x (right) and y (up).
enum class ViewPlane { kXy, kXz, kYz };

// "xy", "xz" or "yz"; false for anything else.
bool ParseViewPlane(absl::string_view text, ViewPlane& plane);
absl::string_view ViewPlaneName(ViewPlane plane);

struct SvgOptions {
  ViewPlane plane = ViewPlane::kXy;
  // At most this many bodies are drawn (the first by id).
  std::size_t max_bodies = 2000;
  // At most this many mesh triangles are drawn over the whole picture.
  std::size_t max_mesh_triangles = 20000;
  // The picture's larger side, in pixels.
  int size_pixels = 800;
};

struct SvgStats {
  std::int64_t tick = 0;
  std::size_t bodies = 0;        // In the scene at the newest tick.
  std::size_t bodies_drawn = 0;  // Under SvgOptions::max_bodies.
  std::size_t triangles_drawn = 0;
  bool triangles_capped = false;
};

// The SVG document of `scene` at its newest tick, with `queries` on top.
std::string RenderSceneSvg(const HostedScene& scene, const SvgOptions& options,
                           const std::vector<RecentQuery>& queries,
                           SvgStats& stats);

// Escapes & < > " ' for HTML and XML text and attribute values.
std::string HtmlEscape(absl::string_view text);

}  // namespace sator::server

#endif  // SATOR_SERVER_DEBUG_SCENE_SVG_H_
