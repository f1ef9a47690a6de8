// Fuzzes the 2D level builder (MakeLevel2: validation, hole bridging, ear
// clipping, Hertel-Mehlhorn merging) and the level's ray query, from raw
// bytes. The first byte picks how the rest decodes:
//  - rings of points on an integer grid scaled by a power of two, so that
//    crossings, touches, repeats and collinear runs are common and every
//    orientation test on them is exact in double;
//  - star-shaped outlines (points at increasing angles about a centre:
//    simple by construction) with star holes, inside the outline when it
//    has enough points, and polylines beside them, so that most inputs are
//    valid and reach the decomposition with many reflex vertices;
//  - orthogonal combs (bars of random heights) with square holes in their
//    base, whose reflex vertices line up exactly with other vertices and
//    hole corners: the degenerate cases of ear clipping and bridging.
//
// Properties (each a real finding when it fails):
//  - the builder answers OK, INVALID_ARGUMENT or RESOURCE_EXHAUSTED, and a
//    refusal names a field of the input;
//  - an accepted level is valid: no two edges cross or touch except
//    neighbours at their shared vertex, every hole starts inside its
//    outline, no polygon or chain starts inside another polygon's solid
//    (in double; the edges brute force over every pair, on grid inputs,
//    where that test is exact);
//  - a polygon the validation accepts is always cut into pieces;
//  - each polygon's pieces are strictly convex, of at most
//    kMaxPolygonVertices corners taken from the polygon's own vertices,
//    lie inside its solid, their areas sum to its area, and no sampled
//    point is in two of them or, inside the polygon, in none;
//  - a ray's hit, distance and edge match a brute-force reference over the
//    outline and chain edges (support/level_reference.h), skipping rays
//    that pass within the slack of a vertex or start within it of an edge.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide2d/queries2d.h"
#include "sator/core/limits.h"
#include "tests/support/level_reference.h"

