// The write-ahead log's writer with group commit (see wal_writer.h).
#include "server/durability/wal_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/durability/file_io.h"

namespace sator::server::durability {
namespace {

constexpr absl::string_view kSegmentPrefix = "wal-";
constexpr absl::string_view kSegmentSuffix = ".log";

}  // namespace

std::string WalSegmentName(std::uint64_t first_lsn) {
  return absl::StrFormat("wal-%020d.log", first_lsn);
}

bool ParseWalSegmentName(absl::string_view name, std::uint64_t* first_lsn) {
  if (!absl::StartsWith(name, kSegmentPrefix) ||
      !absl::EndsWith(name, kSegmentSuffix)) {
    return false;
  }
  name.remove_prefix(kSegmentPrefix.size());
  name.remove_suffix(kSegmentSuffix.size());
  if (name.size() != 20) return false;
  for (char c : name) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleAtoi(name, first_lsn);
}

WalWriter::WalWriter(std::string dir, std::uint64_t next_lsn,
                     const WalWriterOptions& options)
    : dir_(std::move(dir)),
      options_(options),
      next_lsn_(next_lsn),
      durable_lsn_(next_lsn - 1) {}

WalWriter::~WalWriter() {
  std::unique_lock<std::mutex> lock(mutex_);
  FlushAllLocked(lock);
  if (fd_ >= 0) close(fd_);
}

void WalWriter::FlushAllLocked(std::unique_lock<std::mutex>& lock) {
  while (true) {
    flushed_.wait(lock, [this] { return !flushing_; });
    if (pending_.empty() || !failure_.ok()) return;
    FlushAsLeader(lock);
  }
}

absl::StatusOr<std::unique_ptr<WalWriter>> WalWriter::Open(
    const std::string& dir, std::uint64_t next_lsn,
    const WalWriterOptions& options) {
  if (next_lsn == 0) return absl::InvalidArgumentError("next_lsn must be >= 1");
  std::unique_ptr<WalWriter> writer(new WalWriter(dir, next_lsn, options));
  std::unique_lock<std::mutex> lock(writer->mutex_);
  if (absl::Status status = writer->StartSegmentLocked(next_lsn);
      !status.ok()) {
    return status;
  }
  lock.unlock();
  return writer;
}

absl::Status WalWriter::StartSegmentLocked(std::uint64_t first_lsn) {
  const std::string path = absl::StrCat(dir_, "/", WalSegmentName(first_lsn));
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("open", path, errno);
  const std::string header = EncodeFileHeader(FileKind::kWalSegment);
  absl::Status status = WriteAll(fd, header, path);
  if (status.ok() && fdatasync(fd) != 0) {
    status = ErrnoStatus("fdatasync", path, errno);
  }
  if (status.ok()) status = SyncDirectory(dir_);
  if (!status.ok()) {
    close(fd);
    return status;
  }
  stats_.bytes += header.size();
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
  segment_path_ = path;
  segment_size_ = header.size();
  return absl::OkStatus();
}

void WalWriter::FlushAsLeader(std::unique_lock<std::mutex>& lock) {
  flushing_ = true;
  std::string batch;
  batch.swap(pending_);
  const std::uint64_t batch_last_lsn = next_lsn_ - 1;
  const int fd = fd_;
  const std::string path = segment_path_;
  lock.unlock();
  const auto started = std::chrono::steady_clock::now();
  absl::Status status = WriteAll(fd, batch, path);
  // Bytes count once written (in the file, even if the sync below fails); a
  // failed write is not counted, so the counter never exceeds the files.
  const bool written = status.ok();
  if (status.ok() && fdatasync(fd) != 0) {
    status = ErrnoStatus("fdatasync", path, errno);
  }
  const std::chrono::duration<double> took =
      std::chrono::steady_clock::now() - started;
  lock.lock();
  ++stats_.syncs;
  stats_.sync_seconds.Observe(took.count());
  if (written) stats_.bytes += batch.size();
  segment_size_ += batch.size();
  if (status.ok()) {
    durable_lsn_ = batch_last_lsn;
    if (segment_size_ >= options_.segment_bytes) {
      // The pending batch (records after batch_last_lsn) goes to the new
      // segment, so its name is its first record's LSN.
      status = StartSegmentLocked(batch_last_lsn + 1);
    }
  }
  if (!status.ok() && failure_.ok()) failure_ = status;
  stats_.failed = !failure_.ok();
  flushing_ = false;
  flushed_.notify_all();
}

absl::StatusOr<std::uint64_t> WalWriter::Append(RecordType type,
                                                absl::string_view payload) {
  if (payload.size() > kMaxRecordPayloadBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("log record of ", payload.size(),
                     " bytes is over the limit of ", kMaxRecordPayloadBytes));
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (!failure_.ok()) return failure_;
  const std::uint64_t lsn = next_lsn_++;
  AppendRecord(&pending_, type, lsn, payload);
  ++stats_.records;
  while (durable_lsn_ < lsn && failure_.ok()) {
    if (flushing_) {
      flushed_.wait(lock);
    } else {
      FlushAsLeader(lock);
    }
  }
  if (durable_lsn_ < lsn) return failure_;
  return lsn;
}

absl::StatusOr<std::uint64_t> WalWriter::Rotate() {
  std::unique_lock<std::mutex> lock(mutex_);
  FlushAllLocked(lock);
  if (!failure_.ok()) return failure_;
  // A segment holding no record yet already starts at next_lsn_.
  if (segment_size_ == kFileHeaderBytes) return next_lsn_;
  if (absl::Status status = StartSegmentLocked(next_lsn_); !status.ok()) {
    failure_ = status;
    stats_.failed = true;
    return status;
  }
  return next_lsn_;
}

std::uint64_t WalWriter::last_lsn() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return next_lsn_ - 1;
}

std::uint64_t WalWriter::records_written() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_.records;
}

std::uint64_t WalWriter::syncs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_.syncs;
}

WalStats WalWriter::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace sator::server::durability
