// A bounded ring of numbered records, read a page at a time and followed by
// subscribers: the shot audit trail and the proximity events of a scene.
//
// Writers hold the ring's mutex only to number a record and swap it into
// its slot (the record is built before, outside); readers copy a few
// shared pointers per lock. Subscribers are not buffered here: each keeps a
// cursor into the ring and may lag at most `max_lag` records behind the
// newest; a subscriber further behind skips to that bound and is told how
// many it missed (a gap). Writers wake subscribers after unlocking.
//
// `Message` is a protobuf message with a uint64 `sequence` field.
#ifndef SATOR_SERVER_STREAMS_SEQUENCED_RING_H_
#define SATOR_SERVER_STREAMS_SEQUENCED_RING_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace sator::server {

// Told when a record was added (on the writer's thread, no ring lock held);
// must be thread-safe and fast.
class RingSubscriber {
 public:
  virtual ~RingSubscriber() = default;
  virtual void OnRecorded() = 0;
};

template <typename Message>
class SequencedRing {
 public:
  using Record = std::shared_ptr<const Message>;

  // `capacity` > 0 (0 is taken as 1).
  explicit SequencedRing(std::size_t capacity)
      : slots_(std::max<std::size_t>(capacity, 1)) {}

  // Numbers `record` (its sequence is set here), keeps it, overwriting the
  // oldest when full, and wakes the subscribers. Returns the sequence.
  std::uint64_t Append(std::unique_ptr<Message> record) {
    const std::uint64_t sequence = AppendWithoutWaking(std::move(record));
    WakeSubscribers();
    return sequence;
  }

  // Append's two steps, for a writer that must append under a lock of its
  // own that the subscribers' wake-up takes too: append under it, wake after
  // releasing it.
  std::uint64_t AppendWithoutWaking(std::unique_ptr<Message> record) {
    Record evicted;  // Freed after unlocking.
    std::lock_guard<std::mutex> lock(mu_);
    const std::uint64_t sequence = next_sequence_++;
    record->set_sequence(sequence);
    Record& slot = slots_[(sequence - 1) % slots_.size()];
    if (slot != nullptr) overwritten_.fetch_add(1, std::memory_order_relaxed);
    evicted = std::exchange(slot, Record(std::move(record)));
    return sequence;
  }
  void WakeSubscribers() const {
    std::shared_ptr<const Subscribers> subscribers;
    {
      std::lock_guard<std::mutex> lock(subscribers_mu_);
      subscribers = subscribers_;
    }
    for (const std::shared_ptr<RingSubscriber>& subscriber : *subscribers) {
      subscriber->OnRecorded();
    }
  }

  // The records with sequence >= `from`, oldest first, at most `limit`.
  std::vector<Record> ReadFrom(std::uint64_t from, std::size_t limit) const {
    std::vector<Record> records;
    std::lock_guard<std::mutex> lock(mu_);
    const std::uint64_t oldest = OldestLocked();
    if (oldest == 0) return records;
    std::uint64_t sequence = std::max(from, oldest);
    records.reserve(std::min<std::uint64_t>(
        limit, sequence < next_sequence_ ? next_sequence_ - sequence : 0));
    for (; sequence < next_sequence_ && records.size() < limit; ++sequence) {
      records.push_back(slots_[(sequence - 1) % slots_.size()]);
    }
    return records;
  }

  // What a subscriber at `cursor` (the next sequence it wants) gets next:
  // a record, a gap (records it can no longer have: overwritten, or more
  // than `max_lag` behind the newest; 0 is no lag bound), or nothing yet.
  struct Next {
    Record record;
    std::uint64_t gap_first = 0;
    std::uint64_t gap_dropped = 0;
  };
  Next NextFor(std::uint64_t cursor, std::uint64_t max_lag) const {
    Next next;
    std::lock_guard<std::mutex> lock(mu_);
    if (cursor >= next_sequence_) return next;
    std::uint64_t first_allowed = OldestLocked();
    if (max_lag > 0 && next_sequence_ - cursor > max_lag) {
      first_allowed = std::max(first_allowed, next_sequence_ - max_lag);
    }
    if (cursor < first_allowed) {
      next.gap_first = cursor;
      next.gap_dropped = first_allowed - cursor;
      return next;
    }
    next.record = slots_[(cursor - 1) % slots_.size()];
    return next;
  }

  // The oldest sequence kept (0 when empty) and the one the next record
  // gets.
  std::uint64_t oldest_sequence() const {
    std::lock_guard<std::mutex> lock(mu_);
    return OldestLocked();
  }
  std::uint64_t next_sequence() const {
    std::lock_guard<std::mutex> lock(mu_);
    return next_sequence_;
  }
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

  void Subscribe(std::shared_ptr<RingSubscriber> subscriber) {
    std::lock_guard<std::mutex> lock(subscribers_mu_);
    auto copy = std::make_shared<Subscribers>(*subscribers_);
    copy->push_back(std::move(subscriber));
    subscribers_ = std::move(copy);
  }
  void Unsubscribe(const RingSubscriber* subscriber) {
    std::lock_guard<std::mutex> lock(subscribers_mu_);
    auto copy = std::make_shared<Subscribers>(*subscribers_);
    std::erase_if(
        *copy, [subscriber](const auto& s) { return s.get() == subscriber; });
    subscribers_ = std::move(copy);
  }
  std::size_t subscriber_count() const {
    std::lock_guard<std::mutex> lock(subscribers_mu_);
    return subscribers_->size();
  }

 private:
  using Subscribers = std::vector<std::shared_ptr<RingSubscriber>>;

  // With mu_ held.
  std::uint64_t OldestLocked() const {
    if (next_sequence_ == 1) return 0;
    const std::uint64_t kept =
        std::min<std::uint64_t>(next_sequence_ - 1, slots_.size());
    return next_sequence_ - kept;
  }

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

#endif  // SATOR_SERVER_STREAMS_SEQUENCED_RING_H_