namespace {

using sator::LevelChain2;
using sator::LevelDesc2;
using sator::LevelEdge2;
using sator::LevelPolygon2;
using sator::LevelRing2;
using sator::Vec2;
using sator::testing::Cross;
using sator::testing::D2;
using sator::testing::Dot;
using sator::testing::ToD;

// What the current input decoded to, printed when a property fails.
std::string g_scenario;

#define CHECK_PROPERTY(condition)                                            \
  do {                                                                       \
    if (!(condition)) {                                                      \
      std::fprintf(stderr, "level_build_fuzzer:%d: property failed: %s\n%s", \
                   __LINE__, #condition, g_scenario.c_str());                \
      std::abort();                                                          \
    }                                                                        \
  } while (false)

// Past the end every read gives 0, so every input decodes.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size)
      : data_(data), size_(size) {}
  std::uint8_t U8() { return at_ < size_ ? data_[at_++] : 0; }
  int Below(int n) { return U8() % n; }
  // In [0, 1], in steps of 1/255.
  float Fraction() { return static_cast<float>(U8()) / 255.0f; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

void Describe(const std::vector<Vec2>& points, std::string& out) {
  for (const Vec2& p : points) absl::StrAppend(&out, " (", p.x, ",", p.y, ")");
  out += "\n";
}

std::string DescribeDesc(const LevelDesc2& desc) {
  std::string out;
  for (std::size_t i = 0; i < desc.polygons.size(); ++i) {
    absl::StrAppend(&out, "polygon ", i, " outline:");
    Describe(desc.polygons[i].outline, out);
    for (const LevelRing2& hole : desc.polygons[i].holes) {
      out += "  hole:";
      Describe(hole.points, out);
    }
  }
  for (const LevelChain2& chain : desc.chains) {
    absl::StrAppend(&out, "chain", chain.closed ? " closed" : "",
                    chain.one_sided ? " one-sided" : "", ":");
    Describe(chain.points, out);
  }
  return out;
}

// ---- Decoders ---------------------------------------------------------------

std::vector<Vec2> GridRing(ByteReader& in, int min_points, float scale) {
  std::vector<Vec2> ring(static_cast<std::size_t>(min_points + in.Below(8)));
  for (Vec2& p : ring) {
    p = {scale * static_cast<float>(in.Below(17) - 8),
         scale * static_cast<float>(in.Below(17) - 8)};
  }
  return ring;
}

LevelDesc2 DecodeGrid(ByteReader& in) {
  const float scale = std::ldexp(1.0f, in.Below(9) - 4);
  LevelDesc2 desc;
  const int polygons = in.Below(3);
  for (int i = 0; i < polygons; ++i) {
    LevelPolygon2 polygon;
    polygon.outline = GridRing(in, 3, scale);
    const int holes = in.Below(3);
    for (int h = 0; h < holes; ++h) {
      polygon.holes.push_back({GridRing(in, 3, scale)});
    }
    desc.polygons.push_back(std::move(polygon));
  }
  const int chains = in.Below(3);
  for (int c = 0; c < chains; ++c) {
    LevelChain2 chain;
    chain.closed = in.Below(2) == 1;
    chain.one_sided = in.Below(2) == 1;
    chain.points = GridRing(in, 2, scale);
    desc.chains.push_back(std::move(chain));
  }
  return desc;
}

// n points at jittered, increasing angles about `centre`, radii in
// [lo, hi]; clockwise when `reverse`.
std::vector<Vec2> StarRing(ByteReader& in, Vec2 centre, int n, float lo,
                           float hi, bool reverse) {
  std::vector<Vec2> ring;
  const double step = 2.0 * 3.14159265358979323846 / n;
  for (int i = 0; i < n; ++i) {
    const double angle = step * (i + 0.05 + 0.9 * in.Fraction());
    const double r = lo + (hi - lo) * in.Fraction();
    ring.push_back({static_cast<float>(centre.x + r * std::cos(angle)),
                    static_cast<float>(centre.y + r * std::sin(angle))});
  }
  if (reverse) std::reverse(ring.begin(), ring.end());
  return ring;
}

LevelDesc2 DecodeStars(ByteReader& in) {
  // A base far from the origin exercises the pieces' local frames.
  const float base = in.Below(2) == 1 ? 4096.0f : 0.0f;
  LevelDesc2 desc;
  const int polygons = 1 + in.Below(3);
  for (int i = 0; i < polygons; ++i) {
    const Vec2 centre{base + 10.0f * static_cast<float>(i), base};
    LevelPolygon2 polygon;
    polygon.outline =
        StarRing(in, centre, 3 + in.Below(61), 2.0f, 4.5f, in.Below(2) == 1);
    // Holes within 0.9 of (x - 1) and (x + 1): apart, and inside the
    // outline, whose radius is at least 2.
    const int holes = in.Below(3);
    for (int h = 0; h < holes; ++h) {
      const Vec2 at{centre.x + (h == 0 ? -1.0f : 1.0f), centre.y};
      polygon.holes.push_back(
          {StarRing(in, at, 3 + in.Below(9), 0.2f, 0.9f, in.Below(2) == 1)});
    }
    desc.polygons.push_back(std::move(polygon));
  }
  const int chains = in.Below(3);
  for (int c = 0; c < chains; ++c) {
    LevelChain2 chain;
    chain.one_sided = in.Below(2) == 1;
    const int n = 2 + in.Below(30);
    for (int k = 0; k < n; ++k) {
      chain.points.push_back(
          {base - 5.0f + 1.25f * static_cast<float>(k),
           base - 7.0f - 4.0f * static_cast<float>(c) - 1.5f * in.Fraction()});
    }
    if (in.Below(2) == 1)
      std::reverse(chain.points.begin(), chain.points.end());
    desc.chains.push_back(std::move(chain));
  }
  return desc;
}

// Bars of heights 1..8 side by side on a base row [0, width] x [0, 1],
// with square holes in the base row under chosen bars.
LevelDesc2 DecodeComb(ByteReader& in) {
  const float base = static_cast<float>(in.Below(3) * 1024);
  std::vector<int> heights;
  const int bars = 2 + in.Below(40);
  for (int i = 0; i < bars; ++i) {
    const int h = 1 + in.Below(8);
    if (heights.empty() || heights.back() != h) heights.push_back(h);
  }
  LevelPolygon2 polygon;
  const auto width = static_cast<float>(heights.size());
  polygon.outline = {{base, base}, {base + width, base}};
  for (std::size_t i = heights.size(); i-- > 0;) {
    const auto x = static_cast<float>(i);
    const auto h = static_cast<float>(heights[i]);
    polygon.outline.push_back({base + x + 1.0f, base + h});
    polygon.outline.push_back({base + x, base + h});
  }
  for (std::size_t i = 0; i < heights.size(); ++i) {
    if (in.Below(3) != 0) continue;
    const float x = base + static_cast<float>(i);
    polygon.holes.push_back({{{x + 0.25f, base + 0.25f},
                              {x + 0.75f, base + 0.25f},
                              {x + 0.75f, base + 0.75f},
                              {x + 0.25f, base + 0.75f}}});
  }
  if (in.Below(2) == 1) {
    std::reverse(polygon.outline.begin(), polygon.outline.end());
  }
  LevelDesc2 desc;
  desc.polygons.push_back(std::move(polygon));
  return desc;
}

// ---- Validity of an accepted level
// --------------------------------------------

double Orient(D2 a, D2 b, D2 c) { return Cross(b - a, c - a); }

bool OnSegment(D2 p, D2 a, D2 b) {
  return std::min(a.x, b.x) <= p.x && p.x <= std::max(a.x, b.x) &&
         std::min(a.y, b.y) <= p.y && p.y <= std::max(a.y, b.y);
}

// Closed segments ab and cd share a point.
bool Intersect(D2 a, D2 b, D2 c, D2 d) {
  const double o1 = Orient(a, b, c);
  const double o2 = Orient(a, b, d);
  const double o3 = Orient(c, d, a);
  const double o4 = Orient(c, d, b);
  if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) &&
      ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) {
    return true;
  }
  return (o1 == 0 && OnSegment(c, a, b)) || (o2 == 0 && OnSegment(d, a, b)) ||
         (o3 == 0 && OnSegment(a, c, d)) || (o4 == 0 && OnSegment(b, c, d));
}

bool Same(Vec2 p, Vec2 q) { return p.x == q.x && p.y == q.y; }

// Edges that share an endpoint may meet only there: they must not run back
// along each other.
bool OverlapBeyondSharedVertex(const LevelEdge2& e, const LevelEdge2& f) {
  const Vec2 shared = Same(e.a, f.a) || Same(e.a, f.b) ? e.a : e.b;
  const D2 s = ToD(shared);
  const D2 u = ToD(Same(e.a, shared) ? e.b : e.a) - s;
  const D2 v = ToD(Same(f.a, shared) ? f.b : f.a) - s;
  return Cross(u, v) == 0.0 && Dot(u, v) > 0.0;
}

// Exact for grid inputs (every coordinate a small multiple of a power of
// two); for others the builder's own double predicates decide, so this
// check runs on grid inputs only.
void CheckNoEdgesMeet(const sator::Level2& level) {
  const std::vector<LevelEdge2>& edges = level.edges();
  for (std::size_t i = 0; i < edges.size(); ++i) {
    for (std::size_t j = i + 1; j < edges.size(); ++j) {
      const LevelEdge2& e = edges[i];
      const LevelEdge2& f = edges[j];
      const bool share =
          Same(e.a, f.a) || Same(e.a, f.b) || Same(e.b, f.a) || Same(e.b, f.b);
      if (share) {
        CHECK_PROPERTY(!OverlapBeyondSharedVertex(e, f));
      } else {
        CHECK_PROPERTY(!Intersect(ToD(e.a), ToD(e.b), ToD(f.a), ToD(f.b)));
      }
    }
  }
}

void CheckNesting(const LevelDesc2& desc) {
  for (std::size_t i = 0; i < desc.polygons.size(); ++i) {
    const LevelPolygon2& polygon = desc.polygons[i];
    for (const LevelRing2& hole : polygon.holes) {
      CHECK_PROPERTY(
          sator::testing::InsideRing(polygon.outline, ToD(hole.points[0])));
    }
    LevelDesc2 others;
    for (std::size_t j = 0; j < desc.polygons.size(); ++j) {
      if (j != i) others.polygons.push_back(desc.polygons[j]);
    }
    CHECK_PROPERTY(
        !sator::testing::InsideSolid(others, ToD(polygon.outline[0])));
  }
  for (const LevelChain2& chain : desc.chains) {
    CHECK_PROPERTY(!sator::testing::InsideSolid(desc, ToD(chain.points[0])));
  }
}

// ---- Decomposition
// --------------------------------------------------------------

double PolygonArea(const LevelPolygon2& polygon) {
  double area = sator::testing::RingArea(polygon.outline);
  for (const LevelRing2& hole : polygon.holes) {
    area -= sator::testing::RingArea(hole.points);
  }
  return area;
}

// The signed distance from p to the piece's boundary, positive inside.
double InsideDistance(const sator::LevelPiece2& piece, D2 p) {
  const sator::ConvexPolygon& convex = piece.convex();
  const D2 at = p - ToD(piece.offset);
  double inside = INFINITY;
  for (int k = 0; k < convex.count(); ++k) {
    const D2 a = ToD(convex.vertex(k));
    const D2 b = ToD(convex.vertex((k + 1) % convex.count()));
    inside =
        std::min(inside, Cross(b - a, at - a) / sator::testing::Len(b - a));
  }
  return inside;
}

// On a lattice of points over polygon `polygon`'s box: no point is inside
// two of its pieces, and one farther than `slack` from every piece edge is
// inside exactly one piece when it is inside the polygon, else none (the
// area sum alone would miss overlapping pieces that leave a gap as large).
void CheckCover(const sator::Level2& level, std::size_t polygon, double slack) {
  const LevelPolygon2& input = level.desc().polygons[polygon];
  D2 lo = ToD(input.outline[0]);
  D2 hi = lo;
  for (const Vec2& v : input.outline) {
    lo = {std::min(lo.x, static_cast<double>(v.x)),
          std::min(lo.y, static_cast<double>(v.y))};
    hi = {std::max(hi.x, static_cast<double>(v.x)),
          std::max(hi.y, static_cast<double>(v.y))};
  }
  LevelDesc2 only;
  only.polygons.push_back(input);
  constexpr int kSide = 7;
  for (int i = 0; i < kSide; ++i) {
    for (int j = 0; j < kSide; ++j) {
      // Off the grid's lines, where grid inputs put their vertices.
      const D2 p{lo.x + (hi.x - lo.x) * (i + 0.5 + 0.013 * j) / kSide,
                 lo.y + (hi.y - lo.y) * (j + 0.5 + 0.017 * i) / kSide};
      int inside = 0;
      bool near = false;
      for (const sator::LevelPiece2& piece : level.pieces()) {
        if (piece.polygon != polygon) continue;
        const double d = InsideDistance(piece, p);
        inside += d > slack ? 1 : 0;
        near = near || std::fabs(d) <= slack;
      }
      CHECK_PROPERTY(inside <= 1);
      if (!near) {
        CHECK_PROPERTY(inside ==
                       (sator::testing::InsideSolid(only, p) ? 1 : 0));
      }
    }
  }
}

void CheckPieces(const sator::Level2& level) {
  const LevelDesc2& desc = level.desc();
  std::vector<double> area(desc.polygons.size(), 0.0);
  // Rounding of a piece corner (offset + local vertex, each rounded once).
  const double corner_slack =
      8.0 * 1.1920929e-7 * std::max(1.0, static_cast<double>(level.extent()));
  for (const sator::LevelPiece2& piece : level.pieces()) {
    CHECK_PROPERTY(piece.polygon < desc.polygons.size());
    const sator::ConvexPolygon& convex = piece.convex();
    const int n = convex.count();
    CHECK_PROPERTY(n >= 3 && n <= sator::kMaxPolygonVertices);
    const LevelPolygon2& polygon = desc.polygons[piece.polygon];
    std::vector<D2> corners;
    for (int k = 0; k < n; ++k) {
      corners.push_back(ToD(convex.vertex(k)));
    }
    double twice = 0.0;
    D2 centroid{0.0, 0.0};
    for (int k = 0; k < n; ++k) {
      const D2 a = corners[static_cast<std::size_t>(k)];
      const D2 b = corners[static_cast<std::size_t>((k + 1) % n)];
      const D2 c = corners[static_cast<std::size_t>((k + 2) % n)];
      CHECK_PROPERTY(Orient(a, b, c) > 0.0);
      twice += Cross(a, b);
      centroid = centroid + (1.0 / n) * a;
    }
    area[piece.polygon] += 0.5 * twice;
    // Every corner is one of the polygon's own vertices.
    for (const D2& local : corners) {
      const D2 corner = local + ToD(piece.offset);
      double nearest = INFINITY;
      auto consider = [&](const std::vector<Vec2>& ring) {
        for (const Vec2& p : ring) {
          nearest = std::min(nearest, sator::testing::Len(ToD(p) - corner));
        }
      };
      consider(polygon.outline);
      for (const LevelRing2& hole : polygon.holes) consider(hole.points);
      CHECK_PROPERTY(nearest <= corner_slack);
    }
    LevelDesc2 only;
    only.polygons.push_back(polygon);
    CHECK_PROPERTY(
        sator::testing::InsideSolid(only, centroid + ToD(piece.offset)));
  }
  for (std::size_t i = 0; i < desc.polygons.size(); ++i) {
    const double want = PolygonArea(desc.polygons[i]);
    CHECK_PROPERTY(std::fabs(area[i] - want) <= 1e-5 * want + corner_slack);
    CheckCover(level, i, 4.0 * corner_slack);
  }
}

// ---- Rays
// --------------------------------------------------------------------------

// The ray from o along d over [0, max] passes within `slack` of p.
bool PassesNear(D2 p, D2 o, D2 d, double max, double slack) {
  const double t = std::clamp(Dot(p - o, d), 0.0, max);
  return sator::testing::Len(p - (o + t * d)) <= slack;
}

void CheckRays(ByteReader& in,
               const std::shared_ptr<const sator::Level2>& level) {
  const sator::Aabb2& box = level->local_bounds();
  const Vec2 size = box.max - box.min;
  const double slack =
      1e-4 * std::max(1.0, static_cast<double>(std::max(size.x, size.y))) +
      16 * 1.1920929e-7 * level->extent();
  const sator::Shape2 shape = level;
  for (int k = 0; k < 6; ++k) {
    const Vec2 origin{box.min.x - 1.0f + (size.x + 2.0f) * in.Fraction(),
                      box.min.y - 1.0f + (size.y + 2.0f) * in.Fraction()};
    const double angle = 2.0 * 3.14159265358979323846 * in.Fraction();
    const Vec2 direction{static_cast<float>(std::cos(angle)),
                         static_cast<float>(std::sin(angle))};
    const float max = 2.0f * std::max(size.x, size.y) + 2.0f;
    const D2 o = ToD(origin);
    const D2 d = (1.0 / sator::testing::Len(ToD(direction))) * ToD(direction);
    bool ambiguous = false;
    for (const LevelEdge2& e : level->edges()) {
      ambiguous = ambiguous ||
                  sator::testing::PointSegmentDistance(o, ToD(e.a), ToD(e.b)) <=
                      slack ||
                  PassesNear(ToD(e.a), o, d, max, slack);
    }
    if (ambiguous) continue;
    const sator::testing::RayReference want =
        sator::testing::ReferenceRay(*level, o, d, max);
    const sator::RayResult<2> got =
        sator::RayCast(shape, sator::Pose2{}, {origin, direction, max});
    g_scenario +=
        absl::StrCat("ray ", k, ": (", origin.x, ",", origin.y, ") dir (",
                     direction.x, ",", direction.y, ") max ", max, "\n");
    if (want.inside) {
      CHECK_PROPERTY(got.hit && got.started_inside);
      continue;
    }
    CHECK_PROPERTY(got.hit == want.hit);
    if (!want.hit) continue;
    CHECK_PROPERTY(!got.started_inside);
    CHECK_PROPERTY(std::fabs(got.distance - want.distance) <= slack);
    if (want.runner_up - want.distance > slack) {
      CHECK_PROPERTY(got.feature == want.edge);
    }
  }
}

// A refusal names a field of the input.
bool NamesAField(const absl::Status& status) {
  const absl::string_view message = status.message();
  return absl::StartsWith(message, "polygons") ||
         absl::StartsWith(message, "chains") ||
         absl::StrContains(message, "edge") ||
         absl::StrContains(message, "level");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  if (size < 1) return 0;
  ByteReader in(data + 1, size - 1);
  const int mode = data[0] % 3;
  LevelDesc2 desc = mode == 0   ? DecodeGrid(in)
                    : mode == 1 ? DecodeStars(in)
                                : DecodeComb(in);
  g_scenario = DescribeDesc(desc);
  absl::StatusOr<std::shared_ptr<const sator::Level2>> level =
      sator::MakeLevel2(std::move(desc));
  if (!level.ok()) {
    const absl::StatusCode code = level.status().code();
    CHECK_PROPERTY(code == absl::StatusCode::kInvalidArgument ||
                   code == absl::StatusCode::kResourceExhausted);
    g_scenario += std::string(level.status().message()) + "\n";
    CHECK_PROPERTY(NamesAField(level.status()));
    // The decomposition never fails on input the validation let through.
    CHECK_PROPERTY(!absl::StrContains(level.status().message(),
                                      "cannot be cut into convex pieces"));
    return 0;
  }
  if (mode == 0) CheckNoEdgesMeet(**level);
  CheckNesting((*level)->desc());
  CheckPieces(**level);
  CheckRays(in, *level);
  return 0;
}
