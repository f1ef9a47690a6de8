// The scene viewer's SVG (see scene_svg.h).
//
// Shapes become outlines in the view plane, in world units, then one affine
// map takes the bodies' bounds to pixels (with y pointing up). Convex 3D
// shapes (boxes, hulls) are drawn as the 2D convex hull of their projected
// vertices: the exact outline of a convex polytope's orthographic shadow. A
// capsule's shadow is a 2D capsule of the same radius around its projected
// segment. The hull uses Andrew's monotone chain (A. M. Andrew, "Another
// efficient algorithm for convex hulls in two dimensions", Information
// Processing Letters 9(5), 1979).
#include "server/debug/scene_svg.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide2d/queries2d.h"
#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/core/scene/scene.h"

namespace sator::server {
namespace {

struct P {
  double x = 0.0;
  double y = 0.0;
};

struct Stadium {
  P a;
  P b;
  double radius = 0.0;
};

struct Circle2 {
  P center;
  double radius = 0.0;
};

// One body's outlines in the view plane (world units).
struct BodyDrawing {
  std::uint64_t id = 0;
  bool is_static = false;
  // Drawn where the body is at the newest tick, over a past tick's picture.
  bool ghost = false;
  // "shooter", "target" or empty (a verdict's picture).
  std::string role;
  std::uint64_t group_id = 0;
  std::int32_t part = 0;
  std::array<float, 3> position{};  // World position of the body's origin.
  std::string shape;  // circle, box, polygon, capsule, segment, ...
  std::vector<Circle2> circles;
  std::vector<std::vector<P>> polygons;
  std::vector<Stadium> stadiums;
  std::vector<std::pair<P, P>> lines;
  P lo;
  P hi;
};

std::vector<P> ConvexHull2(std::vector<P> points) {
  std::sort(points.begin(), points.end(), [](const P& a, const P& b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  });
  if (points.size() < 3) return points;
  const auto cross = [](const P& o, const P& a, const P& b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  };
  std::vector<P> hull(2 * points.size());
  size_t k = 0;
  for (const P& p : points) {  // Lower hull.
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], p) <= 0) --k;
    hull[k++] = p;
  }
  const size_t lower = k + 1;
  for (size_t i = points.size() - 1; i-- > 0;) {  // Upper hull.
    while (k >= lower && cross(hull[k - 2], hull[k - 1], points[i]) <= 0) --k;
    hull[k++] = points[i];
  }
  hull.resize(k - 1);
  return hull;
}

class Projector {
 public:
  explicit Projector(ViewPlane plane) : plane_(plane) {}
  P operator()(const Vec3& v) const {
    switch (plane_) {
      case ViewPlane::kXz:
        return {v.x, v.z};
      case ViewPlane::kYz:
        return {v.y, v.z};
      case ViewPlane::kXy:
        break;
    }
    return {v.x, v.y};
  }
  P operator()(const Vec2& v) const { return {v.x, v.y}; }
  P operator()(const std::array<float, 3>& v) const {
    return (*this)(Vec3{v[0], v[1], v[2]});
  }

 private:
  ViewPlane plane_;
};

// The most points of a level the viewer draws (its outlines first).
constexpr std::size_t kMaxDrawnLevelPoints = 20000;

