// MakeLevel2: validates the outlines and chains, orients the rings, links
// every edge to its neighbours, cuts the polygons into convex pieces
// (level_decompose2d.h) and builds the two trees. Crossing edges are found
// by one self-pair descent of the edge tree, each candidate pair decided
// exactly in double.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "collide2d/level_decompose2d.h"
#include "collide2d/level_piece2d.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/field_status.h"
#include "sator/core/limits.h"

namespace sator {
namespace {

// The sine of the turn below which three consecutive polygon points count
// as collinear. The convex pieces' corners are input corners (or merged
// ones checked against kMinMergedTurnSine), and MakeConvexPolygon refuses
// a sine below 1e-6.
constexpr double kMinPolygonTurnSine = 1e-5;

// A ring or chain as the input names it, for error messages.
struct RingInfo {
  std::string path;       // "polygons[1].outline", "chains[0].points", ...
  std::size_t count = 0;  // Points.
  bool closed = true;
};

// Where an edge came from: its ring and the index of its start point.
struct EdgeOrigin {
  std::uint32_t ring = 0;
  std::size_t start = 0;
};

struct DVec {
  double x;
  double y;
};
DVec D(Vec2 v) { return {static_cast<double>(v.x), static_cast<double>(v.y)}; }
double Cross(DVec a, DVec b) { return a.x * b.y - a.y * b.x; }
double Dot(DVec a, DVec b) { return a.x * b.x + a.y * b.y; }
DVec Sub(DVec a, DVec b) { return {a.x - b.x, a.y - b.y}; }
double Length(DVec a) { return std::hypot(a.x, a.y); }

std::string PointPath(const std::string& ring, std::size_t index) {
  return absl::StrCat(ring, "[", index, "]");
}

absl::Status CheckPoints(const std::vector<Vec2>& points,
                         const std::string& path, bool closed) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Vec2 p = points[i];
    if (!IsFinite(p)) return FieldError(PointPath(path, i), "not finite");
    if (std::fabs(p.x) > kMaxShapeCoordinate ||
        std::fabs(p.y) > kMaxShapeCoordinate) {
      return FieldError(
          PointPath(path, i),
          absl::StrFormat("(%.9g, %.9g) is beyond %g in magnitude "
                          "(kMaxShapeCoordinate)",
                          p.x, p.y, kMaxShapeCoordinate));
    }
  }
  const std::size_t n = points.size();
  const std::size_t edges = closed ? n : n - 1;
  for (std::size_t i = 0; i < edges; ++i) {
    const std::size_t j = (i + 1) % n;
    if (!(sator::Length(points[j] - points[i]) >= kMinShapeSize)) {
      return FieldError(
          PointPath(path, j),
          absl::StrFormat("repeats point %d (an edge shorter than %g, "
                          "kMinShapeSize)",
                          i, kMinShapeSize));
    }
  }
  return absl::OkStatus();
}

// The sine of the turn at points[i] (a left turn is positive).
double TurnSineAt(const std::vector<Vec2>& points, std::size_t i) {
  const std::size_t n = points.size();
  const DVec a = D(points[(i + n - 1) % n]);
  const DVec b = D(points[i]);
  const DVec c = D(points[(i + 1) % n]);
  const DVec u = Sub(b, a);
  const DVec v = Sub(c, b);
  return Cross(u, v) / (Length(u) * Length(v));
}

double TwiceArea(const std::vector<Vec2>& points) {
  double twice_area = 0.0;
  const DVec o = D(points[0]);
  for (std::size_t i = 1; i + 1 < points.size(); ++i) {
    twice_area += Cross(Sub(D(points[i]), o), Sub(D(points[i + 1]), o));
  }
  return twice_area;
}

