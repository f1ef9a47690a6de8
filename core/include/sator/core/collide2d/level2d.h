// 2D level geometry: concave polygons (with holes) and chains in one static
// shape with its own BVH, the 2D counterpart of the triangle mesh.
//
// A level answers for the union of its parts, never per piece:
//  - a polygon is solid. The server cuts it into convex pieces (ear clipping
//    with holes bridged in, then Hertel-Mehlhorn merging; level_build2d.cc),
//    which answer overlap and "is this inside?". Rays, contacts and sweeps
//    meet only its outline edges, so no hit, normal or push-out comes from a
//    cut between two pieces;
//  - a chain is a polyline, open or closed, two-sided or one-sided (solid
//    to its left, as a polygon's outline: Box2D's chain winding).
// Every edge knows its neighbours ("ghost vertices", as Box2D's chains): a
// contact's normal is kept inside the cone of normals the surface has
// there, so a shape sliding along a straight run of edges is never pushed
// sideways by an inner vertex.
//
// The level is immutable once built by MakeLevel2 and is always the static
// side of a pair; queries on it are in queries2d.h (through Shape2) and
// here (ContactAll).
#ifndef SATOR_CORE_COLLIDE2D_LEVEL2D_H_
#define SATOR_CORE_COLLIDE2D_LEVEL2D_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "sator/core/aabb.h"
#include "sator/core/broadphase/bvh.h"
#include "sator/core/collide2d/shapes2d.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"
#include "sator/core/vec.h"

namespace sator {

// A closed ring of points (a polygon's hole).
struct LevelRing2 {
  std::vector<Vec2> points;
};

// A simple polygon: its outline and the holes cut out of it, each in either
// winding.
struct LevelPolygon2 {
  std::vector<Vec2> outline;
  std::vector<LevelRing2> holes;
};

// A polyline. Closed: the last point joins the first. One-sided: only its
// right side collides (counter-clockwise loops face outward), as Box2D's
// chains; two-sided chains collide on both.
struct LevelChain2 {
  std::vector<Vec2> points;
  bool closed = false;
  bool one_sided = false;
};

// What a level is built from, in the level's local frame.
struct LevelDesc2 {
  std::vector<LevelPolygon2> polygons;
  std::vector<LevelChain2> chains;
};

// One outline or chain edge, from `a` to `b`. Polygon edges run with the
// solid on their left (outlines counter-clockwise, holes clockwise), so
// RightPerp(b - a) points out of the solid.
struct LevelEdge2 {
  Vec2 a{};
  Vec2 b{};
  // The neighbours' far ends (valid when has_prev / has_next): the edge
  // before ends at `a` coming from `prev`, the edge after leaves `b` for
  // `next`.
  Vec2 prev{};
  Vec2 next{};
  bool has_prev = false;
  bool has_next = false;
  // RightPerp of the unit direction, and the length (set by Level2).
  Vec2 normal{};
  float length = 0.0f;
  // Polygon edges and one-sided chain edges collide on their right only.
  bool one_sided = false;
  // A polygon's outline or hole edge (else a chain's).
  bool solid = false;
  // The polygon or chain index in the LevelDesc2.
  std::uint32_t owner = 0;
};

// A convex piece of a polygon: `shape` (a ConvexPolygon, held as a Shape2
// so that the pair queries take it as it is) is centred near the local
// origin and placed at `offset` in the level's frame, so the touching
// tolerance scales with the piece, not with the level.
struct LevelPiece2 {
  Shape2 shape;
  Vec2 offset{};
  std::uint32_t polygon = 0;

  const ConvexPolygon& convex() const {
    const ConvexPolygon* piece = std::get_if<ConvexPolygon>(&shape);
    if (piece == nullptr) __builtin_unreachable();  // Always a polygon.
    return *piece;
  }
};

class Level2 {
 public:
  // Use MakeLevel2.
  Level2(LevelDesc2 desc, std::vector<LevelEdge2> edges,
         std::vector<std::uint32_t> polygon_starts,
         std::vector<LevelPiece2> pieces, broadphase::Bvh2 edge_tree,
         broadphase::Bvh2 piece_tree);

  // The input, as given (the viewer draws it; the wire sends it back).
  const LevelDesc2& desc() const { return desc_; }

  // Every edge: the polygons' rings in order (outline, then holes), then
  // the chains. A hit's `feature` is an index here.
  const std::vector<LevelEdge2>& edges() const { return edges_; }
  // The first edge of each polygon (polygon_edges(i) .. polygon_edges(i+1)
  // are polygon i's); one entry more than there are polygons.
  std::uint32_t polygon_edges(std::size_t polygon) const {
    return polygon_starts_[polygon];
  }
  const std::vector<LevelPiece2>& pieces() const { return pieces_; }
  // Proxy i is edges()[i].
  const broadphase::Bvh2& edge_tree() const { return edge_tree_; }
  // Proxy i is pieces()[i].
  const broadphase::Bvh2& piece_tree() const { return piece_tree_; }
  // The level's AABB in its local frame.
  const Aabb2& local_bounds() const { return edge_tree_.Bounds(); }
  // max(|x| + |y|) over the level's points.
  float extent() const { return extent_; }

  // Heap bytes held (input copy, edges, pieces, trees).
  std::size_t MemoryBytes() const;

 private:
  LevelDesc2 desc_;
  std::vector<LevelEdge2> edges_;
  std::vector<std::uint32_t> polygon_starts_;
  std::vector<LevelPiece2> pieces_;
  broadphase::Bvh2 edge_tree_;
  broadphase::Bvh2 piece_tree_;
  float extent_ = 0.0f;
};

// Validates and builds a level. kInvalidArgument naming the field
// (`polygons[1].holes[0].points[4]`, `chains[2].points[7]`) for: a NaN,
// infinite or out-of-range coordinate (kMaxShapeCoordinate); a ring of
// fewer than 3 points or a chain of fewer than 2 (3 closed); repeated
// points (an edge shorter than kMinShapeSize); three consecutive collinear
// polygon points, or a chain that turns back on itself; two edges that
// cross or touch anywhere but at the vertex they share; a hole outside its
// outline or inside another hole; a polygon or chain inside another
// polygon; more than kMaxLevelPolygonVertices in one polygon or
// kMaxLevelEdges in all; a level with no edge.
absl::StatusOr<std::shared_ptr<const Level2>> MakeLevel2(LevelDesc2 desc);

// A contact against one edge (ContactAll).
struct LevelContact2 {
  std::uint32_t edge = 0;
  ContactResult<2> contact;  // World frame, normal from the shape to the level.
};

// Every edge the convex shape `a` overlaps, each with its contact (the
// normal kept within the edge's cone), in edge order. A shape wholly inside
// a solid polygon, touching none of its edges, gets one contact: the least
// push across that polygon's edges.
std::vector<LevelContact2> ContactAll(const Shape2& a, const Pose2& pose_a,
                                      const Level2& level,
                                      const Pose2& pose_level);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE2D_LEVEL2D_H_
