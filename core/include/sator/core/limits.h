// Every coordinate and size limit of Sator, one name each: what the shapes'
// validators and factories refuse beyond, what the in-process queries and a
// request to satord may carry, and the largest scenes. docs/core/numerics.md
// gives the argument for each value; docs/API.md the service's contract.
#ifndef SATOR_CORE_LIMITS_H_
#define SATOR_CORE_LIMITS_H_

#include <cstdint>

namespace sator {

// ---- Shapes ----------------------------------------------------------------

// The most vertices a ConvexPolygon may have.
inline constexpr int kMaxPolygonVertices = 16;
// The most vertices a convex hull may have.
inline constexpr int kMaxHullVertices = 64;
// The most triangles a mesh may have (16.7 million): enough for any static
// level geometry, and node and triangle indices stay well inside 32 bits.
inline constexpr std::uint32_t kMaxMeshTriangles = 1u << 24;
// The most edges a 2D level may have (outline, hole and chain edges).
inline constexpr std::uint32_t kMaxLevelEdges = 1u << 20;
// The most vertices one level polygon may have, outline and holes together:
// its convex decomposition (ear clipping) costs up to the square of it.
inline constexpr int kMaxLevelPolygonVertices = 1024;
// The smallest size of a shape, 2D or 3D: a radius, a half extent, a segment
// or polygon edge length. Below it unit normals are meaningless in float.
inline constexpr float kMinShapeSize = 1e-6f;
// The smallest area of a triangle (a 3D triangle shape or a mesh triangle)
// relative to its longest edge squared: a sliver below it has no reliable
// normal.
inline constexpr float kMinTriangleAreaRatio = 1e-6f;
// The largest coordinate of a 2D shape in its local frame: squared lengths
// and the products of the queries stay far from overflow.
inline constexpr float kMaxShapeCoordinate = 1e6f;
// The largest local-frame magnitude a 3D shape may have: a sphere's or
// capsule's radius, a box's half extents, a capsule's end point, triangle,
// hull and mesh vertex coordinates. The queries multiply lengths of both
// shapes together in float: measured under FE_OVERFLOW (both shapes at the
// scale, placed up to 3x the scale apart, motions up to 4x), the first
// overflow is at 1.5e6, none at 1e6; the limit keeps a factor of at least 10
// below it (docs/core/numerics.md, "kMaxShapeCoordinate3").
inline constexpr float kMaxShapeCoordinate3 = 1e5f;

// ---- Queries in process --------------------------------------------------

// The largest coordinate magnitude the broad phase and the in-process scene
// accept (boxes, ray origins and lengths, translations, shot ranges): no
// intermediate of the slab test overflows a float.
inline constexpr float kMaxQueryCoordinate = 1e15f;

// ---- Requests to satord --------------------------------------------------

// The largest magnitude of any coordinate or displacement component a request
// may carry: beyond it float spacing exceeds 0.06. The same bound as 2D
// shapes' kMaxShapeCoordinate; 3D shapes are bounded tighter, by
// kMaxShapeCoordinate3.
inline constexpr float kMaxRequestCoordinate = 1e6f;
// The longest ray a request may cast: enough to cross the whole coordinate
// range.
inline constexpr float kMaxRayDistance = 1e7f;
// The shortest ray direction: the scene normalises directions and refuses
// any whose length is not above this, and the wire checks the same, so what
// a request may carry the scene accepts.
inline constexpr float kMinRayDirectionLength = 1e-12f;
// The most body ids one query filter may exclude (use layers and masks to
// leave out larger groups).
inline constexpr int kMaxExcludedBodyIds = 4096;
// The newest tick a request may name. Far beyond any game's lifetime (2^62
// ticks at 1 kHz is 146 million years) and far enough from the int64 limit
// that tick arithmetic (tick + 1, tick - history) cannot overflow.
inline constexpr std::int64_t kMaxTick = std::int64_t{1} << 62;

// ---- Scenes --------------------------------------------------------------

// The most bodies a scene may hold.
inline constexpr int kMaxBodies = 1 << 24;
// The most ticks of history a scene may keep.
inline constexpr int kMaxHistoryTicks = 4096;
// The highest tick rate a scene may have (ticks per second).
inline constexpr double kMaxTickRate = 100000.0;
// The range of a hitbox part's label (BodyDesc::part).
inline constexpr std::int32_t kMinPart = -32768;
inline constexpr std::int32_t kMaxPart = 32767;
// The most zones, and the most observers, a proximity state may hold.
inline constexpr int kMaxProximityEntries = 1 << 20;

}  // namespace sator

#endif  // SATOR_CORE_LIMITS_H_
