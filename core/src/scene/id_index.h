// IdIndex: the scene writer's map from body id (any uint64) to slot (uint32),
// an open-addressing hash table sized for memory per body.
//
// Linear probing over one array of (id, slot) buckets (16 bytes, so a
// lookup touches one cache line; a std::unordered_map costs about 56 bytes
// per entry for its node and bucket pointer),
// a power-of-two capacity kept at most 70 % full, and the slot value
// kNone marking an empty bucket (so every uint64 is a valid id). Erase
// uses backward-shift deletion (Knuth, TAOCP vol. 3, 6.4, Algorithm R),
// so there are no tombstones and lookups never slow down with churn. Ids
// are hashed with the MurmurHash3 64-bit finaliser (Appleby, fmix64), which
// spreads sequential ids (the common case) over the whole table.
#ifndef SATOR_CORE_SRC_SCENE_ID_INDEX_H_
#define SATOR_CORE_SRC_SCENE_ID_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sator::scene::internal {

class IdIndex {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t capacity() const { return buckets_.size(); }

  // The slot of `id`, or kNone.
  [[nodiscard]] std::uint32_t Find(std::uint64_t id) const {
    if (size_ == 0) return kNone;
    for (std::size_t i = Home(id);; i = (i + 1) & mask_) {
      if (buckets_[i].slot == kNone) return kNone;
      if (buckets_[i].id == id) return buckets_[i].slot;
    }
  }
  [[nodiscard]] bool Contains(std::uint64_t id) const {
    return Find(id) != kNone;
  }

  // Starts loading the bucket where the search for `id` begins (call a few
  // ids ahead of a batch of lookups: at 100k entries every probe is a cache
  // miss, and prefetches let them overlap).
  void Prefetch(std::uint64_t id) const {
    if (!buckets_.empty()) __builtin_prefetch(buckets_.data() + Home(id));
  }

  // Maps `id` to `slot` (slot != kNone). `id` must not be in the index.
  void Insert(std::uint64_t id, std::uint32_t slot) {
    Reserve(size_ + 1);
    std::size_t i = Home(id);
    while (buckets_[i].slot != kNone) i = (i + 1) & mask_;
    buckets_[i] = {id, slot};
    ++size_;
  }

  // Maps `id` to `slot` (slot != kNone) unless `id` is already there;
  // returns the slot it had, or kNone when it was inserted.
  std::uint32_t FindOrInsert(std::uint64_t id, std::uint32_t slot) {
    Reserve(size_ + 1);
    std::size_t i = Home(id);
    for (; buckets_[i].slot != kNone; i = (i + 1) & mask_) {
      if (buckets_[i].id == id) return buckets_[i].slot;
    }
    buckets_[i] = {id, slot};
    ++size_;
    return kNone;
  }

  // Removes `id`; false when it was not there.
  bool Erase(std::uint64_t id) {
    if (size_ == 0) return false;
    std::size_t hole = Home(id);
    while (true) {
      if (buckets_[hole].slot == kNone) return false;
      if (buckets_[hole].id == id) break;
      hole = (hole + 1) & mask_;
    }
    // Shift back every entry of the run after the hole that may live there:
    // one whose home is not in the cyclic interval (hole, j].
    for (std::size_t j = (hole + 1) & mask_; buckets_[j].slot != kNone;
         j = (j + 1) & mask_) {
      if (((j - Home(buckets_[j].id)) & mask_) >= ((j - hole) & mask_)) {
        buckets_[hole] = buckets_[j];
        hole = j;
      }
    }
    buckets_[hole].slot = kNone;
    --size_;
    return true;
  }

  // Grows so that `count` entries fit without another rehash.
  void Reserve(std::size_t count) {
    if (count * 10 <= capacity() * 7) return;
    std::size_t new_capacity = capacity() == 0 ? 16 : capacity();
    while (count * 10 > new_capacity * 7) new_capacity *= 2;
    std::vector<Bucket> old = std::move(buckets_);
    buckets_.assign(new_capacity, Bucket{});
    mask_ = new_capacity - 1;
    for (const Bucket& bucket : old) {
      if (bucket.slot == kNone) continue;
      std::size_t j = Home(bucket.id);
      while (buckets_[j].slot != kNone) j = (j + 1) & mask_;
      buckets_[j] = bucket;
    }
  }

  [[nodiscard]] std::size_t MemoryBytes() const {
    return buckets_.capacity() * sizeof(Bucket);
  }

 private:
  [[nodiscard]] std::size_t Home(std::uint64_t id) const {
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    id *= 0xc4ceb9fe1a85ec53ULL;
    id ^= id >> 33;
    return static_cast<std::size_t>(id) & mask_;
  }

  struct Bucket {
    std::uint64_t id = 0;
    std::uint32_t slot = kNone;  // kNone: empty.
  };
  std::vector<Bucket> buckets_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_ID_INDEX_H_