void Draw2(const Shape2& shape, const Pose2& pose, BodyDrawing& drawing) {
  std::visit(
      [&](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Circle>) {
          drawing.shape = "circle";
          drawing.circles.push_back(
              {{pose.position.x, pose.position.y}, s.radius});
        } else if constexpr (std::is_same_v<T, Box2>) {
          drawing.shape = "box";
          std::vector<P> corners;
          for (const Vec2 local : {Vec2{-s.half_extents.x, -s.half_extents.y},
                                   Vec2{s.half_extents.x, -s.half_extents.y},
                                   Vec2{s.half_extents.x, s.half_extents.y},
                                   Vec2{-s.half_extents.x, s.half_extents.y}}) {
            const Vec2 world = Transform(pose, local);
            corners.push_back({world.x, world.y});
          }
          drawing.polygons.push_back(std::move(corners));
        } else if constexpr (std::is_same_v<T, ConvexPolygon>) {
          drawing.shape = "polygon";
          std::vector<P> vertices;
          for (int i = 0; i < s.count(); ++i) {
            const Vec2 world = Transform(pose, s.vertex(i));
            vertices.push_back({world.x, world.y});
          }
          drawing.polygons.push_back(std::move(vertices));
        } else if constexpr (std::is_same_v<T, Capsule2>) {
          drawing.shape = "capsule";
          const Vec2 a = Transform(pose, s.a);
          const Vec2 b = Transform(pose, s.b);
          drawing.stadiums.push_back({{a.x, a.y}, {b.x, b.y}, s.radius});
        } else if constexpr (std::is_same_v<T, Segment2>) {
          drawing.shape = "segment";
          const Vec2 a = Transform(pose, s.a);
          const Vec2 b = Transform(pose, s.b);
          drawing.lines.push_back({{a.x, a.y}, {b.x, b.y}});
        } else {
          // A level: its outlines and holes as one even-odd path, its
          // chains as lines; at most kMaxDrawnLevelPoints points.
          drawing.shape = "level";
          std::size_t budget = kMaxDrawnLevelPoints;
          const auto ring = [&](const std::vector<Vec2>& points) {
            std::vector<P> out;
            for (const Vec2 v : points) {
              if (budget == 0) break;
              --budget;
              const Vec2 world = Transform(pose, v);
              out.push_back({world.x, world.y});
            }
            if (!out.empty()) drawing.polygons.push_back(std::move(out));
          };
          for (const LevelPolygon2& polygon : s->desc().polygons) {
            ring(polygon.outline);
            for (const LevelRing2& hole : polygon.holes) ring(hole.points);
          }
          for (const LevelChain2& chain : s->desc().chains) {
            const std::size_t n = chain.points.size();
            for (std::size_t i = 0; i + 1 < n || (chain.closed && i < n); ++i) {
              if (budget == 0) break;
              --budget;
              const Vec2 a = Transform(pose, chain.points[i]);
              const Vec2 b = Transform(pose, chain.points[(i + 1) % n]);
              drawing.lines.push_back({{a.x, a.y}, {b.x, b.y}});
            }
          }
        }
      },
      shape);
  const Aabb2 box = ComputeAabb(shape, pose);
  drawing.lo = {box.min.x, box.min.y};
  drawing.hi = {box.max.x, box.max.y};
}