absl::Status CheckRing(const std::vector<Vec2>& points,
                       const std::string& path) {
  if (points.size() < 3) {
    return FieldError(
        path,
        absl::StrFormat("%d points; a ring needs at least 3", points.size()));
  }
  if (absl::Status s = CheckPoints(points, path, true); !s.ok()) return s;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!(std::fabs(TurnSineAt(points, i)) > kMinPolygonTurnSine)) {
      return FieldError(
          PointPath(path, i),
          "is collinear with its neighbours (drop it, or move it off "
          "the line)");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckChain(const LevelChain2& chain, const std::string& path) {
  const std::size_t least = chain.closed ? 3 : 2;
  if (chain.points.size() < least) {
    return FieldError(
        path, absl::StrFormat("%d points; a%s chain needs at least %d",
                              chain.points.size(),
                              chain.closed ? " closed" : "n open", least));
  }
  if (absl::Status s = CheckPoints(chain.points, path, chain.closed); !s.ok()) {
    return s;
  }
  const std::size_t n = chain.points.size();
  for (std::size_t i = chain.closed ? 0 : 1; i < (chain.closed ? n : n - 1);
       ++i) {
    const DVec a = D(chain.points[(i + n - 1) % n]);
    const DVec b = D(chain.points[i]);
    const DVec c = D(chain.points[(i + 1) % n]);
    const DVec u = Sub(b, a);
    const DVec v = Sub(c, b);
    if (std::fabs(Cross(u, v)) <= kMinPolygonTurnSine * Length(u) * Length(v) &&
        Dot(u, v) < 0.0) {
      return FieldError(PointPath(path, i), "turns the chain back on itself");
    }
  }
  return absl::OkStatus();
}

// The edges of a closed ring, edge k joining points k and k + 1; `flip`
// runs them backwards (so that the solid is on their left).
void AddRingEdges(const std::vector<Vec2>& p, bool flip, bool one_sided,
                  bool solid, std::uint32_t owner,
                  std::vector<LevelEdge2>& edges) {
  const std::size_t n = p.size();
  for (std::size_t k = 0; k < n; ++k) {
    LevelEdge2 e;
    const Vec2 here = p[k];
    const Vec2 there = p[(k + 1) % n];
    const Vec2 before = p[(k + n - 1) % n];
    const Vec2 after = p[(k + 2) % n];
    e.a = flip ? there : here;
    e.b = flip ? here : there;
    e.prev = flip ? after : before;
    e.next = flip ? before : after;
    e.has_prev = e.has_next = true;
    e.one_sided = one_sided;
    e.solid = solid;
    e.owner = owner;
    edges.push_back(e);
  }
}

void AddChainEdges(const LevelChain2& chain, std::uint32_t owner,
                   std::vector<LevelEdge2>& edges) {
  if (chain.closed) {
    AddRingEdges(chain.points, false, chain.one_sided, false, owner, edges);
    return;
  }
  const std::vector<Vec2>& p = chain.points;
  for (std::size_t k = 0; k + 1 < p.size(); ++k) {
    LevelEdge2 e;
    e.a = p[k];
    e.b = p[k + 1];
    e.has_prev = k > 0;
    e.has_next = k + 2 < p.size();
    if (e.has_prev) e.prev = p[k - 1];
    if (e.has_next) e.next = p[k + 2];
    e.one_sided = chain.one_sided;
    e.owner = owner;
    edges.push_back(e);
  }
}

// Exact in double for float input (the products of differences of floats
// of like magnitude): do the closed segments pq and rs share a point?
bool SegmentsTouch(Vec2 p, Vec2 q, Vec2 r, Vec2 s) {
  const DVec a = D(p);
  const DVec b = D(q);
  const DVec c = D(r);
  const DVec d = D(s);
  const double d1 = Cross(Sub(b, a), Sub(c, a));
  const double d2 = Cross(Sub(b, a), Sub(d, a));
  const double d3 = Cross(Sub(d, c), Sub(a, c));
  const double d4 = Cross(Sub(d, c), Sub(b, c));
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) &&
      ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) {
    return true;
  }
  auto on = [](DVec x, DVec y, DVec z, double orient) {
    return orient == 0.0 && std::min(x.x, y.x) <= z.x &&
           z.x <= std::max(x.x, y.x) && std::min(x.y, y.y) <= z.y &&
           z.y <= std::max(x.y, y.y);
  };
  return on(a, b, c, d1) || on(a, b, d, d2) || on(c, d, a, d3) ||
         on(c, d, b, d4);
}

// True when point p lies inside the closed ring (crossing number, in
// double). p is never on the ring here: validation refused touching rings.
bool InsideRing(const std::vector<Vec2>& ring, Vec2 point) {
  const DVec p = D(point);
  bool inside = false;
  const std::size_t n = ring.size();
  for (std::size_t i = 0, j = n - 1; i < n; j = i++) {
    const DVec a = D(ring[i]);
    const DVec b = D(ring[j]);
    if ((a.y > p.y) != (b.y > p.y) &&
        p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x) {
      inside = !inside;
    }
  }
  return inside;
}

