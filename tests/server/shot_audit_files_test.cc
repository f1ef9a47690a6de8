// The audit trail's JSON Lines files: every record as a watch event line,
// gaps for records overwritten before the writer reached them, rotation
// within the size and file-count bounds, a restart going on in a new file,
// a forgotten scene finished and left, and the writer thread under many
// recording threads (run under TSan too).
#include "server/audit/shot_audit_files.h"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "sator/v1/shot_audit.pb.h"
#include "tests/support/test_scale.h"

namespace sator::server {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<sator::v1::ShotVerdictRecord> MakeRecord(
    std::uint64_t shot_id) {
  auto record = std::make_unique<sator::v1::ShotVerdictRecord>();
  record->set_scene_id("arena");
  record->mutable_shot()->set_shot_id(shot_id);
  record->mutable_verdict()->set_outcome(sator::v1::SHOT_OUTCOME_HIT);
  return record;
}

std::vector<sator::v1::WatchShotVerdictsResponse> ReadEvents(
    const fs::path& file) {
  std::vector<sator::v1::WatchShotVerdictsResponse> events;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    sator::v1::WatchShotVerdictsResponse event;
    const auto parsed =
        google::protobuf::util::JsonStringToMessage(line, &event);
    EXPECT_TRUE(parsed.ok()) << parsed.ToString() << ": " << line;
    events.push_back(std::move(event));
  }
  return events;
}

// The audit files of `dir`, in name order.
std::vector<fs::path> Files(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::exists(dir)) return files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class ShotAuditFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::path(::testing::TempDir()) /
        absl::StrCat(
            "shot_audit_files_", ::getpid(), "_",
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::unique_ptr<ShotAuditFiles> Open(std::int64_t max_file_bytes = 1 << 20,
                                       int max_files = 4) {
    ShotAuditFileOptions options;
    options.directory = root_.string();
    options.max_file_bytes = max_file_bytes;
    options.max_files = max_files;
    auto files = ShotAuditFiles::Open(options);
    EXPECT_TRUE(files.ok()) << files.status();
    return files.ok() ? *std::move(files) : nullptr;
  }

  fs::path root_;
};

TEST_F(ShotAuditFilesTest, WritesEveryRecordAsAWatchEventLine) {
  auto files = Open();
  auto ring = std::make_shared<ShotAuditRing>(8);
  files->Follow("arena", ring);
  for (std::uint64_t shot = 1; shot <= 3; ++shot)
    ring->Append(MakeRecord(shot));
  EXPECT_EQ(files->WriteAvailable(), 3u);
  EXPECT_EQ(files->WriteAvailable(), 0u);
  const std::vector<fs::path> written = Files(root_ / "scene-arena");
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].filename(), "00000001.jsonl");
  const auto events = ReadEvents(written[0]);
  ASSERT_EQ(events.size(), 3u);
  for (std::size_t i = 0; i < events.size(); ++i) {
    ASSERT_TRUE(events[i].has_record());
    EXPECT_EQ(events[i].record().sequence(), i + 1);
    EXPECT_EQ(events[i].record().shot().shot_id(), i + 1);
    EXPECT_EQ(events[i].record().verdict().outcome(),
              sator::v1::SHOT_OUTCOME_HIT);
  }
  EXPECT_EQ(files->lines_written(), 3u);
  EXPECT_EQ(files->dropped(), 0u);
}

TEST_F(ShotAuditFilesTest, RecordsOverwrittenBeforeTheWriterCameAreAGapLine) {
  auto files = Open();
  auto ring = std::make_shared<ShotAuditRing>(4);
  files->Follow("arena", ring);
  for (std::uint64_t shot = 1; shot <= 10; ++shot) {
    ring->Append(MakeRecord(shot));
  }
  EXPECT_EQ(files->WriteAvailable(), 5u);
  const auto events = ReadEvents(root_ / "scene-arena" / "00000001.jsonl");
  ASSERT_EQ(events.size(), 5u);
  ASSERT_TRUE(events[0].has_gap());
  EXPECT_EQ(events[0].gap().first_sequence(), 1u);
  EXPECT_EQ(events[0].gap().dropped(), 6u);
  for (std::size_t i = 1; i < events.size(); ++i) {
    EXPECT_EQ(events[i].record().sequence(), 6 + i);
  }
  EXPECT_EQ(files->dropped(), 6u);
}

