// Convex shapes and rays against a level (level2d.h).
//
// The level's trees are searched in the level's frame; each candidate edge
// or piece is then answered in A's frame by the pair functions, as a body of
// its own would be (so the touching tolerance scales with the shape and the
// edge, not with the level).
//
// Smooth contact (Box2D's chain collision, after Catto's "ghost vertices"):
// an edge admits contact normals only in its cone, the normals the surface
// has there: the edge's own normal, widened at each end to the neighbour's
// normal when the corner there is convex, and to the edge's direction at a
// free chain end. The contact against an edge is the separating axis test
// restricted to that cone: with M the Minkowski difference of the edge and
// the shape's core, the separation along u is -h_M(u) - radius, and its
// largest value over the arc is reached at the arc's ends, at a face normal
// of M inside it (the edge's normal, the shape's negated edge normals), or,
// for a rounded core, where u points from an edge end to a core vertex. So a
// finite set of candidate axes gives the exact restricted answer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "collide2d/core2d.h"
#include "collide2d/level_piece2d.h"
#include "collide2d/pairs2d.h"
#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide2d/queries2d.h"
#include "sator/core/collide2d/tolerance2d.h"

namespace sator::internal2d {
namespace {

// Slack on the cone test, for axes built from the cone's own vectors.
constexpr float kConeSlack = 1e-6f;

const Level2& AsLevel(const Shape2& shape) {
  return *As<std::shared_ptr<const Level2>>(shape);
}

// One side of an edge, in A's frame: the directed edge from `a` to `b`
// with the solid (or the colliding side) to its right.
struct EdgeSide {
  Vec2 a;
  Vec2 b;
  Vec2 normal;    // RightPerp of the direction.
  Vec2 cw;        // The cone's clockwise end (at a).
  Vec2 ccw;       // Its counter-clockwise end (at b).
  float cos_cw;   // Dot(normal, cw).
  float cos_ccw;  // Dot(normal, ccw).
  // A neighbour meets this side at a flat or concave corner at a (or b):
  // past that end, the neighbour's face answers instead.
  bool neighbour_at_a = false;
  bool neighbour_at_b = false;
  Vec2 prev{};  // The neighbours' far ends, when they meet so.
  Vec2 next{};

