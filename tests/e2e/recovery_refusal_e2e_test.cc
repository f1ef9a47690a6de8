// Recovery that cannot apply valid data refuses to start rather than lose it:
// scenes written under --max_scenes=2 do not fit a restart with
// --max_scenes=1, so satord exits 1 naming the problem and leaves the data
// directory alone; restarted with the old limit, every scene is back;
// --allow_recovery_loss starts anyway. With both snapshots damaged the start
// is refused too, and the message names the damaged snapshots and the
// missing records, not the limit flags.
#include <signal.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "support/satord_process.h"

namespace sator::testing {
namespace {

using ::testing::HasSubstr;

constexpr absl::Duration kWait = absl::Seconds(20);

std::unique_ptr<Client> Connect(const SatordProcess& satord) {
  ClientOptions options;
  options.target = satord.grpc_target();
  auto client = Client::Make(options);
  return client.ok() ? std::make_unique<Client>(*std::move(client)) : nullptr;
}

std::vector<std::string> SceneIds(Client& client) {
  std::vector<std::string> ids;
  absl::StatusOr<client::ListScenesPage> page = client.ListScenes();
  if (!page.ok()) return ids;
  for (const client::SceneInfo& scene : page->scenes) {
    ids.push_back(scene.scene_id);
  }
  return ids;
}

TEST(RecoveryRefusal, UnappliedScenesStopTheStartAndStayOnDisk) {
  const std::string data_dir = MakeTempDir("recovery_refusal");
  const std::string data_flag = absl::StrCat("--data_dir=", data_dir);
  {
    SatordProcess satord;
    ASSERT_TRUE(satord.Start({data_flag, "--max_scenes=2"}, kWait).ok());
    std::unique_ptr<Client> client = Connect(satord);
    ASSERT_NE(client, nullptr);
    client::SceneSettings settings;
    settings.dimension = client::Dimension::k2D;
    ASSERT_TRUE(client->CreateScene("a", settings).ok());
    ASSERT_TRUE(client->CreateScene("b", settings).ok());
    ASSERT_TRUE(satord.Signal(SIGTERM).ok());
    absl::StatusOr<int> code = satord.WaitForExit(kWait);
    ASSERT_TRUE(code.ok());
    ASSERT_EQ(*code, 0);
  }
  {
    // One scene does not fit: refuse to start.
    SatordProcess satord;
    const absl::Status started =
        satord.Start({data_flag, "--max_scenes=1"}, kWait);
    EXPECT_FALSE(started.ok());
    EXPECT_THAT(started.message(), HasSubstr("exit"));
    EXPECT_FALSE(satord.running());
    EXPECT_THAT(satord.ReadLog(), HasSubstr("--allow_recovery_loss"));
  }
  {
    // Nothing was lost by the refusal.
    SatordProcess satord;
    ASSERT_TRUE(satord.Start({data_flag, "--max_scenes=2"}, kWait).ok())
        << satord.ReadLog();
    std::unique_ptr<Client> client = Connect(satord);
    ASSERT_NE(client, nullptr);
    EXPECT_THAT(SceneIds(*client), ::testing::ElementsAre("a", "b"));
    ASSERT_TRUE(satord.Signal(SIGTERM).ok());
    ASSERT_TRUE(satord.WaitForExit(kWait).ok());
  }
  {
    // Told to, it starts with what fits.
    SatordProcess satord;
    ASSERT_TRUE(
        satord
            .Start({data_flag, "--max_scenes=1", "--allow_recovery_loss"},
                   kWait)
            .ok())
        << satord.ReadLog();
    std::unique_ptr<Client> client = Connect(satord);
    ASSERT_NE(client, nullptr);
    EXPECT_EQ(SceneIds(*client).size(), 1u);
  }
}

// Starts satord on `data_flag`, creates scene `id`, and stops it with SIGTERM
// (which writes a snapshot).
void CreateSceneAndStop(const std::string& data_flag, const std::string& id) {
  SatordProcess satord;
  ASSERT_TRUE(satord.Start({data_flag}, kWait).ok()) << satord.ReadLog();
  std::unique_ptr<Client> client = Connect(satord);
  ASSERT_NE(client, nullptr);
  client::SceneSettings settings;
  settings.dimension = client::Dimension::k2D;
  ASSERT_TRUE(client->CreateScene(id, settings).ok());
  ASSERT_TRUE(satord.Signal(SIGTERM).ok());
  absl::StatusOr<int> code = satord.WaitForExit(kWait);
  ASSERT_TRUE(code.ok());
  ASSERT_EQ(*code, 0);
}

TEST(RecoveryRefusal, BothSnapshotsDamagedStopTheStartNamingTheSnapshots) {
  const std::string data_dir = MakeTempDir("recovery_snapshots");
  const std::string data_flag = absl::StrCat("--data_dir=", data_dir);
  // Two runs, two snapshots (the default keeps two); the log before the
  // older one is compacted away.
  CreateSceneAndStop(data_flag, "a");
  CreateSceneAndStop(data_flag, "b");
  int damaged = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir)) {
    if (entry.path().extension() != ".snap") continue;
    std::filesystem::resize_file(entry.path(), entry.file_size() - 5);
    ++damaged;
  }
  ASSERT_EQ(damaged, 2);
  {
    SatordProcess satord;
    EXPECT_FALSE(satord.Start({data_flag}, kWait).ok());
    const std::string log = satord.ReadLog();
    EXPECT_THAT(log, HasSubstr("1 acknowledged log record is missing"));
    EXPECT_THAT(log, HasSubstr("2 snapshots are damaged (snapshot_rejected), "
                               "none is readable"));
    EXPECT_THAT(log, HasSubstr("--allow_recovery_loss"));
    EXPECT_THAT(log, ::testing::Not(HasSubstr("limit flags")));
  }
  {
    // Told to, it starts with what the log still holds: scene b.
    SatordProcess satord;
    ASSERT_TRUE(satord.Start({data_flag, "--allow_recovery_loss"}, kWait).ok())
        << satord.ReadLog();
    std::unique_ptr<Client> client = Connect(satord);
    ASSERT_NE(client, nullptr);
    EXPECT_THAT(SceneIds(*client), ::testing::ElementsAre("b"));
    ASSERT_TRUE(satord.Signal(SIGTERM).ok());
    ASSERT_TRUE(satord.WaitForExit(kWait).ok());
  }
  {
    // The loss was given up: the next start needs no flag.
    SatordProcess satord;
    ASSERT_TRUE(satord.Start({data_flag}, kWait).ok()) << satord.ReadLog();
    std::unique_ptr<Client> client = Connect(satord);
    ASSERT_NE(client, nullptr);
    EXPECT_THAT(SceneIds(*client), ::testing::ElementsAre("b"));
  }
  std::filesystem::remove_all(data_dir);
}

}  // namespace
}  // namespace sator::testing
