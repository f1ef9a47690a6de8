// The sweep table's cells (pairs3d.h) and the sweeps with a round shape
// (sphere or capsule).
//
// Round sweeps use the Minkowski difference (van den Bergen, "Collision
// Detection in Interactive 3D Environments", 2003, ch. 5 on ray casting
// against a configuration-space obstacle): A, moving by d relative to B,
// first touches B at the least t for which t d lies in (B_core - A_core)
// grown by r_a + r_b, i.e. a ray from the origin along d against that set:
//
//   A core    B core     B_core - A_core          ray against
//   point     point      point                    sphere   (RaySphere)
//   point     segment    segment                  capsule  (RayCapsule)
//   point     polytope   polytope, shifted        rounded polytope
//   segment   segment    parallelogram (flat)     rounded parallelogram
//   segment   polytope   polytope swept by the segment: its boundary lies in
//                        the polytope at either end and the parallelograms
//                        of each edge with the segment, so the least entry
//                        over those parts (all rounded) is exact.
//
// The ray's hit normal points out of the set; the normal from A to B is its
// negation. All the work is done in B's frame (B's hull data is used as is).
#include "sator/core/collide3d/sweep3d.h"

#include <type_traits>
#include <utility>

#include "collide3d/convex_closest.h"
#include "collide3d/pairs3d.h"
#include "collide3d/ray_primitives.h"
#include "collide3d/sweep_round.h"
#include "collide3d/sweep_sat.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/overlap3d.h"

