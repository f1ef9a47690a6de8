// The data directory of a satord run with --data_dir: write-ahead log,
// snapshots, recovery and compaction, independent of gRPC and of the scene
// types (payloads are serialized sator.v1 messages; the caller applies them).
//
// Layout of the directory (docs/OPERATIONS.md):
//   LOCK                                   flock(2)ed while a satord uses it
//   wal-<first LSN>.log                    log segments (wal_writer.h)
//   snapshot-<LSN>.snap                    snapshots (snapshot_file.h)
//
// Consistency between the log and snapshots: every logged mutation runs
// inside a MutationScope (log, then apply; a kRefused record if the apply
// failed), and a snapshot captures the
// scenes while no scope is open, so the snapshot at LSN S contains exactly
// the mutations with LSN <= S. Recovery = the newest valid snapshot, then the
// log records with LSN > S, in LSN order. Scenes are captured cheaply under
// the exclusion (the core hands out immutable snapshots) and serialized and
// written after it, so mutations wait only for the capture, not the I/O.
//
// Continuity: LSNs are dense (every Append takes the next one), a segment's
// name is the LSN of its first record, and a snapshot's name (and each of
// its records) the LSN of the last record it holds. So after the snapshot at
// S, recovery expects S + 1, S + 2, ... without a hole up to the highest LSN
// any name vouches for: a segment named F says records up to F - 1 existed,
// a snapshot named N (even a damaged one, passed over) that records up to N
// did. Every hole is a LogGap in the report (and a wal_gap log line); the
// caller decides whether to start (satord refuses without
// --allow_recovery_loss). What no name vouches for cannot be missed: the
// newest segment cut short at a record boundary, or deleted with nothing
// written after it (docs/OPERATIONS.md).
//
// Compaction: after a snapshot is written, snapshots older than the newest
// `snapshots_kept` are deleted, and so are the log segments whose records
// all precede the oldest snapshot kept, so recovery can fall back to the
// older snapshot if the newest one is damaged.
#ifndef SATOR_SERVER_DURABILITY_DURABLE_STORE_H_
#define SATOR_SERVER_DURABILITY_DURABLE_STORE_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "server/durability/durability_stats.h"
#include "server/durability/record_format.h"
#include "server/durability/wal_writer.h"

namespace sator::server::durability {

struct DurableStoreOptions {
  std::string dir;
  WalWriterOptions wal;
  // Snapshots kept after a new one is written (at least 1).
  int snapshots_kept = 2;
};

// A stretch of log sequence numbers that recovery should have found and did
// not: records acknowledged once and now missing.
struct LogGap {
  std::uint64_t first_lsn = 0;
  std::uint64_t last_lsn = 0;  // Inclusive.
  // What showed the gap: "before_segment" (a segment starts after the last
  // record found before it: a segment missing or the one before cut short),
  // "inside_segment" (a record's LSN jumps past the next expected one: a
  // record spliced out or damaged), "after_log" (the log ends before an LSN
  // a snapshot's name vouches for).
  std::string reason;
  std::string file;  // The file whose name or records showed it.
  std::uint64_t records() const { return last_lsn - first_lsn + 1; }
};

// What recovery found and did; every count is also logged.
struct RecoveryReport {
  bool snapshot_found = false;
  std::uint64_t snapshot_lsn = 0;
  std::size_t snapshots_rejected = 0;  // Damaged newer snapshots passed over.
  std::size_t scenes_restored = 0;
  std::size_t scenes_failed = 0;
  std::size_t records_replayed = 0;
  std::size_t records_failed = 0;   // Refused on replay, not originally.
  std::size_t records_refused = 0;  // Refused on replay as originally.
  std::size_t records_skipped = 0;  // Out of order or of a snapshot type.
  std::size_t damaged_regions = 0;  // Torn or corrupt stretches skipped.
  std::size_t damaged_bytes = 0;
  std::size_t segments_read = 0;
  // LSNs after the snapshot that some file vouches for but no record holds
  // (the sum of the gaps' sizes), and the gaps, in LSN order.
  std::uint64_t records_lost = 0;
  std::vector<LogGap> gaps;
  std::uint64_t next_lsn = 1;
};

class DurableStore {
 public:
  // Applies one scene of the snapshot / one log record during recovery.
  using SceneHandler = std::function<absl::Status(absl::string_view)>;
  using RecordHandler =
      std::function<absl::Status(RecordType, absl::string_view)>;

