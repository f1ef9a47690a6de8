// One scene's audit trail of shot verdicts: a bounded ring of records with
// sequence numbers, read a page at a time and followed by subscribers.
//
// Writers hold the ring's mutex only to number a record and swap it into
// its slot (the record is built before, outside); readers copy a few
// shared pointers per lock. Subscribers are not buffered here: each keeps a
// cursor into the ring and may lag at most `max_lag` records behind the
// newest; a subscriber further behind skips to that bound and is told how
// many it missed (a gap). Writers wake subscribers after unlocking.
#ifndef SATOR_SERVER_AUDIT_SHOT_AUDIT_RING_H_
#define SATOR_SERVER_AUDIT_SHOT_AUDIT_RING_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "sator/v1/shot_audit.pb.h"

namespace sator::server {

// Told when a record was added (on the writer's thread, no ring lock held);
// must be thread-safe and fast.
class ShotAuditSubscriber {
 public:
  virtual ~ShotAuditSubscriber() = default;
  virtual void OnRecorded() = 0;
};

class ShotAuditRing {
 public:
  using Record = std::shared_ptr<const sator::v1::ShotVerdictRecord>;

  // `capacity` > 0.
  explicit ShotAuditRing(std::size_t capacity);

  // Numbers `record` (its sequence is set here), keeps it, overwriting the
  // oldest when full, and wakes the subscribers. Returns the sequence.
  std::uint64_t Append(std::unique_ptr<sator::v1::ShotVerdictRecord> record);

  // The records with sequence >= `from`, oldest first, at most `limit`.
  std::vector<Record> ReadFrom(std::uint64_t from, std::size_t limit) const;

  // What a subscriber at `cursor` (the next sequence it wants) gets next:
  // a record, a gap (records it can no longer have: overwritten, or more
  // than `max_lag` behind the newest), or nothing yet.
  struct Next {
    Record record;
    std::uint64_t gap_first = 0;
    std::uint64_t gap_dropped = 0;
  };
  Next NextFor(std::uint64_t cursor, std::uint64_t max_lag) const;

  // The oldest sequence kept (0 when empty) and the one the next record
  // gets.
  std::uint64_t oldest_sequence() const;
  std::uint64_t next_sequence() const;
  std::size_t capacity() const { return slots_.size(); }

  // Records overwritten before they were read out (all of them, read or
  // not: the ring does not know who else wanted them).
  std::uint64_t overwritten() const {
    return overwritten_.load(std::memory_order_relaxed);
  }
  // Records subscribers missed (gaps reported); added by the subscribers.
  std::uint64_t subscriber_dropped() const {
    return subscriber_dropped_.load(std::memory_order_relaxed);
  }
  void AddSubscriberDropped(std::uint64_t count) {
    subscriber_dropped_.fetch_add(count, std::memory_order_relaxed);
  }

  void Subscribe(std::shared_ptr<ShotAuditSubscriber> subscriber);
  void Unsubscribe(const ShotAuditSubscriber* subscriber);

 private:
  using Subscribers = std::vector<std::shared_ptr<ShotAuditSubscriber>>;

  // With mu_ held.
  std::uint64_t OldestLocked() const;

  // std::mutex, not absl::Mutex: ThreadSanitizer sees its locking (Debian's
  // Abseil is not built for TSan; docs/DESIGN.md).
  mutable std::mutex mu_;
  // Guarded by mu_.
  std::vector<Record> slots_;
  // Guarded by mu_. Sequences start at 1; the record with sequence s is in
  // slot (s - 1) % capacity.
  std::uint64_t next_sequence_ = 1;
  std::atomic<std::uint64_t> overwritten_{0};
  std::atomic<std::uint64_t> subscriber_dropped_{0};

  // Copied on write, so a writer takes a reference and wakes them unlocked.
  mutable std::mutex subscribers_mu_;
  // Guarded by subscribers_mu_.
  std::shared_ptr<const Subscribers> subscribers_ =
      std::make_shared<Subscribers>();
};

}  // namespace sator::server

#endif  // SATOR_SERVER_AUDIT_SHOT_AUDIT_RING_H_
