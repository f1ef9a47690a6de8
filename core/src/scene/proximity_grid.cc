// ProximityGrid's build: the bounds of the positions, the cell side, and a
// counting sort of the bodies by cell (proximity_grid.h).
#include "scene/proximity_grid.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sator::scene::internal {

template <int D>
void ProximityGrid<D>::Build(std::span<const ProximityBody<D>> bodies,
                             double cell) {
  first_.clear();
  if (bodies.empty()) return;
  for (int i = 0; i < D; ++i) {
    min_[i] = max_[i] = bodies[0].position[i];
  }
  max_reach_ = 0.0;
  for (const ProximityBody<D>& body : bodies) {
    for (int i = 0; i < D; ++i) {
      min_[i] = std::min(min_[i], static_cast<double>(body.position[i]));
      max_[i] = std::max(max_[i], static_cast<double>(body.position[i]));
    }
    max_reach_ = std::max(max_reach_, body.reach);
  }
  // At most kMaxCellsPerBody cells a body, and 64 more so that a handful
  // of bodies still gets a few cells. A side that is not a positive number
  // (no caller passes one) falls back to 1.
  const double limit = static_cast<double>(kMaxCellsPerBody) *
                           static_cast<double>(bodies.size()) +
                       64.0;
  if (!(cell > 0.0)) cell = 1.0;
  std::int64_t cells = 1;
  for (;;) {
    inverse_cell_ = 1.0 / cell;
    double count = 1.0;
    for (int i = 0; i < D; ++i) {
      count *= std::floor((max_[i] - min_[i]) * inverse_cell_) + 1.0;
    }
    if (count <= limit) break;
    cell *= 2.0;
  }
  for (int i = 0; i < D; ++i) {
    dims_[i] = static_cast<std::int64_t>(
                   std::floor((max_[i] - min_[i]) * inverse_cell_)) +
               1;
    strides_[i] = cells;
    cells *= dims_[i];
  }

  // Counting sort: first_[c + 1] counts cell c, then the prefix sums make
  // first_[c] the start of cell c.
  first_.assign(static_cast<std::size_t>(cells) + 1, 0);
  cell_of_.resize(bodies.size());
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    std::int64_t index = 0;
    for (int i = 0; i < D; ++i) {
      index += CellOf(i, bodies[b].position[i]) * strides_[i];
    }
    cell_of_[b] = static_cast<std::uint32_t>(index);
    ++first_[cell_of_[b] + 1];
  }
  for (std::size_t c = 1; c < first_.size(); ++c) first_[c] += first_[c - 1];
  order_.resize(bodies.size());
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    order_[first_[cell_of_[b]]++] = static_cast<std::uint32_t>(b);
  }
  // Each first_[c] now holds the end of cell c: shift back by one cell.
  for (std::size_t c = first_.size() - 1; c > 0; --c) first_[c] = first_[c - 1];
  first_[0] = 0;
  for (int i = 0; i < D; ++i) {
    coordinates_[i].resize(bodies.size());
    for (std::size_t k = 0; k < bodies.size(); ++k) {
      coordinates_[i][k] = bodies[order_[k]].position[i];
    }
  }
  round_reaches_.resize(bodies.size());
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    round_reaches_[k] = bodies[order_[k]].round_reach;
  }
}

template class ProximityGrid<2>;
template class ProximityGrid<3>;

}  // namespace sator::scene::internal
