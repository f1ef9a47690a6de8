#include "tools/sator-bench/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sator::bench {

int LatencyHistogram::BucketOf(std::int64_t nanoseconds) {
  const std::uint64_t value =
      static_cast<std::uint64_t>(std::clamp<std::int64_t>(
          nanoseconds, 0, (std::int64_t{1} << kMaxExponent) - 1));
  if (value < (std::uint64_t{1} << kSubBucketBits)) {
    return static_cast<int>(value);
  }
  // value in [2^e, 2^(e+1)) with e >= kSubBucketBits: keep its top
  // kSubBucketBits bits; the leading one is implicit.
  const int exponent = static_cast<int>(std::bit_width(value)) - 1;
  const int shift = exponent - (kSubBucketBits - 1);
  const int sub = static_cast<int>(value >> shift) - kHalf;  // [0, kHalf)
  return (1 << kSubBucketBits) + (exponent - kSubBucketBits) * kHalf + sub;
}

std::int64_t LatencyHistogram::UpperEdge(int bucket) {
  if (bucket < (1 << kSubBucketBits)) return bucket;
  const int offset = bucket - (1 << kSubBucketBits);
  const int exponent = kSubBucketBits + offset / kHalf;
  const int sub = offset % kHalf;
  const int shift = exponent - (kSubBucketBits - 1);
  return ((static_cast<std::int64_t>(kHalf + sub + 1)) << shift) - 1;
}

void LatencyHistogram::Record(std::int64_t nanoseconds) {
  nanoseconds = std::max<std::int64_t>(nanoseconds, 0);
  ++counts_[static_cast<std::size_t>(BucketOf(nanoseconds))];
  ++count_;
  max_ = std::max(max_, nanoseconds);
  sum_ += static_cast<double>(nanoseconds);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    counts_[i] += other.counts_[i];
  }
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_);
}

std::int64_t LatencyHistogram::ValueAtQuantile(double quantile) const {
  if (count_ == 0) return 0;
  quantile = std::clamp(quantile, 0.0, 1.0);
  // The rank of the value wanted, 1-based: at least 1.
  const auto rank = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(
             std::ceil(quantile * static_cast<double>(count_))));
  std::int64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      return std::min(UpperEdge(static_cast<int>(i)), max_);
    }
  }
  return max_;
}

}  // namespace sator::bench
