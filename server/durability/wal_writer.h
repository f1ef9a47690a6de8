// The write-ahead log's writer: appends records to segment files in the data
// directory and returns only once they are on disk, with group commit.
//
// Group commit (leader/follower): an appender encodes its record into the
// pending batch under the mutex and takes the next sequence number (LSN). If
// no flush is running it becomes the leader: it takes the whole pending
// batch, writes it with one write(2) and one fdatasync(2) outside the mutex,
// then wakes every appender whose record that batch covered. Appenders that
// arrive during a flush wait on a condition variable and go out together in
// the next batch, so N concurrent writers cost about one fsync per batch
// rather than N. std::mutex and std::condition_variable (not absl::Mutex) so
// ThreadSanitizer sees the locking (docs/DESIGN.md).
//
// Segments are named wal-<first LSN, 20 digits>.log and begin with the
// header of record_format.h. A writer always starts a new segment (it never
// appends after a possibly torn tail); it moves to a new segment when the
// current one exceeds `segment_bytes` and when asked (Rotate, before a
// snapshot, so that older segments can be deleted once the snapshot is
// written).
//
// A failed write or fsync is sticky: the appenders of that batch and every
// later one get the error, because what reached the disk is unknown.
#ifndef SATOR_SERVER_DURABILITY_WAL_WRITER_H_
#define SATOR_SERVER_DURABILITY_WAL_WRITER_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "server/durability/durability_stats.h"
#include "server/durability/record_format.h"

namespace sator::server::durability {

// "wal-00000000000000000042.log" for 42, and back (false if not such a name).
std::string WalSegmentName(std::uint64_t first_lsn);
bool ParseWalSegmentName(absl::string_view name, std::uint64_t* first_lsn);

struct WalWriterOptions {
  // A new segment starts once the current one holds this many bytes.
  std::uint64_t segment_bytes = 64u << 20;
};

class WalWriter {
 public:
  // Starts a new segment in `dir` whose first record will be `next_lsn`
  // (1 or more).
  static absl::StatusOr<std::unique_ptr<WalWriter>> Open(
      const std::string& dir, std::uint64_t next_lsn,
      const WalWriterOptions& options = {});

  ~WalWriter();
  WalWriter(const WalWriter&) = delete;
  WalWriter& operator=(const WalWriter&) = delete;

  // Appends one record and returns its LSN once it is on disk. Thread-safe.
  absl::StatusOr<std::uint64_t> Append(RecordType type,
                                       absl::string_view payload);

  // Flushes what is pending and starts a new segment; returns its first LSN
  // (every record appended from now on has at least that LSN).
  absl::StatusOr<std::uint64_t> Rotate();

  // The LSN of the newest record appended (0 if none ever was).
  std::uint64_t last_lsn() const;

  // Counters, for tests and metrics: records appended and fdatasync calls.
  std::uint64_t records_written() const;
  std::uint64_t syncs() const;
  // Every counter, and the flush latencies (a copy; never waits for I/O).
  WalStats stats() const;

 private:
  WalWriter(std::string dir, std::uint64_t next_lsn,
            const WalWriterOptions& options);

  // Closes the current segment (if any) and creates the one starting at
  // `first_lsn`. Called with the mutex held and no flush running.
  absl::Status StartSegmentLocked(std::uint64_t first_lsn);
  // Writes and syncs the pending batch, as leader. Called with `lock` held;
  // releases it during the I/O.
  void FlushAsLeader(std::unique_lock<std::mutex>& lock);
  // Returns once nothing is pending nor being flushed (or the log failed).
  void FlushAllLocked(std::unique_lock<std::mutex>& lock);

  const std::string dir_;
  const WalWriterOptions options_;

  mutable std::mutex mutex_;
  std::condition_variable flushed_;
  std::string pending_;        // Encoded records not yet written.
  std::uint64_t next_lsn_;     // The LSN the next Append gets.
  std::uint64_t durable_lsn_;  // Every record up to this one is on disk.
  bool flushing_ = false;      // A leader is writing outside the mutex.
  absl::Status failure_;       // Sticky error of a failed write or sync.
  int fd_ = -1;
  std::string segment_path_;
  std::uint64_t segment_size_ = 0;
  WalStats stats_;
};

}  // namespace sator::server::durability

#endif  // SATOR_SERVER_DURABILITY_WAL_WRITER_H_
