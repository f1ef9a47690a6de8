// A stack for tree traversal: a fixed inline buffer that spills to the heap
// only for unusually deep trees, so a query allocates nothing in the common
// case.
#ifndef SATOR_CORE_BROADPHASE_TRAVERSAL_STACK_H_
#define SATOR_CORE_BROADPHASE_TRAVERSAL_STACK_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

namespace sator::broadphase {

template <typename T, int kInline = 128>
class TraversalStack {
 public:
  TraversalStack() = default;
  TraversalStack(const TraversalStack&) = delete;
  TraversalStack& operator=(const TraversalStack&) = delete;

  void Push(const T& value) {
    if (size_ == capacity_) {
      Grow();
    }
    data_[size_++] = value;
  }
  T Pop() { return data_[--size_]; }
  [[nodiscard]] bool Empty() const { return size_ == 0; }

 private:
  // Out of line and cold, so that Push stays small enough to inline into
  // the traversal loops.
  [[gnu::noinline, gnu::cold]] void Grow() {
    std::vector<T> bigger(2 * capacity_);
    std::copy(data_, data_ + size_, bigger.begin());
    heap_.swap(bigger);
    data_ = heap_.data();
    capacity_ = heap_.size();
  }

  std::array<T, kInline> inline_;
  std::vector<T> heap_;
  T* data_ = inline_.data();
  std::size_t size_ = 0;
  std::size_t capacity_ = kInline;
};

}  // namespace sator::broadphase

#endif  // SATOR_CORE_BROADPHASE_TRAVERSAL_STACK_H_
