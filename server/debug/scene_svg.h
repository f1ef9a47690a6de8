// Draws a hosted scene as SVG for the scene viewer (/debug/scenes/{id}):
// 2D scenes top-down, 3D scenes projected orthographically onto the xy, xz
// or yz plane, at the newest tick or at any time still in the history (the
// bodies placed as a rewound query sees them). Every body is one
// <g class="body"> element (id "body-<id>", its world position in data-x,
// data-y and data-z, its group and part in data-group and data-part) holding
// its shape's outline (circles; boxes, polygons, triangles and hulls as
// projected convex outlines; capsules as stadiums; meshes as triangle
// outlines, capped) and its AABB; the recent queries are drawn on top (rays
// and sweeps as lines, hits as dots with their normals). A verdict's picture
// adds the shot (<g id="shot">: its path, origin and hit), marks the
// shooter's and the target's parts, and can ghost the dynamic bodies where
// they are at the newest tick (<g class="body ghost">, id "ghost-<id>").
#ifndef SATOR_SERVER_DEBUG_SCENE_SVG_H_
#define SATOR_SERVER_DEBUG_SCENE_SVG_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
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
  // The time drawn (tick and fraction, clamped or refused past the history
  // as a query's rewind is); the newest tick when absent.
  std::optional<scene::Rewind> when;
  // Also draws the dynamic bodies, ghosted, where they are at the newest
  // tick.
  bool ghost_newest = false;
};

// A validated shot, drawn over the scene at its verdict's time.
struct ShotDrawing {
  RecentQuery::Point origin{};
  // Where the shot ends: its hit, or its range.
  RecentQuery::Point end{};
  // A round shot's radius (0: a ray).
  float radius = 0.0f;
  bool has_hit = false;
  RecentQuery::Point hit_point{};
  RecentQuery::Point hit_normal{};
  std::uint64_t shooter_group = 0;
  std::uint64_t target_group = 0;  // 0: none claimed.
};

struct SvgStats {
  // The time drawn.
  std::int64_t tick = 0;
  float fraction = 0.0f;
  bool clamped = false;
  std::size_t bodies = 0;        // In the scene at the time drawn.
  std::size_t bodies_drawn = 0;  // Under SvgOptions::max_bodies.
  std::size_t triangles_drawn = 0;
  bool triangles_capped = false;
};

// The SVG document of `scene` at `options.when`, with `queries` and `shot`
// (may be null) on top; the rewind's error (OUT_OF_RANGE past the history,
// INVALID_ARGUMENT for a bad fraction) when that time cannot be drawn.
absl::StatusOr<std::string> RenderSceneSvg(
    const HostedScene& scene, const SvgOptions& options,
    const std::vector<RecentQuery>& queries, const ShotDrawing* shot,
    SvgStats& stats);

// Escapes & < > " ' for HTML and XML text and attribute values.
std::string HtmlEscape(absl::string_view text);

}  // namespace sator::server

#endif  // SATOR_SERVER_DEBUG_SCENE_SVG_H_
