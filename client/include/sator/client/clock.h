// The time sator::Client keeps: each call's deadline is read from it, and
// the client's own retry loop (retry.h: over a MockConnection or another
// connection that does not retry by itself) sleeps on it between attempts.
//
// ClientOptions::clock is null for the real clock. A FakeClock makes a test
// of game code over a MockConnection run its retries without waiting: a
// sleep moves the fake time forward and returns at once, so a call that is
// retried after a 30 s pushback finishes in microseconds, and the test can
// read every sleep back:
//
//   auto clock = std::make_shared<sator::FakeClock>();
//   sator::Client client(mock, {.clock = clock});
//   ...  // the mock sheds twice, then answers
//   EXPECT_EQ(clock->sleeps().size(), 2);
//
// A retry happens only if its sleep ends before the call's deadline, so a
// test of long pushbacks sets ClientOptions::default_deadline to match.
//
// A gRPC channel keeps real time (its deadlines and backoffs are gRPC's), so
// a client whose connection retries by itself (Connection::
// RetriesIdempotentCalls: one made from a target, a ShardedConnection with
// endpoints_retry) refuses a clock: every call fails with INVALID_ARGUMENT
// "ClientOptions.clock: ...". Give a clock only to a client whose connection
// keeps no time of its own, such as a MockConnection.
#ifndef SATOR_CLIENT_CLOCK_H_
#define SATOR_CLIENT_CLOCK_H_

#include <mutex>
#include <vector>

#include "absl/time/time.h"

namespace sator {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() = 0;
  // Returns once `delay` has passed on this clock.
  virtual void SleepFor(absl::Duration delay) = 0;
};

// A clock that moves only when told to or slept on. Thread-safe: async calls
// retry on client threads.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::UnixEpoch()) : now_(start) {}

  absl::Time Now() override;
  // Moves the time forward by `delay` (nothing for a negative one), records
  // it and returns at once.
  void SleepFor(absl::Duration delay) override;
  // Moves the time forward without recording a sleep.
  void Advance(absl::Duration delay);
  // Every SleepFor so far, in order.
  std::vector<absl::Duration> sleeps() const;

 private:
  mutable std::mutex mutex_;
  absl::Time now_;
  std::vector<absl::Duration> sleeps_;
};

}  // namespace sator

#endif  // SATOR_CLIENT_CLOCK_H_
