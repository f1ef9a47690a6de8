#include "server/durability/durability_stats.h"

#include <algorithm>
#include <cstddef>

namespace sator::server::durability {

void DurationHistogram::Observe(double seconds) {
  // The first bound >= seconds (Prometheus' `le`), or the +Inf bucket.
  const auto bound =
      std::lower_bound(kBoundsSeconds.begin(), kBoundsSeconds.end(), seconds);
  ++counts_[static_cast<std::size_t>(bound - kBoundsSeconds.begin())];
  ++count_;
  sum_seconds_ += seconds;
}

}  // namespace sator::server::durability
