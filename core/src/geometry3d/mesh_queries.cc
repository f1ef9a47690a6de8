// Convex shapes against a triangle mesh: BVH candidates, then per-triangle
// pair tests (see mesh_queries.h for the combination rules).
#include "sator/core/geometry3d/mesh_queries.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>
#include <variant>

#include "geometry3d/bvh_builder.h"
#include "geometry3d/mesh_bvh_query.h"
#include "geometry3d/ray_primitives.h"
#include "geometry3d/round_typed.h"
#include "geometry3d/sweep_round.h"
#include "geometry3d/sweep_sat.h"
#include "sator/core/geometry3d/aabb3d.h"
#include "sator/core/geometry3d/contact3d.h"
#include "sator/core/geometry3d/overlap3d.h"
#include "sator/core/geometry3d/sweep3d.h"

namespace sator {
namespace {

// The candidate filters compare boxes in the mesh's frame, while the pair
// tests they stand for work in another (the box's, the sphere's or the
// capsule's: the triangle moved there by MulT(a_in_mesh, Pose3{})), so a
// triangle the pair test finds touching must never be culled. Boxes are
// grown by two margins:
//  * kBoxSlack of the grown box's largest extent (at least 1): the pair
//    tests' round-off relative to the shapes' sizes;
//  * kFrameSlack x M, M the largest |coordinate| of the shape's box and
//    position in the mesh's frame, of the mesh's root box (which holds every
//    triangle) and, for a sweep, of the motion: the frame change. M is one
//    number per query, so a box containing another still gets a margin no
//    smaller (the sweep's slab test stays monotone).
//    With e = FLT_EPSILON and unit quaternions, Rotate's v + 2w (u x v) +
//    2 u x (u x v) is within about 8 e |v| of the exact rotation, so a vertex
//    v placed in A's frame (Rotate of v and of the position p, one addition)
//    is within about 9 e (|v| + |p|) <= 18 e M of where it belongs; the
//    shape's AABB in the mesh's frame (ComputeAabb: corners rotated and
//    added to p) is within about 10 e M of the exact one; the pair test's
//    own arithmetic (projections and differences of coordinates up to 2M in
//    A's frame; the sweep's entry times, whose rounding moves a time-t
//    position by about e t |d|) adds about 12 e M; the quaternions' length
//    (normalised in float, 1 within a few e) about 4 e M; Inflate and the
//    slab test's subtractions about 2 e M more. About 46 e M in all, so
//    64 e M. This is the slack the coordinates need: a small box resting on
//    a triangle at 3e3 is found touching by the pair test when the boxes in
//    the mesh's frame are 3 ulps (2e-4) apart, while kBoxSlack gives it 1e-5
//    (MeshQueries.RestingFarFromOriginMatchesBruteForce).
constexpr float kBoxSlack = 1e-5f;
constexpr float kFrameSlack = 64.0f * FLT_EPSILON;

// The largest |coordinate| of a box, a point.
float Magnitude(const Aabb3& box) {
  return std::max({std::fabs(box.min.x), std::fabs(box.min.y),
                   std::fabs(box.min.z), std::fabs(box.max.x),
                   std::fabs(box.max.y), std::fabs(box.max.z)});
}
float Magnitude(Vec3 p) {
  return std::max({std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
}

// M above for a query of shape box `box` (mesh frame), position `p` in the
// mesh's frame, against `mesh`.
float QueryMagnitude(const Aabb3& box, Vec3 p, const TriangleMesh& mesh) {
  return std::max(
      {Magnitude(box), Magnitude(p), Magnitude(mesh.nodes()[0].bounds)});
}

// A box grown by both margins: `frame` is kFrameSlack x M. The SSE2 slab
// test below computes the same floats (the maxima are exact, then one
// multiplication and one addition).
Aabb3 Grown(const Aabb3& box, float frame) {
  const Vec3 e = box.max - box.min;
  return Inflate(box, kBoxSlack * std::max({e.x, e.y, e.z, 1.0f}) + frame);
}

// A box (the shape's AABB at the start) moving by d: does it reach a
// given box by t_max, and when? The entry time of the box's centre into the
// given box grown by the half extents (slabs, Ericson 5.3.3; then by
// Grown's margins, `frame` the same for every box of the query, so that
// round-off never culls a touching shape). A component of d below 1e-20 is
// parallel, so nothing overflows. Monotone: a box containing another is
// grown by no less (its extent is no smaller, `frame` is fixed) and so is
// reached no later, so a BVH node's time bounds its triangles'.
class SweptBox {
 public:
  SweptBox(const Aabb3& start, Vec3 d, float frame)
      : center_(Center(start)), half_(HalfExtents(start)), frame_(frame) {
    for (int i = 0; i < 3; ++i) {
      parallel_[i] = std::fabs(d[i]) < 1e-20f;
      inv_[i] = parallel_[i] ? 0.0f : 1.0f / d[i];
    }
#if defined(__SSE2__)
    center_lanes_ = _mm_setr_ps(center_.x, center_.y, center_.z, 0.0f);
    half_lanes_ = _mm_setr_ps(half_.x, half_.y, half_.z, 0.0f);
    inv_lanes_ = _mm_setr_ps(inv_.x, inv_.y, inv_.z, 0.0f);
    const auto mask = [](bool on) { return on ? -1 : 0; };
    parallel_lanes_ = _mm_castsi128_ps(_mm_setr_epi32(
        mask(parallel_[0]), mask(parallel_[1]), mask(parallel_[2]), -1));
#endif
  }

#if defined(__SSE2__)
  // The scalar form below, three axes at once (lane 3 is masked out as a
  // parallel axis): the same operations on the same values, so the same
  // times.
  bool Reaches(const Aabb3& box, float t_max, float* t_enter) const {
    const __m128 lo_box = _mm_sub_ps(
        _mm_setr_ps(box.min.x, box.min.y, box.min.z, 0.0f), half_lanes_);
    const __m128 hi_box = _mm_add_ps(
        _mm_setr_ps(box.max.x, box.max.y, box.max.z, 0.0f), half_lanes_);
    // Grown: kBoxSlack of the largest extent (at least 1), plus frame_.
    __m128 e = _mm_sub_ps(hi_box, lo_box);
    e = _mm_max_ps(e, _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f));
    e = _mm_max_ps(e, _mm_shuffle_ps(e, e, _MM_SHUFFLE(1, 0, 3, 2)));
    e = _mm_max_ps(e, _mm_shuffle_ps(e, e, _MM_SHUFFLE(2, 3, 0, 1)));
    const __m128 margin =
        _mm_add_ps(_mm_mul_ps(_mm_set1_ps(kBoxSlack), e), _mm_set1_ps(frame_));
    const __m128 g_min = _mm_sub_ps(lo_box, margin);
    const __m128 g_max = _mm_add_ps(hi_box, margin);
    // A parallel axis: the centre must lie in the slab.
    const __m128 outside = _mm_or_ps(_mm_cmplt_ps(center_lanes_, g_min),
                                     _mm_cmpgt_ps(center_lanes_, g_max));
    if ((_mm_movemask_ps(_mm_and_ps(outside, parallel_lanes_)) & 7) != 0) {
      return false;
    }
    const __m128 a = _mm_mul_ps(_mm_sub_ps(g_min, center_lanes_), inv_lanes_);
    const __m128 b = _mm_mul_ps(_mm_sub_ps(g_max, center_lanes_), inv_lanes_);
    // Parallel lanes take no part: 0 for the entry, t_max for the exit.
    __m128 lo = _mm_andnot_ps(parallel_lanes_, _mm_min_ps(a, b));
    __m128 hi = _mm_or_ps(_mm_and_ps(parallel_lanes_, _mm_set1_ps(t_max)),
                          _mm_andnot_ps(parallel_lanes_, _mm_max_ps(a, b)));
    lo = _mm_max_ps(lo, _mm_shuffle_ps(lo, lo, _MM_SHUFFLE(1, 0, 3, 2)));
    lo = _mm_max_ps(lo, _mm_shuffle_ps(lo, lo, _MM_SHUFFLE(2, 3, 0, 1)));
    hi = _mm_min_ps(hi, _mm_shuffle_ps(hi, hi, _MM_SHUFFLE(1, 0, 3, 2)));
    hi = _mm_min_ps(hi, _mm_shuffle_ps(hi, hi, _MM_SHUFFLE(2, 3, 0, 1)));
    const float t0 = std::max(0.0f, _mm_cvtss_f32(lo));
    const float t1 = std::min(t_max, _mm_cvtss_f32(hi));
    if (t0 > t1) return false;
    *t_enter = t0;
    return true;
  }
#else
  bool Reaches(const Aabb3& box, float t_max, float* t_enter) const {
    const Aabb3 g = Grown(Aabb3{box.min - half_, box.max + half_}, frame_);
    float t0 = 0.0f;
    float t1 = t_max;
    for (int i = 0; i < 3; ++i) {
      if (parallel_[i]) {
        if (center_[i] < g.min[i] || center_[i] > g.max[i]) return false;
        continue;
      }
      float lo = (g.min[i] - center_[i]) * inv_[i];
      float hi = (g.max[i] - center_[i]) * inv_[i];
      if (lo > hi) std::swap(lo, hi);
      t0 = std::max(t0, lo);
      t1 = std::min(t1, hi);
      if (t0 > t1) return false;
    }
    *t_enter = t0;
    return true;
  }
#endif

 private:
  Vec3 center_;
  Vec3 half_;
  float frame_;
  Vec3 inv_{};
  bool parallel_[3] = {false, false, false};
#if defined(__SSE2__)
  __m128 center_lanes_;
  __m128 half_lanes_;
  __m128 inv_lanes_;
  __m128 parallel_lanes_;
#endif
};

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
  const Aabb3 box = GrownQueryBox(a, a_in_mesh, mesh);
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
  // The BVH depth first, the child the shape's box reaches sooner first,
  // skipping every box (node or triangle) it reaches only after the best hit
  // so far: a triangle is hit no sooner than its box is reached, so every
  // triangle that could hit before or at the best is tested. The answer is
  // the least fraction, and of hits at that fraction the triangle with the
  // least id, whatever the order of the visits; a triangle the shape starts
  // overlapping (reached at 0, never skipped) ends the search.
  const std::vector<MeshBvhNode>& nodes = mesh.nodes();
  const std::vector<MeshTriangle>& leaf = mesh.leaf_triangles();
  struct Pending {
    std::uint32_t node;
    float t;
  };
  Pending stack[internal::kMaxBvhDepth + 1];
  int top = 0;
  float limit = 1.0f;  // The best hit's fraction, 1 while none.
  SweepResult<3> best;
  std::uint32_t best_id = 0;
  std::uint32_t best_k = 0;
  bool started = false;
  float t_root = 0.0f;
  if (swept.Reaches(nodes[0].bounds, limit, &t_root)) {
    stack[top++] = {0, t_root};
  }
  while (top > 0 && !started) {
    const Pending p = stack[--top];
    if (p.t > limit) continue;
    const MeshBvhNode& n = nodes[p.node];
    if (n.count == 0) {
      const std::uint32_t left = p.node + 1;
      const std::uint32_t right = n.index;
      float t_left = 0.0f;
      float t_right = 0.0f;
      const bool reach_left = swept.Reaches(nodes[left].bounds, limit, &t_left);
      const bool reach_right =
          swept.Reaches(nodes[right].bounds, limit, &t_right);
      if (reach_left && reach_right) {
        // The nearer on top.
        if (t_left <= t_right) {
          stack[top++] = {right, t_right};
          stack[top++] = {left, t_left};
        } else {
          stack[top++] = {left, t_left};
          stack[top++] = {right, t_right};
        }
      } else if (reach_left) {
        stack[top++] = {left, t_left};
      } else if (reach_right) {
        stack[top++] = {right, t_right};
      }
      continue;
    }
    for (std::uint32_t k = n.index; k < n.index + n.count; ++k) {
      const MeshTriangle& t = leaf[k];
      float t_enter = 0.0f;
      if (!swept.Reaches(
              Aabb3{Min(t.a, Min(t.b, t.c)), Max(t.a, Max(t.b, t.c))}, limit,
              &t_enter)) {
        continue;
      }
      const SweepResult<3> r = sweeper.Sweep(t, false, limit);
      if (r.outcome == SweepOutcome::kStartedOverlapping) {
        started = true;
        break;
      }
      if (r.outcome != SweepOutcome::kHit) continue;
      const std::uint32_t id = mesh.leaf_triangle_ids()[k];
      if (best.outcome != SweepOutcome::kHit || r.fraction < best.fraction ||
          (r.fraction == best.fraction && id < best_id)) {
        best = r;
        best_id = id;
        best_k = k;
        limit = r.fraction;
      }
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
  // The winner again, with its contact point (the same arithmetic, so the
  // same fraction and normal).
  if (sweeper.defers_point()) best = sweeper.Sweep(leaf[best_k], true, 1.0f);
  best.normal = Rotate(pose_mesh.rotation, best.normal);
  best.point =
      Transform(pose_mesh, best.point) + best.fraction * displacement_mesh;
  return best;
}

}  // namespace sator