void Draw3(const Shape3& shape, const Pose3& pose, const Projector& project,
           std::size_t& triangle_budget, bool& capped, BodyDrawing& drawing) {
  const auto outline = [&](const std::vector<Vec3>& local) {
    std::vector<P> points;
    points.reserve(local.size());
    for (const Vec3& v : local) points.push_back(project(Transform(pose, v)));
    drawing.polygons.push_back(ConvexHull2(std::move(points)));
  };
  std::visit(
      [&](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Sphere>) {
          drawing.shape = "sphere";
          drawing.circles.push_back({project(pose.position), s.radius});
        } else if constexpr (std::is_same_v<T, Box3>) {
          drawing.shape = "box";
          std::vector<Vec3> corners;
          corners.reserve(8);
          for (int i = 0; i < 8; ++i) {
            corners.push_back({(i & 1) ? s.half_extents.x : -s.half_extents.x,
                               (i & 2) ? s.half_extents.y : -s.half_extents.y,
                               (i & 4) ? s.half_extents.z : -s.half_extents.z});
          }
          outline(corners);
        } else if constexpr (std::is_same_v<T, Capsule3>) {
          drawing.shape = "capsule";
          drawing.stadiums.push_back({project(Transform(pose, s.a)),
                                      project(Transform(pose, s.b)), s.radius});
        } else if constexpr (std::is_same_v<T, Triangle3>) {
          drawing.shape = "triangle";
          outline({s.a, s.b, s.c});
        } else if constexpr (std::is_same_v<
                                 T, std::shared_ptr<const ConvexHull>>) {
          drawing.shape = "hull";
          if (s != nullptr) outline(s->vertices);
        } else {
          drawing.shape = "mesh";
          if (s == nullptr) return;
          for (std::uint32_t t = 0; t < s->triangle_count(); ++t) {
            if (triangle_budget == 0) {
              capped = true;
              break;
            }
            --triangle_budget;
            const Triangle3 triangle = s->triangle(t);
            drawing.polygons.push_back({project(Transform(pose, triangle.a)),
                                        project(Transform(pose, triangle.b)),
                                        project(Transform(pose, triangle.c))});
          }
        }
      },
      shape);
  const absl::StatusOr<Aabb3> box = ComputeAabb(shape, pose);
  if (box.ok()) {
    const P a = project(box->min);
    const P b = project(box->max);
    drawing.lo = {std::min(a.x, b.x), std::min(a.y, b.y)};
    drawing.hi = {std::max(a.x, b.x), std::max(a.y, b.y)};
  } else {
    drawing.lo = drawing.hi = project(pose.position);
  }
}

// World (view-plane) coordinates to pixels, y up.
class PixelMap {
 public:
  PixelMap(P lo, P hi, int size_pixels) {
    constexpr double kMargin = 16.0;
    double width = std::max(hi.x - lo.x, 1e-6);
    double height = std::max(hi.y - lo.y, 1e-6);
    const double inner = std::max(size_pixels - 2 * kMargin, 16.0);
    scale_ = inner / std::max(width, height);
    width_ = width * scale_ + 2 * kMargin;
    height_ = height * scale_ + 2 * kMargin;
    origin_x_ = lo.x - kMargin / scale_;
    top_y_ = hi.y + kMargin / scale_;
  }
  double X(double x) const { return (x - origin_x_) * scale_; }
  double Y(double y) const { return (top_y_ - y) * scale_; }
  double Length(double length) const { return length * scale_; }
  double width() const { return width_; }
  double height() const { return height_; }

 private:
  double scale_ = 1.0;
  double width_ = 0.0;
  double height_ = 0.0;
  double origin_x_ = 0.0;
  double top_y_ = 0.0;
};

std::string Num(double value) {
  if (!std::isfinite(value)) return "0";
  return absl::StrFormat("%.2f", value);
}

std::string PointList(const std::vector<P>& points, const PixelMap& map) {
  std::string out;
  for (const P& p : points) {
    if (!out.empty()) out.push_back(' ');
    absl::StrAppend(&out, Num(map.X(p.x)), ",", Num(map.Y(p.y)));
  }
  return out;
}

