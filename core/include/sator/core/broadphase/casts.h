// Ray and box casts against bounding boxes, shared by DynamicTree and Bvh.
//
// The segment test is the slab method (Kay and Kajiya 1986; Ericson,
// "Real-Time Collision Detection", 5.3.3): on each axis the segment
// p(t) = origin + t * translation lies between the box's planes for t in
// [(min - origin) / translation, (max - origin) / translation] (swapped when
// the translation is negative); the segment meets the box where the
// intersection of those intervals and [0, max_fraction] is not empty, and it
// enters at the interval's start.
//
// A box cast (a moving AABB) is a ray cast from the moving box's centre
// against each node grown by the moving box's half extents: the Minkowski sum
// of two AABBs is an AABB (van den Bergen, "Collision Detection in
// Interactive 3D Environments", 2004, 3.3).
//
// Consistency: the entry fraction is computed with monotone float operations
// (a subtraction and a multiplication by a fixed number per axis), so a box
// that contains another is never entered later than the inner one. A parent
// node is therefore hit whenever any proxy below it is, and a traversal finds
// exactly the proxies a brute-force scan with the same test finds.
//
// No division by zero or overflow (the core runs with floating-point traps in
// its tests): an axis whose translation is below kParallelEpsilon is treated
// as parallel and tested conservatively with the segment's extent on that
// axis, and inputs are limited to kMaxQueryCoordinate in magnitude.
#ifndef SATOR_CORE_BROADPHASE_CASTS_H_
#define SATOR_CORE_BROADPHASE_CASTS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sator/core/aabb.h"
#include "sator/core/limits.h"
#include "sator/core/vec.h"

namespace sator::broadphase {

// Translation components smaller than this are treated as zero (parallel).
inline constexpr float kParallelEpsilon = 1e-18f;

// A segment from `origin` to `origin + max_fraction * translation`.
template <int D>
struct RayCastInput {
  Vec<D> origin{};
  Vec<D> translation{};
  float max_fraction = 1.0f;
};

// The box `box` moving by `max_fraction * translation`.
template <int D>
struct BoxCastInput {
  Aabb<D> box{};
  Vec<D> translation{};
  float max_fraction = 1.0f;
};

// Ok when every component of `v` is finite and within kMaxQueryCoordinate.
template <int D>
absl::Status ValidateVector(const Vec<D>& v, const char* what);
// Ok when `box` is finite, within kMaxQueryCoordinate and has min <= max.
template <int D>
absl::Status ValidateBox(const Aabb<D>& box, const char* what);
template <int D>
absl::Status ValidateRayCast(const RayCastInput<D>& input);
template <int D>
absl::Status ValidateBoxCast(const BoxCastInput<D>& input);

// The validating factories: refuse non-finite or out-of-range input with a
// message naming the field.
template <int D>
absl::StatusOr<RayCastInput<D>> MakeRayCastInput(Vec<D> origin,
                                                 Vec<D> translation,
                                                 float max_fraction = 1.0f) {
  RayCastInput<D> input{origin, translation, max_fraction};
  if (absl::Status status = ValidateRayCast(input); !status.ok()) {
    return status;
  }
  return input;
}
template <int D>
absl::StatusOr<BoxCastInput<D>> MakeBoxCastInput(const Aabb<D>& box,
                                                 Vec<D> translation,
                                                 float max_fraction = 1.0f) {
  BoxCastInput<D> input{box, translation, max_fraction};
  if (absl::Status status = ValidateBoxCast(input); !status.ok()) {
    return status;
  }
  return input;
}

// A segment prepared for many slab tests.
template <int D>
class Segment {
 public:
  Segment(Vec<D> origin, Vec<D> translation) : origin_(origin) {
    for (int i = 0; i < D; ++i) {
      const float d = translation[i];
      parallel_[i] = std::fabs(d) < kParallelEpsilon;
      inv_[i] = parallel_[i] ? 0.0f : 1.0f / d;
      lo_[i] = std::min(origin[i], origin[i] + d);
      hi_[i] = std::max(origin[i], origin[i] + d);
    }
  }

