// Convex shapes against a triangle mesh: BVH candidates, then per-triangle
// pair tests (see mesh_queries.h for the combination rules).
#include "sator/core/collide3d/mesh_queries.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <variant>

#include "collide3d/ray_primitives.h"
#include "collide3d/round_typed.h"
#include "collide3d/sweep_round.h"
#include "collide3d/sweep_sat.h"
#include "collide3d/swept_box.h"
#include "sator/core/collide3d/aabb3d.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/sweep3d.h"

namespace sator {
namespace {

using internal::Grown;
using internal::kFrameSlack;
using internal::Magnitude;
using internal::SweptBox;

// M (swept_box.h) for a query of shape box `box` (mesh frame), position `p` in
// the mesh's frame, against `mesh`.
float QueryMagnitude(const Aabb3& box, Vec3 p, const TriangleMesh& mesh) {
  return std::max(
      {Magnitude(box), Magnitude(p), Magnitude(mesh.local_bounds())});
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

  // Whether Sweep without `with_point` leaves a hit's point out (boxes).
  bool defers_point() const { return kind_ == Kind::kBox; }

  // Without `with_point` a box's hit has no point (see SweepBoxTriangle);
  // every other field is the same. A box's hit after t_max may come back as
  // a miss.
  SweepResult<3> Sweep(const MeshTriangle& t, bool with_point,
                       float t_max) const {
    switch (kind_) {
      case Kind::kBox:
        return SweepBox(t, with_point, t_max);
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

  SweepResult<3> SweepBox(const MeshTriangle& t, bool with_point,
                          float t_max) const {
    const Vec3 b[3] = {Transform(tri_in_box_, t.a), Transform(tri_in_box_, t.b),
                       Transform(tri_in_box_, t.c)};
    const internal::SatSweepResult s =
        internal::SweepBoxTriangle(box_, b, v_, with_point, t_max);
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
    if (with_point) r.point = Transform(pose_, s.point) + s.t * d_;
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

// The shape's box in the mesh's frame, grown (Grown) for the candidate
// query of Overlap and Contact.
Aabb3 GrownQueryBox(const ConvexShape3& a, const Pose3& a_in_mesh,
                    const TriangleMesh& mesh) {
  const Aabb3 box = ComputeAabb(a, a_in_mesh);
  return Grown(box,
               kFrameSlack * QueryMagnitude(box, a_in_mesh.position, mesh));
}

// A sphere's or capsule's (`kind`) core in its own frame, as the pair
// Contact and Overlap against a triangle place it.
void MakeCoreInItsFrame(const ConvexShape3& a, ShapeKind3 kind,
                        internal::FlatCore* core) {
  if (kind == ShapeKind3::kSphere) {
    internal::MakeFlatCore(std::get<Sphere>(a), Pose3{}, core);
  } else {
    internal::MakeFlatCore(std::get<Capsule3>(a), Pose3{}, core);
  }
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
  const Aabb3 box = GrownQueryBox(a, a_in_mesh, mesh);
  const ShapeKind3 kind = KindOf(a);
  if (kind == ShapeKind3::kSphere || kind == ShapeKind3::kCapsule) {
    internal::FlatCore core;
    MakeCoreInItsFrame(a, kind, &core);
    // The triangles' pose in A's frame, as Contact computes it.
    const Pose3 mesh_in_a = MulT(a_in_mesh, Pose3{});
    mesh.bvh().Query(box, [&](std::uint32_t id) {
      ContactResult<3> c;
      if (internal::ContactFlatTriangleIfNear(core.ref, mesh.triangle(id),
                                              mesh_in_a, &c)) {
        f(id, c);
      }
      return true;
    });
    return true;
  }
  mesh.bvh().Query(box, [&](std::uint32_t id) {
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
  mesh.bvh().Query(box, [&](std::uint32_t id) {
    ids.push_back(id);
    return true;
  });
  return ids;
}

bool Overlap(const ConvexShape3& a, const Pose3& pose_a,
             const TriangleMesh& mesh, const Pose3& pose_mesh) {
  const Pose3 a_in_mesh = MulT(pose_mesh, pose_a);
  const Aabb3 box = GrownQueryBox(a, a_in_mesh, mesh);
  bool found = false;
  const ShapeKind3 kind = KindOf(a);
  if (kind == ShapeKind3::kSphere || kind == ShapeKind3::kCapsule) {
    // The core placed once (Overlap's typed path per triangle otherwise).
    internal::FlatCore core;
    MakeCoreInItsFrame(a, kind, &core);
    const Pose3 mesh_in_a = MulT(a_in_mesh, Pose3{});
    mesh.bvh().Query(box, [&](std::uint32_t id) {
      bool overlap = false;
      found = internal::OverlapFlatTriangleIfNear(core.ref, mesh.triangle(id),
                                                  mesh_in_a, &overlap) &&
              overlap;
      return !found;
    });
    return found;
  }
  mesh.bvh().Query(box, [&](std::uint32_t id) {
    const ConvexShape3 tri = mesh.triangle(id);
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
  // The deepest of ContactAll (of equal depths, the triangle with the least
  // id, whatever the BVH's order: the brute force's answer), kept in the
  // frame the triangles are met in and mapped to the world once: no vector,
  // and one ToWorld instead of one per triangle.
  const Pose3 a_in_mesh = MulT(pose_mesh, pose_a);
  ContactResult<3> best;
  std::uint32_t best_id = 0;
  const bool in_a_frame = ForEachTriangleContact(
      a, a_in_mesh, mesh, [&](std::uint32_t id, const ContactResult<3>& c) {
        if (c.overlapping && (!best.overlapping || c.depth > best.depth ||
                              (c.depth == best.depth && id < best_id))) {
          best = c;
          best_id = id;
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
  const Aabb3 start = ComputeAabb(a, a_in_mesh);
  const float frame =
      kFrameSlack *
      std::max(QueryMagnitude(start, a_in_mesh.position, mesh), Magnitude(d));
  const SweptBox swept(start, d, frame);
  // The pair sweep of A against each triangle reached (see TriangleSweeper).
  const TriangleSweeper sweeper(a, a_in_mesh, d);
  // The BVH nearest first (Bvh::CastInOrder), skipping every box (node or
  // triangle) it reaches only after the best hit so far: a triangle is hit no
  // sooner than its box is reached, so every triangle that could hit before or
  // at the best is tested. The answer is the least fraction, and of hits at
  // that fraction the triangle with the least id, whatever the order of the
  // visits; a triangle the shape starts overlapping (reached at 0, never
  // skipped) ends the search.
  const std::vector<MeshTriangle>& leaf = mesh.leaf_triangles();
  SweepResult<3> best;
  std::uint32_t best_id = 0;
  std::uint32_t best_k = 0;
  bool started = false;
  mesh.bvh().CastInOrder(
      1.0f,
      [&swept](const Aabb3& box, float limit, float* t_enter) {
        return swept.Reaches(box, limit, t_enter);
      },
      [&](std::uint32_t id, std::uint32_t k, float limit) {
        const SweepResult<3> r = sweeper.Sweep(leaf[k], false, limit);
        if (r.outcome == SweepOutcome::kStartedOverlapping) {
          started = true;
          return -1.0f;
        }
        if (r.outcome == SweepOutcome::kHit &&
            (best.outcome != SweepOutcome::kHit || r.fraction < best.fraction ||
             (r.fraction == best.fraction && id < best_id))) {
          best = r;
          best_id = id;
          best_k = k;
        }
        // The best hit's fraction, 1 while none.
        return best.outcome == SweepOutcome::kHit ? best.fraction : 1.0f;
      });
  if (started) {
    SweepResult<3> r;
    r.outcome = SweepOutcome::kStartedOverlapping;
    r.fraction = 0.0f;
    r.initial = Contact(a, pose_a, mesh, pose_mesh);
    return r;
  }
  if (best.outcome != SweepOutcome::kHit) return SweepResult<3>{};
  // The winner again, with its contact point (the same arithmetic, so the
  // same fraction and normal).
  if (sweeper.defers_point()) best = sweeper.Sweep(leaf[best_k], true, 1.0f);
  best.normal = Rotate(pose_mesh.rotation, best.normal);
  best.point =
      Transform(pose_mesh, best.point) + best.fraction * displacement_mesh;
  return best;
}

}  // namespace sator