void AppendBody(const BodyDrawing& body, const PixelMap& map,
                std::string& svg) {
  const char* motion = body.is_static ? "static" : "dynamic";
  absl::StrAppend(&svg, "<g class=\"body ", motion, body.ghost ? " ghost" : "",
                  body.role.empty() ? "" : " ", body.role, "\" id=\"",
                  body.ghost ? "ghost-" : "body-", body.id, "\" data-id=\"",
                  body.id, "\" data-shape=\"", body.shape, "\" data-x=\"",
                  Num(body.position[0]), "\" data-y=\"", Num(body.position[1]),
                  "\" data-z=\"", Num(body.position[2]), "\"");
  if (body.group_id != 0) {
    absl::StrAppend(&svg, " data-group=\"", body.group_id, "\" data-part=\"",
                    body.part, "\"");
  }
  absl::StrAppend(&svg, "><title>body ", body.id, " (", body.shape, ", ",
                  motion);
  if (body.group_id != 0) {
    absl::StrAppend(&svg, ", group ", body.group_id, " part ", body.part);
  }
  absl::StrAppend(&svg, body.ghost ? ", at the newest tick" : "", ")</title>");
  for (const Circle2& c : body.circles) {
    absl::StrAppend(&svg, "<circle class=\"shape\" cx=\"",
                    Num(map.X(c.center.x)), "\" cy=\"", Num(map.Y(c.center.y)),
                    "\" r=\"", Num(map.Length(c.radius)), "\"/>");
  }
  const bool mesh = body.shape == "mesh";
  const bool level = body.shape == "level";
  if ((mesh || level) && !body.polygons.empty()) {
    // One path of closed triangles (or a level's rings) keeps the DOM small
    // for big meshes and levels.
    std::string d;
    for (const std::vector<P>& triangle : body.polygons) {
      for (size_t i = 0; i < triangle.size(); ++i) {
        absl::StrAppend(&d, i == 0 ? "M" : "L", Num(map.X(triangle[i].x)), ",",
                        Num(map.Y(triangle[i].y)));
      }
      d += "Z";
    }
    absl::StrAppend(&svg, "<path class=\"shape ", mesh ? "mesh" : "level",
                    "\" d=\"", d, "\"/>");
  } else {
    for (const std::vector<P>& polygon : body.polygons) {
      absl::StrAppend(&svg, "<polygon class=\"shape\" points=\"",
                      PointList(polygon, map), "\"/>");
    }
  }
  for (const Stadium& s : body.stadiums) {
    // A round-capped line as wide as the capsule is its exact outline.
    absl::StrAppend(
        &svg, "<line class=\"shape capsule\" x1=\"", Num(map.X(s.a.x)),
        "\" y1=\"", Num(map.Y(s.a.y)), "\" x2=\"", Num(map.X(s.b.x)),
        "\" y2=\"", Num(map.Y(s.b.y)),
        "\" style=\"stroke-width:", Num(2 * map.Length(s.radius)), "px\"/>");
  }
  for (const auto& [a, b] : body.lines) {
    absl::StrAppend(&svg, "<line class=\"shape segment\" x1=\"",
                    Num(map.X(a.x)), "\" y1=\"", Num(map.Y(a.y)), "\" x2=\"",
                    Num(map.X(b.x)), "\" y2=\"", Num(map.Y(b.y)), "\"/>");
  }
  absl::StrAppend(&svg, "<rect class=\"aabb\" x=\"", Num(map.X(body.lo.x)),
                  "\" y=\"", Num(map.Y(body.hi.y)), "\" width=\"",
                  Num(map.Length(body.hi.x - body.lo.x)), "\" height=\"",
                  Num(map.Length(body.hi.y - body.lo.y)), "\"/></g>\n");
}

void AppendQuery(const RecentQuery& query, const Projector& project,
                 const PixelMap& map, std::string& svg) {
  absl::StrAppend(&svg, "<g class=\"query ", HtmlEscape(query.kind),
                  "\" data-tick=\"", query.tick, "\" data-fraction=\"",
                  query.fraction, "\"><title>", HtmlEscape(query.kind),
                  " at tick ", query.tick);
  if (query.fraction > 0.0f) absl::StrAppend(&svg, " + ", query.fraction);
  absl::StrAppend(&svg, query.rewound ? " (rewound)" : "", ", ",
                  query.hits.size(), " hits</title>");
  const P from = project(query.from);
  if (query.has_path) {
    const P to = project(query.to);
    absl::StrAppend(&svg, "<line class=\"path\" x1=\"", Num(map.X(from.x)),
                    "\" y1=\"", Num(map.Y(from.y)), "\" x2=\"",
                    Num(map.X(to.x)), "\" y2=\"", Num(map.Y(to.y)), "\"/>");
  }
  absl::StrAppend(&svg, "<circle class=\"origin\" cx=\"", Num(map.X(from.x)),
                  "\" cy=\"", Num(map.Y(from.y)), "\" r=\"3\"/>");
  for (const RecentQuery::Hit& hit : query.hits) {
    const P point = project(hit.point);
    const P normal = project(hit.normal);
    const double length = std::hypot(normal.x, normal.y);
    absl::StrAppend(&svg, "<circle class=\"hit\" cx=\"", Num(map.X(point.x)),
                    "\" cy=\"", Num(map.Y(point.y)), "\" r=\"3\"/>");
    if (length > 1e-6) {
      // The normal as a 16-pixel tick, whatever the zoom.
      const double dx = normal.x / length * 16.0;
      const double dy = normal.y / length * 16.0;
      absl::StrAppend(&svg, "<line class=\"normal\" x1=\"", Num(map.X(point.x)),
                      "\" y1=\"", Num(map.Y(point.y)), "\" x2=\"",
                      Num(map.X(point.x) + dx), "\" y2=\"",
                      Num(map.Y(point.y) - dy), "\"/>");
    }
  }
  svg += "</g>\n";
}

