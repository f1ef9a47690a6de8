// POSIX file helpers for the data directory (see file_io.h).
#include "server/durability/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace sator::server::durability {

absl::Status ErrnoStatus(absl::string_view what, const std::string& path,
                         int error_number) {
  const std::string message =
      absl::StrCat(what, " ", path, ": ", std::strerror(error_number));
  if (error_number == ENOSPC || error_number == EDQUOT) {
    return absl::ResourceExhaustedError(message);
  }
  return absl::InternalError(message);
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open", path, errno);
  std::string data;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error_number = errno;
      close(fd);
      return ErrnoStatus("read", path, error_number);
    }
    if (n == 0) break;
    data.append(buffer, static_cast<std::size_t>(n));
  }
  close(fd);
  return data;
}

absl::Status WriteAll(int fd, absl::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write", path, errno);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status SyncDirectory(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open", dir, errno);
  const int result = fsync(fd);
  const int error_number = errno;
  close(fd);
  if (result != 0) return ErrnoStatus("fsync", dir, error_number);
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& dir,
                                 const std::string& name,
                                 absl::string_view data) {
  const std::string path = absl::StrCat(dir, "/", name);
  const std::string temporary = absl::StrCat(path, ".tmp");
  const int fd =
      open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("open", temporary, errno);
  absl::Status status = WriteAll(fd, data, temporary);
  if (status.ok() && fsync(fd) != 0) {
    status = ErrnoStatus("fsync", temporary, errno);
  }
  close(fd);
  if (status.ok() && rename(temporary.c_str(), path.c_str()) != 0) {
    status = ErrnoStatus("rename", temporary, errno);
  }
  if (!status.ok()) {
    unlink(temporary.c_str());
    return status;
  }
  return SyncDirectory(dir);
}

absl::StatusOr<std::vector<std::string>> ListFiles(const std::string& dir) {
  std::error_code error;
  std::vector<std::string> names;
  for (std::filesystem::directory_iterator it(dir, error), end;
       !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error)) {
      names.push_back(it->path().filename().string());
    }
  }
  if (error) {
    return absl::InternalError(
        absl::StrCat("list ", dir, ": ", error.message()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status MakeDirectories(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("create directory ", dir, ": ", error.message()));
  }
  return absl::OkStatus();
}

}  // namespace sator::server::durability
