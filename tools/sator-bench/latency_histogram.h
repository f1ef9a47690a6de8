// A latency histogram in the style of HdrHistogram (Gil Tene): log-linear
// buckets, so every recorded value is kept with a bounded relative error
// whatever its magnitude, in fixed memory, and histograms merge by addition.
//
// Layout: values are nanoseconds. Values below 2^kSubBucketBits fall in
// exact unit-wide buckets; above, each power-of-two range [2^k, 2^(k+1)) is
// split into 2^(kSubBucketBits-1) equal sub-buckets, so a bucket is at most
// 2^-(kSubBucketBits-1) of its value wide: 1/64, about 1.6%, for 7 bits.
// A percentile reports the upper edge of the bucket that holds it (never an
// under-estimate).
#ifndef SATOR_TOOLS_SATOR_BENCH_LATENCY_HISTOGRAM_H_
#define SATOR_TOOLS_SATOR_BENCH_LATENCY_HISTOGRAM_H_

#include <array>
#include <cstdint>

namespace sator::bench {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 7;
  // Values up to 2^kMaxExponent ns (about 137 s); larger ones are clamped.
  static constexpr int kMaxExponent = 37;

  void Record(std::int64_t nanoseconds);
  void Merge(const LatencyHistogram& other);

  std::int64_t count() const { return count_; }
  std::int64_t max() const { return max_; }
  double mean() const;
  // The smallest bucket upper edge below or at which `quantile` (in [0, 1])
  // of the recorded values lie. 0 for an empty histogram.
  std::int64_t ValueAtQuantile(double quantile) const;

  // Bucket index of a value and the largest value a bucket holds (exposed
  // for tests).
  static int BucketOf(std::int64_t nanoseconds);
  static std::int64_t UpperEdge(int bucket);

 private:
  static constexpr int kHalf = 1 << (kSubBucketBits - 1);
  static constexpr int kBuckets =
      (1 << kSubBucketBits) + (kMaxExponent - kSubBucketBits + 1) * kHalf;

  std::array<std::int64_t, kBuckets> counts_{};
  std::int64_t count_ = 0;
  std::int64_t max_ = 0;
  double sum_ = 0.0;
};

}  // namespace sator::bench

#endif  // SATOR_TOOLS_SATOR_BENCH_LATENCY_HISTOGRAM_H_
