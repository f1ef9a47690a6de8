// The inputs and outputs of pair queries, shared by the 2D and 3D cores.
//
// Frames and units: every point and vector in a result is in the world frame
// (the frame the caller's poses are given in), lengths are in the caller's
// length unit, fractions are of the query's full motion.
#ifndef SATOR_CORE_QUERY_TYPES_H_
#define SATOR_CORE_QUERY_TYPES_H_

#include <array>
#include <cstdint>

#include "sator/core/vec.h"

namespace sator {

// The most contact points an MTV query reports: an edge lying flat on an edge
// gives two points in 2D; a face on a face is reduced to four in 3D.
template <int D>
inline constexpr int kMaxContactPoints = D == 2 ? 2 : 4;

// The answer to "by how much do A and B overlap?" (the minimum translation
// vector) or, for separated shapes, "how far apart are they along the best
// separating axis?".
template <int D>
struct ContactResult {
  // True when the shapes overlap or touch (depth >= -tolerance; see the
  // core's documented tolerance).
  bool overlapping = false;
  // Unit vector from A towards B. Translating B by normal * depth (or A by
  // -normal * depth) separates the shapes.
  Vec<D> normal{};
  // Penetration depth along `normal`: positive when overlapping; when
  // separated, minus the gap along the best separating axis (which is a lower
  // bound on the true distance).
  float depth = 0.0f;
  // Contact points, midway between the two surfaces; valid only when
  // overlapping.
  int point_count = 0;
  std::array<Vec<D>, kMaxContactPoints<D>> points{};
};

enum class SweepOutcome : std::uint8_t {
  kMiss,               // The shapes never touch for t in [0, 1].
  kHit,                // They first touch at `fraction`.
  kStartedOverlapping  // They overlap at t = 0; see `initial`.
};

// The first time of impact of two shapes moving linearly without rotating.
template <int D>
struct SweepResult {
  SweepOutcome outcome = SweepOutcome::kMiss;
  // Time of impact in [0, 1] as a fraction of the motion; valid for kHit.
  float fraction = 1.0f;
  // Unit contact normal at impact, from A towards B; valid for kHit.
  Vec<D> normal{};
  // A contact point at impact, world frame; valid for kHit.
  Vec<D> point{};
  // The MTV at t = 0; valid for kStartedOverlapping.
  ContactResult<D> initial{};
};

template <int D>
struct Ray {
  Vec<D> origin{};
  // Unit length.
  Vec<D> direction{};
  float max_distance = 0.0f;
};

template <int D>
struct RayResult {
  bool hit = false;
  // The origin is inside the shape: distance is 0, point is the origin and
  // normal is zero (there is no surface to report).
  bool started_inside = false;
  // Distance along the ray to the first surface point, in [0, max_distance].
  float distance = 0.0f;
  Vec<D> point{};
  // Unit outward surface normal at `point`.
  Vec<D> normal{};
  // The shape's feature that was hit (an edge or face index), or -1.
  std::int32_t feature = -1;
};

}  // namespace sator

#endif  // SATOR_CORE_QUERY_TYPES_H_