TEST_F(ShotAuditFilesTest, RotatesWithinTheSizeAndKeepsTheNewestFiles) {
  constexpr std::int64_t kMaxBytes = 4096;
  auto files = Open(kMaxBytes, /*max_files=*/3);
  auto ring = std::make_shared<ShotAuditRing>(64);
  files->Follow("arena", ring);
  constexpr std::uint64_t kRecords = 400;
  for (std::uint64_t shot = 1; shot <= kRecords; ++shot) {
    ring->Append(MakeRecord(shot));
    if (shot % 16 == 0) files->WriteAvailable();
  }
  files->WriteAvailable();
  files->Stop();
  const std::vector<fs::path> kept = Files(root_ / "scene-arena");
  ASSERT_EQ(kept.size(), 3u);
  // The newest three numbers, each file within the bound, and the lines of
  // the three an unbroken run ending at the last record.
  std::uint64_t expected_next = 0;
  std::uint64_t last = 0;
  for (const fs::path& file : kept) {
    EXPECT_LE(static_cast<std::int64_t>(fs::file_size(file)), kMaxBytes);
    for (const auto& event : ReadEvents(file)) {
      ASSERT_TRUE(event.has_record());
      if (expected_next != 0) {
        EXPECT_EQ(event.record().sequence(), expected_next);
      }
      expected_next = event.record().sequence() + 1;
      last = event.record().sequence();
    }
  }
  EXPECT_EQ(last, kRecords);
  const std::string newest = kept.back().filename().string();
  const std::string oldest = kept.front().filename().string();
  EXPECT_EQ(std::stoi(newest.substr(0, 8)) - std::stoi(oldest.substr(0, 8)), 2);
  EXPECT_GT(std::stoi(oldest.substr(0, 8)), 1);
}

TEST_F(ShotAuditFilesTest, ARestartGoesOnInANewFileAndAForgottenSceneEnds) {
  {
    auto files = Open();
    auto ring = std::make_shared<ShotAuditRing>(8);
    files->Follow("arena", ring);
    ring->Append(MakeRecord(1));
    files->Stop();
  }
  auto files = Open();
  auto ring = std::make_shared<ShotAuditRing>(8);
  files->Follow("arena", ring);
  ring->Append(MakeRecord(2));
  ring->Append(MakeRecord(3));
  files->Forget("arena");
  EXPECT_EQ(files->WriteAvailable(), 2u);
  ring->Append(MakeRecord(4));
  EXPECT_EQ(files->WriteAvailable(), 0u);
  const std::vector<fs::path> written = Files(root_ / "scene-arena");
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[1].filename(), "00000002.jsonl");
  const auto events = ReadEvents(written[1]);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].record().shot().shot_id(), 3u);
  // A scene id cannot name a directory outside the root.
  auto dots = std::make_shared<ShotAuditRing>(8);
  files->Follow("..", dots);
  dots->Append(MakeRecord(5));
  EXPECT_EQ(files->WriteAvailable(), 1u);
  EXPECT_EQ(Files(root_ / "scene-..").size(), 1u);
}

TEST_F(ShotAuditFilesTest, TheWriterThreadWritesEveryRecordOfManyRecorders) {
  auto files = Open();
  files->Start();
  constexpr int kThreads = 4;
  const int per_thread = sator::testing::ScaledCount(2000);
  std::vector<std::shared_ptr<ShotAuditRing>> rings;
  for (int scene = 0; scene < 2; ++scene) {
    rings.push_back(std::make_shared<ShotAuditRing>(kThreads * per_thread));
    files->Follow(absl::StrCat("s", scene), rings.back());
  }
  std::vector<std::thread> recorders;
  for (int t = 0; t < kThreads; ++t) {
    recorders.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        rings[static_cast<std::size_t>(t % 2)]->Append(
            MakeRecord(static_cast<std::uint64_t>(i)));
      }
    });
  }
  for (std::thread& recorder : recorders) recorder.join();
  files->Stop();
  EXPECT_EQ(files->lines_written(),
            static_cast<std::uint64_t>(kThreads * per_thread));
  EXPECT_EQ(files->dropped(), 0u);
  for (int scene = 0; scene < 2; ++scene) {
    std::uint64_t lines = 0;
    for (const fs::path& file : Files(root_ / absl::StrCat("scene-s", scene))) {
      lines += ReadEvents(file).size();
    }
    EXPECT_EQ(lines, static_cast<std::uint64_t>(kThreads / 2 * per_thread));
  }
}

TEST_F(ShotAuditFilesTest, RefusesBadOptionsAndAnUnusableDirectory) {
  ShotAuditFileOptions options;
  EXPECT_EQ(ShotAuditFiles::Open(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options.directory = root_.string();
  options.max_files = 0;
  EXPECT_EQ(ShotAuditFiles::Open(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options.max_files = 1;
  options.max_file_bytes = 100;
  EXPECT_EQ(ShotAuditFiles::Open(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  fs::create_directories(root_);
  std::ofstream(root_ / "plain") << "x";
  options.max_file_bytes = 4096;
  options.directory = (root_ / "plain" / "below").string();
  EXPECT_FALSE(ShotAuditFiles::Open(options).ok());
}

}  // namespace
}  // namespace sator::server
