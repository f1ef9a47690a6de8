#include "sator/client/client.h"

#include "gtest/gtest.h"

namespace sator {
namespace {

TEST(ClientCreate, RefusesAnEmptyTarget) {
  absl::StatusOr<Client> client = Client::Make({.target = ""});
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(client.status().message().find("target"), absl::string_view::npos);
}

TEST(ClientCreate, RefusesANonPositiveDefaultDeadline) {
  absl::StatusOr<Client> client = Client::Make(
      {.target = "127.0.0.1:1", .default_deadline = absl::ZeroDuration()});
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(client.status().message().find("default_deadline"),
            absl::string_view::npos);
}

TEST(ClientPing, NoServerIsUnavailableNotAHang) {
  // Port 1 on loopback: nothing listens there, so the connection is refused.
  absl::StatusOr<Client> client = Client::Make({.target = "127.0.0.1:1"});
  ASSERT_TRUE(client.ok());
  absl::StatusOr<PingResult> pong =
      client->Ping("x", {.deadline = absl::Seconds(2)});
  EXPECT_TRUE(pong.status().code() == absl::StatusCode::kUnavailable ||
              pong.status().code() == absl::StatusCode::kDeadlineExceeded)
      << pong.status();
}

}  // namespace
}  // namespace sator