  // True when the segment meets [min - grow, max + grow] for a fraction in
  // [0, max_fraction]; `entry` is then the first such fraction.
  bool Hits(const Aabb<D>& box, const Vec<D>& grow, float max_fraction,
            float* entry) const {
    float t0 = 0.0f;
    float t1 = max_fraction;
    for (int i = 0; i < D; ++i) {
      const float lo = box.min[i] - grow[i];
      const float hi = box.max[i] + grow[i];
      if (parallel_[i]) {
        if (hi_[i] < lo || lo_[i] > hi) {
          return false;
        }
        continue;
      }
      float ta = (lo - origin_[i]) * inv_[i];
      float tb = (hi - origin_[i]) * inv_[i];
      if (inv_[i] < 0.0f) {
        std::swap(ta, tb);
      }
      t0 = std::max(t0, ta);
      t1 = std::min(t1, tb);
      if (t0 > t1) {
        return false;
      }
    }
    *entry = t0;
    return true;
  }

 private:
  Vec<D> origin_;
  Vec<D> inv_;
  Vec<D> lo_;  // The whole segment's extent, for parallel axes.
  Vec<D> hi_;
  bool parallel_[D];
};

// A ray (a segment with no parallel axis) prepared for many slab tests: the
// same test as Segment::Hits with grow = 0, with the reciprocal of the
// translation precomputed (Williams et al., "An Efficient and Robust
// Ray-Box Intersection Algorithm", JGT 2005) and no branch: on each axis
// the entry is min(ta, tb) and the exit max(ta, tb), which is Segment's
// swap (ta <= tb exactly when the reciprocal is positive, the products
// being monotone in the plane coordinate). The fractions are bitwise those
// of Segment::Hits (the same operations on the same values, max and min in
// the same order), so both find the same boxes with the same entries.
template <int D>
class RaySlabs {
 public:
  // True when no component of `translation` is below kParallelEpsilon in
  // magnitude (Segment::Hits' parallel case).
  static bool Applies(const Vec<D>& translation) {
    for (int i = 0; i < D; ++i) {
      if (std::fabs(translation[i]) < kParallelEpsilon) return false;
    }
    return true;
  }

  // No component of `translation` below kClampedComponent in magnitude
  // (Applies, the stricter test, makes Hits bitwise Segment::Hits).
  RaySlabs(Vec<D> origin, Vec<D> translation) : origin_(origin) {
    for (int i = 0; i < D; ++i) inv_[i] = 1.0f / translation[i];
  }

  // For any translation: a component below kClampedComponent in magnitude
  // is taken as kClampedComponent with its sign, so no reciprocal is
  // infinite and no product 0 * inf arises. For a unit direction the drift
  // this adds, t x 1e-20 at distance t, stays below the rounding of the
  // coordinates the core accepts (kMaxQueryCoordinate).
  static constexpr float kClampedComponent = 1e-20f;
  static RaySlabs Clamped(Vec<D> origin, Vec<D> translation) {
    std::uint32_t clamped = 0;
    for (int i = 0; i < D; ++i) {
      if (translation[i] == 0.0f) clamped |= 1u << i;
      if (std::fabs(translation[i]) < kClampedComponent) {
        translation[i] = std::copysign(kClampedComponent, translation[i]);
      }
    }
    RaySlabs slabs(origin, translation);
    slabs.clamped_axes_ = clamped;
    return slabs;
  }

  // True when the segment meets `box` for a fraction in [0, max_fraction];
  // `entry` is then the first such fraction.
  [[gnu::always_inline]] bool Hits(const Aabb<D>& box, float max_fraction,
                                   float* entry) const {
    float t0 = 0.0f;
    float t1 = max_fraction;
    for (int i = 0; i < D; ++i) {
      const float ta = (box.min[i] - origin_[i]) * inv_[i];
      const float tb = (box.max[i] - origin_[i]) * inv_[i];
      t0 = std::max(t0, std::min(ta, tb));
      t1 = std::min(t1, std::max(ta, tb));
    }
    *entry = t0;
    return t0 <= t1;
  }

