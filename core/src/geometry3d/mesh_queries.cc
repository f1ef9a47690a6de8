// Convex shapes against a triangle mesh: BVH candidates, then per-triangle
// pair tests (see mesh_queries.h for the combination rules).
#include "sator/core/geometry3d/mesh_queries.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "geometry3d/mesh_bvh_query.h"
#include "sator/core/geometry3d/aabb3d.h"
#include "sator/core/geometry3d/contact3d.h"
#include "sator/core/geometry3d/overlap3d.h"
#include "sator/core/geometry3d/sweep3d.h"

namespace sator {
namespace {

// Triangle boxes are grown by this fraction of the query box's size, so
// that a shape touching a triangle exactly is never culled by round-off.
constexpr float kBoxSlack = 1e-5f;

Aabb3 Grown(const Aabb3& box) {
  const Vec3 e = box.max - box.min;
  return Inflate(box, kBoxSlack * std::max({e.x, e.y, e.z, 1.0f}));
}

// The entry time in [0, 1] of the point origin + t d into `box`, if any
// (slabs; a component below 1e-20 is parallel, so nothing overflows).
bool BoxEntry(Vec3 origin, Vec3 d, const Aabb3& box, float* t_enter) {
  float t0 = 0.0f;
  float t1 = 1.0f;
  for (int i = 0; i < 3; ++i) {
    if (std::fabs(d[i]) < 1e-20f) {
      if (origin[i] < box.min[i] || origin[i] > box.max[i]) return false;
      continue;
    }
    float lo = (box.min[i] - origin[i]) / d[i];
    float hi = (box.max[i] - origin[i]) / d[i];
    if (lo > hi) std::swap(lo, hi);
    t0 = std::max(t0, lo);
    t1 = std::min(t1, hi);
    if (t0 > t1) return false;
  }
  *t_enter = t0;
  return true;
}

}  // namespace

std::vector<std::uint32_t> TrianglesOverlappingBox(const TriangleMesh& mesh,
                                                   const Aabb3& box) {
  std::vector<std::uint32_t> ids;
  internal::QueryMeshBox(mesh, box, [&](std::uint32_t k) {
    ids.push_back(mesh.leaf_triangle_ids()[k]);
    return true;
  });
  return ids;
}

bool Overlap(const ConvexShape3& a, const Pose3& pose_a,
             const TriangleMesh& mesh, const Pose3& pose_mesh) {
  const Pose3 a_in_mesh = MulT(pose_mesh, pose_a);
  const Aabb3 box = Grown(ComputeAabb(a, a_in_mesh));
  bool found = false;
  internal::QueryMeshBox(mesh, box, [&](std::uint32_t k) {
    const ConvexShape3 tri = mesh.triangle(mesh.leaf_triangle_ids()[k]);
    found = Overlap(a, a_in_mesh, tri, Pose3{});
    return !found;
  });
  return found;
}

std::vector<MeshContact> ContactAll(const ConvexShape3& a, const Pose3& pose_a,
                                    const TriangleMesh& mesh,
                                    const Pose3& pose_mesh) {
  const Pose3 a_in_mesh = MulT(pose_mesh, pose_a);
  const Aabb3 box = Grown(ComputeAabb(a, a_in_mesh));
  std::vector<MeshContact> out;
  internal::QueryMeshBox(mesh, box, [&](std::uint32_t k) {
    const std::uint32_t id = mesh.leaf_triangle_ids()[k];
    const ConvexShape3 tri = mesh.triangle(id);
    const ContactResult<3> c = Contact(a, a_in_mesh, tri, Pose3{});
    if (c.overlapping) out.push_back({id, ToWorld(c, pose_mesh)});
    return true;
  });
  return out;
}

ContactResult<3> Contact(const ConvexShape3& a, const Pose3& pose_a,
                         const TriangleMesh& mesh, const Pose3& pose_mesh) {
  ContactResult<3> best;
  for (const MeshContact& c : ContactAll(a, pose_a, mesh, pose_mesh)) {
    if (!best.overlapping || c.contact.depth > best.depth) best = c.contact;
  }
  return best;
}

SweepResult<3> Sweep(const ConvexShape3& a, const Pose3& pose_a,
                     Vec3 displacement_a, const TriangleMesh& mesh,
                     const Pose3& pose_mesh, Vec3 displacement_mesh) {
  const Pose3 a_in_mesh = MulT(pose_mesh, pose_a);
  // A's motion relative to the mesh, in the mesh's frame.
  const Vec3 d =
      InvRotate(pose_mesh.rotation, displacement_a - displacement_mesh);
  const Aabb3 start_box = ComputeAabb(a, a_in_mesh);
  const Aabb3 swept = Grown(sator::Sweep(start_box, d));
  // Candidates in order of the time the shape's box reaches theirs (a ray
  // from the box centre against the triangle's box grown by the half
  // extents); once that time passes the best hit, no later one can win.
  const Vec3 center = Center(start_box);
  const Vec3 half = HalfExtents(start_box);
  struct Candidate {
    float t;
    std::uint32_t id;
  };
  std::vector<Candidate> candidates;
  internal::QueryMeshBox(mesh, swept, [&](std::uint32_t k) {
    const std::uint32_t id = mesh.leaf_triangle_ids()[k];
    const Triangle3 t = mesh.triangle(id);
    const Aabb3 grown = Grown(
        Aabb3{Min(t.a, Min(t.b, t.c)) - half, Max(t.a, Max(t.b, t.c)) + half});
    float t_enter = 0.0f;
    if (BoxEntry(center, d, grown, &t_enter)) {
      candidates.push_back({t_enter, id});
    }
    return true;
  });
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& x, const Candidate& y) { return x.t < y.t; });
  SweepResult<3> best;
  bool started = false;
  for (const Candidate& c : candidates) {
    if (best.outcome == SweepOutcome::kHit && c.t > best.fraction) break;
    const SweepResult<3> r = Sweep(
        a, a_in_mesh, d, ConvexShape3{mesh.triangle(c.id)}, Pose3{}, Vec3{});
    if (r.outcome == SweepOutcome::kStartedOverlapping) {
      started = true;
      break;
    }
    if (r.outcome == SweepOutcome::kHit &&
        (best.outcome != SweepOutcome::kHit || r.fraction < best.fraction)) {
      best = r;
    }
  }
  if (started) {
    SweepResult<3> r;
    r.outcome = SweepOutcome::kStartedOverlapping;
    r.fraction = 0.0f;
    r.initial = Contact(a, pose_a, mesh, pose_mesh);
    return r;
  }
  if (best.outcome != SweepOutcome::kHit) return SweepResult<3>{};
  best.normal = Rotate(pose_mesh.rotation, best.normal);
  best.point =
      Transform(pose_mesh, best.point) + best.fraction * displacement_mesh;
  return best;
}

}  // namespace sator
