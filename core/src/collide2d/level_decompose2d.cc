// Convex decomposition of a polygon with holes: bridges, ear clipping,
// Hertel-Mehlhorn merging (method and citations in level_decompose2d.h).
#include "collide2d/level_decompose2d.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

#include "absl/status/status.h"

namespace sator::internal2d {
namespace {

struct P {
  double x;
  double y;
};

P ToP(Vec2 v) { return {static_cast<double>(v.x), static_cast<double>(v.y)}; }

double Orient(P a, P b, P c) {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

// The sine of the turn at b (positive: a left turn).
double TurnSine(P a, P b, P c) {
  const double ux = b.x - a.x;
  const double uy = b.y - a.y;
  const double vx = c.x - b.x;
  const double vy = c.y - b.y;
  const double lengths = std::hypot(ux, uy) * std::hypot(vx, vy);
  return lengths > 0.0 ? (ux * vy - uy * vx) / lengths : 0.0;
}

// The sharpest corner of triangle abc, as the least sine of its angles.
double TriangleQuality(P a, P b, P c) {
  const double twice_area = Orient(a, b, c);
  const double ab = std::hypot(b.x - a.x, b.y - a.y);
  const double bc = std::hypot(c.x - b.x, c.y - b.y);
  const double ca = std::hypot(a.x - c.x, a.y - c.y);
  const double longest = std::max({ab, bc, ca});
  // sin(angle) = 2 area / (product of its sides); the least angle is
  // opposite the shortest side, between the two longer ones.
  const double product = ab * bc * ca / std::min({ab, bc, ca});
  return longest > 0.0 ? twice_area / product : 0.0;
}

bool Same(P a, P b) { return a.x == b.x && a.y == b.y; }

// True when p lies in triangle abc (counter-clockwise) or on its boundary.
bool InTriangle(P p, P a, P b, P c) {
  return Orient(a, b, p) >= 0.0 && Orient(b, c, p) >= 0.0 &&
         Orient(c, a, p) >= 0.0;
}

// True when direction d leaves ring slot `slot` into the polygon: inside the
// interior wedge between the next and the previous vertex.
bool IntoWedge(const std::vector<P>& points, const std::vector<int>& ring,
               std::size_t slot, P d) {
  const std::size_t n = ring.size();
  const P prev = points[static_cast<std::size_t>(ring[(slot + n - 1) % n])];
  const P cur = points[static_cast<std::size_t>(ring[slot])];
  const P next = points[static_cast<std::size_t>(ring[(slot + 1) % n])];
  const P to_next{next.x - cur.x, next.y - cur.y};
  const P to_prev{prev.x - cur.x, prev.y - cur.y};
  auto cross = [](P a, P b) { return a.x * b.y - a.y * b.x; };
  if (Orient(prev, cur, next) > 0.0) {
    return cross(to_next, d) > 0.0 && cross(d, to_prev) > 0.0;
  }
  return !(cross(to_prev, d) >= 0.0 && cross(d, to_next) >= 0.0);
}

// Of the ring slots at the same point as `slot` (a bridge repeats its
// ends), the one whose wedge the direction towards m enters.
std::size_t PickCopy(const std::vector<P>& points, const std::vector<int>& ring,
                     std::size_t slot, P m) {
  const P at = points[static_cast<std::size_t>(ring[slot])];
  const P d{m.x - at.x, m.y - at.y};
  for (std::size_t i = 0; i < ring.size(); ++i) {
    if (Same(points[static_cast<std::size_t>(ring[i])], at) &&
        IntoWedge(points, ring, i, d)) {
      return i;
    }
  }
  return slot;
}

// The vertices (ids into `points`) of the outline with every hole bridged
// in. A bridge repeats its two end vertices.
absl::StatusOr<std::vector<int>> BridgeHoles(
    const std::vector<P>& points, int outline_count,
    const std::vector<std::pair<int, int>>& holes) {
  std::vector<int> ring(static_cast<std::size_t>(outline_count));
  for (int i = 0; i < outline_count; ++i) ring[static_cast<std::size_t>(i)] = i;
  // Holes by their rightmost vertex, rightmost first.
  struct HoleStart {
    int first;
    int count;
    int rightmost;
  };
  std::vector<HoleStart> order;
  for (const auto& [first, count] : holes) {
    int rightmost = first;
    for (int i = first; i < first + count; ++i) {
      if (points[static_cast<std::size_t>(i)].x >
          points[static_cast<std::size_t>(rightmost)].x) {
        rightmost = i;
      }
    }
    order.push_back({first, count, rightmost});
  }
  std::sort(order.begin(), order.end(),
            [&](const HoleStart& l, const HoleStart& r) {
              return points[static_cast<std::size_t>(l.rightmost)].x >
                     points[static_cast<std::size_t>(r.rightmost)].x;
            });
  for (const HoleStart& hole : order) {
    const P m = points[static_cast<std::size_t>(hole.rightmost)];
    // The nearest ring edge the ray from m along +x meets.
    const std::size_t n = ring.size();
    double best_x = std::numeric_limits<double>::infinity();
    std::size_t best_edge = n;
    for (std::size_t i = 0; i < n; ++i) {
      const P a = points[static_cast<std::size_t>(ring[i])];
      const P b = points[static_cast<std::size_t>(ring[(i + 1) % n])];
      if ((a.y > m.y) == (b.y > m.y)) continue;
      const double x = a.x + (m.y - a.y) * (b.x - a.x) / (b.y - a.y);
      if (x >= m.x && x < best_x) {
        best_x = x;
        best_edge = i;
      }
    }
    if (best_edge == n) {
      return absl::InternalError("a hole sees no outline vertex");
    }
    const P a = points[static_cast<std::size_t>(ring[best_edge])];
    const P b = points[static_cast<std::size_t>(ring[(best_edge + 1) % n])];
    std::size_t visible = a.x > b.x ? best_edge : (best_edge + 1) % n;
    const P hit{best_x, m.y};
    P candidate = points[static_cast<std::size_t>(ring[visible])];
    if (!Same(candidate, hit)) {
      // A ring vertex inside the triangle (m, hit, candidate) would block
      // the view: take the one at the least angle from +x instead.
      const bool ccw = Orient(m, hit, candidate) > 0.0;
      const P t0 = m;
      const P t1 = ccw ? hit : candidate;
      const P t2 = ccw ? candidate : hit;
      double best_angle = std::numeric_limits<double>::infinity();
      double best_distance = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < n; ++i) {
        const P r = points[static_cast<std::size_t>(ring[i])];
        if (Same(r, candidate) || Same(r, m) || !InTriangle(r, t0, t1, t2)) {
          continue;
        }
        const double angle = std::atan2(std::fabs(r.y - m.y), r.x - m.x);
        const double distance = std::hypot(r.x - m.x, r.y - m.y);
        if (angle < best_angle ||
            (angle == best_angle && distance < best_distance)) {
          best_angle = angle;
          best_distance = distance;
          visible = i;
        }
      }
    }
    visible = PickCopy(points, ring, visible, m);
    // ring[..visible], m, the hole around back to m, ring[visible], ...
    std::vector<int> bridged;
    bridged.reserve(n + static_cast<std::size_t>(hole.count) + 2);
    bridged.insert(bridged.end(), ring.begin(),
                   ring.begin() + static_cast<std::ptrdiff_t>(visible) + 1);
    const int offset = hole.rightmost - hole.first;
    for (int k = 0; k <= hole.count; ++k) {
      bridged.push_back(hole.first + (offset + k) % hole.count);
    }
    bridged.insert(bridged.end(),
                   ring.begin() + static_cast<std::ptrdiff_t>(visible),
                   ring.end());
    ring = std::move(bridged);
  }
  return ring;
}

// How many ears ear clipping compares before it cuts the best-shaped.
constexpr int kEarsCompared = 6;

// The reflex corners of a ring, bucketed in a uniform grid of about one
// cell per vertex over the ring's box, so that an ear test looks only at the
// reflex corners near its triangle (Held, "FIST: Fast Industrial-Strength
// Triangulation of Polygons", 2001, uses the same kind of grid). Ear
// clipping only ever turns reflex corners convex, so the grid is built once
// and a stale entry is skipped by the caller.
class ReflexGrid {
 public:
  ReflexGrid(const std::vector<P>& points, const std::vector<int>& ring,
             const std::vector<std::uint8_t>& is_reflex) {
    const std::size_t n = ring.size();
    lo_ = hi_ = points[static_cast<std::size_t>(ring[0])];
    for (const int id : ring) {
      const P p = points[static_cast<std::size_t>(id)];
      lo_ = {std::min(lo_.x, p.x), std::min(lo_.y, p.y)};
      hi_ = {std::max(hi_.x, p.x), std::max(hi_.y, p.y)};
    }
    side_ = std::max(1, static_cast<int>(std::sqrt(static_cast<double>(n))));
    scale_ = {side_ / std::max(hi_.x - lo_.x, 1e-300),
              side_ / std::max(hi_.y - lo_.y, 1e-300)};
    // Counting sort of the reflex slots by cell.
    starts_.assign(static_cast<std::size_t>(side_ * side_) + 1, 0);
    for (std::size_t slot = 0; slot < n; ++slot) {
      if (is_reflex[slot]) {
        ++starts_[Cell(points[static_cast<std::size_t>(ring[slot])]) + 1];
      }
    }
    for (std::size_t c = 1; c < starts_.size(); ++c) {
      starts_[c] += starts_[c - 1];
    }
    slots_.resize(static_cast<std::size_t>(starts_.back()));
    std::vector<int> fill(starts_.begin(), starts_.end() - 1);
    for (std::size_t slot = 0; slot < n; ++slot) {
      if (is_reflex[slot]) {
        slots_[static_cast<std::size_t>(
            fill[Cell(points[static_cast<std::size_t>(ring[slot])])]++)] =
            static_cast<int>(slot);
      }
    }
  }