  // The relative slack of HitsConservative's exit: 2 gamma(3), gamma(n) =
  // n u / (1 - n u) with u = 2^-24 rounded up (Ize 2013; numerics.md,
  // "kConservativeSlack").
  static constexpr float kGamma3 = 3.0f * 6e-8f / (1.0f - 3.0f * 6e-8f);
  static constexpr float kConservativeSlack = 2.0f * kGamma3;

  // Hits, accepting also a box the segment misses by no more than the
  // rounding of the slab products (Ize, "Robust BVH Ray Traversal", JCGT
  // 2(2), 2013: the exit fraction scaled up by 1 + 2 gamma(3)), so that a
  // ray through a box's edge or corner is never culled: a tree over a
  // triangle mesh then loses no triangle the watertight triangle test hits.
  // Written t0 - t1 <= 2 gamma(3) t1, so that a max_fraction near FLT_MAX
  // cannot overflow. An axis whose component Clamped found exactly zero is
  // parallel: its slab holds the whole segment when the origin lies in it,
  // boundary included, and none of it otherwise.
  [[gnu::always_inline]] bool HitsConservative(const Aabb<D>& box,
                                               float max_fraction,
                                               float* entry) const {
    if (clamped_axes_ != 0) [[unlikely]] {
      return HitsConservativeWithParallelAxes(box, max_fraction, entry);
    }
    float t0 = 0.0f;
    float t1 = max_fraction;
    for (int i = 0; i < D; ++i) {
      const float ta = (box.min[i] - origin_[i]) * inv_[i];
      const float tb = (box.max[i] - origin_[i]) * inv_[i];
      t0 = std::max(t0, std::min(ta, tb));
      t1 = std::min(t1, std::max(ta, tb));
    }
    *entry = t0;
    return t0 - t1 <= t1 * kConservativeSlack;
  }

  [[nodiscard]] const Vec<D>& origin() const { return origin_; }
  [[nodiscard]] const Vec<D>& inverse() const { return inv_; }

 private:
  bool HitsConservativeWithParallelAxes(const Aabb<D>& box, float max_fraction,
                                        float* entry) const {
    float t0 = 0.0f;
    float t1 = max_fraction;
    *entry = 0.0f;
    for (int i = 0; i < D; ++i) {
      if ((clamped_axes_ >> i) & 1u) {
        if (origin_[i] < box.min[i] || origin_[i] > box.max[i]) return false;
        continue;
      }
      const float ta = (box.min[i] - origin_[i]) * inv_[i];
      const float tb = (box.max[i] - origin_[i]) * inv_[i];
      t0 = std::max(t0, std::min(ta, tb));
      t1 = std::min(t1, std::max(ta, tb));
    }
    *entry = t0;
    return t0 - t1 <= t1 * kConservativeSlack;
  }

  Vec<D> origin_;
  Vec<D> inv_;
  std::uint32_t clamped_axes_ = 0;  // Bit i: Clamped found axis i zero.
};

// Both trees implement RayCast and BoxCast on one nearest-first Cast over a
// leaf callback (proxy, clipped max fraction) -> new max fraction. These turn
// a caller's RayCast / BoxCast visitor into that callback by handing it the
// input clipped to the current max fraction.
template <int D, typename Visitor>
auto ClippedRayVisitor(const RayCastInput<D>& input, Visitor& visitor) {
  return [&input, &visitor](std::uint32_t proxy, float max_fraction) -> float {
    const RayCastInput<D> clipped{input.origin, input.translation,
                                  max_fraction};
    return visitor(proxy, clipped);
  };
}

template <int D, typename Visitor>
auto ClippedBoxVisitor(const BoxCastInput<D>& input, Visitor& visitor) {
  return [&input, &visitor](std::uint32_t proxy, float max_fraction) -> float {
    BoxCastInput<D> clipped = input;
    clipped.max_fraction = max_fraction;
    return visitor(proxy, clipped);
  };
}

}  // namespace sator::broadphase

#endif  // SATOR_CORE_BROADPHASE_CASTS_H_
