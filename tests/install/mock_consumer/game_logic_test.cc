// A game server's own unit test, as docs/CLIENT.md describes it: the game
// logic holds a sator::Client, the test gives it a MockConnection.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/client/client.h"
#include "sator/client/mocks/mock_connection.h"

namespace {

using ::testing::_;
using ::testing::Return;

// The game logic under test: which player a shot hits, or 0.
std::uint64_t PlayerHitBy(sator::Client& client, const std::string& arena,
                          sator::Vec3 eye, sator::Vec3 direction) {
  absl::StatusOr<sator::QueryResult> result = client.Raycast(
      arena, {.origin = eye, .direction = direction, .max_distance = 100});
  if (!result.ok() || result->hits.empty()) return 0;
  return result->hits.front().user_data;
}

TEST(GameLogic, ReportsThePlayerTheRayHits) {
  auto mock = std::make_shared<sator::MockConnection>();
  sator::QueryResult result;
  result.hits.push_back({.body_id = 200, .user_data = 2});
  EXPECT_CALL(*mock, Raycast("arena", _, _, _)).WillOnce(Return(result));
  absl::StatusOr<sator::Client> client = sator::Client::Make(mock);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(PlayerHitBy(*client, "arena", {0, 1.6f, 0}, {0, 0, 1}), 2u);
}

TEST(GameLogic, AMissIsNoPlayer) {
  auto mock = std::make_shared<sator::MockConnection>();
  EXPECT_CALL(*mock, Raycast("arena", _, _, _))
      .WillOnce(Return(sator::QueryResult{}));
  absl::StatusOr<sator::Client> client = sator::Client::Make(mock);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(PlayerHitBy(*client, "arena", {0, 1.6f, 0}, {0, 0, 1}), 0u);
}

}  // namespace