Aabb2 EdgeBox(const LevelEdge2& e) { return {Min(e.a, e.b), Max(e.a, e.b)}; }

bool Adjacent(const std::vector<EdgeOrigin>& origins,
              const std::vector<RingInfo>& rings, std::uint32_t i,
              std::uint32_t j) {
  const EdgeOrigin& a = origins[i];
  const EdgeOrigin& b = origins[j];
  if (a.ring != b.ring) return false;
  const RingInfo& ring = rings[a.ring];
  const std::size_t edges = ring.closed ? ring.count : ring.count - 1;
  if (a.start + 1 == b.start || b.start + 1 == a.start) return true;
  return ring.closed &&
         ((a.start + 1) % edges == b.start || (b.start + 1) % edges == a.start);
}

}  // namespace

Level2::Level2(LevelDesc2 desc, std::vector<LevelEdge2> edges,
               std::vector<std::uint32_t> polygon_starts,
               std::vector<LevelPiece2> pieces, broadphase::Bvh2 edge_tree,
               broadphase::Bvh2 piece_tree)
    : desc_(std::move(desc)),
      edges_(std::move(edges)),
      polygon_starts_(std::move(polygon_starts)),
      pieces_(std::move(pieces)),
      edge_tree_(std::move(edge_tree)),
      piece_tree_(std::move(piece_tree)) {
  for (LevelEdge2& e : edges_) {
    extent_ = std::max({extent_, std::fabs(e.a.x) + std::fabs(e.a.y),
                        std::fabs(e.b.x) + std::fabs(e.b.y)});
    e.length = Length(e.b - e.a);
    e.normal = RightPerp((1.0f / e.length) * (e.b - e.a));
  }
}

std::size_t Level2::MemoryBytes() const {
  std::size_t bytes = desc_.polygons.capacity() * sizeof(LevelPolygon2) +
                      desc_.chains.capacity() * sizeof(LevelChain2);
  for (const LevelPolygon2& p : desc_.polygons) {
    bytes += p.outline.capacity() * sizeof(Vec2) +
             p.holes.capacity() * sizeof(LevelRing2);
    for (const LevelRing2& h : p.holes) {
      bytes += h.points.capacity() * sizeof(Vec2);
    }
  }
  for (const LevelChain2& c : desc_.chains) {
    bytes += c.points.capacity() * sizeof(Vec2);
  }
  return bytes + edges_.capacity() * sizeof(LevelEdge2) +
         polygon_starts_.capacity() * sizeof(std::uint32_t) +
         pieces_.capacity() * sizeof(LevelPiece2) + edge_tree_.MemoryBytes() +
         piece_tree_.MemoryBytes();
}

