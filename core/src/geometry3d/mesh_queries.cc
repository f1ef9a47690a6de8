// Convex shapes against a triangle mesh: BVH candidates, then per-triangle
// pair tests (see mesh_queries.h for the combination rules).
#include "sator/core/geometry3d/mesh_queries.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <variant>

#include "geometry3d/mesh_bvh_query.h"
#include "geometry3d/ray_primitives.h"
#include "geometry3d/sweep_round.h"
#include "geometry3d/sweep_sat.h"
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
  return Inflate(box,
                 kBoxSlack * std::max(std::max(e.x, e.y), std::max(e.z, 1.0f)));
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

// Sweep(a, pose, d, triangle, Pose3{}, Vec3{}) for many triangles in the
// frame of `pose` (the mesh's): a box by the typed SAT sweep with the
// triangle moved into the box's frame as MakeTriangle does, a sphere by the
// ray against the triangle rounded by its radius as SweepRound does, other
// shapes by the generic pair sweep. A's pose and motion in the frame the
// pair test works in are computed once; the triangle is not wrapped in a
// ConvexShape3 on the typed paths.
class TriangleSweeper {
 public:
  TriangleSweeper(const ConvexShape3& a, const Pose3& pose, Vec3 d)
      : a_(a), pose_(pose), d_(d) {
    if (const auto* box = std::get_if<Box3>(&a)) {
      kind_ = Kind::kBox;
      box_ = *box;
      // sweep3d.cc: b_in_a = MulT(pose_a, pose_b), v = InvRotate(pose_a's
      // rotation, displacement_b - displacement_a).
      tri_in_box_ = MulT(pose, Pose3{});
      v_ = InvRotate(pose.rotation, Vec3{} - d);
    } else if (const auto* sphere = std::get_if<Sphere>(&a)) {
      kind_ = Kind::kSphere;
      radius_ = sphere->radius;
      // SweepRound: A's centre in B's (identity) frame and the motion.
      center_ = MulT(Pose3{}, pose).position;
      v_ = InvRotate(Quat{}, d - Vec3{});
    }
  }

  SweepResult<3> Sweep(const MeshTriangle& t) const {
    switch (kind_) {
      case Kind::kBox:
        return SweepBox(t);
      case Kind::kSphere:
        return SweepSphere(t);
      case Kind::kOther:
        break;
    }
    return sator::Sweep(a_, pose_, d_, ConvexShape3{Triangle3{t.a, t.b, t.c}},
                        Pose3{}, Vec3{});
  }

 private:
  enum class Kind { kBox, kSphere, kOther };

  SweepResult<3> SweepBox(const MeshTriangle& t) const {
    const Vec3 b[3] = {Transform(tri_in_box_, t.a), Transform(tri_in_box_, t.b),
                       Transform(tri_in_box_, t.c)};
    const internal::SatSweepResult s = internal::SweepBoxTriangle(box_, b, v_);
    SweepResult<3> r;
    switch (s.status) {
      case internal::SatSweepStatus::kMiss:
        return r;
      case internal::SatSweepStatus::kStartedOverlapping:
        r.outcome = SweepOutcome::kStartedOverlapping;
        r.fraction = 0.0f;
        return r;
      case internal::SatSweepStatus::kHit:
        break;
    }
    r.outcome = SweepOutcome::kHit;
    r.fraction = s.t;
    r.normal = Rotate(pose_.rotation, s.normal);
    r.point = Transform(pose_, s.point) + s.t * d_;
    return r;
  }

  SweepResult<3> SweepSphere(const MeshTriangle& t) const {
    internal::SmallRoundPoly small;
    internal::MakeTriangleRoundPoly(Triangle3{t.a, t.b, t.c}, &small);
    internal::PrimitiveHit h;
    SweepResult<3> r;
    switch (
        internal::RayRoundPoly(center_, v_, 1.0f, small.view, radius_, &h)) {
      case internal::RayStatus::kMiss:
        return r;
      case internal::RayStatus::kInside:
        r.outcome = SweepOutcome::kStartedOverlapping;
        r.fraction = 0.0f;
        return r;
      case internal::RayStatus::kHit:
        break;
    }
    // SweepRound's PointCast and result, with B's pose the identity.
    const Vec3 normal = -h.normal;
    const Vec3 core = center_ + h.t * v_;
    r.outcome = SweepOutcome::kHit;
    r.fraction = h.t;
    r.normal = Rotate(Quat{}, normal);
    r.point = Transform(Pose3{}, core + radius_ * normal) + h.t * Vec3{};
    return r;
  }

  const ConvexShape3& a_;
  const Pose3& pose_;
  Vec3 d_;
  Kind kind_ = Kind::kOther;
  Box3 box_{};
  Pose3 tri_in_box_{};
  Vec3 v_{};
  Vec3 center_{};
  float radius_ = 0.0f;
};

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
  // Of hits at the same fraction the triangle with the least id wins, so
  // the answer does not depend on the BVH's order or the sort's.
  const Vec3 center = Center(start_box);
  const Vec3 half = HalfExtents(start_box);
  struct Candidate {
    float t;
    std::uint32_t k;   // Leaf position.
    std::uint32_t id;  // Triangle id.
  };
  std::vector<Candidate> candidates;
  const std::vector<MeshTriangle>& leaf = mesh.leaf_triangles();
  internal::QueryMeshBox(mesh, swept, [&](std::uint32_t k) {
    // The leaf-order copy holds the input's vertices unchanged.
    const MeshTriangle& t = leaf[k];
    const Aabb3 grown = Grown(
        Aabb3{Min(t.a, Min(t.b, t.c)) - half, Max(t.a, Max(t.b, t.c)) + half});
    float t_enter = 0.0f;
    if (BoxEntry(center, d, grown, &t_enter)) {
      candidates.push_back({t_enter, k, mesh.leaf_triangle_ids()[k]});
    }
    return true;
  });
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& x, const Candidate& y) { return x.t < y.t; });
  // The pair sweep of A (placed by a_in_mesh, moving by d) against each
  // triangle (static, in the mesh frame): Sweep(a, a_in_mesh, d, triangle,
  // Pose3{}, Vec3{}), with what depends only on A set up once (sweep3d.cc
  // does the same per pair; the typed paths give its answers to the bit,
  // SweepInternal.BoxTriangleMatchesGeneric and MeshSweep tests).
  const TriangleSweeper sweeper(a, a_in_mesh, d);
  SweepResult<3> best;
  std::uint32_t best_id = 0;
  bool started = false;
  for (const Candidate& c : candidates) {
    if (best.outcome == SweepOutcome::kHit && c.t > best.fraction) break;
    const SweepResult<3> r = sweeper.Sweep(leaf[c.k]);
    if (r.outcome == SweepOutcome::kStartedOverlapping) {
      started = true;
      break;
    }
    if (r.outcome == SweepOutcome::kHit &&
        (best.outcome != SweepOutcome::kHit || r.fraction < best.fraction ||
         (r.fraction == best.fraction && c.id < best_id))) {
      best = r;
      best_id = c.id;
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
