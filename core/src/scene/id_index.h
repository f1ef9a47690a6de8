// IdIndex: the scene writer's map from body id (any uint64) to slot (uint32),
// an open-addressing hash table sized for memory per body.
//
// Linear probing over two parallel arrays (ids, slots; 12 bytes per bucket,
// against about 56 for a std::unordered_map node plus its bucket pointer),
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
  [[nodiscard]] std::size_t capacity() const { return slots_.size(); }

  // The slot of `id`, or kNone.
  [[nodiscard]] std::uint32_t Find(std::uint64_t id) const {
    if (size_ == 0) return kNone;
    for (std::size_t i = Home(id);; i = (i + 1) & mask_) {
      if (slots_[i] == kNone) return kNone;
      if (ids_[i] == id) return slots_[i];
    }
  }
  [[nodiscard]] bool Contains(std::uint64_t id) const {
    return Find(id) != kNone;
  }

  // Maps `id` to `slot` (slot != kNone). `id` must not be in the index.
  void Insert(std::uint64_t id, std::uint32_t slot) {
    Reserve(size_ + 1);
    std::size_t i = Home(id);
    while (slots_[i] != kNone) i = (i + 1) & mask_;
    ids_[i] = id;
    slots_[i] = slot;
    ++size_;
  }

  // Removes `id`; false when it was not there.
  bool Erase(std::uint64_t id) {
    if (size_ == 0) return false;
    std::size_t hole = Home(id);
    while (true) {
      if (slots_[hole] == kNone) return false;
      if (ids_[hole] == id) break;
      hole = (hole + 1) & mask_;
    }
    // Shift back every entry of the run after the hole that may live there:
    // one whose home is not in the cyclic interval (hole, j].
    for (std::size_t j = (hole + 1) & mask_; slots_[j] != kNone;
         j = (j + 1) & mask_) {
      if (((j - Home(ids_[j])) & mask_) >= ((j - hole) & mask_)) {
        ids_[hole] = ids_[j];
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = kNone;
    --size_;
    return true;
  }

  // Grows so that `count` entries fit without another rehash.
  void Reserve(std::size_t count) {
    if (count * 10 <= capacity() * 7) return;
    std::size_t new_capacity = capacity() == 0 ? 16 : capacity();
    while (count * 10 > new_capacity * 7) new_capacity *= 2;
    std::vector<std::uint64_t> old_ids = std::move(ids_);
    std::vector<std::uint32_t> old_slots = std::move(slots_);
    ids_.assign(new_capacity, 0);
    slots_.assign(new_capacity, kNone);
    mask_ = new_capacity - 1;
    for (std::size_t i = 0; i < old_slots.size(); ++i) {
      if (old_slots[i] == kNone) continue;
      std::size_t j = Home(old_ids[i]);
      while (slots_[j] != kNone) j = (j + 1) & mask_;
      ids_[j] = old_ids[i];
      slots_[j] = old_slots[i];
    }
  }

  [[nodiscard]] std::size_t MemoryBytes() const {
    return ids_.capacity() * sizeof(std::uint64_t) +
           slots_.capacity() * sizeof(std::uint32_t);
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

  std::vector<std::uint64_t> ids_;
  std::vector<std::uint32_t> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_ID_INDEX_H_
