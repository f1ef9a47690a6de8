// See shot_audit_files.h.
#include "server/audit/shot_audit_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/util/json_util.h"
#include "sator/v1/shot_audit.pb.h"
#include "server/durability/file_io.h"
#include "server/logging.h"

namespace sator::server {
namespace {

constexpr char kFileSuffix[] = ".jsonl";

std::string SceneDirectory(const std::string& root,
                           const std::string& scene_id) {
  // The prefix keeps scene ids such as ".." from naming a path outside.
  return absl::StrCat(root, "/scene-", scene_id);
}

std::string FileName(std::int64_t number) {
  return absl::StrFormat("%08d%s", number, kFileSuffix);
}

// The numbers of the audit files in `dir`, ascending.
std::vector<std::int64_t> FileNumbers(const std::string& dir) {
  std::vector<std::int64_t> numbers;
  const absl::StatusOr<std::vector<std::string>> names =
      durability::ListFiles(dir);
  if (!names.ok()) return numbers;
  for (const std::string& name : *names) {
    if (!absl::EndsWith(name, kFileSuffix)) continue;
    std::int64_t number = 0;
    if (absl::SimpleAtoi(name.substr(0, name.size() - 6), &number) &&
        number > 0) {
      numbers.push_back(number);
    }
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

std::string JsonLine(const sator::v1::WatchShotVerdictsResponse& event) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(event, &json, options);
  return json;
}

}  // namespace

class ShotAuditFiles::Waker final : public ShotAuditSubscriber {
 public:
  explicit Waker(std::shared_ptr<WakeState> wake) : wake_(std::move(wake)) {}
  void OnRecorded() override {
    {
      const std::lock_guard<std::mutex> lock(wake_->mu);
      wake_->pending = true;
    }
    wake_->cv.notify_one();
  }

 private:
  const std::shared_ptr<WakeState> wake_;
};

absl::StatusOr<std::unique_ptr<ShotAuditFiles>> ShotAuditFiles::Open(
    ShotAuditFileOptions options) {
  if (options.directory.empty()) {
    return absl::InvalidArgumentError("shot audit files: no directory");
  }
  if (options.max_files < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shot audit files: must keep at least 1 file, got ",
                     options.max_files));
  }
  if (options.max_file_bytes < 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("shot audit files: a file must hold at least 4096 bytes, "
                     "got ",
                     options.max_file_bytes));
  }
  if (absl::Status status = durability::MakeDirectories(options.directory);
      !status.ok()) {
    return status;
  }
  return std::unique_ptr<ShotAuditFiles>(
      new ShotAuditFiles(std::move(options)));
}

ShotAuditFiles::ShotAuditFiles(ShotAuditFileOptions options)
    : options_(std::move(options)) {}

ShotAuditFiles::~ShotAuditFiles() { Stop(); }

void ShotAuditFiles::Follow(const std::string& scene_id,
                            std::shared_ptr<ShotAuditRing> ring) {
  {
    const std::lock_guard<std::mutex> lock(changes_mu_);
    changes_.push_back({scene_id, std::move(ring)});
  }
  Waker(wake_).OnRecorded();
}

void ShotAuditFiles::Forget(const std::string& scene_id) {
  {
    const std::lock_guard<std::mutex> lock(changes_mu_);
    changes_.push_back({scene_id, nullptr});
  }
  Waker(wake_).OnRecorded();
}

void ShotAuditFiles::Start() {
  if (writer_.joinable()) return;
  writer_ = std::thread([this] { Run(); });
}

void ShotAuditFiles::Run() {
  for (;;) {
    bool stop = false;
    {
      std::unique_lock<std::mutex> lock(wake_->mu);
      wake_->cv.wait(lock, [&] { return wake_->pending || wake_->stop; });
      wake_->pending = false;
      stop = wake_->stop;
    }
    WriteAvailable();
    if (stop) return;
  }
}

void ShotAuditFiles::Stop() {
  if (writer_.joinable()) {
    {
      const std::lock_guard<std::mutex> lock(wake_->mu);
      wake_->stop = true;
    }
    wake_->cv.notify_one();
    writer_.join();
  }
  WriteAvailable();
  const std::lock_guard<std::mutex> lock(write_mu_);
  for (auto& [scene_id, followed] : scenes_) CloseFile(followed);
}

