// See shot_audit_ring.h.
#include "server/audit/shot_audit_ring.h"

#include <algorithm>
#include <utility>

namespace sator::server {

ShotAuditRing::ShotAuditRing(std::size_t capacity)
    : slots_(std::max<std::size_t>(capacity, 1)) {}

std::uint64_t ShotAuditRing::Append(
    std::unique_ptr<sator::v1::ShotVerdictRecord> record) {
  std::uint64_t sequence = 0;
  Record evicted;  // Freed after unlocking.
  {
    std::lock_guard<std::mutex> lock(mu_);
    sequence = next_sequence_++;
    record->set_sequence(sequence);
    Record& slot = slots_[(sequence - 1) % slots_.size()];
    if (slot != nullptr) overwritten_.fetch_add(1, std::memory_order_relaxed);
    evicted = std::exchange(slot, Record(std::move(record)));
  }
  std::shared_ptr<const Subscribers> subscribers;
  {
    std::lock_guard<std::mutex> lock(subscribers_mu_);
    subscribers = subscribers_;
  }
  for (const std::shared_ptr<ShotAuditSubscriber>& subscriber : *subscribers) {
    subscriber->OnRecorded();
  }
  return sequence;
}

std::uint64_t ShotAuditRing::OldestLocked() const {
  if (next_sequence_ == 1) return 0;
  const std::uint64_t kept =
      std::min<std::uint64_t>(next_sequence_ - 1, slots_.size());
  return next_sequence_ - kept;
}

std::vector<ShotAuditRing::Record> ShotAuditRing::ReadFrom(
    std::uint64_t from, std::size_t limit) const {
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

ShotAuditRing::Next ShotAuditRing::NextFor(std::uint64_t cursor,
                                           std::uint64_t max_lag) const {
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

std::uint64_t ShotAuditRing::oldest_sequence() const {
  std::lock_guard<std::mutex> lock(mu_);
  return OldestLocked();
}

std::uint64_t ShotAuditRing::next_sequence() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_sequence_;
}

void ShotAuditRing::Subscribe(std::shared_ptr<ShotAuditSubscriber> subscriber) {
  std::lock_guard<std::mutex> lock(subscribers_mu_);
  auto copy = std::make_shared<Subscribers>(*subscribers_);
  copy->push_back(std::move(subscriber));
  subscribers_ = std::move(copy);
}

void ShotAuditRing::Unsubscribe(const ShotAuditSubscriber* subscriber) {
  std::lock_guard<std::mutex> lock(subscribers_mu_);
  auto copy = std::make_shared<Subscribers>(*subscribers_);
  std::erase_if(*copy,
                [subscriber](const auto& s) { return s.get() == subscriber; });
  subscribers_ = std::move(copy);
}

}  // namespace sator::server