std::array<float, 3> Position3(const Vec2& v) { return {v.x, v.y, 0.0f}; }
std::array<float, 3> Position3(const Vec3& v) { return {v.x, v.y, v.z}; }

// The bodies at the time `options.when` asks for (and, with ghost_newest,
// the dynamic ones again at the newest tick), at most options.max_bodies of
// each.
template <int D>
absl::StatusOr<std::vector<BodyDrawing>> DrawBodies(
    const scene::Scene<D>& scene, const SvgOptions& options,
    const Projector& project, const ShotDrawing* shot, SvgStats& stats) {
  const scene::SceneSnapshot<D> snapshot = scene.Snapshot();
  scene::QueryOptions query_options;
  query_options.max_hits = 1;
  query_options.rewind = options.when;
  const absl::StatusOr<std::int64_t> tick = snapshot.QueryTick(query_options);
  if (!tick.ok()) return tick.status();
  using Posed = typename scene::SceneSnapshot<D>::PosedBody;
  const absl::StatusOr<std::vector<Posed>> bodies =
      snapshot.BodiesAt(options.when);
  if (!bodies.ok()) return bodies.status();
  stats.tick = *tick;
  stats.clamped =
      options.when.has_value() && options.when->tick < snapshot.oldest_tick();
  stats.fraction =
      options.when.has_value() && !stats.clamped ? options.when->fraction : 0;
  stats.bodies = bodies->size();
  std::vector<BodyDrawing> drawings;
  std::size_t triangle_budget = options.max_mesh_triangles;
  const auto draw = [&](const Posed& body, bool ghost) {
    BodyDrawing drawing;
    drawing.id = body.id;
    drawing.is_static = body.motion == scene::MotionType::kStatic;
    drawing.ghost = ghost;
    drawing.group_id = body.group_id;
    drawing.part = body.part;
    drawing.position = Position3(body.pose.position);
    if (shot != nullptr && body.group_id != 0) {
      if (body.group_id == shot->shooter_group) drawing.role = "shooter";
      if (body.group_id == shot->target_group) drawing.role = "target";
    }
    if constexpr (D == 2) {
      (void)project;
      Draw2(*body.shape, body.pose, drawing);
    } else {
      const std::size_t before = triangle_budget;
      Draw3(*body.shape, body.pose, project, triangle_budget,
            stats.triangles_capped, drawing);
      stats.triangles_drawn += before - triangle_budget;
    }
    drawings.push_back(std::move(drawing));
  };
  for (const Posed& body : *bodies) {
    if (drawings.size() >= options.max_bodies) break;
    if (body.shape != nullptr) draw(body, /*ghost=*/false);
  }
  stats.bodies_drawn = drawings.size();
  if (options.ghost_newest) {
    const absl::StatusOr<std::vector<Posed>> newest =
        snapshot.BodiesAt(std::nullopt);
    if (!newest.ok()) return newest.status();
    std::size_t ghosts = 0;
    for (const Posed& body : *newest) {
      if (ghosts >= options.max_bodies) break;
      if (body.shape == nullptr || body.motion == scene::MotionType::kStatic) {
        continue;
      }
      draw(body, /*ghost=*/true);
      ++ghosts;
    }
  }
  return drawings;
}

