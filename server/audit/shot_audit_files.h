// The audit trail on disk: every scene's shot verdicts appended to rotating
// JSON Lines files under --data_dir (satord --shot_audit_files=N).
//
// One writer thread follows each scene's ShotAuditRing from its own cursor,
// as a WatchShotVerdicts subscriber does, so recording a verdict never waits
// for the disk: the query only appends to the ring and wakes the writer. A
// writer that falls a whole ring behind (the disk slower than the verdicts)
// skips to the oldest record kept and writes a gap line saying how many it
// missed, counted in sator_shot_audit_file_dropped_total. Each line is one
// WatchShotVerdictsResponse in protobuf's JSON form with the .proto field
// names, the lines `satorctl shots watch` prints: a record, or a gap.
//
// Layout: <directory>/scene-<scene id>/<8-digit number>.jsonl. A file is
// closed, fsynced and followed by the next number once it would pass
// max_file_bytes; beyond max_files per scene the oldest file is removed. A
// restarted satord starts a new file after the highest number present
// (sequence numbers start again at 1 with each run; recorded_unix_micros
// orders records across runs). Lines reach the kernel as they are written
// and are fsynced at each rotation and at shutdown: a machine crash can lose
// the lines of the open file since its last sync, a satord crash cannot.
// Write errors are counted (sator_shot_audit_file_errors_total) and logged
// once per file; the writer then goes on with the next records.
#ifndef SATOR_SERVER_AUDIT_SHOT_AUDIT_FILES_H_
#define SATOR_SERVER_AUDIT_SHOT_AUDIT_FILES_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/audit/shot_audit_ring.h"

namespace sator::server {

struct ShotAuditFileOptions {
  std::string directory;
  // A file is rotated before a line would take it past this size.
  std::int64_t max_file_bytes = std::int64_t{64} << 20;
  // Files kept per scene, the open one included (>= 1).
  int max_files = 8;
};

class ShotAuditFiles {
 public:
  // Creates `options.directory` if missing. INVALID_ARGUMENT for options
  // out of range; the error of the directory's creation.
  static absl::StatusOr<std::unique_ptr<ShotAuditFiles>> Open(
      ShotAuditFileOptions options);
  // Stop()s.
  ~ShotAuditFiles();
  ShotAuditFiles(const ShotAuditFiles&) = delete;
  ShotAuditFiles& operator=(const ShotAuditFiles&) = delete;

  // Writes `ring`'s records, from the oldest it holds, to the scene's files
  // from now on. A scene followed again (deleted and created anew) goes on
  // in new files.
  void Follow(const std::string& scene_id, std::shared_ptr<ShotAuditRing> ring);
  // Stops following the scene once what its ring holds is written.
  void Forget(const std::string& scene_id);

  // Starts the writer thread.
  void Start();
  // Writes every record recorded so far, syncs the open files and stops the
  // writer thread. Idempotent.
  void Stop();

  // One pass of the writer: every record (and gap) the followed rings hold
  // past their cursors, written. Returns the lines written. The writer
  // thread runs this when woken; tests call it without starting the thread.
  std::uint64_t WriteAvailable();

  std::uint64_t lines_written() const {
    return lines_written_.load(std::memory_order_relaxed);
  }
  std::uint64_t dropped() const {
    return dropped_.load(std::memory_order_relaxed);
  }
  std::uint64_t write_errors() const {
    return write_errors_.load(std::memory_order_relaxed);
  }

 private:
  // Shared with the rings' subscribers, which may outlive this object.
  struct WakeState {
    std::mutex mu;
    std::condition_variable cv;
    bool pending = false;  // Guarded by mu.
    bool stop = false;     // Guarded by mu.
  };
  class Waker;
  struct Followed {
    std::shared_ptr<ShotAuditRing> ring;
    std::shared_ptr<Waker> waker;
    std::uint64_t cursor = 1;
    bool forgotten = false;
    // The open file (-1: none yet), its number and size.
    int fd = -1;
    std::int64_t file_number = 0;
    std::int64_t file_bytes = 0;
    bool error_logged = false;
  };

  explicit ShotAuditFiles(ShotAuditFileOptions options);
  void Run();
  // Appends `line` (with its newline) to the scene's files, rotating first
  // when it would pass max_file_bytes.
  void WriteLine(const std::string& scene_id, Followed& followed,
                 const std::string& line);
  absl::Status OpenNextFile(const std::string& scene_id, Followed& followed);
  void CloseFile(Followed& followed);
  void CountError(const std::string& scene_id, Followed& followed,
                  const absl::Status& status);

  const ShotAuditFileOptions options_;
  const std::shared_ptr<WakeState> wake_ = std::make_shared<WakeState>();
  // Follow and Forget only queue their change here (they run on query and
  // scene threads, which must not wait for the disk); the writer applies
  // the changes in order at the start of each pass.
  struct Change {
    std::string scene_id;
    std::shared_ptr<ShotAuditRing> ring;  // Null: forget.
  };
  std::mutex changes_mu_;
  std::vector<Change> changes_;  // Guarded by changes_mu_.
  // Held for a whole pass of WriteAvailable.
  std::mutex write_mu_;
  std::map<std::string, Followed> scenes_;  // Guarded by write_mu_.
  std::thread writer_;
  std::atomic<std::uint64_t> lines_written_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> write_errors_{0};
};

}  // namespace sator::server

#endif  // SATOR_SERVER_AUDIT_SHOT_AUDIT_FILES_H_
