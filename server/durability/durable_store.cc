// The data directory: recovery, logging under the mutation/snapshot
// exclusion, snapshots and compaction (see durable_store.h).
#include "server/durability/durable_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/durability/file_io.h"
#include "server/durability/snapshot_file.h"
#include "server/logging.h"

namespace sator::server::durability {
namespace {

constexpr char kLockFileName[] = "LOCK";

std::int64_t AsInt(std::uint64_t value) {
  return static_cast<std::int64_t>(value);
}

std::string EncodeU64(std::uint64_t value) {
  std::string bytes;
  for (int i = 0; i < 8; ++i) {
    bytes.push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
  }
  return bytes;
}

bool DecodeU64(absl::string_view bytes, std::uint64_t* value) {
  if (bytes.size() != 8) return false;
  *value = 0;
  for (int i = 7; i >= 0; --i) {
    *value = (*value << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return true;
}

struct NamedFile {
  std::uint64_t lsn;
  std::string name;
};

// The files of `names` that parse with `parse`, in LSN order.
std::vector<NamedFile> Select(const std::vector<std::string>& names,
                              bool (*parse)(absl::string_view,
                                            std::uint64_t*)) {
  std::vector<NamedFile> files;
  for (const std::string& name : names) {
    std::uint64_t lsn = 0;
    if (parse(name, &lsn)) files.push_back({lsn, name});
  }
  std::sort(
      files.begin(), files.end(),
      [](const NamedFile& a, const NamedFile& b) { return a.lsn < b.lsn; });
  return files;
}

// FAILED_PRECONDITION for a file of a format version this build cannot read
// (refusing to start is better than skipping and later compacting it away);
// OK otherwise, including damaged headers (their records are still tried).
absl::Status CheckVersion(absl::string_view bytes, FileKind kind,
                          const std::string& path) {
  absl::Status header = CheckFileHeader(bytes, kind);
  if (absl::StrContains(header.message(), "version")) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": ", header.message(), "; written by another satord version?"));
  }
  return absl::OkStatus();
}

}  // namespace

DurableStore::DurableStore(DurableStoreOptions options, int lock_fd)
    : options_(std::move(options)), lock_fd_(lock_fd) {}

DurableStore::~DurableStore() {
  wal_.reset();
  if (lock_fd_ >= 0) close(lock_fd_);  // Also releases the flock.
}

absl::StatusOr<std::unique_ptr<DurableStore>> DurableStore::Open(
    const DurableStoreOptions& options, const SceneHandler& on_scene,
    const RecordHandler& on_record, RecoveryReport* report) {
  if (options.dir.empty()) {
    return absl::InvalidArgumentError("data directory: empty path");
  }
  if (options.snapshots_kept < 1) {
    return absl::InvalidArgumentError("snapshots_kept must be at least 1");
  }
  if (absl::Status made = MakeDirectories(options.dir); !made.ok()) {
    return made;
  }
  const std::string lock_path = absl::StrCat(options.dir, "/", kLockFileName);
  const int lock_fd =
      open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) return ErrnoStatus("open", lock_path, errno);
  if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    const int error_number = errno;
    close(lock_fd);
    if (error_number == EWOULDBLOCK) {
      return absl::FailedPreconditionError(absl::StrCat(
          "data directory ", options.dir, " is in use by another process"));
    }
    return ErrnoStatus("flock", lock_path, error_number);
  }
  std::unique_ptr<DurableStore> store(new DurableStore(options, lock_fd));
  RecoveryReport local_report;
  if (report == nullptr) report = &local_report;
  if (absl::Status recovered = store->Recover(on_scene, on_record, report);
      !recovered.ok()) {
    return recovered;
  }
  absl::StatusOr<std::unique_ptr<WalWriter>> wal =
      WalWriter::Open(options.dir, report->next_lsn, options.wal);
  if (!wal.ok()) return wal.status();
  store->wal_ = *std::move(wal);
  return store;
}

