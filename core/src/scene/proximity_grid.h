// A uniform grid over the bodies of one tick, for the proximity pass
// (Ericson, "Real-Time Collision Detection", 2005, 7.1: uniform grids).
//
// Each body lies in the one cell that holds its position. A counting sort by
// cell, x fastest, makes the bodies of each row of cells one contiguous run.
// A body can count for a probe only when its position lies within its
// `reach` (ProximityBody::reach) of the probe's region, so a query widens
// the region by the largest reach in the grid and visits the runs of the
// rows it covers: every body that can count is visited, none twice. Cell
// indices come from one monotone function of the coordinate, for bodies and
// query bounds alike, so rounding cannot put a body outside the cells of a
// region that holds it (docs/core/numerics.md, kGridSlack).
#ifndef SATOR_CORE_SRC_SCENE_PROXIMITY_GRID_H_
#define SATOR_CORE_SRC_SCENE_PROXIMITY_GRID_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "sator/core/scene/scene_types.h"
#include "sator/core/vec.h"

namespace sator::scene::internal {

// A body of the newest tick: what the proximity pass reads, gathered once
// per tick.
template <int D>
struct ProximityBody {
  std::uint64_t id = 0;
  std::uint64_t group_id = 0;
  std::uint64_t layer = 0;
  std::uint64_t mask = 0;
  Vec<D> position{};
  float radius = 0.0f;  // BodyRecord::radius: the shape lies in this ball.
  // The body's shares of a round probe's distance bounds
  // (proximity_pass.cc): apart beyond the probe's reach + round_reach,
  // overlapping within the probe's inside + inside_reach.
  double round_reach = 0.0;
  double inside_reach = 0.0;
  // No probe counts the body unless the probe's region, widened by this
  // along every axis, holds its position.
  double reach = 0.0;
  std::uint32_t slot = 0;
  MotionType motion = MotionType::kStatic;
};

// The relative widening of a query region (docs/core/numerics.md).
inline constexpr double kGridSlack = 1e-9;
// At most this many cells per body: the side doubles until the grid fits.
inline constexpr std::int64_t kMaxCellsPerBody = 4;

template <int D>
class ProximityGrid {
 public:
  using Point = std::array<double, D>;

  // Sorts `bodies` into cells of side `cell` (> 0; doubled until there are
  // at most kMaxCellsPerBody cells a body, plus 64). The runs of ForEachRun are
  // positions in that order; Body(k) is the index into `bodies` at
  // position k.
  void Build(std::span<const ProximityBody<D>> bodies, double cell);

  // Calls visit(first, last) for each non-empty run [first, last) of
  // positions whose cells meet the box [lo, hi] widened by the largest
  // reach in the grid.
  template <typename Visit>
  void ForEachRun(const Point& lo, const Point& hi, Visit&& visit) const;

  // The index of the cell that holds `point` (clamped to the grid): an
  // order of queries that visits nearby cells one after another.
  [[nodiscard]] std::int64_t CellIndex(const Point& point) const {
    std::int64_t index = 0;
    for (int i = 0; i < D; ++i) index += CellOf(i, point[i]) * strides_[i];
    return index;
  }

  [[nodiscard]] std::uint32_t Body(std::uint32_t position) const {
    return order_[position];
  }
  // The bodies' coordinates along `axis` and their round reaches, by
  // position, side by side for the distance test over a run.
  [[nodiscard]] const float* Coordinates(int axis) const {
    return coordinates_[axis].data();
  }
  [[nodiscard]] const double* RoundReaches() const {
    return round_reaches_.data();
  }

 private:
  // The cell of coordinate x along `axis`, clamped to the grid.
  [[nodiscard]] std::int64_t CellOf(int axis, double x) const {
    const double t = (x - min_[axis]) * inverse_cell_;
    if (!(t > 0.0)) return 0;
    const auto last = static_cast<double>(dims_[axis] - 1);
    return t >= last ? dims_[axis] - 1 : static_cast<std::int64_t>(t);
  }

  Point min_{};
  Point max_{};
  double inverse_cell_ = 0.0;
  double max_reach_ = 0.0;
  std::array<std::int64_t, D> dims_{};
  std::array<std::int64_t, D> strides_{};
  std::vector<std::uint32_t> first_;    // Cells + 1 entries.
  std::vector<std::uint32_t> cell_of_;  // By input body.
  std::vector<std::uint32_t> order_;    // By position: the input body.
  std::array<std::vector<float>, D> coordinates_;
  std::vector<double> round_reaches_;
};

template <int D>
template <typename Visit>
void ProximityGrid<D>::ForEachRun(const Point& lo, const Point& hi,
                                  Visit&& visit) const {
  if (first_.empty()) return;
  std::array<std::int64_t, D> low{};
  std::array<std::int64_t, D> high{};
  for (int i = 0; i < D; ++i) {
    const double widen =
        max_reach_ +
        kGridSlack * (std::abs(lo[i]) + std::abs(hi[i]) + max_reach_);
    const double from = lo[i] - widen;
    const double to = hi[i] + widen;
    if (to < min_[i] || from > max_[i]) return;
    low[i] = CellOf(i, from);
    high[i] = CellOf(i, to);
  }
  // Rows: every combination of the cells of axes 1..D-1 (an odometer);
  // along axis 0 a row's cells are one run.
  std::array<std::int64_t, D> at = low;
  for (;;) {
    std::int64_t base = 0;
    for (int i = 1; i < D; ++i) base += at[i] * strides_[i];
    const std::uint32_t first = first_[base + low[0]];
    const std::uint32_t last = first_[base + high[0] + 1];
    if (first != last) visit(first, last);
    int axis = 1;
    for (; axis < D; ++axis) {
      if (++at[axis] <= high[axis]) break;
      at[axis] = low[axis];
    }
    if (axis == D) return;
  }
}

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_PROXIMITY_GRID_H_
