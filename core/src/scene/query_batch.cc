// RunQueryBatch: a fixed set of std::threads pulling chunks of queries from
// an atomic counter (self-scheduling); each result goes to its own slot, so
// no two threads write the same memory and the output order is the input's.
#include "sator/core/scene/query_batch.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"

namespace sator::scene {
namespace {

// Queries taken per grab of the counter: small enough to balance, large
// enough that the counter is not contended.
constexpr std::size_t kChunk = 16;

}  // namespace

template <int D>
absl::StatusOr<std::vector<absl::StatusOr<QueryResult<D>>>> RunQueryBatch(
    const SceneSnapshot<D>& snapshot, absl::Span<const SceneQuery<D>> queries,
    int threads) {
  if (threads < 1 || threads > kMaxBatchThreads) {
    return absl::InvalidArgumentError(absl::StrCat(
        "threads: must be in [1, ", kMaxBatchThreads, "], got ", threads));
  }
  // std::optional because StatusOr has no cheap "not yet" state worth
  // constructing N times; every slot is filled before we return.
  std::vector<std::optional<absl::StatusOr<QueryResult<D>>>> slots(
      queries.size());
  std::atomic<std::size_t> next{0};
  auto work = [&]() {
    while (true) {
      const std::size_t begin = next.fetch_add(kChunk);
      if (begin >= queries.size()) return;
      const std::size_t end = std::min(queries.size(), begin + kChunk);
      for (std::size_t i = begin; i < end; ++i) {
        slots[i].emplace(snapshot.Run(queries[i]));
      }
    }
  };
  const std::size_t helpers =
      std::min<std::size_t>(static_cast<std::size_t>(threads - 1),
                            (queries.size() + kChunk - 1) / kChunk);
  std::vector<std::thread> pool;
  pool.reserve(helpers);
  for (std::size_t t = 0; t < helpers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  std::vector<absl::StatusOr<QueryResult<D>>> results;
  results.reserve(queries.size());
  for (auto& slot : slots) results.push_back(std::move(*slot));
  return results;
}

template absl::StatusOr<std::vector<absl::StatusOr<QueryResult<2>>>>
RunQueryBatch<2>(const SceneSnapshot<2>&, absl::Span<const SceneQuery<2>>, int);
template absl::StatusOr<std::vector<absl::StatusOr<QueryResult<3>>>>
RunQueryBatch<3>(const SceneSnapshot<3>&, absl::Span<const SceneQuery<3>>, int);

}  // namespace sator::scene