  // Calls visit(slot) for every bucketed slot in the cells that the box
  // [lo, hi] meets, until it returns false; false then.
  template <typename Visit>
  bool ForEachNear(P lo, P hi, Visit&& visit) const {
    const int x0 = Axis(lo.x, lo_.x, scale_.x);
    const int x1 = Axis(hi.x, lo_.x, scale_.x);
    const int y0 = Axis(lo.y, lo_.y, scale_.y);
    const int y1 = Axis(hi.y, lo_.y, scale_.y);
    const auto side = static_cast<std::size_t>(side_);
    for (auto y = static_cast<std::size_t>(y0);
         y <= static_cast<std::size_t>(y1); ++y) {
      for (auto x = static_cast<std::size_t>(x0);
           x <= static_cast<std::size_t>(x1); ++x) {
        const std::size_t c = y * side + x;
        for (int k = starts_[c]; k < starts_[c + 1]; ++k) {
          if (!visit(slots_[static_cast<std::size_t>(k)])) return false;
        }
      }
    }
    return true;
  }

 private:
  int Axis(double v, double lo, double scale) const {
    return std::clamp(static_cast<int>((v - lo) * scale), 0, side_ - 1);
  }
  std::size_t Cell(P p) const {
    return static_cast<std::size_t>(Axis(p.y, lo_.y, scale_.y)) *
               static_cast<std::size_t>(side_) +
           static_cast<std::size_t>(Axis(p.x, lo_.x, scale_.x));
  }