absl::Status DurableStore::Recover(const SceneHandler& on_scene,
                                   const RecordHandler& on_record,
                                   RecoveryReport* report) {
  const std::string& dir = options_.dir;
  absl::StatusOr<std::vector<std::string>> names = ListFiles(dir);
  if (!names.ok()) return names.status();
  // Leftovers of snapshots that never committed.
  for (const std::string& name : *names) {
    if (absl::EndsWith(name, ".tmp")) {
      unlink(absl::StrCat(dir, "/", name).c_str());
    }
  }

  // The newest snapshot that is whole.
  std::vector<NamedFile> snapshots = Select(*names, &ParseSnapshotFileName);
  std::reverse(snapshots.begin(), snapshots.end());  // Newest first.
  std::uint64_t snapshot_lsn = 0;
  for (const NamedFile& snapshot : snapshots) {
    const std::string path = absl::StrCat(dir, "/", snapshot.name);
    absl::StatusOr<std::string> bytes = ReadWholeFile(path);
    if (bytes.ok()) {
      if (absl::Status version =
              CheckVersion(*bytes, FileKind::kSnapshot, path);
          !version.ok()) {
        return version;
      }
    }
    absl::StatusOr<SnapshotContents> contents = ReadSnapshotFile(path);
    if (!contents.ok() || contents->lsn != snapshot.lsn) {
      ++report->snapshots_rejected;
      Log(LogLevel::kError, "snapshot_rejected",
          {{"path", path},
           {"error", contents.ok() ? absl::string_view("LSN differs from name")
                                   : contents.status().message()}});
      continue;
    }
    report->snapshot_found = true;
    snapshot_lsn = contents->lsn;
    for (const std::string& scene : contents->scenes) {
      if (absl::Status applied = on_scene(scene); applied.ok()) {
        ++report->scenes_restored;
      } else {
        ++report->scenes_failed;
        Log(LogLevel::kError, "snapshot_scene_failed",
            {{"path", path}, {"error", applied.message()}});
      }
    }
    break;
  }
  report->snapshot_lsn = snapshot_lsn;

  // The highest LSN a file name vouches for (see "Continuity" in
  // durable_store.h): every snapshot's, damaged ones included, and every
  // segment's first LSN minus one.
  const std::vector<NamedFile> segments = Select(*names, &ParseWalSegmentName);
  std::uint64_t named_lsn = 0;
  std::string named_by;
  for (const NamedFile& snapshot : snapshots) {
    if (snapshot.lsn > named_lsn) {
      named_lsn = snapshot.lsn;
      named_by = snapshot.name;
    }
  }
  for (const NamedFile& segment : segments) {
    if (segment.lsn > 0 && segment.lsn - 1 > named_lsn) {
      named_lsn = segment.lsn - 1;
      named_by = segment.name;
    }
  }
  // The next LSN recovery expects; records below it are in the snapshot or
  // already replayed.
  std::uint64_t expected = snapshot_lsn + 1;
  auto gap = [&](std::uint64_t first, std::uint64_t last, const char* reason,
                 const std::string& file) {
    LogGap found{first, last, reason, file};
    report->records_lost += found.records();
    Log(LogLevel::kError, "wal_gap",
        {{"first_lsn", AsInt(first)},
         {"last_lsn", AsInt(last)},
         {"records", AsInt(found.records())},
         {"reason", reason},
         {"file", file}});
    report->gaps.push_back(std::move(found));
  };

  // The log after it, in LSN order. A record the handler refuses is
  // reported at the end unless a kRefused record says it was refused when
  // first applied too.
  struct Refusal {
    std::string path;
    RecordType type;
    std::string error;
  };
  std::map<std::uint64_t, Refusal> unexplained;
  std::uint64_t last_lsn = snapshot_lsn;  // Newest LSN applied or covered.
  std::uint64_t max_lsn_seen = snapshot_lsn;
  for (const NamedFile& segment : segments) {
    const std::string path = absl::StrCat(dir, "/", segment.name);
    // Its first record is segment.lsn: what comes before it must all have
    // been found already (or be in the snapshot).
    if (segment.lsn > expected) {
      gap(expected, segment.lsn - 1, "before_segment", segment.name);
      expected = segment.lsn;
    }
    absl::StatusOr<std::string> bytes = ReadWholeFile(path);
    if (!bytes.ok()) return bytes.status();
    ++report->segments_read;
    if (absl::Status version =
            CheckVersion(*bytes, FileKind::kWalSegment, path);
        !version.ok()) {
      return version;
    }
    absl::string_view records(*bytes);
    if (absl::Status header = CheckFileHeader(records, FileKind::kWalSegment);
        !header.ok()) {
      // The records are checksummed on their own: try them anyway.
      Log(LogLevel::kWarning, "wal_segment_bad_header",
          {{"path", path}, {"error", header.message()}});
    }
    records.remove_prefix(std::min(records.size(), kFileHeaderBytes));
    const ParseStats stats = ParseRecords(
        records,
        [&](const Record& record) {
          max_lsn_seen = std::max(max_lsn_seen, record.lsn);
          if (record.lsn <= snapshot_lsn) return;  // In the snapshot.
          const bool mutation = static_cast<int>(record.type) <
                                static_cast<int>(RecordType::kSnapshotBegin);
          if (record.lsn <= last_lsn || !mutation) {
            ++report->records_skipped;
            Log(LogLevel::kWarning, "wal_record_skipped",
                {{"path", path},
                 {"offset", AsInt(kFileHeaderBytes + record.offset)},
                 {"lsn", AsInt(record.lsn)},
                 {"type", RecordTypeName(record.type)},
                 {"reason", mutation ? "out of order" : "not a mutation"}});
            return;
          }
          last_lsn = record.lsn;
          if (record.lsn > expected) {
            gap(expected, record.lsn - 1, "inside_segment", segment.name);
          }
          expected = record.lsn + 1;
          if (record.type == RecordType::kRefused) {
            std::uint64_t refused = 0;
            if (DecodeU64(record.payload, &refused) &&
                unexplained.erase(refused) == 1) {
              ++report->records_refused;
            } else {
              Log(LogLevel::kWarning, "wal_refusal_unmatched",
                  {{"path", path},
                   {"lsn", AsInt(record.lsn)},
                   {"refused_lsn", AsInt(refused)}});
            }
            return;
          }
          if (absl::Status applied = on_record(record.type, record.payload);
              applied.ok()) {
            ++report->records_replayed;
          } else {
            unexplained[record.lsn] =
                Refusal{path, record.type, std::string(applied.message())};
          }
        },
        [&](const DamagedRegion& damage) {
          Log(LogLevel::kWarning, "wal_damaged_region_skipped",
              {{"path", path},
               {"offset", AsInt(kFileHeaderBytes + damage.offset)},
               {"bytes", AsInt(damage.bytes)},
               {"at_tail", damage.at_tail}});
        });
    report->damaged_regions += stats.damaged_regions;
    report->damaged_bytes += stats.damaged_bytes;
  }
  // The log must reach every LSN a snapshot's name vouches for.
  if (named_lsn >= expected) gap(expected, named_lsn, "after_log", named_by);
  for (const auto& [lsn, refusal] : unexplained) {
    ++report->records_failed;
    Log(LogLevel::kError, "wal_replay_failed",
        {{"path", refusal.path},
         {"lsn", AsInt(lsn)},
         {"type", RecordTypeName(refusal.type)},
         {"error", refusal.error}});
  }
  // Past every LSN found or named, so a new record never takes the number
  // of a lost one.
  report->next_lsn = std::max(max_lsn_seen, named_lsn) + 1;
  Log(LogLevel::kInfo, "recovered",
      {{"data_dir", dir},
       {"snapshot_lsn", AsInt(snapshot_lsn)},
       {"scenes_restored", AsInt(report->scenes_restored)},
       {"scenes_failed", AsInt(report->scenes_failed)},
       {"records_replayed", AsInt(report->records_replayed)},
       {"records_failed", AsInt(report->records_failed)},
       {"records_refused", AsInt(report->records_refused)},
       {"records_skipped", AsInt(report->records_skipped)},
       {"damaged_regions", AsInt(report->damaged_regions)},
       {"damaged_bytes", AsInt(report->damaged_bytes)},
       {"records_lost", AsInt(report->records_lost)},
       {"log_gaps", AsInt(report->gaps.size())},
       {"next_lsn", AsInt(report->next_lsn)}});
  return absl::OkStatus();
}

