// Snapshot files: atomic streaming writer and whole-file checking reader
// (see snapshot_file.h).
#include "server/durability/snapshot_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/durability/file_io.h"
#include "server/durability/record_format.h"

namespace sator::server::durability {
namespace {

constexpr absl::string_view kPrefix = "snapshot-";
constexpr absl::string_view kSuffix = ".snap";

std::string EncodeCount(std::uint64_t count) {
  std::string bytes;
  for (int i = 0; i < 8; ++i) {
    bytes.push_back(static_cast<char>((count >> (8 * i)) & 0xFFu));
  }
  return bytes;
}

bool DecodeCount(absl::string_view bytes, std::uint64_t* count) {
  if (bytes.size() != 8) return false;
  *count = 0;
  for (int i = 7; i >= 0; --i) {
    *count = (*count << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return true;
}

std::string TemporaryPath(const std::string& dir, std::uint64_t lsn) {
  return absl::StrCat(dir, "/", SnapshotFileName(lsn), ".tmp");
}

}  // namespace

std::string SnapshotFileName(std::uint64_t lsn) {
  return absl::StrFormat("snapshot-%020d.snap", lsn);
}

bool ParseSnapshotFileName(absl::string_view name, std::uint64_t* lsn) {
  if (!absl::StartsWith(name, kPrefix) || !absl::EndsWith(name, kSuffix)) {
    return false;
  }
  name.remove_prefix(kPrefix.size());
  name.remove_suffix(kSuffix.size());
  if (name.size() != 20) return false;
  for (char c : name) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleAtoi(name, lsn);
}

SnapshotFileWriter::SnapshotFileWriter(std::string dir, std::uint64_t lsn,
                                       std::uint64_t scene_count, int fd)
    : dir_(std::move(dir)), lsn_(lsn), scene_count_(scene_count), fd_(fd) {}

SnapshotFileWriter::~SnapshotFileWriter() {
  if (fd_ >= 0) close(fd_);
  if (!committed_) unlink(TemporaryPath(dir_, lsn_).c_str());
}

absl::StatusOr<std::unique_ptr<SnapshotFileWriter>> SnapshotFileWriter::Create(
    const std::string& dir, std::uint64_t lsn, std::uint64_t scene_count) {
  const std::string path = TemporaryPath(dir, lsn);
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("open", path, errno);
  std::unique_ptr<SnapshotFileWriter> writer(
      new SnapshotFileWriter(dir, lsn, scene_count, fd));
  std::string start = EncodeFileHeader(FileKind::kSnapshot);
  AppendRecord(&start, RecordType::kSnapshotBegin, lsn,
               EncodeCount(scene_count));
  if (absl::Status status = writer->Write(start); !status.ok()) return status;
  return writer;
}

absl::Status SnapshotFileWriter::Write(absl::string_view bytes) {
  return WriteAll(fd_, bytes, TemporaryPath(dir_, lsn_));
}

absl::Status SnapshotFileWriter::AddScene(absl::string_view serialized_scene) {
  if (serialized_scene.size() > kMaxRecordPayloadBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a scene's snapshot of ", serialized_scene.size(),
                     " bytes is over the limit of ", kMaxRecordPayloadBytes));
  }
  std::string record;
  AppendRecord(&record, RecordType::kSnapshotScene, lsn_, serialized_scene);
  ++scenes_added_;
  return Write(record);
}

absl::Status SnapshotFileWriter::Commit() {
  if (scenes_added_ != scene_count_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "snapshot announced ", scene_count_, " scenes, got ", scenes_added_));
  }
  std::string end;
  AppendRecord(&end, RecordType::kSnapshotEnd, lsn_, EncodeCount(scene_count_));
  const std::string temporary = TemporaryPath(dir_, lsn_);
  if (absl::Status status = Write(end); !status.ok()) return status;
  if (fsync(fd_) != 0) return ErrnoStatus("fsync", temporary, errno);
  close(fd_);
  fd_ = -1;
  const std::string path = absl::StrCat(dir_, "/", SnapshotFileName(lsn_));
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    return ErrnoStatus("rename", temporary, errno);
  }
  committed_ = true;
  return SyncDirectory(dir_);
}

absl::StatusOr<SnapshotContents> ReadSnapshotFile(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  if (absl::Status header = CheckFileHeader(*bytes, FileKind::kSnapshot);
      !header.ok()) {
    return header;
  }
  SnapshotContents contents;
  std::uint64_t announced = 0;
  int begins = 0;
  int ends = 0;
  bool damaged = false;
  bool out_of_order = false;
  std::uint64_t first_lsn = 0;
  bool lsn_mismatch = false;
  const absl::string_view records =
      absl::string_view(*bytes).substr(kFileHeaderBytes);
  ParseRecords(
      records,
      [&](const Record& record) {
        if (begins == 0 && ends == 0 && contents.scenes.empty()) {
          first_lsn = record.lsn;
        } else if (record.lsn != first_lsn) {
          lsn_mismatch = true;
        }
        switch (record.type) {
          case RecordType::kSnapshotBegin:
            if (begins++ != 0 || !DecodeCount(record.payload, &announced)) {
              out_of_order = true;
            }
            break;
          case RecordType::kSnapshotScene:
            if (begins != 1 || ends != 0) out_of_order = true;
            contents.scenes.emplace_back(record.payload);
            break;
          case RecordType::kSnapshotEnd: {
            std::uint64_t count = 0;
            if (begins != 1 || ends++ != 0 ||
                !DecodeCount(record.payload, &count) || count != announced) {
              out_of_order = true;
            }
            break;
          }
          default:
            out_of_order = true;
        }
      },
      [&](const DamagedRegion&) { damaged = true; });
  if (damaged) return absl::DataLossError("snapshot: damaged records");
  if (out_of_order || begins != 1 || ends != 1 ||
      contents.scenes.size() != announced) {
    return absl::DataLossError(absl::StrCat(
        "snapshot: incomplete or inconsistent (", begins, " begin, ",
        contents.scenes.size(), " of ", announced, " scenes, ", ends, " end)"));
  }
  if (lsn_mismatch) return absl::DataLossError("snapshot: mixed LSNs");
  contents.lsn = first_lsn;
  return contents;
}

}  // namespace sator::server::durability