  bool Admits(Vec2 u) const {
    const float d = Dot(normal, u);
    return Cross(normal, u) >= 0.0f ? d >= cos_ccw - kConeSlack
                                    : d >= cos_cw - kConeSlack;
  }
  // u moved to the nearer end of the cone when outside it.
  Vec2 Clamp(Vec2 u) const {
    if (Admits(u)) return u;
    return Cross(normal, u) >= 0.0f ? ccw : cw;
  }
};

// A one-sided chain collides only with shapes in front of it (Box2D's rule:
// the core's centre decides); a polygon's edges always do.
bool Behind(const Core& core, Vec2 a, Vec2 b) {
  Vec2 centre{};
  for (int i = 0; i < core.count; ++i) centre = centre + core.v(i);
  centre = (1.0f / static_cast<float>(core.count)) * centre;
  return Dot(centre - a, RightPerp(b - a)) < 0.0f;
}

EdgeSide MakeSide(Vec2 a, Vec2 b, std::optional<Vec2> prev,
                  std::optional<Vec2> next) {
  EdgeSide side;
  side.a = a;
  side.b = b;
  const Vec2 t = NormalizeOrZero(b - a);
  side.normal = RightPerp(t);
  side.cw = -t;
  if (prev.has_value()) {
    const Vec2 e0 = a - *prev;
    side.cw =
        Cross(e0, b - a) > 0.0f ? RightPerp(NormalizeOrZero(e0)) : side.normal;
    side.neighbour_at_a = !(Cross(e0, b - a) > 0.0f);
    side.prev = *prev;
  }
  side.ccw = t;
  if (next.has_value()) {
    const Vec2 e2 = *next - b;
    side.ccw =
        Cross(b - a, e2) > 0.0f ? RightPerp(NormalizeOrZero(e2)) : side.normal;
    side.neighbour_at_b = !(Cross(b - a, e2) > 0.0f);
    side.next = *next;
  }
  side.cos_cw = Dot(side.normal, side.cw);
  side.cos_ccw = Dot(side.normal, side.ccw);
  return side;
}

// The edge in A's frame: one side, or two for a two-sided chain edge.
struct EdgeInA {
  EdgeSide sides[2];
  int side_count;
};

// The edge in A's frame, its ends `a` and `b` already placed there.
EdgeInA PlaceEdgeAt(const LevelEdge2& e, const Pose2& level_in_a, Vec2 a,
                    Vec2 b) {
  std::optional<Vec2> prev;
  std::optional<Vec2> next;
  if (e.has_prev) prev = Transform(level_in_a, e.prev);
  if (e.has_next) next = Transform(level_in_a, e.next);
  EdgeInA placed;
  placed.sides[0] = MakeSide(a, b, prev, next);
  placed.side_count = 1;
  if (!e.one_sided) {
    placed.sides[1] = MakeSide(b, a, next, prev);
    placed.side_count = 2;
  }
  return placed;
}

EdgeInA PlaceEdge(const LevelEdge2& e, const Pose2& level_in_a) {
  return PlaceEdgeAt(e, level_in_a, Transform(level_in_a, e.a),
                     Transform(level_in_a, e.b));
}

// The best axis of the cone-restricted test and its separation.
struct SideAxis {
  Vec2 axis;         // From the edge towards the shape.
  float separation;  // Along axis (negative: penetrating).
};

// The separation of the shape from the edge a b along u (from the edge
// towards the shape).
float SeparationAlong(const Core& core, Vec2 a, Vec2 b, Vec2 u) {
  return MinDot(core, u.x, u.y) - core.radius - std::max(Dot(a, u), Dot(b, u));
}

float SeparationAlong(const Core& core, const EdgeSide& side, Vec2 u) {
  return SeparationAlong(core, side.a, side.b, u);
}

SideAxis BestAxis(const Core& core, const EdgeSide& side) {
  SideAxis best{side.normal, SeparationAlong(core, side, side.normal)};
  auto consider = [&](Vec2 u) {
    if (!side.Admits(u)) return;
    const float s = SeparationAlong(core, side, u);
    if (s > best.separation) best = {u, s};
  };
  consider(side.cw);
  consider(side.ccw);
  for (int j = 0; j < core.EdgeCount(); ++j) consider(-core.n(j));
  // Directions from an edge end to a core vertex are needed only for a
  // rounded core: with no radius, an overlap puts the origin inside M, and
  // then no minimum lies inside an arc.
  if (core.radius == 0.0f) return best;
  for (int i = 0; i < core.count; ++i) {
    for (Vec2 end : {side.a, side.b}) {
      const Vec2 u = NormalizeOrZero(core.v(i) - end);
      if (u.x != 0.0f || u.y != 0.0f) consider(u);
    }
  }
  return best;
}

// The contact points of an overlap along `axis` (midway between the
// surfaces, in A's frame): the shape's incident feature clipped to the edge
// when the axis is the edge's normal, else one point off the edge's end
// that reaches furthest along the axis.
void FillPoints(const Core& core, const EdgeSide& side, const SideAxis& best,
                float tolerance, ContactResult<2>& c) {
  const Vec2 u = best.axis;
  c.point_count = 0;
  if (Dot(u, side.normal) > 1.0f - 1e-6f && core.count >= 2) {
    // The shape's vertex deepest along -normal and its edge most against it.
    int deepest = 0;
    for (int i = 1; i < core.count; ++i) {
      if (Dot(core.v(i), u) < Dot(core.v(deepest), u)) deepest = i;
    }
    // The incident edge: of the two at that vertex, the one whose outward
    // normal points most against the axis (a capsule's core has one).
    int other = core.Next(deepest);
    if (core.count > 2) {
      const int before = deepest == 0 ? core.count - 1 : deepest - 1;
      if (Dot(core.n(before), u) < Dot(core.n(deepest), u)) other = before;
    }
    Vec2 p0 = core.v(deepest);
    Vec2 p1 = core.v(other);
    const Vec2 t = NormalizeOrZero(side.b - side.a);
    const float lo = Dot(side.a, t);
    const float hi = Dot(side.b, t);
    // Clip p0 p1 to the edge's extent along t.
    const float t0 = Dot(p0, t);
    const float t1 = Dot(p1, t);
    auto at = [&](float value) {
      const float f = (value - t0) / (t1 - t0);
      return p0 + f * (p1 - p0);
    };
    if (t0 != t1) {
      const Vec2 q0 = t0 < lo ? at(lo) : (t0 > hi ? at(hi) : p0);
      const Vec2 q1 = t1 < lo ? at(lo) : (t1 > hi ? at(hi) : p1);
      p0 = q0;
      p1 = q1;
    }
    for (Vec2 p : {p0, p1}) {
      const float d = Dot(p - side.a, u) - core.radius;
      if (d <= tolerance && c.point_count < 2) {
        c.points[static_cast<std::size_t>(c.point_count++)] =
            p - (core.radius + 0.5f * d) * u;
      }
    }
    if (c.point_count == 2 && c.points[0] == c.points[1]) c.point_count = 1;
    if (c.point_count > 0) return;
  }
  if (core.count == 1) {
    // A circle: midway between its surface and the edge, on its axis.
    c.points[0] = core.v(0) - (core.radius + 0.5f * best.separation) * u;
  } else {
    const Vec2 end = Dot(side.a, u) >= Dot(side.b, u) ? side.a : side.b;
    c.points[0] = end + (0.5f * best.separation) * u;
  }
  c.point_count = 1;
}

float EdgeTolerance(const Core& core, Vec2 a, float length) {
  return TouchingTolerance(core.extent + std::fabs(a.x) + std::fabs(a.y) +
                           length);
}

float EdgeTolerance(const Core& core, const EdgeSide& side) {
  return EdgeTolerance(core, side.a, Length(side.b - side.a));
}

// The shape touches the edge a b (unit normal `normal`) within `tolerance`.
// A polygonal core is first put to the separating axis test over the
// edge's normal and direction, both ways, and the core's normals (Ericson
// 5.2.1): the largest separation is a lower bound on the distance, so above
// the tolerance the two are apart and at or below zero they overlap. In
// between (a corner near a corner), and for a rounded core, the pair query's
// exact distance decides.
bool TouchesEdge(const Shape2& shape, const Core& core, Vec2 a, Vec2 b,
                 Vec2 normal, float tolerance) {
  if (core.radius == 0.0f) {
    const Vec2 direction = LeftPerp(normal);
    float largest = -std::numeric_limits<float>::infinity();
    for (Vec2 u : {normal, -normal, direction, -direction}) {
      largest = std::max(largest, SeparationAlong(core, a, b, u));
      if (largest > tolerance) return false;
    }
    for (int j = 0; j < core.EdgeCount(); ++j) {
      largest = std::max(largest, SeparationAlong(core, a, b, -core.n(j)));
      if (largest > tolerance) return false;
    }
    if (largest <= 0.0f) return true;
  }
  return OverlapLocal(shape, Segment2{a, b}, Pose2{});
}

// The contact of the shape (core, in A's frame) against one edge, when the
// shape overlaps it; normal from A towards the level.
std::optional<ContactResult<2>> EdgeContact(const Shape2& a, const Core& core,
                                            const LevelEdge2& edge,
                                            const Pose2& level_in_a) {
  const Vec2 edge_a = Transform(level_in_a, edge.a);
  const Vec2 edge_b = Transform(level_in_a, edge.b);
  const float tolerance = EdgeTolerance(core, edge_a, edge.length);
  if (!TouchesEdge(a, core, edge_a, edge_b,
                   Rotate(level_in_a.rotation, edge.normal), tolerance)) {
    return std::nullopt;
  }
  if (edge.one_sided && !edge.solid && Behind(core, edge_a, edge_b)) {
    return std::nullopt;
  }
  const EdgeInA placed = PlaceEdgeAt(edge, level_in_a, edge_a, edge_b);
  int best_side = 0;
  SideAxis best = BestAxis(core, placed.sides[0]);
  if (placed.side_count == 2) {
    const SideAxis back = BestAxis(core, placed.sides[1]);
    if (back.separation > best.separation) {
      best = back;
      best_side = 1;
    }
  }
  const EdgeSide& side = placed.sides[best_side];
  if (best.separation > tolerance) return std::nullopt;
  if (core.count == 1) {
    // A circle past an end where a neighbour meets the edge at a flat or
    // concave corner, and in front of that neighbour, is the neighbour's
    // (Box2D's Voronoi rule for chains).
    const Vec2 c0 = core.v(0);
    const Vec2 t = side.b - side.a;
    if ((side.neighbour_at_a && Dot(c0 - side.a, t) < 0.0f &&
         Dot(c0 - side.prev, RightPerp(side.a - side.prev)) >= 0.0f) ||
        (side.neighbour_at_b && Dot(c0 - side.b, t) > 0.0f &&
         Dot(c0 - side.b, RightPerp(side.next - side.b)) >= 0.0f)) {
      return std::nullopt;
    }
  }
  ContactResult<2> c;
  c.overlapping = true;
  c.normal = -best.axis;
  c.depth = -best.separation;
  FillPoints(core, side, best, tolerance, c);
  return c;
}

Pose2 Inverse(const Pose2& pose) { return MulT(pose, Pose2{}); }

// A's box in the level's frame, grown past the touching tolerance.
Aabb2 QueryBox(const Shape2& a, const Core& core, const Pose2& a_in_level,
               const Level2& level) {
  const Aabb2 box = ComputeAabb(a, a_in_level);
  const float scale = core.extent + level.extent() +
                      std::fabs(a_in_level.position.x) +
                      std::fabs(a_in_level.position.y);
  return Inflate(box, 4.0f * TouchingTolerance(scale) + 1e-6f);
}

Pose2 PiecePose(const Pose2& level_in_a, const LevelPiece2& piece) {
  return Mul(level_in_a, Pose2{piece.offset, Rot2{}});
}

// The first piece the shape overlaps, or -1.
int OverlappedPiece(const Shape2& a, const Aabb2& box, const Level2& level,
                    const Pose2& level_in_a) {
  int found = -1;
  level.piece_tree().Query(box, [&](std::uint32_t id) {
    const LevelPiece2& piece = level.pieces()[id];
    if (!OverlapLocal(a, piece.shape, PiecePose(level_in_a, piece))) {
      return true;
    }
    found = static_cast<int>(id);
    return false;
  });
  return found;
}

// The push out of polygon `polygon`, for a shape inside it that touches
// none of its edges: across the edge nearest the shape's centre of those it
// lies behind.
std::optional<LevelContact2> LeastPushOut(const Core& core, const Level2& level,
                                          std::uint32_t polygon,
                                          const Pose2& level_in_a) {
  LevelContact2 out;
  Vec2 centre{};
  for (int i = 0; i < core.count; ++i) centre = centre + core.v(i);
  centre = (1.0f / static_cast<float>(core.count)) * centre;
  float best_distance = std::numeric_limits<float>::infinity();
  SideAxis best_axis{};
  EdgeSide best_side{};
  for (std::uint32_t id = level.polygon_edges(polygon);
       id < level.polygon_edges(polygon + 1); ++id) {
    const EdgeInA placed = PlaceEdge(level.edges()[id], level_in_a);
    const EdgeSide& side = placed.sides[0];
    const SideAxis axis = BestAxis(core, side);
    if (!(axis.separation < 0.0f)) continue;
    const Vec2 ab = side.b - side.a;
    const float t =
        std::clamp(Dot(centre - side.a, ab) / Dot(ab, ab), 0.0f, 1.0f);
    const float distance = Length(centre - (side.a + t * ab));
    if (distance < best_distance) {
      best_distance = distance;
      best_axis = axis;
      best_side = side;
      out.edge = id;
    }
  }
  if (!(best_distance < std::numeric_limits<float>::infinity())) {
    return std::nullopt;
  }
  ContactResult<2>& c = out.contact;
  c.overlapping = true;
  c.normal = -best_axis.axis;
  c.depth = -best_axis.separation;
  FillPoints(core, best_side, best_axis, EdgeTolerance(core, best_side), c);
  return out;
}

// Every edge contact, in A's frame, in edge order.
std::vector<LevelContact2> ContactsLocal(const Shape2& a, const Level2& level,
                                         const Pose2& level_in_a) {
  Core core;
  MakeCore(a, core);
  const Pose2 a_in_level = Inverse(level_in_a);
  const Aabb2 box = QueryBox(a, core, a_in_level, level);
  std::vector<LevelContact2> contacts;
  // A shape on the ground or in a corner meets a few edges: one allocation.
  contacts.reserve(4);
  level.edge_tree().Query(box, [&](std::uint32_t id) {
    if (std::optional<ContactResult<2>> c =
            EdgeContact(a, core, level.edges()[id], level_in_a)) {
      contacts.push_back({id, *c});
    }
    return true;
  });
  if (contacts.empty()) {
    if (const int piece = OverlappedPiece(a, box, level, level_in_a);
        piece >= 0) {
      if (std::optional<LevelContact2> out = LeastPushOut(
              core, level,
              level.pieces()[static_cast<std::size_t>(piece)].polygon,
              level_in_a)) {
        contacts.push_back(*out);
      }
    }
  }
  std::sort(contacts.begin(), contacts.end(),
            [](const LevelContact2& l, const LevelContact2& r) {
              return l.edge < r.edge;
            });
  return contacts;
}

ContactResult<2> Flip(ContactResult<2> c) {
  c.normal = -c.normal;
  return c;
}

}  // namespace

bool OverlapConvexLevel(const Shape2& a, const Shape2& b, const Pose2& b_in_a) {
  const Level2& level = AsLevel(b);
  Core core;
  MakeCore(a, core);
  const Aabb2 box = QueryBox(a, core, Inverse(b_in_a), level);
  bool hit = false;
  level.edge_tree().Query(box, [&](std::uint32_t id) {
    const LevelEdge2& e = level.edges()[id];
    if (e.solid) return true;  // The pieces answer for the polygons.
    const Vec2 ea = Transform(b_in_a, e.a);
    const Vec2 eb = Transform(b_in_a, e.b);
    if (e.one_sided && Behind(core, ea, eb)) return true;
    hit = OverlapLocal(a, Segment2{ea, eb}, Pose2{});
    return !hit;
  });
  return hit || OverlappedPiece(a, box, level, b_in_a) >= 0;
}

ContactResult<2> ContactConvexLevel(const Shape2& a, const Shape2& b,
                                    const Pose2& b_in_a) {
  const std::vector<LevelContact2> contacts =
      ContactsLocal(a, AsLevel(b), b_in_a);
  ContactResult<2> deepest;
  for (const LevelContact2& c : contacts) {
    if (!deepest.overlapping || c.contact.depth > deepest.depth) {
      deepest = c.contact;
    }
  }
  return deepest;
}

SweepResult<2> SweepConvexLevel(const Shape2& a, const Shape2& b,
                                const Pose2& b_in_a, Vec2 motion) {
  const Level2& level = AsLevel(b);
  SweepResult<2> result;
  if (OverlapConvexLevel(a, b, b_in_a)) {
    result.outcome = SweepOutcome::kStartedOverlapping;
    result.initial = ContactConvexLevel(a, b, b_in_a);
    return result;
  }
  Core core;
  MakeCore(a, core);
  const Pose2 a_in_level = Inverse(b_in_a);
  const Aabb2 box = QueryBox(a, core, a_in_level, level);
  // A moves by -motion relative to the level; in the level's frame:
  const Vec2 a_motion = -InvRotate(b_in_a.rotation, motion);
  std::uint32_t best_edge = 0;
  level.edge_tree().BoxCast(
      broadphase::BoxCastInput<2>{box, a_motion, 1.0f},
      [&](std::uint32_t id,
          const broadphase::BoxCastInput<2>& clipped) -> float {
        const LevelEdge2& e = level.edges()[id];
        const EdgeInA placed = PlaceEdge(e, b_in_a);
        const Shape2 segment = Segment2{placed.sides[0].a, placed.sides[0].b};
        SweepResult<2> r = SweepLocal(a, segment, Pose2{}, motion);
        if (r.outcome == SweepOutcome::kMiss) return -1.0f;
        if (r.outcome == SweepOutcome::kStartedOverlapping) {
          r.fraction = 0.0f;
          r.normal = r.initial.normal;
          r.point = r.initial.point_count > 0 ? r.initial.points[0] : Vec2{};
        }
        if (r.fraction > clipped.max_fraction ||
            (r.fraction == clipped.max_fraction &&
             result.outcome == SweepOutcome::kHit && id > best_edge)) {
          return -1.0f;
        }
        // The axis from the edge towards the shape, kept in the side's cone.
        const Vec2 u = -r.normal;
        int side = 0;
        if (Dot(u, placed.sides[0].normal) < 0.0f) {
          if (placed.side_count == 1) return -1.0f;  // From behind.
          side = 1;
        }
        result.outcome = SweepOutcome::kHit;
        result.fraction = r.fraction;
        result.normal = -placed.sides[side].Clamp(u);
        result.point = r.point;
        best_edge = id;
        return r.fraction > 0.0f ? r.fraction : 0.0f;
      });
  return result;
}

RayResult<2> RayCastLevel(const Shape2& shape, const Ray<2>& ray) {
  const Level2& level = AsLevel(shape);
  RayResult<2> result;
  // Inside a polygon: no surface to report.
  const Aabb2 at_origin{ray.origin, ray.origin};
  bool inside = false;
  level.piece_tree().Query(at_origin, [&](std::uint32_t id) {
    if (!InsidePiece(level.pieces()[id], ray.origin)) return true;
    inside = true;
    return false;
  });
  if (inside) {
    result.hit = true;
    result.started_inside = true;
    return result;
  }
  const Vec2 d = ray.direction;
  float best = ray.max_distance;
  std::int32_t best_edge = -1;
  Vec2 best_normal{};
  level.edge_tree().RayCast(
      broadphase::RayCastInput<2>{ray.origin, ray.max_distance * d, 1.0f},
      [&](std::uint32_t id,
          const broadphase::RayCastInput<2>& /*clipped*/) -> float {
        const LevelEdge2& e = level.edges()[id];
        const Vec2 edge = e.b - e.a;
        const float denominator = Cross(d, edge);
        if (denominator == 0.0f) return -1.0f;  // Parallel: passes along it.
        const Vec2 to_a = e.a - ray.origin;
        const float distance = Cross(to_a, edge) / denominator;
        const float along = Cross(to_a, d) / denominator;
        // A ray through a shared vertex must not slip between the two
        // edges: the edge's ends are taken a rounding wider.
        constexpr float kEndSlack = 1e-6f;
        if (!(distance >= 0.0f) || along < -kEndSlack ||
            along > 1.0f + kEndSlack) {
          return -1.0f;
        }
        const Vec2 normal = NormalizeOrZero(RightPerp(edge));
        const bool front = Dot(d, normal) < 0.0f;
        if (!front && e.one_sided) return -1.0f;
        if (distance > best || (distance == best && best_edge >= 0 &&
                                static_cast<std::int32_t>(id) > best_edge)) {
          return -1.0f;
        }
        best = distance;
        best_edge = static_cast<std::int32_t>(id);
        best_normal = front ? normal : -normal;
        // Keep searching up to (and including) this distance, for ties.
        return ray.max_distance > 0.0f ? std::min(1.0f, best / ray.max_distance)
                                       : 1.0f;
      });
  if (best_edge < 0) return result;
  result.hit = true;
  result.distance = best;
  result.normal = best_normal;
  result.feature = best_edge;
  return result;
}

// The level as shape A: the same answers seen from the other side.
bool OverlapLevelConvex(const Shape2& a, const Shape2& b, const Pose2& b_in_a) {
  return OverlapConvexLevel(b, a, Inverse(b_in_a));
}

ContactResult<2> ContactLevelConvex(const Shape2& a, const Shape2& b,
                                    const Pose2& b_in_a) {
  // In B's frame, then back to A's.
  ContactResult<2> c = Flip(ContactConvexLevel(b, a, Inverse(b_in_a)));
  c.normal = Rotate(b_in_a.rotation, c.normal);
  for (int i = 0; i < c.point_count; ++i) {
    c.points[static_cast<std::size_t>(i)] =
        Transform(b_in_a, c.points[static_cast<std::size_t>(i)]);
  }
  return c;
}

SweepResult<2> SweepLevelConvex(const Shape2& a, const Shape2& b,
                                const Pose2& b_in_a, Vec2 motion) {
  // B moves by motion relative to A: A moves by -motion relative to B.
  const Vec2 motion_in_b = -InvRotate(b_in_a.rotation, motion);
  SweepResult<2> r = SweepConvexLevel(b, a, Inverse(b_in_a), motion_in_b);
  switch (r.outcome) {
    case SweepOutcome::kHit:
      r.normal = Rotate(b_in_a.rotation, -r.normal);
      // The point, in B's frame at B's start, moves with B to the impact.
      r.point = Transform(b_in_a, r.point) + r.fraction * motion;
      break;
    case SweepOutcome::kStartedOverlapping:
      r.initial = Flip(r.initial);
      r.initial.normal = Rotate(b_in_a.rotation, r.initial.normal);
      for (int i = 0; i < r.initial.point_count; ++i) {
        r.initial.points[static_cast<std::size_t>(i)] =
            Transform(b_in_a, r.initial.points[static_cast<std::size_t>(i)]);
      }
      break;
    case SweepOutcome::kMiss:
      break;
  }
  return r;
}

// Two levels: not a pair the core answers (the scene and the wire refuse
// it before it gets here).
bool OverlapLevels(const Shape2& /*a*/, const Shape2& /*b*/,
                   const Pose2& /*b_in_a*/) {
  return false;
}
ContactResult<2> ContactLevels(const Shape2& /*a*/, const Shape2& /*b*/,
                               const Pose2& /*b_in_a*/) {
  return {};
}
SweepResult<2> SweepLevels(const Shape2& /*a*/, const Shape2& /*b*/,
                           const Pose2& /*b_in_a*/, Vec2 /*motion*/) {
  return {};
}

}  // namespace sator::internal2d

namespace sator {

std::vector<LevelContact2> ContactAll(const Shape2& a, const Pose2& pose_a,
                                      const Level2& level,
                                      const Pose2& pose_level) {
  std::vector<LevelContact2> contacts =
      internal2d::ContactsLocal(a, level, MulT(pose_a, pose_level));
  for (LevelContact2& c : contacts) {
    c.contact.normal = Rotate(pose_a.rotation, c.contact.normal);
    for (int i = 0; i < c.contact.point_count; ++i) {
      c.contact.points[static_cast<std::size_t>(i)] =
          Transform(pose_a, c.contact.points[static_cast<std::size_t>(i)]);
    }
  }
  return contacts;
}

}  // namespace sator
