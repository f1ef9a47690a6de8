// Private: the candidate boxes of the mesh queries (mesh_queries.cc), grown
// so that round-off never culls a triangle the pair test finds touching, and
// the sweep's slab test against them.
#ifndef SATOR_CORE_SRC_COLLIDE3D_SWEPT_BOX_H_
#define SATOR_CORE_SRC_COLLIDE3D_SWEPT_BOX_H_

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "sator/core/aabb.h"
#include "sator/core/broadphase/casts.h"
#include "sator/core/vec.h"

namespace sator::internal {

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
//    M bounds each coordinate, so a length in that frame is at most
//    sqrt(3) M. With e = FLT_EPSILON and unit quaternions, Rotate's
//    v + 2w (u x v) + 2 u x (u x v) is within about 8 e |v| of the exact
//    rotation, so a vertex v placed in A's frame (Rotate of v and of the
//    position p, one addition) is within about 9 e (|v| + |p|) <=
//    18 sqrt(3) e M (31 e M) of where it belongs. The shape's AABB in the
//    mesh's frame (ComputeAabb: its axes rotated, scaled by the half extents
//    or radius and added to p) is within about 10 e M of the exact one. The
//    pair test's own arithmetic adds about 12 e times its coordinates' length,
//    up to 2 sqrt(3) M in A's frame (21 e M): projections and differences of
//    coordinates, and the sweep's entry times, whose rounding moves a time-t
//    position by about e t |d|. The quaternions' length (normalised in
//    float, 1 within a few e) adds about 4 e |v|, at most 7 e M, and Inflate
//    and the slab test's subtractions about 2 e M more. That is about
//    71 e M in all, so the margin is 128 e M. kBoxSlack alone culled
//    triangles the pair tests found touching (small shapes resting on
//    triangles near 1e3 to 1e4, where an ulp of the coordinates is 6e-5 to
//    1e-3: 50 of the 2,700 queries of
//    MeshQueries.RestingFarFromOriginMatchesBruteForce, which measures the
//    boxes of the pairs found touching at most 2.5 e M apart).
constexpr float kBoxSlack = 1e-5f;
constexpr float kFrameSlack = 128.0f * FLT_EPSILON;

// The largest |coordinate| of a box, a point.
inline float Magnitude(const Aabb3& box) {
  return std::max({std::fabs(box.min.x), std::fabs(box.min.y),
                   std::fabs(box.min.z), std::fabs(box.max.x),
                   std::fabs(box.max.y), std::fabs(box.max.z)});
}
inline float Magnitude(Vec3 p) {
  return std::max({std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
}

// A box grown by both margins: `frame` is kFrameSlack x M.
inline Aabb3 Grown(const Aabb3& box, float frame) {
  const Vec3 e = box.max - box.min;
  return Inflate(box, kBoxSlack * std::max({e.x, e.y, e.z, 1.0f}) + frame);
}

// A box (the shape's AABB at the start) moving by d: does it reach a
// given box by t_max, and when? The entry time of the box's centre into the
// given box grown by the half extents (slabs, Ericson 5.3.3; then by
// Grown's margins, `frame` the same for every box of the query, so that
// round-off never culls a touching shape): broadphase::Segment's slab test,
// whose parallel axes (a component of d below kParallelEpsilon) nothing
// overflows on. Monotone: a box containing another is
// grown by no less (its extent is no smaller, `frame` is fixed) and so is
// reached no later, so a BVH node's time bounds its triangles'.
class SweptBox {
 public:
  SweptBox(const Aabb3& start, Vec3 d, float frame)
      : segment_(Center(start), d), half_(HalfExtents(start)), frame_(frame) {}

  bool Reaches(const Aabb3& box, float t_max, float* t_enter) const {
    // Grown's margin, for the box grown by the half extents.
    const Vec3 e = (box.max + half_) - (box.min - half_);
    const float margin = kBoxSlack * std::max({e.x, e.y, e.z, 1.0f}) + frame_;
    return segment_.Hits(box, half_ + Vec3{margin, margin, margin}, t_max,
                         t_enter);
  }

 private:
  broadphase::Segment<3> segment_;
  Vec3 half_;
  float frame_;
};

}  // namespace sator::internal

#endif  // SATOR_CORE_SRC_COLLIDE3D_SWEPT_BOX_H_