  // Creates `options.dir` if needed, takes its lock (FAILED_PRECONDITION if
  // another process holds it), recovers through the handlers (a handler's
  // error is logged and counted, never fatal) and starts a new log segment.
  // Fails only for I/O errors and for files of an unknown format version.
  static absl::StatusOr<std::unique_ptr<DurableStore>> Open(
      const DurableStoreOptions& options, const SceneHandler& on_scene,
      const RecordHandler& on_record, RecoveryReport* report = nullptr);

  ~DurableStore();
  DurableStore(const DurableStore&) = delete;
  DurableStore& operator=(const DurableStore&) = delete;

  // Held around logging a mutation and applying it (RAII). Snapshots wait
  // for open scopes to close; new scopes wait while a snapshot captures.
  class MutationScope {
   public:
    explicit MutationScope(DurableStore& store);
    ~MutationScope();
    MutationScope(const MutationScope&) = delete;
    MutationScope& operator=(const MutationScope&) = delete;

   private:
    DurableStore& store_;
  };

  // Appends one record and returns its LSN once it is on disk (group
  // commit). Call inside a MutationScope, before applying the mutation.
  absl::StatusOr<std::uint64_t> LogMutation(RecordType type,
                                            absl::string_view payload);
  // Records that the mutation logged at `lsn` was refused when applied, so
  // that recovery expects its refusal instead of reporting it. Call in the
  // same MutationScope.
  absl::Status LogRefusal(std::uint64_t lsn);

  // Produces one scene's serialized sator.v1.SceneSnapshot; called after
  // the exclusion ends.
  using SceneSerializer = std::function<absl::StatusOr<std::string>()>;
  // Returns a serializer per hosted scene; called with no mutation in
  // progress, so it must only take cheap references.
  using Capture = std::function<std::vector<SceneSerializer>()>;

  // Writes a snapshot of what `capture` returns, then compacts. One at a
  // time (concurrent calls queue).
  absl::Status WriteSnapshot(const Capture& capture);

  const std::string& dir() const { return options_.dir; }
  WalWriter& wal() { return *wal_; }
  const WalWriter& wal() const { return *wal_; }
  std::uint64_t snapshots_written() const;
  // Snapshot counters and durations (a copy; never waits for a snapshot in
  // progress).
  SnapshotStats snapshot_stats() const;

 private:
  DurableStore(DurableStoreOptions options, int lock_fd);
  absl::Status Recover(const SceneHandler& on_scene,
                       const RecordHandler& on_record, RecoveryReport* report);
  // WriteSnapshot without the compaction and the statistics; adds the
  // serialized scenes' sizes to `scene_bytes`.
  absl::Status WriteSnapshotFile(const Capture& capture,
                                 std::uint64_t* scene_bytes);
  absl::Status Compact();

  void EnterMutation();
  void ExitMutation();

  const DurableStoreOptions options_;
  const int lock_fd_;
  std::unique_ptr<WalWriter> wal_;

  // The mutation/snapshot exclusion: writers (snapshots) take precedence so
  // a steady stream of mutations cannot starve a snapshot.
  std::mutex barrier_mutex_;
  std::condition_variable barrier_changed_;
  int active_mutations_ = 0;
  bool capture_pending_ = false;

  std::mutex snapshot_mutex_;  // One WriteSnapshot at a time.
  std::atomic<std::uint64_t> snapshots_written_{0};
  mutable std::mutex stats_mutex_;  // Guards snapshot_stats_ only.
  SnapshotStats snapshot_stats_;
};

}  // namespace sator::server::durability

#endif  // SATOR_SERVER_DURABILITY_DURABLE_STORE_H_
