// Private: ray tests against the primitive solids that rays, sweeps and mesh
// queries are built from. Shared by raycast3d.cc, sweep_*.cc and mesh_*.cc.
//
// Every function takes a ray `origin + t * dir` for t in [0, t_max] (dir need
// not be unit length: sweeps use the relative displacement, t is then a
// fraction of the motion) in the frame of the primitive, and answers:
//   kInside: the origin is inside the solid or on its surface (t = 0);
//   kHit:    the ray enters the solid at `t` in (0, t_max], with the unit
//            outward normal there;
//   kMiss:   otherwise.
// No function divides by a number that can be zero or make an overflow, and
// none multiplies t_max by a factor that can exceed 1 in float (t_max may be
// FLT_MAX), so all are safe with floating-point exceptions on.
#ifndef SATOR_CORE_SRC_COLLIDE3D_RAY_PRIMITIVES_H_
#define SATOR_CORE_SRC_COLLIDE3D_RAY_PRIMITIVES_H_

#include <cstdint>

#include "sator/core/collide3d/shapes3d.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/core/vec.h"

namespace sator::internal {

enum class RayStatus : std::uint8_t { kMiss, kHit, kInside };

struct PrimitiveHit {
  float t = 0.0f;
  Vec3 normal{};
  std::int32_t feature = -1;
};

// Solid ball around `center`. Entry by the stable quadratic of Haines et al.,
// "Precision Improvements for Ray/Sphere Intersection", Ray Tracing Gems
// (2019), ch. 7: t = c / (-b + sqrt(a (r^2 - |l|^2))) with l the offset of the
// line's closest point; no cancellation for far origins.
RayStatus RaySphere(Vec3 origin, Vec3 dir, float t_max, Vec3 center,
                    float radius, PrimitiveHit* hit);

// Solid capsule: all points within `radius` of segment pq. Exact: the union
// of the finite cylinder's lateral surface and the two end balls (Ericson,
// "Real-Time Collision Detection", 5.3.7, rearranged); the first entry into
// a union, from outside all its parts, is the least entry into a part.
// Feature: 0 lateral surface, 1 ball at p, 2 ball at q.
RayStatus RayCapsule(Vec3 origin, Vec3 dir, float t_max, Vec3 p, Vec3 q,
                     float radius, PrimitiveHit* hit);

// Solid box centred on the origin (slabs; Kay and Kajiya 1986, Ericson
// 5.3.3). Feature: face 2 * axis + (0 for +, 1 for -).
RayStatus RayBox(Vec3 origin, Vec3 dir, float t_max, Vec3 half_extents,
                 PrimitiveHit* hit);

// A ray prepared for the watertight triangle test: Woop, Benthin and Wald,
// "Watertight Ray/Triangle Intersection", JCGT 2(1), 2013. The ray's
// dominant axis becomes z and a shear maps the direction to +z, so each
// edge test is a 2D cross product of translated vertices; the two
// triangles sharing an edge compute exactly negated values for it, so a ray
// through an edge or a vertex never slips between triangles.
struct TriangleRay {
  Vec3 origin;
  int kx = 0;
  int ky = 1;
  int kz = 2;
  float sx = 0.0f;
  float sy = 0.0f;
  float sz = 1.0f;
  bool valid = false;  // False for a zero direction.
};
TriangleRay MakeTriangleRay(Vec3 origin, Vec3 dir);

// Two-sided triangle, never kInside (a triangle has no interior); edges and
// vertices count as hits; a ray in the triangle's plane misses. The normal
// faces the ray's origin. t in [0, t_max].
RayStatus RayTriangle(const TriangleRay& ray, Vec3 dir, float t_max,
                      const MeshTriangle& tri, PrimitiveHit* hit);
// RayTriangle's test alone: the hit's t, no normal (the mesh ray forms the
// normal once, for its nearest hit).
RayStatus RayTriangleT(const TriangleRay& ray, float t_max,
                       const MeshTriangle& tri, float* t);
// The unit normal of a triangle hit by a ray along `dir`, facing the ray's
// origin; formed in double (TriangleNormal, double_vec3.h: in float a
// sliver's is off by up to 0.1 radians).
Vec3 TriangleHitNormal(const MeshTriangle& tri, Vec3 dir);

// Solid convex hull by clipping the ray against the face planes (Haines,
// "Fast Ray-Convex Polyhedron Intersection", Graphics Gems II, 1991; Ericson
// 5.3.8). Feature: the entered face.
RayStatus RayHull(Vec3 origin, Vec3 dir, float t_max, const ConvexHull& hull,
                  PrimitiveHit* hit);

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_RAY_PRIMITIVES_H_
