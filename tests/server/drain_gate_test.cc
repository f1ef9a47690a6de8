#include "server/drain_gate.h"

#include <thread>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace sator::server {
namespace {

TEST(DrainGate, AdmitsUntilClosedAndCountsPasses) {
  DrainGate gate;
  {
    DrainGate::Pass first = gate.Enter();
    DrainGate::Pass second = gate.Enter();
    EXPECT_TRUE(first.admitted());
    EXPECT_TRUE(second.admitted());
    EXPECT_EQ(gate.in_flight(), 2);
    second.Release();
    EXPECT_EQ(gate.in_flight(), 1);
  }
  EXPECT_EQ(gate.in_flight(), 0);
  gate.Close();
  DrainGate::Pass refused = gate.Enter();
  EXPECT_FALSE(refused.admitted());
  EXPECT_EQ(gate.in_flight(), 0);
  EXPECT_EQ(DrainGate::DrainingStatus().code(), absl::StatusCode::kUnavailable);
}

TEST(DrainGate, MovedPassReleasesOnce) {
  DrainGate gate;
  DrainGate::Pass original = gate.Enter();
  DrainGate::Pass moved = std::move(original);
  EXPECT_FALSE(original.admitted());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(moved.admitted());
  EXPECT_EQ(gate.in_flight(), 1);
  moved = DrainGate::Pass();
  EXPECT_EQ(gate.in_flight(), 0);
}

TEST(DrainGate, WaitTimesOutWhileACallIsInFlight) {
  DrainGate gate;
  DrainGate::Pass pass = gate.Enter();
  gate.Close();
  EXPECT_FALSE(gate.WaitUntilEmpty(absl::Now() + absl::Milliseconds(20)));
  EXPECT_EQ(gate.in_flight(), 1);
}

TEST(DrainGate, WaitReturnsWhenTheLastCallLeaves) {
  DrainGate gate;
  DrainGate::Pass pass = gate.Enter();
  absl::Notification waiting;
  std::thread call([&] {
    waiting.WaitForNotification();
    pass.Release();
  });
  gate.Close();
  waiting.Notify();
  EXPECT_TRUE(gate.WaitUntilEmpty(absl::Now() + absl::Seconds(30)));
  call.join();
  EXPECT_EQ(gate.in_flight(), 0);
}

TEST(DrainGate, CloseListenersRunOnceWhenTheGateCloses) {
  DrainGate gate;
  int before = 0;
  gate.OnClose([&before] { ++before; });
  EXPECT_FALSE(gate.closed());
  EXPECT_EQ(before, 0);
  gate.Close();
  EXPECT_TRUE(gate.closed());
  EXPECT_EQ(before, 1);
  gate.Close();  // Idempotent: listeners ran already.
  EXPECT_EQ(before, 1);
  // A listener added after the close runs at once.
  int after = 0;
  gate.OnClose([&after] { ++after; });
  EXPECT_EQ(after, 1);
}

TEST(DrainGate, ListenersMayEnterAndLeaveWithoutDeadlock) {
  // A listener runs with no lock held, so it may use the gate itself (a
  // session ending itself releases its pass).
  DrainGate gate;
  DrainGate::Pass pass = gate.Enter();
  gate.OnClose([&] {
    pass.Release();
    EXPECT_FALSE(gate.Enter().admitted());
  });
  gate.Close();
  EXPECT_EQ(gate.in_flight(), 0);
}

}  // namespace
}  // namespace sator::server