  P lo_{};
  P hi_{};
  P scale_{};
  int side_ = 1;
  std::vector<int> starts_;
  std::vector<int> slots_;
};

// Ear clipping of the ring (counter-clockwise): from where the last ear
// was cut, the best-shaped of the next kEarsCompared ears; triangles as
// vertex ids.
absl::StatusOr<std::vector<std::array<int, 3>>> Triangulate(
    const std::vector<P>& points, const std::vector<int>& ring) {
  const int n = static_cast<int>(ring.size());
  std::vector<int> prev(static_cast<std::size_t>(n));
  std::vector<int> next(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    prev[static_cast<std::size_t>(i)] = (i + n - 1) % n;
    next[static_cast<std::size_t>(i)] = (i + 1) % n;
  }
  auto at = [&](int slot) {
    return points[static_cast<std::size_t>(
        ring[static_cast<std::size_t>(slot)])];
  };
  auto reflex = [&](int slot) {
    return Orient(at(prev[static_cast<std::size_t>(slot)]), at(slot),
                  at(next[static_cast<std::size_t>(slot)])) <= 0.0;
  };
  std::vector<std::uint8_t> is_reflex(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    is_reflex[static_cast<std::size_t>(i)] = reflex(i) ? 1 : 0;
  }
  const ReflexGrid grid(points, ring, is_reflex);
  std::vector<std::uint8_t> cut(static_cast<std::size_t>(n), 0);

  // The ear's quality (the sine of its sharpest corner), or -1 when the
  // corner at `slot` is not an ear.
  auto ear_quality = [&](int slot) -> double {
    if (is_reflex[static_cast<std::size_t>(slot)]) return -1.0;
    const int u = prev[static_cast<std::size_t>(slot)];
    const int w = next[static_cast<std::size_t>(slot)];
    const P a = at(u);
    const P b = at(slot);
    const P c = at(w);
    const P lo{std::min({a.x, b.x, c.x}), std::min({a.y, b.y, c.y})};
    const P hi{std::max({a.x, b.x, c.x}), std::max({a.y, b.y, c.y})};
    // Any reflex corner still on the ring, other than the ear's own three,
    // inside the triangle blocks the ear.
    const bool clear = grid.ForEachNear(lo, hi, [&](int k) {
      const auto at_k = static_cast<std::size_t>(k);
      if (cut[at_k] || !is_reflex[at_k] || k == u || k == slot || k == w) {
        return true;
      }
      const P p = at(k);
      if (Same(p, a) || Same(p, b) || Same(p, c)) return true;
      return !InTriangle(p, a, b, c);
    });
    return clear ? TriangleQuality(a, b, c) : -1.0;
  };

  std::vector<std::array<int, 3>> triangles;
  triangles.reserve(static_cast<std::size_t>(n));
  int remaining = n;
  int start = 0;
  while (remaining > 3) {
    // The best-shaped of the next few ears along the ring: a whole scan
    // per ear would cost the cube of the vertex count.
    int best = -1;
    double best_quality = 0.0;
    int slot = start;
    int ears = 0;
    for (int k = 0; k < remaining && ears < kEarsCompared; ++k) {
      const double quality = ear_quality(slot);
      if (quality > 0.0) {
        ++ears;
        if (quality > best_quality) {
          best_quality = quality;
          best = slot;
        }
      }
      slot = next[static_cast<std::size_t>(slot)];
    }
    if (best < 0) {
      return absl::InternalError("no ear found (the ring is not simple)");
    }
    const int u = prev[static_cast<std::size_t>(best)];
    const int w = next[static_cast<std::size_t>(best)];
    triangles.push_back({ring[static_cast<std::size_t>(u)],
                         ring[static_cast<std::size_t>(best)],
                         ring[static_cast<std::size_t>(w)]});
    next[static_cast<std::size_t>(u)] = w;
    prev[static_cast<std::size_t>(w)] = u;
    cut[static_cast<std::size_t>(best)] = 1;
    is_reflex[static_cast<std::size_t>(u)] = reflex(u) ? 1 : 0;
    is_reflex[static_cast<std::size_t>(w)] = reflex(w) ? 1 : 0;
    --remaining;
    start = w;
  }
  const int w = next[static_cast<std::size_t>(start)];
  triangles.push_back(
      {ring[static_cast<std::size_t>(prev[static_cast<std::size_t>(start)])],
       ring[static_cast<std::size_t>(start)],
       ring[static_cast<std::size_t>(w)]});
  if (Orient(points[static_cast<std::size_t>(triangles.back()[0])],
             points[static_cast<std::size_t>(triangles.back()[1])],
             points[static_cast<std::size_t>(triangles.back()[2])]) <= 0.0) {
    return absl::InternalError("the last triangle is degenerate");
  }
  return triangles;
}

// The sine a merged piece's new corners must exceed: MakeConvexPolygon
// refuses turns whose sine is below 1e-6.
constexpr double kMinMergedTurnSine = 1e-5;

// Hertel-Mehlhorn: drops each diagonal whose two pieces merge into a
// convex polygon of at most max_vertices vertices.
std::vector<std::vector<int>> MergePieces(
    const std::vector<P>& points,
    const std::vector<std::array<int, 3>>& triangles, int max_vertices) {
  std::vector<std::vector<int>> pieces;
  pieces.reserve(triangles.size());
  for (const auto& t : triangles) pieces.push_back({t[0], t[1], t[2]});
  // Each directed edge u -> v of a piece, by (u, v).
  std::map<std::pair<int, int>, int> owner;
  for (int p = 0; p < static_cast<int>(pieces.size()); ++p) {
    const auto& piece = pieces[static_cast<std::size_t>(p)];
    for (std::size_t i = 0; i < piece.size(); ++i) {
      owner[{piece[i], piece[(i + 1) % piece.size()]}] = p;
    }
  }
  auto pt = [&](int id) { return points[static_cast<std::size_t>(id)]; };
  // Diagonals in the order the triangulation made them.
  std::vector<std::pair<int, int>> diagonals;
  for (const auto& [edge, piece] : owner) {
    if (edge.first < edge.second && owner.count({edge.second, edge.first})) {
      diagonals.push_back(edge);
    }
  }
  for (const auto& [u, v] : diagonals) {
    const auto pu = owner.find({u, v});
    const auto qv = owner.find({v, u});
    if (pu == owner.end() || qv == owner.end()) continue;
    const int p = pu->second;
    const int q = qv->second;
    if (p == q) continue;
    const auto& piece_p = pieces[static_cast<std::size_t>(p)];
    const auto& piece_q = pieces[static_cast<std::size_t>(q)];
    if (static_cast<int>(piece_p.size() + piece_q.size()) - 2 > max_vertices) {
      continue;
    }
    // P has u -> v, Q has v -> u. Merged: P from v round to u, then Q's
    // vertices after u up to before v.
    const auto ip = static_cast<std::size_t>(
        std::find(piece_p.begin(), piece_p.end(), v) - piece_p.begin());
    const auto iq = static_cast<std::size_t>(
        std::find(piece_q.begin(), piece_q.end(), u) - piece_q.begin());
    std::vector<int> merged;
    merged.reserve(piece_p.size() + piece_q.size() - 2);
    for (std::size_t k = 0; k < piece_p.size(); ++k) {
      merged.push_back(piece_p[(ip + k) % piece_p.size()]);
    }
    for (std::size_t k = 1; k + 1 < piece_q.size(); ++k) {
      merged.push_back(piece_q[(iq + k) % piece_q.size()]);
    }
    // Only the corners at u and v are new.
    const std::size_t m = merged.size();
    bool convex = true;
    for (std::size_t k = 0; k < m && convex; ++k) {
      const int id = merged[k];
      if (id != u && id != v) continue;
      convex = TurnSine(pt(merged[(k + m - 1) % m]), pt(id),
                        pt(merged[(k + 1) % m])) > kMinMergedTurnSine;
    }
    if (!convex) continue;
    owner.erase({u, v});
    owner.erase({v, u});
    for (std::size_t k = 0; k < m; ++k) {
      owner[{merged[k], merged[(k + 1) % m]}] = p;
    }
    pieces[static_cast<std::size_t>(p)] = std::move(merged);
    pieces[static_cast<std::size_t>(q)].clear();
  }
  std::erase_if(pieces,
                [](const std::vector<int>& piece) { return piece.empty(); });
  return pieces;
}

}  // namespace

absl::StatusOr<std::vector<std::vector<Vec2>>> DecomposePolygon(
    const std::vector<Vec2>& outline,
    const std::vector<std::vector<Vec2>>& holes, int max_vertices) {
  // Ids: the outline's points, then each hole's.
  std::vector<Vec2> given = outline;
  std::vector<std::pair<int, int>> hole_ranges;
  for (const auto& hole : holes) {
    hole_ranges.emplace_back(static_cast<int>(given.size()),
                             static_cast<int>(hole.size()));
    given.insert(given.end(), hole.begin(), hole.end());
  }
  std::vector<P> points;
  points.reserve(given.size());
  for (Vec2 v : given) points.push_back(ToP(v));
  absl::StatusOr<std::vector<int>> ring =
      BridgeHoles(points, static_cast<int>(outline.size()), hole_ranges);
  if (!ring.ok()) return ring.status();
  absl::StatusOr<std::vector<std::array<int, 3>>> triangles =
      Triangulate(points, *ring);
  if (!triangles.ok()) return triangles.status();
  std::vector<std::vector<Vec2>> pieces;
  for (const auto& piece : MergePieces(points, *triangles, max_vertices)) {
    std::vector<Vec2>& out = pieces.emplace_back();
    out.reserve(piece.size());
    for (int id : piece) out.push_back(given[static_cast<std::size_t>(id)]);
  }
  return pieces;
}

}  // namespace sator::internal2d