namespace sator {
namespace {

using internal::PrimitiveHit;
using internal::RayStatus;

SweepResult<3> StartedOverlapping(const ConvexShape3& a, const Pose3& pose_a,
                                  const ConvexShape3& b, const Pose3& pose_b) {
  SweepResult<3> r;
  r.outcome = SweepOutcome::kStartedOverlapping;
  r.fraction = 0.0f;
  r.initial = Contact(a, pose_a, b, pose_b);
  return r;
}

SweepResult<3> FlipSweep(SweepResult<3> r) {
  r.normal = -r.normal;
  r.initial = Flip(r.initial);
  return r;
}

// The result of a round sweep in B's frame.
struct RoundHit {
  RayStatus status = RayStatus::kMiss;
  float t = 1.0f;
  Vec3 normal{};  // From A to B.
  Vec3 core_a{};  // A's core point at the time of impact.
};

// Keeps the earlier of two hits; a kInside wins over everything.
void Keep(const RoundHit& h, RoundHit* best) {
  if (best->status == RayStatus::kInside) return;
  if (h.status == RayStatus::kInside ||
      (h.status == RayStatus::kHit &&
       (best->status == RayStatus::kMiss || h.t < best->t))) {
    *best = h;
  }
}

// A's core point p (ball of radius r_a) against B's core given as the set
// (B_core - p) through `cast`.
template <typename Cast>
RoundHit PointCast(Vec3 p, Vec3 d, Cast&& cast) {
  RoundHit out;
  PrimitiveHit h;
  out.status = cast(&h);
  if (out.status != RayStatus::kHit) return out;
  out.t = h.t;
  out.normal = -h.normal;
  out.core_a = p + h.t * d;
  return out;
}

// Segment pq of A against segment (c1, c2) of B: the ray from the origin
// along d against the parallelogram {y - x} rounded by `radius` (faces in
// double, so nearly parallel segments keep them; see sweep_round.h).
RoundHit SegmentSegment(Vec3 p, Vec3 q, Vec3 c1, Vec3 c2, Vec3 d,
                        float radius) {
  RoundHit out;
  PrimitiveHit h;
  out.status = internal::RayRoundSegmentDifference(Vec3{}, d, 1.0f, p, q, c1,
                                                   c2, radius, &h);
  if (out.status != RayStatus::kHit) return out;
  out.t = h.t;
  out.normal = -h.normal;
  // A's segment at the time of impact against B's segment: nearly parallel
  // segments, whose float determinant a e - b^2 cancels, are solved in
  // double there (convex_closest.h).
  Vec3 ca, cb;
  internal::ClosestPointsSegmentSegment(p + h.t * d, q + h.t * d, c1, c2, &ca,
                                        &cb);
  out.core_a = ca;
  return out;
}

// A round shape (core point or segment, radius r_a) against B, in B's frame.
RoundHit RoundAgainst(const Vec3* core, int core_count, float r_a, Vec3 d,
                      const ConvexShape3& b, bool* needs_overlap_check) {
  *needs_overlap_check = false;
  return std::visit(
      [&](const auto& s) -> RoundHit {
        using T = std::decay_t<decltype(s)>;
        RoundHit best;
        if constexpr (std::is_same_v<T, Sphere>) {
          const float radius = r_a + s.radius;
          if (core_count == 1) {
            return PointCast(core[0], d, [&](PrimitiveHit* h) {
              return internal::RaySphere(core[0], d, 1.0f, Vec3{}, radius, h);
            });
          }
          // Segment of A against B's centre: the centre moves by -d against
          // A's capsule; the normal out of that capsule points from A to B.
          PrimitiveHit h;
          best.status = internal::RayCapsule(Vec3{}, -d, 1.0f, core[0], core[1],
                                             radius, &h);
          if (best.status == RayStatus::kHit) {
            best.t = h.t;
            best.normal = h.normal;
            best.core_a =
                internal::ClosestPointOnSegment(-h.t * d, core[0], core[1]) +
                h.t * d;
          }
          return best;
        } else if constexpr (std::is_same_v<T, Capsule3>) {
          const float radius = r_a + s.radius;
          if (core_count == 1) {
            return PointCast(core[0], d, [&](PrimitiveHit* h) {
              return internal::RayCapsule(core[0], d, 1.0f, s.a, s.b, radius,
                                          h);
            });
          }
          return SegmentSegment(core[0], core[1], s.a, s.b, d, radius);
        } else {
          internal::SmallRoundPoly small;
          internal::RoundPoly poly;
          if constexpr (std::is_same_v<T, Box3>) {
            internal::MakeBoxRoundPoly(s, &small);
            poly = small.view;
          } else if constexpr (std::is_same_v<T, Triangle3>) {
            internal::MakeTriangleRoundPoly(s, &small);
            poly = small.view;
          } else {
            poly = internal::HullRoundPoly(*s);
          }
          for (int k = 0; k < core_count; ++k) {
            Keep(PointCast(core[k], d,
                           [&](PrimitiveHit* h) {
                             return internal::RayRoundPoly(core[k], d, 1.0f,
                                                           poly, r_a, h);
                           }),
                 &best);
          }
          if (core_count == 2 && best.status != RayStatus::kInside) {
            // The segment's interior against each edge of B.
            const Vec3 grow{r_a, r_a, r_a};
            const broadphase::Segment<3> segment(Vec3{}, d);
            for (int e = 0; e < poly.edge_count; ++e) {
              const Vec3 c1 = poly.vertices[poly.edges[e].a];
              const Vec3 c2 = poly.vertices[poly.edges[e].b];
              // Skip edges whose parallelogram's box (grown by the radius)
              // the ray cannot reach before the best hit so far.
              const float t_max =
                  best.status == RayStatus::kHit ? best.t : 1.0f;
              const Vec3 lo = Min(Min(c1 - core[0], c2 - core[0]),
                                  Min(c2 - core[1], c1 - core[1]));
              const Vec3 hi = Max(Max(c1 - core[0], c2 - core[0]),
                                  Max(c2 - core[1], c1 - core[1]));
              float entry = 0.0f;
              if (!segment.Hits(Aabb3{lo, hi}, grow, t_max, &entry)) {
                continue;
              }
              Keep(SegmentSegment(core[0], core[1], c1, c2, d, r_a), &best);
            }
            // The union of parts has the right boundary but not the whole
            // interior: whether the capsule starts inside is asked apart.
            *needs_overlap_check = true;
          }
          return best;
        }
      },
      b);
}

SweepResult<3> SweepRound(const ConvexShape3& a, const Pose3& pose_a,
                          Vec3 displacement_a, const ConvexShape3& b,
                          const Pose3& pose_b, Vec3 displacement_b) {
  // A's core in B's frame.
  const Pose3 a_in_b = MulT(pose_b, pose_a);
  Vec3 core[2];
  int core_count = 1;
  float r_a = 0.0f;
  if (const auto* sphere = std::get_if<Sphere>(&a)) {
    core[0] = a_in_b.position;
    r_a = sphere->radius;
  } else {
    const auto& cap = std::get<Capsule3>(a);
    core[0] = Transform(a_in_b, cap.a);
    core[1] = Transform(a_in_b, cap.b);
    core_count = 2;
    r_a = cap.radius;
  }
  const Vec3 d = InvRotate(pose_b.rotation, displacement_a - displacement_b);
  bool needs_overlap_check = false;
  const RoundHit hit =
      RoundAgainst(core, core_count, r_a, d, b, &needs_overlap_check);
  if (hit.status == RayStatus::kInside ||
      (needs_overlap_check && Overlap(a, pose_a, b, pose_b))) {
    return StartedOverlapping(a, pose_a, b, pose_b);
  }
  SweepResult<3> r;
  if (hit.status == RayStatus::kMiss) return r;
  r.outcome = SweepOutcome::kHit;
  r.fraction = hit.t;
  r.normal = Rotate(pose_b.rotation, hit.normal);
  r.point =
      Transform(pose_b, hit.core_a + r_a * hit.normal) + hit.t * displacement_b;
  return r;
}

}  // namespace

namespace {

// A SAT sweep's answer in world terms (A's frame to the world, a start in
// contact measured as such).
SweepResult<3> FinishSat(const internal::SatSweepResult& s,
                         const ConvexShape3& a, const Pose3& pose_a,
                         Vec3 displacement_a, const ConvexShape3& b,
                         const Pose3& pose_b) {
  SweepResult<3> r;
  switch (s.status) {
    case internal::SatSweepStatus::kMiss:
      return r;
    case internal::SatSweepStatus::kStartedOverlapping:
      return StartedOverlapping(a, pose_a, b, pose_b);
    case internal::SatSweepStatus::kHit:
      break;
  }
  r.outcome = SweepOutcome::kHit;
  r.fraction = s.t;
  r.normal = Rotate(pose_a.rotation, s.normal);
  r.point = Transform(pose_a, s.point) + s.t * displacement_a;
  return r;
}

// B's motion relative to A's, in A's frame.
Vec3 RelativeMotion(const Pose3& pose_a, Vec3 displacement_a,
                    Vec3 displacement_b) {
  return InvRotate(pose_a.rotation, displacement_b - displacement_a);
}

}  // namespace

namespace internal::sweep3d {

// The cells of the sweep table (dispatch3d.cc), each for the kinds its
// name gives (A first): world poses and displacements in.

// A sphere or capsule against anything, in the other shape's frame.
SweepResult<3> RoundAny(const ConvexShape3& a, const Pose3& pose_a,
                        Vec3 displacement_a, const ConvexShape3& b,
                        const Pose3& pose_b, Vec3 displacement_b) {
  return SweepRound(a, pose_a, displacement_a, b, pose_b, displacement_b);
}
SweepResult<3> AnyRound(const ConvexShape3& a, const Pose3& pose_a,
                        Vec3 displacement_a, const ConvexShape3& b,
                        const Pose3& pose_b, Vec3 displacement_b) {
  return FlipSweep(
      SweepRound(b, pose_b, displacement_b, a, pose_a, displacement_a));
}
SweepResult<3> BoxBox(const ConvexShape3& a, const Pose3& pose_a,
                      Vec3 displacement_a, const ConvexShape3& b,
                      const Pose3& pose_b, Vec3 displacement_b) {
  return FinishSat(
      SweepBoxBox(std::get<Box3>(a), std::get<Box3>(b), MulT(pose_a, pose_b),
                  RelativeMotion(pose_a, displacement_a, displacement_b)),
      a, pose_a, displacement_a, b, pose_b);
}
SweepResult<3> BoxTriangle(const ConvexShape3& a, const Pose3& pose_a,
                           Vec3 displacement_a, const ConvexShape3& b,
                           const Pose3& pose_b, Vec3 displacement_b) {
  // The triangle in the box's frame.
  const Pose3 b_in_a = MulT(pose_a, pose_b);
  const auto& t = std::get<Triangle3>(b);
  const Vec3 placed[3] = {Transform(b_in_a, t.a), Transform(b_in_a, t.b),
                          Transform(b_in_a, t.c)};
  return FinishSat(
      SweepBoxTriangle(std::get<Box3>(a), placed,
                       RelativeMotion(pose_a, displacement_a, displacement_b),
                       true, 1.0f),
      a, pose_a, displacement_a, b, pose_b);
}
SweepResult<3> Polytopes(const ConvexShape3& a, const Pose3& pose_a,
                         Vec3 displacement_a, const ConvexShape3& b,
                         const Pose3& pose_b, Vec3 displacement_b) {
  return FinishSat(
      SweepPolytopes(a, b, MulT(pose_a, pose_b),
                     RelativeMotion(pose_a, displacement_a, displacement_b)),
      a, pose_a, displacement_a, b, pose_b);
}

}  // namespace internal::sweep3d

}  // namespace sator
