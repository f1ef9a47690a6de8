// Snapshot files: every hosted scene at one point of the write-ahead log.
//
// snapshot-<LSN, 20 digits>.snap holds the state after every log record up
// to LSN and none after it. Its records (record_format.h framing, each
// carrying the snapshot's LSN): kSnapshotBegin (scene count), one
// kSnapshotScene per scene (a serialized sator.v1.SceneSnapshot), and
// kSnapshotEnd (the count again). A file is valid only whole: header,
// begin, exactly `count` scenes, end, no damaged byte; recovery falls back
// to an older snapshot otherwise.
//
// Written atomically: a .tmp file beside the final name, streamed record by
// record, fsync, rename, fsync of the directory. A crash at any point leaves
// either no new snapshot or the whole new one.
#ifndef SATOR_SERVER_DURABILITY_SNAPSHOT_FILE_H_
#define SATOR_SERVER_DURABILITY_SNAPSHOT_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sator::server::durability {

std::string SnapshotFileName(std::uint64_t lsn);
bool ParseSnapshotFileName(absl::string_view name, std::uint64_t* lsn);

class SnapshotFileWriter {
 public:
  // Creates <dir>/snapshot-<lsn>.snap.tmp; `scene_count` scenes must follow.
  static absl::StatusOr<std::unique_ptr<SnapshotFileWriter>> Create(
      const std::string& dir, std::uint64_t lsn, std::uint64_t scene_count);

  // Removes the temporary file unless Commit succeeded.
  ~SnapshotFileWriter();
  SnapshotFileWriter(const SnapshotFileWriter&) = delete;
  SnapshotFileWriter& operator=(const SnapshotFileWriter&) = delete;

  absl::Status AddScene(absl::string_view serialized_scene);

  // Ends the file, fsyncs it, renames it to its final name and fsyncs the
  // directory. FAILED_PRECONDITION if fewer or more scenes were added than
  // announced.
  absl::Status Commit();

 private:
  SnapshotFileWriter(std::string dir, std::uint64_t lsn,
                     std::uint64_t scene_count, int fd);
  absl::Status Write(absl::string_view bytes);

  const std::string dir_;
  const std::uint64_t lsn_;
  const std::uint64_t scene_count_;
  std::uint64_t scenes_added_ = 0;
  int fd_;
  bool committed_ = false;
};

struct SnapshotContents {
  std::uint64_t lsn = 0;
  std::vector<std::string> scenes;  // Serialized sator.v1.SceneSnapshot.
};

// Reads and checks a whole snapshot file: DATA_LOSS naming what is wrong for
// any damage or inconsistency.
absl::StatusOr<SnapshotContents> ReadSnapshotFile(const std::string& path);

}  // namespace sator::server::durability

#endif  // SATOR_SERVER_DURABILITY_SNAPSHOT_FILE_H_
