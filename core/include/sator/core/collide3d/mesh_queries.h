// Convex shapes against a static triangle mesh.
//
// The mesh is always shape B (the static side): results follow
// query_types.h with A = the convex shape, so normals point from the convex
// shape towards the mesh. (shape3d_queries.h accepts the mesh on either side
// and flips the answer.) Each query finds the candidate triangles through
// the mesh's BVH (the shape's AABB in the mesh frame, swept by the relative
// motion for sweeps), then runs the convex pair test (overlap3d.h,
// contact3d.h) or the sweep (sweep3d.h) against each candidate as a
// two-sided Triangle3.
//
// Contact: the per-triangle MTVs are combined by keeping the deepest one
// (the triangle needing the largest push); ContactAll returns every
// overlapping triangle's own contact for callers that build manifolds. A
// shape resting across an internal edge may get that edge's normal from one
// triangle (the "ghost" or internal-edge problem); no adjacency filtering is
// done.
#ifndef SATOR_CORE_COLLIDE3D_MESH_QUERIES_H_
#define SATOR_CORE_COLLIDE3D_MESH_QUERIES_H_

#include <cstdint>
#include <vector>

#include "sator/core/collide3d/shape3d.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/core/pose.h"
#include "sator/core/query_types.h"

namespace sator {

bool Overlap(const ConvexShape3& a, const Pose3& pose_a,
             const TriangleMesh& mesh, const Pose3& pose_mesh);

// The deepest triangle's contact (world frame); of triangles equally deep,
// the one with the least id. The answer is the pair Contact's against that
// triangle (in the mesh's frame, mapped to the world), to the bit. When
// nothing overlaps: overlapping = false, depth = 0, no points.
ContactResult<3> Contact(const ConvexShape3& a, const Pose3& pose_a,
                         const TriangleMesh& mesh, const Pose3& pose_mesh);

struct MeshContact {
  std::uint32_t triangle = 0;  // The triangle's id (index / 3).
  ContactResult<3> contact;    // World frame.
};
// Every overlapping triangle's contact, in the BVH's order.
std::vector<MeshContact> ContactAll(const ConvexShape3& a, const Pose3& pose_a,
                                    const TriangleMesh& mesh,
                                    const Pose3& pose_mesh);

// The earliest time of impact over the triangles. The mesh may translate
// too (only the relative motion matters). kStartedOverlapping when the shape
// overlaps any triangle at t = 0, with `initial` the deepest contact. When
// several triangles are hit at the same earliest fraction, the normal and
// point are those of the triangle with the least id. The answer is the pair
// Sweep's against that triangle, to the bit.
SweepResult<3> Sweep(const ConvexShape3& a, const Pose3& pose_a,
                     Vec3 displacement_a, const TriangleMesh& mesh,
                     const Pose3& pose_mesh, Vec3 displacement_mesh);

// The ids of the triangles whose own boxes overlap `box` (mesh frame): the
// candidates a query with that box tests.
std::vector<std::uint32_t> TrianglesOverlappingBox(const TriangleMesh& mesh,
                                                   const Aabb3& box);

}  // namespace sator

#endif  // SATOR_CORE_COLLIDE3D_MESH_QUERIES_H_