std::uint64_t ShotAuditFiles::WriteAvailable() {
  const std::lock_guard<std::mutex> lock(write_mu_);
  std::vector<Change> changes;
  {
    const std::lock_guard<std::mutex> changes_lock(changes_mu_);
    changes.swap(changes_);
  }
  std::uint64_t written = 0;
  const auto drain = [&](const std::string& scene_id, Followed& followed) {
    const std::uint64_t max_lag = followed.ring->capacity();
    for (;;) {
      const ShotAuditRing::Next next =
          followed.ring->NextFor(followed.cursor, max_lag);
      sator::v1::WatchShotVerdictsResponse event;
      if (next.record != nullptr) {
        *event.mutable_record() = *next.record;
        followed.cursor = next.record->sequence() + 1;
      } else if (next.gap_dropped > 0) {
        event.mutable_gap()->set_first_sequence(next.gap_first);
        event.mutable_gap()->set_dropped(next.gap_dropped);
        followed.cursor = next.gap_first + next.gap_dropped;
        dropped_.fetch_add(next.gap_dropped, std::memory_order_relaxed);
      } else {
        return;
      }
      WriteLine(scene_id, followed, JsonLine(event));
      ++written;
    }
  };
  for (Change& change : changes) {
    auto found = scenes_.find(change.scene_id);
    if (found != scenes_.end()) {
      // What the old ring holds goes to the old files first.
      drain(found->first, found->second);
      if (change.ring == nullptr) {
        found->second.forgotten = true;
        continue;
      }
      found->second.ring->Unsubscribe(found->second.waker.get());
      CloseFile(found->second);
      scenes_.erase(found);
    }
    if (change.ring == nullptr) continue;
    Followed& followed = scenes_[change.scene_id];
    followed.ring = std::move(change.ring);
    // From the first sequence: records overwritten before this pass are a
    // gap, not silently absent.
    followed.cursor = 1;
    followed.waker = std::make_shared<Waker>(wake_);
    followed.ring->Subscribe(followed.waker);
  }
  for (auto it = scenes_.begin(); it != scenes_.end();) {
    drain(it->first, it->second);
    if (it->second.forgotten) {
      it->second.ring->Unsubscribe(it->second.waker.get());
      CloseFile(it->second);
      it = scenes_.erase(it);
    } else {
      ++it;
    }
  }
  lines_written_.fetch_add(written, std::memory_order_relaxed);
  return written;
}

void ShotAuditFiles::WriteLine(const std::string& scene_id, Followed& followed,
                               const std::string& line) {
  const std::int64_t size = static_cast<std::int64_t>(line.size()) + 1;
  if (followed.fd >= 0 && followed.file_bytes > 0 &&
      followed.file_bytes + size > options_.max_file_bytes) {
    CloseFile(followed);
  }
  if (followed.fd < 0) {
    if (absl::Status status = OpenNextFile(scene_id, followed); !status.ok()) {
      CountError(scene_id, followed, status);
      return;
    }
  }
  const std::string path =
      absl::StrCat(SceneDirectory(options_.directory, scene_id), "/",
                   FileName(followed.file_number));
  if (absl::Status status =
          durability::WriteAll(followed.fd, absl::StrCat(line, "\n"), path);
      !status.ok()) {
    CountError(scene_id, followed, status);
    return;
  }
  followed.file_bytes += size;
}

absl::Status ShotAuditFiles::OpenNextFile(const std::string& scene_id,
                                          Followed& followed) {
  const std::string dir = SceneDirectory(options_.directory, scene_id);
  if (absl::Status status = durability::MakeDirectories(dir); !status.ok()) {
    return status;
  }
  std::vector<std::int64_t> numbers = FileNumbers(dir);
  const std::int64_t number =
      std::max(followed.file_number, numbers.empty() ? 0 : numbers.back()) + 1;
  const std::string path = absl::StrCat(dir, "/", FileName(number));
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return durability::ErrnoStatus("open", path, errno);
  followed.fd = fd;
  followed.file_number = number;
  followed.file_bytes = 0;
  followed.error_logged = false;
  // Keep max_files with the new one: remove the oldest beyond that.
  numbers.push_back(number);
  const auto keep = static_cast<std::size_t>(options_.max_files);
  for (std::size_t i = 0; i + keep < numbers.size(); ++i) {
    const std::string old = absl::StrCat(dir, "/", FileName(numbers[i]));
    if (::unlink(old.c_str()) != 0 && errno != ENOENT) {
      CountError(scene_id, followed,
                 durability::ErrnoStatus("unlink", old, errno));
    }
  }
  return durability::SyncDirectory(dir);
}

void ShotAuditFiles::CloseFile(Followed& followed) {
  if (followed.fd < 0) return;
  (void)::fsync(followed.fd);
  (void)::close(followed.fd);
  followed.fd = -1;
}

void ShotAuditFiles::CountError(const std::string& scene_id, Followed& followed,
                                const absl::Status& status) {
  write_errors_.fetch_add(1, std::memory_order_relaxed);
  if (followed.error_logged) return;
  followed.error_logged = true;
  Log(LogLevel::kError, "shot_audit_file_error",
      {{"scene", scene_id}, {"error", status.message()}});
}

}  // namespace sator::server