void AppendShot(const ShotDrawing& shot, const Projector& project,
                const PixelMap& map, std::string& svg) {
  const P from = project(shot.origin);
  const P to = project(shot.end);
  absl::StrAppend(&svg, "<g id=\"shot\" class=\"shot\"><title>shot",
                  shot.radius > 0.0f ? " (round)" : "",
                  shot.has_hit ? ", hit" : ", no hit", "</title>");
  absl::StrAppend(&svg, "<line class=\"path\" x1=\"", Num(map.X(from.x)),
                  "\" y1=\"", Num(map.Y(from.y)), "\" x2=\"", Num(map.X(to.x)),
                  "\" y2=\"", Num(map.Y(to.y)), "\"");
  if (shot.radius > 0.0f) {
    // A round shot's swept width, as a translucent band.
    absl::StrAppend(&svg, " style=\"stroke-width:",
                    Num(std::max(1.25, 2 * map.Length(shot.radius))),
                    "px;stroke-opacity:.35;stroke-linecap:round\"");
  }
  absl::StrAppend(&svg, "/><circle class=\"origin\" cx=\"", Num(map.X(from.x)),
                  "\" cy=\"", Num(map.Y(from.y)), "\" r=\"4\"/>");
  if (shot.has_hit) {
    const P point = project(shot.hit_point);
    const P normal = project(shot.hit_normal);
    absl::StrAppend(&svg, "<circle class=\"hit\" cx=\"", Num(map.X(point.x)),
                    "\" cy=\"", Num(map.Y(point.y)), "\" r=\"4\"/>");
    const double length = std::hypot(normal.x, normal.y);
    if (length > 1e-6) {
      const double dx = normal.x / length * 16.0;
      const double dy = normal.y / length * 16.0;
      absl::StrAppend(&svg, "<line class=\"normal\" x1=\"", Num(map.X(point.x)),
                      "\" y1=\"", Num(map.Y(point.y)), "\" x2=\"",
                      Num(map.X(point.x) + dx), "\" y2=\"",
                      Num(map.Y(point.y) - dy), "\"/>");
    }
  }
  svg += "</g>\n";
}

constexpr char kStyle[] =
    "<style>"
    ".body .shape{fill:#4a90d9;fill-opacity:.35;stroke:#1f4e86;"
    "stroke-width:1.5}"
    ".body.static .shape{fill:#888;stroke:#444}"
    ".body .shape.capsule{fill:none;stroke:#4a90d9;stroke-opacity:.5;"
    "stroke-linecap:round}"
    ".body.static .shape.capsule{stroke:#888}"
    ".body .shape.segment{fill:none}"
    ".body .shape.mesh{fill:none;stroke-width:.5}"
    ".body .shape.level{fill-rule:evenodd}"
    ".aabb{fill:none;stroke:#e08a00;stroke-width:.75;stroke-dasharray:3 3}"
    ".query .path{stroke:#d0021b;stroke-width:1.25}"
    ".query.sweep .path{stroke-dasharray:6 3}"
    ".query .origin{fill:#d0021b}"
    ".query .hit{fill:#2a9d2a}"
    ".query .normal{stroke:#2a9d2a;stroke-width:1.25}"
    ".body.ghost .shape{fill-opacity:.08;stroke-opacity:.35;"
    "stroke-dasharray:4 3}"
    ".body.ghost .aabb{display:none}"
    ".body.shooter .shape{fill:#f5a623;stroke:#b36b00}"
    ".body.target .shape{fill:#d0021b;stroke:#8b0000}"
    ".shot .path{stroke:#7b2cbf;stroke-width:1.5}"
    ".shot .origin{fill:#7b2cbf}"
    ".shot .hit{fill:#2a9d2a}"
    ".shot .normal{stroke:#2a9d2a;stroke-width:1.5}"
    "</style>";

}  // namespace

