// Convex shapes against a triangle mesh: BVH candidates, then per-triangle
// pair tests (see mesh_queries.h for the combination rules).
#include "sator/core/geometry3d/mesh_queries.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "geometry3d/mesh_bvh_query.h"
#include "geometry3d/round_typed.h"
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

// Calls f(id, contact) for the candidate triangles of the mesh, all those
// that may overlap A. For a sphere or capsule, whose core is placed once and
// met with each triangle viewed in place (round_triangle.cc; triangles
// certainly apart from it are skipped: ContactFlatTriangleIfNear), the
// contact is in A's frame and the function returns true; for other shapes it is
// in the mesh's frame, through the pair dispatch, and it returns false. Either
// way the contact mapped by MeshContactToWorld is Contact(a, a_in_mesh,
// triangle, Pose3{}) mapped to the world, bit for bit; mapping only the
// contacts kept saves a ToWorld (or two) per triangle.
template <typename F>
bool ForEachTriangleContact(const ConvexShape3& a, const Pose3& a_in_mesh,
                            const TriangleMesh& mesh, F&& f) {
  const Aabb3 box = Grown(ComputeAabb(a, a_in_mesh));
  const ShapeKind3 kind = KindOf(a);
  if (kind == ShapeKind3::kSphere || kind == ShapeKind3::kCapsule) {
    internal::FlatCore core;
    if (kind == ShapeKind3::kSphere) {
      internal::MakeFlatCore(std::get<Sphere>(a), Pose3{}, &core);
    } else {
      internal::MakeFlatCore(std::get<Capsule3>(a), Pose3{}, &core);
    }
    // The triangles' pose in A's frame, as Contact computes it.
    const Pose3 mesh_in_a = MulT(a_in_mesh, Pose3{});
    internal::QueryMeshBox(mesh, box, [&](std::uint32_t k) {
      const std::uint32_t id = mesh.leaf_triangle_ids()[k];
      ContactResult<3> c;
      if (internal::ContactFlatTriangleIfNear(core.ref, mesh.triangle(id),
                                              mesh_in_a, &c)) {
        f(id, c);
      }
      return true;
    });
    return true;
  }
  internal::QueryMeshBox(mesh, box, [&](std::uint32_t k) {
    const std::uint32_t id = mesh.leaf_triangle_ids()[k];
    const ConvexShape3 tri = mesh.triangle(id);
    f(id, Contact(a, a_in_mesh, tri, Pose3{}));
    return true;
  });
  return false;
}

// A contact from ForEachTriangleContact mapped to the world: from A's frame
// (`in_a_frame`) to the mesh's, as Contact(a, a_in_mesh, ...) maps it, and
// on to the world.
ContactResult<3> MeshContactToWorld(const ContactResult<3>& c, bool in_a_frame,
                                    const Pose3& a_in_mesh,
                                    const Pose3& pose_mesh) {
  return ToWorld(in_a_frame ? ToWorld(c, a_in_mesh) : c, pose_mesh);
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
  const ShapeKind3 kind = KindOf(a);
  if (kind == ShapeKind3::kSphere || kind == ShapeKind3::kCapsule) {
    // The core placed once (Overlap's typed path per triangle otherwise).
    internal::FlatCore core;
    if (kind == ShapeKind3::kSphere) {
      internal::MakeFlatCore(std::get<Sphere>(a), Pose3{}, &core);
    } else {
      internal::MakeFlatCore(std::get<Capsule3>(a), Pose3{}, &core);
    }
    const Pose3 mesh_in_a = MulT(a_in_mesh, Pose3{});
    internal::QueryMeshBox(mesh, box, [&](std::uint32_t k) {
      bool overlap = false;
      found = internal::OverlapFlatTriangleIfNear(
                  core.ref, mesh.triangle(mesh.leaf_triangle_ids()[k]),
                  mesh_in_a, &overlap) &&
              overlap;
      return !found;
    });
    return found;
  }
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
  std::vector<MeshContact> out;
  const bool in_a_frame = ForEachTriangleContact(
      a, a_in_mesh, mesh, [&](std::uint32_t id, const ContactResult<3>& c) {
        if (c.overlapping) out.push_back({id, c});
      });
  for (MeshContact& c : out) {
    c.contact = MeshContactToWorld(c.contact, in_a_frame, a_in_mesh, pose_mesh);
  }
  return out;
}

ContactResult<3> Contact(const ConvexShape3& a, const Pose3& pose_a,
                         const TriangleMesh& mesh, const Pose3& pose_mesh) {
  // The deepest of ContactAll (the first of equal depths, in the BVH's
  // order), kept in the frame the triangles are met in and mapped to the
  // world once: no vector, and one ToWorld instead of one per triangle.
  const Pose3 a_in_mesh = MulT(pose_mesh, pose_a);
  ContactResult<3> best;
  const bool in_a_frame = ForEachTriangleContact(
      a, a_in_mesh, mesh, [&](std::uint32_t, const ContactResult<3>& c) {
        if (c.overlapping && (!best.overlapping || c.depth > best.depth)) {
          best = c;
        }
      });
  if (!best.overlapping) return ContactResult<3>{};
  return MeshContactToWorld(best, in_a_frame, a_in_mesh, pose_mesh);
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