DurableStore::MutationScope::MutationScope(DurableStore& store)
    : store_(store) {
  store_.EnterMutation();
}

DurableStore::MutationScope::~MutationScope() { store_.ExitMutation(); }

void DurableStore::EnterMutation() {
  std::unique_lock<std::mutex> lock(barrier_mutex_);
  barrier_changed_.wait(lock, [this] { return !capture_pending_; });
  ++active_mutations_;
}

void DurableStore::ExitMutation() {
  std::lock_guard<std::mutex> lock(barrier_mutex_);
  if (--active_mutations_ == 0) barrier_changed_.notify_all();
}

absl::StatusOr<std::uint64_t> DurableStore::LogMutation(
    RecordType type, absl::string_view payload) {
  return wal_->Append(type, payload);
}

absl::Status DurableStore::LogRefusal(std::uint64_t lsn) {
  return wal_->Append(RecordType::kRefused, EncodeU64(lsn)).status();
}

std::uint64_t DurableStore::snapshots_written() const {
  return snapshots_written_.load();
}

absl::Status DurableStore::WriteSnapshot(const Capture& capture) {
  std::lock_guard<std::mutex> one_at_a_time(snapshot_mutex_);
  const auto started = std::chrono::steady_clock::now();
  std::uint64_t scene_bytes = 0;
  absl::Status written = WriteSnapshotFile(capture, &scene_bytes);
  const std::chrono::duration<double> took =
      std::chrono::steady_clock::now() - started;
  {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    if (written.ok()) {
      ++snapshot_stats_.written;
      snapshot_stats_.last_bytes = scene_bytes;
      snapshot_stats_.last_written_unix_seconds =
          absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
      snapshot_stats_.seconds.Observe(took.count());
    } else {
      ++snapshot_stats_.failed;
    }
  }
  if (!written.ok()) return written;
  return Compact();
}