bool ParseViewPlane(absl::string_view text, ViewPlane& plane) {
  if (text == "xy") {
    plane = ViewPlane::kXy;
  } else if (text == "xz") {
    plane = ViewPlane::kXz;
  } else if (text == "yz") {
    plane = ViewPlane::kYz;
  } else {
    return false;
  }
  return true;
}

absl::string_view ViewPlaneName(ViewPlane plane) {
  switch (plane) {
    case ViewPlane::kXz:
      return "xz";
    case ViewPlane::kYz:
      return "yz";
    case ViewPlane::kXy:
      break;
  }
  return "xy";
}

std::string HtmlEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

absl::StatusOr<std::string> RenderSceneSvg(
    const HostedScene& scene, const SvgOptions& options,
    const std::vector<RecentQuery>& queries, const ShotDrawing* shot,
    SvgStats& stats) {
  stats = SvgStats{};
  const ViewPlane plane =
      scene.dimension() == 2 ? ViewPlane::kXy : options.plane;
  const Projector project(plane);
  absl::StatusOr<std::vector<BodyDrawing>> drawn = std::vector<BodyDrawing>();
  if (scene.scene2() != nullptr) {
    drawn = DrawBodies(*scene.scene2(), options, project, shot, stats);
  } else if (scene.scene3() != nullptr) {
    drawn = DrawBodies(*scene.scene3(), options, project, shot, stats);
  }
  if (!drawn.ok()) return drawn.status();
  const std::vector<BodyDrawing>& bodies = *drawn;
  // The picture frames the bodies and the shot; queries reaching past them
  // are clipped.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  P lo{kInf, kInf};
  P hi{-kInf, -kInf};
  const auto extend = [&](const P& p) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y)};
  };
  for (const BodyDrawing& body : bodies) {
    extend(body.lo);
    extend(body.hi);
  }
  if (shot != nullptr) {
    extend(project(shot->origin));
    extend(project(shot->end));
  }
  if (bodies.empty()) {
    for (const RecentQuery& query : queries) extend(project(query.from));
  }
  if (!(lo.x <= hi.x)) {
    lo = {-1, -1};
    hi = {1, 1};
  }
  const PixelMap map(lo, hi, options.size_pixels);
  const std::string when = stats.fraction > 0.0f
                               ? absl::StrCat(stats.tick, " + ", stats.fraction)
                               : absl::StrCat(stats.tick);
  std::string svg = absl::StrCat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"scene\" width=\"",
      Num(map.width()), "\" height=\"", Num(map.height()), "\" viewBox=\"0 0 ",
      Num(map.width()), " ", Num(map.height()), "\" data-scene-id=\"",
      HtmlEscape(scene.id()), "\" data-plane=\"", ViewPlaneName(plane),
      "\" data-tick=\"", stats.tick, "\" data-fraction=\"", stats.fraction,
      "\">", kStyle, "<title>scene ", HtmlEscape(scene.id()), " at tick ", when,
      "</title>\n",
      "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n<g "
      "id=\"bodies\">\n");
  for (const BodyDrawing& body : bodies) {
    if (body.ghost) AppendBody(body, map, svg);
  }
  for (const BodyDrawing& body : bodies) {
    if (!body.ghost) AppendBody(body, map, svg);
  }
  svg += "</g>\n<g id=\"queries\">\n";
  for (const RecentQuery& query : queries) {
    AppendQuery(query, project, map, svg);
  }
  svg += "</g>\n";
  if (shot != nullptr) AppendShot(*shot, project, map, svg);
  svg += "</svg>\n";
  return svg;
}

}  // namespace sator::server
