// Small POSIX file helpers for the data directory: whole writes, fsync of
// files and directories, atomic replacement, directory listing. Errors are
// absl::Status naming the path and errno's text.
#ifndef SATOR_SERVER_DURABILITY_FILE_IO_H_
#define SATOR_SERVER_DURABILITY_FILE_IO_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sator::server::durability {

// An error for a failed system call on `path` (INTERNAL, or
// RESOURCE_EXHAUSTED for ENOSPC / EDQUOT).
absl::Status ErrnoStatus(absl::string_view what, const std::string& path,
                         int error_number);

absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

// Writes all of `data` to `fd`, retrying short writes and EINTR.
absl::Status WriteAll(int fd, absl::string_view data, const std::string& path);

// fsyncs the directory itself, so that a file created, renamed or removed in
// it survives a power loss.
absl::Status SyncDirectory(const std::string& dir);

// Writes `data` to `path` atomically: a temporary file beside it, fsync,
// rename over `path`, fsync of the directory. A crash leaves either the old
// file or the new one, never a mix (rename(2) is atomic in POSIX).
absl::Status WriteFileAtomically(const std::string& dir,
                                 const std::string& name,
                                 absl::string_view data);

// Names of the regular files in `dir`, sorted.
absl::StatusOr<std::vector<std::string>> ListFiles(const std::string& dir);

// Creates `dir` and its parents if missing.
absl::Status MakeDirectories(const std::string& dir);

}  // namespace sator::server::durability

#endif  // SATOR_SERVER_DURABILITY_FILE_IO_H_