absl::StatusOr<std::shared_ptr<const Level2>> MakeLevel2(LevelDesc2 desc) {
  // Counts first, so a huge input is refused before any work on it.
  std::size_t edge_count = 0;
  for (std::size_t i = 0; i < desc.polygons.size(); ++i) {
    const LevelPolygon2& polygon = desc.polygons[i];
    std::size_t vertices = polygon.outline.size();
    for (const LevelRing2& hole : polygon.holes) vertices += hole.points.size();
    if (vertices > static_cast<std::size_t>(kMaxLevelPolygonVertices)) {
      return FieldError(absl::StatusCode::kResourceExhausted,
                        absl::StrCat("polygons[", i, "]"),
                        absl::StrFormat("%d vertices exceed the limit of %d "
                                        "(kMaxLevelPolygonVertices)",
                                        vertices, kMaxLevelPolygonVertices));
    }
    edge_count += vertices;
  }
  for (const LevelChain2& chain : desc.chains) {
    edge_count += chain.closed || chain.points.empty()
                      ? chain.points.size()
                      : chain.points.size() - 1;
  }
  if (edge_count > kMaxLevelEdges) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "level: %d edges exceed the limit of %d (kMaxLevelEdges)", edge_count,
        kMaxLevelEdges));
  }
  if (edge_count == 0) {
    return absl::InvalidArgumentError("level: no polygon and no chain");
  }

  std::vector<LevelEdge2> edges;
  std::vector<EdgeOrigin> origins;
  std::vector<RingInfo> rings;
  edges.reserve(edge_count);
  origins.reserve(edge_count);
  std::vector<std::uint32_t> polygon_starts;
  std::vector<std::vector<Vec2>> outlines;            // Counter-clockwise.
  std::vector<std::vector<std::vector<Vec2>>> holes;  // Clockwise.
  auto add_origins = [&](const std::string& path, std::size_t count,
                         bool closed) {
    const auto ring = static_cast<std::uint32_t>(rings.size());
    rings.push_back({path, count, closed});
    const std::size_t n = closed ? count : count - 1;
    for (std::size_t k = 0; k < n; ++k) origins.push_back({ring, k});
  };
  for (std::size_t i = 0; i < desc.polygons.size(); ++i) {
    const LevelPolygon2& polygon = desc.polygons[i];
    polygon_starts.push_back(static_cast<std::uint32_t>(edges.size()));
    const std::string base = absl::StrCat("polygons[", i, "]");
    const std::string outline_path = base + ".outline";
    if (absl::Status s = CheckRing(polygon.outline, outline_path); !s.ok()) {
      return s;
    }
    const bool flip_outline = TwiceArea(polygon.outline) < 0.0;
    AddRingEdges(polygon.outline, flip_outline, true, true,
                 static_cast<std::uint32_t>(i), edges);
    add_origins(outline_path, polygon.outline.size(), true);
    std::vector<Vec2> outline = polygon.outline;
    if (flip_outline) std::reverse(outline.begin(), outline.end());
    outlines.push_back(std::move(outline));
    auto& polygon_holes = holes.emplace_back();
    for (std::size_t j = 0; j < polygon.holes.size(); ++j) {
      const std::string hole_path =
          absl::StrCat(base, ".holes[", j, "].points");
      const std::vector<Vec2>& points = polygon.holes[j].points;
      if (absl::Status s = CheckRing(points, hole_path); !s.ok()) return s;
      const bool flip_hole = TwiceArea(points) > 0.0;
      AddRingEdges(points, flip_hole, true, true, static_cast<std::uint32_t>(i),
                   edges);
      add_origins(hole_path, points.size(), true);
      std::vector<Vec2> hole = points;
      if (flip_hole) std::reverse(hole.begin(), hole.end());
      polygon_holes.push_back(std::move(hole));
    }
  }
  polygon_starts.push_back(static_cast<std::uint32_t>(edges.size()));
  for (std::size_t i = 0; i < desc.chains.size(); ++i) {
    const std::string path = absl::StrCat("chains[", i, "].points");
    if (absl::Status s = CheckChain(desc.chains[i], path); !s.ok()) return s;
    AddChainEdges(desc.chains[i], static_cast<std::uint32_t>(i), edges);
    add_origins(path, desc.chains[i].points.size(), desc.chains[i].closed);
  }

  std::vector<Aabb2> boxes;
  boxes.reserve(edges.size());
  for (const LevelEdge2& e : edges) boxes.push_back(EdgeBox(e));
  broadphase::BvhOptions tree_options;
  tree_options.full_leaves = true;
  absl::StatusOr<broadphase::Bvh2> edge_tree =
      broadphase::Bvh2::Create(tree_options);
  if (!edge_tree.ok()) return edge_tree.status();
  if (absl::Status s = edge_tree->Build(boxes); !s.ok()) return s;

  // Edges may meet only at the vertex two neighbours share.
  const auto ids = edge_tree->LeafIds();
  absl::Status crossing = absl::OkStatus();
  edge_tree->QueryPairs(
      *edge_tree, [&](std::uint32_t leaf_a, std::uint32_t leaf_b) {
        const std::uint32_t i = std::min(ids[leaf_a], ids[leaf_b]);
        const std::uint32_t j = std::max(ids[leaf_a], ids[leaf_b]);
        if (i == j || Adjacent(origins, rings, i, j)) return true;
        const LevelEdge2& e = edges[i];
        const LevelEdge2& f = edges[j];
        if (!SegmentsTouch(e.a, e.b, f.a, f.b)) return true;
        crossing = FieldError(
            PointPath(rings[origins[i].ring].path, origins[i].start),
            absl::StrCat(
                "the edge from this point crosses or touches the edge from ",
                PointPath(rings[origins[j].ring].path, origins[j].start)));
        return false;
      });
  if (!crossing.ok()) return crossing;

  // Holes lie inside their outline and outside each other.
  for (std::size_t i = 0; i < outlines.size(); ++i) {
    for (std::size_t j = 0; j < holes[i].size(); ++j) {
      const Vec2 probe = holes[i][j][0];
      const std::string path = absl::StrCat("polygons[", i, "].holes[", j, "]");
      if (!InsideRing(outlines[i], probe)) {
        return FieldError(path, "lies outside its polygon's outline");
      }
      for (std::size_t k = 0; k < holes[i].size(); ++k) {
        if (k != j && InsideRing(holes[i][k], probe)) {
          return FieldError(path, absl::StrFormat("lies inside hole %d", k));
        }
      }
    }
  }

  std::vector<LevelPiece2> pieces;
  for (std::size_t i = 0; i < outlines.size(); ++i) {
    const std::string path = absl::StrCat("polygons[", i, "]");
    absl::StatusOr<std::vector<std::vector<Vec2>>> cut =
        internal2d::DecomposePolygon(outlines[i], holes[i],
                                     kMaxPolygonVertices);
    if (!cut.ok()) {
      return FieldError(path, absl::StrCat("cannot be cut into convex pieces: ",
                                           cut.status().message()));
    }
    for (const std::vector<Vec2>& piece : *cut) {
      Vec2 offset{};
      for (Vec2 v : piece) offset = offset + v;
      offset = (1.0f / static_cast<float>(piece.size())) * offset;
      std::vector<Vec2> local;
      local.reserve(piece.size());
      for (Vec2 v : piece) local.push_back(v - offset);
      absl::StatusOr<ConvexPolygon> shape = MakeConvexPolygon(local);
      if (!shape.ok()) {
        return FieldError(
            path,
            absl::StrCat("a convex piece is too thin for the core: ",
                         shape.status().message(), " (widen the polygon near (",
                         piece[0].x, ", ", piece[0].y, "))"));
      }
      pieces.push_back(
          {Shape2(*std::move(shape)), offset, static_cast<std::uint32_t>(i)});
    }
  }
  std::vector<Aabb2> piece_boxes;
  piece_boxes.reserve(pieces.size());
  for (const LevelPiece2& piece : pieces) {
    Aabb2 box{piece.convex().vertex(0), piece.convex().vertex(0)};
    for (int k = 1; k < piece.convex().count(); ++k) {
      box =
          Union(box, Aabb2{piece.convex().vertex(k), piece.convex().vertex(k)});
    }
    piece_boxes.push_back({box.min + piece.offset, box.max + piece.offset});
  }
  broadphase::Bvh2 piece_tree;
  if (!pieces.empty()) {
    if (absl::Status s = piece_tree.Build(piece_boxes); !s.ok()) return s;
  }

  // No polygon or chain lies inside another polygon's solid: one point of
  // each decides, since no edges cross.
  auto inside_other = [&](Vec2 point, std::size_t self_polygon) -> int {
    int found = -1;
    if (pieces.empty()) return found;
    piece_tree.Query(Aabb2{point, point}, [&](std::uint32_t id) {
      const LevelPiece2& piece = pieces[id];
      if (piece.polygon == self_polygon) return true;
      if (!internal2d::InsidePiece(piece, point)) return true;
      found = static_cast<int>(piece.polygon);
      return false;
    });
    return found;
  };
  for (std::size_t i = 0; i < outlines.size(); ++i) {
    if (const int other = inside_other(outlines[i][0], i); other >= 0) {
      return FieldError(absl::StrCat("polygons[", i, "]"),
                        absl::StrFormat("lies inside polygons[%d]", other));
    }
  }
  for (std::size_t i = 0; i < desc.chains.size(); ++i) {
    if (const int other =
            inside_other(desc.chains[i].points[0], outlines.size());
        other >= 0) {
      return FieldError(absl::StrCat("chains[", i, "]"),
                        absl::StrFormat("lies inside polygons[%d]", other));
    }
  }

  return std::make_shared<const Level2>(
      std::move(desc), std::move(edges), std::move(polygon_starts),
      std::move(pieces), *std::move(edge_tree), std::move(piece_tree));
}

}  // namespace sator