SnapshotStats DurableStore::snapshot_stats() const {
  std::lock_guard<std::mutex> lock(stats_mutex_);
  return snapshot_stats_;
}

absl::Status DurableStore::WriteSnapshotFile(const Capture& capture,
                                             std::uint64_t* scene_bytes) {
  std::uint64_t lsn = 0;
  std::vector<SceneSerializer> scenes;
  absl::Status rotated;
  {
    std::unique_lock<std::mutex> lock(barrier_mutex_);
    capture_pending_ = true;
    barrier_changed_.wait(lock, [this] { return active_mutations_ == 0; });
    lsn = wal_->last_lsn();
    // Later records go to a new segment, so the older ones can be deleted
    // once this snapshot is on disk.
    rotated = wal_->Rotate().status();
    if (rotated.ok()) scenes = capture();
    capture_pending_ = false;
    barrier_changed_.notify_all();
  }
  if (!rotated.ok()) return rotated;

  absl::StatusOr<std::unique_ptr<SnapshotFileWriter>> file =
      SnapshotFileWriter::Create(options_.dir, lsn, scenes.size());
  if (!file.ok()) return file.status();
  for (const SceneSerializer& serialize : scenes) {
    absl::StatusOr<std::string> serialized = serialize();
    if (!serialized.ok()) return serialized.status();
    *scene_bytes += serialized->size();
    if (absl::Status added = (*file)->AddScene(*serialized); !added.ok()) {
      return added;
    }
  }
  if (absl::Status committed = (*file)->Commit(); !committed.ok()) {
    return committed;
  }
  snapshots_written_.fetch_add(1);
  Log(LogLevel::kInfo, "snapshot_written",
      {{"lsn", AsInt(lsn)}, {"scenes", AsInt(scenes.size())}});
  return absl::OkStatus();
}

absl::Status DurableStore::Compact() {
  absl::StatusOr<std::vector<std::string>> names = ListFiles(options_.dir);
  if (!names.ok()) return names.status();
  const std::vector<NamedFile> snapshots =
      Select(*names, &ParseSnapshotFileName);
  const auto kept = static_cast<std::size_t>(options_.snapshots_kept);
  if (snapshots.empty()) return absl::OkStatus();
  const std::size_t first_kept =
      snapshots.size() > kept ? snapshots.size() - kept : 0;
  for (std::size_t i = 0; i < first_kept; ++i) {
    unlink(absl::StrCat(options_.dir, "/", snapshots[i].name).c_str());
  }
  // A segment's records all precede the next segment's first LSN.
  const std::uint64_t oldest_kept = snapshots[first_kept].lsn;
  const std::vector<NamedFile> segments = Select(*names, &ParseWalSegmentName);
  std::size_t deleted = 0;
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    if (segments[i + 1].lsn <= oldest_kept + 1) {
      unlink(absl::StrCat(options_.dir, "/", segments[i].name).c_str());
      ++deleted;
    }
  }
  if (first_kept > 0 || deleted > 0) {
    Log(LogLevel::kDebug, "compacted",
        {{"snapshots_deleted", AsInt(first_kept)},
         {"segments_deleted", AsInt(deleted)}});
    return SyncDirectory(options_.dir);
  }
  return absl::OkStatus();
}

}  // namespace sator::server::durability
