// What the data directory has done, for metrics (server/metrics/
// durability_metrics.h turns it into sator_wal_* and sator_snapshot_*
// series). Plain values: the writers fill them under locks they already
// hold, and readers get copies, so a scrape never waits for disk I/O.
#ifndef SATOR_SERVER_DURABILITY_DURABILITY_STATS_H_
#define SATOR_SERVER_DURABILITY_DURABILITY_STATS_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace sator::server::durability {

// A histogram of durations over fixed bounds (seconds), from 100 µs (an
// fdatasync on a fast SSD) to 10 s (a large snapshot on a slow disk). Counts
// are per bucket, not cumulative; the last one is above every bound (+Inf).
// Not thread-safe: the owner serialises Observe.
class DurationHistogram {
 public:
  static constexpr std::array<double, 16> kBoundsSeconds = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
      0.05,   0.1,     0.25,   0.5,   1.0,    2.5,   5.0,  10.0};

  void Observe(double seconds);

  // counts()[i] for kBoundsSeconds[i] (exclusive of lower buckets);
  // counts()[kBoundsSeconds.size()] above the last bound.
  const std::array<std::uint64_t, kBoundsSeconds.size() + 1>& counts() const {
    return counts_;
  }
  std::uint64_t count() const { return count_; }
  double sum_seconds() const { return sum_seconds_; }

 private:
  std::array<std::uint64_t, kBoundsSeconds.size() + 1> counts_{};
  std::uint64_t count_ = 0;
  double sum_seconds_ = 0;
};

// The write-ahead log writer's totals since it opened.
struct WalStats {
  std::uint64_t records = 0;  // Records appended (acknowledged or failed).
  std::uint64_t bytes = 0;    // Bytes written to segments, headers included.
  std::uint64_t syncs = 0;    // Group-commit flushes: one write + fdatasync.
  DurationHistogram sync_seconds;  // Each flush's write + fdatasync.
  bool failed = false;             // A write or sync failed (sticky).
};

// Snapshots written by this process.
struct SnapshotStats {
  std::uint64_t written = 0;
  std::uint64_t failed = 0;
  // Of the newest snapshot written: its serialized scene bytes and the wall
  // time (Unix seconds) it was committed; 0 before the first.
  std::uint64_t last_bytes = 0;
  double last_written_unix_seconds = 0;
  DurationHistogram seconds;  // Capture to commit, successful ones only.
};

}  // namespace sator::server::durability

#endif  // SATOR_SERVER_DURABILITY_DURABILITY_STATS_H_
