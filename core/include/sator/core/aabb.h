// Axis-aligned bounding boxes, one template for both dimensions.
#ifndef SATOR_CORE_AABB_H_
#define SATOR_CORE_AABB_H_

#include "sator/core/vec.h"

namespace sator {

template <int D>
struct Aabb {
  Vec<D> min;
  Vec<D> max;
};

using Aabb2 = Aabb<2>;
using Aabb3 = Aabb<3>;

// Closed intervals: boxes that share a face overlap.
template <int D>
constexpr bool Overlaps(const Aabb<D>& a, const Aabb<D>& b) {
  for (int i = 0; i < D; ++i) {
    if (a.max[i] < b.min[i] || b.max[i] < a.min[i]) return false;
  }
  return true;
}

template <int D>
constexpr bool Contains(const Aabb<D>& outer, const Aabb<D>& inner) {
  for (int i = 0; i < D; ++i) {
    if (inner.min[i] < outer.min[i] || inner.max[i] > outer.max[i]) {
      return false;
    }
  }
  return true;
}

template <int D>
constexpr bool Contains(const Aabb<D>& box, Vec<D> point) {
  for (int i = 0; i < D; ++i) {
    if (point[i] < box.min[i] || point[i] > box.max[i]) return false;
  }
  return true;
}

template <int D>
constexpr Aabb<D> Union(const Aabb<D>& a, const Aabb<D>& b) {
  return {Min(a.min, b.min), Max(a.max, b.max)};
}

// Grows the box by `margin` on every side.
template <int D>
constexpr Aabb<D> Inflate(const Aabb<D>& box, float margin) {
  Aabb<D> out = box;
  for (int i = 0; i < D; ++i) {
    out.min[i] -= margin;
    out.max[i] += margin;
  }
  return out;
}

// The box swept along `displacement`: the union of the box at its start and
// at its end.
template <int D>
constexpr Aabb<D> Sweep(const Aabb<D>& box, Vec<D> displacement) {
  return Union(box, Aabb<D>{box.min + displacement, box.max + displacement});
}

template <int D>
constexpr Vec<D> Center(const Aabb<D>& box) {
  return 0.5f * (box.min + box.max);
}

template <int D>
constexpr Vec<D> HalfExtents(const Aabb<D>& box) {
  return 0.5f * (box.max - box.min);
}

// The surface-area heuristic's cost measure: the perimeter in 2D and the
// surface area in 3D (MacDonald and Booth 1990).
template <int D>
constexpr float SurfaceMeasure(const Aabb<D>& box) {
  const Vec<D> e = box.max - box.min;
  if constexpr (D == 2) {
    return 2.0f * (e.x + e.y);
  } else {
    return 2.0f * (e.x * e.y + e.y * e.z + e.z * e.x);
  }
}

template <int D>
inline bool IsValid(const Aabb<D>& box) {
  if (!IsFinite(box.min) || !IsFinite(box.max)) return false;
  for (int i = 0; i < D; ++i) {
    if (box.min[i] > box.max[i]) return false;
  }
  return true;
}

}  // namespace sator

#endif  // SATOR_CORE_AABB_H_
